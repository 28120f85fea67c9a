"""Printing interpreter values the way upstream's `stablehlo-translate --interpret` does.

A tensor prints as upstream's `Tensor::print`: its type, then the elements nested by dimension,
each nested list on its own line indented by two spaces per level (`tensor<ui8> {1}` for rank 0):

    tensor<2x2xi8> {
      [
        [1, 2],
        [3, 4]
      ]
    }

Integers print in decimal, `i1` as `true`/`false`, floats as MLIR prints a float attribute
(`1.000000e+00`, shortest round-trip text otherwise, hex bits for inf/NaN), complex numbers as
`[re, im]`.  A token prints as its type `!stablehlo.token`.  With `dense=True`
(`--interpreter-print-dense`) a tensor prints as its dense attribute: `dense<[1, 2]> : tensor<2xi8>`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.semantics import dtypes
from xdsl.dialects.builtin import ComplexType, TensorType
from xdsl.ir import Attribute


def type_of_value(value: Any) -> Attribute:
    """The IR type of an interpreter value (a ranked tensor type built from the array's dtype)."""
    from stablehlo_py.interpreter.evaluator import Token

    from stablehlo_py.ir.types import TOKEN, simple_type, tensor_type

    if isinstance(value, Token):
        return TOKEN
    arr = np.asarray(value)
    name = dtypes.name_of(arr.dtype)
    if name.startswith("complex<"):
        elem: Attribute = ComplexType(simple_type(name[len("complex<") : -1]))  # type: ignore[arg-type]
    else:
        elem = simple_type(name)  # type: ignore[assignment]
    return tensor_type(elem, tuple(arr.shape))


def _element_strings(arr: np.ndarray, elem: Attribute) -> np.ndarray:
    """One string per element (an object array of `arr`'s shape)."""
    from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float
    from stablehlo_py.ir.types import element_type_name

    flat = arr.reshape(-1)
    name = dtypes.name_of(arr.dtype)
    if dtypes.is_bool(arr.dtype):
        items = ["true" if v else "false" for v in flat.tolist()]
    elif dtypes.is_int(arr.dtype):
        items = [str(v) for v in flat.astype(np.uint64 if name == "ui64" else np.int64).tolist()]
    elif dtypes.is_complex(arr.dtype):
        inner = element_type_name(elem.element_type) if isinstance(elem, ComplexType) else None
        sem = FLOAT_SEMANTICS[inner or ("f32" if arr.dtype == np.complex64 else "f64")]
        items = [
            f"[{format_float(v, sem)}, {format_float(w, sem)}]"
            for v, w in zip(flat.real.astype(sem.dtype), flat.imag.astype(sem.dtype))
        ]
    else:
        sem = FLOAT_SEMANTICS[element_type_name(elem) or name]
        items = [format_float(v, sem) for v in flat]
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(arr.shape)


def _nested(strs: np.ndarray, indent: int, last: bool) -> str:
    """Upstream's printHelper for one nesting level (a sub-array of rank >= 1)."""
    pad = "  " * indent
    if strs.ndim == 1:
        body = ", ".join(strs.tolist())
    else:
        n = strs.shape[0]
        body = "".join(_nested(strs[i], indent + 1, i == n - 1) for i in range(n))
    tail = "\n" + "  " * (indent - 1) if last else ","
    return f"\n{pad}[{body}]{tail}"


def _static_type(arr: np.ndarray, type_: Attribute | None) -> TensorType:
    """`type_` when it is a tensor type of `arr`'s shape; a dynamic type (`tensor<?xi32>`) takes the
    runtime shape; otherwise the type is built from the array."""
    from stablehlo_py.ir.types import tensor_type

    if isinstance(type_, TensorType):
        if tuple(type_.get_shape()) == arr.shape:
            return type_
        if len(type_.get_shape()) == arr.ndim:
            return tensor_type(type_.element_type, tuple(arr.shape))
    return type_of_value(arr)  # type: ignore[return-value]


def format_tensor(value: Any, type_: Attribute | None = None) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    arr = np.asarray(value)
    t = _static_type(arr, type_)
    strs = _element_strings(arr, t.element_type)  # type: ignore[union-attr]
    if arr.ndim == 0:
        body = strs.reshape(())[()]
    else:
        body = _nested(strs, 1, True)
    return f"{type_to_str(t)} {{{body}}}"


def format_dense(value: Any, type_: Attribute | None = None) -> str:
    """`dense<...> : tensor<...>` as MLIR prints the attribute (splats collapse to one value)."""
    from stablehlo_py.ir.text.dense import dense_body, make_dense
    from stablehlo_py.ir.text.printer import type_to_str
    from stablehlo_py.ir.types import storage_dtype

    arr = np.asarray(value)
    t = _static_type(arr, type_)
    storage = storage_dtype(t.element_type)  # type: ignore[union-attr]
    attr = make_dense(t, arr.astype(storage))  # type: ignore[arg-type]
    return f"dense<{dense_body(attr)}> : {type_to_str(t)}"


def format_value(value: Any, type_: Attribute | None = None, *, dense: bool = False) -> str:
    """Text of one interpreter value (`type_`: its IR type, when known)."""
    from stablehlo_py.interpreter.evaluator import Token

    if isinstance(value, Token):
        return "!stablehlo.token"
    if isinstance(value, tuple):
        types = list(type_.types.data) if type_ is not None and hasattr(type_, "types") else []
        parts = [
            format_value(v, types[i] if i < len(types) else None, dense=dense)
            for i, v in enumerate(value)
        ]
        return "tuple(" + ", ".join(parts) + ")"
    from stablehlo_py.ir.types import UniformQuantizedType

    if isinstance(type_, TensorType) and isinstance(type_.element_type, UniformQuantizedType):
        type_ = None  # values of quantized tensors are their storage integers
    return format_dense(value, type_) if dense else format_tensor(value, type_)
