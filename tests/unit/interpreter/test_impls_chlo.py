"""Impl wrappers: CHLO broadcasting, mulhi, ragged_dot, scan, top_k."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.impls.chlo import ragged_dot
from stablehlo_py.semantics.chlo import mulhi


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int32, np.int64, np.uint64]
)
def test_mulhi_against_python_integers(dtype: type) -> None:
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    a = rng.integers(info.min, info.max, size=200, dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=200, dtype=dtype, endpoint=True)
    a[:3] = [info.min, info.max, info.max]
    b[:3] = [info.min, info.max, info.min]
    bits = info.bits
    got = mulhi(a, b)
    assert got.dtype == np.dtype(dtype)
    want = [(int(x) * int(y)) >> bits for x, y in zip(a, b)]  # floor shift of the exact product
    low = (1 << bits) - 1
    assert [int(g) & low for g in got] == [w & low for w in want]


def test_broadcast_ops_use_broadcast_dimensions() -> None:
    (r, c) = run(
        """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  %r = chlo.broadcast_add %x, %y {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  %c = chlo.broadcast_compare %x, %y {broadcast_dimensions = array<i64: 0>, comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi1>
  return %r, %c : tensor<2x3xf32>, tensor<2x3xi1>
}""",
        np.arange(6, dtype=np.float32).reshape(2, 3),
        np.array([10.0, 3.5], np.float32),
    )
    np.testing.assert_array_equal(r, np.arange(6).reshape(2, 3) + np.array([[10.0], [3.5]]))
    np.testing.assert_array_equal(c, np.arange(6).reshape(2, 3) > np.array([[10.0], [3.5]]))


def test_numpy_style_broadcast_without_dimensions() -> None:
    (r,) = run(
        """
func.func @main(%x: tensor<2x3xi32>, %y: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = chlo.broadcast_multiply %x, %y : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}""",
        np.ones((2, 3), np.int32),
        np.array([1, 2, 3], np.int32),
    )
    np.testing.assert_array_equal(r, [[1, 2, 3], [1, 2, 3]])


def _ragged_reference(lhs: np.ndarray, rhs: np.ndarray, sizes: list[int], mode: str) -> np.ndarray:
    ends = np.cumsum(sizes)
    starts = ends - np.array(sizes)
    if mode == "noncontracting":  # lhs [m, k], rhs [g, k, n]
        out = np.zeros((lhs.shape[0], rhs.shape[2]))
        for g, (s, e) in enumerate(zip(starts, ends)):
            out[s:e] = lhs[s:e] @ rhs[g]
        return out
    out = np.zeros((len(sizes), lhs.shape[0], rhs.shape[1]))  # lhs [m, k], rhs [k, n]
    for g, (s, e) in enumerate(zip(starts, ends)):
        out[g] = lhs[:, s:e] @ rhs[s:e]
    return out


def test_ragged_dot_noncontracting_and_contracting_modes() -> None:
    rng = np.random.default_rng(4)
    lhs = rng.standard_normal((7, 4))
    rhs = rng.standard_normal((3, 4, 5))
    got = ragged_dot(
        lhs,
        rhs,
        np.array([2, 4, 0]),
        lhs_batching_dimensions=[],
        rhs_batching_dimensions=[],
        lhs_contracting_dimensions=[1],
        rhs_contracting_dimensions=[1],
        lhs_ragged_dimensions=[0],
        rhs_group_dimensions=[0],
        result_element_type=np.float64,
    )
    np.testing.assert_allclose(got, _ragged_reference(lhs, rhs, [2, 4, 0], "noncontracting"))
    rhs2 = rng.standard_normal((4, 5))
    got2 = ragged_dot(
        lhs,
        rhs2,
        np.array([1, 3]),
        lhs_batching_dimensions=[],
        rhs_batching_dimensions=[],
        lhs_contracting_dimensions=[1],
        rhs_contracting_dimensions=[0],
        lhs_ragged_dimensions=[1],
        rhs_group_dimensions=[],
        result_element_type=np.float64,
    )
    np.testing.assert_allclose(got2, _ragged_reference(lhs, rhs2, [1, 3], "contracting"))


def test_scan_reverse_with_two_carries() -> None:
    (out, carry) = run(
        """
func.func @main(%x: tensor<2x4xi32>) -> (tensor<2x4xi32>, tensor<2xi32>) {
  %z = stablehlo.constant dense<0> : tensor<2xi32>
  %r:2 = chlo.scan(%x) inits(%z) dimension=1 attributes {is_reverse = true} {
  ^bb0(%a: tensor<2xi32>, %c: tensor<2xi32>):
    %s = stablehlo.add %a, %c : tensor<2xi32>
    stablehlo.return %s, %s : tensor<2xi32>, tensor<2xi32>
  } : (tensor<2x4xi32>, tensor<2xi32>) -> (tensor<2x4xi32>, tensor<2xi32>)
  return %r#0, %r#1 : tensor<2x4xi32>, tensor<2xi32>
}""",
        np.arange(8, dtype=np.int32).reshape(2, 4),
    )
    x = np.arange(8).reshape(2, 4)
    np.testing.assert_array_equal(out, np.cumsum(x[:, ::-1], axis=1)[:, ::-1])
    np.testing.assert_array_equal(carry, x.sum(1))


def test_top_k_and_unary_functions() -> None:
    (v, i, e) = run(
        """
func.func @main(%x: tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<5xf32>) {
  %r:2 = chlo.top_k(%x, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi32>)
  %e = chlo.erf %x : tensor<5xf32> -> tensor<5xf32>
  return %r#0, %r#1, %e : tensor<2xf32>, tensor<2xi32>, tensor<5xf32>
}""",
        np.array([0.5, 3.0, -1.0, 3.0, 2.0], np.float32),
    )
    np.testing.assert_array_equal(v, [3.0, 3.0])
    np.testing.assert_array_equal(i, [1, 3])
    import math

    np.testing.assert_allclose(e, [math.erf(t) for t in [0.5, 3.0, -1.0, 3.0, 2.0]], rtol=1e-6)
