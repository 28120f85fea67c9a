"""CHLO ops built with the builder (their own inference rules), run by the interpreter."""

from __future__ import annotations

import math

import numpy as np

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program


def test_chlo_math_broadcasting_and_top_k() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((3,), "f32"))
    def main(x, row):
        e = chlo.erf(x)
        lg = chlo.lgamma(hlo.add(hlo.abs(x), 1.0))
        b = chlo.broadcast_add(x, row)  # numpy-style broadcasting: result type inferred as 2x3
        bd = chlo.broadcast_multiply(x, row, broadcast_dimensions=[1])
        values, indices = chlo.top_k(x, k=2)
        return e, lg, b, bd, values, indices, chlo.is_inf(x)

    x = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]], np.float32)
    row = np.array([1, 2, 3], np.float32)
    erf = np.vectorize(math.erf)(x).astype(np.float32)
    lg = np.vectorize(math.lgamma)(np.abs(x) + 1).astype(np.float32)
    order = np.argsort(-x, axis=1, kind="stable")[:, :2]
    expected = [
        erf,
        lg,
        x + row,
        x * row,
        np.take_along_axis(x, order, 1),
        order.astype(np.int32),
        np.isinf(x),
    ]
    text = check_program(m, [x, row], expected, rtol=1e-5, atol=1e-6, artifact=False)
    assert (
        "chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"
        in text
    )
