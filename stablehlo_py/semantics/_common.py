"""Helpers shared by the numpy semantics: integer wrapping, bit patterns, correct float rounding.

Private to ``semantics``; every function takes and returns whole arrays (never loops over elements).

Conventions used throughout the semantics:

* Integers are computed in an ordinary numpy integer dtype (the type itself for 8..64 bits, int8/uint8
  for the sub-byte ``ml_dtypes`` types) and wrapped to the element type's width explicitly
  (:func:`wrap_int`), so arithmetic is two's complement for every width.
* Float results are computed in float64 (or natively in f32/f64 where numpy's IEEE arithmetic is
  already what APFloat computes) and rounded once, to nearest-even, into the element type
  (:func:`round_float`).  numpy rounds f64 -> f32/f16 correctly, but ``ml_dtypes`` converts f64 to
  bf16/f8/f6/f4 through f32 (double rounding), so those go through a round-to-odd f32 step, which
  makes the second rounding exact.
* Bit patterns (:func:`to_bits` / :func:`from_bits`) are uint64 arrays holding the ``num_bits`` low
  bits of each element, the element's value as the spec's ``bits`` sees it (little-endian).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.errors import InterpreterError

from . import dtypes as dt

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
C128 = np.dtype(np.complex128)
C64 = np.dtype(np.complex64)
U64 = np.dtype(np.uint64)
I64 = np.dtype(np.int64)

_NATIVE_FLOATS = (F32, F64)
_UINT_OF_ITEMSIZE = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}


def arr(x: Any) -> np.ndarray:
    """``np.asarray`` that keeps 0-d arrays as arrays."""
    return np.asarray(x)


def contiguous(x: Any) -> np.ndarray:
    """C-contiguous array of the same shape (unlike ``np.ascontiguousarray``, keeps 0-d as 0-d)."""
    x = np.asarray(x)
    return x if x.flags.c_contiguous else x.copy(order="C")


def unsupported(op: str, dtype: Any) -> InterpreterError:
    name = dt.element_type(dtype).name if _known(dtype) else str(dtype)
    return InterpreterError(
        f"'{op}' does not support element type '{name}'",
        note="the spec's constraints for this op list the element types it accepts",
    )


def _known(dtype: Any) -> bool:
    try:
        dt.element_type(dtype)
    except Exception:  # noqa: BLE001 - only used to format a message
        return False
    return True


def mask_of(bits: int) -> np.uint64:
    return np.uint64((1 << bits) - 1) if bits < 64 else np.uint64(0xFFFF_FFFF_FFFF_FFFF)


# --------------------------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------------------------


def compute_int(x: np.ndarray) -> np.ndarray:
    """The values of an integer (or bool) array in an ordinary numpy integer dtype."""
    row = dt.element_type(x.dtype)
    if row.kind == "bool":
        return x.astype(np.uint8)
    if row.bits < 8:
        return x.astype(np.int8 if row.kind == "sint" else np.uint8)
    return x


def wrap_int(values: np.ndarray, dtype: Any) -> np.ndarray:
    """Integers of any numpy int dtype, wrapped modulo 2**num_bits into ``dtype`` (two's complement)."""
    row = dt.element_type(dtype)
    values = np.asarray(values)
    if row.kind == "bool":
        return np.asarray((values & 1) != 0)
    if row.bits >= 8:
        return np.asarray(values.astype(row.dtype))
    u = values.astype(np.int64) & ((1 << row.bits) - 1)
    if row.kind == "sint":
        u = np.where(u >= (1 << (row.bits - 1)), u - (1 << row.bits), u)
    return np.asarray(u.astype(row.dtype))


def int_min(dtype: Any) -> int:
    return int(dt.min_value(dtype))


def int_max(dtype: Any) -> int:
    return int(dt.max_value(dtype))


# --------------------------------------------------------------------------------------------
# Bit patterns
# --------------------------------------------------------------------------------------------


def to_bits(x: np.ndarray) -> np.ndarray:
    """uint64 bit patterns (low ``num_bits`` bits) of a bool, integer or float array."""
    row = dt.element_type(x.dtype)
    if row.kind == "bool":
        return x.astype(U64)
    if row.kind in ("sint", "uint"):
        if row.bits < 8:
            v = x.astype(np.int64)
        else:
            v = x
        return np.asarray(v.astype(U64) & mask_of(row.bits))
    if row.kind == "float":
        raw = contiguous(x).view(_UINT_OF_ITEMSIZE[x.dtype.itemsize])
        return np.asarray(raw.astype(U64) & mask_of(row.bits))
    raise unsupported("bits", x.dtype)


def from_bits(bits: np.ndarray, dtype: Any) -> np.ndarray:
    """The array of element type ``dtype`` whose bit patterns are ``bits`` (uint64)."""
    row = dt.element_type(dtype)
    bits = np.asarray(bits, dtype=U64) & mask_of(row.bits)
    if row.kind == "bool":
        return np.asarray(bits != 0)
    if row.kind == "uint":
        return np.asarray(bits.astype(row.dtype))
    if row.kind == "sint":
        if row.bits == 64:
            return np.asarray(bits.astype(np.int64))
        v = bits.astype(np.int64)
        v = np.where(v >= (1 << (row.bits - 1)), v - (1 << row.bits), v)
        return np.asarray(v.astype(row.dtype))
    if row.kind == "float":
        raw = bits.astype(_UINT_OF_ITEMSIZE[row.dtype.itemsize])
        return np.asarray(contiguous(raw).view(row.dtype))
    raise unsupported("bits", dtype)


def bit_length(u: np.ndarray) -> np.ndarray:
    """Number of significant bits of each uint64 (0 for 0), by a branch-free binary search."""
    u = np.asarray(u, dtype=U64).copy()
    n = np.zeros(u.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        big = (u >> np.uint64(shift)) != 0
        n += np.where(big, shift, 0)
        u = np.where(big, u >> np.uint64(shift), u)
    return n + (u != 0)


def popcount(u: np.ndarray) -> np.ndarray:
    """Set bits of each uint64."""
    u = np.asarray(u, dtype=U64)
    if hasattr(np, "bitwise_count"):
        return np.asarray(np.bitwise_count(u).astype(np.int64))
    u = u - ((u >> np.uint64(1)) & np.uint64(0x5555555555555555))
    u = (u & np.uint64(0x3333333333333333)) + ((u >> np.uint64(2)) & np.uint64(0x3333333333333333))
    u = (u + (u >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.asarray(((u * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64))


def totalorder_key(x: np.ndarray) -> np.ndarray:
    """int64 keys ordering floats by IEEE-754 totalOrder.

    -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN, NaNs ordered by payload; two floats
    have equal keys iff they have equal bits.  Types without a sign bit (f8E8M0FNU) order by bits.
    The FNUZ types' one NaN (the sign bit alone, where -0 would be) has its sign bit set: -NaN, below
    every value (as XLA orders it).
    """
    row = dt.element_type(x.dtype)
    bits = to_bits(x)
    if row.name == "f8E8M0FNU":
        return bits.astype(np.int64)
    sign_shift = np.uint64(row.bits - 1)
    negative = (bits >> sign_shift) != 0
    magnitude = (bits & mask_of(row.bits - 1)).astype(np.int64)
    key = np.where(negative, -1 - magnitude, magnitude)
    if row.name.endswith("FNUZ"):
        key = np.where(bits == (np.uint64(1) << sign_shift), -(1 << (row.bits - 1)) - 1, key)
    return key


# --------------------------------------------------------------------------------------------
# Floats
# --------------------------------------------------------------------------------------------


def is_native_float(dtype: Any) -> bool:
    return np.dtype(dtype) in _NATIVE_FLOATS


def to_f64(x: np.ndarray) -> np.ndarray:
    """Exact float64 (complex128 for complex) copy of a float/complex array."""
    if x.dtype.kind == "c":
        return x.astype(C128)
    return x.astype(F64)


def _f64_to_f32_round_to_odd(v: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding to odd: truncate, then set the last bit if anything was dropped."""
    rne = v.astype(F32)
    back = rne.astype(F64)
    inexact = (back != v) & ~np.isnan(v)
    away = inexact & (np.abs(back) > np.abs(v))
    trunc = np.where(away, np.nextafter(rne, np.float32(0)), rne).astype(F32)
    bits = contiguous(trunc).view(np.uint32)
    bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32)
    return bits.view(F32)


def round_float(v: Any, dtype: Any) -> np.ndarray:
    """Round float64/float32 values to float dtype ``dtype``, once, to nearest-even (as APFloat)."""
    target = dt.as_dtype(dtype)
    v = np.asarray(v)
    with np.errstate(all="ignore"):
        if target == v.dtype:
            return v
        if target in (F64, F32, np.dtype(np.float16)):
            return np.asarray(v.astype(target))
        if v.dtype == F64:
            v = _f64_to_f32_round_to_odd(v)
        return np.asarray(v.astype(target))


def round_complex(v: Any, dtype: Any) -> np.ndarray:
    """Round complex128 values to complex dtype ``dtype`` part by part."""
    target = dt.as_dtype(dtype)
    v = np.asarray(v)
    if v.dtype == target:
        return v
    part = dt.complex_element_type(target)
    out = np.empty(v.shape, dtype=target)
    out.real = round_float(contiguous(v.real), part)
    out.imag = round_float(contiguous(v.imag), part)
    return out


def round_to(v: Any, dtype: Any) -> np.ndarray:
    """Round float64 or complex128 values into float or complex ``dtype``."""
    return round_complex(v, dtype) if dt.is_complex(dtype) else round_float(v, dtype)


def const_like(value: Any, x: np.ndarray) -> np.ndarray:
    """A 0-d constant of x's element type, rounded from a Python/numpy number (``getConstantLike``)."""
    if dt.is_complex(x.dtype):
        return round_complex(np.asarray(value, dtype=C128), x.dtype)
    if dt.is_float(x.dtype):
        return round_float(np.asarray(value, dtype=F64), x.dtype)
    return from_bits(np.asarray(int(value) & ((1 << 64) - 1), dtype=U64), x.dtype)


def _has_infinity(dtype: Any) -> bool:
    with np.errstate(all="ignore"):
        return bool(np.isinf(np.asarray(np.inf).astype(F32).astype(dtype).astype(F64)))


def _quiet_bit(dtype: Any) -> np.uint64 | None:
    """The quiet bit of an IEEE-style float type's NaNs (the top mantissa bit), None for the types
    whose NaNs have no quiet/signaling distinction (no infinity: f8E4M3FN, the FNUZ types,
    f8E8M0FNU, which have one NaN pattern, or none)."""
    if not _has_infinity(dtype):
        return None
    return np.uint64(1 << (dt.mantissa_bits(dtype) - 1))


def signaling_nan(x: np.ndarray) -> np.ndarray:
    """Whether each element of a float array is a signaling NaN (a NaN with its quiet bit clear)."""
    bit = _quiet_bit(x.dtype)
    if bit is None:
        return np.zeros(x.shape, dtype=bool)
    with np.errstate(all="ignore"):
        return np.asarray(np.isnan(to_f64(x)) & ((to_bits(x) & bit) == 0))


def quiet_nan(x: np.ndarray) -> np.ndarray:
    """x with the quiet bit set on its NaNs' patterns (a signaling NaN becomes its quiet NaN)."""
    bit = _quiet_bit(x.dtype)
    if bit is None:
        return x
    with np.errstate(all="ignore"):
        return np.asarray(np.where(np.isnan(to_f64(x)), from_bits(to_bits(x) | bit, x.dtype), x))
