"""Quantization ops built with the builder: uniform_quantize, uniform_dequantize, and an add on
quantized tensors (types written as MLIR text)."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

Q = "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-2>>"


def test_quantize_add_dequantize() -> None:
    m = Module()

    @m.func(tensor((4,), "f32"), tensor((4,), "f32"))
    def main(x, y):
        qx = hlo.uniform_quantize(x, result_type=Q)
        qy = hlo.uniform_quantize(y, result_type=Q)
        return hlo.uniform_dequantize(hlo.add(qx, qy))  # add's type and dequantize's are inferred

    x = np.array([0.5, 1.0, -3.0, 10.0], np.float32)
    y = np.array([1.0, 0.25, 2.0, 60.0], np.float32)

    def q(v):  # the spec's uniform quantization: round to nearest even, clamp to i8
        return np.clip(np.round(v / np.float32(0.5)) + -2, -128, 127)

    total = np.clip(q(x) + q(y) - -2, -128, 127)
    expected = ((total - -2) * np.float32(0.5)).astype(np.float32)
    text = check_program(m, [x, y], [expected])
    assert f"-> {Q}" in text
