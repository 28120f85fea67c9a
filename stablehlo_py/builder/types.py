"""Type specifications accepted by the builder, as xDSL types.

One function, :func:`to_type`, reads every form a user may write for a type:

- an xDSL type attribute (``TensorType``, ``IntegerType``, ``TokenType``, ...), used as is;
- MLIR type text: ``"tensor<2x3xf32>"``, ``"tensor<?x4xi32, #stablehlo.bounds<8, ?>>"``, ``"!stablehlo.token"``,
  ``"tuple<tensor<f32>>"`` (read by the toolkit's own parser, so every type it parses is accepted);
- a ``(shape, dtype)`` pair: ``((2, 3), "f32")``, ``((None, 4), np.int32)`` (``None`` or ``-1`` is a
  dynamic dimension), where the dtype is an element-type spelling or anything ``np.dtype`` takes;
- an element type alone (``"f32"``, ``np.float32``) for a 0-d tensor when ``scalar_as_tensor`` is set.

:func:`tensor` builds a tensor type from a shape and a dtype.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ComplexType, TensorType
from xdsl.ir import Attribute, TypeAttribute

from stablehlo_py.builder.errors import BuildError
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.types import DYNAMIC, simple_type, storage_dtype, tensor_type

TypeSpec = Any
"""Anything :func:`to_type` accepts."""


@CONTEXT.memo("builder.type_text", maxsize=4096)
def _parse_type_text(text: str) -> Attribute:
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<type>")
    t = p.parse_type()
    p.ws()
    if p.pos != len(p.text):
        p.error(f"unexpected text after the type: {p.text[p.pos :]!r}")
    return t


def _numpy_element(dtype: Any) -> Attribute:
    from stablehlo_py.semantics.dtypes import element_type as dtype_row

    name = dtype_row(dtype).name
    return element_type_of(name)


def element_type_of(spec: Any) -> Attribute:
    """An element type from its MLIR spelling (``"bf16"``, ``"complex<f32>"``, ``"ui8"``) or a numpy
    dtype (``np.float32``, ``ml_dtypes.bfloat16``, ``"float32"``); anything else is a BuildError."""
    try:
        return _element_type_of(spec)
    except TypeError:  # the memo could not hash it (a list, a dict): not a spelling nor a dtype
        try:
            hash(spec)
        except TypeError:
            raise _not_element_type(spec) from None
        raise


def _not_element_type(spec: Any) -> BuildError:
    return BuildError(
        f"{spec!r} is not an element type",
        note="write an MLIR spelling (f32, bf16, i32, ui8, i1, complex<f32>) or a numpy dtype",
    )


@CONTEXT.memo("builder.element_types", maxsize=256)
def _element_type_of(spec: Any) -> Attribute:
    if isinstance(spec, Attribute):
        return spec
    if isinstance(spec, str):
        t = simple_type(spec)
        if t is not None:
            return t
        if spec.startswith("complex<") and spec.endswith(">"):
            return ComplexType(element_type_of(spec[8:-1]))  # type: ignore[arg-type]
    try:
        return _numpy_element(spec)
    except Exception:  # noqa: BLE001 -- any failure is the user's spelling
        raise _not_element_type(spec) from None


def _dims(shape: Sequence[Any]) -> tuple[int, ...]:
    out = []
    for d in shape:
        if d is None or d == "?" or (isinstance(d, int | np.integer) and int(d) == DYNAMIC):
            out.append(DYNAMIC)
        elif isinstance(d, int | np.integer) and int(d) >= 0:
            out.append(int(d))
        else:
            raise BuildError(
                f"bad dimension {d!r} in shape {tuple(shape)!r}",
                note="a dimension is a non-negative int, or None / -1 / '?' for a dynamic one",
            )
    return tuple(out)


def tensor(shape: Sequence[Any], dtype: Any = "f32") -> TensorType:
    """``tensor((2, 3), "f32")`` -> ``tensor<2x3xf32>``; ``None`` or ``-1`` makes a dimension dynamic."""
    return tensor_type(element_type_of(dtype), _dims(shape))


def to_type(spec: TypeSpec, *, scalar_as_tensor: bool = False) -> Attribute:
    """The xDSL type of a type specification (see the module docstring); raises BuildError."""
    if isinstance(spec, TypeAttribute):
        if scalar_as_tensor and not isinstance(spec, TensorType) and _is_element(spec):
            return tensor_type(spec, ())
        return spec
    if isinstance(spec, Attribute):
        raise BuildError(
            f"{spec} is an attribute, not a type", note="give a type such as tensor((2, 3), 'f32')"
        )
    if isinstance(spec, str):
        text = spec.strip()
        if scalar_as_tensor and not text.startswith(("tensor", "!", "tuple", "complex<")):
            return tensor_type(element_type_of(text), ())
        try:
            return _parse_type_text(text)
        except BuildError:
            raise
        except Exception as e:  # noqa: BLE001 -- ParseError or anything the parser raised
            raise BuildError(
                f"cannot read the type {spec!r}: {getattr(e, 'message', e)}",
                note="write MLIR type text such as 'tensor<2x3xf32>', or (shape, dtype)",
            ) from None
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], Sequence | np.ndarray):
        return tensor(spec[0], spec[1])
    if scalar_as_tensor:
        return tensor_type(element_type_of(spec), ())
    raise BuildError(
        f"cannot make a type of {spec!r}",
        note="give an xDSL type, MLIR type text ('tensor<2x3xf32>') or a (shape, dtype) pair",
    )


def _is_element(t: Attribute) -> bool:
    try:
        storage_dtype(t)
    except Exception:  # noqa: BLE001
        return False
    return True
