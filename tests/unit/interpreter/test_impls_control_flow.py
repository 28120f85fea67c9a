"""Impl wrappers: control flow, map, sort comparators, reductions with promoted region types."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run


def test_while_counts_to_ten() -> None:
    (i, s) = run(
        """
func.func @main() -> (tensor<i64>, tensor<i64>) {
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c10 = stablehlo.constant dense<10> : tensor<i64>
  %r:2 = stablehlo.while(%a = %c0, %b = %c0) : tensor<i64>, tensor<i64>
  cond {
    %p = stablehlo.compare LT, %a, %c10 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %n = stablehlo.add %a, %c1 : tensor<i64>
    %t = stablehlo.add %b, %a : tensor<i64>
    stablehlo.return %n, %t : tensor<i64>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<i64>, tensor<i64>
}"""
    )
    assert int(i) == 10 and int(s) == 45


@pytest.mark.parametrize(("index", "expected"), [(0, 10), (1, 11), (2, 12), (7, 12), (-1, 12)])
def test_case_out_of_range_index_runs_the_last_branch(index: int, expected: int) -> None:
    (r,) = run(
        """
func.func @main(%i: tensor<i32>) -> tensor<i32> {
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.constant dense<10> : tensor<i32>
    stablehlo.return %a : tensor<i32>
  }, {
    %b = stablehlo.constant dense<11> : tensor<i32>
    stablehlo.return %b : tensor<i32>
  }, {
    %c = stablehlo.constant dense<12> : tensor<i32>
    stablehlo.return %c : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}""",
        np.array(index, np.int32),
    )
    assert int(r) == expected


def test_if_uses_values_from_the_enclosing_scope() -> None:
    text = """
func.func @main(%p: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.if"(%p) ({
    %a = stablehlo.add %x, %x : tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}"""
    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(run(text, np.array(True), x)[0], 2 * x)
    np.testing.assert_array_equal(run(text, np.array(False), x)[0], -x)


def test_composite_calls_its_decomposition() -> None:
    (r,) = run(
        """
func.func @impl(%x: tensor<3xi32>) -> tensor<3xi32> {
  %m = stablehlo.multiply %x, %x : tensor<3xi32>
  return %m : tensor<3xi32>
}
func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
  %r = stablehlo.composite "my.square" %x {decomposition = @impl} : (tensor<3xi32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}""",
        np.array([1, -2, 3], np.int32),
    )
    np.testing.assert_array_equal(r, [1, 4, 9])


def test_map_evaluates_the_computation_on_whole_arrays() -> None:
    (r,) = run(
        """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.multiply %x, %y : tensor<f32>
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %s = stablehlo.add %m, %c : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}""",
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.full((2, 3), 2, np.float32),
    )
    np.testing.assert_array_equal(r, np.arange(6).reshape(2, 3) * 2 + 1)


SORT = """
func.func @main(%k: tensor<6xf32>, %v: tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>) {
  %r:2 = "stablehlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %p = stablehlo.compare BODY
    stablehlo.return %p : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<6xf32>, tensor<6xi32>) -> (tensor<6xf32>, tensor<6xi32>)
  return %r#0, %r#1 : tensor<6xf32>, tensor<6xi32>
}"""


@pytest.mark.parametrize(
    ("body", "order"),
    [
        ("LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>", "asc"),
        ("GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>", "desc"),
        ("LT, %b, %a, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>", "desc"),
        ("GT, %c, %d : (tensor<i32>, tensor<i32>) -> tensor<i1>", "by_value_desc"),
    ],
)
def test_sort_comparators(body: str, order: str) -> None:
    keys = np.array([3.0, -0.0, 0.0, np.nan, -np.inf, 3.0], np.float32)
    values = np.array([0, 1, 2, 3, 4, 5], np.int32)
    _, v = run(SORT.replace("BODY", body), keys, values)
    if order == "asc":  # total order: -inf < -0 < +0 < 3 < nan, stable
        np.testing.assert_array_equal(v, [4, 1, 2, 0, 5, 3])
    elif order == "desc":
        np.testing.assert_array_equal(v, [3, 0, 5, 2, 1, 4])
    else:
        np.testing.assert_array_equal(v, [5, 4, 3, 2, 1, 0])


def test_sort_with_an_arbitrary_comparator_uses_the_region() -> None:
    # order by |x|, ties by index (stable): a comparator no fast path recognizes
    text = """
func.func @main(%k: tensor<5xi32>) -> tensor<5xi32> {
  %r = "stablehlo.sort"(%k) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %x = stablehlo.abs %a : tensor<i32>
    %y = stablehlo.abs %b : tensor<i32>
    %p = stablehlo.compare LT, %x, %y : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<5xi32>) -> tensor<5xi32>
  return %r : tensor<5xi32>
}"""
    (r,) = run(text, np.array([-3, 2, -1, 1, 3], np.int32))
    np.testing.assert_array_equal(r, [-1, 1, 2, -3, 3])


def test_reduce_promotes_inputs_to_the_body_type() -> None:
    # bf16 inputs summed by an f32 body (to_destination_type): no bf16 rounding of partial sums
    text = """
func.func @main(%x: tensor<300xbf16>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<bf16>
  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<300xbf16>, tensor<bf16>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}"""
    import ml_dtypes

    (r,) = run(text, np.full(300, 1.0, ml_dtypes.bfloat16))
    assert r.dtype == np.float32 and float(r) == 300.0


def test_argmax_style_variadic_reduce() -> None:
    text = """
func.func @main(%x: tensor<2x4xf32>, %i: tensor<2x4xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %m = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %m), (%i init: %z) across dimensions = [1] : (tensor<2x4xf32>, tensor<2x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %v = stablehlo.select %gt, %a, %b : tensor<i1>, tensor<f32>
    %j = stablehlo.select %gt, %c, %d : tensor<i1>, tensor<i32>
    stablehlo.return %v, %j : tensor<f32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}"""
    x = np.array([[1, 5, 2, 0], [7, 1, 9, 3]], np.float32)
    idx = np.tile(np.arange(4, dtype=np.int32), (2, 1))
    v, j = run(text, x, idx)
    np.testing.assert_array_equal(v, [5, 9])
    np.testing.assert_array_equal(j, [1, 2])
