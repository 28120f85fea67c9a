"""Region-bodied ops on quantized tensors (reduce, reduce_window, sort, scatter, select_and_scatter,
map, while/if/case, all_reduce): the body runs on the quantized elements, each of its ops a
quantized op (dequantize -> op -> quantize), values moved as storage integers.

Values are hand-checked.  The multiply bodies tell this apart from computing the body on floats:
1.5 * 1.5 = 2.25 is requantized (scale 0.5, half to even) to 2.0 before the next step, so
1.5 * 1.5 * 1.5 gives 3.0, where a float body would give 3.375 -> 3.5."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir import parse

Q = "!quant.uniform<i8:f32, 5.000000e-01>"  # scale 0.5, zero point 0
QZ = "!quant.uniform<i8:f32, 5.000000e-01:-3>"  # scale 0.5, zero point -3
S = "!quant.uniform<i8:f32, 1.000000e+00>"  # scale 1


def _q(shape: str, q: str = Q) -> str:
    return f"tensor<{shape}{q}>" if shape == "" else f"tensor<{shape}x{q}>"


def test_reduce_requantizes_each_step() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<3xf32>, %one: tensor<f32>) -> tensor<i8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> {_q("3")}
  %i = stablehlo.uniform_quantize %one : (tensor<f32>) -> {_q("")}
  %r = stablehlo.reduce(%q init: %i) applies stablehlo.multiply across dimensions = [0]
      : ({_q("3")}, {_q("")}) -> {_q("")}
  %s = stablehlo.bitcast_convert %r : ({_q("")}) -> tensor<i8>
  return %s : tensor<i8>
}}""",
        np.array([1.5, 1.5, 1.5], np.float32),
        np.array(1.0, np.float32),
    )
    assert int(r) == 6  # 3.0 / 0.5 (a float body: 3.375 -> 7)


def test_reduce_with_add_body_and_zero_point() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<2x3xf32>, %zero: tensor<f32>) -> tensor<2xf32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> {_q("2x3", QZ)}
  %i = stablehlo.uniform_quantize %zero : (tensor<f32>) -> {_q("", QZ)}
  %r = stablehlo.reduce(%q init: %i) applies stablehlo.add across dimensions = [1]
      : ({_q("2x3", QZ)}, {_q("", QZ)}) -> {_q("2", QZ)}
  %d = stablehlo.uniform_dequantize %r : ({_q("2", QZ)}) -> tensor<2xf32>
  return %d : tensor<2xf32>
}}""",
        np.array([[1.0, 2.0, 3.5], [-1.0, 0.5, 4.0]], np.float32),
        np.array(0.0, np.float32),
    )
    np.testing.assert_array_equal(r, [6.5, 3.5])


REDUCE_WINDOW = f"""
func.func @main(%x: tensor<4xf32>, %lo: tensor<f32>) -> tensor<3xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> {_q("4", QZ)}
  %i = stablehlo.uniform_quantize %lo : (tensor<f32>) -> {_q("", QZ)}
  %r = "stablehlo.reduce_window"(%q, %i) ({{
  ^bb0(%a: {_q("", QZ)}, %b: {_q("", QZ)}):
    %m = stablehlo.maximum %a, %b : {_q("", QZ)}
    stablehlo.return %m : {_q("", QZ)}
  }}) {{window_dimensions = array<i64: 2>}} : ({_q("4", QZ)}, {_q("", QZ)}) -> {_q("3", QZ)}
  %s = stablehlo.bitcast_convert %r : ({_q("3", QZ)}) -> tensor<3xi8>
  return %s : tensor<3xi8>
}}"""


def test_reduce_window_max() -> None:
    x, lo = np.array([1.0, 3.0, 2.0, 5.0], np.float32), np.array(-10.0, np.float32)
    (r,) = run(REDUCE_WINDOW, x, lo)
    np.testing.assert_array_equal(r, [3, 3, 7])  # max windows 3, 3, 5 -> v / 0.5 - 3


def test_reduce_window_gives_the_same_storage_after_quant_to_math() -> None:
    from stablehlo_py.interpreter.evaluator import Evaluator

    x, lo = np.array([1.0, 3.0, 2.0, 5.0], np.float32), np.array(-10.0, np.float32)
    module = run_pipeline(parse(REDUCE_WINDOW), [("stablehlo-legalize-quant-to-math", {})])
    (lowered,) = Evaluator(module).call("main", [x, lo])
    (native,) = run(REDUCE_WINDOW, x, lo)
    np.testing.assert_array_equal(lowered, native)


def test_sort_by_quantized_keys_carries_the_other_operand() -> None:
    keys, values = run(
        f"""
func.func @main(%x: tensor<3xf32>, %v: tensor<3xi32>) -> (tensor<3xi8>, tensor<3xi32>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> {_q("3")}
  %s:2 = "stablehlo.sort"(%q, %v) ({{
  ^bb0(%a: {_q("")}, %b: {_q("")}, %c: tensor<i32>, %d: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b : ({_q("")}, {_q("")}) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }}) {{dimension = 0 : i64, is_stable = true}} : ({_q("3")}, tensor<3xi32>) -> ({_q("3")}, tensor<3xi32>)
  %k = stablehlo.bitcast_convert %s#0 : ({_q("3")}) -> tensor<3xi8>
  return %k, %s#1 : tensor<3xi8>, tensor<3xi32>
}}""",
        np.array([0.5, 2.0, 1.0], np.float32),
        np.array([10, 20, 30], np.int32),
    )
    np.testing.assert_array_equal(keys, [4, 2, 1])
    np.testing.assert_array_equal(values, [20, 30, 10])


def test_scatter_multiply_requantizes_each_update() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<2xf32>, %u: tensor<2xf32>) -> tensor<2xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> {_q("2")}
  %uq = stablehlo.uniform_quantize %u : (tensor<2xf32>) -> {_q("2")}
  %idx = stablehlo.constant dense<[[0], [0]]> : tensor<2x1xi32>
  %r = "stablehlo.scatter"(%q, %idx, %uq) ({{
  ^bb0(%a: {_q("")}, %b: {_q("")}):
    %m = stablehlo.multiply %a, %b : {_q("")}
    stablehlo.return %m : {_q("")}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
        scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}}
      : ({_q("2")}, tensor<2x1xi32>, {_q("2")}) -> {_q("2")}
  %s = stablehlo.bitcast_convert %r : ({_q("2")}) -> tensor<2xi8>
  return %s : tensor<2xi8>
}}""",
        np.array([1.5, 2.0], np.float32),
        np.array([1.5, 1.5], np.float32),
    )
    np.testing.assert_array_equal(r, [6, 4])  # 1.5*1.5 -> 2.0, *1.5 -> 3.0; 2.0 untouched


def test_select_and_scatter() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<4xf32>, %src: tensor<2xf32>, %z: tensor<f32>) -> tensor<4xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> {_q("4")}
  %s = stablehlo.uniform_quantize %src : (tensor<2xf32>) -> {_q("2")}
  %i = stablehlo.uniform_quantize %z : (tensor<f32>) -> {_q("")}
  %r = "stablehlo.select_and_scatter"(%q, %s, %i) ({{
  ^bb0(%a: {_q("")}, %b: {_q("")}):
    %ge = stablehlo.compare GE, %a, %b : ({_q("")}, {_q("")}) -> tensor<i1>
    stablehlo.return %ge : tensor<i1>
  }}, {{
  ^bb0(%a: {_q("")}, %b: {_q("")}):
    %p = stablehlo.add %a, %b : {_q("")}
    stablehlo.return %p : {_q("")}
  }}) {{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}}
      : ({_q("4")}, {_q("2")}, {_q("")}) -> {_q("4")}
  %o = stablehlo.bitcast_convert %r : ({_q("4")}) -> tensor<4xi8>
  return %o : tensor<4xi8>
}}""",
        np.array([1.0, 5.0, 3.0, 2.0], np.float32),
        np.array([0.5, 1.0], np.float32),
        np.array(0.0, np.float32),
    )
    np.testing.assert_array_equal(r, [0, 1, 2, 0])  # windows' maxima at 1 and 2


def test_map_multiply() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xi8> {{
  %a = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> {_q("2")}
  %b = stablehlo.uniform_quantize %y : (tensor<2xf32>) -> {_q("2")}
  %m = "stablehlo.map"(%a, %b) ({{
  ^bb0(%p: {_q("")}, %q: {_q("")}):
    %t = stablehlo.multiply %p, %q : {_q("")}
    stablehlo.return %t : {_q("")}
  }}) {{dimensions = array<i64: 0>}} : ({_q("2")}, {_q("2")}) -> {_q("2")}
  %s = stablehlo.bitcast_convert %m : ({_q("2")}) -> tensor<2xi8>
  return %s : tensor<2xi8>
}}""",
        np.array([1.5, 3.0], np.float32),
        np.array([1.5, 0.5], np.float32),
    )
    np.testing.assert_array_equal(r, [4, 3])  # 2.25 -> 2.0 (half to even), 1.5


def test_while_carries_a_quantized_value() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<f32>) -> tensor<i8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<f32>) -> {_q("")}
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %c3 = stablehlo.constant dense<3> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c0, %v = %q) : tensor<i32>, {_q("")}
    cond {{
      %lt = stablehlo.compare LT, %i, %c3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %n = stablehlo.add %i, %c1 : tensor<i32>
      %d = stablehlo.multiply %v, %v : {_q("")}
      stablehlo.return %n, %d : tensor<i32>, {_q("")}
    }}
  %s = stablehlo.bitcast_convert %w#1 : ({_q("")}) -> tensor<i8>
  return %s : tensor<i8>
}}""",
        np.array(1.5, np.float32),
    )
    # 1.5^2 = 2.25 -> 2.0 (a float loop: 1.5^8 = 25.6 -> 25.5); 2.0^2 = 4.0; 4.0^2 = 16.0
    assert int(r) == 32


@pytest.mark.parametrize("pred,expected", [(True, 3), (False, -3)])
def test_if_returns_quantized_values(pred: bool, expected: int) -> None:
    (r,) = run(
        f"""
func.func @main(%p: tensor<i1>, %x: tensor<f32>) -> tensor<i8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<f32>) -> {_q("")}
  %r = "stablehlo.if"(%p) ({{
    stablehlo.return %q : {_q("")}
  }}, {{
    %n = stablehlo.negate %q : {_q("")}
    stablehlo.return %n : {_q("")}
  }}) : (tensor<i1>) -> {_q("")}
  %s = stablehlo.bitcast_convert %r : ({_q("")}) -> tensor<i8>
  return %s : tensor<i8>
}}""",
        np.array(pred),
        np.array(1.5, np.float32),
    )
    assert int(r) == expected


def test_case_returns_quantized_values() -> None:
    (r,) = run(
        f"""
func.func @main(%k: tensor<i32>, %x: tensor<f32>) -> tensor<i8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<f32>) -> {_q("")}
  %r = "stablehlo.case"(%k) ({{
    stablehlo.return %q : {_q("")}
  }}, {{
    %m = stablehlo.multiply %q, %q : {_q("")}
    stablehlo.return %m : {_q("")}
  }}) : (tensor<i32>) -> {_q("")}
  %s = stablehlo.bitcast_convert %r : ({_q("")}) -> tensor<i8>
  return %s : tensor<i8>
}}""",
        np.array(1, np.int32),
        np.array(1.5, np.float32),
    )
    assert int(r) == 4  # 2.25 -> 2.0


def test_all_reduce_on_one_process() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<2xf32>) -> tensor<2xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> {_q("2", S)}
  %r = "stablehlo.all_reduce"(%q) ({{
  ^bb0(%a: {_q("", S)}, %b: {_q("", S)}):
    %p = stablehlo.add %a, %b : {_q("", S)}
    stablehlo.return %p : {_q("", S)}
  }}) {{replica_groups = dense<[[0]]> : tensor<1x1xi64>}} : ({_q("2", S)}) -> {_q("2", S)}
  %s = stablehlo.bitcast_convert %r : ({_q("2", S)}) -> tensor<2xi8>
  return %s : tensor<2xi8>
}}""",
        np.array([3.0, -4.0], np.float32),
    )
    np.testing.assert_array_equal(r, [3, -4])


def test_promotion_between_quantized_types_is_not_supported() -> None:
    with pytest.raises(NotSupportedError, match="quantized promotion"):
        run(
            f"""
func.func @main(%x: tensor<2xf32>, %z: tensor<f32>) -> {_q("", S)} {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> {_q("2")}
  %i = stablehlo.uniform_quantize %z : (tensor<f32>) -> {_q("")}
  %r = "stablehlo.reduce"(%q, %i) ({{
  ^bb0(%a: {_q("", S)}, %b: {_q("", S)}):
    %p = stablehlo.add %a, %b : {_q("", S)}
    stablehlo.return %p : {_q("", S)}
  }}) {{dimensions = array<i64: 0>}} : ({_q("2")}, {_q("")}) -> {_q("", S)}
  return %r : {_q("", S)}
}}""",
            np.array([1.0, 2.0], np.float32),
            np.array(0.0, np.float32),
        )


def test_i32_storage_values_a_region_moves_stay_exact() -> None:
    q = "!quant.uniform<i32:f32, 1.000000e+00>"
    (r,) = run(
        f"""
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {{
  %q = stablehlo.bitcast_convert %x : (tensor<3xi32>) -> tensor<3x{q}>
  %s = "stablehlo.sort"(%q) ({{
  ^bb0(%a: tensor<{q}>, %b: tensor<{q}>):
    %gt = stablehlo.compare GT, %a, %b : (tensor<{q}>, tensor<{q}>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }}) {{dimension = 0 : i64}} : (tensor<3x{q}>) -> tensor<3x{q}>
  %o = stablehlo.bitcast_convert %s : (tensor<3x{q}>) -> tensor<3xi32>
  return %o : tensor<3xi32>
}}""",
        np.array([3, 16777217, -7], np.int32),
    )
    np.testing.assert_array_equal(r, [16777217, 3, -7])  # 2**24 + 1 is not an f32
