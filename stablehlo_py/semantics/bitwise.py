"""Bitwise elementwise ops of the StableHLO spec: and, or, xor, not, shifts, popcnt, count_leading_zeros.

All work on the element's ``num_bits``-bit pattern (``_common.to_bits``), so every integer width
behaves alike, including i2/i4/ui2/ui4.  Booleans are logical.  ``and``/``or``/``not`` are Python
keywords, so those three are spelled ``and_``/``or_``/``not_``.

Shifts follow upstream (APInt ``shl``/``lshr``/``ashr`` with an APInt amount): the amount is read as
an unsigned number of the element's width, so amounts >= num_bits (including negative ones) give 0
for ``shift_left``/``shift_right_logical`` and the sign fill (0 or -1) for ``shift_right_arithmetic``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import dtypes as dt
from ._common import U64, arr, bit_length, from_bits, mask_of, popcount, to_bits, unsupported

Array = np.ndarray


def _bitwise(op: str, lhs: Any, rhs: Any, fn: Callable[[Array, Array], Array]) -> Array:
    a, b = arr(lhs), arr(rhs)
    kind = dt.element_type(a.dtype).kind
    if kind == "bool":
        return np.asarray(fn(a.astype(bool), b.astype(bool)))
    if kind in ("sint", "uint"):
        return from_bits(fn(to_bits(a), to_bits(b)), a.dtype)
    raise unsupported(op, a.dtype)


def and_(lhs: Any, rhs: Any) -> Array:
    """spec.md#and: logical AND for booleans, bitwise AND for integers."""
    return _bitwise("and", lhs, rhs, np.bitwise_and)


def or_(lhs: Any, rhs: Any) -> Array:
    """spec.md#or: logical OR for booleans, bitwise OR for integers."""
    return _bitwise("or", lhs, rhs, np.bitwise_or)


def xor(lhs: Any, rhs: Any) -> Array:
    """spec.md#xor: logical XOR for booleans, bitwise XOR for integers."""
    return _bitwise("xor", lhs, rhs, np.bitwise_xor)


def not_(operand: Any) -> Array:
    """spec.md#not: logical NOT for booleans, bitwise NOT for integers."""
    x = arr(operand)
    kind = dt.element_type(x.dtype).kind
    if kind == "bool":
        return np.asarray(np.logical_not(x))
    if kind in ("sint", "uint"):
        return from_bits(~to_bits(x), x.dtype)
    raise unsupported("not", x.dtype)


def _shift(op: str, lhs: Any, rhs: Any) -> tuple[Array, Array, Array, int, np.dtype[Any]]:
    a, b = arr(lhs), arr(rhs)
    if not dt.is_int(a.dtype):
        raise unsupported(op, a.dtype)
    bits = dt.bitwidth(a.dtype)
    amount = to_bits(b)
    too_far = amount >= np.uint64(bits)
    safe = np.where(too_far, np.uint64(0), amount).astype(U64)
    return to_bits(a), safe, too_far, bits, a.dtype


def shift_left(lhs: Any, rhs: Any) -> Array:
    """spec.md#shift_left: ``lhs << rhs`` in num_bits bits; amounts >= num_bits give 0."""
    value, amount, too_far, bits, dtype = _shift("shift_left", lhs, rhs)
    shifted = (value << amount) & mask_of(bits)
    return from_bits(np.where(too_far, np.uint64(0), shifted), dtype)


def shift_right_logical(lhs: Any, rhs: Any) -> Array:
    """spec.md#shift_right_logical: zero-filling ``lhs >> rhs``; amounts >= num_bits give 0."""
    value, amount, too_far, _, dtype = _shift("shift_right_logical", lhs, rhs)
    return from_bits(np.where(too_far, np.uint64(0), value >> amount), dtype)


def shift_right_arithmetic(lhs: Any, rhs: Any) -> Array:
    """spec.md#shift_right_arithmetic: sign-filling ``lhs >> rhs`` (also on unsigned bit patterns)."""
    value, amount, too_far, bits, dtype = _shift("shift_right_arithmetic", lhs, rhs)
    mask = mask_of(bits)
    negative = (value >> np.uint64(bits - 1)) != 0
    fill = mask & ~(mask >> amount)
    shifted = (value >> amount) | np.where(negative, fill, np.uint64(0))
    saturated = np.where(negative, mask, np.uint64(0))
    return from_bits(np.where(too_far, saturated, shifted), dtype)


def popcnt(operand: Any) -> Array:
    """spec.md#popcnt: number of set bits of each element's num_bits-bit pattern."""
    x = arr(operand)
    if not dt.is_int(x.dtype):
        raise unsupported("popcnt", x.dtype)
    return from_bits(popcount(to_bits(x)).astype(U64), x.dtype)


def count_leading_zeros(operand: Any) -> Array:
    """spec.md#count_leading_zeros: leading zero bits within num_bits (0 -> num_bits)."""
    x = arr(operand)
    if not dt.is_int(x.dtype):
        raise unsupported("count_leading_zeros", x.dtype)
    bits = dt.bitwidth(x.dtype)
    clz = bits - bit_length(to_bits(x))
    return from_bits(clz.astype(U64), x.dtype)


__all__ = [
    "and_",
    "count_leading_zeros",
    "not_",
    "or_",
    "popcnt",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "xor",
]
