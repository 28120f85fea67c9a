"""CHLO functions: special values, accuracy against the math module, top_k ordering."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.semantics import chlo

from stablehlo_py.errors import InterpreterError

EULER_GAMMA = 0.5772156649015329


def f64(*values):
    return np.array(values, dtype=np.float64)


def f32(*values):
    return np.array(values, dtype=np.float32)


# --- erf family ---------------------------------------------------------------------------------------


def test_erf_erfc_special_values():
    x = f64(0.0, -0.0, np.inf, -np.inf, 0.5, -3.0, 30.0)
    assert chlo.erf(x)[:4].tolist() == [0.0, -0.0, 1.0, -1.0]
    assert chlo.erfc(x)[2:4].tolist() == [0.0, 2.0]
    assert chlo.erfc(f64(30.0)).tolist() == [0.0]
    assert chlo.erf(f32(0.0, 5.0, -5.0)).tolist() == [0.0, 1.0, -1.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16])
def test_erf_erfc_accuracy(dtype):
    xs = np.linspace(-6, 6, 241)
    x = xs.astype(dtype)
    exact_erf = np.array([math.erf(v) for v in x.astype(np.float64)])
    exact_erfc = np.array([math.erfc(v) for v in x.astype(np.float64)])
    tol = {np.float64: 1e-15, np.float32: 4e-7}.get(dtype, 1e-2)
    erf = chlo.erf(x)
    erfc = chlo.erfc(x)
    assert erf.dtype == x.dtype and erfc.dtype == x.dtype
    np.testing.assert_allclose(erf.astype(np.float64), exact_erf, rtol=tol, atol=tol)
    # erfc is relative-accurate in f64 and f32 (Cephes); narrow types round an f32 result and
    # reach f16's subnormals, hence an absolute tolerance there.
    rtol = {np.float64: 1e-14, np.float32: 3e-5}.get(dtype, 1e-2)
    atol = {np.float64: 1e-300, np.float32: 1e-40}.get(dtype, 1e-7)
    np.testing.assert_allclose(erfc.astype(np.float64), exact_erfc, rtol=rtol, atol=atol)


def test_erf_inv():
    assert chlo.erf_inv(f64(1.0, -1.0, 0.0)).tolist() == [np.inf, -np.inf, 0.0]
    assert chlo.erf_inv(f32(1.0, -1.0)).tolist() == [np.inf, -np.inf]
    assert np.isnan(chlo.erf_inv(f64(1.5))[0])
    for p in (1e-10, 0.1, 0.5, 0.9, 0.999, 0.999999):
        x = float(chlo.erf_inv(f64(p))[0])
        assert math.erf(x) == pytest.approx(p, rel=1e-14)
        y = float(chlo.erf_inv(f32(p))[0])
        assert math.erf(y) == pytest.approx(p, rel=2e-6, abs=1e-6)


# --- gamma family ------------------------------------------------------------------------------------


def test_lgamma_values():
    x = f64(1.0, 2.0, 0.5, 10.0, -0.5, 1e-300, 1e300)
    expected = [math.lgamma(v) for v in x]
    np.testing.assert_allclose(chlo.lgamma(x), expected, rtol=1e-13, atol=1e-14)
    poles = chlo.lgamma(f64(0.0, -1.0, -2.0, np.inf, -np.inf))
    assert poles.tolist() == [np.inf] * 5
    np.testing.assert_allclose(
        chlo.lgamma(f32(0.5, 3.5, 20.0)), [math.lgamma(v) for v in (0.5, 3.5, 20.0)], rtol=1e-6
    )
    assert chlo.lgamma(np.array([2.5], np.float16)).dtype == np.float16


def test_digamma_values():
    out = chlo.digamma(f64(1.0, 0.5, 2.0, 10.0, -0.5))
    np.testing.assert_allclose(
        out,
        [
            -EULER_GAMMA,
            -EULER_GAMMA - 2 * math.log(2),
            1 - EULER_GAMMA,
            2.251752589066721,
            0.03648997397857652,
        ],
        rtol=1e-12,
    )
    special = chlo.digamma(f64(0.0, -1.0, -2.0))
    assert special[0] == -np.inf and np.isnan(special[1:]).all()
    np.testing.assert_allclose(chlo.digamma(f32(1.0)), [-EULER_GAMMA], rtol=1e-6)


def test_zeta_and_polygamma():
    np.testing.assert_allclose(
        chlo.zeta(f64(2.0, 4.0, 3.0), f64(1.0, 1.0, 2.0)),
        [math.pi**2 / 6, math.pi**4 / 90, 1.2020569031595942 - 1],
        rtol=1e-12,
    )
    edge = chlo.zeta(f64(1.0, 0.5, 2.0, 3.0, 2.5), f64(1.0, 1.0, -1.0, -1.0, -1.0))
    assert edge[0] == np.inf and np.isnan(edge[1])
    assert edge[2] == np.inf and np.isnan(edge[3]) and np.isnan(edge[4])  # poles, odd, non-integer
    out = chlo.polygamma(f64(1.0, 0.0, 2.0), f64(1.0, 1.0, 1.0))
    np.testing.assert_allclose(
        out, [math.pi**2 / 6, -EULER_GAMMA, -2 * 1.2020569031595942], rtol=1e-10
    )
    assert np.isnan(chlo.polygamma(f64(1.5, -1.0), f64(1.0, 1.0))).all()
    assert chlo.polygamma(f32(1.0), f32(2.0)).dtype == np.float32


# --- bessel_i1e ----------------------------------------------------------------------------------------


def test_bessel_i1e():
    # I1(x) e^-|x| from the series sum (x/2)^(2k+1) / (k! (k+1)!)
    def reference(v):
        s = sum(
            (abs(v) / 2) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
            for k in range(60)
        )
        return math.copysign(s * math.exp(-abs(v)), v)

    xs = [0.0, 0.5, 1.0, -1.0, 7.9, 8.1, 20.0]
    np.testing.assert_allclose(
        chlo.bessel_i1e(f64(*xs)), [reference(v) for v in xs], rtol=1e-14, atol=1e-300
    )
    np.testing.assert_allclose(chlo.bessel_i1e(f32(*xs)), [reference(v) for v in xs], rtol=1e-6)


# --- next_after, is_inf, conj ------------------------------------------------------------------------


def test_next_after():
    out = chlo.next_after(
        f64(1.0, 1.0, 0.0, -0.0, 2.0, np.nan, 1.0, np.inf),
        f64(2.0, 0.0, -1.0, 0.0, 2.0, 1.0, np.nan, 0.0),
    )
    assert out[0] == np.nextafter(1.0, 2.0) and out[1] == np.nextafter(1.0, 0.0)
    assert out[2] == -5e-324 and out[3] == 0.0 and not np.signbit(out[3]) and out[4] == 2.0
    assert np.isnan(out[5:7]).all() and out[7] == np.finfo(np.float64).max
    bf = chlo.next_after(np.array([1.0], ml_dtypes.bfloat16), np.array([2.0], ml_dtypes.bfloat16))
    assert bf.dtype == ml_dtypes.bfloat16 and float(bf[0]) == 1 + 2**-7


def test_is_inf_and_conj():
    x = f32(np.inf, -np.inf, np.nan, 1.0)
    assert chlo.is_inf(x).tolist() == [True, True, False, False]
    assert chlo.is_pos_inf(x).tolist() == [True, False, False, False]
    assert chlo.is_neg_inf(x).tolist() == [False, True, False, False]
    assert chlo.is_inf(np.array([448.0], ml_dtypes.float8_e4m3fn)).tolist() == [False]
    assert chlo.conj(np.array([1 + 2j], np.complex64)).tolist() == [1 - 2j]


# --- trigonometric and hyperbolic --------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.floats(-0.999, 0.999))
def test_inverse_trig_real_f64(v):
    x = f64(v)
    assert chlo.asin(x)[0] == pytest.approx(math.asin(v), rel=4e-16, abs=1e-300)
    assert chlo.acos(x)[0] == pytest.approx(math.acos(v), rel=4e-16)
    assert chlo.atanh(x)[0] == pytest.approx(math.atanh(v), rel=8e-16, abs=1e-300)
    assert chlo.atan(x)[0] == pytest.approx(math.atan(v), rel=4e-16, abs=1e-300)
    assert chlo.asinh(x)[0] == pytest.approx(math.asinh(v), rel=4e-16, abs=1e-300)


def test_hyperbolic_real():
    xs = [0.0, 0.3, -0.7, 1.0, 5.0, -20.0, 700.0, 710.0]
    # e^(x + log ½): the rounding of x + log ½ costs about |x| ulp for large |x| (as in XLA)
    assert chlo.cosh(f64(*xs)).tolist() == pytest.approx([math.cosh(v) for v in xs], rel=1e-13)
    assert chlo.sinh(f64(*xs)).tolist() == pytest.approx([math.sinh(v) for v in xs], rel=1e-13)
    assert chlo.acosh(f64(1.0, 2.0, 1e300)).tolist() == pytest.approx(
        [0.0, math.acosh(2.0), math.acosh(1e300)], rel=1e-15
    )
    assert np.isnan(chlo.acosh(f64(0.5))[0]) and np.isnan(chlo.atanh(f64(1.5))[0])
    assert chlo.asinh(f64(1e300, -1e300)).tolist() == pytest.approx(
        [math.asinh(1e300), -math.asinh(1e300)]
    )
    assert chlo.sinh(np.array([0.5], np.float16)).dtype == np.float16


def test_complex_inverse_trig_agrees_with_numpy():
    rng = np.random.default_rng(0)
    z = (rng.normal(size=200) * 3 + 1j * rng.normal(size=200) * 3).astype(np.complex128)
    z = np.concatenate(
        [z, [0.5 + 0j, 2 + 0j, -2 + 0j, 1e-20 + 1e-20j, 1e200 + 1e200j, 0.5 - 1e-310j]]
    )
    np.testing.assert_allclose(chlo.asin(z), np.arcsin(z), rtol=1e-14)
    np.testing.assert_allclose(chlo.acos(z), np.arccos(z), rtol=1e-14)
    np.testing.assert_allclose(chlo.asinh(z), np.arcsinh(z), rtol=1e-14)
    np.testing.assert_allclose(chlo.acosh(z), np.arccosh(z), rtol=1e-14)
    np.testing.assert_allclose(chlo.atanh(z[:200]), np.arctanh(z[:200]), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(chlo.atan(z[:200]), np.arctan(z[:200]), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(chlo.cosh(z[:200]), np.cosh(z[:200]), rtol=1e-12)
    np.testing.assert_allclose(chlo.sinh(z[:200]), np.sinh(z[:200]), rtol=1e-12)
    c64 = z[:200].astype(np.complex64)
    assert chlo.asin(c64).dtype == np.complex64
    np.testing.assert_allclose(chlo.asin(c64), np.arcsin(c64.astype(np.complex128)), rtol=1e-5)


def test_chlo_rejects_integers():
    with pytest.raises(InterpreterError, match="chlo.erf"):
        chlo.erf(np.array([1], np.int32))


# --- top_k ---------------------------------------------------------------------------------------------


def test_top_k_orders_descending_and_stably():
    values, indices = chlo.top_k(np.array([[3, 1, 3, 2], [0, 5, 5, 5]], np.int32), 3)
    assert values.tolist() == [[3, 3, 2], [5, 5, 5]]
    assert indices.dtype == np.int32 and indices.tolist() == [[0, 2, 3], [1, 2, 3]]


def test_top_k_floats_use_total_order():
    x = np.array([1.0, np.nan, -np.inf, np.inf, -0.0, 0.0], np.float32)
    values, indices = chlo.top_k(x, 6)
    assert indices.tolist() == [1, 3, 0, 5, 4, 2]
    assert np.isnan(values[0]) and values[1:].tolist() == [np.inf, 1.0, 0.0, -0.0, -np.inf]


def test_top_k_unsigned_bool_and_k_larger_than_the_dimension():
    values, indices = chlo.top_k(np.array([1, 2**64 - 1, 7], np.uint64), 2)
    assert values.tolist() == [2**64 - 1, 7] and indices.tolist() == [1, 2]
    values, indices = chlo.top_k(np.array([False, True, True]), 5)
    assert values.tolist() == [True, True, False] and indices.tolist() == [1, 2, 0]
    values, _ = chlo.top_k(np.array([-8, 7, 0], ml_dtypes.int4), 1)
    assert values.astype(int).tolist() == [7]
