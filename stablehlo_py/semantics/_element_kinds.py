"""Element-type classification shared by the structured-op semantics (numpy + ml_dtypes only)."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from numpy.typing import DTypeLike

_ML_INTS = {np.dtype(t) for t in (ml_dtypes.int2, ml_dtypes.int4, ml_dtypes.uint2, ml_dtypes.uint4)}


def is_bool(dtype: DTypeLike) -> bool:
    return np.dtype(dtype) == np.bool_


def is_integer(dtype: DTypeLike) -> bool:
    d = np.dtype(dtype)
    return d.kind in "iu" or d in _ML_INTS


def is_complex(dtype: DTypeLike) -> bool:
    return np.dtype(dtype).kind == "c"


def is_float(dtype: DTypeLike) -> bool:
    d = np.dtype(dtype)
    return d.kind == "f" or (d.kind == "V" and d not in _ML_INTS)


def bit_width(dtype: DTypeLike) -> int:
    d = np.dtype(dtype)
    if d == np.bool_:
        return 1
    if is_integer(d):
        return int(ml_dtypes.iinfo(d).bits)
    if is_float(d):
        return int(ml_dtypes.finfo(d).bits)
    return int(d.itemsize * 8)


def is_signed_integer(dtype: DTypeLike) -> bool:
    d = np.dtype(dtype)
    return is_integer(d) and int(ml_dtypes.iinfo(d).min) < 0


def storage_uint(dtype: DTypeLike) -> np.dtype[Any]:
    """Unsigned numpy integer type with the same storage size as ``dtype``."""
    return np.dtype(f"u{np.dtype(dtype).itemsize}")
