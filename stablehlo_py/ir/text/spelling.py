"""How a type or an attribute is spelled in MLIR text (`tensor<2x?xf32>`, `dense<1> : tensor<i32>`,
`"a\\0A"`): the bottom of the text layer.  The printer, the op formats and the directives write types
and attributes through these functions; they know types, attributes and dense bodies, nothing of ops
or the registry."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType, TypedStringAttr
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text import dense as dense_text
from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.types import FLOAT_NAME, TokenType, element_type_name

_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
_I64 = IntegerType(64)

# ----------------------------------------------------------------------------------------- types
_TYPE_TEXT = CONTEXT.table("text.type_text", 1 << 16)
_TYPE_TEXT_BY_ID = CONTEXT.identity_map("text.type_text_by_identity", 1 << 16)
"""type -> its text, by identity (hashing an xDSL type walks all its parameters in Python); a miss
looks the type up by value in `_TYPE_TEXT`."""


def _type_text_by_value(t: Attribute) -> str:
    s = _TYPE_TEXT.get(t)
    if s is None:
        s = _TYPE_TEXT.put(t, _type_text(t))
    return s


type_to_str = _TYPE_TEXT_BY_ID.memoize(_type_text_by_value)
type_to_str.__name__ = type_to_str.__qualname__ = "type_to_str"
type_to_str.__doc__ = "A type's text (`tensor<2x?xf32>`), remembered by the type's identity."


_MEMO_MAX_BYTES = 256
_MEMO_LIMIT = 8192
_TEXT_MEMO = CONTEXT.table("text.attribute_text", _MEMO_LIMIT)


def memo_text(kind: str, type_text: str, data: bytes, compute: Callable[[], str]) -> str:
    """The text `compute()` gives for an attribute of `kind` determined by its type and raw bytes
    (e.g. the body of `dense<0.0> : tensor<f32>`), remembered across ops and calls when the bytes
    are small; at most _MEMO_LIMIT entries of at most _MEMO_MAX_BYTES bytes."""
    if len(data) > _MEMO_MAX_BYTES:
        return compute()
    key = (kind, type_text, data)
    text = _TEXT_MEMO.get(key)
    if text is None:
        text = compute()
        _TEXT_MEMO.put(key, text)
    return text


def _type_text(t: Attribute) -> str:
    name = element_type_name(t)
    if name is not None:
        return name
    if isinstance(t, TensorType):
        dims = "".join(("?" if d < 0 else str(d)) + "x" for d in t.get_shape())
        enc = t.encoding
        if isinstance(enc, NoneAttr):
            return f"tensor<{dims}{type_to_str(t.element_type)}>"
        if isinstance(enc, OpaqueAttr) and any(
            str(enc.data).startswith(p) for p in ALIASED_ATTRIBUTES
        ):
            _SEEN_ALIASED[0] = True
        return f"tensor<{dims}{type_to_str(t.element_type)}, {attr_to_str(enc)}>"
    if isinstance(t, UnrankedTensorType):
        return f"tensor<*x{type_to_str(t.element_type)}>"
    if t.name == "memref":  # xDSL's MemRefType without layout / memory space (StableHLO buffers)
        dims = "".join(("?" if d < 0 else str(d)) + "x" for d in t.get_shape())  # type: ignore[attr-defined]
        return f"memref<{dims}{type_to_str(t.element_type)}>"  # type: ignore[attr-defined]
    if t.name == "unranked_memref":  # xDSL's UnrankedMemRefType without memory space
        return f"memref<*x{type_to_str(t.element_type)}>"  # type: ignore[attr-defined]
    if isinstance(t, ComplexType):
        return f"complex<{type_to_str(t.element_type)}>"
    if isinstance(t, TupleType):
        return "tuple<" + ", ".join(type_to_str(x) for x in t.types.data) + ">"
    if isinstance(t, FunctionType):
        return function_type_to_str(t.inputs.data, t.outputs.data)
    if isinstance(t, TokenType):
        return "!stablehlo.token"
    if isinstance(t, OpaqueType):
        return str(t.data)
    printer = getattr(t, "mlir_text", None)
    if printer is not None:
        return printer()
    raise ValueError(f"cannot print type {t!r}")


def function_type_to_str(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> str:
    ins = ", ".join([type_to_str(x) for x in inputs])
    return f"({ins}) -> {result_types_to_str(outputs)}"


def result_types_to_str(outputs: Sequence[Attribute]) -> str:
    """MLIR's printOptionalArrowTypeList body: one non-function type bare, else parenthesised."""
    if len(outputs) == 1 and not isinstance(outputs[0], FunctionType):
        return type_to_str(outputs[0])
    return "(" + ", ".join([type_to_str(x) for x in outputs]) + ")"


# ------------------------------------------------------------------------------------ attributes
def escape_string(s: str) -> str:
    """llvm::printEscapedString over the UTF-8 bytes."""
    out = []
    for b in s.encode("utf-8", "surrogateescape"):
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F and b != 0x22:
            out.append(chr(b))
        else:
            out.append("\\" + format(b, "02X"))
    return "".join(out)


def string_literal(s: str) -> str:
    return '"' + escape_string(s) + '"'


def symbol_text(name: str) -> str:
    if _BARE_KEY.match(name) and not name[:1].isdigit():
        return "@" + name
    return "@" + string_literal(name)


def attr_to_str(a: Attribute, elide_type: bool = False, may_elide: bool = False) -> str:
    """Full attribute text (`1 : i64`, `dense<...> : tensor<...>`, `#stablehlo<...>`).

    `may_elide` is MLIR's AttrTypeElision::May (array elements): i64 integers and f64 floats drop
    their type there (`[0, 1]`, not `[0 : i64, 1 : i64]`)."""
    cls = type(a)
    kind = _ATTR_KIND.get(cls, _UNSEEN)
    if kind is _UNSEEN:
        kind = _ATTR_KIND.put(cls, next((k for k in _ATTR_KINDS if isinstance(a, k)), None))
    if kind is StringAttr:
        return string_literal(a.data)
    if kind is IntegerAttr:
        t = a.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if a.value.data else "false"
        v = a.value.data
        if elide_type or (may_elide and t == _I64):
            return str(v)
        return f"{v} : {type_to_str(t)}"
    if kind is FloatAttr:
        sem = FLOAT_SEMANTICS[FLOAT_NAME[type(a.type)]]
        text = format_float(np.asarray(a.value.data, dtype=sem.dtype)[()], sem)
        return (
            text
            if elide_type or (may_elide and sem.name == "f64")
            else f"{text} : {type_to_str(a.type)}"
        )
    if kind is DenseIntOrFPElementsAttr:
        type_text = type_to_str(a.type)
        body = memo_text("dense", type_text, a.data.data, lambda: dense_text.dense_body(a))
        body = "dense<" + body + ">"
        return body if elide_type else f"{body} : {type_text}"
    if kind is DenseArrayBase:
        return dense_text.dense_array_text(a)
    if kind is ArrayAttr:
        return "[" + ", ".join(attr_to_str(x, may_elide=True) for x in a.data) + "]"
    if kind is DictionaryAttr:
        return dict_to_str(a.data)
    if kind is SymbolRefAttr:
        return "::".join(symbol_text(x.data) for x in (a.root_reference, *a.nested_references.data))
    if kind is UnitAttr:
        return "unit"
    if kind is OpaqueAttr:
        return str(a.data)
    if kind is TypedStringAttr:
        return f"{string_literal(a.data)} : {type_to_str(a.type)}"
    if kind is TextLoc:
        return f"loc({a.data})"
    printer = getattr(a, "mlir_text", None)
    if printer is not None:
        return printer()
    return type_to_str(a)


# attr_to_str's cases, in the order it tests them; each attribute class is matched once
_ATTR_KINDS: tuple[type, ...] = (
    StringAttr,
    IntegerAttr,
    FloatAttr,
    DenseIntOrFPElementsAttr,
    DenseArrayBase,
    ArrayAttr,
    DictionaryAttr,
    SymbolRefAttr,
    UnitAttr,
    OpaqueAttr,
    TypedStringAttr,
    TextLoc,
)
_ATTR_KIND = CONTEXT.table("text.attribute_kind", 4096)  # class -> its kind in _ATTR_KINDS
_UNSEEN = object()


def dict_to_str(attrs: dict[str, Attribute] | Iterable[tuple[str, Attribute]]) -> str:
    """`{a = 1 : i64, b}` with keys sorted as MLIR's DictionaryAttr stores them."""
    items = attrs.items() if hasattr(attrs, "items") else attrs
    parts = []
    for k, v in sorted(items, key=lambda kv: kv[0]):
        key = k if _BARE_KEY.match(k) else string_literal(k)
        parts.append(key if isinstance(v, UnitAttr) else f"{key} = {attr_to_str(v)}")
    return "{" + ", ".join(parts) + "}"


# set once a type with an aliased encoding has been printed
_SEEN_ALIASED = CONTEXT.flag("text.seen_aliased")

# Unmodelled attributes MLIR prints through an alias at the top of the file: text prefix -> alias stem.
ALIASED_ATTRIBUTES = {"#sparse_tensor.encoding<": "#sparse"}
