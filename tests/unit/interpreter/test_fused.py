"""fused.py: correctly rounded fma (f32, f64) against exact rational arithmetic, and the complex
product XLA CPU computes with it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from stablehlo_py.semantics import elementwise as E
from stablehlo_py.semantics import fused


def _round(value: Fraction, dtype) -> np.generic:
    """``value`` rounded to nearest-even in ``dtype`` (checked among the f64 rounding's neighbours)."""
    guess = np.asarray(float(value)).astype(dtype)
    cands = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    bits = np.dtype(f"i{np.dtype(dtype).itemsize}")
    return min(
        cands, key=lambda q: (abs(Fraction(float(q)) - value), int(np.asarray(q).view(bits)) & 1)
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_is_correctly_rounded(dtype):
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.normal(size=n).astype(dtype)
    b = rng.normal(size=n).astype(dtype)
    c = (-(a * b) * (1 + rng.normal(size=n) * 1e-6)).astype(dtype)  # heavy cancellation
    c[: n // 2] = rng.normal(size=n // 2).astype(dtype)
    got = fused.fma(a, b, c)
    want = np.array(
        [
            _round(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)), dtype)
            for x, y, z in zip(a, b, c)
        ],
        dtype=dtype,
    )
    assert got.dtype == np.dtype(dtype)
    assert np.array_equal(got, want)
    assert not np.array_equal(a * b + c, want)  # the plain expression rounds twice


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_specials_follow_ieee(dtype):
    inf, nan = dtype(np.inf), dtype(np.nan)
    a = np.array([0.0, -0.0, 1.0, inf, 1.0, 2.0], dtype)
    b = np.array([5.0, 5.0, -1.0, 0.0, nan, dtype(np.finfo(dtype).max)], dtype)
    c = np.array([-0.0, -0.0, 1.0, 1.0, 1.0, 0.0], dtype)
    out = fused.fma(a, b, c)
    assert out[0] == 0 and not np.signbit(out[0])  # +0 + -0
    assert out[1] == 0 and np.signbit(out[1])  # -0 + -0
    assert out[2] == 0 and not np.signbit(out[2])  # exact cancellation is +0
    assert np.isnan(out[3]) and np.isnan(out[4]) and out[5] == inf


def test_fma_f32_where_rounding_through_f64_would_round_twice():
    # (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is an f32 midpoint; +-2^-100 decides the rounding, which
    # an f64 sum loses (it rounds back onto the midpoint, then ties to even)
    a = np.array([1 + 2**-12] * 2, np.float32)
    c = np.array([2.0**-100, -(2.0**-100)], np.float32)
    got = fused.fma(a, a, c)
    assert got.tolist() == [1 + 2**-11 + 2**-23, 1 + 2**-11]
    assert (a.astype(np.float64) * a + c).astype(np.float32).tolist() == [1 + 2**-11] * 2
    scalar = fused.fma(a[0], a[0], c[0])  # 0-d operands take the same correction
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and scalar == got[0]


def test_fma_refuses_other_types():
    with pytest.raises(TypeError, match="float32 and float64"):
        fused.fma(np.ones(2, np.float16), np.ones(2, np.float16), np.ones(2, np.float16))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_multiply_is_the_fused_formula(dtype):
    rng = np.random.default_rng(1)
    z = (rng.normal(size=500) + 1j * rng.normal(size=500)).astype(dtype)
    w = (rng.normal(size=500) + 1j * rng.normal(size=500)).astype(dtype)
    got = E.multiply(z, w)
    assert got.dtype == np.dtype(dtype)
    assert np.array_equal(got.real, fused.fma(z.real, w.real, -(z.imag * w.imag)))
    assert np.array_equal(got.imag, fused.fma(z.imag, w.real, z.real * w.imag))
    np.testing.assert_allclose(
        got, z.astype(np.complex128) * w, rtol=1e-6 if dtype == np.complex64 else 1e-15
    )


def test_complex64_fast_product_is_the_general_one_bit_for_bit(monkeypatch):
    """`_complex64_multiply` (parts in f64 from the start) gives the bits of the general path
    (one fma pass over both parts), on ordinary values, values near f32 rounding boundaries,
    subnormal and overflowing products, and infinities, zeros and NaNs."""
    rng = np.random.default_rng(5)
    special = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, 1.17e-38, 1.0, -1.0],
        dtype=np.float32,
    )

    def pair(n, trial):
        if trial % 3 == 0:  # short mantissas: exact products, sums on rounding boundaries
            ints = rng.integers(-(2**12), 2**12, size=(4, n)).astype(np.float32)
            parts = ints * np.array([2.0**-20, 2.0**-20, 1.0, 1.0], dtype=np.float32)[:, None]
        else:
            scale = np.float32(10.0) ** rng.integers(-30, 30, size=(4, n)).astype(np.float32)
            parts = rng.normal(size=(4, n)).astype(np.float32) * scale
            if trial % 3 == 2:
                mask = rng.random(parts.shape) < 0.2
                parts[mask] = rng.choice(special, size=int(mask.sum()))
        lhs = (parts[0] + 1j * parts[1]).astype(np.complex64)
        rhs = (parts[2] + 1j * parts[3]).astype(np.complex64)
        return lhs, rhs

    with np.errstate(all="ignore"):
        for trial in range(60):
            lhs, rhs = pair(257, trial)
            fast = fused.complex_multiply(lhs, rhs)
            with monkeypatch.context() as m:
                m.setattr(fused, "_complex64_multiply", lambda *a: None)
                general = fused.complex_multiply(lhs, rhs)
            assert fast.dtype == general.dtype == np.complex64
            assert fast.tobytes() == general.tobytes()
