"""Running a partitioned program (JAX's `jax.jit` over several devices, with `shard_map` regions) the way
its per-device parts mean it: one process per partition (`mhlo.num_partitions` of the module), every
process holding the same global values outside the manual regions, collectives and the
`SPMDShardToFullShape` gathers meeting across the processes (`jax_targets.py`)."""

from __future__ import annotations

import copy
import threading
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr

from stablehlo_py.errors import InterpreterError


def num_partitions(module: Any) -> int:
    attr = module.attributes.get("mhlo.num_partitions")
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else 1


def run_spmd(
    module_or_text: Any, *args: Any, entry: str = "main", partitions: int | None = None
) -> list[np.ndarray]:
    """Run `entry` as `partitions` processes (default: the module's `mhlo.num_partitions`) on the same
    global arguments; return the results (partition 0's; every partition computes the global
    results)."""
    from stablehlo_py.interpreter.api import _as_module, _coerce_args
    from stablehlo_py.interpreter.evaluator import Evaluator, ProcessContext
    from stablehlo_py.interpreter.impls.collectives import AbortedError, ProcessGrid

    module = _as_module(module_or_text)
    n = partitions if partitions is not None else num_partitions(module)
    if n < 1:
        raise InterpreterError(f"run_spmd needs at least one partition, got {n}")
    ev = Evaluator(module)
    bound = _coerce_args(ev, entry, args)
    grid = ProcessGrid(1, n)
    results: list[list[Any] | None] = [None] * n
    errors: list[tuple[int, BaseException]] = []

    def work(p: int) -> None:
        child = copy.copy(ev)
        child.failures = []
        child.process = ProcessContext(
            replica_id=0, partition_id=p, num_replicas=1, num_partitions=n, grid=grid
        )
        try:
            results[p] = child.call(entry, list(bound))
            if child.failures:
                raise InterpreterError("; ".join(str(f) for f in child.failures))
        except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
            errors.append((p, e))
            grid.abort(e)

    threads = [threading.Thread(target=work, args=(p,), daemon=True) for p in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        errors.sort(key=lambda e: (isinstance(e[1], AbortedError), e[0]))
        raise errors[0][1]
    return list(results[0] or [])


__all__ = ["num_partitions", "run_spmd"]
