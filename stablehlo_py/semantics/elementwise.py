"""Elementwise ops of the StableHLO spec as vectorized numpy functions.

Each function is named after the spec op and takes the spec's parameter names; inputs are numpy arrays
(0-d for scalars) of one element type (``stablehlo_py.semantics.dtypes``), outputs are numpy arrays
(never numpy scalars).  Semantics follow the spec and upstream's reference interpreter
(``stablehlo/reference/Element.cpp``):

* Integer arithmetic wraps (two's complement) at every width, including i2/i4/ui2/ui4.
* Integer ``divide`` by zero gives -1 (all bits set), ``remainder`` by zero gives the dividend, and
  ``INT_MIN / -1`` gives ``INT_MIN`` with remainder 0 (XLA's semantics; APInt would trap).
* ``add``/``subtract``/``multiply``/``divide``/``remainder`` on floats are correctly rounded in the
  element type (as APFloat); the other float functions compute in double (as upstream's
  ``mapWithUpcastToDouble``) and round once to the element type.  Complex ``divide`` and the complex
  functions compute in complex128 (``std::complex<double>``) and round each part.
* ``maximum``/``minimum`` are IEEE-754 maximum/minimum: NaN wins (the lhs NaN if both), -0 < +0.
* ``compare`` with ``TOTALORDER`` on floats compares IEEE totalOrder keys for every direction (as XLA:
  ``-0 != +0``, a NaN equals itself); ``FLOAT`` is IEEE quiet comparison; complex compares
  ``(real, imag)`` lexicographically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import dtypes as dt
from . import fused
from ._common import (
    C128,
    U64,
    arr,
    compute_int,
    contiguous,
    from_bits,
    int_min,
    is_native_float,
    mask_of,
    quiet_nan,
    round_complex,
    round_float,
    round_to,
    signaling_nan,
    to_bits,
    to_f64,
    totalorder_key,
    unsupported,
    wrap_int,
)

Array = np.ndarray


def _kind(x: Array) -> str:
    return dt.element_type(x.dtype).kind


def _bits(x: Array) -> int:
    return dt.element_type(x.dtype).bits


# --------------------------------------------------------------------------------------------
# Float helpers
# --------------------------------------------------------------------------------------------


def _float_binary(ufunc: Callable[..., Any]) -> Callable[[Array, Array], Array]:
    """Correctly rounded IEEE operation in the element type (native f32/f64, else via f64).

    An invalid operation (inf - inf, 0 * inf, 0 / 0, fmod(inf, y)) gives APFloat's default NaN,
    +qNaN, where x86 would give -qNaN; a NaN operand propagates (the lhs one if both are NaN).
    """

    def apply(lhs: Array, rhs: Array) -> Array:
        if is_native_float(lhs.dtype):
            result = np.asarray(ufunc(lhs, rhs), dtype=lhs.dtype)
        else:
            result = round_float(ufunc(to_f64(lhs), to_f64(rhs)), lhs.dtype)
        nan = np.isnan(result if is_native_float(result.dtype) else to_f64(result))
        if np.any(nan):
            invalid = nan & ~np.isnan(to_f64(lhs)) & ~np.isnan(to_f64(rhs))
            result = np.where(invalid, round_float(np.asarray(np.nan), lhs.dtype), result)
        return result

    return apply


def _via_double(
    op: str,
    operand: Any,
    real_fn: Callable[[Array], Array],
    complex_fn: Callable[[Array], Array] | None = None,
) -> Array:
    """Upstream's ``mapWithUpcastToDouble``: compute in double / complex<double>, round to the type."""
    return _via_double_n(op, (operand,), real_fn, complex_fn)


def _via_double_n(
    op: str,
    operands: Sequence[Any],
    real_fn: Callable[..., Array],
    complex_fn: Callable[..., Array] | None = None,
) -> Array:
    """:func:`_via_double` of several operands of one element type (the first's)."""
    xs = [arr(x) for x in operands]
    dtype = xs[0].dtype
    kind = _kind(xs[0])
    with np.errstate(all="ignore"):
        if kind == "float":
            return round_float(real_fn(*[to_f64(x) for x in xs]), dtype)
        if kind == "complex" and complex_fn is not None:
            return round_complex(complex_fn(*[to_f64(x) for x in xs]), dtype)
    raise unsupported(op, dtype)


def _parts(x: Array) -> tuple[Array, Array]:
    return contiguous(x.real), contiguous(x.imag)


def _make_complex(re: Array, im: Array, dtype: Any) -> Array:
    out = np.empty(np.broadcast(re, im).shape, dtype=dtype)
    out.real = re
    out.imag = im
    return out


def _sign_bit_mask(dtype: Any) -> np.uint64:
    return np.uint64(1 << (dt.bitwidth(dtype) - 1))


def _has_sign_bit(dtype: Any) -> bool:
    """Whether flipping/clearing the top bit negates/abs-es every value (so not for the FNUZ types,
    whose -0 pattern is their NaN, nor for the unsigned f8E8M0FNU)."""
    name = dt.name_of(dtype)
    return not name.endswith("FNUZ") and name != "f8E8M0FNU"


def _signed_int64(x: Array) -> Array:
    """Integer values of x read as two's complement of its width, in int64."""
    bits = _bits(x)
    v = to_bits(x).astype(np.int64)
    if bits < 64:
        v = np.where(v >= (1 << (bits - 1)), v - (1 << bits), v)
    return v


# --------------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------------


def abs(operand: Any) -> Array:
    """spec.md#abs: integer modulus (wrapping: abs(INT_MIN) = INT_MIN), IEEE abs, complex modulus."""
    x = arr(operand)
    kind = _kind(x)
    with np.errstate(all="ignore"):
        if kind in ("sint", "uint"):
            return wrap_int(np.abs(_signed_int64(x)), x.dtype)
        if kind == "float":
            if not _has_sign_bit(x.dtype):
                return round_float(np.abs(to_f64(x)), x.dtype)
            return from_bits(to_bits(x) & ~_sign_bit_mask(x.dtype), x.dtype)
        if kind == "complex":
            return round_float(np.abs(to_f64(x)), dt.complex_element_type(x.dtype))
    raise unsupported("abs", x.dtype)


def _complex_add(lhs: Array, rhs: Array) -> Array:
    return np.asarray(lhs + rhs)


def _complex_subtract(lhs: Array, rhs: Array) -> Array:
    return np.asarray(lhs - rhs)


def _complex_multiply(lhs: Array, rhs: Array) -> Array:
    """XLA's complex product, fma(ar, br, -(ai*bi)) + fma(ai, br, ar*bi)i (see ``fused.py``)."""
    return fused.complex_multiply(lhs, rhs)


def _smith_divide(a: Array, b: Array, c: Array, d: Array) -> tuple[Array, Array]:
    """``(a + bi) / (c + di)`` on real arrays of one float type, in that type, as XLA CPU divides
    (Smith 1962, the ratio of the divisor's smaller part to its larger, so that no intermediate
    overflows or underflows where the quotient does not), then C99 Annex G's recovery of the
    infinities and zeros where that formula gives NaN + NaN i (a zero divisor, an infinite
    dividend over a finite divisor, a finite dividend over an infinite divisor).

    Returns (real, imag).  Where the parts' magnitudes tie, ``d / c`` is the ratio taken (``|c| <
    |d|`` is false)."""
    abs_c, abs_d = np.abs(c), np.abs(d)
    c_smaller = abs_c < abs_d
    ratio_cd = c / d
    denom_cd = d + ratio_cd * c
    ratio_dc = d / c
    denom_dc = c + ratio_dc * d
    re = np.where(c_smaller, (ratio_cd * a + b) / denom_cd, (ratio_dc * b + a) / denom_dc)
    im = np.where(c_smaller, (ratio_cd * b - a) / denom_cd, (b - ratio_dc * a) / denom_dc)
    both_nan = np.isnan(re) & np.isnan(im)
    if not np.any(both_nan):
        return re, im
    t = re.dtype.type
    zero, one, inf = t(0.0), t(1.0), t(np.inf)
    zero_divisor = (abs_c == zero) & (abs_d == zero) & ~(np.isnan(a) & np.isnan(b))
    inf_c = np.copysign(inf, c)
    finite_a, finite_b = np.isfinite(a), np.isfinite(b)
    finite_c, finite_d = np.isfinite(c), np.isfinite(d)
    inf_dividend = (np.isinf(a) | np.isinf(b)) & finite_c & finite_d
    a1 = np.copysign(np.where(np.isinf(a), one, zero), a)
    b1 = np.copysign(np.where(np.isinf(b), one, zero), b)
    inf_divisor = (np.isinf(c) | np.isinf(d)) & finite_a & finite_b
    c1 = np.copysign(np.where(np.isinf(c), one, zero), c)
    d1 = np.copysign(np.where(np.isinf(d), one, zero), d)
    cases = [both_nan & zero_divisor, both_nan & inf_dividend, both_nan & inf_divisor]
    re = np.select(cases, [inf_c * a, inf * (a1 * c + b1 * d), zero * (a * c1 + b * d1)], re)
    im = np.select(cases, [inf_c * b, inf * (b1 * c - a1 * d), zero * (b * c1 - a * d1)], im)
    return re, im


def _complex_divide(lhs: Array, rhs: Array) -> Array:
    """Complex division in the part type (see :func:`_smith_divide`)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    re, im = _smith_divide(lhs.real, lhs.imag, rhs.real, rhs.imag)
    return _make_complex(re, im, lhs.dtype)


def _binary(
    op: str,
    lhs: Any,
    rhs: Any,
    *,
    bool_fn: Callable[[Array, Array], Array] | None = None,
    int_fn: Callable[[Array, Array, np.dtype[Any]], Array] | None = None,
    float_fn: Callable[[Array, Array], Array] | None = None,
    complex_fn: Callable[[Array, Array], Array] | None = None,
) -> Array:
    a, b = arr(lhs), arr(rhs)
    kind = _kind(a)
    with np.errstate(all="ignore"):
        if kind == "bool" and bool_fn is not None:
            return np.asarray(bool_fn(a, b))
        if kind in ("sint", "uint") and int_fn is not None:
            return wrap_int(int_fn(compute_int(a), compute_int(b), a.dtype), a.dtype)
        if kind == "float" and float_fn is not None:
            return np.asarray(float_fn(a, b))
        if kind == "complex" and complex_fn is not None:
            return np.asarray(complex_fn(a, b))
    raise unsupported(op, a.dtype)


def add(lhs: Any, rhs: Any) -> Array:
    """spec.md#add: logical OR for booleans, wrapping integer addition, IEEE addition."""
    return _binary(
        "add",
        lhs,
        rhs,
        bool_fn=np.logical_or,
        int_fn=lambda a, b, _: a + b,
        float_fn=_float_binary(np.add),
        complex_fn=_complex_add,
    )


def subtract(lhs: Any, rhs: Any) -> Array:
    """spec.md#subtract: wrapping integer subtraction, IEEE subtraction."""
    return _binary(
        "subtract",
        lhs,
        rhs,
        int_fn=lambda a, b, _: a - b,
        float_fn=_float_binary(np.subtract),
        complex_fn=_complex_subtract,
    )


def multiply(lhs: Any, rhs: Any) -> Array:
    """spec.md#multiply: logical AND for booleans, wrapping integer product, IEEE product."""
    return _binary(
        "multiply",
        lhs,
        rhs,
        bool_fn=np.logical_and,
        int_fn=lambda a, b, _: a * b,
        float_fn=_float_binary(np.multiply),
        complex_fn=_complex_multiply,
    )


def _int_divmod(a: Array, b: Array, dtype: np.dtype[Any]) -> tuple[Array, Array]:
    """Truncating quotient and remainder, with x/0 = -1, x%0 = x, INT_MIN/-1 = INT_MIN (rem 0)."""
    zero = b == 0
    special = zero
    if dt.is_signed_int(dtype):
        special = zero | ((a == int_min(dtype)) & (b == -1))
    safe_b = np.where(special, np.ones_like(b), b)
    rem = np.fmod(a, safe_b)
    quot = (a - rem) // safe_b
    all_ones = np.asarray(-1 if dt.is_signed_int(dtype) else np.iinfo(a.dtype).max, dtype=a.dtype)
    quot = np.where(zero, all_ones, quot)
    rem = np.where(zero, a, rem)
    return quot, rem


def divide(lhs: Any, rhs: Any) -> Array:
    """spec.md#divide: truncating integer division (x/0 = -1, INT_MIN/-1 = INT_MIN), IEEE division."""
    return _binary(
        "divide",
        lhs,
        rhs,
        int_fn=lambda a, b, d: _int_divmod(a, b, d)[0],
        float_fn=_float_binary(np.divide),
        complex_fn=_complex_divide,
    )


def remainder(lhs: Any, rhs: Any) -> Array:
    """spec.md#remainder: sign of the dividend; x%0 = x for integers; fmod for floats."""
    return _binary(
        "remainder",
        lhs,
        rhs,
        int_fn=lambda a, b, d: _int_divmod(a, b, d)[1],
        float_fn=_float_binary(np.fmod),
    )


def _int_power(base: Array, exponent: Array, dtype: np.dtype[Any]) -> Array:
    """Exponentiation by squaring with wrapping; negative exponents give 0 unless |base| = 1."""
    bits = dt.bitwidth(dtype)
    signed = dt.is_signed_int(dtype)
    work = np.int64 if signed else np.uint64
    b = np.asarray(base).astype(work)
    e = np.asarray(exponent).astype(np.int64 if signed else np.uint64)
    e_bits = e.astype(U64) & mask_of(bits)
    zero_result = np.zeros(np.broadcast(b, e).shape, dtype=bool)
    if signed:
        negative = e < 0
        unit = (b == 1) | (b == -1)
        e_bits = np.where(negative, (~e_bits + np.uint64(1)) & mask_of(bits), e_bits)
        zero_result = negative & ~unit
    result = np.ones(np.broadcast(b, e).shape, dtype=work)
    b = np.broadcast_to(b, result.shape).copy()
    for i in range(bits):
        shift = np.uint64(i)
        if not np.any(e_bits >> shift):
            break
        take = ((e_bits >> shift) & np.uint64(1)) != 0
        result = np.where(take, result * b, result)
        b = b * b
    return np.where(zero_result, np.zeros_like(result), result)


def _complex_pow(x: Array, y: Array) -> Array:
    """``std::pow(complex<double>, complex<double>)`` = cexp(y * clog(x)) (glibc cpow)."""
    return np.exp(y * np.log(x))


def power(lhs: Any, rhs: Any) -> Array:
    """spec.md#power: integer exponentiation (wrapping), ``std::pow`` in double, complex pow.

    IEEE-754 ``pow`` gives 1 for ``pow(x, ±0)`` and ``pow(+1, y)`` even when the other operand is a
    quiet NaN, but a signaling NaN operand is an invalid operation: the result is that NaN, quieted
    (the lhs one if both are signaling), as XLA CPU gives on f32/f64.
    """
    a = arr(lhs)
    if _kind(a) in ("sint", "uint"):
        return _binary("power", lhs, rhs, int_fn=_int_power)
    result = _via_double_n("power", (lhs, rhs), np.power, _complex_pow)
    if _kind(a) != "float":
        return result
    b = arr(rhs)
    s_a, s_b = signaling_nan(a), signaling_nan(b)
    if not (np.any(s_a) or np.any(s_b)):
        return result
    nan_b = np.where(s_b, quiet_nan(b), result)
    return np.asarray(np.where(s_a, quiet_nan(a), nan_b), dtype=result.dtype)


def _pick_max(a: Array, b: Array) -> Array:
    return (a > b) | ((a == b) & ~np.signbit(a))


def _pick_min(a: Array, b: Array) -> Array:
    return (a < b) | ((a == b) & np.signbit(a))


def _float_extremum(pick: Callable[[Array, Array], Array]) -> Callable[[Array, Array], Array]:
    def apply(lhs: Array, rhs: Array) -> Array:
        a, b = to_f64(lhs), to_f64(rhs)
        chosen = np.where(pick(a, b), lhs, rhs)
        return np.where(np.isnan(a), lhs, np.where(np.isnan(b), rhs, chosen))

    return apply


def _complex_extremum(greater: bool) -> Callable[[Array, Array], Array]:
    cmp = np.greater if greater else np.less

    def apply(lhs: Array, rhs: Array) -> Array:
        ar, ai = _parts(lhs)
        br, bi = _parts(rhs)
        take_lhs = np.where(ar == br, cmp(ai, bi), cmp(ar, br))
        return np.where(take_lhs, lhs, rhs)

    return apply


def maximum(lhs: Any, rhs: Any) -> Array:
    """spec.md#maximum: OR for booleans, IEEE maximum (NaN wins, +0 > -0), lexicographic complex."""
    return _binary(
        "maximum",
        lhs,
        rhs,
        bool_fn=np.logical_or,
        int_fn=lambda a, b, _: np.maximum(a, b),
        float_fn=_float_extremum(_pick_max),
        complex_fn=_complex_extremum(True),
    )


def minimum(lhs: Any, rhs: Any) -> Array:
    """spec.md#minimum: AND for booleans, IEEE minimum (NaN wins, -0 < +0), lexicographic complex."""
    return _binary(
        "minimum",
        lhs,
        rhs,
        bool_fn=np.logical_and,
        int_fn=lambda a, b, _: np.minimum(a, b),
        float_fn=_float_extremum(_pick_min),
        complex_fn=_complex_extremum(False),
    )


def clamp(min: Any, operand: Any, max: Any) -> Array:
    """spec.md#clamp: ``minimum(maximum(operand, min), max)``; rank-0 min/max broadcast."""
    x = arr(operand)
    lo = np.broadcast_to(arr(min), x.shape)
    hi = np.broadcast_to(arr(max), x.shape)
    return minimum(maximum(x, lo), hi)


def negate(operand: Any) -> Array:
    """spec.md#negate: wrapping integer negation (also for unsigned), IEEE negate (sign flip)."""
    x = arr(operand)
    kind = _kind(x)
    with np.errstate(all="ignore"):
        if kind in ("sint", "uint"):
            return wrap_int(np.negative(compute_int(x)), x.dtype)
        if kind == "float":
            if not _has_sign_bit(x.dtype):
                return round_float(-to_f64(x), x.dtype)
            return from_bits(to_bits(x) ^ _sign_bit_mask(x.dtype), x.dtype)
        if kind == "complex":
            return np.asarray(np.negative(x))
    raise unsupported("negate", x.dtype)


def sign(operand: Any) -> Array:
    """spec.md#sign: -1/0/1 for integers; NaN, ±0, ±1 for floats; z/|z| for complex."""
    x = arr(operand)
    kind = _kind(x)
    with np.errstate(all="ignore"):
        if kind in ("sint", "uint"):
            # unsigned: 0 or 1 (a ui64 value >= 2**63 is positive, not -1 read as int64)
            v = _signed_int64(x) if kind == "sint" else (compute_int(x) != 0).astype(np.int64)
            return wrap_int(np.sign(v), x.dtype)
        if kind == "float":
            v = to_f64(x)
            ones = round_float(np.where(v < 0, -1.0, 1.0), x.dtype)
            keep = np.isnan(v) | (v == 0)
            return np.where(keep, x, ones)
        if kind == "complex":
            # each part divided by the modulus (rounded to the part type), as XLA: a complex
            # division by |z| + 0i would overflow in its products near the largest finite value
            part = dt.complex_element_type(x.dtype)
            re, im = _parts(x)
            nan_in = np.isnan(re) | np.isnan(im)
            is_zero = (re == 0) & (im == 0)
            modulus = abs(x)
            quotient = _make_complex(
                round_float(to_f64(re) / to_f64(modulus), part),
                round_float(to_f64(im) / to_f64(modulus), part),
                x.dtype,
            )
            nan = np.asarray(np.nan, dtype=part)
            result = np.where(is_zero, np.zeros((), dtype=x.dtype), quotient)
            return np.asarray(np.where(nan_in, _make_complex(nan, nan, x.dtype), result))
    raise unsupported("sign", x.dtype)


# --------------------------------------------------------------------------------------------
# Float functions (double precision, rounded once)
# --------------------------------------------------------------------------------------------


def _complex_cbrt(z: Array) -> Array:
    theta = np.arctan2(z.imag, z.real) / 3.0
    r = np.power(np.power(z.real, 2.0) + np.power(z.imag, 2.0), 1.0 / 6.0)
    return r * (np.cos(theta) + 1j * np.sin(theta))


def cbrt(operand: Any) -> Array:
    """spec.md#cbrt: ``std::cbrt`` in double; complex via polar form (as upstream)."""
    return _via_double("cbrt", operand, np.cbrt, _complex_cbrt)


def cosine(operand: Any) -> Array:
    """spec.md#cosine."""
    return _via_double("cosine", operand, np.cos, np.cos)


def sine(operand: Any) -> Array:
    """spec.md#sine."""
    return _via_double("sine", operand, np.sin, np.sin)


def tan(operand: Any) -> Array:
    """spec.md#tan."""
    return _via_double("tan", operand, np.tan, np.tan)


def tanh(operand: Any) -> Array:
    """spec.md#tanh."""
    return _via_double("tanh", operand, np.tanh, np.tanh)


def exponential(operand: Any) -> Array:
    """spec.md#exponential."""
    return _via_double("exponential", operand, np.exp, np.exp)


def exponential_minus_one(operand: Any) -> Array:
    """spec.md#exponential_minus_one: ``expm1``; complex by :func:`_complex_expm1`."""
    return _via_double("exponential_minus_one", operand, np.expm1, _complex_expm1)


def _complex_expm1(z: Array) -> Array:
    """``expm1(x + iy) = expm1(x) cos y - 2 sin²(y/2) + i eˣ sin y`` in double: no cancellation
    near 0 (``exp(z) - 1`` loses every digit of a tiny z).  ``eˣ`` is taken as ``(e^(x/2))²``
    where it alone would overflow; a zero y is kept (``expm1(x + 0i) = expm1(x) + 0i``), and
    infinite or NaN parts keep ``exp(z) - 1`` (C's special values)."""
    x, y = _parts(z)
    finite = np.isfinite(x) & np.isfinite(y)
    em1 = np.expm1(x)
    half_sin = np.sin(y * 0.5)
    re = em1 * np.cos(y) - 2.0 * half_sin * half_sin
    big = x > 700.0
    e_half = np.exp(np.where(big, x * 0.5, 0.0))
    im = np.where(big, (e_half * np.sin(y)) * e_half, np.exp(x) * np.sin(y))
    re = np.where(big, ((e_half * np.cos(y)) * e_half) - 1.0, re)
    im = np.where(y == 0, y, im)
    accurate = _make_complex(re, im, C128)
    return np.where(finite, accurate, np.exp(z) - 1.0)


def log(operand: Any) -> Array:
    """spec.md#log: natural log; negative floats give NaN, 0 gives -inf."""
    return _via_double("log", operand, np.log, np.log)


def log_plus_one(operand: Any) -> Array:
    """spec.md#log_plus_one: ``log1p``; complex by :func:`_log_one_plus_complex` (the imaginary part
    is ``atan2(y, 1 + x)``, so its sign of zero is kept: -2-0i gives -pi i)."""
    return _via_double("log_plus_one", operand, np.log1p, _log_one_plus_complex)


def _log_one_plus_complex(z: Array) -> Array:
    """``log1p(x + iy) = ½ log1p(2x + x² + y²) + i atan2(y, 1 + x)`` in double, the real part by
    upstream's cases (``StablehloComplexMathExpanderPatterns.td``):
    ``log(max) + ½ log1p((min/max)²)`` for huge parts, ``½ log((1 + x)² + y²)`` near -1, else the sum ``2x + x² + y²`` in double-double
    (Dekker squares, two-sum), so no cancellation near 0 or where ``x ≈ -y²/2``.  Infinite or NaN
    parts keep ``log(1 + z)`` (C's special values)."""
    w = np.array(z, copy=True)
    w.real += 1.0
    naive = np.log(w)
    x, y = _parts(z)
    finite = np.isfinite(x) & np.isfinite(y)
    x = np.where(finite, x, 0.0)
    y = np.where(finite, y, 0.0)
    ax, ay = np.abs(x), np.abs(y)
    mx, mn = np.maximum(ax, ay), np.minimum(ax, ay)
    ratio = np.where(mn == mx, 1.0, mn / np.where(mx == 0, 1.0, mx))
    huge = mx > np.sqrt(np.finfo(np.float64).max) * 0.01
    re_huge = np.log(np.where(huge, mx, 1.0)) + 0.5 * np.log1p(ratio * ratio)
    xp1 = x + 1.0
    near_minus_one = np.abs(xp1) + ay < 0.2
    re_near = 0.5 * np.log(xp1 * xp1 + y * y)
    xxh, xxl = _two_square(x)
    yyh, yyl = _two_square(y)
    total = _compensated_sum((x + x, yyh, xxh, yyl, xxl))
    re_general = 0.5 * np.log1p(total)
    re = np.where(huge, re_huge, np.where(near_minus_one, re_near, re_general))
    accurate = _make_complex(re, np.arctan2(_parts(z)[1], xp1), C128)
    return np.where(finite, accurate, naive)


_VELTKAMP = 134217729.0  # 2**27 + 1 splits a double into two 26-bit halves


def _two_square(v: Array) -> tuple[Array, Array]:
    """Dekker's exact square: ``hi + lo == v * v`` (for ``|v|`` well below sqrt(largest))."""
    hi = v * v
    scaled = _VELTKAMP * v
    vh = scaled + (v - scaled)
    vl = v - vh
    lo = ((vh * vh - hi) + 2.0 * vh * vl) + vl * vl
    return hi, lo


def _compensated_sum(terms: Sequence[Array]) -> Array:
    """The sum of ``terms`` with every rounding error of the running sum kept (Knuth's two-sum)
    and added back at the end: exact to about 2**-106 of the largest term."""
    total = terms[0]
    error = np.zeros_like(total)
    for t in terms[1:]:
        s = total + t
        bt = s - total
        error = error + ((total - (s - bt)) + (t - bt))
        total = s
    return total + error


def sqrt(operand: Any) -> Array:
    """spec.md#sqrt: negative floats give NaN, sqrt(-0) = -0."""
    return _via_double("sqrt", operand, np.sqrt, np.sqrt)


def _complex_rsqrt(z: Array) -> Array:
    """``1 / sqrt(z)`` (complex<double>) with the divide of :func:`_smith_divide`, and XLA's values
    where a part is infinite: ``rsqrt(±inf + yi)`` and ``rsqrt(NaN ± inf i)`` are ``±0 ∓ 0i`` (the
    limit; ``1 / (inf ± inf i)`` is NaN in the plain formula), ``rsqrt(0)`` is ``inf + NaN i``."""
    s = np.sqrt(z)
    one = np.ones(s.shape, np.float64)
    re, im = _smith_divide(one, np.zeros_like(one), contiguous(s.real), contiguous(s.imag))
    a, b = _parts(z)
    im = np.where(im == 0, np.copysign(0.0, -b), im)  # rsqrt(conj z) = conj(rsqrt z): 1 - 0i at 1 + 0i
    at_infinity = np.isinf(a) | (np.isinf(b) & np.isnan(a))
    zero = (a == 0) & (b == 0)
    re = np.where(zero, np.inf, np.where(at_infinity, np.copysign(0.0, a), re))
    im = np.where(zero, np.nan, np.where(at_infinity, -np.copysign(0.0, b), im))
    return _make_complex(re, im, C128)


def rsqrt(operand: Any) -> Array:
    """spec.md#rsqrt: ``1 / sqrt(x)`` in double (complex: :func:`_complex_rsqrt`)."""
    return _via_double("rsqrt", operand, lambda v: 1.0 / np.sqrt(v), _complex_rsqrt)


def logistic(operand: Any) -> Array:
    """spec.md#logistic: ``1 / (1 + exp(-x))``, each step rounded in the element type (as upstream)."""
    x = arr(operand)
    if _kind(x) not in ("float", "complex"):
        raise unsupported("logistic", x.dtype)
    one = np.broadcast_to(round_to(np.asarray(1.0), x.dtype), x.shape)
    return divide(one, add(one, exponential(negate(x))))


def atan2(lhs: Any, rhs: Any) -> Array:
    """spec.md#atan2: ``atan2(lhs, rhs)`` in double; complex ``-i log((x + iy)/sqrt(x²+y²))``."""
    y, x = arr(lhs), arr(rhs)
    kind = _kind(y)
    if kind == "float":
        return _via_double_n("atan2", (y, x), np.arctan2)
    if kind == "complex":
        i = np.broadcast_to(round_complex(np.asarray(1j), y.dtype), y.shape)
        ratio = divide(add(x, multiply(i, y)), sqrt(add(multiply(x, x), multiply(y, y))))
        return multiply(negate(i), log(ratio))
    raise unsupported("atan2", y.dtype)


# --------------------------------------------------------------------------------------------
# Exact float operations
# --------------------------------------------------------------------------------------------


def _exact(op: str, operand: Any, fn: Callable[[Array], Array]) -> Array:
    x = arr(operand)
    if _kind(x) != "float":
        raise unsupported(op, x.dtype)
    with np.errstate(all="ignore"):
        return round_float(fn(to_f64(x)), x.dtype)


def _round_half_away(v: Array) -> Array:
    whole = np.trunc(v)
    frac = np.abs(v - whole)
    return np.where(frac >= 0.5, whole + np.copysign(1.0, v), whole)


def ceil(operand: Any) -> Array:
    """spec.md#ceil: roundToIntegralTowardPositive (ceil(-0.5) = -0)."""
    return _exact("ceil", operand, np.ceil)


def floor(operand: Any) -> Array:
    """spec.md#floor: roundToIntegralTowardNegative."""
    return _exact("floor", operand, np.floor)


def round_nearest_afz(operand: Any) -> Array:
    """spec.md#round_nearest_afz: roundToIntegralTiesToAway (-2.5 -> -3, 0.4 -> 0, -0.4 -> -0)."""
    return _exact("round_nearest_afz", operand, _round_half_away)


def round_nearest_even(operand: Any) -> Array:
    """spec.md#round_nearest_even: roundToIntegralTiesToEven."""
    return _exact("round_nearest_even", operand, np.rint)


def is_finite(x: Any) -> Array:
    """spec.md#is_finite: neither ±Inf nor NaN; the result is i1."""
    v = arr(x)
    if _kind(v) != "float":
        raise unsupported("is_finite", v.dtype)
    return np.asarray(np.isfinite(to_f64(v)))


# --------------------------------------------------------------------------------------------
# Complex parts
# --------------------------------------------------------------------------------------------


def complex(lhs: Any, rhs: Any) -> Array:
    """spec.md#complex: ``lhs + rhs * i`` from f32/f64 parts."""
    re, im = arr(lhs), arr(rhs)
    return _make_complex(re, im, dt.complex_type_of(re.dtype))


def real(operand: Any) -> Array:
    """spec.md#real: the real part of complex values, floats unchanged."""
    x = arr(operand)
    kind = _kind(x)
    if kind == "complex":
        return x.real.copy()
    if kind == "float":
        return x.copy()
    raise unsupported("real", x.dtype)


def imag(operand: Any) -> Array:
    """spec.md#imag: the imaginary part of complex values, +0 for floats."""
    x = arr(operand)
    kind = _kind(x)
    if kind == "complex":
        return x.imag.copy()
    if kind == "float":
        return np.zeros(x.shape, dtype=x.dtype)
    raise unsupported("imag", x.dtype)


# --------------------------------------------------------------------------------------------
# Comparison and selection
# --------------------------------------------------------------------------------------------

#: comparison_direction -> numpy comparison.
COMPARISON_DIRECTIONS: dict[str, Callable[[Any, Any], Any]] = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "GE": np.greater_equal,
    "GT": np.greater,
    "LE": np.less_equal,
    "LT": np.less,
}

#: The compare_type values of the spec (NOTYPE: the type's default).
COMPARE_TYPES = ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")


def _enum_name(value: Any) -> str:
    if value is None:
        return "NOTYPE"
    name = getattr(value, "name", None)
    return str(name if isinstance(name, str) else value).upper()


_STRICT = {"GE": "GT", "GT": "GT", "LE": "LT", "LT": "LT"}


def _complex_compare(direction: str, a: Array, b: Array) -> Array:
    ar, ai = _parts(a)
    br, bi = _parts(b)
    equal = (ar == br) & (ai == bi)
    if direction == "EQ":
        return equal
    if direction == "NE":
        return ~equal
    strict = COMPARISON_DIRECTIONS[_STRICT[direction]]
    ordered = strict(ar, br) | ((ar == br) & strict(ai, bi))
    return ordered | equal if direction in ("GE", "LE") else ordered


def compare(lhs: Any, rhs: Any, comparison_direction: Any, compare_type: Any = None) -> Array:
    """spec.md#compare: elementwise comparison producing i1.

    ``comparison_direction`` is one of EQ/NE/GE/GT/LE/LT (a string or an enum with that name);
    ``compare_type`` is FLOAT/TOTALORDER/SIGNED/UNSIGNED or None.  Integers compare by the element
    type's signedness (as upstream), floats by IEEE quiet comparisons or, with TOTALORDER, by
    totalOrder keys.
    """
    a, b = arr(lhs), arr(rhs)
    direction = _enum_name(comparison_direction)
    if direction not in COMPARISON_DIRECTIONS:
        raise unsupported(f"compare {direction}", a.dtype)
    ctype = _enum_name(compare_type)
    cmp = COMPARISON_DIRECTIONS[direction]
    kind = _kind(a)
    with np.errstate(all="ignore"):
        if kind in ("bool", "sint", "uint"):
            return np.asarray(cmp(compute_int(a), compute_int(b)))
        if kind == "float":
            if ctype == "TOTALORDER":
                return np.asarray(cmp(totalorder_key(a), totalorder_key(b)))
            return np.asarray(cmp(to_f64(a), to_f64(b)))
        if kind == "complex":
            return np.asarray(_complex_compare(direction, a, b))
    raise unsupported("compare", a.dtype)


def select(pred: Any, on_true: Any, on_false: Any) -> Array:
    """spec.md#select: ``pred ? on_true : on_false``; a rank-0 pred selects whole tensors."""
    t = arr(on_true)
    f = arr(on_false)
    return np.asarray(np.where(arr(pred).astype(bool), t, f), dtype=t.dtype)


__all__ = [
    "COMPARE_TYPES",
    "COMPARISON_DIRECTIONS",
    "abs",
    "add",
    "atan2",
    "cbrt",
    "ceil",
    "clamp",
    "compare",
    "complex",
    "cosine",
    "divide",
    "exponential",
    "exponential_minus_one",
    "floor",
    "imag",
    "is_finite",
    "log",
    "log_plus_one",
    "logistic",
    "maximum",
    "minimum",
    "multiply",
    "negate",
    "power",
    "real",
    "remainder",
    "round_nearest_afz",
    "round_nearest_even",
    "rsqrt",
    "select",
    "sign",
    "sine",
    "sqrt",
    "subtract",
    "tan",
    "tanh",
]
