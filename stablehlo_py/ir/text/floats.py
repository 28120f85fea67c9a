"""Float text exactly as MLIR prints and parses it.

MLIR prints a float attribute with ``APFloat::toString(FormatPrecision=6, FormatMaxPadding=0,
TruncateZero=false)`` ("1.000000e+00") when that text reads back to the same bits, else with the default
``toString()`` ("3.14159274"), else (inf, NaN, or no '.' in the text) as hex bits ("0x7FC00000").
This module ports that algorithm with Python integers so our text is byte-identical to upstream's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

from stablehlo_py.ir.context import CONTEXT

# A numeric literal token (integer, decimal with exponent, or hex bits), as MLIR's lexer reads one.
NUMBER = re.compile(r"[-+]?(?:0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)")


def parse_number_token(p: Any, what: str) -> re.Match[str]:
    """The numeric literal at the parser `p` (after white space), consumed; `expected <what>,
    found ...` when there is none."""
    p.ws()
    m = NUMBER.match(p.text, p.pos)
    if not m:
        p.error(f"expected {what}, found {p._found()}")
    p.pos = m.end()
    return m


def hex_f64(token: str) -> float | None:
    """A `0x...` literal (sign allowed) as the f64 of those bits; None when they need more than
    64 bits (MLIR's parseFloat: out of range)."""
    bits = int(token.lstrip("+-"), 16)
    if bits >> 64:
        return None
    v = float(np.array([bits], dtype=np.uint64).view(np.float64)[0])
    return -v if token.startswith("-") else v


@dataclass(frozen=True)
class FloatSemantics:
    """What APFloat needs to know about a float type: significand precision (with the implicit bit),
    the normal exponent range, the storage dtype and bit width."""

    name: str
    precision: int
    min_exponent: int
    dtype: np.dtype
    bits: int


def _sem(name: str, dtype: object) -> FloatSemantics:
    dt = np.dtype(dtype)
    info = ml_dtypes.finfo(dt)
    return FloatSemantics(name, int(info.nmant) + 1, int(info.minexp), dt, int(info.bits))


FLOAT_SEMANTICS: dict[str, FloatSemantics] = {
    s.name: s
    for s in (
        _sem("f16", np.float16),
        _sem("f32", np.float32),
        _sem("f64", np.float64),
        _sem("bf16", ml_dtypes.bfloat16),
        _sem("f8E5M2", ml_dtypes.float8_e5m2),
        _sem("f8E4M3FN", ml_dtypes.float8_e4m3fn),
        _sem("f8E4M3", ml_dtypes.float8_e4m3),
        _sem("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz),
        _sem("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz),
        _sem("f8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz),
        _sem("f8E3M4", ml_dtypes.float8_e3m4),
        _sem("f8E8M0FNU", ml_dtypes.float8_e8m0fnu),
        _sem("f6E2M3FN", ml_dtypes.float6_e2m3fn),
        _sem("f6E3M2FN", ml_dtypes.float6_e3m2fn),
        _sem("f4E2M1FN", ml_dtypes.float4_e2m1fn),
    )
}
# tf32 has no ml_dtypes type; it is stored as f32 bits (19 significant) by MLIR.
FLOAT_SEMANTICS["tf32"] = FloatSemantics("tf32", 11, -126, np.dtype(np.float32), 32)
FLOAT_SEMANTICS["f8E8M0FNU"] = FloatSemantics(
    "f8E8M0FNU", 1, -127, np.dtype(ml_dtypes.float8_e8m0fnu), 8
)


def _adjust_digits(buf: list[int], exp: int, fmt_prec: int) -> tuple[list[int], int]:
    """APFloat's AdjustToPrecision on a little-endian decimal digit buffer (round half up)."""
    n = len(buf)
    if n <= fmt_prec:
        return buf, exp
    first = n - fmt_prec
    if buf[first - 1] < 5:
        while first < n and buf[first] == 0:
            first += 1
        return buf[first:], exp + first
    i = first
    while i != n:
        if buf[i] == 9:
            first += 1
            i += 1
        else:
            buf[i] += 1
            break
    if first == n:
        return [1], exp + first
    return buf[first:], exp + first


def apfloat_to_string(
    value: Fraction, precision: int, fmt_prec: int = 0, max_pad: int = 3, truncate_zero: bool = True
) -> str:
    """Port of ``IEEEFloat::toString`` for a finite value of a type with ``precision`` significand bits."""
    out = "-" if value < 0 else ""
    if value == 0:
        # Sign of zero is handled by the caller (Fraction has no -0).
        if not max_pad:
            if truncate_zero:
                return out + "0.0E+0"
            return out + "0.0" + "0" * (fmt_prec - 1 if fmt_prec > 1 else 0) + "e+00"
        return out + "0"
    a = abs(value)
    num, den = a.numerator, a.denominator  # den is a power of two
    exp2 = -(den.bit_length() - 1)
    sig = num
    if fmt_prec == 0:
        fmt_prec = 2 + precision * 59 // 196
    tz = (sig & -sig).bit_length() - 1
    sig >>= tz
    exp2 += tz
    if exp2 > 0:
        sig <<= exp2
        exp = 0
    elif exp2 < 0:
        sig *= 5 ** (-exp2)
        exp = exp2
    else:
        exp = 0
    # AdjustToPrecision on the integer significand.
    bits = sig.bit_length()
    bits_required = (fmt_prec * 196 + 58) // 59
    if bits > bits_required:
        tens = (bits - bits_required) * 59 // 196
        if tens:
            exp += tens
            sig //= 10**tens
    digits = str(sig)
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    buf = [ord(c) - 48 for c in reversed(stripped)]
    buf, exp = _adjust_digits(buf, exp, fmt_prec)
    nd = len(buf)

    if not max_pad:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_pad or nd + exp > fmt_prec
    else:
        msd = exp + nd - 1
        scientific = False if msd >= 0 else (-msd) > max_pad

    if scientific:
        exp += nd - 1
        s = [out, str(buf[nd - 1]), "."]
        if nd == 1 and truncate_zero:
            s.append("0")
        else:
            s.extend(str(buf[nd - 1 - i]) for i in range(1, nd))
        if not truncate_zero and fmt_prec > nd - 1:
            s.append("0" * (fmt_prec - nd + 1))
        s.append("E" if truncate_zero else "e")
        s.append("+" if exp >= 0 else "-")
        e = str(abs(exp))
        if not truncate_zero and len(e) < 2:
            e = "0" + e
        s.append(e)
        return "".join(s)

    if exp >= 0:
        return out + "".join(str(buf[nd - 1 - i]) for i in range(nd)) + "0" * exp
    whole = exp + nd
    s = [out]
    i = 0
    if whole > 0:
        while i != whole:
            s.append(str(buf[nd - i - 1]))
            i += 1
        s.append(".")
    else:
        s.append("0.")
        s.append("0" * (-whole))
    while i != nd:
        s.append(str(buf[nd - i - 1]))
        i += 1
    return "".join(s)


def round_to_type(q: Fraction, sem: FloatSemantics) -> Fraction | None:
    """Exact round-to-nearest-even of a rational to a float type; None on overflow."""
    if q == 0:
        return Fraction(0)
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    qe = max(e, sem.min_exponent) - (sem.precision - 1)
    scale = Fraction(2) ** qe
    n = round(a / scale)  # Fraction.__round__ rounds half to even
    r = n * scale
    maxval = Fraction(*float(_max_finite(sem)).as_integer_ratio())
    if r > maxval:
        return None
    return r if q > 0 else -r


_MAX_CACHE = CONTEXT.table("text.float_max", 256)  # semantics name -> its largest finite value


def _max_finite(sem: FloatSemantics) -> float:
    v = _MAX_CACHE.get(sem.name)
    if v is None:
        info = ml_dtypes.finfo(sem.dtype)
        v = _MAX_CACHE.put(sem.name, float(info.max))
    return v


def hex_bits(bits: int) -> str:
    """APInt::toString(radix 16, C literal): '0x' and upper-case digits without leading zeros."""
    return "0x" + format(bits, "X")


def _bits_of(value: np.generic, sem: FloatSemantics) -> int:
    raw = np.asarray(value, dtype=sem.dtype).tobytes()
    return int.from_bytes(raw, "little") & ((1 << sem.bits) - 1)


def format_float(value: np.generic | float, sem: FloatSemantics) -> str:
    """MLIR's printFloatValue for one element of type ``sem``."""
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")):
        return hex_bits(_bits_of(value, sem))
    if v == 0.0:
        return ("-" if np.signbit(v) else "") + "0.000000e+00"
    exact = Fraction(*v.as_integer_ratio())
    text = apfloat_to_string(exact, sem.precision, 6, 0, False)
    if round_to_type(Fraction(text), sem) == exact:
        return text
    text = apfloat_to_string(exact, sem.precision)
    if "." in text:
        return text
    return hex_bits(_bits_of(value, sem))


def parse_float_text(text: str, sem: FloatSemantics) -> float:
    """Round a decimal literal to the nearest value of ``sem`` (ties to even), returned as a Python
    float (every supported type is exactly representable in f64). Overflow gives +-inf."""
    f = float(text)
    if sem.bits == 64 or f != f or f in (_INF, -_INF):
        return f
    y = float(np.asarray(f).astype(sem.dtype))
    if y != f and _is_midpoint(f, y, sem):
        # Rounding through f64 is exact unless f64 landed exactly on a midpoint of the narrow type.
        r = round_to_type(Fraction(text.strip()), sem)
        return (_INF if f > 0 else -_INF) if r is None else float(r)
    return y


_INF = float("inf")


def _is_midpoint(f: float, y: float, sem: FloatSemantics) -> bool:
    if y != y or y in (_INF, -_INF):
        return False
    e = math.frexp(f)[1] - 1
    ulp = math.ldexp(1.0, max(e, sem.min_exponent) - (sem.precision - 1))
    return abs(f - y) * 2 == ulp
