"""Running a partitioned or replicated program the way its per-device parts mean it: one process per
(replica, partition) of the module's `mhlo.num_replicas` x `mhlo.num_partitions` grid, every process
holding the same global arguments (as XLA gives each replica its own copy of them), collectives (the
StableHLO ops, and JAX's `ragged_all_to_all` and async `*-start`/`*-done` custom calls,
`collectives.py`) and the shard_map gathers (`SPMDShardToFullShape`, `jax_targets.py`;
`sdy.manual_computation`, `impls/sdy.py`) meeting across the processes.  Process (0, 0) gives the
results.

Which programs run so (`needs_grid`): a grid of more than one process and
- with partitions only (`mhlo.num_replicas` = 1): a per-device region (JAX's shard_map); a program
  without one is in the global view (`jax.jit` over several devices) and runs as one process;
- with replicas (`mhlo.num_replicas` > 1): a per-device region, or any op whose result depends on
  the grid (a collective, `replica_id`, `partition_id`; `impls.collectives.GRID_OPS` and JAX's
  collective custom calls).
A program with `interpreter.run_parallel` never does: that op runs its own grid."""

from __future__ import annotations

import copy
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IntegerAttr

from stablehlo_py.errors import InterpreterError

_REGION_TARGETS = ("SPMDFullToShardShape", "SPMDShardToFullShape")


def _module_int(module: Any, name: str) -> int:
    attr = module.attributes.get(name)
    return int(attr.value.data) if isinstance(attr, IntegerAttr) else 1


def num_partitions(module: Any) -> int:
    return _module_int(module, "mhlo.num_partitions")


def num_replicas(module: Any) -> int:
    return _module_int(module, "mhlo.num_replicas")


def needs_grid(module: Any) -> bool:
    """Whether `module` only means something run once per (replica, partition) (module docstring):
    a grid of more than one process and a per-device region (JAX's `SPMDFullToShardShape`, Shardy's
    `sdy.manual_computation`), or, with replicas, an op that depends on the grid."""
    from stablehlo_py.interpreter.custom_calls.collectives import COLLECTIVE_TARGETS
    from stablehlo_py.interpreter.impls.collectives import GRID_OPS

    replicas = num_replicas(module)
    if replicas * num_partitions(module) <= 1:
        return False
    region = grid_op = False
    for op in module.walk():
        if op.name == "interpreter.run_parallel":
            return False
        if op.name == "sdy.manual_computation":  # Shardy's shard_map region (impls/sdy.py)
            region = True
        elif op.name in GRID_OPS:
            grid_op = True
        elif op.name == "stablehlo.custom_call":
            name = getattr(op.properties.get("call_target_name"), "data", None)
            region = region or name in _REGION_TARGETS
            grid_op = grid_op or name in COLLECTIVE_TARGETS
    return region or (replicas > 1 and grid_op)


needs_spmd = needs_grid
"""The name from before replicas ran in-process (the same answer for a program without replicas)."""


def grid_shape_of(module: Any) -> tuple[int, int]:
    """(replicas, partitions) the module runs on in-process: its `mhlo.num_replicas` x
    `mhlo.num_partitions` when `needs_grid`, else (1, 1)."""
    if needs_grid(module):
        return num_replicas(module), num_partitions(module)
    return 1, 1


def process_evaluator(
    ev: Any, grid: Any, rank: int, *, failures: list[Any], shard_plan: Any = None
) -> Any:
    """A copy of evaluator `ev` (sharing its compiled code) that runs process `rank` of `grid`
    (replica, partition = `grid.pid_of(rank)`): its own ProcessContext on `grid` and its own list
    of check failures (the MPI engine runs one per rank, `call_spmd` one per thread)."""
    from stablehlo_py.interpreter.evaluator import ProcessContext

    replica, partition = grid.pid_of(rank)
    child = copy.copy(ev)
    child.failures = failures
    child.process = ProcessContext(
        replica_id=replica,
        partition_id=partition,
        num_replicas=grid.num_replicas,
        num_partitions=grid.num_partitions,
        grid=grid,
        shard_plan=shard_plan,
    )
    return child


def call_spmd(
    ev: Any,
    entry: str,
    args: Sequence[Any],
    partitions: int,
    replicas: int = 1,
    *,
    tiles: bool = False,
) -> list[Any]:
    """Run `entry` of evaluator `ev` as `replicas` x `partitions` processes, each on the same
    global `args`; returns process (0, 0)'s results (every process computes the global results);
    check failures of every process are added to `ev.failures`, in rank order (rank = replica x
    partitions + partition).

    `tiles`: run under the entry's shard plan (`interpreter/shard_plan.py`): each process is given
    only its tiles of the tile-fed arguments and keeps its tiles of the tile-kept results (no
    gather), which are then assembled here into the global results (the same values as without)."""
    from stablehlo_py.interpreter.impls.collectives import ProcessGrid
    from stablehlo_py.interpreter.shard_plan import shard_plan

    if partitions < 1 or replicas < 1:
        raise InterpreterError(
            f"a partitioned run needs at least one replica and one partition, got {replicas} "
            f"replicas x {partitions} partitions"
        )
    plan = (
        shard_plan(ev.module, entry, replicas=replicas, partitions=partitions) if tiles else None
    )
    grid = ProcessGrid(replicas, partitions)
    pids = [grid.pid_of(rank) for rank in range(grid.num_processes)]
    failures: list[list[Any]] = [[] for _ in pids]

    def work(rank: int) -> list[Any]:
        replica, partition = pids[rank]
        child = process_evaluator(ev, grid, rank, failures=failures[rank], shard_plan=plan)
        mine = list(args) if plan is None else plan.local_args(args, replica, partition)
        return child.call(entry, mine)

    results = grid.run_processes(
        [functools.partial(work, rank) for rank in range(len(pids))],
        names=[f"process-{r}-{p}" for r, p in pids],
    )
    for f in failures:
        ev.failures.extend(f)
    if plan is not None:
        return plan.assemble(results)
    return list(results[0] or [])


def run_spmd(
    module_or_text: Any,
    *args: Any,
    entry: str = "main",
    partitions: int | None = None,
    replicas: int | None = None,
    tiles: bool = False,
) -> list[np.ndarray]:
    """Run `entry` as `replicas` x `partitions` processes (defaults: the module's
    `mhlo.num_replicas` and `mhlo.num_partitions`) on the same global numpy arguments; return the
    global results.  Check ops that fail raise InterpreterError.  `tiles`: under the shard plan
    (`call_spmd`)."""
    from stablehlo_py.interpreter.entry_inputs import as_module, coerce_args
    from stablehlo_py.interpreter.evaluator import Evaluator

    module = as_module(module_or_text)
    n = partitions if partitions is not None else num_partitions(module)
    r = replicas if replicas is not None else num_replicas(module)
    ev = Evaluator(module)
    results = call_spmd(ev, entry, coerce_args(ev, entry, args), n, replicas=r, tiles=tiles)
    if ev.failures:
        raise InterpreterError("; ".join(str(f) for f in ev.failures))
    return results


__all__ = [
    "call_spmd", "grid_shape_of", "needs_grid", "needs_spmd", "num_partitions", "num_replicas",
    "process_evaluator", "run_spmd",
]
