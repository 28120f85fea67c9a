"""interpreter/mpi/fast_paths.py and moves.py without MPI: the header round, the choices, the
splits, and every fast path over a fake communicator of thread-ranks (fake_comm.py) against the
generic exchanges of the threaded grid (`GridShape`'s defaults), bit for bit: groups of 2, 3
and 5 (sizes the MPI tests do not have), element counts that do not divide, empty and 0-d values,
moves in many rounds (small chunks), small combine blocks."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.impls.process_grid import ProcessGrid
from stablehlo_py.interpreter.mpi import fast_paths as FP
from stablehlo_py.interpreter.mpi import moves, transfer, wire
from tests.mpi import collective_cases as C
from tests.mpi.fast_path_cases import fingerprint, sub2
from tests.unit.interpreter.mpi.fake_comm import FakeMPI, run_ranks, wait_for

# ---------------------------------------------------------------------------- pure functions


@pytest.mark.parametrize("size, n", [(10, 3), (1, 4), (0, 3), (7, 7), (1001, 8), (5, 8)])
def test_element_ranges_split_everything_once(size: int, n: int) -> None:
    ranges = FP.element_ranges(size, n)
    assert len(ranges) == n and ranges[0][0] == 0 and ranges[-1][1] == size
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    lengths = [b - a for a, b in ranges]
    assert min(lengths) >= 0 and max(lengths) - min(lengths) <= 1


@pytest.mark.parametrize("shape, n, dim", [((6, 4), 3, 0), ((6, 4), 2, 1), ((2, 6, 3), 3, 1),
                                           ((1, 4, 5), 4, 1), ((4,), 2, 0)])
def test_by_member_stacks_the_parts_np_split_gives(shape: tuple, n: int, dim: int) -> None:
    a = (np.arange(int(np.prod(shape))) * 1.5).astype(ml_dtypes.bfloat16).reshape(shape)
    got = FP.by_member(a, n, dim)
    assert got.flags.c_contiguous and got.dtype == a.dtype
    parts = np.split(a, n, axis=dim)
    assert got.shape == (n, *FP.by_member_shape(shape, n, dim))
    assert all(got[k].tobytes() == np.ascontiguousarray(parts[k]).tobytes() for k in range(n))
    if all(d == 1 for d in shape[:dim]):  # the parts already lie back to back: no copy
        assert np.shares_memory(got, a)


def _trees() -> list[Any]:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    return [
        [x, x.T, x[:, ::2], np.float32(2), np.array(3, ml_dtypes.bfloat16)],
        [[np.zeros((0, 2), np.complex64)], (np.arange(3, dtype=np.int8), np.bool_(True))],
        [np.split(x, 2, axis=1), np.split(x[:2], 2, axis=0)],
        [],
    ]


@pytest.mark.parametrize("tree", _trees())
def test_tree_header_is_encode_trees_header(tree: Any) -> None:
    assert FP.tree_header(tree) == transfer.encode_tree(tree)[0]


def test_intro_round_trip_and_errors() -> None:
    tree = [np.zeros(2, np.float32)]
    raw = FP.intro_header({"kind": "reduce", "mode": "auto", "to_root": False}, tree)
    intro, header = FP.split_intro(raw)
    assert intro == {"kind": "reduce", "mode": "auto", "to_root": False}
    assert header == transfer.encode_tree(tree)[0]
    assert FP.read_tree_header(header)[0] == [0]
    for bad in (transfer.encode_tree(tree)[0], b"no newline", b'{"mode": 1}\n[0]\n[]'):
        with pytest.raises(InterpreterError, match="received a header without an intro"):
            FP.split_intro(bad)
    with pytest.raises(InterpreterError, match="no structure line"):
        FP.read_tree_header(b"[0]")


def test_modes_and_tags() -> None:
    assert [FP.check_mode(m) for m in FP.MODES] == list(FP.MODES)
    with pytest.raises(InterpreterError, match="unknown fast-path mode 'fast'.*auto, always"):
        FP.check_mode("fast")
    tags = [FP.permute_tag(c) for c in range(100)]
    assert len(set(tags)) == 100 and min(tags) >= 16
    for c in (-1, -15, 2**40, 32767):
        assert 16 <= FP.permute_tag(c) < 32767


def test_alltoallv_rounds() -> None:
    assert moves.alltoallv_rounds(0, 4, 100) == 0
    assert moves.alltoallv_rounds(25, 4, 100) == 1
    assert moves.alltoallv_rounds(26, 4, 100) == 2
    assert moves.alltoallv_rounds(5, 8, 4) == 5  # at least a byte per pair and round
    assert moves.offsets([3, 0, 2]) == [0, 3, 3]


# ---------------------------------------------------------------------------------- combine


def _rows(n: int, lengths: list[int], rng: np.random.Generator) -> list[np.ndarray]:
    kinds = ["f32", "bf16", "complex<f32>", "i32"]
    return [C.data(kinds[i % 4], (n, size), rng) for i, size in enumerate(lengths)]


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_combine_blocks_gives_the_whole_combines_bits(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FP, "COMBINE_BLOCK_BYTES", block)
    rows = _rows(5, [37, 0, 9, 1], np.random.default_rng(3))
    got = FP.combine_blocks(sub2, rows)
    whole = sub2([[r[k] for r in rows] for k in range(5)])
    assert fingerprint(got) == fingerprint(whole)


def test_a_combine_that_is_not_elementwise_is_an_error() -> None:
    rows = _rows(3, [4], np.random.default_rng(0))

    def total(contributions: list[list[Any]]) -> list[Any]:
        with np.errstate(all="ignore"):
            return [np.asarray(sum(np.sum(c[0]) for c in contributions))]

    with pytest.raises(InterpreterError, match="needs an elementwise combine: on \\[4\\] elements "
                       "it returned \\[\\('float32', \\[\\]\\)\\]"):
        FP.combine_blocks(total, rows)


# --------------------------------------------------------------------------------- choosing


def _meeting(trees: list[Any], intros: list[dict]) -> FP.Meeting:
    headers = [FP.tree_header(t) for t in trees]
    members = tuple((0, k) for k in range(len(trees)))
    return FP.Meeting(FakeMPI, None, members, 0, intros, headers, wait_for)


def _intro(mode: str = "always", **kw: Any) -> dict:
    return {"kind": "reduce", "mode": mode, **kw}


def test_when_the_partitioned_reduce_applies() -> None:
    a, b = np.zeros((4, 6), np.float32), np.zeros((4, 5), np.float32)
    same = [_intro(scatter_dim=1, to_root=False)] * 2
    assert FP.reduce_applies(_meeting([[a], [a]], same), 1, False)
    assert not FP.reduce_applies(_meeting([[a], [b]], same), 1, False)  # shapes differ
    odd = [_intro(scatter_dim=1, to_root=False)] * 4
    assert not FP.reduce_applies(_meeting([[a]] * 4, odd), 1, False)  # 6 does not split in 4
    assert not FP.reduce_applies(_meeting([[a]] * 2, same), 2, False)  # no dimension 2
    assert FP.reduce_applies(_meeting([[a]] * 4, [_intro(scatter_dim=1, to_root=True)] * 4), 1,
                             True)  # a root reduction splits at the root only, as generic
    assert not FP.reduce_applies(_meeting([[a], [a]], [_intro(), _intro("never")]), None, False)
    assert not FP.reduce_applies(_meeting([[a], [a]], [_intro("never")] * 2), None, False)
    assert not FP.reduce_applies(_meeting([[[a]], [[a]]], [_intro()] * 2), None, False)  # nested
    assert not FP.reduce_applies(_meeting([[], []], [_intro()] * 2), None, False)
    small = np.zeros(FP.REDUCE_MIN_BYTES // 4 - 1, np.float32)
    auto = [_intro("auto")] * 2
    assert not FP.reduce_applies(_meeting([[small], [small]], auto), None, False)
    assert FP.reduce_applies(_meeting([[small, np.zeros(1, np.float32)]] * 2, auto), None, False)


def test_when_all_to_all_and_broadcast_apply() -> None:
    x = np.zeros(2, np.float32)
    intro = [{"kind": "all_to_all", "mode": "auto"}] * 2
    assert FP.all_to_all_applies(_meeting([[[x, x]], [[x[:1], x]]], intro))  # ragged is fine
    assert not FP.all_to_all_applies(_meeting([[[x, x]], [[x, x, x]]], intro))
    assert not FP.all_to_all_applies(_meeting([[[x, x]], [[x, x]]], [intro[0], {
        "kind": "all_to_all", "mode": "never"}]))
    roots = [{"kind": "broadcast", "mode": "auto", "roots": [1, 0]}]
    assert FP.broadcast_applies(_meeting([[x, x], [x, x]], roots * 2), 2)
    other = [roots[0], {**roots[0], "roots": [0, 0]}]
    assert not FP.broadcast_applies(_meeting([[x, x], [x, x]], other), 2)


# ------------------------------------------------------------- the fast paths on a fake world


def _threaded(n: int, work: Any) -> list[Any]:
    grid = ProcessGrid(1, n)
    return [fingerprint(r) for r in grid.run_processes(
        [lambda k=k: work(grid, (0, k)) for k in range(n)])]


def _values(k: int, inputs: list[tuple[str, tuple]]) -> list[np.ndarray]:
    rng = np.random.default_rng([k, 7])
    return [C.data(kind, shape, rng) for kind, shape in inputs]


def _fast(n: int, kind: str, tree_of: Any, run: Any, chunk: int = wire.MAX_CHUNK,
          **agree: Any) -> tuple[list[Any], Any]:
    """Every thread-rank meets (header round) and runs `run(meeting, k)`."""
    members = tuple((0, k) for k in range(n))

    def work(comm: Any) -> Any:
        k = comm.Get_rank()
        intro = {"kind": kind, "mode": "always", **agree}
        m = FP.meet(FakeMPI, comm, members, 5, intro, tree_of(k), wait_for, chunk=chunk)
        return run(m, k)

    results, world = run_ranks(n, work)
    return results, world


UNEVEN = [("f32", (1001,)), ("f32", (3, 7)), ("f32", ()), ("f32", (0, 4)), ("bf16", (13,)),
          ("complex<f32>", (5, 3)), ("i32", (17,)), ("i1", (11,))]


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("chunk", [wire.MAX_CHUNK, 40], ids=["one-round", "chunk-40"])
@pytest.mark.parametrize("to_root", [False, True], ids=["all", "root"])
def test_partitioned_reduce_gives_the_generic_bits(
    n: int, chunk: int, to_root: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FP, "COMBINE_BLOCK_BYTES", 48)
    want = _threaded(n, lambda g, pid: g.reduce(tuple((0, k) for k in range(n)), 5, pid,
                                               _values(pid[1], UNEVEN), sub2, to_root=to_root))

    def run(m: FP.Meeting, k: int) -> Any:
        assert FP.reduce_applies(m, None, to_root)
        return FP.reduce(m, _values(k, UNEVEN), sub2, None, to_root)

    got, world = _fast(n, "reduce", lambda k: _values(k, UNEVEN), run, chunk,
                       scatter_dim=None, to_root=to_root)
    assert [fingerprint(r) for r, _ in got] == want
    for k, (_, received) in enumerate(got):  # the others' shares of its elements, the result
        expect = 0
        for a in _values(0, UNEVEN):
            lo, hi = FP.element_ranges(a.size, n)[k]
            expect += (n - 1) * (hi - lo) * a.itemsize
            if not to_root or k == 0:
                expect += (a.size - (hi - lo)) * a.itemsize
        assert received == expect, k
    kinds = [kind for kind, _ in world.calls]
    assert kinds[:1] == ["allgather"] and "alltoallv" in kinds
    assert ("gatherv" if to_root else "allgatherv") in kinds[2:]
    if chunk == 40:  # after the header round, no call moved more than the chunk into one rank
        moves_ = world.calls[kinds.index("alltoallv") :]
        assert len(moves_) > 2 * len(UNEVEN) and max(max(got) for _, got in moves_) <= 40


@pytest.mark.parametrize("n, inputs, dim", [
    (2, [("f32", (4, 3)), ("i32", (2, 6))], 0),
    (3, [("f32", (2, 6, 2)), ("bf16", (1, 3))], 1),
    (4, [("complex<f32>", (3, 8))], 1),
])
@pytest.mark.parametrize("to_root", [False, True], ids=["scatter", "root"])
def test_partitioned_reduce_scatter_gives_the_generic_bits(
    n: int, inputs: list, dim: int, to_root: bool
) -> None:
    want = _threaded(n, lambda g, pid: g.reduce(tuple((0, k) for k in range(n)), 5, pid,
                                               _values(pid[1], inputs), sub2, scatter_dim=dim,
                                               to_root=to_root))
    got, world = _fast(
        n, "reduce", lambda k: _values(k, inputs),
        lambda m, k: FP.reduce(m, _values(k, inputs), sub2, dim, to_root), 24,
        scatter_dim=dim, to_root=to_root)
    assert [fingerprint(r) for r, _ in got] == want
    if not to_root:  # a member keeps what it reduced: nothing is put together after
        assert "allgatherv" not in [kind for kind, _ in world.calls[2:]]


@pytest.mark.parametrize("n", [2, 3, 5])
@pytest.mark.parametrize("ragged", [False, True], ids=["even", "ragged"])
def test_alltoallv_gives_the_generic_bits(n: int, ragged: bool) -> None:
    def pieces(k: int) -> list[list[np.ndarray]]:
        rng = np.random.default_rng([k, 11])
        if ragged:
            return [[C.data("f32", (k + j,), rng) for j in range(n)],
                    [C.data("i1", (j, 2), rng) for j in range(n)]]
        a, b = C.data("complex<f32>", (2, 2 * n), rng), C.data("bf16", (n, 3), rng)
        return [np.split(a, n, axis=1), np.split(b, n, axis=0)]

    group = tuple((0, k) for k in range(n))
    want = _threaded(n, lambda g, pid: g.all_to_all(group, 5, pid, pieces(pid[1])))
    got, _ = _fast(n, "all_to_all", pieces, lambda m, k: FP.all_to_all(m, pieces(k)), 7 * n)
    assert [fingerprint(r) for r, _ in got] == want


@pytest.mark.parametrize("n", [2, 3, 5])
def test_bcast_gives_the_generic_bits(n: int) -> None:
    inputs = [("f32", (5,)), ("complex<f32>", (2, 2)), ("i32", ()), ("bf16", (0,))]
    roots = [n - 1, 0, 1 % n, 0]
    group = tuple((0, k) for k in range(n))
    want = _threaded(n, lambda g, pid: g.broadcast(group, 5, pid, _values(pid[1], inputs), roots))
    got, world = _fast(n, "broadcast", lambda k: _values(k, inputs),
                       lambda m, k: FP.broadcast(m, _values(k, inputs), roots), 8, roots=roots)
    assert [fingerprint(r) for r, _ in got] == want
    assert {kind for kind, _ in world.calls[2:]} == {"bcast"}


@pytest.mark.parametrize("pairs", [
    [[0, 1], [1, 2], [2, 0]], [[0, 2], [2, 1], [3, 3]], [[1, 0], [3, 0]], [],
], ids=["ring", "partial-self", "two-into-one", "none"])
def test_point_to_point_permute_gives_the_generic_bits(pairs: list[list[int]]) -> None:
    n = 4
    as_pids = [((0, s), (0, t)) for s, t in pairs]
    inputs = [("f32", (2, 3)), ("complex<f32>", (3,)), ("i1", ()), ("bf16", (0, 2))]
    want = _threaded(n, lambda g, pid: g.permute(as_pids, 5, pid, _values(pid[1], inputs)))
    waits: list[Any] = []

    def work(comm: Any) -> Any:
        k = comm.Get_rank()

        def waiter(pair: Any) -> Any:
            waits.append(pair)
            return wait_for

        return FP.permute(FakeMPI, comm, as_pids, (0, k), _values(k, inputs),
                          rank_of=lambda p: p[1], tag=FP.permute_tag(5), waiter=waiter, chunk=10)

    got, world = run_ranks(n, work)
    assert [fingerprint(r) for r, _ in got] == want
    assert not world.calls  # point to point only
    nbytes = sum(a.nbytes for a in _values(0, inputs))
    # what moves: each pair's values from its source to its target, once (with a header)
    sources = {(s, t) for s, t in pairs if s != t}
    assert set(world.sent) == sources
    assert all(size > nbytes for size in world.sent.values())
    assert sum(received for _, received in got) == nbytes * len(sources)


def test_members_at_different_exchanges_get_an_error() -> None:
    members = ((0, 0), (0, 1), (0, 2))

    def work(comm: Any) -> Any:
        kind = "reduce" if comm.Get_rank() != 1 else "gather"
        intro = {"kind": kind, "mode": "auto"}
        with pytest.raises(InterpreterError) as e:
            FP.meet(FakeMPI, comm, members, 7, intro, [np.zeros(2)], wait_for)
        return str(e.value)

    got, _ = run_ranks(3, work)
    assert got == [
        "error: processes [(0, 0), (0, 1), (0, 2)] met on channel 7 at different exchanges "
        "(process (0, 0) at reduce, process (0, 1) at gather, process (0, 2) at reduce): every "
        "process of a group must reach the same collective op"
    ] * 3


def test_the_generic_path_goes_on_from_the_header_round() -> None:
    """gather_trees given the headers moves only the values (no second header round); given a
    header that is not the tree's, it says so."""
    members = ((0, 0), (0, 1))

    def work(comm: Any) -> Any:
        tree = [np.full(3, comm.Get_rank(), np.int16)]
        m = FP.meet(FakeMPI, comm, members, 1, {"kind": "gather", "mode": "auto"}, tree,
                    wait_for)
        return transfer.gather_trees(FakeMPI, comm, tree, wait_for=wait_for, headers=m.headers)

    got, world = run_ranks(2, work)
    assert [kind for kind, _ in world.calls] == ["allgather", "allgatherv"]
    assert fingerprint(got[0]) == fingerprint(got[1]) == fingerprint(
        [[np.full(3, 0, np.int16)], [np.full(3, 1, np.int16)]])

    def wrong(comm: Any) -> Any:
        with pytest.raises(InterpreterError, match="another header than this rank's tree's"):
            transfer.gather_trees(FakeMPI, comm, [np.zeros(1)], wait_for=wait_for,
                                  headers=[b"x", b"y"])

    run_ranks(2, wrong)
