"""Impl wrappers: data movement and miscellaneous ops (attributes read from the IR, result types)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError


def test_broadcast_in_dim_and_deprecated_broadcast() -> None:
    (a, b) = run(
        """
func.func @main(%x: tensor<3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>) {
  %a = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
  %b = stablehlo.broadcast %x, sizes = [2] : (tensor<3xi32>) -> tensor<2x3xi32>
  return %a, %b : tensor<2x3xi32>, tensor<2x3xi32>
}""",
        np.array([1, 2, 3], np.int32),
    )
    np.testing.assert_array_equal(a, [[1, 2, 3], [1, 2, 3]])
    np.testing.assert_array_equal(b, a)


def test_slices_pads_and_dynamic_updates() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    (s, d, u, p) = run(
        """
func.func @main(%x: tensor<3x4xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<3x4xi32>, tensor<5x6xi32>) {
  %s = stablehlo.slice %x [0:3:2, 1:4:2] : (tensor<3x4xi32>) -> tensor<2x2xi32>
  %i = stablehlo.constant dense<5> : tensor<i64>
  %j = stablehlo.constant dense<-1> : tensor<i64>
  %d = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  %u = stablehlo.dynamic_update_slice %x, %s, %i, %j : (tensor<3x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  %z = stablehlo.constant dense<-7> : tensor<i32>
  %p = stablehlo.pad %x, %z, low = [1, 0], high = [1, 2], interior = [0, 0] : (tensor<3x4xi32>, tensor<i32>) -> tensor<5x6xi32>
  return %s, %d, %u, %p : tensor<2x2xi32>, tensor<2x2xi32>, tensor<3x4xi32>, tensor<5x6xi32>
}""",
        x,
    )
    np.testing.assert_array_equal(s, x[0:3:2, 1:4:2])
    np.testing.assert_array_equal(d, x[1:3, 0:2])  # starts clamped to [1, 0]
    expected_u = x.copy()
    expected_u[1:3, 0:2] = s
    np.testing.assert_array_equal(u, expected_u)
    expected_p = np.full((5, 6), -7, np.int32)
    expected_p[1:4, 0:4] = x
    np.testing.assert_array_equal(p, expected_p)


def test_iota_reshape_transpose_reverse_concatenate() -> None:
    (i, r, t, v, c) = run(
        """
func.func @main() -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<4x3xf32>) {
  %i = stablehlo.iota dim = 1 : tensor<2x3xf32>
  %r = stablehlo.reshape %i : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %t = stablehlo.transpose %i, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %v = stablehlo.reverse %i, dims = [1] : tensor<2x3xf32>
  %c = stablehlo.concatenate %i, %v, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %i, %r, %t, %v, %c : tensor<2x3xf32>, tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<4x3xf32>
}"""
    )
    ref = np.tile(np.arange(3, dtype=np.float32), (2, 1))
    np.testing.assert_array_equal(i, ref)
    np.testing.assert_array_equal(r, ref.reshape(3, 2))
    np.testing.assert_array_equal(t, ref.T)
    np.testing.assert_array_equal(v, ref[:, ::-1])
    np.testing.assert_array_equal(c, np.concatenate([ref, ref[:, ::-1]]))


def test_dynamic_shape_ops_with_runtime_shapes() -> None:
    (i, b, r, p, s) = run(
        """
func.func @main(%x: tensor<4xi32>) -> (tensor<3xi32>, tensor<2x4xi32>, tensor<2x2xi32>, tensor<6xi32>, tensor<2xi32>) {
  %sh = stablehlo.constant dense<3> : tensor<1xi64>
  %i = stablehlo.dynamic_iota %sh, dim = 0 : (tensor<1xi64>) -> tensor<3xi32>
  %bs = stablehlo.constant dense<[2, 4]> : tensor<2xi64>
  %b = stablehlo.dynamic_broadcast_in_dim %x, %bs, dims = [1] : (tensor<4xi32>, tensor<2xi64>) -> tensor<2x4xi32>
  %rs = stablehlo.constant dense<[2, 2]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %x, %rs : (tensor<4xi32>, tensor<2xi64>) -> tensor<2x2xi32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %lo = stablehlo.constant dense<1> : tensor<1xi64>
  %hi = stablehlo.constant dense<1> : tensor<1xi64>
  %in = stablehlo.constant dense<0> : tensor<1xi64>
  %p = stablehlo.dynamic_pad %x, %z, %lo, %hi, %in : (tensor<4xi32>, tensor<i32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<6xi32>
  %st = stablehlo.constant dense<1> : tensor<1xi64>
  %li = stablehlo.constant dense<4> : tensor<1xi64>
  %sd = stablehlo.constant dense<2> : tensor<1xi64>
  %s = stablehlo.real_dynamic_slice %x, %st, %li, %sd : (tensor<4xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi32>
  return %i, %b, %r, %p, %s : tensor<3xi32>, tensor<2x4xi32>, tensor<2x2xi32>, tensor<6xi32>, tensor<2xi32>
}""",
        np.array([5, 6, 7, 8], np.int32),
    )
    np.testing.assert_array_equal(i, [0, 1, 2])
    np.testing.assert_array_equal(b, [[5, 6, 7, 8]] * 2)
    np.testing.assert_array_equal(r, [[5, 6], [7, 8]])
    np.testing.assert_array_equal(p, [0, 5, 6, 7, 8, 0])
    np.testing.assert_array_equal(s, [6, 8])


def test_tuples_and_dimension_sizes() -> None:
    (e, d) = run(
        """
func.func @main(%x: tensor<2x5xf32>, %y: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %t = stablehlo.tuple %x, %y : tuple<tensor<2x5xf32>, tensor<i32>>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2x5xf32>, tensor<i32>>) -> tensor<i32>
  %d = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x5xf32>) -> tensor<i32>
  return %e, %d : tensor<i32>, tensor<i32>
}""",
        np.zeros((2, 5), np.float32),
        np.array(42, np.int32),
    )
    assert int(e) == 42 and int(d) == 5 and d.dtype == np.int32


def test_torch_index_select_with_batch_dims() -> None:
    operand = np.arange(2 * 4 * 3, dtype=np.int32).reshape(2, 4, 3)
    index = np.array([[3, 0], [1, 1]], np.int32)
    (r,) = run(
        """
func.func @main(%x: tensor<2x4x3xi32>, %i: tensor<2x2xi32>) -> tensor<2x2x3xi32> {
  %r = "stablehlo.torch_index_select"(%x, %i) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x4x3xi32>, tensor<2x2xi32>) -> tensor<2x2x3xi32>
  return %r : tensor<2x2x3xi32>
}""",
        operand,
        index,
    )
    expected = np.stack([operand[b][index[b]] for b in range(2)])
    np.testing.assert_array_equal(r, expected)


def test_bitcast_convert_and_reduce_precision() -> None:
    (b, p) = run(
        """
func.func @main(%x: tensor<2xf32>) -> (tensor<2xi32>, tensor<2xf32>) {
  %b = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2xi32>
  %p = stablehlo.reduce_precision %x, format = e5m10 : tensor<2xf32>
  return %b, %p : tensor<2xi32>, tensor<2xf32>
}""",
        np.array([1.0, 1.0 + 2.0**-12], np.float32),
    )
    np.testing.assert_array_equal(b, np.array([1.0, 1.0 + 2.0**-12], np.float32).view(np.int32))
    np.testing.assert_array_equal(p, [1.0, 1.0])  # 1 + 2^-12 rounds to 1 with 10 mantissa bits


def test_einsum_and_unary_einsum() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    (e, u) = run(
        """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>) {
  %e = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %u = stablehlo.unary_einsum %a, config = "ab->a" : (tensor<2x3xf32>) -> tensor<2xf32>
  return %e, %u : tensor<2x4xf32>, tensor<2xf32>
}""",
        a,
        b,
    )
    np.testing.assert_allclose(e, a @ b)
    np.testing.assert_allclose(u, a.sum(1))


def test_gather_and_scatter_read_their_dimension_numbers() -> None:
    operand = np.arange(12, dtype=np.int32).reshape(3, 4)
    (g, s) = run(
        """
func.func @main(%x: tensor<3x4xi32>) -> (tensor<2x4xi32>, tensor<3x4xi32>) {
  %i = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %g = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 4>
  } : (tensor<3x4xi32>, tensor<2x1xi64>) -> tensor<2x4xi32>
  %s = "stablehlo.scatter"(%x, %i, %g) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.multiply %a, %b : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<3x4xi32>, tensor<2x1xi64>, tensor<2x4xi32>) -> tensor<3x4xi32>
  return %g, %s : tensor<2x4xi32>, tensor<3x4xi32>
}""",
        operand,
    )
    np.testing.assert_array_equal(g, operand[[2, 0]])
    expected = operand.copy()
    expected[[2, 0]] *= operand[[2, 0]]
    np.testing.assert_array_equal(s, expected)


@pytest.mark.parametrize("text", ["arith", "tensor"])
def test_arith_constant_and_tensor_cast(text: str) -> None:
    src = {
        "arith": """
func.func @main() -> tensor<2xi32> {
  %c = arith.constant dense<[4, 5]> : tensor<2xi32>
  return %c : tensor<2xi32>
}""",
        "tensor": """
func.func @main(%x: tensor<2xi32>) -> tensor<?xi32> {
  %c = tensor.cast %x : tensor<2xi32> to tensor<?xi32>
  return %c : tensor<?xi32>
}""",
    }[text]
    args = [] if text == "arith" else [np.array([4, 5], np.int32)]
    (r,) = run(src, *args)
    np.testing.assert_array_equal(r, [4, 5])


def test_torch_index_select_out_of_range_dim_is_a_clear_error() -> None:
    """Upstream has no verifier for torch_index_select: the interpreter checks `dim` itself."""
    text = """
func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %0 = "stablehlo.torch_index_select"(%a, %i) {dim = 5 : i64, batch_dims = 0 : i64} : (tensor<3xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    with pytest.raises(InterpreterError, match="dim = 5 is out of range for an operand of rank 1"):
        run(text)
