"""CHLO ops, built with stablehlo_py.builder: special functions (``erf``, ``erf_inv``, ``lgamma``,
``digamma``, ``bessel_i1e``), hyperbolic and inverse trigonometric functions, and the broadcasting
binary ops with numpy-style rank broadcasting (``broadcast_add``, ``broadcast_multiply``,
``broadcast_compare``, ``broadcast_select``).

    python examples/chlo_ops.py

The interpreter runs CHLO as it is; CHLO has no portable form (VHLO does not version it), so
``m.lower()`` turns it into StableHLO before the module is serialized for XLA or IREE
(``tests/oracle/test_builder_consumers.py``).  The script checks the interpreter against numpy and
scipy's special functions.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo

N = 16


def build() -> Module:
    m = Module("chlo_ops")

    @m.func(
        tensor((N,), "f32"),
        tensor((N,), "f32"),
        tensor((3, 1), "f32"),
        tensor((4,), "f32"),
        name="main",
    )
    def special(x, positive, column, row):
        unit = hlo.tanh(x)  # in (-1, 1), for erf_inv, atanh and asin
        table = chlo.broadcast_add(column, row)  # (3, 1) + (4,) -> (3, 4), numpy's rule
        scaled = chlo.broadcast_multiply(table, row, broadcast_dimensions=[1])
        bigger = chlo.broadcast_compare(table, row, comparison_direction="GT")
        picked = chlo.broadcast_select(bigger, table, scaled)
        return (
            chlo.erf(x),
            chlo.erf_inv(unit),
            chlo.lgamma(positive),
            chlo.digamma(positive),
            chlo.bessel_i1e(x),
            chlo.sinh(x),
            chlo.atanh(unit),
            chlo.asin(unit),
            chlo.tan(unit),
            picked,
        )

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(13)
    x = rng.uniform(-3, 3, N).astype(np.float32)
    positive = rng.uniform(0.1, 6, N).astype(np.float32)
    column = rng.standard_normal((3, 1)).astype(np.float32)
    row = rng.standard_normal(4).astype(np.float32)
    return x, positive, column, row


def numpy_special(x, positive, column, row):  # type: ignore[no-untyped-def]
    from scipy import special

    unit = np.tanh(x)
    table = column + row
    picked = np.where(table > row, table, table * row)
    return (
        special.erf(x),
        special.erfinv(unit),
        special.gammaln(positive),
        special.digamma(positive),
        special.i1e(x),
        np.sinh(x),
        np.arctanh(unit),
        np.arcsin(unit),
        np.tan(unit),
        picked,
    )


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_special(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
