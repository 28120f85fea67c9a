"""The end of one rank's MPI run: its results moved to where they are wanted, and the small facts
every rank must agree on (docs/plans/issue-29-mpi.md §3.5).

A rank holds its results as its process computed them: under a shard plan a tile-kept result as
its own tile (`ShardPlan.results[k].tiling`), every other result whole (every process of a
shard_map program computes the code outside the regions itself, so each holds the same whole
values); in the global view (a program without per-device regions, run by rank 0 alone) rank 0
holds every result and the other ranks none.  :class:`RankOutputs` moves them over a
communicator of its own (a duplicate of the run's, so nothing else can match its messages):

- :meth:`RankOutputs.assemble` / :meth:`RankOutputs.parts` on rank 0: a tile-kept result from the
  tiles of the ranks that write them (`Decision.writes`: replica 0, the lowest partition holding
  each part), received one at a time by point-to-point messages (tag = the result's index), so
  that an ``.npz`` writer holds one tile at a time (`io/shards.py`'s `stream_order`);
  :meth:`RankOutputs.send_tiles` on every other rank sends its parts, all of them at once, and
  waits until rank 0 has taken them;
- :meth:`RankOutputs.to_all`: every rank gets the global results (rank 0 assembles them, then
  sends them to every rank);
- :meth:`RankOutputs.barrier`, :meth:`RankOutputs.gather_ints` (peak RSS per rank),
  :meth:`RankOutputs.broadcast_ints` (rank 0's verdict on check failures).

Every wait polls (`wait.py`): the run's abort flag (another rank failed: the control plane stops
this one) and `timeout`.  Rank 0 learns a part's dtype from its own result and its shape from
the plan, so tiles travel as bare bytes, in pieces of at most `chunk` bytes (MPI-3's int counts).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.interpreter.mpi.transfer import gather_trees
from stablehlo_py.interpreter.mpi.wait import DEFAULT_TIMEOUT, wait_all

from stablehlo_py.errors import InterpreterError

#: tags stay below MPI's guaranteed upper bound
_TAG_BOUND = 32768


def _bytes(value: Any) -> np.ndarray:
    """The C-ordered bytes of an array (its own memory when it already is C-contiguous)."""
    a = np.ascontiguousarray(np.asarray(value))
    return a.reshape(-1).view(np.uint8)


class RankOutputs:
    """One rank's results and how to move them (module doc).  Every rank of `comm` makes one with
    the same plan, from its main thread, after the run.

    `results`: this rank's results (None: it holds none, the global view's other ranks);
    `plan`: the run's ShardPlan (None: every result whole, held by the ranks that hold results);
    `aborted`: the run's abort flag; `timeout`: seconds any one transfer may wait."""

    def __init__(
        self,
        MPI: Any,  # noqa: N803 - mpi4py's module name
        comm: Any,
        *,
        results: Sequence[Any] | None,
        plan: Any,
        num_partitions: int,
        aborted: Any = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        chunk: int = wire.MAX_CHUNK,
    ) -> None:
        self._MPI = MPI
        self._comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.replica, self.partition = divmod(self.rank, num_partitions)
        self.num_partitions = num_partitions
        self.results = None if results is None else list(results)
        self.plan = plan
        self.aborted = aborted
        self.timeout = timeout
        self.chunk = chunk

    @property
    def root(self) -> bool:
        return self.rank == 0

    # ------------------------------------------------------------------------------ waiting
    def _wait(self, requests: Sequence[Any], what: str) -> None:
        wait_all(
            requests, timeout=self.timeout, abort=self.aborted, what=what,
            timeout_message=f"{what} timed out after {self.timeout:g} s: not every rank reached "
            "the end of the run",
        )

    # ------------------------------------------------------------------------------ results
    def _tiling(self, k: int) -> Any:
        if self.plan is None:
            return None
        return self.plan.results[k].tiling

    def _writers(self, k: int) -> list[int]:
        """Partitions (of replica 0: their ranks) that write result k's parts (a tiled one)."""
        t = self._tiling(k)
        return [p for p in range(self.num_partitions) if t.writer(p) == p]

    def _own_part(self, k: int) -> np.ndarray:
        assert self.results is not None
        return self._tiling(k).crop(np.asarray(self.results[k]), self.partition)

    def send_tiles(self) -> None:
        """On a rank other than 0: send rank 0 every part this rank writes (all results), then
        wait until rank 0 has received them (it takes them in its own order)."""
        if self.root or self.results is None or self.plan is None or self.replica != 0:
            return
        requests = []
        for k in range(len(self.results)):
            t = self._tiling(k)
            if t is None or t.writer(self.partition) != self.partition:
                continue
            raw = _bytes(self._own_part(k))
            for a, b in wire.pieces(raw.nbytes, self.chunk):
                requests.append(self._comm.Isend([raw[a:b], self._MPI.BYTE], dest=0,
                                                 tag=k % _TAG_BOUND))
        if requests:
            self._wait(requests, f"sending rank {self.rank}'s result tiles to rank 0")

    def _receive(self, k: int, p: int) -> np.ndarray:
        """On rank 0: partition p's part of result k (its writer's tile)."""
        assert self.results is not None
        t = self._tiling(k)
        if p == 0:
            return self._own_part(k)
        shape = tuple(b - a for a, b in t.bounds[p])
        out = np.empty(shape, np.asarray(self.results[k]).dtype)
        raw = out.reshape(-1).view(np.uint8)
        requests = [
            self._comm.Irecv([raw[a:b], self._MPI.BYTE], source=p, tag=k % _TAG_BOUND)
            for a, b in wire.pieces(raw.nbytes, self.chunk)
        ]
        if requests:
            self._wait(requests, f"receiving result {k}'s tile from rank {p}")
        return out

    def assemble(self, k: int) -> Any:
        """On rank 0: global result k (a tile-kept one from the writers' tiles; peak: the result
        and one tile)."""
        self._check_root("assemble")
        assert self.results is not None
        t = self._tiling(k)
        if t is None:
            return self.results[k]
        full = np.zeros(t.shape, np.asarray(self.results[k]).dtype)
        for p in self._writers(k):
            full[t.index(p)] = self._receive(k, p)
        return full

    def parts(self, k: int, order: Sequence[int] | None) -> Iterator[Any]:
        """On rank 0: result k's parts in `order` (partitions whose parts, one after another, are
        its elements in C order: `io.shards.stream_order`), each received when it is taken;
        `order` None: the assembled result."""
        self._check_root("parts")
        assert self.results is not None
        t = self._tiling(k)
        if order is None or t is None:
            yield self.assemble(k)
            return
        for p in order:
            yield self._receive(k, p)

    def gather_root(self) -> list[Any] | None:
        """Rank 0: every global result; the other ranks send their tiles and get None."""
        if not self.root:
            self.send_tiles()
            return None
        assert self.results is not None
        return [self.assemble(k) for k in range(len(self.results))]

    def to_all(self) -> list[Any]:
        """Every rank: the global results rank 0 has (it assembles them, then sends them all:
        a whole result computed outside the regions may depend on the process, and "the global
        results" are process (0, 0)'s, as in-process)."""
        gathered = self.gather_root()
        if self.size == 1:
            return list(gathered or [])
        mine = list(gathered or []) if self.root else []
        got = gather_trees(self._MPI, self._comm, mine, wait_for=self._waiter("results"),
                           chunk=self.chunk)
        assert got is not None
        return list(gathered or []) if self.root else list(got[0])

    def held(self) -> list[Any] | None:
        """This rank's results as it holds them: a `Tile` of each tile-kept result (`tiles_of`),
        the others whole; None when it holds none."""
        from stablehlo_py.interpreter.tiles import tiles_of

        if self.results is None:
            return None
        if self.plan is None:
            return list(self.results)
        return tiles_of(self.plan.results, self.results, self.replica, self.partition)

    # ------------------------------------------------------------------------------- small
    def _waiter(self, what: str) -> Any:
        def wait_for(requests: Sequence[Any]) -> None:
            self._wait(requests, f"moving the {what} between ranks")

        return wait_for

    def barrier(self, what: str = "a barrier of every rank") -> None:
        """Return once every rank is here (polled)."""
        if self.size > 1:
            self._wait([self._comm.Ibarrier()], what)

    def gather_ints(self, values: Sequence[int]) -> list[list[int]] | None:
        """Every rank's `values` by rank, on rank 0 (None elsewhere)."""
        mine = np.asarray(list(values), np.int64)
        if self.size == 1:
            return [[int(v) for v in mine]]
        got = gather_trees(self._MPI, self._comm, [mine], wait_for=self._waiter("figures"),
                           root=0, chunk=self.chunk)
        if got is None:
            return None
        return [[int(v) for v in np.asarray(tree[0])] for tree in got]

    def broadcast_ints(self, values: Sequence[int]) -> list[int]:
        """Rank 0's `values` (`count` of them: every rank gives as many) on every rank."""
        buf = np.asarray(list(values), np.int64)
        if self.size > 1:
            self._wait([self._comm.Ibcast([buf, self._MPI.INT64_T], root=0)],
                       "rank 0's verdict on the run")
        return [int(v) for v in buf]

    def _check_root(self, what: str) -> None:
        if not self.root:
            raise InterpreterError(f"RankOutputs.{what} runs on rank 0 only (rank {self.rank})")


__all__ = ["RankOutputs"]
