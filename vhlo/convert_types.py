"""Builtin/StableHLO types <-> their VHLO counterparts (upstream's VhloTypeConverter), tensor
encodings included (`#stablehlo.bounds` <-> `#vhlo.type_extensions_v1`).

Below ``vhlo.attrs``, whose integer, float and tensor attributes print and parse their types with
these conversions; ``vhlo.convert`` (the attribute conversions) re-exports every public name.
Conversions are cached by the (hashable, immutable) input, so a module with 100k ops converts each
distinct type once.  A type with no VHLO counterpart converts to ``None``.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.vhlo import types as vt
from stablehlo_py.vhlo.attr_base import TypeExtensionsV1Attr, is_vhlo
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneAttr,
    NoneType,
    Signedness,
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.future_type import FutureType
from stablehlo_py.ir.types import (
    FLOAT_TYPES,
    TOKEN,
    QuantParams,
    TypeExtensionsAttr,
    UniformQuantizedType,
    tensor_type,
)

# --------------------------------------------------------------------------------------------
# Tables

FLOAT_TO_VHLO: dict[str, str] = {
    name: ("tf31_v1" if name == "tf32" else f"{name}_v1") for name in FLOAT_TYPES
}
"""Builtin float type name -> VHLO type name (upstream spells tf32's VHLO type `tf31_v1`)."""

INT_WIDTHS = (2, 4, 8, 16, 32, 64)
"""Integer widths with a VHLO type (signless -> `iN_v1`, unsigned -> `uiN_v1`; i1 -> `bool_v1`)."""

_TO_VHLO: dict[Attribute, Attribute] = {}
for _name, _t in FLOAT_TYPES.items():
    _TO_VHLO[_t] = vt.SIMPLE[FLOAT_TO_VHLO[_name]]
for _w in INT_WIDTHS:
    _TO_VHLO[IntegerType(_w)] = vt.SIMPLE[f"i{_w}_v1"]
    _TO_VHLO[IntegerType(_w, Signedness.UNSIGNED)] = vt.SIMPLE[f"ui{_w}_v1"]
_TO_VHLO[IntegerType(1)] = vt.BOOL
_TO_VHLO[IndexType()] = vt.INDEX
_TO_VHLO[NoneType()] = vt.NONE
_TO_VHLO[TOKEN] = vt.TOKEN
_TO_BUILTIN: dict[Attribute, Attribute] = {v: k for k, v in _TO_VHLO.items()}
"""The scalar types both ways (constants, filled here)."""
_TO_VHLO_SEEN = CONTEXT.table("vhlo.to_vhlo_type.by_value", 100_000)
_TO_BUILTIN_SEEN = CONTEXT.table("vhlo.to_builtin_type.by_value", 100_000)
"""The other types converted, by value (behind the memos by identity)."""
_MISS = object()


# --------------------------------------------------------------------------------------------
# Types


def _to_vhlo_type(t: Attribute) -> Attribute | None:
    got = _TO_VHLO.get(t, _MISS)
    if got is not _MISS:
        return got  # type: ignore[return-value]
    got = _TO_VHLO_SEEN.get(t, _MISS)
    if got is not _MISS:
        return got  # type: ignore[return-value]
    v = _convert_type(t)
    if v is not None:
        _TO_VHLO_SEEN.put(t, v)
    return v


to_vhlo_type = CONTEXT.identity_map("vhlo.to_vhlo_type", 100_000).memoize(_to_vhlo_type)
"""`to_vhlo_type(t)`: the VHLO type of a builtin/StableHLO type, or None when VHLO has no
counterpart (remembered by the identity of ``t``, in front of the memo by value: a program shares
most of its types, and hashing a nested one costs more than converting it once)."""


def _convert_type(t: Attribute) -> Attribute | None:
    if isinstance(t, vt.VhloType):
        return t
    if isinstance(t, TensorType):
        elem = to_vhlo_type(t.element_type)
        enc = t.encoding
        venc: Attribute | None = None
        if not isinstance(enc, NoneAttr):
            venc = to_vhlo_encoding(enc)
            if venc is None:
                return None
        return None if elem is None else vt.tensor_type(t.get_shape(), elem, venc)
    if isinstance(t, UnrankedTensorType):
        elem = to_vhlo_type(t.element_type)
        return None if elem is None else vt.UnrankedTensorV1Type(elem)
    if isinstance(t, ComplexType):
        elem = to_vhlo_type(t.element_type)
        return None if elem is None else vt.ComplexV1Type(elem)
    if isinstance(t, TupleType):
        items = [to_vhlo_type(x) for x in t.types.data]
        return None if any(x is None for x in items) else vt.TupleV1Type(tuple(items))  # type: ignore[arg-type]
    if isinstance(t, FunctionType):
        ins = [to_vhlo_type(x) for x in t.inputs.data]
        outs = [to_vhlo_type(x) for x in t.outputs.data]
        if any(x is None for x in (*ins, *outs)):
            return None
        return vt.func_type(ins, outs)  # type: ignore[arg-type]
    if isinstance(t, UniformQuantizedType):
        q: QuantParams = t.params
        storage = to_vhlo_type(q.storage_type)
        expressed = to_vhlo_type(q.expressed_type)
        if storage is None or expressed is None:
            return None
        params = vt.QuantParams(
            1 if q.signed else 0,
            storage,
            expressed,
            tuple(float(s) for s in q.scales),
            tuple(int(z) for z in q.zero_points),
            q.storage_min,
            q.storage_max,
            q.quantized_dimension,
        )
        return (
            vt.QuantV1Type(params)
            if q.quantized_dimension is None
            else vt.QuantPerAxisV1Type(params)
        )
    if isinstance(t, MemRefType):
        from xdsl.dialects.builtin import NoneAttr as _None

        if not isinstance(t.layout, _None) or not isinstance(t.memory_space, _None):
            return None
        elem = to_vhlo_type(t.element_type)
        return None if elem is None else vt.BufferV1Type((tuple(t.get_shape()), elem))
    name = t.name
    if name == "stablehlo.future" or (
        isinstance(t, OpaqueType) and str(t.data).startswith("!stablehlo.future<")
    ):
        inner = _future_types(t)
        if inner is None:
            return None
        items = [to_vhlo_type(x) for x in inner]
        return None if any(x is None for x in items) else vt.FutureV1Type(tuple(items))  # type: ignore[arg-type]
    if isinstance(t, OpaqueType) and str(t.data) == "!shape.witness":
        return vt.SIMPLE["witness_v1"]
    return None


def _future_types(t: Attribute) -> list[Attribute] | None:
    """The value types of a `!stablehlo.future<...>` in any representation (read from its text)."""
    for attr_name in ("types", "value_types"):
        v = getattr(t, attr_name, None)
        if isinstance(v, (tuple, list)):
            return list(v)
        if isinstance(v, ArrayAttr):
            return list(v.data)
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import type_to_str

    text = type_to_str(t)
    prefix = "!stablehlo.future<"
    if not text.startswith(prefix):
        return None
    p = Parser(text, default_registry(), "<type>")
    p.pos = len(prefix)
    items = p.parse_comma_list(p.parse_type, ">")
    p.parse_literal(">")
    return items


def to_vhlo_encoding(enc: Attribute) -> Attribute | None:
    """A tensor encoding: VHLO encodings pass, `#stablehlo.bounds` -> `type_extensions_v1`."""
    if is_vhlo(enc):
        return enc
    if isinstance(enc, OpaqueAttr) and str(enc.data).startswith(_BOUNDS_TEXT):
        enc = _parsed_encoding(str(enc.data))
    if isinstance(enc, TypeExtensionsAttr):
        return TypeExtensionsV1Attr(tuple(enc.bounds))
    return None


_BOUNDS_TEXT = ("#stablehlo.bounds<", "#stablehlo.type_extensions<")
"""The texts of a bounds encoding kept as text (OpaqueAttr), both forms upstream reads."""


def _parsed_encoding(text: str) -> Attribute | None:
    """The attribute of an encoding kept as text, read by the StableHLO parser (None: unreadable)."""
    from stablehlo_py.errors import ParseError
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<stablehlo-attribute>")
    try:
        a = p.parse_attribute()
    except ParseError:
        return None
    return a if p.at_end() else None


class NotVhlo(Exception):
    """A type or attribute expected to be VHLO is not (VHLO -> StableHLO on mixed input)."""


def _to_builtin_type(t: Attribute) -> Attribute:
    got = _TO_BUILTIN.get(t)
    if got is not None:
        return got
    got = _TO_BUILTIN_SEEN.get(t)
    if got is not None:
        return got  # type: ignore[no-any-return]
    return _TO_BUILTIN_SEEN.put(t, _convert_back(t))  # type: ignore[no-any-return]


to_builtin_type = CONTEXT.identity_map("vhlo.to_builtin_type", 100_000).memoize(_to_builtin_type)
"""`to_builtin_type(t)`: the builtin/StableHLO type of a VHLO type (non-VHLO types are returned
unchanged; remembered by identity, as ``to_vhlo_type``)."""


def _convert_back(t: Attribute) -> Attribute:
    if isinstance(t, vt.TensorV1Type):
        enc = t.encoding
        benc = None if enc is None else to_builtin_encoding(enc)
        return tensor_type(to_builtin_type(t.element_type), tuple(t.shape), benc)
    if isinstance(t, vt.UnrankedTensorV1Type):
        return UnrankedTensorType(to_builtin_type(t.element_type))
    if isinstance(t, vt.ComplexV1Type):
        from xdsl.utils.exceptions import VerifyException

        try:
            return ComplexType(to_builtin_type(t.element_type))  # type: ignore[arg-type]
        except VerifyException:  # complex of a tensor, a tuple ...
            raise NotVhlo(f"no builtin counterpart for {t.mlir_text()}") from None
    if isinstance(t, vt.TupleV1Type):
        return TupleType(ArrayAttr(tuple(to_builtin_type(x) for x in t.types)))
    if isinstance(t, vt.FuncV1Type):
        return FunctionType.from_lists(
            [to_builtin_type(x) for x in t.inputs], [to_builtin_type(x) for x in t.outputs]
        )
    if isinstance(t, (vt.QuantV1Type, vt.QuantPerAxisV1Type)):
        q = t.params
        storage = to_builtin_type(q.storage_type)
        # `si8` storage reads back signless as the parser reads it; `ui8` stays unsigned
        if isinstance(storage, IntegerType) and storage.signedness.data == Signedness.SIGNED:
            storage = IntegerType(storage.width.data)
        return UniformQuantizedType(
            QuantParams(
                storage,
                q.storage_min,
                q.storage_max,
                to_builtin_type(q.expressed_type),
                tuple(q.scales),
                tuple(q.zero_points),
                q.quantized_dimension,
                bool(q.flags & 1),
            )
        )
    if isinstance(t, vt.BufferV1Type):
        return MemRefType(to_builtin_type(t.element_type), list(t.shape))
    if isinstance(t, vt.FutureV1Type):
        return FutureType([to_builtin_type(x) for x in t.types])
    if t == vt.SIMPLE["witness_v1"]:
        from stablehlo_py.ir.ops.shape_dialect import WitnessType

        return WitnessType()
    if isinstance(t, vt.VhloType):
        raise NotVhlo(f"no builtin counterpart for {t.mlir_text()}")
    return t


def to_builtin_encoding(enc: Attribute) -> Attribute:
    if isinstance(enc, TypeExtensionsV1Attr):
        return TypeExtensionsAttr(tuple(enc.bounds))
    return enc
