"""Shared by the interpreter's semantics tests: the element-type lists and the value helpers
(bit views, wrap-around) that several test files need."""

from __future__ import annotations

import numpy as np
from stablehlo_py.interpreter import dtypes as dt

INT_TYPES = ["i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"]
# the float types below f32 (f8E8M0FNU, exponent only, is not among them)
NARROW_FLOATS = [
    "bf16",
    "f16",
    "f8E4M3FN",
    "f8E5M2",
    "f8E4M3FNUZ",
    "f8E5M2FNUZ",
    "f8E4M3B11FNUZ",
    "f8E3M4",
    "f8E4M3",
    "f6E2M3FN",
    "f6E3M2FN",
    "f4E2M1FN",
]
FLOAT_TYPES = [*NARROW_FLOATS[:2], "f32", "f64", *NARROW_FLOATS[2:]]


def bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}").tolist()


def f64bits(*hexes):
    return np.array(hexes, dtype=np.uint64).view(np.float64)


def wrap(value, name):
    n = dt.bitwidth(name)
    value %= 1 << n
    if dt.is_signed_int(name) and value >= 1 << (n - 1):
        value -= 1 << n
    return value
