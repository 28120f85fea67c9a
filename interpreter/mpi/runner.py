"""One rank's run of a program under MPI: the MPI engine (docs/plans/issue-29-mpi.md §3.1-3.5).

Every rank started by ``mpirun -n P`` calls :func:`run_mpi` (or :func:`run_rank`, which returns
everything a command line needs) with the same module and entry:

1. **Before the run** (:func:`before_run`): the module's process count (`world.required_processes`:
   `mhlo.num_replicas` x `mhlo.num_partitions`, or its `interpreter.run_parallel` grid) must be P,
   else every rank raises the one-line error of §3.1; the entry must exist and arguments given
   as a sequence must fit its parameters (:func:`check_arguments`: shapes, nothing read).  Whatever fails here (also a caller's own
   step, such as reading the program: the CLI passes it through :func:`before_run` too) fails on
   each rank by itself, without the control plane; one polled ``Iallreduce`` then tells every rank
   which ranks failed: the lowest failing rank raises its error (named by rank when it is not rank
   0), the other failing ranks raise theirs marked :func:`quiet` (a command line does not print
   it: it is the same error again, or a consequence), and the ranks that did not fail raise
   `RankStopped`.  So a wrong P, or a program every rank fails to read, is said once.
2. **The run**, inside the control plane (`control.py`, entered before any argument is read):
   the `MpiGrid`, the shard plan (`shard_plan.py`), this rank's arguments (sliced to its tiles
   before they are read: `io.shards.process_arguments`'s rule, here without the io layer), and its
   process run by `process_evaluator` (the copy of an evaluator ``call_spmd`` runs per thread).
   A program without per-device regions (`needs_grid` false: JAX's global view, `jax.jit` with
   shardings) runs on rank 0 alone, which says so in one line; the others hold nothing and wait.
   A program whose processes are its `interpreter.run_parallel` ops' runs on every rank alike,
   each rank running its process of each run_parallel (`parallel.py`); rank 0 keeps the prints
   and check failures.
   A failure on any rank stops every rank: rank 0 prints one report and raises `RankFailed`, the
   others `RankStopped` (`control.py`).  The ranks look at the stop flag in every collective's
   wait (there is no cheap per-op hook: an evaluator's observer is compiled into its code, which
   makes the run slower); a rank busy computing between two collectives is ended by the control
   plane's ``MPI_Abort`` fallback `abort_after` seconds after the stop.
3. **The end** (every rank, still inside the control plane): every rank's prints, outfeed and
   check failures to rank 0 in rank order (`MpiGrid.gather_to_root`); rank 0's verdict on check
   failures to every rank; the results per `gather` (`outputs.py`); a caller's `deliver` (the
   CLI's result writers); each rank's peak RSS to rank 0 (`measure`).

Check failures are not errors: every rank runs to the end, then :func:`run_mpi` raises on rank 0
the in-process message (every rank's failures in rank order, as ``call_spmd`` merges them, joined
by ``; `` as `interpreter.run` does), and `RankStopped` on the others.

A program needing one process runs outside mpirun too (an MPI singleton) and gives the threaded
run's results.
"""

from __future__ import annotations

import copy
import os
import resource
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar

import numpy as np
from stablehlo_py.interpreter.custom_calls.spmd import needs_grid, process_evaluator
from stablehlo_py.interpreter.evaluator import CheckFailure, Evaluator
from stablehlo_py.interpreter.impls.interpreter_ops import PARALLEL_HOST
from stablehlo_py.interpreter.mpi import require_mpi, wire
from stablehlo_py.interpreter.mpi.control import ControlPlane, RankFailed, RankStopped
from stablehlo_py.interpreter.mpi.grid import MpiGrid
from stablehlo_py.interpreter.mpi.messages import describe
from stablehlo_py.interpreter.mpi.outputs import RankOutputs
from stablehlo_py.interpreter.mpi.parallel import RunParallelRanks
from stablehlo_py.interpreter.mpi.supervisor import ABORT_AFTER
from stablehlo_py.interpreter.mpi.wait import DEFAULT_TIMEOUT, wait
from stablehlo_py.interpreter.mpi.world import (
    RUN_PARALLEL_SOURCE,
    Processes,
    check_processes,
    required_processes,
)
from stablehlo_py.interpreter.observe import observing
from stablehlo_py.interpreter.shapes import bind_arguments
from stablehlo_py.interpreter.tiles import Tile

from stablehlo_py.errors import InterpreterError, StableHLOError

GATHERS = ("root", "all", "none")
T = TypeVar("T")


# ------------------------------------------------------------------------------ before the run
def quiet(error: BaseException) -> bool:
    """Whether a command line should exit without printing `error` on this rank: it was reported
    already (rank 0's `RankFailed`), this rank stopped because another failed (`RankStopped`),
    or another rank says the same (:func:`before_run`)."""
    return (
        isinstance(error, RankStopped)
        or bool(getattr(error, "reported", False))
        or bool(getattr(error, "quiet", False))
    )


def _named(error: StableHLOError, rank: int) -> StableHLOError:
    """`error` with ``rank k: `` before its message (the rank that reports is not rank 0)."""
    named = copy.copy(error)
    named.message = f"rank {rank}: {error.message}"
    named.args = (named.render(),)
    return named


def _agree(MPI: Any, comm: Any, failed: bool, timeout: float | None) -> int:  # noqa: N803
    """The lowest rank that failed (comm's size when none did), known to every rank."""
    size = comm.Get_size()
    if size == 1:
        return 0 if failed else 1
    mine = np.array([comm.Get_rank() if failed else size], np.int64)
    lowest = np.empty(1, np.int64)
    what = "the ranks' check before the run"
    try:
        wait(comm.Iallreduce([mine, MPI.INT64_T], [lowest, MPI.INT64_T], op=MPI.MIN),
             timeout=timeout, what=what,
             timeout_message=f"{what} timed out after {timeout:g} s: not every rank of the "
             "run got there (one is still reading the program?)")
    except InterpreterError as e:  # nothing else can end the job: no control plane yet
        sys.stderr.write(f"{e}\nnote: ending the job with MPI_Abort\n")
        sys.stderr.flush()
        comm.Abort(1)
    return int(lowest[0])


def before_run(
    step: Callable[[], T],
    *,
    comm: Any = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    mpi: Any = None,
) -> T:
    """Run `step` on every rank (it must not communicate: reading and checking a program), then
    agree on the outcome (module doc, item 1); `step`'s value when no rank failed.  `comm`:
    default COMM_WORLD; `mpi`: mpi4py's MPI module (default `require_mpi()`'s)."""
    MPI = require_mpi("the MPI engine") if mpi is None else mpi
    comm = MPI.COMM_WORLD if comm is None else comm
    rank = comm.Get_rank()
    value: Any = None
    error: BaseException | None = None
    try:
        value = step()
    except StableHLOError as e:
        error = e
    except Exception as e:  # noqa: BLE001 - a bug: every rank must still agree before it ends
        error = e
    lowest = _agree(MPI, comm, error is not None, timeout)
    if lowest >= comm.Get_size():
        return value  # type: ignore[no-any-return]
    if error is None:
        raise RankStopped(lowest)
    if rank == lowest:
        if rank != 0 and isinstance(error, StableHLOError):
            raise _named(error, rank) from None
        raise error
    error.quiet = True  # type: ignore[attr-defined]
    raise error


# --------------------------------------------------------------------------------- the outcome
@dataclass
class RankContext:
    """Where this rank's run stands when it reads its arguments (a caller's reader gets it)."""

    rank: int
    size: int
    replica: int
    partition: int
    plan: Any
    global_view: bool


@dataclass
class RankRun:
    """One rank's outcome of an MPI run.

    `results`: per `gather` (None where this rank gets none); `failures`, `prints`, `outfeed`:
    rank 0 has every rank's in rank order (`outfeed` per rank), the others their own;
    `failed_rank`: the lowest rank with a check failure (every rank knows), None when none
    failed; `peak_rss_kb`: rank 0, when measured, each rank's peak resident memory (KiB);
    `by_run_parallel`: the ranks were the processes of the module's run_parallel ops."""

    rank: int
    size: int
    processes: Processes
    plan: Any
    global_view: bool
    results: list[Any] | None
    failures: list[CheckFailure] = field(default_factory=list)
    failed_rank: int | None = None
    prints: list[str] = field(default_factory=list)
    outfeed: list[list[list[Any]]] = field(default_factory=list)
    peak_rss_kb: list[int] | None = None
    by_run_parallel: bool = False

    @property
    def replica(self) -> int:
        return self.rank // self.processes.partitions

    @property
    def partition(self) -> int:
        return self.rank % self.processes.partitions

    def failure_error(self) -> InterpreterError | None:
        """What `run_mpi` raises for check failures: rank 0 the in-process message, the others
        RankStopped; None without failures."""
        if self.failed_rank is None:
            return None
        if self.rank != 0:
            return RankStopped(self.failed_rank)
        return InterpreterError("; ".join(str(f) for f in self.failures))


def peak_rss_kb() -> int:
    """This process's peak resident set size in KiB (Linux reports KiB, macOS bytes)."""
    peak = int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return peak // 1024 if sys.platform == "darwin" else peak


def global_view_notice(program: str, size: int) -> str:
    """Rank 0's line about a program that runs on rank 0 alone (plan §3.4)."""
    others = size - 1
    return (
        f"note: {program} has no shard_map region (per-device code); it runs in global view on "
        f"rank 0, the other {others} rank{'s' if others != 1 else ''} hold nothing (the "
        "interpreter does not partition global-view programs)"
    )


def _by_run_parallel(processes: Processes, grid_run: bool) -> bool:
    """Whether the ranks are the processes of the module's run_parallel ops (`parallel.py`)."""
    return not grid_run and processes.source == RUN_PARALLEL_SOURCE


def report_text(run: RankRun) -> str:
    """Rank 0's ``--mpi-report``: the grid, where the program ran, each argument and result as
    tile or whole and why (`ShardPlan.report`), each rank's peak RSS."""
    p = run.processes
    lines = [f"mpi report: {run.size} rank{'s' if run.size != 1 else ''}, {p.describe()}"]
    if run.global_view and run.size > 1:
        lines.append("runs on: rank 0 alone (global view: no shard_map region); arguments and "
                     "results whole on rank 0")
    elif run.by_run_parallel:
        lines.append("runs on: every rank alike; rank i x N + j runs process (i, j) of each "
                     "interpreter.run_parallel of R x N processes, whose results every rank gets")
    else:
        lines.append("runs on: every rank, one process each")
    if run.plan is not None:
        lines.append(run.plan.report())
    for rank, kb in enumerate(run.peak_rss_kb or []):
        pid = divmod(rank, p.partitions)
        lines.append(f"{describe(rank, pid)}: peak_rss_mb={kb / 1024:.1f}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- arguments
def _plain(value: Any) -> bool:
    """Held in memory (or a memory map) already: bound as `interpreter.run` binds arguments."""
    return not isinstance(value, Tile) and (
        isinstance(value, (np.ndarray, np.generic)) or not hasattr(value, "shape")
    )


def _stand_in(value: Any, dtype: Any) -> np.ndarray:
    """A zero-strided array of `value`'s global shape and the parameter's dtype: checked by
    binding without reading `value` (a Tile, an h5py/zarr dataset)."""
    shape = value.global_shape if isinstance(value, Tile) else tuple(value.shape)
    return np.broadcast_to(np.zeros((), dtype), shape)


def check_arguments(module: Any, entry: str, args: Sequence[Any]) -> None:
    """InterpreterError unless `module` has `@entry` and `args` fit its parameters (count,
    shapes); nothing of `args` is read."""
    from stablehlo_py.interpreter.module_code import functions
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    funcs = functions(module)
    func = funcs.get(entry)
    if func is None:
        raise InterpreterError(
            f"no function @{entry} to run (have: {', '.join('@' + f for f in funcs)})"
        )
    types = func.function_type.inputs.data
    stand = []
    for k, a in enumerate(args):
        if k >= len(types) or not hasattr(types[k], "element_type"):
            stand.append(a)
            continue
        shape = a.global_shape if isinstance(a, Tile) else np.shape(a)
        stand.append(np.broadcast_to(np.zeros((), dtype_of_type(types[k])), shape))
    bind_arguments(func, stand, entry)


def local_arguments(ev: Evaluator, entry: str, args: Sequence[Any], plan: Any, replica: int,
                    partition: int) -> list[Any]:
    """What process (replica, partition) is given: `args` bound to `@entry`'s parameters (as
    `interpreter.run` binds them), each tile-fed one sliced to the process's tile before it is
    read (a view of a memory map); a `Tile` the caller already holds is checked to be that tile."""
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    func = ev.funcs.get(entry)
    if func is None:
        raise InterpreterError(
            f"no function @{entry} to run (have: {', '.join('@' + f for f in ev.funcs)})"
        )
    args = list(args)
    types = func.function_type.inputs.data
    stand = [
        a if _plain(a) or k >= len(types) else _stand_in(a, dtype_of_type(types[k]))
        for k, a in enumerate(args)
    ]
    bound = bind_arguments(func, stand, entry)
    given = [b if _plain(a) else a for a, b in zip(args, bound)]
    out = []
    for k, a in enumerate(given):
        d = None if plan is None else plan.args[k]
        index = None if d is None else d.index(replica, partition)
        if isinstance(a, Tile):
            if index is None:
                why = "this run holds every argument whole" if d is None else d.reason
                raise InterpreterError(
                    f"argument {k} is given as a Tile, but every process needs all of it ({why}): "
                    "give the whole array"
                )
            if a.global_shape != d.tiling.shape or a.index != index:
                from stablehlo_py.interpreter.tiles import index_text

                raise InterpreterError(
                    f"argument {k} is given as {a!r}, but process (replica {replica}, partition "
                    f"{partition}) holds {index_text(index)} of {list(d.tiling.shape)}"
                )
            value = np.asarray(a.data)
        else:
            value = np.asarray(a if index is None else a[index])
        if not _plain(args[k]) and value.dtype != bound[k].dtype:
            value = value.astype(bound[k].dtype)
        out.append(value)
    return out


# ------------------------------------------------------------------------------------- the run
def _drop(text: str) -> None:
    """The print sink of a rank whose prints rank 0 says."""


def _check_gather(gather: str) -> None:
    if gather not in GATHERS:
        raise InterpreterError(
            f"gather={gather!r} is not a way to hand back an MPI run's results",
            note="gather='root' (rank 0 gets the global results, the others None), 'all' "
            "(every rank gets them) or 'none' (every rank gets what it holds: Tiles of the "
            "results kept per process, arrays of the others)",
        )


def run_rank(
    module: Any,
    args: Sequence[Any] | Callable[[RankContext], Sequence[Any]] = (),
    *,
    entry: str = "main",
    gather: str = "root",
    timeout: float | None = DEFAULT_TIMEOUT,
    abort_after: float | None = ABORT_AFTER,
    infeed: Sequence[Any] = (),
    program: str = "the program",
    who: str | None = None,
    deliver: Callable[[RankOutputs], Any] | None = None,
    observer: Any = None,
    probe_dir: str | os.PathLike[str] | None = None,
    measure: bool = False,
    stream: TextIO | None = None,
    chunk: int = wire.MAX_CHUNK,
) -> RankRun:
    """This rank's part of an MPI run of `entry` (module doc); every rank calls it alike.

    `args`: the entry's global arguments (arrays, memory maps, anything with ``.shape`` and
    slicing, `Tile`s this rank already holds), or a function of the :class:`RankContext` that
    returns them, called inside the control plane on the ranks that run (so a rank's failure to
    read them is reported like any run error).  `gather`: "root", "all" or "none" (`run_mpi`).
    `timeout`: seconds any wait may take (a collective, the broker, the end);
    `abort_after`: seconds after a failure before ``MPI_Abort`` ends ranks that did not stop
    (None: never); `infeed`: rank 0's infeed queue; `program`, `who`: name the program and the
    tool in the process-count error; `deliver(outputs)`: called on every rank at the end, inside
    the control plane (a writer of results: `RankOutputs`); `observer`: rank 0's (`run`'s
    `trace`); `probe_dir`: where `interpreter.probe` writes (``rank<k>/`` below it when P > 1);
    `measure`: gather each rank's peak RSS to rank 0; `stream`: where rank 0's notices and
    the control plane's report go (stderr); `chunk`: the most bytes one MPI call moves (tests
    use small ones)."""
    _check_gather(gather)
    MPI = require_mpi(who or "the MPI engine")
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    out = sys.stderr if stream is None else stream

    def check() -> tuple[Processes, bool, Any]:
        processes = required_processes(module)
        check_processes(processes, size, program=program, who=who)
        grid_run = needs_grid(module)
        plan = None
        if grid_run:
            from stablehlo_py.interpreter.shard_plan import shard_plan

            plan = shard_plan(module, entry, replicas=processes.replicas,
                              partitions=processes.partitions)
        if not callable(args):  # the same arguments on every rank: their shapes checked here
            check_arguments(module, entry, args)
        return processes, grid_run, plan

    processes, grid_run, plan = before_run(check, comm=world, timeout=timeout, mpi=MPI)
    replicas, partitions = processes.replicas, processes.partitions
    replica, partition = divmod(rank, partitions)
    by_run_parallel = _by_run_parallel(processes, grid_run)
    global_view = not grid_run and not by_run_parallel
    with ControlPlane(world, pid_of=lambda r: divmod(r, partitions), abort_after=abort_after,
                      infeed=infeed, timeout=timeout, stream=stream) as cp:
        grid = MpiGrid(replicas, partitions, aborted=cp.aborted, broker=cp.broker,
                       timeout=timeout, chunk=chunk)
        comm, request = world.Idup()
        wait(request, abort=cp.aborted, timeout=timeout, what="starting the MPI run")
        ev = Evaluator(module, observer=observer if rank == 0 else None)
        if probe_dir is not None:
            where = os.fspath(probe_dir)
            where = os.path.join(where, f"rank{rank}") if size > 1 else where
            ev.probe_dir = where  # type: ignore[attr-defined]
        results: list[Any] | None = None
        host = RunParallelRanks(grid, module) if by_run_parallel else None
        if grid_run or rank == 0 or host is not None:
            if global_view and rank == 0 and size > 1:
                out.write(global_view_notice(program, size) + "\n")
                out.flush()
            context = RankContext(rank, size, replica, partition, plan, global_view)
            given = args(context) if callable(args) else args
            local = local_arguments(ev, entry, given, plan, replica, partition)
            if grid_run:
                child = process_evaluator(ev, grid, rank, failures=grid.failures,
                                          shard_plan=plan)
            else:  # rank 0 keeps what the entry prints and its check failures (the others
                # run it alike under run_parallel: the same again)
                child, ev.failures = ev, grid.failures if rank == 0 else []
            keep = grid_run or rank == 0
            child.print_sink = grid.add_print if keep else _drop  # type: ignore[attr-defined]
            setattr(child, PARALLEL_HOST, host)
            with observing(observer if rank == 0 else None, module, entry):
                results = child.call(entry, local)
            if not grid_run and rank == 0:
                grid.outfeed.extend(child.process.outfeed)
        if host is not None:
            host.close()
        items = grid.gather_to_root()
        outputs = RankOutputs(MPI, comm, results=results, plan=plan, num_partitions=partitions,
                              aborted=cp.aborted, timeout=timeout, chunk=chunk)
        failures: list[CheckFailure] = []
        if items is not None:
            failures = [f for item in items for f in item.failures]
        lowest = min((i.rank for i in items or [] if i.failures), default=size)
        failed = outputs.broadcast_ints([lowest])[0]
        if gather == "root":
            handed = outputs.gather_root()
        elif gather == "all":
            handed = outputs.to_all()
        else:
            handed = outputs.held()
        if deliver is not None:
            deliver(outputs)
        rss = outputs.gather_ints([peak_rss_kb()]) if measure else None
        grid.close()
        comm.Free()
    return RankRun(
        rank=rank, size=size, processes=processes, plan=plan, global_view=global_view,
        results=handed, failures=failures if items is not None else list(grid.failures),
        failed_rank=None if failed >= size else failed,
        prints=[p for i in items for p in i.prints] if items is not None else list(grid.prints),
        outfeed=[i.outfeed for i in items] if items is not None else [list(grid.outfeed)],
        peak_rss_kb=None if rss is None else [r[0] for r in rss],
        by_run_parallel=by_run_parallel,
    )


def run_mpi(
    module: Any,
    args: Sequence[Any] = (),
    *,
    entry: str = "main",
    gather: str = "root",
    timeout: float | None = DEFAULT_TIMEOUT,
    abort_after: float | None = ABORT_AFTER,
    infeed: Sequence[Any] = (),
    trace: Any = None,
    probe_dir: str | os.PathLike[str] | None = None,
    stream: TextIO | None = None,
) -> list[Any] | None:
    """Run `entry` of `module` on this MPI rank, every rank of ``mpirun -n P`` alike (module
    doc); the results per `gather`:

    - ``"root"``: rank 0 gets the global results (those of the threaded engine), the others None;
    - ``"all"``: every rank gets them;
    - ``"none"``: every rank gets what it holds: a `Tile` of each result its process keeps as a
      tile (the shard plan's tile-kept results), arrays of the others; None on a rank that holds
      nothing (the global view's ranks other than 0).

    Check failures raise on rank 0 (InterpreterError: every rank's failures in rank order, the
    in-process message) and `RankStopped` on the other ranks; a failure of any rank raises
    `RankFailed` on rank 0 (its report already printed) and `RankStopped` on the others.
    `interpreter.print` output goes to stdout on rank 0, every rank's in rank order."""
    run = run_rank(module, args, entry=entry, gather=gather, timeout=timeout,
                   abort_after=abort_after, infeed=infeed, observer=trace, probe_dir=probe_dir,
                   stream=stream)
    if run.rank == 0 and run.prints:
        sys.stdout.write("".join(run.prints))
        sys.stdout.flush()
    error = run.failure_error()
    if error is not None:
        raise error
    return run.results


__all__ = [
    "GATHERS",
    "RankContext",
    "RankFailed",
    "RankRun",
    "RankStopped",
    "before_run",
    "check_arguments",
    "global_view_notice",
    "local_arguments",
    "peak_rss_kb",
    "quiet",
    "report_text",
    "run_mpi",
    "run_rank",
]
