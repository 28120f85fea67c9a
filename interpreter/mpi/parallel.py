"""`interpreter.run_parallel` on MPI ranks (docs/plans/issue-29-mpi.md §3.1, step 11).

A module whose processes come from its `interpreter.run_parallel` ops (`world.required_processes`:
no `mhlo.num_replicas`/`mhlo.num_partitions` above 1) runs under ``mpirun -n P`` as follows:

- every rank runs the entry function alike (the code outside the run_parallel ops is the same on
  every rank, computed from the same values); rank 0 keeps what it prints and its check
  failures, the other ranks drop theirs (the same lines again), so each is said once;
- at a run_parallel of R x N = P processes, rank r runs process (i, j) = divmod(r, N), i.e.
  ``programs[i][j]`` with its operands, on an `MpiGrid` of that shape (the run's own grid, or one
  made for another shape of P processes at its first use and kept to the end); then every rank
  gets every process's results (one all-gather), so the op's results are those of the threaded
  run on every rank and the entry goes on alike.  The processes' prints and check failures come
  along and are added, in rank order, where the threaded run adds them (before anything the
  entry does after the op);
- send/recv and the infeed queue go through rank 0's broker (the control plane's), as the MPI
  grid's do.  The op's infeed entries (function names) are queued by rank 0 on a channel of
  their own when the op starts, followed by one "empty" mark per rank (a process that finds the
  queue empty fails with the threaded grid's message instead of waiting); what a run_parallel
  leaves in the broker (values sent and not received, infeed entries not taken: every rank
  counts its own, the all-gather adds them up) rank 0 takes out after it, so the next
  run_parallel starts with empty queues, as in-process, where each has a grid of its own.

A run_parallel inside a process (nested) runs in threads on that rank.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.evaluator import TOKEN, CheckFailure, Token
from stablehlo_py.interpreter.impls.interpreter_ops import Process, emit
from stablehlo_py.interpreter.impls.process_grid import (
    Combine,
    GridShape,
    ProcessGroup,
    ProcessId,
)
from stablehlo_py.interpreter.mpi.grid import MpiGrid

from stablehlo_py.errors import InterpreterError

#: the broker channel of a run_parallel's infeed queue (programs' channels are their handles)
INFEED_CHANNEL = -(2**62)
#: the grid channels of the end of a run_parallel (not a program's: those are integers)
RESULTS_CHANNEL = "run_parallel results"
DRAINED_CHANNEL = "run_parallel drained"
_INFEED_EMPTY = "infeed: the infeed queue is empty (give run_parallel an `infeed` list)"


# -------------------------------------------------------------------------------- results
def pack_results(values: Sequence[Any]) -> tuple[Any, list[np.ndarray]]:
    """(JSON-able structure, arrays) of a process's results: tokens and tuples kept in the
    structure, every array once (numpy scalars marked, to come back as scalars)."""
    leaves: list[np.ndarray] = []

    def walk(v: Any) -> Any:
        if isinstance(v, Token):
            return "token"
        if isinstance(v, tuple):
            return {"tuple": [walk(x) for x in v]}
        if isinstance(v, list):
            return {"list": [walk(x) for x in v]}
        leaves.append(np.asarray(v))
        return {"array": len(leaves) - 1, "scalar": isinstance(v, np.generic)}

    return [walk(v) for v in values], leaves


def unpack_results(structure: Any, leaves: Sequence[Any]) -> list[Any]:
    """The results :func:`pack_results` took apart."""

    def build(node: Any) -> Any:
        if node == "token":
            return TOKEN
        if "tuple" in node:
            return tuple(build(x) for x in node["tuple"])
        if "list" in node:
            return [build(x) for x in node["list"]]
        a = np.asarray(leaves[node["array"]])
        return a[()] if node["scalar"] else a

    return [build(n) for n in structure]


# ------------------------------------------------------------------------ one op's grid
class _OpGrid(GridShape):
    """What the processes of one run_parallel see: the MPI grid of its shape, with its
    send/recv and infeed counted (what is left in the broker is taken out after the op) and
    the infeed queue read from the op's broker channel."""

    def __init__(self, grid: MpiGrid, infeed_queued: bool) -> None:
        super().__init__(grid.num_replicas, grid.num_partitions)
        self.inner = grid
        self.infeed_queued = infeed_queued
        self.sent: Counter[int] = Counter()
        self.received: Counter[int] = Counter()
        self.fed = 0

    # the exchanges: the MPI grid's (its fast paths)
    def rendezvous(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        return self.inner.rendezvous(group, channel_id, pid, values)

    def exchange(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> list[list[Any]]:
        return self.inner.exchange(group, channel_id, pid, values)

    def gather_tiles(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, tiles: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        return self.inner.gather_tiles(group, channel_id, pid, tiles)

    def reduce(
        self,
        group: ProcessGroup,
        channel_id: int,
        pid: ProcessId,
        values: list[Any],
        combine: Combine,
        *,
        scatter_dim: int | None = None,
        to_root: bool = False,
    ) -> list[Any] | None:
        return self.inner.reduce(group, channel_id, pid, values, combine,
                                 scatter_dim=scatter_dim, to_root=to_root)

    def all_to_all(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, pieces: list[list[Any]]
    ) -> list[list[Any]]:
        return self.inner.all_to_all(group, channel_id, pid, pieces)

    def permute(
        self, pairs: list[ProcessGroup], channel_id: int, pid: ProcessId, values: list[Any]
    ) -> list[Any] | None:
        return self.inner.permute(pairs, channel_id, pid, values)

    def broadcast(
        self,
        group: ProcessGroup,
        channel_id: int,
        pid: ProcessId,
        values: list[Any],
        roots: Sequence[int],
    ) -> list[Any]:
        return self.inner.broadcast(group, channel_id, pid, values, roots)

    # the broker's
    def send(self, channel_id: int, values: list[Any]) -> None:
        self.inner.send(channel_id, values)
        self.sent[int(channel_id)] += 1

    def recv(self, channel_id: int) -> list[Any]:
        got = self.inner.recv(channel_id)
        self.received[int(channel_id)] += 1
        return got

    def infeed(self) -> Any:
        if not self.infeed_queued:
            raise InterpreterError(_INFEED_EMPTY)
        (entry,) = self.inner.recv(INFEED_CHANNEL)
        self.fed += 1
        raw = np.asarray(entry, np.uint8)
        if raw.size == 0:  # the "empty" mark
            raise InterpreterError(_INFEED_EMPTY)
        return raw.tobytes().decode("utf-8")

    def add_outfeed(self, pid: ProcessId, values: list[Any]) -> None:
        self.inner.add_outfeed(pid, values)


# ------------------------------------------------------------------------------- the host
class RunParallelRanks:
    """The `ParallelHost` (impls/interpreter_ops.py) of one rank of an MPI run (module doc).

    `grid`: the run's MPI grid (its shape: the module's first run_parallel's); `module`: the
    program (whether it has infeed ops: else no infeed queue is set up).  The caller makes the
    evaluator of rank 0 keep what is printed and the check failures, the others drop them."""

    def __init__(self, grid: MpiGrid, module: Any) -> None:
        self.base = grid
        self._grids: dict[tuple[int, int], MpiGrid] = {
            (grid.num_replicas, grid.num_partitions): grid
        }
        self._made: list[MpiGrid] = []
        self.uses_infeed = any(op.name == "stablehlo.infeed" for op in module.walk())

    def _grid(self, num_replicas: int, num_partitions: int) -> MpiGrid:
        key = (num_replicas, num_partitions)
        grid = self._grids.get(key)
        if grid is None:
            base = self.base
            if num_replicas * num_partitions != base.num_processes:
                raise InterpreterError(
                    f"interpreter.run_parallel of {num_replicas} x {num_partitions} processes "
                    f"in an MPI run of {base.num_processes} ranks: every run_parallel of the "
                    "run needs as many processes as there are ranks"
                )
            grid = MpiGrid(num_replicas, num_partitions, aborted=base.aborted,
                           broker=base.broker, timeout=base.timeout, chunk=base.chunk,
                           fast_paths=base.fast_paths)
            self._grids[key] = grid
            self._made.append(grid)
        return grid

    def run_processes(
        self,
        ev: Any,
        num_replicas: int,
        num_partitions: int,
        infeed: Sequence[str],
        processes: Sequence[Process],
    ) -> list[list[Any] | None]:
        grid = self._grid(num_replicas, num_partitions)
        if len(processes) != grid.num_processes:
            raise InterpreterError(
                f"interpreter.run_parallel gave {len(processes)} processes for a grid of "
                f"{grid.num_processes}"
            )
        view = _OpGrid(grid, self.uses_infeed)
        if self.uses_infeed and grid.rank == 0:
            for name in infeed:
                grid.send(INFEED_CHANNEL, [np.frombuffer(name.encode("utf-8"), np.uint8)])
            for _ in range(grid.num_processes):
                grid.send(INFEED_CHANNEL, [np.empty(0, np.uint8)])
        queued = len(infeed) + grid.num_processes if self.uses_infeed else 0
        had_sink = "print_sink" in ev.__dict__
        saved = ev.failures, ev.__dict__.get("print_sink")
        prints: list[str] = []
        ev.failures, ev.print_sink = [], prints.append
        try:
            mine = processes[grid.rank](view)
        finally:
            failures = ev.failures
            ev.failures = saved[0]
            if had_sink:
                ev.print_sink = saved[1]
            else:
                del ev.print_sink
        structure, leaves = pack_results(mine)
        meta = {
            "results": structure,
            "prints": prints,
            "failures": [[f.function, f.op, f.location, f.message] for f in failures],
            "sent": [[c, n] for c, n in view.sent.items()],
            "received": [[c, n] for c, n in view.received.items()],
            "fed": view.fed,
        }
        payload = [np.frombuffer(json.dumps(meta).encode("utf-8"), np.uint8), leaves]
        members = tuple(grid.pid_of(r) for r in range(grid.num_processes))
        got = grid.rendezvous(members, RESULTS_CHANNEL, grid.pid, payload)
        results: list[list[Any] | None] = []
        left: Counter[int] = Counter()
        fed = 0
        for rank, pid in enumerate(members):
            if rank == grid.rank:
                items = meta
                results.append(mine)
                ev.failures.extend(failures)
            else:
                raw, arrays = got[pid]
                items = json.loads(np.asarray(raw).tobytes().decode("utf-8"))
                results.append(unpack_results(items["results"], arrays))
                ev.failures.extend(CheckFailure(*f) for f in items["failures"])
            for text in items["prints"]:
                emit(ev, text)
            left.update({int(c): n for c, n in items["sent"]})
            left.subtract({int(c): n for c, n in items["received"]})
            fed += int(items["fed"])
        left[INFEED_CHANNEL] += queued - fed
        self._drain(grid, members, +left)
        if grid is not self.base:
            self.base.outfeed.extend(grid.outfeed)
            grid.outfeed.clear()
        return results

    def _drain(self, grid: MpiGrid, members: tuple[ProcessId, ...], left: Counter[int]) -> None:
        """Rank 0 takes out of the broker what the op left there; then every rank goes on
        (every rank knows `left`, so all or none meet)."""
        if not left:
            return
        if grid.rank == 0:
            for channel, n in sorted(left.items()):
                for _ in range(n):
                    grid.recv(channel)
        grid.rendezvous(members, DRAINED_CHANNEL, grid.pid, [])

    def close(self) -> None:
        """Free the grids made here (not the run's own)."""
        for grid in self._made:
            grid.close()
        self._made.clear()


__all__ = ["INFEED_CHANNEL", "RunParallelRanks", "pack_results", "unpack_results"]
