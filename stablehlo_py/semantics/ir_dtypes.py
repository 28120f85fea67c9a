"""IR element types -> numpy dtypes (the table of `dtypes.py`): the one bridge from the IR's types
to the op math, used by the interpreter and by the passes that run the math (chlo-legalize)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ComplexType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.types import UniformQuantizedType, element_type_name
from stablehlo_py.semantics import dtypes


def element_name(t: Attribute) -> str:
    """MLIR spelling of an element type (`f32`, `ui4`, `complex<f32>`)."""
    if isinstance(t, ComplexType):
        return f"complex<{element_type_name(t.element_type)}>"
    if isinstance(t, UniformQuantizedType):
        return element_name(t.params.storage_type)
    name = element_type_name(t)
    if name is None:
        raise NotSupportedError(f"the interpreter does not support element type {t}")
    return "i64" if name == "index" else name


def dtype_of_type(t: Attribute) -> np.dtype:
    """numpy dtype of a tensor type's elements."""
    if isinstance(t, (TensorType, UnrankedTensorType)):
        t = t.element_type
    return dtypes.dtype_of(element_name(t))
