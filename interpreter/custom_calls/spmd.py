"""Running a partitioned program (JAX's `jax.jit` over several devices, with `shard_map` regions) the way
its per-device parts mean it: one process per partition (`mhlo.num_partitions` of the module), every
process holding the same global values outside the manual regions, collectives (the StableHLO
ops, and JAX's `ragged_all_to_all` and async `*-start`/`*-done` custom calls, `collectives.py`) and
the `SPMDShardToFullShape` gathers meeting across the processes (`jax_targets.py`)."""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr

from stablehlo_py.errors import InterpreterError


def num_partitions(module: Any) -> int:
    attr = module.attributes.get("mhlo.num_partitions")
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else 1


def needs_spmd(module: Any) -> bool:
    """Whether `module` is partitioned (`mhlo.num_partitions` > 1) and has per-device regions (JAX's
    `SPMDFullToShardShape`, or Shardy's `sdy.manual_computation`), so that it only means something run once per partition."""
    if num_partitions(module) <= 1:
        return False
    for op in module.walk():
        if op.name == "sdy.manual_computation":  # Shardy's shard_map region (impls/sdy.py)
            return True
        if op.name == "stablehlo.custom_call":
            name = op.properties.get("call_target_name")
            if getattr(name, "data", None) in ("SPMDFullToShardShape", "SPMDShardToFullShape"):
                return True
    return False


def call_spmd(ev: Any, entry: str, args: Sequence[Any], partitions: int) -> list[Any]:
    """Run `entry` of evaluator `ev` as `partitions` processes on the same global `args`; returns
    partition 0's results (every partition computes the global results); check failures of every
    partition are added to `ev.failures`."""
    from stablehlo_py.interpreter.evaluator import ProcessContext
    from stablehlo_py.interpreter.impls.collectives import ProcessGrid

    if partitions < 1:
        raise InterpreterError(f"a partitioned run needs at least one partition, got {partitions}")
    grid = ProcessGrid(1, partitions)
    failures: list[list[Any]] = [[] for _ in range(partitions)]

    def work(p: int) -> list[Any]:
        child = copy.copy(ev)
        child.failures = failures[p]
        child.process = ProcessContext(
            replica_id=0, partition_id=p, num_replicas=1, num_partitions=partitions, grid=grid
        )
        return child.call(entry, list(args))

    results = grid.run_processes([functools.partial(work, p) for p in range(partitions)])
    for f in failures:
        ev.failures.extend(f)
    return list(results[0] or [])


def run_spmd(
    module_or_text: Any, *args: Any, entry: str = "main", partitions: int | None = None
) -> list[np.ndarray]:
    """Run `entry` as `partitions` processes (default: the module's `mhlo.num_partitions`) on the same
    global numpy arguments; return the global results.  Check ops that fail raise InterpreterError."""
    from stablehlo_py.interpreter.entry_inputs import as_module, coerce_args
    from stablehlo_py.interpreter.evaluator import Evaluator

    module = as_module(module_or_text)
    n = partitions if partitions is not None else num_partitions(module)
    ev = Evaluator(module)
    results = call_spmd(ev, entry, coerce_args(ev, entry, args), n)
    if ev.failures:
        raise InterpreterError("; ".join(str(f) for f in ev.failures))
    return results


__all__ = ["call_spmd", "needs_spmd", "num_partitions", "run_spmd"]
