"""Programs the reducer's tests shrink: small texts, and a large builder-made model with one op
that serialization to 1.0.0 refuses (``stablehlo.tan``, new in 1.4.0)."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, call, tensor
from stablehlo_py.builder import stablehlo as hlo


def _helper(x):
    y = hlo.multiply(x, x)
    return hlo.subtract(hlo.add(y, x), 0.25)


def _tan_helper(x):
    return hlo.add(hlo.tan(x), x)


_DOT = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
_ROWS = tensor((4, 8), "f32")


def _layer(h, w, i: int, tan: str | None):
    y = hlo.dot_general(h, w, dot_dimension_numbers=_DOT)
    bias = hlo.constant(np.linspace(0, 1, 8, dtype=np.float32) * (i % 7))
    y = hlo.add(y, hlo.broadcast_in_dim(bias, broadcast_dimensions=[1], result_type=_ROWS))
    if tan == "layer":
        y = hlo.tan(y)
    else:
        y = call(_tan_helper, y) if tan == "call" else hlo.tanh(y)
    t = hlo.reshape(hlo.transpose(y, permutation=[1, 0]), result_type=_ROWS)
    h = hlo.add(hlo.multiply(t, 0.5), y)
    if i % 10 == 3:
        h = call(_helper, h)
    if i % 15 == 7:
        s = hlo.reduce(h, 0.0, body=hlo.add, dimensions=[0])
        h = hlo.add(h, hlo.broadcast_in_dim(s, broadcast_dimensions=[1], result_type=_ROWS))
    if i % 25 == 11 or tan == "while":

        def body(k, x):
            return hlo.add(k, 1), hlo.multiply(hlo.tan(x) if tan == "while" else x, 0.9)

        _, h = hlo.while_(
            [hlo.constant(np.int32(0)), h], cond=lambda k, x: hlo.compare(k, 3, "LT"), body=body
        )
    return h


def layered_model(layers: int, tan_at: int | None, tan_in: str = "layer") -> Module:
    """``layers`` dense layers (about 12 ops each: dot_general, bias, tanh, transpose, reshape,
    scaling, with a call, a reduce or a while now and then) returning the last activation and its
    column sums; layer ``tan_at`` has a ``tan``: instead of ``tanh`` (``tan_in="layer"``), in a
    function it calls (``"call"``) or in the body of a while loop (``"while"``)."""
    m = Module()

    @m.func(tensor((4, 8), "f32"), tensor((8, 8), "f32"))
    def main(x, w):
        h = x
        for i in range(layers):
            h = _layer(h, w, i, tan_in if i == tan_at else None)
        return h, hlo.reduce(h, 0.0, body=hlo.add, dimensions=[0])

    return m
