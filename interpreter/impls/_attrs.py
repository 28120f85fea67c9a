"""Reading an op's inherent attributes as plain Python values, whatever xDSL class holds them.

The IR stores properties as xDSL attributes: `IntegerAttr` (`.value.data`), `DenseArrayBase`
(`.get_values()`), dense elements (`DenseIntOrFPElementsAttr`), enum attributes (`.data` is the case
name), struct attributes (`.data` is a frozen dataclass with the spec's field names) and `UnitAttr`
flags.  These helpers accept any of them (and plain Python values), so impls read `ints(op, "dimensions")`
instead of knowing which class a given op uses.  A missing optional attribute gives the default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Data, Operation

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.context import CONTEXT

_MISSING = object()


def attr(op: Operation, name: str) -> Any:
    """The attribute `name` of `op` (property first, then discardable attribute), or None."""
    a = op.properties.get(name)
    if a is None:
        a = op.attributes.get(name)
    return a


def has(op: Operation, name: str) -> bool:
    return attr(op, name) is not None


def value_of(a: Any) -> Any:
    """Plain Python value of an attribute: int, float, bool, str, list, dataclass, ndarray."""
    if a is None:
        return None
    if isinstance(a, UnitAttr):
        return True
    if isinstance(a, IntegerAttr):
        v = int(a.value.data)
        width = getattr(a.type, "width", None)
        if width is not None and width.data == 1:
            return bool(v)
        return v
    if isinstance(a, FloatAttr):
        return float(a.value.data)
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, SymbolRefAttr):
        return a.root_reference.data
    if isinstance(a, DenseArrayBase):
        return [v for v in a.get_values()]
    if isinstance(a, DenseIntOrFPElementsAttr):
        from stablehlo_py.interpreter.values import array_from_attr

        return array_from_attr(a)
    if isinstance(a, ArrayAttr):
        return [value_of(x) for x in a.data]
    if isinstance(a, Data):
        return a.data
    return a  # e.g. a ParametrizedAttribute: read its fields with `field`


def get(op: Operation, name: str, default: Any = None) -> Any:
    a = attr(op, name)
    return default if a is None else value_of(a)


def ints(op: Operation, name: str, default: Any = None) -> list[int] | None:
    """An integer list attribute (dense array, array attr, 1-d dense elements)."""
    a = attr(op, name)
    if a is None:
        return default
    return as_ints(value_of(a))


def as_ints(v: Any) -> list[int]:
    if isinstance(v, np.ndarray):
        return [int(x) for x in v.reshape(-1)]
    return [int(x) for x in v]


def _scalar(op: Operation, name: str, default: Any, convert: Callable[[Any], Any]) -> Any:
    """Attribute `name` as one python scalar (`convert` of its value, or of an array's first
    element); `default` when absent, which is an error when `default` is None."""
    a = attr(op, name)
    if a is None:
        if default is None:
            raise InterpreterError(f"'{op.name}' needs the attribute '{name}'")
        return default
    v = value_of(a)
    return convert(v.reshape(-1)[0] if isinstance(v, np.ndarray) else v)


def int_(op: Operation, name: str, default: int | None = None) -> int:
    return _scalar(op, name, default, int)


def bool_(op: Operation, name: str, default: bool = False) -> bool:
    return _scalar(op, name, default, bool)


def bools(op: Operation, name: str) -> list[bool] | None:
    a = attr(op, name)
    if a is None:
        return None
    v = value_of(a)
    return [bool(x) for x in (v.reshape(-1) if isinstance(v, np.ndarray) else v)]


def float_(op: Operation, name: str, default: float | None = None) -> float:
    return _scalar(op, name, default, float)


def enum(op: Operation, name: str, default: str | None = None) -> str | None:
    """An enum attribute's case name (`"FFT"`, `"LT"`), upper-case."""
    a = attr(op, name)
    if a is None:
        return default
    v = value_of(a)
    if isinstance(v, str):
        return v.upper()
    data = getattr(v, "data", None)
    if isinstance(data, str):
        return data.upper()
    text = str(v)
    return text.split()[-1].rstrip(">").upper()


def field(struct: Any, name: str, default: Any = _MISSING) -> Any:
    """A field of a struct attribute (dot/conv/gather dimension numbers, channel_handle)."""
    if struct is None:
        if default is _MISSING:
            raise InterpreterError(f"missing struct attribute (wanted its field '{name}')")
        return default
    candidates = [struct]
    data = getattr(struct, "data", None)
    if data is not None:
        candidates.insert(0, data)
    for c in candidates:
        is_struct = dataclasses.is_dataclass(c) and not isinstance(c, type)
        if is_struct and any(f.name == name for f in dataclasses.fields(c)):
            return _plain(getattr(c, name))
        if isinstance(c, dict) and name in c:
            return _plain(c[name])
    if hasattr(struct, name):
        return _plain(getattr(struct, name))
    if default is _MISSING:
        raise InterpreterError(f"struct attribute {struct} has no field '{name}'")
    return default


def _plain(v: Any) -> Any:
    if isinstance(v, Attribute):
        return value_of(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def struct(op: Operation, name: str) -> Any:
    return attr(op, name)


def result_shape(
    op: Operation,
    i: int = 0,
    derived: Sequence[int | None] | Callable[[], Sequence[int | None] | None] | None = None,
) -> tuple[int, ...]:
    """Result `i`'s shape: its type's when static; a `?` dimension is taken from `derived` (the
    sizes the impl computed from operands and attributes, None where they do not fix it; a
    callable is only called for a dynamic type) and a clear error says which dimension cannot be
    determined."""
    from stablehlo_py.interpreter.shapes import resolve_shape

    t = op.results[i].type
    if isinstance(t, TensorType):
        static = tuple(int(d) for d in t.get_shape())
        if all(d >= 0 for d in static):
            return static
    elif not isinstance(t, UnrankedTensorType):
        raise InterpreterError(f"result {i} of '{op.name}' is not a tensor")
    sizes = derived() if callable(derived) else derived
    if sizes is None:
        sizes = [None] * len(static) if isinstance(t, TensorType) else [None]
    return resolve_shape(op, i, sizes)


def result_dtype(op: Operation, i: int = 0) -> np.dtype:
    """numpy dtype of result `i`'s elements; for a quantized type, its expressed type (impls of
    quantized ops receive and return dequantized values, see `impls/quantization.py`), except for
    an op with regions, which moves storage values (`quantization._region_op`)."""
    t = op.results[i].type
    return _arg_dtype(t) if op.regions and isinstance(t, TensorType) else _expressed_dtype(t)


def static_shape(t: Any) -> tuple[int, ...] | None:
    """Type `t`'s shape when it is a shaped type with every dimension static, else None."""
    get_shape = getattr(t, "get_shape", None)
    if get_shape is None:
        return None
    shape = tuple(int(x) for x in get_shape())
    return shape if all(x >= 0 for x in shape) else None


def region_arg_dtypes(region: Any) -> list[np.dtype | None]:
    """dtypes of a region's block arguments (None for non-tensor arguments)."""
    return [_arg_dtype(a.type) for a in region.blocks.first.args]


@CONTEXT.memo("interpreter.expressed_dtypes", maxsize=4096)
def _expressed_dtype(t: Attribute) -> np.dtype:
    """The element dtype of type `t` (the expressed type's when quantized).  Types are immutable
    and hashable, so each one is decoded once per process."""
    from stablehlo_py.ir.types import UniformQuantizedType

    e = t.element_type if isinstance(t, TensorType) else t
    if isinstance(e, UniformQuantizedType):
        return dtype_of_type(e.params.expressed_type)
    return dtype_of_type(t)


@CONTEXT.memo("interpreter.argument_dtypes", maxsize=4096)
def _arg_dtype(t: Attribute) -> np.dtype | None:
    """A region argument's dtype; the storage type's when quantized (a region on quantized
    elements receives storage values, its quantized ops dequantize them)."""
    if isinstance(t, TensorType):
        return dtype_of_type(t)
    return None


def to_types(values: list[Any], dtypes: list[np.dtype | None]) -> list[Any]:
    """`to_destination_type`: convert each array to the dtype of the region argument it feeds."""
    from stablehlo_py.semantics.conversion import convert

    out = []
    for v, d in zip(values, dtypes):
        if d is not None and isinstance(v, np.ndarray) and v.dtype != d:
            out.append(convert(v, d))
        else:
            out.append(v)
    return out


def sym_name(a: Any) -> str:
    """`@f` (FlatSymbolRefAttr / SymbolRefAttr / StringAttr) -> "f"."""
    if isinstance(a, SymbolRefAttr):
        return a.root_reference.data
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, str):
        return a
    raise InterpreterError(f"expected a symbol reference, got {a}")
