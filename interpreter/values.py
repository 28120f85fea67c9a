"""IR types and attributes <-> interpreter values (numpy arrays of the dtypes of
`stablehlo_py/semantics/dtypes.py`; the type -> dtype mapping is `stablehlo_py/semantics/ir_dtypes.py`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, TupleType
from xdsl.ir import Attribute

from stablehlo_py.ir.text.dense import dense_values
from stablehlo_py.ir.types import TokenType
from stablehlo_py.semantics.ir_dtypes import dtype_of_type


def array_from_attr(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A dense attribute as an interpreter value (a fresh array, safe to keep)."""
    raw = dense_values(attr)
    dt = dtype_of_type(attr.type)
    if raw.dtype != dt:
        return raw.astype(dt)
    return np.array(raw)


def constant_from_attr(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A dense attribute as a read-only interpreter value: a view of the attribute's bytes when
    they are stored element by element in the value's dtype (no copy of a large constant), else a
    decoded copy (splats, sub-byte and converted element types), made read-only."""
    raw = dense_values(attr)
    if raw.dtype == dtype_of_type(attr.type) and raw.flags.c_contiguous and raw.size > 1:
        return raw  # np.frombuffer(...).reshape(...): read-only
    value = array_from_attr(attr)
    value.flags.writeable = False
    return value


def zeros_of(t: Attribute) -> Any:
    if isinstance(t, TokenType):
        from stablehlo_py.interpreter.evaluator import TOKEN

        return TOKEN
    if isinstance(t, TupleType):
        return tuple(zeros_of(x) for x in t.types.data)
    assert isinstance(t, TensorType)
    return np.zeros(t.get_shape(), dtype=dtype_of_type(t))
