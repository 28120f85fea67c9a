"""A communicator whose ranks are threads, for testing the MPI grid's moves without MPI.

`World(n).comms()` gives one `FakeComm` per rank.  It has what interpreter/mpi/transfer.py,
moves.py and fast_paths.py call: ``Get_rank``/``Get_size``; the nonblocking collectives
``Iallgather``, ``Iallgatherv``, ``Igatherv``, ``Ialltoallv``, ``Ibcast`` (matched, as MPI
matches them, by their order on each rank; a call completes once every rank has made it, and the
ranks must agree on its kind and root); ``Isend`` (eager: the bytes are copied when it is posted)
and ``Irecv`` (messages of one (source, tag) received in the order sent, into receives in the
order posted).  Buffers are given as mpi4py takes them: ``[array, BYTE]`` or ``[array, (counts,
displacements), BYTE]`` (bytes, uint8 arrays).  `World.calls` lists the collectives made (kind,
bytes each rank received), `World.sent` the point-to-point bytes by (source, dest)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class FakeMPI:
    BYTE = "BYTE"


def _buffer(spec: Any) -> np.ndarray:
    return spec[0]


def _layout(spec: Any) -> tuple[list[int], list[int]]:
    counts, displs = spec[1]
    return list(counts), list(displs)


class World:
    def __init__(self, n: int) -> None:
        self.n = n
        self.lock = threading.Lock()
        self.posted: dict[int, dict[int, tuple]] = defaultdict(dict)
        self.completed: set[int] = set()
        self.calls: list[tuple[str, list[int]]] = []
        self.mail: dict[tuple[int, int, int], deque[np.ndarray]] = defaultdict(deque)
        self.receives: dict[tuple[int, int, int], deque[FakeRecv]] = defaultdict(deque)
        self.sent: dict[tuple[int, int], int] = defaultdict(int)

    def comms(self) -> list[FakeComm]:
        return [FakeComm(self, k) for k in range(self.n)]

    # ------------------------------------------------------------------------- collectives
    def complete(self, index: int) -> None:
        """Carry out collective `index` for every rank (under the lock, once)."""
        posted = self.posted[index]
        kinds = {(call[0], call[3]) for call in posted.values()}
        assert len(kinds) == 1, f"ranks disagree on collective {index}: {kinds}"
        kind, root = next(iter(kinds))
        got = [0] * self.n
        if kind == "allgather":
            sent = [np.asarray(posted[k][1][0]).view(np.uint8) for k in range(self.n)]
            for j in range(self.n):
                np.concatenate(sent, out=_buffer(posted[j][2]))
                got[j] = sum(s.size for k, s in enumerate(sent) if k != j)
        elif kind in ("allgatherv", "gatherv"):
            sent = [np.asarray(posted[k][1][0]).view(np.uint8) for k in range(self.n)]
            for j in range(self.n):
                recv = posted[j][2]
                if recv is None:
                    continue
                counts, displs = _layout(recv)
                for k, piece in enumerate(sent):
                    assert piece.size == counts[k], (kind, k, piece.size, counts[k])
                    _buffer(recv)[displs[k] : displs[k] + counts[k]] = piece
                got[j] = sum(c for k, c in enumerate(counts) if k != j)
        elif kind == "alltoallv":
            for j in range(self.n):
                rc, rd = _layout(posted[j][2])
                for k in range(self.n):
                    sc, sd = _layout(posted[k][1])
                    piece = _buffer(posted[k][1])[sd[j] : sd[j] + sc[j]]
                    assert piece.size == rc[k], (kind, k, j, piece.size, rc[k])
                    _buffer(posted[j][2])[rd[k] : rd[k] + rc[k]] = piece
                got[j] = sum(c for k, c in enumerate(rc) if k != j)
        elif kind == "bcast":
            source = _buffer(posted[root][1])
            for j in range(self.n):
                if j != root:
                    target = _buffer(posted[j][1])
                    assert target.size == source.size, (kind, j, target.size, source.size)
                    target[...] = source
                    got[j] = source.size
        else:
            raise AssertionError(f"unknown collective {kind}")
        self.calls.append((kind, got))
        self.completed.add(index)


class Collective:
    def __init__(self, world: World, index: int) -> None:
        self.world, self.index = world, index

    def Test(self) -> bool:  # noqa: N802 - mpi4py's name
        w = self.world
        with w.lock:
            if self.index in w.completed:
                return True
            if len(w.posted[self.index]) < w.n:
                return False
            w.complete(self.index)
            return True


class Done:
    def Test(self) -> bool:  # noqa: N802
        return True


class FakeRecv:
    def __init__(self, world: World, key: tuple[int, int, int], buffer: np.ndarray) -> None:
        self.world, self.key, self.buffer, self.done = world, key, buffer, False

    def Test(self) -> bool:  # noqa: N802
        w = self.world
        with w.lock:
            waiting, mail = w.receives[self.key], w.mail[self.key]
            while waiting and mail:  # receives in the order posted, messages in the order sent
                receive, message = waiting.popleft(), mail.popleft()
                assert message.size == receive.buffer.size, (self.key, message.size,
                                                             receive.buffer.size)
                receive.buffer[...] = message
                receive.done = True
            return self.done


class FakeComm:
    def __init__(self, world: World, rank: int) -> None:
        self.world, self.rank, self.count = world, rank, 0

    def Get_size(self) -> int:  # noqa: N802
        return self.world.n

    def Get_rank(self) -> int:  # noqa: N802
        return self.rank

    def _post(self, kind: str, send: Any, recv: Any, root: int | None) -> Collective:
        with self.world.lock:
            self.world.posted[self.count][self.rank] = (kind, send, recv, root)
        self.count += 1
        return Collective(self.world, self.count - 1)

    def Iallgather(self, send: Any, recv: Any) -> Collective:  # noqa: N802
        return self._post("allgather", send, recv, None)

    def Iallgatherv(self, send: Any, recv: Any) -> Collective:  # noqa: N802
        return self._post("allgatherv", send, recv, None)

    def Igatherv(self, send: Any, recv: Any, root: int = 0) -> Collective:  # noqa: N802
        return self._post("gatherv", send, recv if self.rank == root else None, root)

    def Ialltoallv(self, send: Any, recv: Any) -> Collective:  # noqa: N802
        return self._post("alltoallv", send, recv, None)

    def Ibcast(self, buf: Any, root: int = 0) -> Collective:  # noqa: N802
        return self._post("bcast", buf, None, root)

    def Isend(self, buf: Any, dest: int, tag: int = 0) -> Done:  # noqa: N802
        data = np.array(_buffer(buf), np.uint8, copy=True)
        with self.world.lock:
            self.world.mail[(self.rank, dest, tag)].append(data)
            self.world.sent[(self.rank, dest)] += data.size
        return Done()

    def Irecv(self, buf: Any, source: int, tag: int = 0) -> FakeRecv:  # noqa: N802
        key = (source, self.rank, tag)
        receive = FakeRecv(self.world, key, _buffer(buf))
        with self.world.lock:
            self.world.receives[key].append(receive)
        return receive


def wait_for(requests: Sequence[Any]) -> None:
    """Wait until the requests complete (30 s at most)."""
    deadline = time.monotonic() + 30
    pending = list(requests)
    while pending:
        pending = [r for r in pending if not r.Test()]
        assert time.monotonic() < deadline, "a fake request never completed"
        if pending:
            time.sleep(1e-4)


def run_ranks(n: int, work: Callable[[FakeComm], Any]) -> tuple[list[Any], World]:
    """`work(comm)` on n thread-ranks of one world; their results by rank (errors re-raised)."""
    world = World(n)
    comms = world.comms()
    results: list[Any] = [None] * n
    errors: list[tuple[int, BaseException]] = []

    def rank(k: int) -> None:
        try:
            results[k] = work(comms[k])
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append((k, e))

    threads = [threading.Thread(target=rank, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0][1]
    assert not any(t.is_alive() for t in threads), "a fake rank did not finish"
    return results, world
