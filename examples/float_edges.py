"""Floating-point edge cases, built with stablehlo_py.builder: NaN, infinities, signed zeros, ties
in rounding and a huge argument, through elementwise ops whose results the spec fixes there (IEEE
754's ``maximum``, ``remainder``, ``sqrt``, ``atan2``, ``pow``, ``cbrt``, ``sin``, ...), a
total-order comparison and a total-order sort.

    python examples/float_edges.py

Left out on purpose: subnormal numbers (XLA and IREE on the CPU flush them to zero; see
``tests/differential/xla_deviations.py``) and float-to-integer conversion of values out of range
(implementation-defined in the spec).  The script checks the interpreter against numpy;
``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE, and names where IREE differs.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

X = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.5, 2.5, 0.5, -3.0, 3e38, -7.0]
Y = [1.0, 0.0, -0.0, np.nan, 5.0, np.nan, 2.5, -2.5, -0.5, 2.0, 3e38, 7.0]
N = len(X)

RESULTS = (
    "maximum",
    "minimum",
    "round_nearest_even",
    "round_nearest_afz",
    "sign",
    "remainder",
    "sqrt",
    "log",
    "compare_totalorder",
    "sort_totalorder",
    "atan2",
    "power",
    "cbrt",
    "sine",
    "cosine",
    "tan",
)
"""The results of ``main``, in order (tests name deviations by these)."""


def build() -> Module:
    m = Module("float_edges")

    @m.func(tensor((N,), "f32"), tensor((N,), "f32"), name="main")
    def edges(x, y):
        def total_less(a, b):
            return hlo.compare(a, b, "LT", compare_type="TOTALORDER")

        sorted_x = hlo.sort([x], dimension=0, comparator=total_less)
        return (
            hlo.maximum(x, y),  # NaN if either is NaN; maximum(-0, +0) = +0
            hlo.minimum(x, y),
            hlo.round_nearest_even(x),  # 2.5 -> 2, -2.5 -> -2
            hlo.round_nearest_afz(x),  # 2.5 -> 3, -2.5 -> -3
            hlo.sign(x),  # keeps -0.0 and NaN
            hlo.remainder(x, y),  # fmod: the dividend's sign
            hlo.sqrt(x),  # sqrt(-0.0) = -0.0
            hlo.log(x),
            total_less(x, y),  # -0.0 < 0.0, NaN above +inf
            sorted_x,
            hlo.atan2(x, y),  # atan2(-0, +0) = -0, atan2(+0, -0) = pi
            hlo.power(x, y),  # pow(+-0, +-0) = 1, pow(-3, 2) = 9, pow(-inf, 5) = -inf
            hlo.cbrt(x),  # cbrt(-inf) = -inf
            hlo.sine(x),  # sin(3e38) is an ordinary number in [-1, 1]
            hlo.cosine(x),
            hlo.tan(x),
        )

    return m


def inputs() -> tuple[np.ndarray, ...]:
    return np.array(X, np.float32), np.array(Y, np.float32)


def numpy_edges(x, y):  # type: ignore[no-untyped-def]
    def total_key(v):  # type: ignore[no-untyped-def]
        """An integer with the order of IEEE 754's totalOrder (for f32)."""
        bits = v.view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF) - 1, bits)

    both_zero = (x == 0) & (y == 0)  # numpy's maximum/minimum of two zeros is either one
    with np.errstate(all="ignore"):
        return (
            np.where(
                both_zero, np.where(np.signbit(x) & np.signbit(y), -0.0, 0.0), np.maximum(x, y)
            ),
            np.where(
                both_zero, np.where(np.signbit(x) | np.signbit(y), -0.0, 0.0), np.minimum(x, y)
            ),
            np.round(x),
            np.where(np.abs(x - np.trunc(x)) == 0.5, x + np.copysign(0.5, x), np.round(x)),
            np.where(x == 0, x, np.sign(x)),
            np.fmod(x, y),
            np.sqrt(x),
            np.log(x),
            total_key(x) < total_key(y),
            x[np.argsort(total_key(x), kind="stable")],
            np.arctan2(x, y),
            np.power(x, y),
            np.cbrt(x),
            np.sin(x),
            np.cos(x),
            np.tan(x),
        )


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for name, got, want in zip(RESULTS, m.run(*inputs()), numpy_edges(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)
        signs = np.signbit(np.asarray(got)) == np.signbit(np.asarray(want))
        assert signs[~np.isnan(np.asarray(want, np.float64))].all(), name  # signed zeros too
