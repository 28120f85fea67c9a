"""Bugs of ours that the differential fuzzer (interpreter vs XLA CPU, issue 30) and the CHLO edge-grid
tests found after the first seven, each checked against a reference independent of the interpreter's
code path: Python integers, exact rationals (``fractions``), ``cmath``/``math`` (the C library's
careful complex functions) and mathematical limits.  No jax (the XLA comparisons are in
``tests/oracle/test_fuzzer_found_bugs_2_vs_xla.py``).

* reduce (and reduce_window, scatter, select_and_scatter) with a maximum/minimum/and/or/xor body on
  int2/int4/uint2/uint4 raised: numpy has no loop of those ufuncs for ml_dtypes' narrow integers;
* complex divide overflowed where the quotient is representable ((1.797e308 - 1e20j) / (6 - 0.137j)):
  the divisor was scaled by a power of two but the products a*c + b*d were not; and a finite number
  over ``NaN ± inf i`` gave NaN (C99 Annex G and XLA: 0);
* complex rsqrt of a number with an infinite part gave NaN (``1 / (inf - inf i)``); the limit is 0;
* CHLO: complex sinh/cosh with a small real part (cancellation), complex atan/atanh beside the branch
  points with a square that underflows (inf), lgamma of a subnormal (the reflection's pi*x rounded to
  a subnormal), zeta(x > 1, +inf) and polygamma(n >= 1, +inf) (NaN from 0 * inf; the limit is 0).
"""

from __future__ import annotations

import cmath
import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.semantics import chlo, elementwise
from stablehlo_py.ir import parse
from stablehlo_py.passes import run_pipeline

NARROW_INTS = {
    "i2": (ml_dtypes.int2, -2, 1),
    "i4": (ml_dtypes.int4, -8, 7),
    "ui2": (ml_dtypes.uint2, 0, 3),
    "ui4": (ml_dtypes.uint4, 0, 15),
}
BODIES = {
    "maximum": max,
    "minimum": min,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "add": lambda a, b: a + b,
    "multiply": lambda a, b: a * b,
}


def _run(text: str, *args: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(r) for r in run(parse(text), *args)]


def _wrap(v: int, lo: int, hi: int) -> int:
    """Two's complement wrap of a Python int into [lo, hi]."""
    span = hi - lo + 1
    return (v - lo) % span + lo


def _fold(op: str, init: int, values: list[int], lo: int, hi: int) -> int:
    acc = init
    for v in values:
        acc = _wrap(BODIES[op](acc, v), lo, hi)
    return acc


# --------------------------------------------------------------------------------------------
# 1. reduce & co. on sub-byte integers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("op", sorted(BODIES))
@pytest.mark.parametrize("ty", sorted(NARROW_INTS))
@pytest.mark.parametrize("n", [4, 40])  # a left fold (<= FOLD_LIMIT) and the longer schedules
def test_reduce_on_sub_byte_ints(ty: str, op: str, n: int) -> None:
    dtype, lo, hi = NARROW_INTS[ty]
    rng = np.random.default_rng(n + len(op))
    values = rng.integers(lo, hi + 1, size=(3, n))
    init = int(rng.integers(lo, hi + 1))
    text = (
        f"func.func @main(%a: tensor<3x{n}x{ty}>, %i: tensor<{ty}>) -> tensor<3x{ty}> {{\n"
        f"  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.{op} across dimensions = [1] "
        f": (tensor<3x{n}x{ty}>, tensor<{ty}>) -> tensor<3x{ty}>\n  return %0 : tensor<3x{ty}>\n}}"
    )
    (got,) = _run(text, values.astype(dtype), np.array(init).astype(dtype))
    assert got.dtype == np.dtype(dtype)
    want = [_fold(op, init, [int(v) for v in row], lo, hi) for row in values]
    assert [int(v) for v in got.astype(np.int64)] == want


@pytest.mark.parametrize("op", ["maximum", "minimum", "xor"])
@pytest.mark.parametrize("ty", sorted(NARROW_INTS))
def test_reduce_window_on_sub_byte_ints(ty: str, op: str) -> None:
    dtype, lo, hi = NARROW_INTS[ty]
    values = [lo, hi, 0, 1, hi, lo, 1, 0]
    init = 0 if lo == 0 else -1
    t, r = f"tensor<8x{ty}>", f"tensor<6x{ty}>"
    text = (
        f"func.func @main(%a: {t}, %i: tensor<{ty}>) -> {r} {{\n"
        f'  %0 = "stablehlo.reduce_window"(%a, %i) ({{\n'
        f"  ^bb0(%x: tensor<{ty}>, %y: tensor<{ty}>):\n"
        f"    %1 = stablehlo.{op} %x, %y : tensor<{ty}>\n    stablehlo.return %1 : tensor<{ty}>\n"
        f"  }}) {{window_dimensions = array<i64: 3>}} : ({t}, tensor<{ty}>) -> {r}\n"
        f"  return %0 : {r}\n}}"
    )
    (got,) = _run(text, np.array(values).astype(dtype), np.array(init).astype(dtype))
    want = [_fold(op, init, values[k : k + 3], lo, hi) for k in range(6)]
    assert [int(v) for v in got.astype(np.int64)] == want


@pytest.mark.parametrize("op", ["maximum", "minimum", "or"])
@pytest.mark.parametrize("ty", sorted(NARROW_INTS))
def test_scatter_on_sub_byte_ints(ty: str, op: str) -> None:
    dtype, lo, hi = NARROW_INTS[ty]
    operand = [0, 1, lo, hi]
    indices = [1, 3, 1, 0, 2]
    updates = [hi, lo, 1, hi, 0]
    ti, tu = f"tensor<4x{ty}>", f"tensor<5x{ty}>"
    text = (
        f"func.func @main(%a: {ti}, %idx: tensor<5x1xi32>, %u: {tu}) -> {ti} {{\n"
        f'  %0 = "stablehlo.scatter"(%a, %idx, %u) ({{\n'
        f"  ^bb0(%x: tensor<{ty}>, %y: tensor<{ty}>):\n"
        f"    %1 = stablehlo.{op} %x, %y : tensor<{ty}>\n    stablehlo.return %1 : tensor<{ty}>\n"
        f"  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], "
        f"scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}} "
        f": ({ti}, tensor<5x1xi32>, {tu}) -> {ti}\n  return %0 : {ti}\n}}"
    )
    (got,) = _run(text, np.array(operand).astype(dtype), np.array(indices, np.int32).reshape(5, 1),
                  np.array(updates).astype(dtype))
    want = list(operand)
    for i, u in zip(indices, updates):
        want[i] = _wrap(BODIES[op](want[i], u), lo, hi)
    assert [int(v) for v in got.astype(np.int64)] == want


# --------------------------------------------------------------------------------------------
# 2. complex divide
# --------------------------------------------------------------------------------------------


def _exact_quotient(z: complex, w: complex) -> tuple[Fraction, Fraction]:
    a, b, c, d = (Fraction(v) for v in (z.real, z.imag, w.real, w.imag))
    den = c * c + d * d
    return (a * c + b * d) / den, (b * c - a * d) / den


def _part_ulps(got: complex, want: tuple[Fraction, Fraction], mantissa: int) -> float:
    """The larger error of the two parts, in ulps of the larger part's magnitude (the usual criterion
    for complex arithmetic: a small part of a large number is judged on the number's scale)."""
    scale = max(abs(want[0]), abs(want[1]))
    exponent = math.frexp(float(scale))[1] - 1
    ulp = Fraction(2) ** (exponent - mantissa)
    return float(max(abs(Fraction(got.real) - want[0]), abs(Fraction(got.imag) - want[1])) / ulp)


def test_complex_divide_fuzzer_reproducer() -> None:
    z = np.array([1.7976931348623157e308 - 1e20j])
    w = np.array([6 - 0.13711319j])
    (got,) = elementwise.divide(z, w)
    want = _exact_quotient(complex(z[0]), complex(w[0]))
    assert math.isfinite(got.real) and math.isfinite(got.imag)
    assert _part_ulps(complex(got), want, 52) <= 2


def _random_pairs(rng: np.random.Generator, n: int, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    def parts() -> np.ndarray:
        return rng.choice([-1.0, 1.0], n) * np.exp(rng.uniform(lo, hi, n))

    return parts() + 1j * parts(), parts() + 1j * parts()


@pytest.mark.parametrize(("dtype", "mantissa", "lo", "hi"), [
    (np.complex128, 52, -700.0, 700.0),   # magnitudes 1e-304 .. 1e304: products a*c overflow/underflow
    (np.complex64, 23, -85.0, 85.0),       # 1e-37 .. 1e37
])
def test_complex_divide_against_exact_rationals(dtype, mantissa: int, lo: float, hi: float) -> None:
    rng = np.random.default_rng(30)
    z, w = _random_pairs(rng, 400, lo, hi)
    z, w = z.astype(dtype), w.astype(dtype)
    got = elementwise.divide(z, w)
    assert got.dtype == np.dtype(dtype)
    fi = np.finfo(np.float32 if dtype == np.complex64 else np.float64)
    checked = 0
    for zi, wi, g in zip(z, w, got):
        want = _exact_quotient(complex(zi), complex(wi))
        scale = max(abs(want[0]), abs(want[1]))
        if not (Fraction(float(fi.tiny)) * 2**mantissa < scale < Fraction(float(fi.max)) / 4):
            continue  # quotient near or beyond the range's ends: rounding to subnormals/overflow
        checked += 1
        assert math.isfinite(g.real) and math.isfinite(g.imag), (zi, wi, g)
        # Smith's formula: a few roundings, each of at most half an ulp of the larger part
        assert _part_ulps(complex(g), want, mantissa) <= 4, (zi, wi, g)
    assert checked > 200


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_divide_special_values(dtype) -> None:
    """C99 Annex G's rules (G.5.1): a finite number over an infinity (one part infinite, the other
    anything, NaN too) is 0; an infinity over a finite number is an infinity; a nonzero number over
    zero is an infinity."""
    inf, nan = np.inf, np.nan
    finite = [1 + 2j, -3 + 0.5j, 0j, 1e5 - 1e-5j]
    infinite = [complex(inf, 0), complex(nan, inf), complex(nan, -inf), complex(-inf, nan), complex(inf, inf)]
    z = np.array([f for f in finite for _ in infinite], dtype)
    w = np.array([i for _ in finite for i in infinite], dtype)
    got = elementwise.divide(z, w)
    assert np.all(got == 0), got  # both parts zero, either sign
    got = elementwise.divide(np.array(infinite, dtype), np.array([2 - 1j] * len(infinite), dtype))
    assert np.all(np.isinf(got.real) | np.isinf(got.imag)), got
    got = elementwise.divide(np.array(finite[:2] + [complex(inf, 1)], dtype), np.zeros(3, dtype))
    assert np.all(np.isinf(got.real) | np.isinf(got.imag)), got


# --------------------------------------------------------------------------------------------
# 3. complex rsqrt
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_rsqrt_of_an_infinite_part_is_zero(dtype) -> None:
    inf, nan = np.inf, np.nan
    z = np.array([complex(-1.46e32, -inf), complex(3, inf), complex(inf, 2), complex(-inf, -5),
                  complex(nan, inf), complex(inf, nan), complex(-inf, inf)], dtype)
    got = elementwise.rsqrt(z)
    # |rsqrt z| = |z|^(-1/2) -> 0 as |z| -> inf, whatever the argument
    assert np.all(got == 0), got


@pytest.mark.parametrize(("dtype", "mantissa"), [(np.complex64, 23), (np.complex128, 52)])
def test_complex_rsqrt_against_cmath(dtype, mantissa: int) -> None:
    rng = np.random.default_rng(7)
    z, _ = _random_pairs(rng, 300, -40.0, 40.0)
    z = z.astype(dtype)
    got = elementwise.rsqrt(z)
    for zi, g in zip(z, got):
        ref = 1 / cmath.sqrt(complex(zi))  # correctly rounded sqrt, one division: ~1.5 ulps
        want = (Fraction(ref.real), Fraction(ref.imag))
        assert _part_ulps(complex(g), want, mantissa) <= 4, (zi, g, ref)
    (zero,) = elementwise.rsqrt(np.array([0j], dtype))
    assert math.isinf(zero.real)  # 1/0: an infinity


# --------------------------------------------------------------------------------------------
# 4. CHLO: native and lowered by chlo-legalize-to-stablehlo
# --------------------------------------------------------------------------------------------

CTYPE = {np.complex64: "complex<f32>", np.complex128: "complex<f64>", np.float32: "f32", np.float64: "f64"}


def _both(op: str, *args: np.ndarray) -> dict[str, np.ndarray]:
    """chlo.<op> natively and as the StableHLO chlo-legalize-to-stablehlo lowers it to."""
    ty = f"tensor<{args[0].size}x{CTYPE[args[0].dtype.type]}>"
    names = ", ".join(f"%a{i}" for i in range(len(args)))
    sig = ", ".join(f"%a{i}: {ty}" for i in range(len(args)))
    types = ", ".join(ty for _ in args)
    text = (f"func.func @main({sig}) -> {ty} {{\n  %0 = chlo.{op} {names} : {types} -> {ty}\n"
            f"  return %0 : {ty}\n}}")
    module = run_pipeline(parse(text), [("chlo-legalize-to-stablehlo", {})])
    (lowered,) = run(module, *args)
    with np.errstate(all="ignore"):
        native = getattr(chlo, op)(*args)
    return {"native": np.asarray(native), "lowered": np.asarray(lowered)}


def _close(got: complex, ref: complex, mantissa: int, ulps: float) -> bool:
    scale = max(abs(ref.real), abs(ref.imag))
    ulp = 2.0 ** (math.frexp(scale)[1] - 1 - mantissa)
    return abs(got.real - ref.real) <= ulps * ulp and abs(got.imag - ref.imag) <= ulps * ulp


SMALL_REAL = [1e-20 + 0j, 1e-5 + 0j, -1e-5 + 1.5j, 1e-8 - 3j, 0.3 + 0.7j, -0.01 + 2e3j, 1e-30 + 1j]


@pytest.mark.parametrize(("dtype", "mantissa"), [(np.complex64, 23), (np.complex128, 52)])
@pytest.mark.parametrize("op", ["sinh", "cosh"])
def test_complex_sinh_cosh_small_real_part(op: str, dtype, mantissa: int) -> None:
    z = np.array(SMALL_REAL, dtype)
    for how, got in _both(op, z).items():
        for zi, g in zip(z, got):
            ref = getattr(cmath, op)(complex(zi))
            # parts judged on their own scale here (the cancellation was in the small part)
            for part in ("real", "imag"):
                r, v = getattr(ref, part), float(getattr(g, part))
                ulp = 2.0 ** (math.frexp(r)[1] - 1 - mantissa) if r else 0.0
                assert abs(v - r) <= 4 * ulp, (how, zi, g, ref, part)


@pytest.mark.parametrize(("dtype", "mantissa", "tiny"), [(np.complex64, 23, 1e-20),
                                                          (np.complex128, 52, 1e-300)])
def test_complex_atan_atanh_beside_branch_points(dtype, mantissa: int, tiny: float) -> None:
    atan_z = [complex(tiny, 1), complex(-tiny, 1), complex(tiny, -1), complex(3 * tiny, -1)]
    atanh_z = [complex(1, tiny), complex(-1, tiny), complex(1, -tiny), complex(-1, -3 * tiny)]
    for op, zs in (("atan", atan_z), ("atanh", atanh_z)):
        z = np.array(zs, dtype)
        for how, got in _both(op, z).items():
            for zi, g in zip(z, got):
                ref = getattr(cmath, op)(complex(zi))
                assert math.isfinite(g.real) and math.isfinite(g.imag), (op, how, zi, g)
                assert _close(complex(g), ref, mantissa, 4), (op, how, zi, g, ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lgamma_of_subnormals(dtype) -> None:
    fi = np.finfo(dtype)
    x = np.array([fi.smallest_subnormal, -fi.smallest_subnormal, 3 * fi.smallest_subnormal,
                  fi.smallest_normal / 2, -fi.smallest_normal / 1024], dtype)
    mantissa = 23 if dtype == np.float32 else 52
    for how, got in _both("lgamma", x).items():
        for xi, g in zip(x, got):
            ref = math.lgamma(float(xi))  # the C library's: -log|x| here
            ulp = 2.0 ** (math.frexp(ref)[1] - 1 - mantissa)
            assert abs(float(g) - ref) <= 2 * ulp, (how, xi, g, ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zeta_and_polygamma_at_positive_infinity(dtype) -> None:
    """zeta(x, q) = sum_k (q + k)^-x decreases to 0 as q -> inf for x > 1; polygamma(n, x) =
    (-1)^(n+1) n! zeta(n+1, x) -> 0 with that sign."""
    x = np.array([1.5, 2.0, 3.0, 10.0, np.inf], dtype)
    q = np.full(x.shape, np.inf, dtype)
    for how, got in _both("zeta", x, q).items():
        assert np.all(got == 0) and not np.isnan(got).any(), (how, got)
        # and the finite values on the way there are positive and decreasing
        big = _both("zeta", x[:3], np.full(3, 1e3, dtype))[how]
        assert np.all(big > 0)
    n = np.array([1.0, 2.0, 3.0, 4.0], dtype)
    for how, got in _both("polygamma", n, np.full(n.shape, np.inf, dtype)).items():
        assert np.all(got == 0), (how, got)
        assert list(np.signbit(got)) == [False, True, False, True], (how, got)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_zeta_huge_x_is_upstreams_decomposition(dtype) -> None:
    """The fuzzer's `zeta_large_x` is not ours: XLA's NaN comes from flushing the decomposition's
    smallest-subnormal constant (|q^-x| < |sum| * 2^-149 becomes inf * 0 = NaN); the decomposition
    itself, and the mathematics, give: zeta(x, q < 1) >= q^-x = +inf for huge x, zeta(inf, 1) = 1,
    zeta(even x, -1.5) >= (-0.5)^-x = +inf."""
    big = float(np.finfo(dtype).max)
    x = np.array([1e9, big, np.inf, np.inf, 1e9], dtype)
    q = np.array([0.5, 0.25, 0.5, 1.0, -1.5], dtype)
    for how, got in _both("zeta", x, q).items():
        assert list(got.astype(np.float64)) == [np.inf, np.inf, np.inf, 1.0, np.inf], how
