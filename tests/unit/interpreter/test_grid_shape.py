"""GridShape (interpreter/impls/process_grid.py): the spec's process groups, ranks (rank = replica x
num_partitions + partition), and each exchange's default (on `rendezvous`) against what the ops
computed with the contributions before the exchanges were the grid's (process-group order, numpy
split/stack/tree reduction); then a replicated and partitioned program (2 replicas x 2 partitions)
run through `interpreter.run` and `stablehlo-translate --interpret`."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import grid_shape_of, needs_grid
from stablehlo_py.interpreter.impls.process_grid import GridShape, ProcessGrid, ProcessId
from stablehlo_py.semantics.regions import tree_reduce

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

# ------------------------------------------------------------------------------ groups and ranks


def test_the_threaded_grid_is_a_grid_shape() -> None:
    assert isinstance(ProcessGrid(1, 1), GridShape)
    with pytest.raises(TypeError):
        GridShape(1, 1)  # type: ignore[abstract]  # rendezvous, send, ... are a grid's own


def test_group_builders_follow_the_spec() -> None:
    g = ProcessGrid(2, 3)
    assert g.num_processes == 6
    assert g.cross_replica([[1, 0]]) == [((1, 0), (0, 0)), ((1, 1), (0, 1)), ((1, 2), (0, 2))]
    assert g.cross_partition([[2, 0], [1]]) == [
        ((0, 2), (0, 0)), ((1, 2), (1, 0)), ((0, 1),), ((1, 1),)
    ]
    assert g.cross_replica_and_partition([[1, 0]]) == [
        ((1, 0), (0, 0), (1, 1), (0, 1), (1, 2), (0, 2))
    ]
    assert g.flattened_ids([[5, 0, 3]]) == [((1, 2), (0, 0), (1, 0))]


def test_rank_is_replica_times_partitions_plus_partition() -> None:
    g = ProcessGrid(2, 3)
    pids = [g.pid_of(k) for k in range(6)]
    assert pids == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert [g.rank_of(p) for p in pids] == list(range(6))
    assert g.flattened_ids([list(range(6))]) == [tuple(pids)]  # the flattened id is the rank
    assert ProcessGrid(3, 2).rank_of((2, 1)) == 5


@pytest.mark.parametrize("rank", [-1, 6])
def test_a_rank_outside_the_grid_is_an_error(rank: int) -> None:
    with pytest.raises(InterpreterError, match=rf"rank {rank} is outside the 2 x 3 process grid"):
        ProcessGrid(2, 3).pid_of(rank)


@pytest.mark.parametrize("pid", [(2, 0), (0, 3), (-1, 0)])
def test_a_process_outside_the_grid_has_no_rank(pid: ProcessId) -> None:
    with pytest.raises(InterpreterError, match="outside the 2 x 3 process grid"):
        ProcessGrid(2, 3).rank_of(pid)


def test_a_grid_has_at_least_one_process_each_way() -> None:
    with pytest.raises(InterpreterError, match="at least one replica and one partition, got 0 x 2"):
        ProcessGrid(0, 2)


# ---------------------------------------------------------------------- the default exchanges


def _on_grid(grid: ProcessGrid, fn: Callable[[ProcessId], Any]) -> dict[ProcessId, Any]:
    """`fn(pid)` run by every process of `grid`, one thread each; the results by process."""
    pids = [grid.pid_of(k) for k in range(grid.num_processes)]
    results = grid.run_processes([functools.partial(fn, p) for p in pids])
    return dict(zip(pids, results))


def _f32(pid: ProcessId, shape: tuple[int, ...], salt: int = 0) -> np.ndarray:
    rng = np.random.default_rng(100 * pid[0] + 10 * pid[1] + salt)
    return rng.standard_normal(shape).astype(np.float32)


def _minus_twice(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a - 2 * b  # neither associative nor commutative: any change of order shows


def _stack_reduce(contributions: list[list[Any]]) -> list[Any]:
    """What all_reduce computed from its contributions (collectives._combine): stacked in group
    order, reduced along the stack with a balanced tree."""
    out = []
    for i in range(len(contributions[0])):
        stacked = np.stack([np.asarray(c[i]) for c in contributions], axis=-1)
        out.append(np.asarray(tree_reduce(_minus_twice, [stacked])[0]))
    return out


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


GROUP = ((1, 1), (0, 0), (1, 0), (0, 1))  # the whole 2 x 2 grid, not in rank order


@pytest.fixture
def grid() -> ProcessGrid:
    return ProcessGrid(2, 2)


def test_exchange_gives_contributions_in_group_order(grid: ProcessGrid) -> None:
    got = _on_grid(grid, lambda pid: grid.exchange(GROUP, 7, pid, [pid]))
    for pid in GROUP:
        assert got[pid] == [[p] for p in GROUP]


def test_reduce_combines_in_group_order(grid: ProcessGrid) -> None:
    values = {p: [_f32(p, (3, 4)), _f32(p, (5,), salt=1)] for p in GROUP}
    got = _on_grid(grid, lambda pid: grid.reduce(GROUP, 1, pid, values[pid], _stack_reduce))
    want = _stack_reduce([values[p] for p in GROUP])
    reversed_order = _stack_reduce([values[p] for p in reversed(GROUP)])
    assert not _same_bits(want[0], reversed_order[0])  # the data makes the order visible
    for pid in GROUP:
        assert len(got[pid]) == 2
        assert all(_same_bits(g, w) for g, w in zip(got[pid], want))


def test_reduce_with_scatter_dim_keeps_the_callers_part(grid: ProcessGrid) -> None:
    values = {p: [_f32(p, (2, 8))] for p in GROUP}
    got = _on_grid(
        grid, lambda pid: grid.reduce(GROUP, 1, pid, values[pid], _stack_reduce, scatter_dim=1)
    )
    (full,) = _stack_reduce([values[p] for p in GROUP])
    for k, pid in enumerate(GROUP):
        (part,) = got[pid]
        assert part.shape == (2, 2)
        assert _same_bits(part, np.split(full, 4, axis=1)[k])


def test_reduce_to_root_leaves_the_others_without(grid: ProcessGrid) -> None:
    groups = [((0, 1), (1, 1)), ((1, 0), (0, 0))]
    values = {p: [_f32(p, (3,))] for g in groups for p in g}

    def work(pid: ProcessId) -> Any:
        group = next(g for g in groups if pid in g)
        return grid.reduce(group, 0, pid, values[pid], _stack_reduce, to_root=True)

    got = _on_grid(grid, work)
    for group in groups:
        (want,) = _stack_reduce([values[p] for p in group])
        assert _same_bits(got[group[0]][0], want)
        assert got[group[1]] is None


def test_all_to_all_gives_each_member_its_pieces_in_group_order(grid: ProcessGrid) -> None:
    def operands(pid: ProcessId) -> list[np.ndarray]:
        return [_f32(pid, (4, 3)), _f32(pid, (8,), salt=2)]

    def work(pid: ProcessId) -> Any:
        pieces = [np.split(a, 4, axis=0) for a in operands(pid)]
        return grid.all_to_all(GROUP, 3, pid, pieces)

    got = _on_grid(grid, work)
    for me, pid in enumerate(GROUP):
        assert len(got[pid]) == 2
        for i in range(2):
            # what all_to_all read before: piece `me` of operand i of each member, in group order
            want = [np.split(operands(src)[i], 4, axis=0)[me] for src in GROUP]
            assert len(got[pid][i]) == 4
            assert all(_same_bits(g, w) for g, w in zip(got[pid][i], want))


def test_permute_moves_each_source_to_its_target(grid: ProcessGrid) -> None:
    pairs = [((0, 0), (0, 1)), ((0, 1), (1, 0)), ((1, 0), (0, 0))]  # (1, 1) is in no pair
    values = {p: [_f32(p, (2, 2))] for p in GROUP}
    got = _on_grid(grid, lambda pid: grid.permute(pairs, 5, pid, values[pid]))
    for source, target in pairs:
        assert _same_bits(got[target][0], values[source][0])
    assert got[(1, 1)] is None


def test_broadcast_gives_each_value_of_its_root(grid: ProcessGrid) -> None:
    values = {p: [_f32(p, (3,)), _f32(p, (2,), salt=3)] for p in GROUP}
    got = _on_grid(grid, lambda pid: grid.broadcast(GROUP, 2, pid, values[pid], [2, 0]))
    for pid in GROUP:
        assert _same_bits(got[pid][0], values[GROUP[2]][0])
        assert _same_bits(got[pid][1], values[GROUP[0]][1])


def test_gather_tiles_gives_every_members_tiles(grid: ProcessGrid) -> None:
    group = ((1, 0), (1, 1))
    tiles = {p: [_f32(p, (2,))] for p in group}

    def work(pid: ProcessId) -> Any:
        if pid in group:
            return grid.gather_tiles(group, -15, pid, tiles[pid])
        return None

    got = _on_grid(grid, work)
    for pid in group:
        assert set(got[pid]) == set(group)
        assert all(_same_bits(got[pid][p][0], tiles[p][0]) for p in group)


def test_add_outfeed_collects_every_process(grid: ProcessGrid) -> None:
    _on_grid(grid, lambda pid: grid.add_outfeed(pid, [np.array(grid.rank_of(pid))]))
    assert sorted(int(v[0]) for v in grid.outfeed) == [0, 1, 2, 3]


# ------------------------------------------------------------------- 2 replicas x 2 partitions

REPLICATED = """module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<4xui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %r1 = stablehlo.add %r, %one : tensor<ui32>
    %f = stablehlo.convert %r1 : (tensor<ui32>) -> tensor<f32>
    %fb = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %y = stablehlo.multiply %x, %fb : tensor<2xf32>
    %s = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %r2 = stablehlo.multiply %r, %two : tensor<ui32>
    %id = stablehlo.add %r2, %p : tensor<ui32>
    %id1 = stablehlo.reshape %id : (tensor<ui32>) -> tensor<1xui32>
    %g = "stablehlo.all_gather"(%id1) {all_gather_dim = 0 : i64,
      replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids
    } : (tensor<1xui32>) -> tensor<4xui32>
    return %s, %g, %r : tensor<2xf32>, tensor<4xui32>, tensor<ui32>
  }
}
"""
# every process gets x; replica r contributes x * (r + 1) to the cross-replica sum: 3x.  The
# gather of every process's rank (replica * 2 + partition) in the group's order [3, 2, 1, 0] shows
# all four ran with the rank mapping.  Process (0, 0) gives the results: replica_id 0.
X = np.array([1.5, -2.0], np.float32)


def _check_replicated(s: np.ndarray, g: np.ndarray, r: np.ndarray) -> None:
    np.testing.assert_array_equal(s, 3 * X)
    np.testing.assert_array_equal(g, [3, 2, 1, 0])
    assert g.dtype == np.uint32 and int(r) == 0


def test_replicated_program_runs_once_per_replica_and_partition() -> None:
    module = parse(REPLICATED)
    assert needs_grid(module) and grid_shape_of(module) == (2, 2)
    _check_replicated(*run(module, X))


def test_replicated_program_through_stablehlo_translate(tmp_path: Path) -> None:
    path = tmp_path / "replicated.mlir"
    path.write_text(REPLICATED)
    done = subprocess.run(
        [
            sys.executable, "-m", "stablehlo_py.cli.translate", "--interpret", str(path),
            "--args=[dense<[1.5, -2.0]> : tensor<2xf32>]",
        ],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "tensor<2xf32>", "{", "[4.500000e+00,", "-6.000000e+00]", "}",
        "tensor<4xui32>", "{", "[3,", "2,", "1,", "0]", "}",
        "tensor<ui32>", "{0}",
    ]
