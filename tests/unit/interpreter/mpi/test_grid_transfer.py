"""interpreter/mpi/transfer.py without MPI: value trees to headers and buffers and back, and
`gather_trees` over a fake communicator whose ranks are threads (chunked rounds, ranks with fewer
arrays than others, a gather to one root)."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi import transfer as T


def _same(a: Any, b: Any) -> bool:
    """Same tree: same structure (lists vs tuples), dtypes, shapes and bytes."""
    if isinstance(a, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _tree(k: int) -> list[Any]:
    nan = np.array([0x7FC00001 + k, 0x80000000], np.uint32).view(np.float32)
    return [
        nan,
        np.array(k * 1.5, ml_dtypes.bfloat16),  # 0-d
        [np.zeros((0, k + 1), np.complex64), (np.arange(k + 3, dtype=np.int32), np.bool_(k % 2))],
        [[np.float32(k)] * k],  # k pieces: ranks differ in how many arrays they send
    ]


def test_trees_round_trip_through_headers_and_buffers() -> None:
    tree = _tree(3)
    header, buffers = T.encode_tree(tree)
    assert T.tree_sizes(header) == [b.size for b in buffers]
    back = T.decode_tree(header, [bytes(b) for b in buffers])
    assert _same(back, _expected([tree])[0])
    assert isinstance(back[2][1], tuple) and back[1].dtype == ml_dtypes.bfloat16


def test_structure_and_leaves() -> None:
    structure, leaves = T.flatten([1, (2, [3]), []])
    assert structure == [0, {"tuple": [0, [0]]}, []]
    assert leaves == [1, 2, 3]
    assert T.unflatten(structure, ["a", "b", "c"]) == ["a", ("b", ["c"]), []]


@pytest.mark.parametrize("structure, leaves, message", [
    ([0, 0], [1], "lists more arrays than the 1 that arrived"),
    ([0], [1, 2], "lists fewer arrays than the 2 sent"),
    ({"dict": 1}, [], "unknown node"),
])
def test_bad_structures_are_errors(structure: Any, leaves: list, message: str) -> None:
    with pytest.raises(InterpreterError, match=message):
        T.unflatten(structure, leaves)


def test_bad_headers_are_errors() -> None:
    with pytest.raises(InterpreterError, match="no structure line"):
        T.decode_tree(b'[["<f4",[1],4]]', [b"\0" * 4])
    with pytest.raises(InterpreterError, match="structure is not JSON"):
        T.decode_tree(b'[0,\n[["<f4",[1],4]]', [b"\0" * 4])


# ------------------------------------------------------------------------- a fake communicator


class Board:
    """The collective calls of n thread-ranks, matched by their order on each rank."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.lock = threading.Lock()
        self.calls: dict[int, dict[int, tuple]] = defaultdict(dict)


class FakeRequest:
    def __init__(self, board: Board, index: int, rank: int) -> None:
        self.board, self.index, self.rank, self.done = board, index, rank, False

    def Test(self) -> bool:  # noqa: N802 - mpi4py's name
        with self.board.lock:
            posted = dict(self.board.calls[self.index])
        if len(posted) < self.board.n:
            return False
        if not self.done:
            kinds = {(kind, root) for kind, _, _, root in posted.values()}
            assert len(kinds) == 1, f"ranks disagree on call {self.index}: {kinds}"
            kind, _, recv, root = posted[self.rank]
            if recv is not None:
                assert root is None or root == self.rank
                sent = [np.asarray(posted[k][1][0]).view(np.uint8) for k in range(self.board.n)]
                buf = recv[0]
                if len(recv) == 2:  # [buf, BYTE]: equal pieces in rank order
                    np.concatenate(sent, out=buf)
                else:  # [buf, (counts, displs), BYTE]
                    counts, displs = recv[1]
                    for k, piece in enumerate(sent):
                        assert piece.size == counts[k], (k, piece.size, counts[k])
                        buf[displs[k] : displs[k] + counts[k]] = piece
            self.done = True
        return True


class FakeComm:
    def __init__(self, board: Board, rank: int) -> None:
        self.board, self.rank, self.count = board, rank, 0

    def Get_size(self) -> int:  # noqa: N802
        return self.board.n

    def Get_rank(self) -> int:  # noqa: N802
        return self.rank

    def _post(self, kind: str, send: Any, recv: Any, root: int | None) -> FakeRequest:
        with self.board.lock:
            self.board.calls[self.count][self.rank] = (kind, send, recv, root)
        self.count += 1
        return FakeRequest(self.board, self.count - 1, self.rank)

    def Iallgather(self, send: Any, recv: Any) -> FakeRequest:  # noqa: N802
        return self._post("allgather", send, recv, None)

    def Iallgatherv(self, send: Any, recv: Any) -> FakeRequest:  # noqa: N802
        return self._post("allgatherv", send, recv, None)

    def Igatherv(self, send: Any, recv: Any, root: int = 0) -> FakeRequest:  # noqa: N802
        return self._post("gatherv", send, recv if self.rank == root else None, root)


class FakeMPI:
    BYTE = "BYTE"


def _wait_for(requests: Any) -> None:
    deadline = time.monotonic() + 30
    pending = list(requests)
    while pending:
        pending = [r for r in pending if not r.Test()]
        assert time.monotonic() < deadline, "fake collective never completed"
        time.sleep(1e-4)


def _gather(n: int, trees: list[Any], **kwargs: Any) -> tuple[list[Any], Board]:
    board = Board(n)
    got: list[Any] = [None] * n
    errors: list[BaseException] = []

    def rank(k: int) -> None:
        try:
            got[k] = T.gather_trees(FakeMPI, FakeComm(board, k), trees[k], wait_for=_wait_for,
                                    **kwargs)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=rank, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    return got, board


def _expected(trees: list[Any]) -> list[Any]:
    structure_leaves = [T.flatten(t) for t in trees]
    return [T.unflatten(s, [np.asarray(x) for x in leaves]) for s, leaves in structure_leaves]


@pytest.mark.parametrize("chunk", [None, 4, 13], ids=["default", "chunk-4", "chunk-13"])
def test_every_rank_gets_every_tree(chunk: int | None) -> None:
    n = 4
    trees = [_tree(k) for k in range(n)]
    got, board = _gather(n, trees, **({} if chunk is None else {"chunk": chunk}))
    expect = _expected(trees)
    for k in range(n):
        assert all(_same(a, b) for a, b in zip(got[k], expect, strict=True)), k
    if chunk == 4:  # one byte per rank and round: the 12-byte int32 array alone takes 12 rounds
        assert len(board.calls) > 40


def test_only_the_root_receives_a_gather() -> None:
    n = 3
    trees = [[np.full(5 + k, k, np.int64), np.array([k], np.int8)] for k in range(n)]
    got, board = _gather(n, trees, root=1, chunk=6)
    assert got[0] is None and got[2] is None
    assert all(_same(a, b) for a, b in zip(got[1], _expected(trees), strict=True))
    kinds = {kind for call in board.calls.values() for kind, *_ in call.values()}
    assert kinds == {"allgather", "gatherv"}  # headers go to everyone, values to the root


def test_a_long_header_takes_a_second_round() -> None:
    n = 2
    trees = [[np.zeros(k + 1, np.float32)] * 30 for k in range(n)]  # ~30 entries: > 256 bytes
    assert len(T.encode_tree(trees[0])[0]) > 256
    got, board = _gather(n, trees)
    assert all(_same(got[0][k], t) for k, t in enumerate(_expected(trees)))
    assert [next(iter(board.calls[i].values()))[0] for i in (0, 1)] == ["allgather", "allgatherv"]
