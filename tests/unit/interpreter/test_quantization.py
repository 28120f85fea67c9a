"""uniform_quantize / uniform_dequantize (values from interpret/quantized_ops.mlir)."""

from __future__ import annotations

import numpy as np

from stablehlo_py.semantics.quantization import uniform_dequantize, uniform_quantize

F32 = np.float32


def test_per_axis_quantize_conformance():
    # tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
    out = uniform_quantize(np.array([4.0, 15.0], F32), np.array([0.1, 0.5], F32), [-30, -20], -128, 127, 0,
                           storage_type=np.int8)
    assert out.dtype == np.int8 and out.tolist() == [10, 10]


def test_requantize_conformance():
    deq = uniform_dequantize(np.array([10, 10], np.int8), np.array([0.1, 0.5], F32), [-30, -20], -128, 127, 0)
    assert deq.dtype == F32 and np.allclose(deq, [4.0, 15.0])
    out = uniform_quantize(deq, np.array([0.1, 0.2], F32), [-20, -30], -128, 127, 0, storage_type=np.int8)
    assert out.tolist() == [20, 45]


def test_per_tensor_quantize_clamps_and_rounds_half_even():
    out = uniform_quantize(np.array([1.0, 3.0, 0.25, 0.75, 1000.0, -1000.0], F32), F32(0.5), 0, -128, 127)
    assert out.dtype == np.int8 and out.tolist() == [2, 6, 0, 2, 127, -128]
    qadd = uniform_quantize(np.array([1.0, 2.0], F32), F32(0.1), -30, -128, 127)
    assert qadd.tolist() == [-20, -10]


def test_dequantize_is_exact_for_extreme_zero_points():
    out = uniform_dequantize(np.array([127, -128], np.int8), F32(1.0), -128, -128, 127)
    assert out.tolist() == [255.0, 0.0]
