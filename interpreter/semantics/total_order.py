"""The spec's total order on element values as integer keys (sort's and compare's TOTALORDER).

Below `regions` and `reduction`, which both use it."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._element_kinds import bit_width, is_bool, is_float, is_integer, storage_uint


def total_order_key(x: ArrayLike) -> np.ndarray:
    """Integer keys whose natural order is the spec's total order on ``x``'s elements.

    Floats: ``-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN`` (sign-magnitude bits mapped
    to two's complement; the FNUZ types' NaN, 0x80, has its sign bit set: -NaN); integers and booleans: their value. Keys are int64 (uint64 for
    ``ui64``). Complex numbers have no such key.
    """
    arr = np.asarray(x)
    dt = arr.dtype
    if is_bool(dt):
        return arr.astype(np.int64)
    if is_integer(dt):
        return arr if dt == np.uint64 else arr.astype(np.int64)
    if is_float(dt):
        nbits = bit_width(dt)
        if nbits == 64:
            bits = arr.view(np.int64)
            magnitude = bits & np.int64(0x7FFF_FFFF_FFFF_FFFF)
            return np.where(bits < 0, -magnitude - 1, magnitude)
        raw = arr.view(storage_uint(dt)).astype(np.int64) & ((1 << nbits) - 1)
        sign = (raw >> (nbits - 1)) & 1
        magnitude = raw & ((1 << (nbits - 1)) - 1)
        key = np.where(sign == 1, -magnitude - 1, magnitude)
        if dt.name.endswith("fnuz"):
            # the one NaN of the FNUZ types is the sign-bit-only pattern (where -0 would be): a NaN
            # with its sign bit set is -NaN, below every other value (as XLA orders it)
            key = np.where(raw == 1 << (nbits - 1), -(1 << (nbits - 1)) - 1, key)
        return key
    raise TypeError(f"no total-order key for element type {dt}")
