"""Mixed precision, built with stablehlo_py.builder: a bf16 matrix product accumulated into f32
(``result_type=`` asks for the wider result, as JAX's ``preferred_element_type``), the same
product in bf16, f16 elementwise ops, a bf16 reduction and conversions between the three types.

    python examples/mixed_precision.py

Sums in bf16 are rounded after every addition here, as XLA does (the spec leaves the order of a
reduction to the implementation; IREE adds in f32 and rounds once, 2 ulps away at most here, within
the bf16 tolerance of ``tests/oracle/consumers.py``).  The script checks the interpreter against
numpy with ml_dtypes; ``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

ROWS, INNER, COLS = 4, 8, 3
BF16 = ml_dtypes.bfloat16


def build() -> Module:
    m = Module("mixed_precision")

    @m.func(
        tensor((ROWS, INNER), "bf16"),
        tensor((INNER, COLS), "bf16"),
        tensor((ROWS, COLS), "f16"),
        name="main",
    )
    def mixed(x, w, h):
        dims = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
        wide = hlo.dot_general(x, w, dims, result_type=tensor((ROWS, COLS), "f32"))
        narrow = hlo.dot_general(x, w, dims)  # bf16 result
        as_f16 = hlo.convert(narrow, "f16")
        return (
            wide,
            narrow,
            hlo.add(as_f16, h),
            hlo.exponential(h),
            hlo.divide(h, hlo.add(hlo.abs(h), 1.0)),
            hlo.tanh(x),
            hlo.reduce(x, 0.0, dimensions=[1], body=hlo.add),  # bf16 sums
            hlo.convert(wide, "bf16"),
        )

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((ROWS, INNER)).astype(BF16)
    w = rng.standard_normal((INNER, COLS)).astype(BF16)
    h = rng.standard_normal((ROWS, COLS)).astype(np.float16)
    return x, w, h


def numpy_mixed(x, w, h):  # type: ignore[no-untyped-def]
    wide = x.astype(np.float32) @ w.astype(np.float32)
    narrow = wide.astype(BF16)
    sums = np.zeros(ROWS, BF16)
    for k in range(INNER):  # rounded to bf16 after every addition
        sums = (sums.astype(np.float32) + x[:, k].astype(np.float32)).astype(BF16)
    return (
        wide,
        narrow,
        narrow.astype(np.float16) + h,
        np.exp(h),
        h / (np.abs(h) + np.float16(1)),
        np.tanh(x.astype(np.float32)).astype(BF16),
        sums,
        narrow,
    )


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_mixed(*inputs())):
        np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=1e-2)
