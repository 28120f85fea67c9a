"""Element types of the interpreter: MLIR spelling <-> numpy dtype, and their predicates.

One table (``_TABLE``) lists every element type the interpreter supports, with its MLIR spelling
(as StableHLO prints it: ``i1``, ``ui4``, ``bf16``, ``f8E4M3FN``, ``complex<f32>``), its numpy dtype
(numpy or ``ml_dtypes``), its kind and its bit width as the spec counts it (``num_bits``: ``i1`` is
1 bit, ``i4`` is 4 bits, ``f6E2M3FN`` is 6 bits, ``complex<f32>`` is 64 bits), although numpy stores
``i1`` and every sub-byte type in one byte per element.

``tf32`` is listed by the spec but ``ml_dtypes`` has no dtype for it; asking for it raises
:class:`~stablehlo_py.errors.NotSupportedError` (it is added automatically if a future ``ml_dtypes``
provides ``tf32``).

Everything else in this module is derived from the table; predicates take anything ``np.dtype``
accepts, an array, or an MLIR spelling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import ml_dtypes
import numpy as np

from stablehlo_py.errors import NotSupportedError

Kind = Literal["bool", "sint", "uint", "float", "complex"]


@dataclass(frozen=True)
class ElementType:
    """One row of the table: an element type as MLIR spells it and as numpy stores it."""

    name: str
    dtype: np.dtype[Any]
    kind: Kind
    bits: int


def _row(name: str, dtype: Any, kind: Kind, bits: int) -> ElementType:
    return ElementType(name, np.dtype(dtype), kind, bits)


_TABLE: tuple[ElementType, ...] = (
    _row("i1", np.bool_, "bool", 1),
    _row("i2", ml_dtypes.int2, "sint", 2),
    _row("i4", ml_dtypes.int4, "sint", 4),
    _row("i8", np.int8, "sint", 8),
    _row("i16", np.int16, "sint", 16),
    _row("i32", np.int32, "sint", 32),
    _row("i64", np.int64, "sint", 64),
    _row("ui2", ml_dtypes.uint2, "uint", 2),
    _row("ui4", ml_dtypes.uint4, "uint", 4),
    _row("ui8", np.uint8, "uint", 8),
    _row("ui16", np.uint16, "uint", 16),
    _row("ui32", np.uint32, "uint", 32),
    _row("ui64", np.uint64, "uint", 64),
    _row("bf16", ml_dtypes.bfloat16, "float", 16),
    _row("f16", np.float16, "float", 16),
    _row("f32", np.float32, "float", 32),
    _row("f64", np.float64, "float", 64),
    _row("f8E4M3FN", ml_dtypes.float8_e4m3fn, "float", 8),
    _row("f8E5M2", ml_dtypes.float8_e5m2, "float", 8),
    _row("f8E4M3FNUZ", ml_dtypes.float8_e4m3fnuz, "float", 8),
    _row("f8E5M2FNUZ", ml_dtypes.float8_e5m2fnuz, "float", 8),
    _row("f8E4M3B11FNUZ", ml_dtypes.float8_e4m3b11fnuz, "float", 8),
    _row("f8E3M4", ml_dtypes.float8_e3m4, "float", 8),
    _row("f8E4M3", ml_dtypes.float8_e4m3, "float", 8),
    _row("f8E8M0FNU", ml_dtypes.float8_e8m0fnu, "float", 8),
    _row("f6E2M3FN", ml_dtypes.float6_e2m3fn, "float", 6),
    _row("f6E3M2FN", ml_dtypes.float6_e3m2fn, "float", 6),
    _row("f4E2M1FN", ml_dtypes.float4_e2m1fn, "float", 4),
    _row("complex<f32>", np.complex64, "complex", 64),
    _row("complex<f64>", np.complex128, "complex", 128),
) + ((_row("tf32", ml_dtypes.tf32, "float", 19),) if hasattr(ml_dtypes, "tf32") else ())

#: The spellings the spec lists that this installation cannot represent, with the reason.
UNSUPPORTED: dict[str, str] = (
    {}
    if hasattr(ml_dtypes, "tf32")
    else {"tf32": f"ml_dtypes {ml_dtypes.__version__} has no tf32 dtype"}
)

BY_NAME: dict[str, ElementType] = {row.name: row for row in _TABLE}
BY_DTYPE: dict[np.dtype[Any], ElementType] = {row.dtype: row for row in _TABLE}

#: MLIR spelling -> numpy dtype, derived from the table.
ELEMENT_TYPES: dict[str, np.dtype[Any]] = {row.name: row.dtype for row in _TABLE}


def element_type(spec: Any) -> ElementType:
    """The table row of an MLIR spelling, a numpy dtype (or anything ``np.dtype`` takes) or an array."""
    if isinstance(spec, ElementType):
        return spec
    if isinstance(spec, str):
        row = BY_NAME.get(spec)
        if row is not None:
            return row
        if spec in UNSUPPORTED:
            raise NotSupportedError(
                f"element type '{spec}' is not supported: {UNSUPPORTED[spec]}",
                note="convert the program to a supported element type (e.g. f32)",
            )
    dtype = spec.dtype if isinstance(spec, np.ndarray | np.generic) else None
    try:
        dtype = np.dtype(spec) if dtype is None else dtype
    except TypeError:
        dtype = None
    row = BY_DTYPE.get(dtype) if dtype is not None else None
    if row is None:
        raise NotSupportedError(
            f"element type {spec!r} is not a StableHLO element type the interpreter supports",
            note="supported: " + ", ".join(BY_NAME),
        )
    return row


def dtype_of(name: str) -> np.dtype[Any]:
    """The numpy dtype of an MLIR element-type spelling (``"bf16"`` -> ``ml_dtypes.bfloat16``)."""
    return element_type(name).dtype


def as_dtype(spec: Any) -> np.dtype[Any]:
    """A numpy dtype from an MLIR spelling or anything ``np.dtype`` accepts."""
    return element_type(spec).dtype


def name_of(spec: Any) -> str:
    """The MLIR spelling of a dtype (``np.float32`` -> ``"f32"``)."""
    return element_type(spec).name


def is_bool(spec: Any) -> bool:
    return element_type(spec).kind == "bool"


def is_signed_int(spec: Any) -> bool:
    return element_type(spec).kind == "sint"


def is_unsigned_int(spec: Any) -> bool:
    return element_type(spec).kind == "uint"


def is_int(spec: Any) -> bool:
    """Signed or unsigned integer (not ``i1``, which the spec calls boolean)."""
    return element_type(spec).kind in ("sint", "uint")


def is_float(spec: Any) -> bool:
    return element_type(spec).kind == "float"


def is_complex(spec: Any) -> bool:
    return element_type(spec).kind == "complex"


def bitwidth(spec: Any) -> int:
    """``num_bits`` of the spec: the bits of one element (``i1`` -> 1, ``complex<f64>`` -> 128)."""
    return element_type(spec).bits


def complex_element_type(spec: Any) -> np.dtype[Any]:
    """The float dtype of a complex dtype's parts (``complex<f32>`` -> ``f32``)."""
    row = element_type(spec)
    if row.kind != "complex":
        raise NotSupportedError(f"element type '{row.name}' is not complex")
    return np.dtype(np.float32) if row.bits == 64 else np.dtype(np.float64)


def complex_type_of(spec: Any) -> np.dtype[Any]:
    """The complex dtype whose parts have this float dtype (``f32`` -> ``complex<f32>``)."""
    row = element_type(spec)
    if row.name == "f32":
        return np.dtype(np.complex64)
    if row.name == "f64":
        return np.dtype(np.complex128)
    raise NotSupportedError(f"complex<{row.name}> is not a supported element type (only f32, f64)")


def mantissa_bits(spec: Any) -> int:
    """Explicit mantissa (fraction) bits of a float type (``f32`` -> 23, ``bf16`` -> 7)."""
    row = element_type(spec)
    if row.kind != "float":
        raise NotSupportedError(f"element type '{row.name}' is not a floating-point type")
    return int(ml_dtypes.finfo(row.dtype).nmant)


def min_value(spec: Any) -> int | float | bool:
    """The lowest value of the type: ``min_value`` of the spec for integers, lowest finite for floats."""
    row = element_type(spec)
    if row.kind == "bool":
        return False
    if row.kind == "sint":
        return -(1 << (row.bits - 1))
    if row.kind == "uint":
        return 0
    if row.kind == "float":
        return float(ml_dtypes.finfo(row.dtype).min)
    raise NotSupportedError(f"element type '{row.name}' has no order (complex)")


def max_value(spec: Any) -> int | float | bool:
    """The largest value of the type (largest finite for floats)."""
    row = element_type(spec)
    if row.kind == "bool":
        return True
    if row.kind == "sint":
        return (1 << (row.bits - 1)) - 1
    if row.kind == "uint":
        return (1 << row.bits) - 1
    if row.kind == "float":
        return float(ml_dtypes.finfo(row.dtype).max)
    raise NotSupportedError(f"element type '{row.name}' has no order (complex)")
