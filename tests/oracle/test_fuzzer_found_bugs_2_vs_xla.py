"""The bugs of tests/unit/interpreter/test_fuzzer_found_bugs_2.py against XLA CPU through jaxlib
(`oracle` extra): the interpreter runs the program jax lowers, XLA runs it compiled.

* reduce on int2/int4/uint2/uint4 with a max/min/and/or/xor body: bit-exact with XLA;
* complex divide and rsqrt: XLA's values on grids whose intermediates stay clear of subnormals (XLA
  CPU flushes those, a listed deviation), special values included;
* where ours is more accurate than upstream's CHLO decompositions (which XLA runs), the test pins
  both: XLA still gives the decomposition's value, ours the mathematical one (so a jaxlib that
  changes either way is noticed);
* zeta at huge x (the fuzzer's `zeta_large_x`): XLA's NaN is its flush to zero of the
  decomposition's smallest-subnormal constant, ours is the decomposition computed in IEEE arithmetic.
"""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest

jax = pytest.importorskip("jax")
ml_dtypes = pytest.importorskip("ml_dtypes")
from jax import lax  # noqa: E402
from stablehlo_py.interpreter import run  # noqa: E402
from stablehlo_py.ir import parse  # noqa: E402


def _x64():  # noqa: ANN202 - jax.enable_x64 restores the previous setting on exit
    return jax.enable_x64(True)


def _both(fn, *args):  # noqa: ANN001, ANN202
    """(XLA's result, the interpreter's result) of ``fn`` on ``args`` (one result)."""
    with _x64():
        jitted = jax.jit(fn)
        xla = np.asarray(jitted(*args))
        text = jitted.lower(*args).as_text()
    (ours,) = run(parse(text), *args)
    return xla, np.asarray(ours)


# --------------------------------------------------------------------------------------------
# reduce on sub-byte integers
# --------------------------------------------------------------------------------------------

NARROW = {"int2": ml_dtypes.int2, "uint2": ml_dtypes.uint2, "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4}
REDUCERS = {"max": lax.max, "min": lax.min, "and": lax.bitwise_and, "or": lax.bitwise_or,
            "xor": lax.bitwise_xor}


@pytest.mark.parametrize("body", sorted(REDUCERS))
@pytest.mark.parametrize("name", sorted(NARROW))
def test_sub_byte_reduce_vs_xla(name: str, body: str) -> None:
    dtype = NARROW[name]
    info = ml_dtypes.iinfo(dtype)
    rng = np.random.default_rng(len(name) * 7 + len(body))
    for n in (4, 40):
        x = rng.integers(int(info.min), int(info.max) + 1, size=(3, n)).astype(dtype)
        init = np.array(rng.integers(int(info.min), int(info.max) + 1)).astype(dtype)
        xla, ours = _both(lambda a, i: lax.reduce(a, i, REDUCERS[body], (1,)), x, init)
        assert ours.dtype == xla.dtype
        np.testing.assert_array_equal(ours.astype(np.int64), xla.astype(np.int64), err_msg=f"n={n}")


def test_fuzzer_reproducer_uint2_max() -> None:
    x = np.array([1, 3, 0, 1], np.uint8).view(ml_dtypes.uint2)
    xla, ours = _both(lambda a, i: lax.reduce(a, i, lax.max, (0,)), x, np.array(0, np.uint8).view(ml_dtypes.uint2))
    assert int(ours) == int(xla) == 3


# --------------------------------------------------------------------------------------------
# complex divide and rsqrt
# --------------------------------------------------------------------------------------------


def _same(ours: np.ndarray, xla: np.ndarray, ulps: float) -> np.ndarray:
    """Per element: both parts NaN alike, infinities equal, finite parts within ``ulps`` of the larger
    part's magnitude (XLA may contract a*b + c into an fma: a listed deviation), zeros of equal sign."""
    part_t = np.float32 if ours.dtype == np.complex64 else np.float64
    scale = np.maximum(np.abs(xla.real), np.abs(xla.imag)).astype(part_t)
    ok = np.ones(ours.shape, bool)
    for part in (np.real, np.imag):
        a, b = part(ours).astype(np.float64), part(xla).astype(np.float64)
        with np.errstate(invalid="ignore"):
            close = np.abs(a - b) <= ulps * np.spacing(scale).astype(np.float64)
        zero_sign = (a != 0) | (b != 0) | (np.signbit(a) == np.signbit(b))
        ok &= (np.isnan(a) & np.isnan(b)) | (((a == b) | (np.isfinite(a) & np.isfinite(b) & close)) & zero_sign)
    return ok


def test_complex_divide_fuzzer_reproducer() -> None:
    z = np.array([1.7976931348623157e308 - 1e20j])
    w = np.array([6 - 0.13711319j])
    xla, ours = _both(lax.div, z, w)
    assert np.isfinite(ours.real).all() and _same(ours, xla, 2).all(), (ours, xla)


# parts whose products, quotients and ratios stay normal in f32 (so XLA's flush to zero never acts)
PARTS = [0.0, -0.0, 1.0, -1.0, 0.5, -3.0, 7.25, 1e5, -1e-5, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_divide_grid_vs_xla(dtype) -> None:
    vals = [complex(a, b) for a in PARTS for b in PARTS]
    z = np.array([u for u in vals for _ in vals], dtype)
    w = np.array([v for _ in vals for v in vals], dtype)
    xla, ours = _both(lax.div, z, w)
    bad = ~_same(ours, xla, 2)
    assert not bad.any(), list(zip(z[bad][:6], w[bad][:6], ours[bad][:6], xla[bad][:6]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_divide_wide_range_vs_xla(dtype) -> None:
    """Quotients that the unscaled products a*c + b*d would overflow or lose, away from subnormals."""
    rng = np.random.default_rng(5)
    top = 80.0 if dtype == np.complex64 else 700.0
    n = 2000

    def parts() -> np.ndarray:
        return rng.choice([-1.0, 1.0], n) * np.exp(rng.uniform(-top / 2, top, n))

    z = (parts() + 1j * parts()).astype(dtype)
    w = (parts() + 1j * parts()).astype(dtype)
    with np.errstate(all="ignore"):
        q = z.astype(np.complex128) / w.astype(np.complex128)
        ratio = np.minimum(np.abs(w.real), np.abs(w.imag)) / np.maximum(np.abs(w.real), np.abs(w.imag))
    tiny = float(np.finfo(np.float32 if dtype == np.complex64 else np.float64).tiny)
    keep = (np.minimum(np.abs(q.real), np.abs(q.imag)) > tiny * 2**30) & (ratio > tiny * 2**30)
    keep &= np.abs(q) < float(np.finfo(dtype).max) / 4
    xla, ours = _both(lax.div, z[keep], w[keep])
    bad = ~_same(ours, xla, 4)
    assert not bad.any(), list(zip(z[keep][bad][:4], w[keep][bad][:4], ours[bad][:4], xla[bad][:4]))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_rsqrt_vs_xla(dtype) -> None:
    vals = [complex(a, b) for a in PARTS + [2.5e-3, 6e7] for b in PARTS + [2.5e-3, 6e7]]
    vals.append(complex(-1.46e32, -np.inf))  # the fuzzer's reproducer
    z = np.array(vals, dtype)
    xla, ours = _both(lax.rsqrt, z)
    bad = ~_same(ours, xla, 4)
    assert not bad.any(), list(zip(z[bad][:6], ours[bad][:6], xla[bad][:6]))
    assert ours[-1] == 0


# --------------------------------------------------------------------------------------------
# CHLO: where ours is the mathematical value and XLA runs upstream's decomposition
# --------------------------------------------------------------------------------------------


def test_complex_sinh_small_real_part_xla_cancels() -> None:
    z = np.array([1e-20 + 0j], np.complex64)
    xla, ours = _both(lax.sinh, z)
    assert complex(ours[0]) == complex(np.complex64(cmath.sinh(1e-20 + 0j)))
    assert xla[0] == 0  # upstream's e^(z + log 1/2) - e^(log 1/2 - z) cancels


def test_complex_atan_beside_i_xla_overflows() -> None:
    z = np.array([1e-300 + 1j])
    xla, ours = _both(lax.atan, z)
    ref = cmath.atan(1e-300 + 1j)
    assert abs(ours[0].imag - ref.imag) <= 4 * math.ulp(ref.imag) and abs(ours[0].real - ref.real) <= 1e-15
    assert math.isinf(xla[0].imag)  # upstream's (1-|x|)^2 + y^2 underflows to 0


def test_zeta_at_infinite_q_xla_nan() -> None:
    x, q = np.array([1.5, 3.0]), np.array([np.inf, np.inf])
    xla, ours = _both(lax.zeta, x, q)
    assert list(ours) == [0.0, 0.0]
    assert np.isnan(xla).all()  # upstream's correction term is 0 * inf


def test_zeta_huge_x_is_xla_flushing_a_subnormal_constant() -> None:
    """`zeta_large_x` of the differential fuzzer: upstream's decomposition keeps the plain sum when
    |q^-x| < |sum| * smallest_subnormal; with sum = +inf that is 0 < inf, true, and the result +inf
    (ours, and the mathematics: zeta(1e9, 1/2) >= 2^1e9).  XLA CPU flushes the subnormal constant to
    0, inf * 0 is NaN, the test is false, and the Euler-Maclaurin tail's 0 * inf makes the result
    NaN: a case of its flush-to-zero deviation, not a bug of ours."""
    x, q = np.array([1e9], np.float32), np.array([0.5], np.float32)
    xla, ours = _both(lax.zeta, x, q)
    assert np.isposinf(ours).all() and np.isnan(xla).all()
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    flushed, _ = _both(lambda a: a * tiny, np.array([np.inf], np.float32))
    assert np.isnan(flushed).all()  # inf * 2^-149 on XLA CPU: the constant flushed to 0
