"""The process grid of an MPI run: each MPI rank runs one process (replica, partition) =
divmod(rank, num_partitions) of the program (docs/plans/issue-29-mpi.md §3.2).

`MpiGrid` is a `GridShape` (impls/process_grid.py) whose `rendezvous` meets the group's other
ranks over MPI and returns what the threaded `ProcessGrid.rendezvous` returns: every member's
contribution, by process (the caller's own values as given, the others' arrays with their dtypes,
ml_dtypes' included, shapes and bits).  The exchanges built on it (`exchange`, `reduce`,
`all_to_all`, `permute`, `broadcast`, `gather_tiles`) then run the same local numpy code in the
same process-group order, so every collective gives the threaded run's bits.

- Every exchange of a group (`rendezvous`, `reduce`, `all_to_all`, `broadcast`) starts with a
  header round in which each member tells what exchange it is at and what it has (dtypes,
  shapes); then every member makes the same choice between the generic path and a fast path
  that moves less (`fast_paths.py`: partitioned reductions, ``Ialltoallv``, ``Ibcast``); the
  generic path goes on with the headers it has.  `permute` sends point to point (pairs' sources
  to their targets only).  `traffic` counts the bytes of values this rank received, by path
  ("generic", or the fast path's exchange: "reduce", "all_to_all", "broadcast", "permute").
- A rendezvous of a group of one needs no MPI.  Otherwise it uses one communicator per (group
  members, channel), made at the group's first meeting and cached (communicator rank k is member
  k): MPI orders the collectives of one communicator, so the n-th rendezvous of each member
  meets the n-th of the others, as the threaded grid's rounds do.  After the header round,
  `transfer.gather_trees` moves the values (the bytes in chunked ``Iallgatherv`` rounds).
- A first meeting starts with a handshake on a private duplicate of the run's communicator (each
  member tells the group's first member it has arrived, which answers once all have): creating a
  communicator blocks in MPI, so the handshake makes sure every member is there before it starts,
  and the wait for the others is polled like every other wait (`wait.py`: the abort flag, the
  timeout with the threaded grid's message).  Two processes that reach their common groups in a
  different order (a deadlock in the threaded run as well) get an error instead of a hang.
- send/recv and the infeed queue go through a broker (the control plane's, on rank 0:
  `send(channel_id, values)`, `recv(channel_id) -> values`, `infeed_next() -> entry or None`).
  The ops' `send`/`recv` carry no `source_target_pairs` (impls/collectives.py ignores them: any
  process may receive what any process sent, as upstream's interpreter does), so every send/recv
  goes through the broker.  Without a broker they are not supported (a clear error).
- What a process writes to the outfeed, prints (`add_print`, an evaluator's `print_sink`) and its
  check failures (`failures`, an evaluator's `failures` list) are kept per rank;
  `gather_to_root()` at the end of the run gives rank 0 every rank's, in rank order.
- `close()` frees the communicators.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from stablehlo_py.interpreter.evaluator import CheckFailure
from stablehlo_py.interpreter.impls.process_grid import (
    Combine,
    GridShape,
    ProcessGroup,
    ProcessId,
)
from stablehlo_py.interpreter.mpi import fast_paths as fast
from stablehlo_py.interpreter.mpi import require_mpi, wire
from stablehlo_py.interpreter.mpi.fast_paths import Meeting
from stablehlo_py.interpreter.mpi.transfer import gather_trees
from stablehlo_py.interpreter.mpi.wait import DEFAULT_TIMEOUT, rendezvous_timeout, wait_all

from stablehlo_py.errors import InterpreterError, NotSupportedError

#: key of the communicator over every rank that `gather_to_root` uses (not a program's channel)
END_OF_RUN = "end of run"
#: tags of the first-meeting handshake on the grid's private communicator
_ARRIVED, _GO = 1, 2
#: tags of `Create_group` stay below MPI's guaranteed upper bound of tags
_TAG_BOUND = 32768
_INFEED_EMPTY = "infeed: the infeed queue is empty (give run_parallel an `infeed` list)"


class Broker(Protocol):
    """Rank 0's service for what has no fixed partner: send/recv without pairs, the infeed queue."""

    def send(self, channel_id: int, values: list[Any]) -> None: ...

    def recv(self, channel_id: int) -> list[Any]: ...

    def infeed_next(self) -> Any: ...


@dataclass
class RankItems:
    """What one rank's process left for the end of the run."""

    rank: int
    process: ProcessId
    prints: list[str] = field(default_factory=list)
    outfeed: list[list[Any]] = field(default_factory=list)
    failures: list[CheckFailure] = field(default_factory=list)


def wire_bytes(tree: Any) -> int:
    """Bytes of the arrays of a tree of values."""
    if isinstance(tree, list | tuple):
        return sum(wire_bytes(t) for t in tree)
    return int(np.asarray(tree).nbytes)


def _key_digest(key: tuple[Any, ...]) -> np.ndarray:
    return np.frombuffer(hashlib.blake2b(repr(key).encode(), digest_size=8).digest(), np.uint8)


class MpiGrid(GridShape):
    """The grid of an MPI run, seen from one rank (module docstring).  Every rank of `comm`
    (default COMM_WORLD) makes one, with the same arguments, from its main thread; the
    communicator has exactly `num_replicas` x `num_partitions` ranks.

    `aborted`: the run's abort flag (`wait.py`: a callable returning true or an exception, or an
    event), checked by every wait; `broker`: send/recv and infeed (None: not supported);
    `timeout`: seconds a rendezvous waits for its group (None: forever); `chunk`: the most bytes
    one MPI call moves; `fast_paths`: "auto", "always" or "never" (None: `fast_paths.MODE` at
    each exchange; the same on every rank)."""

    def __init__(
        self,
        num_replicas: int,
        num_partitions: int,
        *,
        aborted: Any = None,
        broker: Broker | None = None,
        comm: Any = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        chunk: int = wire.MAX_CHUNK,
        fast_paths: str | None = None,
    ):
        super().__init__(num_replicas, num_partitions)
        MPI = require_mpi("the MPI process grid")
        base = MPI.COMM_WORLD if comm is None else comm
        if base.Get_size() != self.num_processes:
            raise InterpreterError(
                f"a grid of {num_replicas} x {num_partitions} = {self.num_processes} processes "
                f"runs on as many MPI ranks, but the communicator has {base.Get_size()}",
                note=f"start it with mpirun -n {self.num_processes}",
            )
        self._MPI = MPI
        self._base = base
        self.rank: int = base.Get_rank()
        self.pid: ProcessId = self.pid_of(self.rank)
        self.aborted = aborted
        self.broker = broker
        self.timeout = timeout
        self.chunk = chunk
        self.fast_paths = None if fast_paths is None else fast.check_mode(fast_paths)
        #: bytes of values this rank received from the others, by path (module docstring)
        self.traffic: Counter[str] = Counter()
        self._agreed: Meeting | None = None  # a header round the generic path goes on from
        self.prints: list[str] = []
        self.outfeed: list[list[Any]] = []
        self.failures: list[CheckFailure] = []
        self._comms: dict[tuple[ProcessGroup, Any], Any] = {}
        self._closed = False
        self._group = base.Get_group()
        self._p2p, request = base.Idup()
        self._wait(
            [request], self._deadline(), "the MPI process grid",
            f"starting the MPI process grid timed out: not all {self.num_processes} ranks of the "
            "run made it",
        )

    # ----------------------------------------------------------------------------- waiting
    def _deadline(self) -> float | None:
        return None if self.timeout is None else time.monotonic() + self.timeout

    def _wait(self, requests: Sequence[Any], deadline: float | None, what: str, late: str) -> None:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        wait_all(requests, timeout=remaining, abort=self.aborted, timeout_message=late, what=what)

    def _waiter(self, members: ProcessGroup, deadline: float | None) -> Any:
        late = rendezvous_timeout(members)
        what = f"collective rendezvous of processes {list(members)}"

        def wait_for(requests: Sequence[Any]) -> None:
            self._wait(requests, deadline, what, late)

        return wait_for

    # ------------------------------------------------------------------------ communicators
    def _check_open(self) -> None:
        if self._closed:
            raise InterpreterError(
                "the MPI process grid is closed (close() ended its communication); a collective "
                "after it cannot meet the other ranks"
            )

    def _communicator(self, members: ProcessGroup, channel: Any, wait_for: Any) -> Any:
        """The communicator of (members, channel): rank k is members[k] (made at first use)."""
        self._check_open()
        key = (members, channel)
        comm = self._comms.get(key)
        if comm is None:
            ranks = [self.rank_of(p) for p in members]
            self._handshake(key, ranks, wait_for)
            group = self._group.Incl(ranks)
            try:
                tag = zlib.crc32(repr(key).encode()) % _TAG_BOUND
                comm = self._base.Create_group(group, tag)
            finally:
                group.Free()
            self._comms[key] = comm
        return comm

    def _handshake(self, key: tuple[ProcessGroup, Any], ranks: list[int], wait_for: Any) -> None:
        """Return once every member is at this group's first meeting (module docstring)."""
        BYTE = self._MPI.BYTE
        token = _key_digest(key)
        leader, others = ranks[0], ranks[1:]
        if self.rank == leader:
            got = [np.empty(token.size, np.uint8) for _ in others]
            wait_for([
                self._p2p.Irecv([g, BYTE], source=r, tag=_ARRIVED)
                for g, r in zip(got, others, strict=True)
            ])
            for g, r in zip(got, others, strict=True):
                if not np.array_equal(g, token):
                    members, channel = key
                    raise InterpreterError(
                        f"process {self.pid_of(r)} reached another collective first than "
                        f"process {self.pid} (which is at the first collective of processes "
                        f"{list(members)} on channel {channel}): processes must reach the "
                        "collectives they share in the same order (the threaded run would wait "
                        "forever)"
                    )
            wait_for([self._p2p.Isend([token, BYTE], dest=r, tag=_GO) for r in others])
        else:
            go = np.empty(token.size, np.uint8)
            receive = self._p2p.Irecv([go, BYTE], source=leader, tag=_GO)
            wait_for([self._p2p.Isend([token, BYTE], dest=leader, tag=_ARRIVED), receive])

    # --------------------------------------------------------------------------- rendezvous
    def _members(self, group: ProcessGroup, pid: ProcessId) -> ProcessGroup:
        """The group's members (each once, in group order), checked: in the grid, with the
        caller, who must be this rank's process."""
        members = tuple(dict.fromkeys(group))
        self.check_group(members)
        if pid != self.pid:
            raise InterpreterError(
                f"rank {self.rank} runs process {self.pid} and cannot contribute to a collective "
                f"for process {pid}"
            )
        if pid not in members:
            raise InterpreterError(
                f"process {pid} takes part in a collective of processes {list(members)} that it "
                "is not a member of"
            )
        return members

    def _mode(self) -> str:
        return fast.check_mode(fast.MODE if self.fast_paths is None else self.fast_paths)

    def _meet(
        self, kind: str, members: ProcessGroup, channel_id: int, tree: Any, **agree: Any
    ) -> Meeting:
        """The header round of an exchange of `kind` (fast_paths.py): every member's intro
        (`kind`, the mode, `agree`) and tree header, on the group's communicator."""
        wait_for = self._waiter(members, self._deadline())
        comm = self._communicator(members, channel_id, wait_for)
        intro = {"kind": kind, "mode": self._mode(), **agree}
        return fast.meet(self._MPI, comm, members, channel_id, intro, tree, wait_for,
                               chunk=self.chunk)

    def _generic(self, meeting: Meeting, default: Any, *args: Any, **kwargs: Any) -> Any:
        """`default` (a GridShape exchange) going on from `meeting`'s header round: its
        rendezvous moves the values only."""
        self._agreed = meeting
        try:
            return default(*args, **kwargs)
        finally:
            self._agreed = None

    def rendezvous(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, values: list[Any]
    ) -> dict[ProcessId, list[Any]]:
        agreed, self._agreed = self._agreed, None
        members = self._members(group, pid)
        if len(members) == 1:
            return {pid: values}
        if agreed is not None and agreed.members == members:
            meeting = agreed
        else:
            meeting = self._meet("gather", members, channel_id, values)
        trees = gather_trees(self._MPI, meeting.comm, values, wait_for=meeting.wait_for,
                             chunk=self.chunk, headers=meeting.headers)
        assert trees is not None  # an all-gather: every rank receives
        self.traffic["generic"] += sum(
            wire_bytes(t) for k, t in enumerate(trees) if k != meeting.index
        )
        return {p: values if p == pid else trees[k] for k, p in enumerate(members)}

    # -------------------------------------------------------------------------- fast paths
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
        default = super().reduce
        members = self._members(group, pid)
        if len(members) == 1 or len(members) != len(group):
            return default(group, channel_id, pid, values, combine, scatter_dim=scatter_dim,
                           to_root=to_root)
        meeting = self._meet("reduce", members, channel_id, values, scatter_dim=scatter_dim,
                             to_root=to_root)
        if not fast.reduce_applies(meeting, scatter_dim, to_root):
            return self._generic(meeting, default, group, channel_id, pid, values, combine,
                                 scatter_dim=scatter_dim, to_root=to_root)
        out, received = fast.reduce(meeting, values, combine, scatter_dim, to_root)
        self.traffic["reduce"] += received
        return out

    def all_to_all(
        self, group: ProcessGroup, channel_id: int, pid: ProcessId, pieces: list[list[Any]]
    ) -> list[list[Any]]:
        default = super().all_to_all
        members = self._members(group, pid)
        if len(members) == 1 or len(members) != len(group):
            return default(group, channel_id, pid, pieces)
        meeting = self._meet("all_to_all", members, channel_id, pieces)
        if not fast.all_to_all_applies(meeting):
            return self._generic(meeting, default, group, channel_id, pid, pieces)
        out, received = fast.all_to_all(meeting, pieces)
        self.traffic["all_to_all"] += received
        return out

    def broadcast(
        self,
        group: ProcessGroup,
        channel_id: int,
        pid: ProcessId,
        values: list[Any],
        roots: Sequence[int],
    ) -> list[Any]:
        default = super().broadcast
        members = self._members(group, pid)
        if len(members) == 1 or len(members) != len(group):
            return default(group, channel_id, pid, values, roots)
        meeting = self._meet("broadcast", members, channel_id, values,
                             roots=[int(r) for r in roots])
        if not fast.broadcast_applies(meeting, len(roots)):
            return self._generic(meeting, default, group, channel_id, pid, values, roots)
        out, received = fast.broadcast(meeting, values, roots)
        self.traffic["broadcast"] += received
        return out

    def permute(
        self, pairs: list[ProcessGroup], channel_id: int, pid: ProcessId, values: list[Any]
    ) -> list[Any] | None:
        if self._mode() == "never":
            return super().permute(pairs, channel_id, pid, values)
        for pair in pairs:
            if pid in (pair[0], pair[1]):
                self._members(pair, pid)
        deadline = self._deadline()

        def waiter(pair: ProcessGroup) -> Any:
            return self._waiter(tuple(dict.fromkeys(pair)), deadline)

        self._check_open()
        out, received = fast.permute(
            self._MPI, self._p2p, pairs, pid, list(values), rank_of=self.rank_of,
            tag=fast.permute_tag(channel_id), waiter=waiter, chunk=self.chunk,
        )
        self.traffic["permute"] += received
        return out

    # ------------------------------------------------------------------- send/recv, infeed
    def _broker(self, what: str) -> Broker:
        if self.broker is None:
            raise NotSupportedError(
                f"{what} under MPI needs rank 0's broker (the control plane's), and this MPI "
                "process grid has none",
                note="make the MpiGrid with broker=...; the MPI engine's runner does",
            )
        return self.broker

    def send(self, channel_id: int, values: list[Any]) -> None:
        self._broker("stablehlo.send").send(channel_id, list(values))

    def recv(self, channel_id: int) -> list[Any]:
        return list(self._broker("stablehlo.recv").recv(channel_id))

    def infeed(self) -> Any:
        entry = self._broker("stablehlo.infeed").infeed_next()
        if entry is None:
            raise InterpreterError(_INFEED_EMPTY)
        return entry

    # ------------------------------------------------------------- outfeed, prints, checks
    def add_outfeed(self, pid: ProcessId, values: list[Any]) -> None:
        if pid != self.pid:
            raise InterpreterError(
                f"rank {self.rank} runs process {self.pid}, not process {pid}: its outfeed is not "
                "this rank's"
            )
        self.outfeed.append(list(values))

    def add_print(self, text: str) -> None:
        """What `interpreter.print` writes (an evaluator's `print_sink`)."""
        self.prints.append(text)

    def _own_items(self) -> RankItems:
        return RankItems(
            self.rank, self.pid, list(self.prints), [list(v) for v in self.outfeed],
            list(self.failures),
        )

    def gather_to_root(self) -> list[RankItems] | None:
        """Every rank's prints, outfeed and check failures, in rank order, on rank 0 (the other
        ranks get None).  Every rank calls it once the run has ended."""
        if self.num_processes == 1:
            return [self._own_items()]
        try:
            failures = [[f.function, f.op, f.location, f.message] for f in self.failures]
        except AttributeError:
            raise InterpreterError(
                "the MPI process grid's failures must be the evaluator's check failures "
                f"(CheckFailure), got {[type(f).__name__ for f in self.failures]}"
            ) from None
        text = json.dumps({"prints": self.prints, "failures": failures}).encode("utf-8")
        payload = [np.frombuffer(text, np.uint8), [list(v) for v in self.outfeed]]
        members = tuple(self.pid_of(r) for r in range(self.num_processes))
        deadline = self._deadline()
        what = "gathering the ranks' prints, outfeed and check failures to rank 0"

        def wait_for(requests: Sequence[Any]) -> None:
            self._wait(requests, deadline, what,
                       f"{what} timed out: not every rank reached the end of the run")

        comm = self._communicator(members, END_OF_RUN, wait_for)
        trees = gather_trees(self._MPI, comm, payload, wait_for=wait_for, root=0, chunk=self.chunk)
        if trees is None:
            return None
        out = []
        for rank, (raw, outfeed) in enumerate(trees):
            if rank == self.rank:
                out.append(self._own_items())
                continue
            items = json.loads(np.asarray(raw).tobytes().decode("utf-8"))
            out.append(RankItems(
                rank, self.pid_of(rank), list(items["prints"]), [list(v) for v in outfeed],
                [CheckFailure(*f) for f in items["failures"]],
            ))
        return out

    # ----------------------------------------------------------------------------- the end
    def close(self) -> None:
        """Free the grid's communicators (once; later collectives are an error)."""
        if self._closed:
            return
        self._closed = True
        for comm in self._comms.values():
            comm.Free()
        self._comms.clear()
        self._p2p.Free()
        self._group.Free()


__all__ = ["END_OF_RUN", "Broker", "MpiGrid", "RankItems"]
