"""stablehlo_py/semantics/elementwise.py: what the mutation run of the `semantics-elementwise` group
found unchecked.

Expected values come from outside the module: the refusal message of ``_common.unsupported`` word
for word; C11 Annex G's sample complex division (``_Cdivd``, G.5.1), written out below in numpy
scalars, for the infinities, zeros and NaNs of complex ``divide``; 60-digit ``decimal`` arithmetic
for complex ``expm1`` and ``log1p`` (ULP bounds: they are transcendental); XLA's values for the
signed zeros of complex ``rsqrt`` and ``divide`` (checked against jaxlib by
``tests/oracle/test_fuzzer_found_bugs_2_vs_xla.py``); upstream's reference interpreter
(``stablehlo/reference/Element.cpp``) for integer ``abs`` (``APInt::abs``) and the NaN of complex
``sign`` (``APFloat::getNaN``); exact integer arithmetic for the integer ops.
"""

from __future__ import annotations

import enum
import math
import warnings
from decimal import Decimal, getcontext
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.semantics import dtypes as dt
from stablehlo_py.semantics import elementwise as E
from tests.unit.interpreter.test_fuzzer_found_bugs import _dec_sin_cos

NOTE = "the spec's constraints for this op list the element types it accepts"

BOOLS = np.array([True, False])
I32 = np.array([1, -2], np.int32)
UI4 = np.array([1, 2], ml_dtypes.uint4)
C64 = np.array([1 + 2j], np.complex64)

# op, operands, the element type named in the refusal
REFUSALS = [
    ("abs", (BOOLS,), "i1"),
    ("subtract", (BOOLS, BOOLS), "i1"),
    ("divide", (BOOLS, BOOLS), "i1"),
    ("remainder", (BOOLS, BOOLS), "i1"),
    ("remainder", (C64, C64), "complex<f32>"),
    ("power", (BOOLS, BOOLS), "i1"),
    ("negate", (BOOLS,), "i1"),
    ("sign", (BOOLS,), "i1"),
    ("cbrt", (I32,), "i32"),
    ("cosine", (I32,), "i32"),
    ("sine", (UI4,), "ui4"),
    ("tan", (I32,), "i32"),
    ("tanh", (BOOLS,), "i1"),
    ("exponential", (I32,), "i32"),
    ("exponential_minus_one", (I32,), "i32"),
    ("log", (UI4,), "ui4"),
    ("log_plus_one", (I32,), "i32"),
    ("sqrt", (I32,), "i32"),
    ("rsqrt", (I32,), "i32"),
    ("logistic", (I32,), "i32"),
    ("atan2", (I32, I32), "i32"),
    ("ceil", (C64,), "complex<f32>"),
    ("floor", (I32,), "i32"),
    ("round_nearest_afz", (C64,), "complex<f32>"),
    ("round_nearest_even", (I32,), "i32"),
    ("is_finite", (C64,), "complex<f32>"),
    ("is_finite", (I32,), "i32"),
    ("real", (I32,), "i32"),
    ("imag", (BOOLS,), "i1"),
]


@pytest.mark.parametrize(("op", "operands", "type_name"), REFUSALS)
def test_refused_element_types_are_named_word_for_word(op, operands, type_name) -> None:
    with pytest.raises(InterpreterError) as info:
        getattr(E, op)(*operands)
    assert info.value.message == f"'{op}' does not support element type '{type_name}'"
    assert info.value.note == NOTE


def test_compare_refuses_an_unknown_direction_word_for_word() -> None:
    with pytest.raises(InterpreterError) as info:
        E.compare(np.array([1.0], np.float32), np.array([2.0], np.float32), "XX")
    assert info.value.message == "'compare XX' does not support element type 'f32'"
    assert info.value.note == NOTE


class _Direction(enum.Enum):
    """An enum whose members' names are the directions and whose values are not strings."""

    EQ = 1
    NE = 2
    GE = 3
    GT = 4
    LE = 5
    LT = 6


class _CompareType(enum.Enum):
    FLOAT = 1
    TOTALORDER = 2


def test_compare_reads_the_name_of_an_enum_member() -> None:
    lhs = np.array([1.0, 2.0, -0.0], np.float32)
    rhs = np.array([2.0, 2.0, 0.0], np.float32)
    assert E.compare(lhs, rhs, _Direction.LT).tolist() == [True, False, False]
    assert E.compare(lhs, rhs, _Direction.GE).tolist() == [False, True, True]
    # TOTALORDER given as an enum member: -0 < +0 in IEEE totalOrder
    assert E.compare(lhs, rhs, _Direction.LT, _CompareType.TOTALORDER).tolist() == [True, False, True]
    assert E.compare(lhs, rhs, _Direction.LT, _CompareType.FLOAT).tolist() == [True, False, False]
    # lower-case strings name the same directions
    assert E.compare(lhs, rhs, "lt", "totalorder").tolist() == [True, False, True]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_compare_orders_real_then_imaginary(dtype) -> None:
    pairs = [(1 + 2j, 1 + 2j), (1 + 2j, 1 + 3j), (1 + 3j, 1 + 2j), (0 + 5j, 1 - 5j), (2 - 5j, 1 + 5j)]
    lhs = np.array([p for p, _ in pairs], dtype)
    rhs = np.array([q for _, q in pairs], dtype)

    def key(z: complex) -> tuple[float, float]:
        return (z.real, z.imag)

    expected = {
        "EQ": [key(p) == key(q) for p, q in pairs],
        "NE": [key(p) != key(q) for p, q in pairs],
        "GE": [key(p) >= key(q) for p, q in pairs],
        "GT": [key(p) > key(q) for p, q in pairs],
        "LE": [key(p) <= key(q) for p, q in pairs],
        "LT": [key(p) < key(q) for p, q in pairs],
    }
    for direction, want in expected.items():
        assert E.compare(lhs, rhs, direction).tolist() == want, direction


# ---- integer divide / remainder: truncation, x/0, INT_MIN/-1 ------------------------------------

INT_NAMES = ["i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"]


def _ints(values, name):
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    return np.array(values, dtype=wide).astype(dt.dtype_of(name))


def _wrap(value: int, name: str) -> int:
    n = dt.bitwidth(name)
    value %= 1 << n
    if dt.is_signed_int(name) and value >= 1 << (n - 1):
        value -= 1 << n
    return value


def _within(values: set[int], lo: int, hi: int) -> list[int]:
    return sorted(v for v in values if lo <= v <= hi)


def _extremes(name: str) -> tuple[int, int]:
    n = dt.bitwidth(name)
    if dt.is_signed_int(name):
        return -(1 << (n - 1)), (1 << (n - 1)) - 1
    return 0, (1 << n) - 1


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_divide_and_remainder_every_pair_of_edge_values(name: str) -> None:
    lo, hi = _extremes(name)
    edge = _within({lo, lo + 1, lo // 2, -1, 0, 1, 2, 3, hi // 2, hi - 1, hi}, lo, hi)
    lhs = [a for a in edge for _ in edge]
    rhs = [b for _ in edge for b in edge]
    quot = E.divide(_ints(lhs, name), _ints(rhs, name))
    rem = E.remainder(_ints(lhs, name), _ints(rhs, name))
    want_q, want_r = [], []
    for a, b in zip(lhs, rhs, strict=True):
        if b == 0:  # all bits set, and the dividend
            want_q.append(_wrap(-1, name))
            want_r.append(a)
            continue
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncated toward zero
        want_q.append(_wrap(q, name))  # INT_MIN / -1 wraps to INT_MIN
        want_r.append(_wrap(a - q * b, name))
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    assert quot.dtype == dt.dtype_of(name) and rem.dtype == dt.dtype_of(name)
    assert quot.astype(wide).tolist() == want_q
    assert rem.astype(wide).tolist() == want_r


# ---- integer power ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_power_against_modular_exponentiation(name: str) -> None:
    lo, hi = _extremes(name)
    bases = _within({lo, -1, 0, 1, 2, 3, hi}, lo, hi)
    exps = _within({lo, -2, -1, 0, 1, 2, 3, hi - 1, hi}, lo, hi)
    lhs = [b for b in bases for _ in exps]
    rhs = [e for _ in bases for e in exps]
    got = E.power(_ints(lhs, name), _ints(rhs, name))
    n = dt.bitwidth(name)
    want = []
    for b, e in zip(lhs, rhs, strict=True):
        if e < 0:  # 1/b^|e| truncated: 0 unless |b| = 1
            want.append(_wrap(b ** (-e % 2) if b in (1, -1) else 0, name))
        else:
            want.append(_wrap(pow(b, e, 1 << n), name))
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    assert got.astype(wide).tolist() == want


# ---- complex divide: C11 Annex G's recovery of infinities and zeros -----------------------------


def _annex_g_divide(z: complex, w: complex, t: type) -> tuple[float, float]:
    """C11 G.5.1's example ``_Cdivd`` in the part type ``t``: scale the divisor by its larger part's
    binary exponent, divide, then recover the infinities and zeros that came out as NaN + NaN i."""
    with np.errstate(all="ignore"):
        a, b, c, d = t(z.real), t(z.imag), t(w.real), t(w.imag)
        m = float(np.fmax(abs(c), abs(d)))
        logbw = -math.inf if m == 0 else m if not math.isfinite(m) else float(math.frexp(m)[1] - 1)
        ilogbw = 0
        if math.isfinite(logbw):
            ilogbw = int(logbw)
            c, d = t(np.ldexp(c, -ilogbw)), t(np.ldexp(d, -ilogbw))
        denom = c * c + d * d
        x = t(np.ldexp((a * c + b * d) / denom, -ilogbw))
        y = t(np.ldexp((b * c - a * d) / denom, -ilogbw))
        one, zero, inf = t(1), t(0), t(np.inf)
        if np.isnan(x) and np.isnan(y):
            if denom == 0 and (not np.isnan(a) or not np.isnan(b)):
                x, y = np.copysign(inf, c) * a, np.copysign(inf, c) * b
            elif (np.isinf(a) or np.isinf(b)) and np.isfinite(c) and np.isfinite(d):
                a = np.copysign(one if np.isinf(a) else zero, a)
                b = np.copysign(one if np.isinf(b) else zero, b)
                x, y = inf * (a * c + b * d), inf * (b * c - a * d)
            elif logbw == math.inf and np.isfinite(a) and np.isfinite(b):
                c = np.copysign(one if np.isinf(c) else zero, c)
                d = np.copysign(one if np.isinf(d) else zero, d)
                x, y = zero * (a * c + b * d), zero * (b * c - a * d)
        return float(x), float(y)


def _agrees(got: float, want: float, part: type) -> bool:
    """NaN with NaN, an infinity or a zero exactly (a zero of either sign: the sample divides by
    another formula than XLA's Smith division, and the two differ in the signs of zeros), a finite
    nonzero value within 4 ULPs."""
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want
    return abs(got - want) <= 4 * float(np.spacing(part(abs(want))))


@pytest.mark.parametrize(("dtype", "part"), [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_complex_divide_special_values_against_annex_g(dtype, part) -> None:
    big = float(np.finfo(part).max) / 3  # twice it overflows, once it does not
    parts = [0.0, -0.0, 1.0, -1.0, 2.0, -0.5, math.inf, -math.inf, math.nan, big]
    values = [complex(p, q) for p in parts for q in parts]
    z = np.array([u for u in values for _ in values], dtype)
    w = np.array([v for _ in values for v in values], dtype)
    got = E.divide(z, w)
    assert got.dtype == dtype
    bad = [
        (complex(zi), complex(wi), complex(g), _annex_g_divide(complex(zi), complex(wi), part))
        for zi, wi, g in zip(z, w, got, strict=True)
        if not all(
            _agrees(float(gp), wp, part)
            for gp, wp in zip((g.real, g.imag), _annex_g_divide(complex(zi), complex(wi), part), strict=True)
        )
    ]
    assert not bad, bad[:5]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_divide_signed_zeros_of_xla(dtype) -> None:
    # parts of equal magnitude: XLA takes the ratio d/c (jaxlib: (1+1j)/(1-1j) = +0+1j, (1+1j)/(-1+1j) = -0-1j)
    got = E.divide(np.array([1 + 1j, 1 + 1j, -1 - 1j], dtype), np.array([1 - 1j, -1 + 1j, 1 - 1j], dtype))
    assert got.tolist() == [1j, -1j, -1j]
    assert np.signbit(got.real).tolist() == [False, True, False]


# ---- complex rsqrt: XLA's values where a part is infinite or the operand is zero ------------------


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_rsqrt_special_values_of_xla(dtype) -> None:
    inf, nan = math.inf, math.nan
    # operand -> (real, imag) of XLA's result (jaxlib 0.12, jax_enable_x64); signs of zeros included
    cases = [
        (complex(inf, 2), (0.0, -0.0)),
        (complex(-inf, 2), (-0.0, -0.0)),
        (complex(inf, -2), (0.0, 0.0)),
        (complex(-inf, -2), (-0.0, 0.0)),
        (complex(nan, inf), (0.0, -0.0)),
        (complex(nan, -inf), (0.0, 0.0)),
        (complex(inf, nan), (0.0, -0.0)),
        (complex(-inf, nan), (-0.0, -0.0)),
        (complex(0.0, 0.0), (inf, nan)),
        (complex(0.0, -0.0), (inf, nan)),
        (complex(-0.0, 0.0), (inf, nan)),
        (complex(1.0, 0.0), (1.0, -0.0)),
        (complex(1.0, -0.0), (1.0, 0.0)),
        (complex(4.0, 0.0), (0.5, -0.0)),
        (complex(0.25, -0.0), (2.0, 0.0)),
    ]
    got = E.rsqrt(np.array([z for z, _ in cases], dtype))
    assert got.dtype == dtype
    for (z, (re, im)), g in zip(cases, got, strict=True):
        for value, want in ((float(g.real), re), (float(g.imag), im)):
            if math.isnan(want):
                assert math.isnan(value), (z, g)
            else:
                assert value == want and math.copysign(1, value) == math.copysign(1, want), (z, g)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_rsqrt_on_the_axes_and_of_a_nan(dtype) -> None:
    got = E.rsqrt(np.array([2j, complex(-0.0, 2.0), complex(math.nan, 2.0), complex(2.0, math.nan), 1j], dtype))
    assert got[:2].tolist() == [0.5 - 0.5j, 0.5 - 0.5j]  # 1 / (1 + i), exactly
    assert np.isnan(got[2].real) and np.isnan(got[2].imag)
    assert np.isnan(got[3].real) and np.isnan(got[3].imag)
    part = np.float32 if dtype == np.complex64 else np.float64
    half_root = 1 / math.sqrt(2)  # 1 / sqrt(i) = (1 - i) / sqrt(2)
    assert abs(float(got[4].real) - half_root) <= 2 * float(np.spacing(part(half_root)))
    assert abs(float(got[4].imag) + half_root) <= 2 * float(np.spacing(part(half_root)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_divide_by_an_infinite_divisor_signed_zeros_of_xla(dtype) -> None:
    inf, nan = math.inf, math.nan
    # dividend, divisor -> XLA's quotient (jaxlib 0.12): both parts zero, these signs
    cases = [
        (1 + 1j, complex(inf, inf), (0.0, 0.0)),
        (1 + 2j, complex(inf, -inf), (-0.0, 0.0)),
        (-1 + 2j, complex(-inf, inf), (0.0, -0.0)),
        (2 - 1j, complex(nan, inf), (-0.0, -0.0)),
        (1 + 1j, complex(inf, nan), (0.0, 0.0)),
        (3 + 0j, complex(-inf, -inf), (-0.0, 0.0)),
        (-2 - 5j, complex(inf, inf), (-0.0, -0.0)),
        (1 + 1j, complex(-inf, nan), (-0.0, -0.0)),
        (0.5 - 2j, complex(nan, -inf), (0.0, 0.0)),
    ]
    got = E.divide(np.array([z for z, _, _ in cases], dtype), np.array([w for _, w, _ in cases], dtype))
    for (z, w, want), g in zip(cases, got, strict=True):
        parts = (float(g.real), float(g.imag))
        assert parts == want, (z, w, g)
        assert [math.copysign(1, p) for p in parts] == [math.copysign(1, p) for p in want], (z, w, g)


# ---- integer sign and abs on every width --------------------------------------------------------


def _on_every_width(fn, name: str):  # type: ignore[no-untyped-def]
    """``fn`` on the extremes and the small values of integer type ``name``: the values, and the
    results (of the operand's type) as Python ints."""
    lo, hi = _extremes(name)
    values = _within({lo, lo + 1, -1, 0, 1, hi // 2 + 1, hi - 1, hi}, lo, hi)
    got = fn(_ints(values, name))
    assert got.dtype == dt.dtype_of(name)
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    return values, got.astype(wide).tolist()


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_sign_every_width(name: str) -> None:
    values, got = _on_every_width(E.sign, name)
    # -1 / 0 / 1 of the value; an unsigned value is never negative (ui64 2**63 included), so its
    # sign is 0 or 1 (XLA's elemental emitter: select(x == 0, 0, 1) for unsigned types)
    assert got == [_wrap((v > 0) - (v < 0), name) for v in values]


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_abs_every_width(name: str) -> None:
    values, got = _on_every_width(E.abs, name)
    n = dt.bitwidth(name)
    # upstream's Element.cpp: APInt::abs of the bits read as two's complement, so abs(INT_MIN) =
    # INT_MIN; the spec and upstream's verifier take signed types only, and on an unsigned type
    # upstream's interpreter reads the bits the same way (ui8 200 -> 56)
    expected = []
    for v in values:
        signed = v - (1 << n) if v >= 1 << (n - 1) else v
        expected.append(_wrap(abs(signed), name))
    assert got == expected


# ---- complex sign -------------------------------------------------------------------------------


@pytest.mark.parametrize(("dtype", "part", "bits"), [(np.complex64, np.float32, np.uint32), (np.complex128, np.float64, np.uint64)])
def test_complex_sign_of_a_nan_is_the_default_nan(dtype, part, bits) -> None:
    # upstream's Element.cpp: a NaN part gives (getNaN, getNaN), the positive quiet NaN with no
    # payload, whatever the operand's NaN (a negative NaN, a NaN with a payload)
    neg_nan = -part(math.nan)
    payload_nan = np.array([0x7FF8000000000123 if part is np.float64 else 0x7FC00123], bits).view(part)[0]
    z = np.array([complex(neg_nan, 1.0), complex(1.0, neg_nan), complex(payload_nan, 0.0), complex(math.inf, math.nan)], dtype)
    z.real[0], z.imag[1], z.real[2] = neg_nan, neg_nan, payload_nan  # complex() may not keep a NaN's bits
    got = E.sign(z)
    assert got.dtype == dtype
    default = np.array([math.nan], part).view(bits)[0]
    assert np.ascontiguousarray(got.real).view(bits).tolist() == [default] * 4
    assert np.ascontiguousarray(got.imag).view(bits).tolist() == [default] * 4


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sign_keeps_the_type_and_raises_no_floating_point_warning(dtype) -> None:
    z = np.array([0j, complex(-0.0, 0.0), 3 + 4j, complex(math.nan, 0.0)], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = E.sign(z)
    assert got.dtype == dtype
    assert got[:3].tolist() == np.array([0j, 0j, 0.6 + 0.8j], dtype).tolist()
    # upstream's Element.cpp: a zero gives (getZero, getZero), +0 + 0i, also for -0 + 0i
    assert not np.signbit(got.real[:2]).any() and not np.signbit(got.imag[:2]).any()


# ---- complex expm1 / log1p against 60-digit decimal arithmetic ----------------------------------


# Taylor series of sin and cos to the decimal context's precision (one copy, beside the fuzzer-found
# bugs' complex references)
_sin_cos = _dec_sin_cos


def _within_ulps(got: float, exact: Decimal, mantissa: int, ulps: float) -> bool:
    """|got - exact| <= ulps units in the last place of ``exact`` (a value beyond the largest
    finite one rounds to the infinity of its sign)."""
    if exact == 0:
        return got == 0
    top = Fraction(float(np.finfo(np.float64 if mantissa == 52 else np.float32).max))
    if abs(Fraction(exact)) > top * (1 + Fraction(1, 2 ** (mantissa + 1))):
        return math.isinf(got) and (got > 0) == (exact > 0)
    if not math.isfinite(got):
        return False
    _, e = math.frexp(float(exact))
    return abs(Fraction(got) - Fraction(exact)) <= ulps * Fraction(2) ** (e - 1 - mantissa)


def _exact_expm1(z: complex) -> tuple[Decimal, Decimal]:
    getcontext().prec = 60
    s, c = _sin_cos(Decimal(z.imag))
    ex = Decimal(z.real).exp()
    return ex * c - 1, ex * s


EXPM1_WIDE = [
    705 + 0.5j,  # e^x alone is finite, the big-x formula (e^(x/2))² applies
    709.9 + 0.7853981633974483j,  # e^x overflows, e^x cos y and e^x sin y do not
    710 - 1.0471975511965976j,  # e^x sin y overflows (to -inf), e^x cos y does not
    700.5 - 2.5j,
    3 + 1e-3j,
    -2 + 3j,
]


def test_complex_expm1_where_exp_of_the_real_part_overflows() -> None:
    z = np.array(EXPM1_WIDE, np.complex128)
    got = E.exponential_minus_one(z)
    for w, g in zip(EXPM1_WIDE, got, strict=True):
        re, im = _exact_expm1(w)
        assert _within_ulps(float(g.real), re, 52, 4), (w, g, float(re))
        assert _within_ulps(float(g.imag), im, 52, 4), (w, g, float(im))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_expm1_special_values(dtype) -> None:
    inf, nan = math.inf, math.nan
    z = np.array([complex(1500, 0.0), complex(1500, -0.0), complex(-inf, 2.5), complex(-inf, -2.5), complex(nan, 0.0), complex(-inf, 0.0)], dtype)
    got = E.exponential_minus_one(z)
    assert got.dtype == dtype
    # C11 G.6.3.1: cexp(x + 0i) = exp(x) + 0i (exp(1500) overflows), cexp(-inf + yi) = +0 cis(y),
    # cexp(NaN + 0i) = NaN + 0i; minus one
    expected = [(inf, 0.0), (inf, -0.0), (-1.0, 0.0), (-1.0, -0.0), (nan, 0.0), (-1.0, 0.0)]
    for w, g, (re, im) in zip(z, got, expected, strict=True):
        assert (math.isnan(g.real) and math.isnan(re)) or g.real == re, (w, g)
        assert g.imag == im and math.copysign(1, g.imag) == math.copysign(1, im), (w, g)


def _exact_log1p_real(z: complex) -> Decimal:
    getcontext().prec = 80
    x, y = Decimal(z.real), Decimal(z.imag)
    return ((1 + x) ** 2 + y * y).ln() / 2


LOG1P_CASES = [
    -1 + 1e-5j,  # beside -1: |1 + x| + |y| < 0.2
    -1.05 - 0.1j,
    -0.4 + 0.8j,  # |1 + z| = 1 to 16 digits, |1 + x| < |y|: the sum 2x + x² + y² keeps the digits
    0.6 - 0.8j,
    1e200 + 1e199j,  # huge parts of unequal size: log(max) + ½ log1p((min/max)²)
    -3e170 + 1e171j,
    1e155 + 1e154j,  # x² alone overflows
    1.3e154 + 1e154j,  # x² + y² overflows, neither square alone
    2e152 - 1e152j,
]


def test_complex_log1p_real_part_against_decimal() -> None:
    z = np.array(LOG1P_CASES, np.complex128)
    got = E.log_plus_one(z)
    for w, g in zip(LOG1P_CASES, got, strict=True):
        exact = _exact_log1p_real(w)
        assert _within_ulps(float(g.real), exact, 52, 4), (w, g, float(exact))


# ---- float arithmetic: NaN propagation and underflow as APFloat ---------------------------------

# type -> its positive quiet NaN's bits (the negative one has the sign bit too)
QUIET_NANS = {
    "bf16": 0x7FC0,
    "f16": 0x7E00,
    "f8E4M3FN": 0x7F,
    "f8E5M2": 0x7E,
    "f8E3M4": 0x78,
    "f8E4M3": 0x7C,
}


def _from_bits(bits: list[int], name: str) -> np.ndarray:
    dtype = np.dtype(dt.dtype_of(name))
    return np.array(bits, f"u{dtype.itemsize}").view(dtype)


def _bits_of(x: np.ndarray) -> list[int]:
    return np.ascontiguousarray(x).view(f"u{x.dtype.itemsize}").tolist()


@pytest.mark.parametrize("name", sorted(QUIET_NANS))
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide", "remainder"])
def test_a_quiet_nan_operand_propagates_with_its_sign(name: str, op: str) -> None:
    # APFloat's add/multiply/divide/mod specials: a NaN operand is the result (assign(rhs) keeps its
    # sign; multiply and divide restore it), the lhs one when both are NaN
    dtype = np.dtype(dt.dtype_of(name))
    sign = 1 << (8 * dtype.itemsize - 1)
    pos, neg = QUIET_NANS[name], QUIET_NANS[name] | sign
    values = np.array([0.0, 1.5, -2.0, float(ml_dtypes.finfo(dtype).max)], np.float64).astype(dtype)
    n = len(values)
    fn = getattr(E, op)
    for q in (pos, neg):
        nans = _from_bits([q] * n, name)
        assert _bits_of(fn(values, nans)) == [q] * n, (name, op, hex(q))
        assert _bits_of(fn(nans, values)) == [q] * n, (name, op, hex(q))
        assert _bits_of(fn(nans, _from_bits([q ^ sign] * n, name))) == [q] * n, (name, op, hex(q))


def test_e8m0_products_and_quotients_that_underflow_give_the_smallest_value() -> None:
    # f8E8M0FNU has no zero: APFloat's normalize makes an underflow the smallest normalized value
    # (2**-127), not NaN
    e8m0 = np.dtype(ml_dtypes.float8_e8m0fnu)
    tiny = np.array([2.0**-127, 2.0**-100, 2.0**-64], np.float64).astype(e8m0)
    other = np.array([2.0**-127, 2.0**-60, 2.0**-64], np.float64).astype(e8m0)
    assert E.multiply(tiny, other).astype(np.float64).tolist() == [2.0**-127] * 3
    assert E.divide(tiny, np.array([2.0**100] * 3, np.float64).astype(e8m0)).astype(np.float64).tolist() == [2.0**-127] * 3


# ---- rounding, real/imag -----------------------------------------------------------------------


@pytest.mark.parametrize("op", ["ceil", "floor", "round_nearest_afz", "round_nearest_even"])
def test_rounding_infinities_and_nans_without_a_floating_point_warning(op: str) -> None:
    x = np.array([math.inf, -math.inf, math.nan, -2.5, 2.5, -0.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = getattr(E, op)(x)
    assert got.dtype == np.float32
    assert got[0] == math.inf and got[1] == -math.inf and math.isnan(got[2])
    want = {"ceil": [-2.0, 3.0], "floor": [-3.0, 2.0], "round_nearest_afz": [-3.0, 3.0], "round_nearest_even": [-2.0, 2.0]}
    assert got[3:5].tolist() == want[op]
    assert got[5] == 0 and np.signbit(got[5])


@pytest.mark.parametrize("name", ["bf16", "f16", "f32", "f64", "f8E4M3FN", "f4E2M1FN"])
def test_real_and_imag_of_a_float_keep_its_type(name: str) -> None:
    dtype = np.dtype(dt.dtype_of(name))
    x = np.array([1.5, -2.0, -0.0], np.float64).astype(dtype)
    re, im = E.real(x), E.imag(x)
    assert re.dtype == dtype and im.dtype == dtype
    assert re.astype(np.float64).tolist() == [1.5, -2.0, 0.0] and np.signbit(re.astype(np.float64)[2])
    assert im.astype(np.float64).tolist() == [0.0, 0.0, 0.0] and not np.signbit(im.astype(np.float64)).any()
