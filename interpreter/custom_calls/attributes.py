"""Python values of the attributes a custom call carries, as `CallContext` hands them to a target:
integers, floats, booleans, strings, lists, dictionaries and numpy arrays; an attribute with no
simple python form is passed as the xDSL attribute itself."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)

from stablehlo_py.ir.text.dense import dense_values


def python_value(attr: Any) -> Any:
    """The python value of `attr` (see the module docstring)."""
    if isinstance(attr, IntegerAttr):
        value = attr.value.data
        t = attr.type
        return bool(value) if isinstance(t, IntegerType) and t.width.data == 1 else int(value)
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, DictionaryAttr):
        return {k: python_value(v) for k, v in attr.data.items()}
    if isinstance(attr, ArrayAttr):
        return [python_value(v) for v in attr.data]
    if isinstance(attr, SymbolRefAttr):
        return attr.string_value() if hasattr(attr, "string_value") else attr.root_reference.data
    if isinstance(attr, DenseArrayBase):
        return [v for v in attr.get_values()]
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return np.asarray(dense_values(attr))
    return attr


def layouts(attr: Any) -> tuple[tuple[int, ...], ...] | None:
    """`operand_layouts`/`result_layouts` (an array of 1-d index tensors, minor-to-major), or None."""
    if attr is None:
        return None
    return tuple(tuple(int(d) for d in np.asarray(dense_values(x)).reshape(-1)) for x in attr.data)
