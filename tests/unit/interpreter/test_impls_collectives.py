"""Impl wrappers: interpreter.run_parallel and the distribution ops over the process grid."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.impls.collectives import ProcessGrid

from stablehlo_py.errors import InterpreterError


def test_process_groups_follow_the_spec() -> None:
    g = ProcessGrid(2, 3)
    assert g.cross_replica([[0, 1]]) == [((0, 0), (1, 0)), ((0, 1), (1, 1)), ((0, 2), (1, 2))]
    assert g.cross_partition([[0, 2]]) == [((0, 0), (0, 2)), ((1, 0), (1, 2))]
    assert g.cross_replica_and_partition([[0, 1]]) == [
        ((0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2))
    ]
    assert g.flattened_ids([[0, 4], [5, 1]]) == [((0, 0), (1, 1)), ((1, 2), (0, 1))]


def _ids_program(body: str, result: str, programs: str, n: int) -> str:
    inputs = ", ".join(f"%x{i}" for i in range(n))
    consts = "\n".join(
        f"  %x{i} = stablehlo.constant dense<[{2 * i}, {2 * i + 1}]> : tensor<2xi64>"
        for i in range(n)
    )
    types = ", ".join(["tensor<2xi64>"] * n)
    rtypes = ", ".join([result] * n)
    return f"""
func.func @p(%x: tensor<2xi64>) -> {result} {{
{body}
  return %r : {result}
}}
func.func @main() -> ({rtypes}) {{
{consts}
  %r:{n} = "interpreter.run_parallel"({inputs}) {{programs = {programs}}} : ({types}) -> ({rtypes})
  return {", ".join(f"%r#{i}" for i in range(n))} : {rtypes}
}}"""


def test_reduce_scatter_with_flattened_ids() -> None:
    body = """  %r = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %s : tensor<i64>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<2xi64>) -> tensor<1xi64>"""
    # 2 replicas x 2 partitions; flattened id = replica * 2 + partition; inputs [2i, 2i+1]
    res = run(_ids_program(body, "tensor<1xi64>", "[[@p, @p], [@p, @p]]", 4))
    # group {0, 3}: sum = [0+6, 1+7]; group {1, 2}: sum = [2+4, 3+5]
    assert [int(r[0]) for r in res] == [6, 6, 8, 8]


def test_all_to_all_cross_partition() -> None:
    body = """  %r = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xi64>) -> tensor<2xi64>"""
    res = run(_ids_program(body, "tensor<2xi64>", "[[@p, @p]]", 2))
    np.testing.assert_array_equal(res[0], [0, 2])
    np.testing.assert_array_equal(res[1], [1, 3])


def test_collective_permute_cross_partition_zeros_for_non_targets() -> None:
    body = """  %r = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2xi64>) -> tensor<2xi64>"""
    res = run(_ids_program(body, "tensor<2xi64>", "[[@p, @p, @p]]", 3))
    np.testing.assert_array_equal(res[0], [0, 0])
    np.testing.assert_array_equal(res[1], [0, 1])
    np.testing.assert_array_equal(res[2], [2, 3])


def test_ids_and_single_process_collectives_outside_run_parallel() -> None:
    (r, p, s) = run(
        """
func.func @main(%x: tensor<2xf32>) -> (tensor<ui32>, tensor<ui32>, tensor<2xf32>) {
  %r = stablehlo.replica_id : tensor<ui32>
  %p = stablehlo.partition_id : tensor<ui32>
  %s = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %r, %p, %s : tensor<ui32>, tensor<ui32>, tensor<2xf32>
}""",
        np.array([1.5, -2.0], np.float32),
    )
    assert int(r) == 0 and int(p) == 0 and r.dtype == np.uint32
    np.testing.assert_array_equal(s, [1.5, -2.0])


def test_a_group_outside_the_grid_is_an_error() -> None:
    with pytest.raises(InterpreterError, match="outside the 1 x 1 process grid"):
        run(
            """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %s = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}""",
            np.zeros(2, np.float32),
        )


def test_a_failing_process_aborts_the_others() -> None:
    # process 1 fails before the collective; process 0 must not wait for it forever
    text = """
func.func @p0(%x: tensor<2xi64>) -> tensor<2xi64> {
  %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
func.func @p1(%x: tensor<2xi64>) -> tensor<2xi64> {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return %r#0 : tensor<2xi64>
}
func.func @main() -> (tensor<2xi64>, tensor<2xi64>) {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@p0], [@p1]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
  return %r#0, %r#1 : tensor<2xi64>, tensor<2xi64>
}"""
    with pytest.raises(InterpreterError, match="infeed queue is empty"):
        run(text)


def test_run_parallel_checks_fail_in_the_calling_function() -> None:
    text = """
func.func @p() -> tensor<ui32> {
  %r = stablehlo.replica_id : tensor<ui32>
  check.expect_eq_const %r, dense<0> : tensor<ui32>
  return %r : tensor<ui32>
}
func.func @main() -> (tensor<ui32>, tensor<ui32>) {
  %r:2 = "interpreter.run_parallel"() {programs = [[@p], [@p]]} : () -> (tensor<ui32>, tensor<ui32>)
  return %r#0, %r#1 : tensor<ui32>, tensor<ui32>
}"""
    with pytest.raises(InterpreterError, match="check failed in @p"):
        run(text)


# ------------------------------------------------------------- replicas (mhlo.num_replicas > 1)


def _module(body: str, replicas: int, partitions: int = 1) -> str:
    attrs = f"mhlo.num_replicas = {replicas} : i32, mhlo.num_partitions = {partitions} : i32"
    return f"module attributes {{{attrs}}} {{\n{body}\n}}"


SUM_X = """  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }"""
REPLICA_ID = """  func.func @main() -> tensor<ui32> {
    %r = stablehlo.replica_id : tensor<ui32>
    return %r : tensor<ui32>
  }"""
NO_GRID_OP = """  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = stablehlo.add %x, %x : tensor<2xf32>
    return %s : tensor<2xf32>
  }"""
ASYNC_START = """  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = stablehlo.custom_call @"all-gather-start"(%x) : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }"""
RUN_PARALLEL = SUM_X.replace("@main", "@p") + """
  func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@p], [@p]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    return %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>
  }"""


@pytest.mark.parametrize(
    ("body", "replicas", "partitions", "grid"),
    [
        (SUM_X, 2, 1, (2, 1)),  # a collective
        (REPLICA_ID, 3, 1, (3, 1)),  # the process's id
        (ASYNC_START, 2, 2, (2, 2)),  # JAX's collective custom calls
        (SUM_X, 1, 1, (1, 1)),  # one process
        (NO_GRID_OP, 2, 2, (1, 1)),  # every replica would compute the same
        (SUM_X, 1, 2, (1, 1)),  # partitions without a shard_map region: the global view
        (RUN_PARALLEL, 2, 1, (1, 1)),  # run_parallel runs its own grid
    ],
    ids=["collective", "replica_id", "custom-call", "1x1", "no-grid-op", "global-view",
         "run_parallel"],
)
def test_which_programs_run_once_per_process(
    body: str, replicas: int, partitions: int, grid: tuple[int, int]
) -> None:
    from stablehlo_py.interpreter.custom_calls.spmd import grid_shape_of, needs_grid

    from stablehlo_py.ir import parse

    module = parse(_module(body, replicas, partitions))
    assert needs_grid(module) == (grid != (1, 1))
    assert grid_shape_of(module) == grid


def test_replicas_each_get_the_arguments() -> None:
    x = np.array([0.25, -3.0], np.float32)
    (s,) = run(_module(SUM_X, 2), x)  # cross_replica over 2 replicas: x + x
    np.testing.assert_array_equal(s, 2 * x)
    (s,) = run(_module(SUM_X.replace("[[0, 1]]", "[[0, 1, 2]]").replace("1x2", "1x3"), 3), x)
    np.testing.assert_array_equal(s, 3 * x)


def test_replica_0_receives_what_replica_1_permutes() -> None:
    body = """  func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
    %r = stablehlo.replica_id : tensor<ui32>
    %i = stablehlo.convert %r : (tensor<ui32>) -> tensor<i32>
    %k = stablehlo.constant dense<10> : tensor<i32>
    %m = stablehlo.multiply %i, %k : tensor<i32>
    %b = stablehlo.broadcast_in_dim %m, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %y = stablehlo.add %x, %b : tensor<2xi32>
    %z = "stablehlo.collective_permute"(%y) {source_target_pairs = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    return %z : tensor<2xi32>
  }"""
    (z,) = run(_module(body, 2), np.array([1, 2], np.int32))
    np.testing.assert_array_equal(z, [11, 12])


RANK_CHECK = """  func.func @main() -> tensor<ui32> {
    %r = stablehlo.replica_id : tensor<ui32>
    %p = stablehlo.partition_id : tensor<ui32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %r2 = stablehlo.multiply %r, %two : tensor<ui32>
    %id = stablehlo.add %r2, %p : tensor<ui32>
    check.expect_eq_const %id, dense<0> : tensor<ui32>
    return %id : tensor<ui32>
  }"""


def test_check_failures_of_every_process_in_rank_order() -> None:
    with pytest.raises(InterpreterError) as info:
        run(_module(RANK_CHECK, 2, 2))
    message = str(info.value)
    assert message.count("check failed") == 3  # ranks 1, 2, 3; rank 0's id is 0
    assert message.index("got 1,") < message.index("got 2,") < message.index("got 3,")


def test_a_program_without_grid_ops_runs_once() -> None:
    body = """  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    check.expect_eq_const %x, dense<0.0> : tensor<2xf32>
    return %x : tensor<2xf32>
  }"""
    with pytest.raises(InterpreterError) as info:
        run(_module(body, 4), np.ones(2, np.float32))
    assert str(info.value).count("check failed") == 1


def test_replicas_of_a_shard_map_region() -> None:
    # 2 replicas x 2 partitions (the mesh's 2 devices): each replica runs the region on its
    # partition's half; the cross-replica sum inside adds x * 1 (replica 0) and x * 2 (replica 1)
    body = """  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%b: tensor<2xf32>) {
      %r = stablehlo.replica_id : tensor<ui32>
      %f = stablehlo.convert %r : (tensor<ui32>) -> tensor<f32>
      %one = stablehlo.constant dense<1.0> : tensor<f32>
      %g = stablehlo.add %f, %one : tensor<f32>
      %k = stablehlo.broadcast_in_dim %g, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %y = stablehlo.multiply %b, %k : tensor<2xf32>
      %s = "stablehlo.all_reduce"(%y) ({
      ^bb0(%p: tensor<f32>, %q: tensor<f32>):
        %t = stablehlo.add %p, %q : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %s : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }"""
    a = np.array([1.0, -2.0, 0.5, 4.0], np.float32)
    (got,) = run(_module(body, 2, 2), a)
    np.testing.assert_array_equal(got, 3 * a)
