"""Convolutions and long contractions (`impls/conv_plan.py`, `impls/contraction.py`: im2col and
one BLAS call in XLA's accumulation type) against XLA CPU (`jax.jit`), on the shapes whose
strategy differs: large 3x3 and strided stems, 1x1, dilated, grouped, depthwise, transposed
(lhs dilation, the input gradient) and batch-grouped (the kernel gradient), NCHW layouts, bf16,
f16 and complex; every comparison within a tolerance relative to the magnitudes summed, as the
sum order differs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")

from stablehlo_py.interpreter import run  # noqa: E402
from stablehlo_py.ir import parse  # noqa: E402

R = np.random.default_rng(2811)
NHWC = ("NHWC", "HWIO", "NHWC")


def _x(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    x = R.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * R.normal(size=shape)
    return x.astype(dtype)


def _conv(stride=(1, 1), pad="SAME", fgc=1, rdil=(1, 1), ldil=(1, 1), dims=NHWC, bgc=1):  # type: ignore[no-untyped-def]
    def fn(x, k):  # type: ignore[no-untyped-def]
        return jax.lax.conv_general_dilated(
            x, k, stride, pad, lhs_dilation=ldil, rhs_dilation=rdil, dimension_numbers=dims,
            feature_group_count=fgc, batch_group_count=bgc,
        )

    return fn


CASES = {
    "3x3 28x28x64 (576 terms, BLAS)": (_conv(), (_x(1, 28, 28, 64), _x(3, 3, 64, 64))),
    "7x7 stride 2 stem": (_conv((2, 2)), (_x(1, 32, 32, 3), _x(7, 7, 3, 16))),
    "1x1 projection": (_conv(), (_x(2, 14, 14, 64), _x(1, 1, 64, 96))),
    "3x3 rhs dilation 2": (_conv(rdil=(2, 2)), (_x(1, 20, 20, 32), _x(3, 3, 32, 16))),
    "grouped, 4 groups": (_conv(fgc=4), (_x(2, 12, 12, 64), _x(3, 3, 16, 32))),
    "depthwise (in order)": (_conv(fgc=32), (_x(2, 20, 20, 32), _x(3, 3, 1, 32))),
    "depthwise, multiplier 2": (_conv(fgc=16), (_x(1, 15, 15, 16), _x(5, 5, 1, 32))),
    "transposed (lhs dilation 2)": (
        _conv(pad=((2, 2), (2, 2)), ldil=(2, 2)), (_x(2, 10, 10, 48), _x(3, 3, 48, 24))),
    "batch groups (kernel gradient shape)": (
        _conv(pad="VALID", bgc=4, dims=("NHWC", "HWIO", "NHWC")), (_x(8, 9, 9, 40), _x(3, 3, 40, 8))),
    "NCHW/OIHW, stride 2, padded": (
        _conv((2, 2), ((1, 2), (0, 1)), dims=("NCHW", "OIHW", "NCHW")), (_x(2, 40, 15, 16), _x(24, 40, 3, 3))),
    "1-D, lhs dilation 3, asymmetric padding": (
        _conv((1,), ((3, 1),), ldil=(3,), rdil=(1,), dims=("NWC", "WIO", "NWC")), (_x(2, 30, 40), _x(4, 40, 8))),
    "3-D": (_conv((1, 2, 1), "SAME", rdil=(1, 1, 1), ldil=(1, 1, 1), dims=("NDHWC", "DHWIO", "NDHWC")), (_x(1, 6, 8, 7, 8), _x(2, 3, 3, 8, 8))),
    "bf16 3x3x64": (_conv(), (_x(1, 16, 16, 64, dtype=ml_dtypes.bfloat16), _x(3, 3, 64, 32, dtype=ml_dtypes.bfloat16))),
    "f16 3x3x64": (_conv(), (_x(1, 16, 16, 64, dtype=np.float16), _x(3, 3, 64, 32, dtype=np.float16))),
    "complex64 3x3x16": (_conv(), (_x(1, 10, 10, 16, dtype=np.complex64), _x(3, 3, 16, 8, dtype=np.complex64))),
}

# |ours - XLA| <= RTOL * (|lhs| conv |rhs|) + tiny: two sum orders in the accumulation type, and for
# narrow results one rounding each to the result type
RTOL = {"float32": 1e-5, "complex64": 1e-5, "bfloat16": 2**-7 + 1e-5, "float16": 2**-10 + 1e-5}


@pytest.mark.parametrize("name", sorted(CASES))
def test_convolution_matches_xla(name: str) -> None:
    fn, args = CASES[name]
    text = jax.jit(fn).lower(*args).as_text()
    (got,) = run(parse(text), *args)
    want = np.asarray(jax.jit(fn)(*args))
    assert got.shape == want.shape and got.dtype == want.dtype
    wide = np.complex128 if want.dtype.kind == "c" else np.float64
    magnitude_fn = jax.jit(lambda a, b: fn(a, b).astype(jnp.float32))
    magnitudes = np.asarray(magnitude_fn(*(np.abs(a.astype(wide)).astype(np.float32) for a in args)))
    err = np.abs(got.astype(wide) - want.astype(wide))
    excess = err - RTOL[str(want.dtype)] * magnitudes
    assert np.all(excess <= 1e-30), float(excess.max())


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_long_contractions_match_xlas_accumulation_type(dtype: type) -> None:
    """f32 sums in f32 as XLA's: within a few ULP per term of XLA's result (here often the same
    bits: both run a blocked GEMM), not the double-precision sum rounded once."""
    a, b = _x(64, 1024, dtype=dtype), _x(1024, 48, dtype=dtype)
    fn = lambda x, y: jnp.dot(x, y)  # noqa: E731
    (got,) = run(parse(jax.jit(fn).lower(a, b).as_text()), a, b)
    want = np.asarray(jax.jit(fn)(a, b))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    bound = np.abs(a.astype(wide)) @ np.abs(b.astype(wide)) * 1024 * np.finfo(dtype).eps
    assert got.dtype == want.dtype
    assert np.all(np.abs(got.astype(wide) - want.astype(wide)) <= bound)
