"""`stablehlo-ext-refine-shapes` (XLA's refine-shapes with the experimental custom calls)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes.registry import PASSES

from stablehlo_py.ir import parse, print_ir

REDUCE_WINDOW = """
func.func @main(%arg0: tensor<4x6xf32>) -> tensor<?x?xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %dims = stablehlo.constant dense<[1, 3]> : tensor<2xi64>
  %ones = stablehlo.constant dense<1> : tensor<2xi64>
  %pad = stablehlo.constant dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %init, %dims, %ones, %ones, %ones, %pad)
    {called_computations = [@body]} : (tensor<4x6xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2x2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func private @body(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
"""

RNG = """
func.func @main(%state: tensor<2xui64>) -> (tensor<2xui64>, tensor<?x3xui32>) {
  %shape = stablehlo.constant dense<[5, 3]> : tensor<2xi64>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%state, %shape)
    {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi64>) -> (tensor<2xui64>, tensor<?x3xui32>)
  return %0#0, %0#1 : tensor<2xui64>, tensor<?x3xui32>
}
"""

TOP_K = """
func.func @main(%arg0: tensor<3x7xf32>) -> (tensor<3x?xf32>, tensor<3x?xi32>) {
  %k = stablehlo.constant dense<2> : tensor<i64>
  %0:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%arg0, %k) : (tensor<3x7xf32>, tensor<i64>) -> (tensor<3x?xf32>, tensor<3x?xi32>)
  return %0#0, %0#1 : tensor<3x?xf32>, tensor<3x?xi32>
}
"""


def _refine(text: str, name: str = "stablehlo-ext-refine-shapes") -> str:
    return print_ir(PASSES[name].run(parse(text), {}))


def test_dynamic_reduce_window_takes_reduce_window_inference() -> None:
    out = _refine(REDUCE_WINDOW)
    assert "-> tensor<4x6xf32>" in out and "return %0 : tensor<4x6xf32>" in out
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (got,) = run(parse(out), x)
    padded = np.pad(x, ((0, 0), (2, 0)))
    want = padded[:, 0:6] + padded[:, 1:7] + padded[:, 2:8]  # a cumulative sum over 3
    np.testing.assert_allclose(got, want)


def test_dynamic_rng_bit_generator_takes_output_shape() -> None:
    out = _refine(RNG)
    assert "(tensor<2xui64>, tensor<5x3xui32>)" in out


def test_dynamic_top_k_takes_k() -> None:
    out = _refine(TOP_K)
    assert "-> (tensor<3x2xf32>, tensor<3x2xi32>)" in out


@pytest.mark.parametrize("text", [REDUCE_WINDOW, RNG, TOP_K])
def test_upstream_refine_shapes_leaves_them_dynamic(text: str) -> None:
    """Upstream's pass has no refinement for these custom calls (XLA's extension adds them)."""
    assert "?" in _refine(text, "stablehlo-refine-shapes")


def test_non_constant_window_is_left_alone() -> None:
    text = REDUCE_WINDOW.replace(
        "%dims = stablehlo.constant dense<[1, 3]> : tensor<2xi64>",
        "%d0 = stablehlo.constant dense<[1, 3]> : tensor<2xi64>\n  %dims = stablehlo.abs %d0 : tensor<2xi64>",
    )
    assert "tensor<?x?xf32>" in _refine(text)
