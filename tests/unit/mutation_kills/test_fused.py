"""stablehlo_py/semantics/fused.py: fma against exact rational arithmetic (``fractions``; Python's
int / int division is correctly rounded, and f32 rounding is worked out on the exact value), in
the ranges the focused tests leave out -- f32 sums in the subnormal range, exact zeros and their
signs, wide exponent spreads in f64 -- and the complex product in every layout (same shape,
broadcast, complex128, NaN operands)."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pytest

from stablehlo_py.semantics import fused
from tests.unit.mutation_kills.test_semantics_rest import _round_fraction


def _exact(a, b, c) -> Fraction:
    return Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))


def _want(a, b, c, dtype) -> np.ndarray:
    out = []
    for x, y, z in zip(a.ravel(), b.ravel(), c.ravel()):
        q = _exact(x, y, z)
        v = _round_fraction(q, np.float32) if dtype == np.float32 else float(q)
        out.append(v)
    return np.array(out, dtype).reshape(a.shape)


def test_fma32_sums_in_the_subnormal_range() -> None:
    rng = np.random.default_rng(21)
    n = 400
    # products around 2**-140 .. 2**-120 (exact in f64), addends f32 subnormals or tiny normals
    a = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-75, -60, n)).astype(np.float32)
    b = (rng.uniform(1, 2, n) * 2.0 ** rng.integers(-65, -55, n)).astype(np.float32)
    c = (rng.uniform(-1, 1, n) * 2.0 ** rng.integers(-149, -120, n)).astype(np.float32)
    c[::5] = -(a[::5].astype(np.float64) * b[::5]).astype(np.float32)  # near-cancellation
    got = fused.fma(a, b, c)
    want = _want(a, b, c, np.float32)
    assert got.dtype == np.float32
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_fma32_subnormal_result_where_the_f64_sum_rounds_onto_a_midpoint() -> None:
    # p = (1 + 2**-15)(1 - 2**-15) 2**-150 = 2**-150 - 2**-180; c = (2**22 + 1) 2**-149, a subnormal.
    # c + p lies just below the f32 midpoint c + 2**-150, so the answer is c; the f64 sum is a tie
    # (its ulp there is 2**-179) that rounds onto the midpoint, and f32's tie then goes to the even
    # c + 2**-149
    a = np.array([(1 + 2.0**-15) * 2.0**-75, -(1 + 2.0**-15) * 2.0**-75], np.float32)
    b = np.array([(1 - 2.0**-15) * 2.0**-75] * 2, np.float32)
    c = np.array([(2**22 + 1) * 2.0**-149, -((2**22 + 1) * 2.0**-149)], np.float32)
    got = fused.fma(a, b, c)
    assert got.tolist() == c.astype(np.float64).tolist()
    plain = (a.astype(np.float64) * b + c).astype(np.float32)
    assert plain.tolist() == [(2**22 + 2) * 2.0**-149, -(2**22 + 2) * 2.0**-149]
    assert got.tolist() == _want(a, b, c, np.float32).tolist()


def test_fma32_subnormal_result_where_the_f64_sum_lies_one_ulp_above_a_midpoint() -> None:
    # p = A * B * 2**-197 with A * B = 2**47 + 16376 (A, B < 2**24: an exact product of two f32),
    # i.e. p = 2**-150 + 2**-183 - 8 * 2**-197; c = 2**-131 (an f32 subnormal, an even multiple of
    # 2**-149).  The f64 sum c + 2**-150 + 2**-183 (f64's ulp there is 2**-183) is one ulp above the
    # f32 midpoint c + 2**-150 and inexact, its last bit odd: rounding to odd keeps it, and f32
    # rounds it up to c + 2**-149.  (Stepping it down onto the midpoint would give the even c.)
    a = np.array([np.ldexp(9504766.0, -98)], np.float32)
    b = np.array([np.ldexp(14807044.0, -99)], np.float32)
    c = np.array([2.0**-131], np.float32)
    assert 9504766 * 14807044 == 2**47 + 16376
    got = fused.fma(a, b, c)
    want = _want(a, b, c, np.float32)
    assert got.tolist() == want.tolist() == [2.0**-131 + 2.0**-149]
    assert fused.fma(-a, b, -c).tolist() == [-(2.0**-131 + 2.0**-149)]


def test_fma32_on_rounding_boundaries() -> None:
    # products with short mantissas land exactly on f32 midpoints; tiny addends decide
    rng = np.random.default_rng(22)
    n = 400
    a = (rng.integers(1, 2**12, n) | 1).astype(np.float32)
    b = (rng.integers(1, 2**12, n) | 1).astype(np.float32) * np.float32(2.0**12)
    c = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.integers(-40, 0, n)).astype(np.float32)
    c[::4] = 0.0
    got = fused.fma(a, b, c)
    want = _want(a, b, c, np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_fma64_wide_exponent_spreads_and_cancellations() -> None:
    rng = np.random.default_rng(23)
    n = 600
    a = rng.uniform(-2, 2, n) * 2.0 ** rng.integers(-200, 200, n)
    b = rng.uniform(-2, 2, n) * 2.0 ** rng.integers(-200, 200, n)
    c = rng.uniform(-2, 2, n) * 2.0 ** rng.integers(-500, 500, n)
    c[::3] = -(a[::3] * b[::3]) * (1 + rng.normal(size=len(c[::3])) * 2.0**-40)
    got = fused.fma(a, b, c)
    want = _want(a, b, c, np.float64)
    assert got.view(np.uint64).tolist() == want.view(np.uint64).tolist()
    # (1 + 2**-30)(1 - 2**-30) - 1 = -2**-60 exactly; the plain expression gives 0
    one = np.array([1.0 + 2.0**-30]), np.array([1.0 - 2.0**-30]), np.array([-1.0])
    assert fused.fma(*one).tolist() == [-(2.0**-60)]
    assert (one[0] * one[1] + one[2]).tolist() == [0.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_zero_signs(dtype) -> None:
    a = np.array([-0.0, 0.0, -0.0, 3.0, -3.0, 0.0, 1.5], dtype)
    b = np.array([5.0, -5.0, 5.0, 0.5, 0.5, 0.0, -2.0], dtype)
    c = np.array([-0.0, -0.0, 0.0, -1.5, 1.5, -0.0, 3.0], dtype)
    got = fused.fma(a, b, c)
    # IEEE: an exact zero sum is +0 unless both addends are -0; -0 * 5 + -0 = -0
    assert got.tolist() == [0.0] * 7
    assert np.signbit(got).tolist() == [True, True, False, False, False, False, False]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_broadcasts_and_keeps_shapes(dtype) -> None:
    a = np.arange(6, dtype=dtype).reshape(2, 3) + dtype(0.25)
    b = np.array([3.0], dtype)
    c = np.array([[1.0], [-1.0]], dtype)
    got = fused.fma(a, b, c)
    assert got.shape == (2, 3) and got.dtype == np.dtype(dtype)
    assert got.tolist() == (a * 3 + c).tolist()  # exact here
    assert fused.fma(dtype(2.0), dtype(3.0), dtype(1.0)).shape == ()


def test_fma_refuses_other_types_word_for_word() -> None:
    with pytest.raises(TypeError) as e:
        fused.fma(np.ones(2, np.float16), np.ones(2, np.float16), np.ones(2, np.float16))
    assert str(e.value) == "fma is defined here for float32 and float64, not float16"


def _complex_want(lhs, rhs, part):
    """XLA's product: re = fma(a, c, -(b*d)), im = fma(b, c, a*d), b*d and a*d rounded in the part type."""
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    a, b, c, d = lhs.real, lhs.imag, rhs.real, rhs.imag
    bd = (b * d).astype(part)
    ad = (a * d).astype(part)
    re = _want(a, c, -bd, part)
    im = _want(b, c, ad, part)
    return re, im


@pytest.mark.parametrize(("ctype", "part"), [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_complex_multiply_layouts(ctype, part) -> None:
    rng = np.random.default_rng(24)
    lhs = (rng.normal(size=(6, 1)) + 1j * rng.normal(size=(6, 1))).astype(ctype)
    rhs = (rng.normal(size=(1, 5)) + 1j * rng.normal(size=(1, 5))).astype(ctype)
    rhs[0, 0] = lhs[0, 0].conjugate()  # |z|^2: the imaginary part cancels exactly
    for x, y in [(lhs, rhs), (np.broadcast_to(lhs, (6, 5)).copy(), np.broadcast_to(rhs, (6, 5)).copy()),
                 (np.broadcast_to(lhs, (6, 5)).T.copy().T, np.broadcast_to(rhs, (6, 5)).copy())]:
        got = fused.complex_multiply(x, y)
        assert got.dtype == np.dtype(ctype) and got.shape == (6, 5)
        re, im = _complex_want(x, y, part)
        assert got.real.tobytes() == re.tobytes() and got.imag.tobytes() == im.tobytes()
    zero_d = fused.complex_multiply(lhs[0, 0, ...], rhs[0, 1, ...])
    assert zero_d.shape == () and zero_d.dtype == np.dtype(ctype)


def test_complex64_products_with_nans_and_infinities() -> None:
    nan, inf = np.float32(np.nan), np.float32(np.inf)
    parts = np.array([1.5, -2.0, 0.0, inf, nan], np.float32)
    grid = np.array([complex(r, i) for r in parts for i in parts], np.complex64)
    x, y = np.repeat(grid, len(grid)), np.tile(grid, len(grid))
    with np.errstate(all="ignore"):
        got = fused.complex_multiply(x, y)
        a, b, c, d = (v.astype(np.float64) for v in (x.real, x.imag, y.real, y.imag))
        bd, ad = (b * d).astype(np.float32), (a * d).astype(np.float32)
        plain_re = (a * c - bd).astype(np.float32)  # where it is not finite, fma is the plain expression
        plain_im = (b * c + ad).astype(np.float32)
    assert got.dtype == np.complex64
    assert np.isnan(got.real).tolist() == np.isnan(plain_re).tolist()
    assert np.isnan(got.imag).tolist() == np.isnan(plain_im).tolist()
    finite = ~np.isnan(plain_re)
    assert got.real[finite].tolist() == plain_re[finite].tolist()
    finite = ~np.isnan(plain_im)
    assert got.imag[finite].tolist() == plain_im[finite].tolist()


def test_products_raise_no_floating_point_warnings() -> None:
    # overflowing products are values (inf), not warnings, in every layout
    big64 = np.array([1e300 + 1e300j, 3e38 - 3e38j], np.complex128)
    big32 = np.array([3e38 + 3e38j, 1e30 - 1e30j], np.complex64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype in (np.float32, np.float64):
            big = np.finfo(dtype).max
            a, b = np.array([big, np.inf, np.inf], dtype), np.array([big, 0.0, 1.0], dtype)
            got = fused.fma(a, b, np.array([0.0, 0.0, -np.inf], dtype))  # overflow, inf * 0, inf - inf
            assert got[0] == np.inf and np.isnan(got[1]) and np.isnan(got[2])
        wide = fused.complex_multiply(big64, big64)
        same_shape = fused.complex_multiply(big32, big32)
        broadcast = fused.complex_multiply(big32[:, None], big32[None, :])
    assert np.isinf(wide[0].imag) and np.isinf(same_shape[0].imag) and np.isinf(broadcast[0, 0].imag)
