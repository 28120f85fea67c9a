"""stablehlo-canonicalize-dynamism (upstream's StablehloCanonicalizeDynamism.cpp): what each pattern
builds, the malformed `indices_of_shape_operands` diagnostics, and -- through the interpreter -- that
the static program computes what the dynamic one did."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir

PASS = "stablehlo-canonicalize-dynamism"


def _canon(text: str) -> str:
    return print_ir(run_pipeline(parse(text, "c.mlir"), [(PASS, {})]))


def _same_results(text: str, *args: np.ndarray) -> str:
    """Canonicalize; the interpreter gives the same results before and after; returns the new text."""
    out = _canon(text)
    for a, b in zip(run(parse(text), *args), run(parse(out), *args), strict=True):
        np.testing.assert_array_equal(a, b)
    return out


def test_dynamic_reshape_and_broadcast_and_iota_compute_the_same() -> None:
    text = """
func.func @main(%arg0: tensor<6xf32>) -> (tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>) {
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %0 = stablehlo.dynamic_reshape %arg0, %s : (tensor<6xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %b = stablehlo.constant dense<[4, 2, 3]> : tensor<3xi32>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %b, dims = [1, 2] : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<4x2x3xf32>
  %2 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<2x3xi32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<4x2x3xf32>, tensor<2x3xi32>
}
"""
    out = _same_results(text, np.arange(6, dtype=np.float32))
    assert "dynamic" not in out
    assert "stablehlo.reshape %arg0 : (tensor<6xf32>) -> tensor<2x3xf32>" in out
    assert (
        "stablehlo.broadcast_in_dim %0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>"
        in out
    )
    assert "stablehlo.iota dim = 1 : tensor<2x3xi32>" in out
    assert "stablehlo.constant" not in out  # the shape constants are dead and erased


def test_dynamic_pad_and_real_dynamic_slice_to_slice() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<11xf32>, tensor<2xf32>) {
  %lo = stablehlo.constant dense<0> : tensor<1xi32>
  %hi = stablehlo.constant dense<1> : tensor<1xi32>
  %in = stablehlo.constant dense<2> : tensor<1xi32>
  %0 = stablehlo.dynamic_pad %arg0, %arg1, %lo, %hi, %in : (tensor<4xf32>, tensor<f32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<11xf32>
  %st = stablehlo.constant dense<1> : tensor<1xi64>
  %li = stablehlo.constant dense<4> : tensor<1xi64>
  %sd = stablehlo.constant dense<2> : tensor<1xi64>
  %1 = stablehlo.real_dynamic_slice %arg0, %st, %li, %sd {foo = "kept"} : (tensor<4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xf32>
  return %0, %1 : tensor<11xf32>, tensor<2xf32>
}
"""
    out = _same_results(text, np.arange(1, 5, dtype=np.float32), np.float32(-1))
    assert "stablehlo.pad %arg0, %arg1, low = [0], high = [1], interior = [2]" in out
    assert 'stablehlo.slice %arg0 [1:4:2] {foo = "kept"}' in out


def test_real_dynamic_slice_to_dynamic_slice_with_the_constant_first() -> None:
    text = """
func.func @main(%arg0: tensor<5x6xf32>, %arg1: tensor<2xi32>) -> tensor<2x3xf32> {
  %sz = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %lim = stablehlo.add %sz, %arg1 : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %0 = stablehlo.real_dynamic_slice %arg0, %arg1, %lim, %one : (tensor<5x6xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""
    out = _same_results(
        text, np.arange(30, dtype=np.float32).reshape(5, 6), np.array([2, 1], np.int32)
    )
    assert "stablehlo.slice %arg1 [0:1] : (tensor<2xi32>) -> tensor<1xi32>" in out
    assert "stablehlo.slice %arg1 [1:2] : (tensor<2xi32>) -> tensor<1xi32>" in out
    assert "sizes = [2, 3] : (tensor<5x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>" in out
    assert "stablehlo.add" not in out  # the limit computation is dead


def test_dynamic_gather_and_conv() -> None:
    text = """
func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<2x1xi32>, %lhs: tensor<1x5x1xf32>, %rhs: tensor<3x1x1xf32>) -> (tensor<2x4xf32>, tensor<1x7x1xf32>) {
  %ss = stablehlo.constant dense<[1, 4]> : tensor<2xi32>
  %0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %ss) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}> : (tensor<3x4xf32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x4xf32>
  %p = stablehlo.constant dense<[[2, 2]]> : tensor<1x2xi32>
  %1 = "stablehlo.dynamic_conv"(%lhs, %rhs, %p) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, window_strides = array<i64: 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x5x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<1x7x1xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<1x7x1xf32>
}
"""
    args = (
        np.arange(12, dtype=np.float32).reshape(3, 4),
        np.array([[2], [0]], np.int32),
        np.arange(5, dtype=np.float32).reshape(1, 5, 1),
        np.array([1, 2, 3], np.float32).reshape(3, 1, 1),
    )
    out = _same_results(text, *args)
    assert '"stablehlo.gather"(%arg0, %arg1)' in out and "slice_sizes = array<i64: 1, 4>" in out
    assert "stablehlo.convolution(%arg2, %arg3)" in out and "pad = [[2, 2]]" in out
    assert "dynamic" not in out


def test_custom_call_drops_its_shape_operands_and_their_layouts() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>) -> tensor<2x2xf32> {
  %s = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %0 = stablehlo.custom_call @foo(%s, %arg0) {indices_of_shape_operands = dense<0> : tensor<1xi64>, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>], mhlo.extra = 1 : i32} : (tensor<2xi64>, tensor<4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"""
    out = _canon(text)
    assert (
        "stablehlo.custom_call @foo(%arg0) {mhlo.extra = 1 : i32, operand_layouts = [dense<0> : tensor<1xindex>], "
        "result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<4xf32>) -> tensor<2x2xf32>"
    ) in out


def test_custom_call_with_tuple_results_counts_flattened_results() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>) -> tuple<tensor<1x2xf32>, tensor<2xf32>> {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %0 = stablehlo.custom_call @foo(%arg0, %s) {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<4xf32>, tensor<2xi64>) -> tuple<tensor<1x2xf32>, tensor<2xf32>>
  return %0 : tuple<tensor<1x2xf32>, tensor<2xf32>>
}
"""
    with pytest.raises(VerifyError) as e:
        _canon(text)
    assert e.value.message == (
        "indices_of_shape_operands: number of elements (1) must be equal to the number of operation results (2), "
        "with tuples flattened"
    )
    assert e.value.location == "c.mlir:4:8"


def test_negative_refinement_is_incompatible() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>) -> tensor<1x2xf32> {
  %s = stablehlo.constant dense<[-1, 2]> : tensor<2xi64>
  %0 = stablehlo.custom_call @foo(%arg0, %s) {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
"""
    with pytest.raises(
        VerifyError,
        match=r"refinement #0 \(\[-1, 2\]\) must be compatible with operation result #0",
    ):
        _canon(text)


def test_nothing_to_do_leaves_the_program_unchanged() -> None:
    text = """
func.func @main(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>) -> tensor<?xf32> {
  %0 = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    assert _canon(text) == print_ir(parse(text))


def test_refine_arguments_wrappers_stay_until_results_are_static() -> None:
    """The wrappers refine-arguments adds have a dynamic result: the custom_call pattern leaves them
    (upstream: "expected static result types"); once the result is static it drops the shape operand."""
    text = """
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
"""
    m = run_pipeline(
        parse(text), [("stablehlo-refine-arguments", {"types": "tensor<3xf32>"}), (PASS, {})]
    )
    assert "shape_refinement_operand_wrapper(%arg0, %c)" in print_ir(m)


def test_every_malformed_custom_call_is_reported_once() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %0 = stablehlo.custom_call @foo(%arg0, %s) {indices_of_shape_operands = dense<[1]> : tensor<1xi32>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  %1 = stablehlo.custom_call @foo(%arg0, %s) {indices_of_shape_operands = dense<[[1]]> : tensor<1x1xi64>} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  return %0, %1 : tensor<1x2xf32>, tensor<1x2xf32>
}
"""
    with pytest.raises(VerifyError) as e:
        _canon(text)
    found = [*e.value.preceding, e.value]  # type: ignore[attr-defined]
    assert sorted((d.location, d.message) for d in found) == [
        ("c.mlir:4:8", "indices_of_shape_operands: must have i64 element type"),
        ("c.mlir:5:8", "indices_of_shape_operands: must have rank = 1"),
    ]


def test_after_refinement_no_dynamic_op_or_type_is_left() -> None:
    """refine-arguments + refine-shapes make the shape operands constants; this pass then leaves a
    static program computing what the dynamic one did."""
    text = """
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %r, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  %2 = stablehlo.dynamic_reshape %1, %s : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
"""
    pipeline = [
        ("stablehlo-refine-arguments", {"types": "tensor<3x4xf32>"}),
        ("stablehlo-refine-shapes", {}),
        (PASS, {}),
    ]
    out = print_ir(run_pipeline(parse(text), pipeline))
    assert "dynamic" not in out and "?" not in out and "custom_call" not in out, out
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(run(parse(out), x)[0], run(parse(text), x)[0])


def test_constants_are_uniqued_and_moved_to_the_front_as_mlirs_driver_does() -> None:
    text = """
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  %c = stablehlo.constant dense<[1, 4]> : tensor<2xi64>
  %1 = stablehlo.add %arg1, %c : tensor<2xi64>
  %c2 = stablehlo.constant dense<[1, 4]> : tensor<2xi64>
  %2 = stablehlo.multiply %1, %c2 : tensor<2xi64>
  return %0, %2 : tensor<4xf32>, tensor<2xi64>
}
"""
    out = _canon(text)
    body = [line.strip() for line in out.splitlines()[2:6]]
    assert body == [
        "%c = stablehlo.constant dense<[1, 4]> : tensor<2xi64>",
        "%0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>",
        "%1 = stablehlo.add %arg1, %c : tensor<2xi64>",
        "%2 = stablehlo.multiply %1, %c : tensor<2xi64>",
    ], out
