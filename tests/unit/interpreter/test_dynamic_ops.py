"""Every dynamic op computes with concrete shapes; ops that read their result type derive `?`
dimensions from their operands (or say which dimension they cannot determine); calls and
control flow carry dynamic types; the custom calls JAX emits for shape-polymorphic programs run."""

from __future__ import annotations

import re

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse


def f32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def run_unverified(text: str, *args: object) -> list[np.ndarray]:
    """Run a module that our verifier would reject (e.g. a `?` result where upstream requires a
    static one): the interpreter must still give a clear answer."""
    return run(parse(text), *args)


# ------------------------------------------------------------------ shape computations and ops
def test_dynamic_broadcast_in_dim_with_computed_shape() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<2x?xf32> {
      %c = stablehlo.constant dense<2> : tensor<1xi32>
      %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
      %s = stablehlo.concatenate %c, %r, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [1] : (tensor<?xf32>, tensor<2xi32>) -> tensor<2x?xf32>
      return %0 : tensor<2x?xf32>
    }
    """
    for n in (1, 5):
        np.testing.assert_array_equal(run(text, f32(n))[0], np.broadcast_to(f32(n), (2, n)))


def test_index_shape_tensors() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<?x?xf32> {
      %s = stablehlo.constant dense<[2, 3]> : tensor<2xindex>
      %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    np.testing.assert_array_equal(run(text, f32(6))[0], f32(2, 3))
    with pytest.raises(InterpreterError, match="dynamic_reshape"):
        run(text, f32(5))


def test_shape_arithmetic_on_i64() -> None:
    text = """
    func.func @main(%a: tensor<?x3xf32>) -> tensor<?xf32> {
      %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
      %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
      %three = stablehlo.constant dense<3> : tensor<i64>
      %m = stablehlo.multiply %n64, %three : tensor<i64>
      %s = stablehlo.reshape %m : (tensor<i64>) -> tensor<1xi64>
      %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?x3xf32>, tensor<1xi64>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }
    """
    np.testing.assert_array_equal(run(text, f32(4, 3))[0], f32(12))


def test_dynamic_iota() -> None:
    text = """
    func.func @main(%s: tensor<2xi64>) -> tensor<?x?xi32> {
      %0 = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi64>) -> tensor<?x?xi32>
      return %0 : tensor<?x?xi32>
    }
    """
    (out,) = run(text, np.array([2, 4]))
    np.testing.assert_array_equal(out, np.broadcast_to(np.arange(4, dtype=np.int32), (2, 4)))


def test_dynamic_pad() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>, %lo: tensor<1xi64>, %hi: tensor<1xi64>, %in: tensor<1xi64>) -> tensor<?xf32> {
      %z = stablehlo.constant dense<-1.0> : tensor<f32>
      %0 = stablehlo.dynamic_pad %a, %z, %lo, %hi, %in : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }
    """
    (out,) = run(text, f32(3), np.array([1]), np.array([2]), np.array([1]))
    np.testing.assert_array_equal(out, [-1, 0, -1, 1, -1, 2, -1, -1])


def test_dynamic_gather() -> None:
    text = """
    func.func @main(%a: tensor<?x4xf32>, %i: tensor<?x1xi32>, %sizes: tensor<2xi32>) -> tensor<?x?xf32> {
      %0 = "stablehlo.dynamic_gather"(%a, %i, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<?x4xf32>, tensor<?x1xi32>, tensor<2xi32>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    (out,) = run(text, f32(5, 4), np.array([[4], [0], [2]], np.int32), np.array([1, 3], np.int32))
    np.testing.assert_array_equal(out, f32(5, 4)[[4, 0, 2], :3])


def test_dynamic_conv() -> None:
    text = """
    func.func @main(%x: tensor<1x?x1xf32>, %k: tensor<3x1x1xf32>, %p: tensor<1x2xi64>) -> tensor<1x?x1xf32> {
      %0 = "stablehlo.dynamic_conv"(%x, %k, %p) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, window_strides = array<i64: 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x?x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi64>) -> tensor<1x?x1xf32>
      return %0 : tensor<1x?x1xf32>
    }
    """
    x = f32(1, 6, 1)
    k = np.ones((3, 1, 1), np.float32)
    (out,) = run(text, x, k, np.array([[1, 1]]))
    want = np.convolve(np.pad(x.reshape(-1), 1), np.ones(3), mode="valid")
    np.testing.assert_allclose(out.reshape(-1), want)
    assert out.shape == (1, 6, 1)
    assert run(text, x, k, np.array([[0, 0]]))[0].shape == (1, 4, 1)


def test_real_dynamic_slice() -> None:
    text = """
    func.func @main(%a: tensor<?x?xf32>, %b: tensor<2xi64>, %e: tensor<2xi64>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
      %0 = stablehlo.real_dynamic_slice %a, %b, %e, %s : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    x = f32(5, 6)
    (out,) = run(text, x, np.array([1, 0]), np.array([4, 6]), np.array([2, 3]))
    np.testing.assert_array_equal(out, x[1:4:2, 0:6:3])


def test_get_and_set_dimension_size() -> None:
    text = """
    func.func @main(%a: tensor<4x3xf32>, %n: tensor<i32>) -> (tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<i32>) {
      %0 = stablehlo.set_dimension_size %a, %n, dim = 0 : (tensor<4x3xf32>, tensor<i32>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>>
      %1 = stablehlo.get_dimension_size %0, dim = 0 : (tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<i32>
      return %0, %1 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>, tensor<i32>
    }
    """
    out, size = run(text, f32(4, 3), np.int32(2))
    np.testing.assert_array_equal(out, f32(4, 3)[:2])
    assert int(size) == 2
    with pytest.raises(InterpreterError, match="size 5 is outside"):
        run(text, f32(4, 3), np.int32(5))


# ------------------------------------------------------------- ops that read their result type
def test_broadcast_in_dim_with_bounded_result_takes_operand_size() -> None:
    text = """
    func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<2x?xf32, #stablehlo.bounds<?, 8>> {
      %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<2x?xf32, #stablehlo.bounds<?, 8>>
      return %0 : tensor<2x?xf32, #stablehlo.bounds<?, 8>>
    }
    """
    np.testing.assert_array_equal(run_unverified(text, f32(3))[0], np.broadcast_to(f32(3), (2, 3)))


def test_broadcast_in_dim_undetermined_dimension_is_a_clear_error() -> None:
    text = """
    func.func @main(%a: tensor<1xf32>) -> tensor<?x?xf32> {
      %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<1xf32>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    with pytest.raises(
        InterpreterError,
        match=re.escape(
            "cannot determine dimension 0 of result 0 of 'stablehlo.broadcast_in_dim': its type tensor<?x?xf32> says `?`"
        ),
    ):
        run_unverified(text, f32(1))


def test_reshape_with_one_dynamic_result_dim() -> None:
    text = """
    func.func @main(%a: tensor<?x4xf32>) -> tensor<?x2xf32> {
      %0 = stablehlo.reshape %a : (tensor<?x4xf32>) -> tensor<?x2xf32>
      return %0 : tensor<?x2xf32>
    }
    """
    np.testing.assert_array_equal(run_unverified(text, f32(3, 4))[0], f32(6, 2))


def test_iota_with_dynamic_result_is_a_clear_error() -> None:
    text = """
    func.func @main() -> tensor<?xi32> {
      %0 = stablehlo.iota dim = 0 : tensor<?xi32>
      return %0 : tensor<?xi32>
    }
    """
    with pytest.raises(
        InterpreterError,
        match=r"cannot determine dimension 0 of result 0 of 'stablehlo.iota'.*dynamic_\*",
    ):
        run_unverified(text)


def test_bitcast_convert_and_convert_with_dynamic_result() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> (tensor<?xi32>, tensor<?x4xui8>, tensor<?xf64>) {
      %0 = stablehlo.bitcast_convert %a : (tensor<?xf32>) -> tensor<?xi32>
      %1 = stablehlo.bitcast_convert %a : (tensor<?xf32>) -> tensor<?x4xui8>
      %2 = stablehlo.convert %a : (tensor<?xf32>) -> tensor<?xf64>
      return %0, %1, %2 : tensor<?xi32>, tensor<?x4xui8>, tensor<?xf64>
    }
    """
    x = f32(3) + 0.5
    a, b, c = run(text, x)
    np.testing.assert_array_equal(a, x.view(np.int32))
    np.testing.assert_array_equal(b, x.view(np.uint8).reshape(3, 4))
    assert c.dtype == np.float64 and c.shape == (3,)


def test_rng_takes_its_shape_operand() -> None:
    text = """
    func.func @main(%s: tensor<2xi64>) -> tensor<?x?xi32> {
      %lo = stablehlo.constant dense<0> : tensor<i32>
      %hi = stablehlo.constant dense<10> : tensor<i32>
      %0 = stablehlo.rng %lo, %hi, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<?x?xi32>
      return %0 : tensor<?x?xi32>
    }
    """
    (out,) = run(text, np.array([3, 5]))
    assert out.shape == (3, 5) and out.min() >= 0 and out.max() < 10


def test_chlo_broadcasting_with_dynamic_result() -> None:
    numpy_style = """
    func.func @main(%a: tensor<?x1xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
      %0 = chlo.broadcast_add %a, %b : (tensor<?x1xf32>, tensor<?xf32>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    mapped = """
    func.func @main(%a: tensor<?x1xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
      %0 = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<?x1xf32>, tensor<?xf32>) -> tensor<?x?xf32>
      return %0 : tensor<?x?xf32>
    }
    """
    a, b = f32(3, 1), f32(4)
    np.testing.assert_array_equal(run(numpy_style, a, b)[0], a + b)
    b3 = f32(3)
    np.testing.assert_array_equal(run(mapped, a, b3)[0], a * b3[:, None])
    with pytest.raises(
        InterpreterError, match=re.escape("operands of shapes [[3, 1], [4]] do not broadcast")
    ):
        run(mapped, a, b)


def test_map_with_dynamic_result() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
      %0 = "stablehlo.map"(%a, %b) ({
        ^bb0(%x: tensor<f32>, %y: tensor<f32>):
          %m = stablehlo.multiply %x, %y : tensor<f32>
          stablehlo.return %m : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }
    """
    np.testing.assert_array_equal(run(text, f32(4), f32(4))[0], f32(4) ** 2)


# --------------------------------------------------------------------- calls and control flow
def test_private_function_with_dynamic_types() -> None:
    text = """
    func.func @main(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
      %0 = call @inner(%n, %a) : (tensor<i32>, tensor<?x3xf32>) -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
    func.func private @inner(%n: tensor<i32> {jax.global_constant = "b"}, %a: tensor<?x3xf32>) -> tensor<?x3xf32> {
      %f = stablehlo.convert %n : (tensor<i32>) -> tensor<f32>
      %s = stablehlo.constant dense<[-1]> : tensor<1xi32>
      %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
      %c3 = stablehlo.constant dense<3> : tensor<1xi32>
      %shape = stablehlo.concatenate %r, %c3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %b = stablehlo.dynamic_broadcast_in_dim %f, %shape, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
      %0 = stablehlo.add %a, %b : tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
    """
    np.testing.assert_array_equal(run(text, f32(4, 3))[0], f32(4, 3) + 4)


def test_while_with_dynamic_types() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      %0:2 = stablehlo.while(%i = %zero, %x = %a) : tensor<i32>, tensor<?xf32>
      cond {
        %c = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %j = stablehlo.add %i, %one : tensor<i32>
        %y = stablehlo.add %x, %x : tensor<?xf32>
        stablehlo.return %j, %y : tensor<i32>, tensor<?xf32>
      }
      return %0#1 : tensor<?xf32>
    }
    """
    for n in (0, 1, 3):
        np.testing.assert_array_equal(run(text, f32(n) + 1)[0], (f32(n) + 1) * 2.0**n)


def test_if_and_case_with_dynamic_types() -> None:
    text = """
    func.func @main(%p: tensor<i1>, %k: tensor<i32>, %a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
      %0 = "stablehlo.if"(%p) ({
        %n = stablehlo.negate %a : tensor<?xf32>
        stablehlo.return %n : tensor<?xf32>
      }, {
        stablehlo.return %a : tensor<?xf32>
      }) : (tensor<i1>) -> tensor<?xf32>
      %1 = "stablehlo.case"(%k) ({
        %n = stablehlo.abs %a : tensor<?xf32>
        stablehlo.return %n : tensor<?xf32>
      }, {
        %m = stablehlo.add %a, %a : tensor<?xf32>
        stablehlo.return %m : tensor<?xf32>
      }) : (tensor<i32>) -> tensor<?xf32>
      return %0, %1 : tensor<?xf32>, tensor<?xf32>
    }
    """
    x = f32(5) - 2
    out_if, out_case = run(text, np.bool_(True), np.int32(1), x)
    np.testing.assert_array_equal(out_if, -x)
    np.testing.assert_array_equal(out_case, x + x)


# -------------------------------------------------------- custom calls for experimental ops
def test_dynamic_top_k_custom_call() -> None:
    text = """
    func.func @main(%a: tensor<?x?xf32>, %k: tensor<i32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
      %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%a, %k) {api_version = 2 : i32} : (tensor<?x?xf32>, tensor<i32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
      return %0#0, %0#1 : tensor<?x?xf32>, tensor<?x?xi32>
    }
    """
    x = np.array([[3, 1, 2, 5], [0, 9, 8, 1]], np.float32)
    values, indices = run(text, x, np.int32(2))
    np.testing.assert_array_equal(values, [[5, 3], [9, 8]])
    np.testing.assert_array_equal(indices, [[3, 0], [1, 2]])
    with pytest.raises(InterpreterError, match=r"k = 5 is outside"):
        run(text, x, np.int32(5))


def test_dynamic_reduce_window_custom_call() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %w = stablehlo.constant dense<2> : tensor<1xi64>
      %one = stablehlo.constant dense<1> : tensor<1xi64>
      %p = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi64>
      %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%a, %z, %w, %one, %one, %one, %p) {api_version = 2 : i32, called_computations = [@sum]} : (tensor<?xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1x2xi64>) -> tensor<?xf32>
      return %0 : tensor<?xf32>
    }
    func.func private @sum(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
      %0 = stablehlo.add %x, %y : tensor<f32>
      return %0 : tensor<f32>
    }
    """
    x = f32(4) + 1
    np.testing.assert_array_equal(run(text, x)[0], [1, 3, 5, 7])


def test_dynamic_rng_bit_generator_matches_static_op() -> None:
    dynamic = """
    func.func @main(%s: tensor<2xui64>, %shape: tensor<2xi32>) -> (tensor<2xui64>, tensor<?x?xui32>) {
      %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%s, %shape) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x?xui32>)
      return %0#0, %0#1 : tensor<2xui64>, tensor<?x?xui32>
    }
    """
    static = """
    func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>) {
      %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
      return %0#0, %0#1 : tensor<2xui64>, tensor<3x5xui32>
    }
    """
    seed = np.array([7, 11], np.uint64)
    got = run(dynamic, seed, np.array([3, 5], np.int32))
    want = run(static, seed)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_approx_top_k_custom_call_is_exact() -> None:
    text = """
    func.func @main(%a: tensor<?x6xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>) {
      %i = stablehlo.iota dim = 0 : tensor<6xi32>
      %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x6xf32>) -> tensor<i32>
      %r = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
      %c6 = stablehlo.constant dense<6> : tensor<1xi32>
      %s = stablehlo.concatenate %r, %c6, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %idx = stablehlo.dynamic_broadcast_in_dim %i, %s, dims = [1] : (tensor<6xi32>, tensor<2xi32>) -> tensor<?x6xi32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %m1 = stablehlo.constant dense<-1> : tensor<i32>
      %c2 = stablehlo.constant dense<2> : tensor<1xi32>
      %os = stablehlo.concatenate %r, %c2, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
      %0:2 = stablehlo.custom_call @ApproxTopK(%a, %idx, %ninf, %m1, %os, %os) {called_computations = [@gt], indices_of_shape_operands = dense<[4, 5]> : tensor<2xi64>, mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.95 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<?x6xf32>, tensor<?x6xi32>, tensor<f32>, tensor<i32>, tensor<2xi32>, tensor<2xi32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)
      return %0#0, %0#1 : tensor<?x2xf32>, tensor<?x2xi32>
    }
    func.func private @gt(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
      %0 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      return %0 : tensor<i1>
    }
    """
    x = np.array([[1, 7, 3, 9, 0, 2], [5, 4, 6, 1, 8, 0], [0, 0, 1, 0, 0, 2]], np.float32)
    values, indices = run_unverified(text, x)
    np.testing.assert_array_equal(values, [[9, 7], [8, 6], [2, 1]])
    np.testing.assert_array_equal(indices, [[3, 1], [4, 2], [5, 2]])


def test_refine_arguments_output_runs_before_refine_shapes() -> None:
    """The operand wrapper `stablehlo-refine-arguments` inserts is the operand; a value that does not
    have the wrapper's shape is refused."""
    from stablehlo_py.passes.stablehlo_refine_arguments import refine_arguments

    text = """
func.func @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.abs %arg0 : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""
    module = refine_arguments(parse(text), ["tensor<4x?xf32>"])
    x = -np.ones((4, 2), np.float32)
    (got,) = run(module, x)
    np.testing.assert_array_equal(got, np.ones((4, 2), np.float32))
    wrapped = parse(
        text.replace(
            "%0 = stablehlo.abs %arg0",
            "%w = stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper(%arg0, %c) {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>\n  %0 = stablehlo.abs %w",
        ).replace("{\n  %w", "{\n  %c = stablehlo.constant dense<[4, 2]> : tensor<2xi64>\n  %w")
    )
    with pytest.raises(
        InterpreterError,
        match=r"operand has shape \[3, 2\], the refined argument type says \[4, 2\]",
    ):
        run(wrapped, -np.ones((3, 2), np.float32))
