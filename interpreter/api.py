"""Python API of the interpreter: `run` and upstream's `eval_module`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter.observe import observing
from xdsl.ir import Operation

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.entry_inputs import as_module, coerce_args


def run(
    module_or_text: Operation | str,
    *args: Any,
    entry: str = "main",
    trace: Any = None,
    probe_dir: str | os.PathLike[str] | None = None,
    engine: str = "threads",
    gather: str = "root",
    timeout: float | None = 600.0,
    abort_after: float | None = 3.0,
) -> list[np.ndarray] | None:
    """Run `entry` on numpy arguments; returns its results.  Check ops that fail raise InterpreterError.

    `trace`: an observer told about each op as it runs (`observe.py`: an object with
    `after_op(op, results)`, and optionally `begin(module, entry)` / `end(error)`), e.g.
    `stablehlo_py.trace.Trace(level=1)`.  A partitioned program reports partition 0's ops.
    `probe_dir`: where `interpreter.probe` ops write their values (`--probe-output-dir`; a fresh
    temporary directory when None).

    Dynamic programs run directly: each argument's shape binds the `?` dimensions of its parameter
    type (static dimensions must match, `#stablehlo.bounds` cap the size, `tensor<*x..>` takes any
    shape), every op computes with concrete shapes, results of ops on dynamic types are checked
    against their types, and `custom_call @shape_assertion` (as `jax.export` emits for symbolic
    shapes) raises InterpreterError with its formatted message when it fails.  A multi-platform
    JAX export takes its `_platform_index` as the first argument.  A partitioned program with
    per-device regions (JAX's shard_map: `SPMDFullToShardShape`, `sdy.manual_computation`), or a
    replicated one (`mhlo.num_replicas` > 1) with collectives or `replica_id`/`partition_id`, runs
    once per (replica, partition) on the global arguments and returns process (0, 0)'s results
    (`custom_calls/spmd.py`).

    `engine`: "threads" (the processes of a partitioned program as threads of this process) or
    "mpi": called by every rank of ``mpirun -n P`` alike, each rank runs one process
    (`interpreter/mpi/runner.py`, `run_mpi`; needs the mpi extra and an MPI).  P must be the
    program's `mhlo.num_replicas` x `mhlo.num_partitions`.  Then `gather` says who gets the
    results: "root" (rank 0 the global results, the others None), "all" (every rank), "none"
    (every rank what it holds: a `Tile` of each result kept per process, arrays of the others);
    `timeout`: seconds a rank waits for the others; `abort_after`: seconds after a failure
    before ranks that did not stop are ended with MPI_Abort (None: never).  A failure raises
    on rank 0 (`RankFailed`, its report printed on stderr; check failures: the message above)
    and `RankStopped` on the other ranks.
    """
    if engine == "mpi":
        from stablehlo_py.interpreter.mpi.runner import run_mpi

        return run_mpi(
            as_module(module_or_text), list(args), entry=entry, gather=gather, timeout=timeout,
            abort_after=abort_after, trace=trace, probe_dir=probe_dir,
        )
    if engine != "threads":
        raise InterpreterError(
            f"engine={engine!r} is not an interpreter engine",
            note="engine='threads' (the default: one thread per process, in this process) or "
            "engine='mpi' (one MPI rank per process, under mpirun -n P)",
        )
    if gather != "root":
        raise InterpreterError(
            f"gather={gather!r} goes with engine='mpi': the threaded engine returns the global "
            "results to its one caller"
        )
    from stablehlo_py.interpreter.custom_calls.spmd import call_spmd, grid_shape_of

    module = as_module(module_or_text)
    ev = Evaluator(module, observer=trace)
    if probe_dir is not None:
        ev.probe_dir = os.fspath(probe_dir)  # type: ignore[attr-defined]
    args = coerce_args(ev, entry, args)
    with observing(trace, module, entry):
        replicas, partitions = grid_shape_of(module)
        if replicas * partitions > 1:  # run once per process of the grid, as the CLI does
            results = call_spmd(ev, entry, args, partitions, replicas=replicas)
        else:
            results = ev.call(entry, args)
        if ev.failures:
            raise InterpreterError("; ".join(str(f) for f in ev.failures))
    return results


def eval_module(
    module: Operation | str, args: Sequence[Any] = (), entry: str = "main"
) -> list[np.ndarray]:
    """Upstream's name (`stablehlo.eval_module(module, args)`): evaluate `main` with `args`."""
    return run(module, *args, entry=entry)
