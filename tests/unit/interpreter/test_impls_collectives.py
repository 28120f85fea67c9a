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
