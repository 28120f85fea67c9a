"""Impl wrappers: uniform_quantize/dequantize and dequantize -> op -> quantize for other ops."""

from __future__ import annotations

import numpy as np
from stablehlo_py.interpreter import run

Q1 = "!quant.uniform<i8:f32, 0.5:-20>"
QA = "!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>"


def test_quantize_dequantize_and_requantize() -> None:
    (q, back, rq) = run(
        f"""
func.func @main(%x: tensor<2xf32>) -> (tensor<2xi8>, tensor<2xf32>, tensor<2xi8>) {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{QA}>
  %b = stablehlo.uniform_dequantize %q : (tensor<2x{QA}>) -> tensor<2xf32>
  %r = stablehlo.uniform_quantize %q : (tensor<2x{QA}>) -> tensor<2x{Q1}>
  %qi = stablehlo.bitcast_convert %q : (tensor<2x{QA}>) -> tensor<2xi8>
  %ri = stablehlo.bitcast_convert %r : (tensor<2x{Q1}>) -> tensor<2xi8>
  return %qi, %b, %ri : tensor<2xi8>, tensor<2xf32>, tensor<2xi8>
}}""",
        np.array([4.0, 15.0], np.float32),
    )
    np.testing.assert_array_equal(q, [10, 10])  # 4/0.1 - 30, 15/0.5 - 20
    np.testing.assert_allclose(back, [4.0, 15.0], rtol=1e-6)
    np.testing.assert_array_equal(rq, [-12, 10])  # 4/0.5 - 20, 15/0.5 - 20


def test_elementwise_ops_on_quantized_tensors_dequantize_op_quantize() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<3xf32>) -> tensor<3xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x{Q1}>
  %m = stablehlo.multiply %q, %q : tensor<3x{Q1}>
  %i = stablehlo.bitcast_convert %m : (tensor<3x{Q1}>) -> tensor<3xi8>
  return %i : tensor<3xi8>
}}""",
        np.array([1.0, 2.0, -3.0], np.float32),
    )
    np.testing.assert_array_equal(r, np.array([1.0, 4.0, 9.0]) / 0.5 - 20)


def test_data_movement_on_quantized_tensors_moves_storage() -> None:
    (r,) = run(
        f"""
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xi8> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x{Q1}>
  %t = stablehlo.transpose %q, dims = [1, 0] : (tensor<2x2x{Q1}>) -> tensor<2x2x{Q1}>
  %i = stablehlo.bitcast_convert %t : (tensor<2x2x{Q1}>) -> tensor<2x2xi8>
  return %i : tensor<2x2xi8>
}}""",
        np.array([[0.0, 1.0], [2.0, 3.0]], np.float32),
    )
    np.testing.assert_array_equal(
        r, (np.array([[0.0, 2.0], [1.0, 3.0]]) / 0.5 - 20).astype(np.int8)
    )


def test_region_ops_on_quantized_tensors_run_their_body_on_quantized_elements() -> None:
    """More in test_quantized_regions.py."""
    (r,) = run(
        f"""
func.func @main(%x: tensor<2xf32>) -> tensor<{Q1}> {{
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{Q1}>
  %z = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x{Q1}>
  %s = stablehlo.slice %z [0:1] : (tensor<2x{Q1}>) -> tensor<1x{Q1}>
  %i = stablehlo.reshape %s : (tensor<1x{Q1}>) -> tensor<{Q1}>
  %r = stablehlo.reduce(%q init: %i) applies stablehlo.add across dimensions = [0] : (tensor<2x{Q1}>, tensor<{Q1}>) -> tensor<{Q1}>
  return %r : tensor<{Q1}>
}}""",
        np.array([1.0, 2.0], np.float32),
    )
    assert int(r) == -12  # 1 + 1 + 2 = 4.0 -> 4 / 0.5 - 20
