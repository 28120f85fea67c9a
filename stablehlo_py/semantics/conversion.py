"""Conversions of the StableHLO spec: convert, bitcast_convert, reduce_precision.

``convert`` follows upstream's ``convert(Type, Element)`` (``stablehlo/reference/Element.cpp``), whose
behaviour the spec leaves TBD (#180) for values the result type cannot hold:

* bool -> any: 0/1; any -> bool: ``x != 0`` (floats: NaN is true; complex: the real part only).
* int -> int: the value wrapped to the result width (two's complement, like APInt ``extOrTrunc``).
* int -> float and float -> float: rounded once to nearest-even (as APFloat), with overflow to ±Inf,
  or to NaN for types without infinities (f8E4M3FN, ...).
* float -> int: truncated toward zero, saturating at the result's min/max, NaN -> 0
  (APFloat ``convertToInteger`` with ``rmTowardZero``).
* complex -> non-complex drops the imaginary part; non-complex -> complex zeroes it.

``bitcast_convert`` reinterprets bits; element 0 holds the lowest bits (little-endian), a complex
number is ``real | imag << (num_bits / 2)``, and ``i1`` is a single bit.  When the element widths
differ, the result gains (or loses) a trailing dimension of ``num_bits(E) / num_bits(E')``.

``reduce_precision`` is upstream's (and XLA's) bit manipulation, bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError

from . import dtypes as dt
from ._common import (
    F32,
    F64,
    I64,
    U64,
    arr,
    bit_length,
    contiguous,
    from_bits,
    mask_of,
    round_complex,
    round_float,
    to_bits,
    to_f64,
    unsupported,
    wrap_int,
)

Array = np.ndarray

# --------------------------------------------------------------------------------------------
# convert
# --------------------------------------------------------------------------------------------


def _int_values(x: Array) -> Array:
    """int64 (signed types, bool) or uint64 (unsigned types) values of an integer array."""
    kind = dt.element_type(x.dtype).kind
    return x.astype(U64 if kind == "uint" else I64)


def _int_to_f64_round_to_odd(v: Array) -> Array:
    """int64/uint64 -> float64 rounding to odd (exact below 2**53), so a later rounding is correct."""
    if v.dtype == U64:
        negative = np.zeros(v.shape, dtype=bool)
        magnitude = v
    else:
        negative = v < 0
        raw = v.astype(U64)
        magnitude = np.where(negative, ~raw + np.uint64(1), raw)
    extra = np.maximum(bit_length(magnitude) - 53, 0).astype(U64)
    kept = magnitude >> extra
    sticky = (magnitude & ((np.uint64(1) << extra) - np.uint64(1))) != 0
    mantissa = (kept | sticky.astype(U64)).astype(F64)
    value = np.ldexp(mantissa, extra.astype(np.int64))
    return np.where(negative, -value, value)


def _int_to_float(v: Array, dtype: np.dtype[Any]) -> Array:
    if dtype in (F64, F32):
        return np.asarray(v.astype(dtype))
    return round_float(_int_to_f64_round_to_odd(v), dtype)


def _float_to_int(v: Array, dtype: np.dtype[Any]) -> Array:
    """Truncate toward zero; saturate; NaN -> 0 (APFloat convertToInteger, rmTowardZero)."""
    row = dt.element_type(dtype)
    lo, hi = dt.min_value(dtype), dt.max_value(dtype)
    t = np.trunc(v)
    too_low = t < float(lo)
    too_high = t >= float(hi) + 1.0  # 2**(bits-1) or 2**bits: exact powers of two
    nan = np.isnan(t)
    safe = np.where(too_low | too_high | nan, 0.0, t)
    work = U64 if row.kind == "uint" else I64
    ints = safe.astype(work)
    ints = np.where(too_low, np.asarray(lo).astype(work), ints)
    ints = np.where(too_high, np.asarray(hi).astype(work), ints)
    return wrap_int(ints, dtype)


def convert(operand: Any, result_dtype: Any) -> Array:
    """spec.md#convert: elementwise conversion of ``operand`` to element type ``result_dtype``.

    ``result_dtype`` is a numpy dtype or an MLIR spelling (``"bf16"``).
    """
    x = arr(operand)
    target = dt.element_type(result_dtype)
    source = dt.element_type(x.dtype)
    out = target.dtype
    with np.errstate(all="ignore"):
        if source.kind == "complex":
            if target.kind == "complex":
                return round_complex(to_f64(x), out)
            x = contiguous(x.real)
            source = dt.element_type(x.dtype)
        if target.kind == "complex":
            part = dt.complex_element_type(out)
            re = convert(x, part)
            return _complex_of(re, np.zeros(re.shape, dtype=part), out)
        if target.kind == "bool":
            if source.kind == "float":
                return np.asarray(to_f64(x) != 0)
            return np.asarray(x != 0) if source.kind != "bool" else x.copy()
        if source.kind in ("bool", "sint", "uint"):
            values = _int_values(x)
            if target.kind in ("sint", "uint"):
                return wrap_int(values, out)
            return _int_to_float(values, out)
        if source.kind == "float":
            v = to_f64(x)
            if target.kind == "float":
                return round_float(v, out)
            return _float_to_int(v, out)
    raise unsupported("convert", x.dtype)


def _complex_of(re: Array, im: Array, dtype: np.dtype[Any]) -> Array:
    result = np.empty(re.shape, dtype=dtype)
    result.real = re
    result.imag = im
    return result


# --------------------------------------------------------------------------------------------
# bitcast_convert
# --------------------------------------------------------------------------------------------


def _element_bits(x: Array) -> Array:
    """(..., num_bits) uint8 array of each element's bits, least significant first."""
    row = dt.element_type(x.dtype)
    if row.kind == "complex":
        half = row.bits // 2
        part = dt.complex_element_type(x.dtype)
        re = _element_bits(contiguous(x.real).astype(part))
        im = _element_bits(contiguous(x.imag).astype(part))
        assert re.shape[-1] == half
        return np.concatenate([re, im], axis=-1)
    pattern = to_bits(x)
    shifts = np.arange(row.bits, dtype=U64)
    return ((pattern[..., None] >> shifts) & np.uint64(1)).astype(np.uint8)


def _from_element_bits(bits: Array, dtype: np.dtype[Any]) -> Array:
    """Inverse of :func:`_element_bits` (last axis: num_bits of ``dtype``)."""
    row = dt.element_type(dtype)
    if row.kind == "complex":
        half = row.bits // 2
        part = dt.complex_element_type(dtype)
        re = _from_element_bits(bits[..., :half], part)
        im = _from_element_bits(bits[..., half:], part)
        return _complex_of(re, im, dtype)
    weights = np.uint64(1) << np.arange(row.bits, dtype=U64)
    pattern = np.bitwise_or.reduce(bits.astype(U64) * weights, axis=-1)
    return from_bits(np.asarray(pattern, dtype=U64), dtype)


def bitcast_convert(operand: Any, result_dtype: Any, result_shape: Any = None) -> Array:
    """spec.md#bitcast_convert: reinterpret the bits of ``operand`` as ``result_dtype``.

    If the result element is narrower, each operand element becomes a trailing dimension of
    ``num_bits(E) / num_bits(E')`` result elements (lowest bits first); if wider, the operand's last
    dimension (of that ratio) is folded into one element.  ``result_shape`` is checked when given.
    """
    x = arr(operand)
    source = dt.element_type(x.dtype)
    target = dt.element_type(result_dtype)
    if (source.kind == "complex") != (target.kind == "complex"):
        raise InterpreterError(
            f"bitcast_convert from '{source.name}' to '{target.name}': complex only converts to "
            "complex (bitcast_convert_c2)"
        )
    if target.bits < source.bits:
        if source.bits % target.bits:
            raise _width_error(source, target)
        shape = (*x.shape, source.bits // target.bits)
    elif target.bits > source.bits:
        ratio, rem = divmod(target.bits, source.bits)
        if rem or x.ndim == 0 or x.shape[-1] != ratio:
            raise _width_error(source, target, x.shape)
        shape = x.shape[:-1]
    else:
        shape = x.shape
    if result_shape is not None and tuple(int(d) for d in result_shape) != tuple(shape):
        raise InterpreterError(
            f"bitcast_convert of tensor<{_dims(x.shape)}{source.name}> to '{target.name}' gives "
            f"shape {list(shape)}, not the requested {list(result_shape)} (bitcast_convert_c1)"
        )
    whole_bytes = all(row.bits == 8 * row.dtype.itemsize for row in (source, target))
    if whole_bytes and np.little_endian:
        flat = contiguous(x).reshape(-1)
        return flat.view(target.dtype).reshape(shape).copy()
    bits = _element_bits(x).reshape(*shape, target.bits)
    return _from_element_bits(bits, target.dtype).reshape(shape)


def _dims(shape: tuple[int, ...]) -> str:
    return "".join(f"{d}x" for d in shape)


def _width_error(
    source: dt.ElementType, target: dt.ElementType, shape: Any = None
) -> InterpreterError:
    where = f" of shape {list(shape)}" if shape is not None else ""
    return InterpreterError(
        f"bitcast_convert from '{source.name}'{where} to '{target.name}': the wider type's "
        f"{max(source.bits, target.bits)} bits must be a multiple of the narrower's "
        f"{min(source.bits, target.bits)}, split over the operand's last dimension "
        "(bitcast_convert_c1)"
    )


# --------------------------------------------------------------------------------------------
# reduce_precision
# --------------------------------------------------------------------------------------------


# Types narrower than 16 bits are reduced as XLA CPU reduces them: converted (exactly) to a wider
# type, reduced there bit for bit, and rounded back.  f16 holds every value of them but f8E8M0FNU's.
_NARROW_WORK_TYPE = {"f8E8M0FNU": F32}
# XLA's f16 -> f8E5M2 conversion turns every NaN into this one pattern (sign dropped).
_NARROW_NAN_PATTERN = {"f8E5M2": 0x7F}


def _reduce_bits(
    value: Array, bit_width: int, src_mantissa: int, exponent_bits: int, mantissa_bits: int
) -> Array:
    """XLA's ``EmitReducePrecisionIR`` on bit patterns (uint64) of an IEEE-style type: round the
    mantissa to nearest-even by adding a bias, then send exponents above the reduced range to ±Inf
    and those at or below its bottom (the subnormals too) to ±0.  NaNs are left to the caller."""
    if mantissa_bits < src_mantissa:
        shift = src_mantissa - mantissa_bits
        last_bit_mask = np.uint64(1 << shift)
        base_bias = (last_bit_mask >> np.uint64(1)) - np.uint64(1)
        last_bit = (value & last_bit_mask) >> np.uint64(shift)
        value = (value + last_bit + base_bias) & ~(last_bit_mask - np.uint64(1))
    src_exponent = bit_width - src_mantissa - 1
    if exponent_bits < src_exponent:
        sign_mask = np.uint64(1 << (bit_width - 1))
        exp_mask = np.uint64(((1 << src_exponent) - 1) << src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        max_exp = np.uint64((bias + reduced_bias) << src_mantissa)
        min_exp = np.uint64((bias - reduced_bias) << src_mantissa)
        exponent = value & exp_mask
        signed_zero = value & sign_mask
        signed_inf = signed_zero | exp_mask
        value = np.where(exponent > max_exp, signed_inf, value)
        value = np.where(exponent <= min_exp, signed_zero, value)
    return value & mask_of(bit_width)


def reduce_precision(operand: Any, exponent_bits: int, mantissa_bits: int) -> Array:
    """spec.md#reduce_precision: round to ``exponent_bits``/``mantissa_bits`` and back, as XLA.

    Rounds the mantissa to nearest-even, then flushes exponents out of the reduced range (and
    subnormals) to ±0 / ±Inf.  A NaN stays a NaN if ``mantissa_bits > 0``, else becomes +Inf, for
    every type (`_nan_without_mantissa`).  f16, bf16, f32 and f64 are reduced in their own bits;
    the narrower types as XLA CPU reduces them (established bit for bit against jaxlib 0.12 on
    every bit pattern but NaNs with ``mantissa_bits = 0``): in f16 (f32 for f8E8M0FNU), then
    rounded back to the type -- so a result the type cannot hold overflows to its NaN or
    saturates as a conversion does, a NaN comes back as the type's NaN of the same sign (f8E5M2:
    0x7F for both signs), and ``-0`` of the FNUZ types is ``0``.
    """
    x = arr(operand)
    row = dt.element_type(x.dtype)
    if row.kind != "float":
        raise unsupported("reduce_precision", x.dtype)
    if exponent_bits < 1 or mantissa_bits < 0:
        raise InterpreterError(
            f"reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, got "
            f"{exponent_bits} and {mantissa_bits} (reduce_precision_c2, c3)"
        )
    with np.errstate(all="ignore"):
        if row.bits < 16:
            return _reduce_precision_narrow(x, row, exponent_bits, mantissa_bits)
        value = _reduce_bits(
            to_bits(x), row.bits, dt.mantissa_bits(x.dtype), exponent_bits, mantissa_bits
        )
        result = from_bits(value, x.dtype)
        return _nan_without_mantissa(x, np.where(np.isnan(to_f64(x)), x, result), mantissa_bits)


def _nan_without_mantissa(x: Array, result: Array, mantissa_bits: int) -> Array:
    """A format with no mantissa bits has no NaN: the spec's truncation leaves a NaN the all-ones
    exponent of +-inf, and upstream's reference interpreter (and its interpret/reduce_precision.mlir
    test, e5m0 of an f64 NaN) gives +inf, for every float type (+inf in the operand's type: its NaN
    where it has no infinity).  XLA CPU keeps the NaN (tests/differential/xla_deviations.py,
    ``reduce_precision_nan_kept``)."""
    if mantissa_bits > 0:
        return np.asarray(result)
    inf = round_float(np.asarray(np.inf), x.dtype)
    return np.asarray(np.where(np.isnan(to_f64(x)), inf, result))


def _reduce_precision_narrow(
    x: Array, row: dt.ElementType, exponent_bits: int, mantissa_bits: int
) -> Array:
    work = _NARROW_WORK_TYPE.get(row.name, np.dtype(np.float16))
    wide = x.astype(work)
    value = _reduce_bits(
        to_bits(wide), dt.bitwidth(work), dt.mantissa_bits(work), exponent_bits, mantissa_bits
    )
    reduced = np.where(np.isnan(wide), wide, from_bits(value, work))
    result = _nan_without_mantissa(x, round_float(reduced, x.dtype), mantissa_bits)
    nan_pattern = _NARROW_NAN_PATTERN.get(row.name)
    if nan_pattern is not None:
        nan = np.isnan(to_f64(result))
        result = np.where(nan, from_bits(nan_pattern, x.dtype), result)
    return np.asarray(result)


__all__ = ["bitcast_convert", "convert", "reduce_precision"]
