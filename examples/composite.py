"""Composites, built with stablehlo_py.builder: a two-layer network whose activation is a
``stablehlo.composite "example.gelu"`` (tanh approximation), with its decomposition written as a
Python function and its attribute ``approximate = true``, used by both layers.

    python examples/composite.py

A consumer that knows ``example.gelu`` may replace it with its own kernel; the others (the
interpreter, XLA, IREE) run the decomposition.  The script checks the interpreter against numpy;
``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

ROWS, DIM = 4, 8
SQRT_2_OVER_PI = float(np.sqrt(2 / np.pi))


def gelu_decomposition(x):  # type: ignore[no-untyped-def]
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))"""
    cube = hlo.multiply(hlo.multiply(x, x), x)
    inner = hlo.multiply(hlo.add(x, hlo.multiply(cube, 0.044715)), SQRT_2_OVER_PI)
    return hlo.multiply(hlo.multiply(x, 0.5), hlo.add(hlo.tanh(inner), 1.0))


def gelu(x):  # type: ignore[no-untyped-def]
    # every composite of this callable on the same types shares one function (@example.gelu)
    return hlo.composite(
        [x],
        name="example.gelu",
        composite_attributes={"approximate": True},
        decomposition=gelu_decomposition,
        version=1,
    )


def build() -> Module:
    m = Module("composite")

    @m.func(
        tensor((ROWS, DIM), "f32"),
        tensor((DIM, DIM), "f32"),
        tensor((DIM, DIM), "f32"),
        name="main",
    )
    def mlp(x, w1, w2):
        dims = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
        h = gelu(hlo.dot_general(x, w1, dims))
        return gelu(hlo.dot_general(h, w2, dims))

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((ROWS, DIM)).astype(np.float32)
    w1 = (rng.standard_normal((DIM, DIM)) / np.sqrt(DIM)).astype(np.float32)
    w2 = (rng.standard_normal((DIM, DIM)) / np.sqrt(DIM)).astype(np.float32)
    return x, w1, w2


def numpy_mlp(x, w1, w2):  # type: ignore[no-untyped-def]
    def g(v):  # type: ignore[no-untyped-def]
        return 0.5 * v * (1 + np.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v**3)))

    return (g(g(x @ w1) @ w2),)


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_mlp(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
