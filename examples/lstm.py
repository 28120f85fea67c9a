"""An LSTM over a sequence, built with stablehlo_py.builder: a ``while`` loop over the time steps
carrying the step counter, the hidden and cell states and the buffer of all hidden states.

    python examples/lstm.py

Exercises ``while_``, ``dynamic_slice`` (the step's input) and ``dynamic_update_slice`` (the
step's output), ``slice`` (the four gates), ``logistic``, ``tanh`` and ``dot_general``.  The
script checks the interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs it on
XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo

STEPS, BATCH, IN, HIDDEN = 5, 2, 3, 4


def matmul(a, b):  # type: ignore[no-untyped-def]
    return hlo.dot_general(
        a, b, {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
    )


def gate(z, k):  # type: ignore[no-untyped-def]
    """The k-th of the four gate blocks of z (BATCH x 4*HIDDEN)."""
    return hlo.slice(z, [0, k * HIDDEN], [BATCH, (k + 1) * HIDDEN], [1, 1])


def build() -> Module:
    m = Module("lstm")

    @m.func(
        tensor((STEPS, BATCH, IN), "f32"),
        tensor((IN, 4 * HIDDEN), "f32"),
        tensor((HIDDEN, 4 * HIDDEN), "f32"),
        tensor((4 * HIDDEN,), "f32"),
        tensor((BATCH, HIDDEN), "f32"),
        tensor((BATCH, HIDDEN), "f32"),
        name="main",
    )
    def lstm(xs, wx, wh, b, h0, c0):
        # issue 26: a Python number used as an index takes the operand's element type (f32) today,
        # so the zero indices are i32 constants made by hand.
        zero = constant(0)  # tensor<i32>

        def cond(t, h, c, hs):
            return hlo.compare(t, STEPS, "LT")

        def body(t, h, c, hs):
            x_t = hlo.dynamic_slice(xs, [t, zero, zero], slice_sizes=[1, BATCH, IN])
            x_t = hlo.reshape(x_t, result_type=tensor((BATCH, IN), "f32"))
            z = hlo.add(matmul(x_t, wx), matmul(h, wh))
            z = hlo.add(z, hlo.broadcast_in_dim(b, [1], result_type=z.type))
            i, f = hlo.logistic(gate(z, 0)), hlo.logistic(gate(z, 1))
            g, o = hlo.tanh(gate(z, 2)), hlo.logistic(gate(z, 3))
            c_new = hlo.add(hlo.multiply(f, c), hlo.multiply(i, g))
            h_new = hlo.multiply(o, hlo.tanh(c_new))
            row = hlo.reshape(h_new, result_type=tensor((1, BATCH, HIDDEN), "f32"))
            hs_new = hlo.dynamic_update_slice(hs, row, [t, zero, zero])
            return hlo.add(t, 1), h_new, c_new, hs_new

        buffer = hlo.broadcast_in_dim(
            constant(np.float32(0)), [], result_type=tensor((STEPS, BATCH, HIDDEN), "f32")
        )
        _, h, c, hs = hlo.while_([zero, h0, c0, buffer], cond=cond, body=body)
        return hs, h, c

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((STEPS, BATCH, IN)).astype(np.float32)
    wx = (rng.standard_normal((IN, 4 * HIDDEN)) / 2).astype(np.float32)
    wh = (rng.standard_normal((HIDDEN, 4 * HIDDEN)) / 2).astype(np.float32)
    b = (0.1 * rng.standard_normal(4 * HIDDEN)).astype(np.float32)
    h0 = np.zeros((BATCH, HIDDEN), np.float32)
    c0 = (0.1 * rng.standard_normal((BATCH, HIDDEN))).astype(np.float32)
    return xs, wx, wh, b, h0, c0


def numpy_lstm(xs, wx, wh, b, h, c):  # type: ignore[no-untyped-def]
    def sigmoid(v):  # type: ignore[no-untyped-def]
        return 1 / (1 + np.exp(-v))

    hs = []
    for x in xs:
        z = x @ wx + h @ wh + b
        i, f, g, o = (z[:, k * HIDDEN : (k + 1) * HIDDEN] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        hs.append(h)
    return np.stack(hs), h, c


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_lstm(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
