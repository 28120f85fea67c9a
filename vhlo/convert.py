"""Builtin/StableHLO types and attributes <-> their VHLO counterparts (upstream's VhloTypeConverter
and the generic `convertGeneric` of StablehloLegalizeToVhlo.cpp / VhloLegalizeToStablehlo.cpp).

The types convert in ``vhlo.convert_types`` (below ``vhlo.attrs``, whose text needs them); this
module re-exports them.  Tables first: StableHLO enums by mnemonic.  Conversions are cached by the
(hashable, immutable) input, so a module with 100k ops converts each distinct type once.

A conversion that has no VHLO counterpart returns ``None``; the passes turn that into a diagnostic
naming the op ("failed to legalize operation ...").
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import structs
from stablehlo_py.vhlo.convert_types import (
    FLOAT_TO_VHLO,
    INT_WIDTHS,
    NotVhlo,
    to_builtin_encoding,
    to_builtin_type,
    to_vhlo_encoding,
    to_vhlo_type,
)
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
from xdsl.ir import Attribute, TypeAttribute

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC, DESCRIBED
from stablehlo_py.ir.attrs.struct import Description, bits_f64, f64_bits
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.enums import ENUM_CLASSES as STABLEHLO_ENUMS
from stablehlo_py.ir.enums import EnumAttr
from stablehlo_py.ir.types import FLOAT_NAME, TokenType, integer_type

# --------------------------------------------------------------------------------------------
# Tables


def _named_after(classes: dict[str, Any], mnemonics: Any) -> dict[str, Any]:
    """StableHLO mnemonic -> the current VHLO attribute of ``classes`` (by table name) named after it
    (`precision` -> `precision_v1`), for the mnemonics that have one."""
    out = {}
    for name, cls in classes.items():
        mnemonic = name.rpartition("_v")[0]
        if mnemonic in mnemonics and cls.spec().max == "current":
            out[mnemonic] = cls
    return out


_ENUM_MNEMONICS = {m for (dialect, m) in STABLEHLO_ENUMS if dialect == "stablehlo"} | {
    f.kind.enum.MNEMONIC for d in DESCRIBED.values() for f in d.fields if f.kind.name == "enum"
}

ENUM_TO_VHLO: dict[str, str] = {
    m: cls.SPEC_NAME for m, cls in _named_after(va.ENUM_CLASSES, _ENUM_MNEMONICS).items()
}
"""StableHLO enum mnemonic -> VHLO enum (`comparison_direction` -> `comparison_direction_v1`): the
StableHLO enums and the described structs' enum fields (custom_call's api_version is an i32 in
StableHLO and is converted by the op pattern)."""

VHLO_TO_ENUM = {v: k for k, v in ENUM_TO_VHLO.items()}


_EXACT_KINDS = frozenset({"dims", "int", "bool", "type", "f64", "enum", "str", "sub_axis_info"})
"""Field kinds whose values compare exactly (f64 fields hold bit patterns)."""


def _exact_classes() -> frozenset[type]:
    structs_ = {
        d.attr for d in BY_MNEMONIC.values() if all(f.kind.name in _EXACT_KINDS for f in d.fields)
    }
    return frozenset(
        {StringAttr, IntegerAttr, UnitAttr, DenseArrayBase, *structs_, *STABLEHLO_ENUMS.values()}
    )


EXACT_EQUALITY: frozenset[type] = _exact_classes()
"""Builtin/StableHLO attribute classes whose ``==`` is exact (strings, integers, enums, bytes of
dense arrays, described structs of such fields) and whose hash is cheap: a conversion of such
attributes may be memoized by value.  (Not floats: ``0.0 == -0.0``; not dense elements: large.)"""



# --------------------------------------------------------------------------------------------
# Attributes (generic part; op-specific flattening lives in the passes)


def to_vhlo_attr(a: Attribute, allow_other: bool = False) -> Attribute | None:
    """upstream's StableHLO->VHLO convertGeneric.  With ``allow_other`` an attribute of another
    dialect is kept as it is (``allow-other-dialects``); otherwise it has no counterpart."""
    if allow_other or isinstance(a, DenseIntOrFPElementsAttr):
        return _to_vhlo_attr(a, allow_other)  # (constants: mostly unique, and large to keep alive)
    return _to_vhlo_attr_memo(a)


def _to_vhlo_attr(a: Attribute, allow_other: bool) -> Attribute | None:
    if va.is_vhlo(a):
        return a
    if isinstance(a, EnumAttr):
        if a.DIALECT != "stablehlo" or a.MNEMONIC not in ENUM_TO_VHLO:
            return a if allow_other and a.DIALECT != "stablehlo" else None
        cls = va.ENUM_CLASSES[ENUM_TO_VHLO[a.MNEMONIC]]
        case = a.data if a.data in cls.VALUES else _enum_alias(cls, a.data)
        return None if case is None else cls.get(case)
    if isinstance(a, StringAttr):
        return va.string(a.data)
    if isinstance(a, IntegerAttr):
        t = a.type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return va.boolean(bool(a.value.data))
        vt_ = to_vhlo_type(t)
        return None if vt_ is None else va.integer(a.value.data, vt_)
    if isinstance(a, ArrayAttr):
        items = [to_vhlo_attr(x, allow_other) for x in a.data]
        return None if any(x is None for x in items) else va.array(items)  # type: ignore[arg-type]
    if isinstance(a, DenseIntOrFPElementsAttr):
        return va.tensor_attr(a)
    if isinstance(a, DenseArrayBase):
        vals = a.get_values()
        et = a.elt_type
        if isinstance(et, IntegerType) and et.width.data == 1:
            return va.bool_tensor([bool(v) for v in vals])
        if isinstance(et, IntegerType) and et.width.data == 64:
            return va.i64_tensor([int(v) for v in vals])
        return a if allow_other else None  # (upstream: convertUnknownAttribute)
    if isinstance(a, DictionaryAttr):
        items: list[tuple[Attribute, Attribute]] = []
        for k, v in sorted(a.data.items()):
            cv = to_vhlo_attr(v, allow_other)
            if cv is None:
                return None
            items.append((va.string(k), cv))
        return va.dictionary(items)
    if isinstance(a, FloatAttr):
        ft = to_vhlo_type(a.type)
        return None if ft is None else va.FloatV1Attr((ft, float(a.value.data)))
    if isinstance(a, SymbolRefAttr):
        if a.nested_references.data:
            return None
        return va.string(a.root_reference.data)
    if isinstance(a, TypeAttribute):
        t = to_vhlo_type(a)
        return None if t is None else va.TypeV1Attr(t)
    if structs.is_stablehlo(a):
        return _stablehlo_struct_to_vhlo(a)
    if isinstance(a, UnitAttr):
        return a if allow_other else None
    if allow_other:
        return a
    return None


def _enum_alias(cls: type[va.VhloEnumAttr], case: str) -> str | None:
    key = case.replace("_", "").upper()
    for name in cls.CASES:
        if name.replace("_", "").upper() == key:
            return name
    return None


# --------------------------------------------------------------------------------------------
# Mirrored structs: a described StableHLO struct whose VHLO counterpart is one attribute
# (`#stablehlo.axis_ref<...>` <-> `#vhlo.axis_ref_v1<...>`), its parameters the description's
# fields in order (a one-field struct's VHLO value is the field itself).  Each field converts by its
# kind; a value with no counterpart raises _Refused.


class _Refused(Exception):
    pass


def _some(x: Attribute | None) -> Attribute:
    if x is None:
        raise _Refused
    return x


def _vhlo_enum(kind: Any, case: str) -> Attribute:
    return va.enum(ENUM_TO_VHLO[kind.enum.MNEMONIC], case)


_FIELD_TO_VHLO: dict[str, Any] = {
    "dims": lambda k, v: tuple(v),
    "int": lambda k, v: int(v),
    "f64": lambda k, v: bits_f64(v),
    "enum": _vhlo_enum,
    "str": lambda k, v: va.string(v),
    "attr": lambda k, v: None if v is None else _some(to_vhlo_attr(v)),
    "attrs": lambda k, v: va.array([_some(to_vhlo_attr(x)) for x in v]),
    "sub_axis_info": lambda k, v: None if v is None else va.SubAxisInfoV1Attr(tuple(v)),
    "structs": lambda k, v: va.array([_mirror_to_vhlo(k.element, x) for x in v]),
}
"""A field's value -> its VHLO parameter, by the field's kind."""


def _of(cls: type, read: Any) -> Any:
    def conv(k: Any, v: Any) -> Any:
        if not isinstance(v, cls):
            raise _Refused
        return read(k, v)

    return conv


def _attr_from_vhlo(k: Any, v: Any) -> Attribute | None:
    """An attribute parameter; a VHLO string there is a symbol (the mesh a replica group names)."""
    if v is None:
        return None
    if isinstance(v, va.StringV1Attr):
        return SymbolRefAttr(v.value)
    return _some(to_builtin_attr(v))


def _structs_from_vhlo(k: Any, v: Any) -> tuple[Any, ...]:
    """Another description's values, each mirrored by its VHLO attribute."""
    d = k.element
    cls = _MIRRORS[d.mnemonic]
    if not isinstance(v, va.ArrayV1Attr) or not all(isinstance(x, cls) for x in v.value):
        raise _Refused
    return tuple(_mirror_data(x, d) for x in v.value)


_FIELD_FROM_VHLO: dict[str, Any] = {
    "dims": lambda k, v: tuple(v),
    "int": lambda k, v: int(v),
    "f64": lambda k, v: f64_bits(float(v)),
    "enum": _of(va.VhloEnumAttr, lambda k, v: v.case),
    "str": _of(va.StringV1Attr, lambda k, v: v.value),
    "attr": _attr_from_vhlo,
    "attrs": _of(va.ArrayV1Attr, lambda k, v: tuple(_some(to_builtin_attr(x)) for x in v.value)),
    "sub_axis_info": lambda k, v: (
        None if v is None else _of(va.SubAxisInfoV1Attr, lambda k, x: tuple(x.data))(k, v)
    ),
    "structs": _structs_from_vhlo,
}
"""A VHLO parameter -> the field's value, by the field's kind."""


_MIRRORS: dict[str, type[va.VhloAttr]] = _named_after(va.STRUCT_CLASSES, DESCRIBED)
"""The described StableHLO structs VHLO mirrors one to one (the others, flattened into their op's
attributes, are op-specific: ``vhlo.structs``)."""
_MIRRORED_BY_VHLO = {cls: DESCRIBED[m] for m, cls in _MIRRORS.items()}


def _mirror_to_vhlo(d: Description, data: Any) -> Attribute:
    params = [_FIELD_TO_VHLO[f.kind.name](f.kind, getattr(data, f.name)) for f in d.fields]
    return _MIRRORS[d.mnemonic](params[0] if len(params) == 1 else tuple(params))


def _mirror_data(a: Any, d: Description) -> Any:
    params = a.data if len(d.fields) > 1 else (a.data,)
    return d.struct(
        **{f.name: _FIELD_FROM_VHLO[f.kind.name](f.kind, v) for f, v in zip(d.fields, params)}
    )


def _stablehlo_struct_to_vhlo(a: Attribute) -> Attribute | None:
    """The StableHLO attributes VHLO mirrors one to one (everything else is op-specific)."""
    d = structs.described(a)
    if d is None or d.mnemonic not in _MIRRORS:
        return None
    try:
        return _mirror_to_vhlo(d, structs.struct_data(a, d))
    except (structs.StructError, _Refused):
        return None


def to_builtin_attr(a: Attribute) -> Attribute | None:
    """upstream's VHLO->StableHLO convertGeneric; non-VHLO attributes (allow-other-dialects) pass."""
    if isinstance(a, va.TensorV1Attr):
        return a.dense  # (constants: mostly unique, and large to keep alive)
    return _to_builtin_attr_memo(a)


def _to_builtin_attr(a: Attribute) -> Attribute | None:
    if not va.is_vhlo(a):
        return a
    if isinstance(a, va.StringV1Attr):
        return StringAttr(a.value)
    if isinstance(a, va.BooleanV1Attr):
        return IntegerAttr(1 if a.value else 0, IntegerType(1))
    if isinstance(a, va.IntegerV1Attr):
        return IntegerAttr(a.value, to_builtin_type(a.type))
    if isinstance(a, va.TensorV1Attr):
        return a.dense
    if isinstance(a, va.ArrayV1Attr):
        items = [to_builtin_attr(x) for x in a.value]
        return None if any(x is None for x in items) else ArrayAttr(items)  # type: ignore[arg-type]
    if isinstance(a, va.DictionaryV1Attr):
        out: dict[str, Attribute] = {}
        for k, v in a.value:
            bk = to_builtin_attr(k)
            bv = to_builtin_attr(v)
            if not isinstance(bk, StringAttr) or bv is None:
                return None
            out[bk.data] = bv
        return DictionaryAttr(out)
    if isinstance(a, va.FloatV1Attr):
        return FloatAttr(a.value, to_builtin_type(a.type))  # type: ignore[arg-type]
    if isinstance(a, va.TypeV1Attr):
        return to_builtin_type(a.value)
    if isinstance(a, va.VhloEnumAttr):
        mnemonic = VHLO_TO_ENUM.get(a.SPEC_NAME)
        if mnemonic is None:
            return None
        return stablehlo_enum(mnemonic, a.case)
    d = _MIRRORED_BY_VHLO.get(type(a))
    if d is not None:
        try:
            return structs.build(d, _mirror_data(a, d))
        except _Refused:
            return None
    return None


def stablehlo_enum(mnemonic: str, case: str) -> Attribute:
    """`#stablehlo<mnemonic case>` as the StableHLO layer represents it."""
    cls = STABLEHLO_ENUMS.get(("stablehlo", mnemonic))
    if cls is not None:
        if case in cls.CASES:
            return cls.get_case(case)
        key = case.replace("_", "")
        for c in cls.CASES:
            if c.replace("_", "") == key:
                return cls.get_case(c)
    if mnemonic == "result_accuracy_mode":
        return structs.parse_attr_text(f"#stablehlo.result_accuracy_mode<{case}>")
    return structs.parse_attr_text(f"#stablehlo<{mnemonic} {case}>")



_to_vhlo_attr_memo = CONTEXT.identity_map("vhlo.to_vhlo_attr", 100_000).memoize(
    lambda a: _to_vhlo_attr(a, False)
)
_to_builtin_attr_memo = CONTEXT.identity_map("vhlo.to_builtin_attr", 100_000).memoize(
    _to_builtin_attr
)
"""The generic conversions remembered by the identity of the attribute (a program shares most of
its attributes, and hashing a nested one costs more than converting it once); constants are not
remembered (mostly unique, and large to keep alive)."""

__all__ = [
    "ENUM_TO_VHLO",
    "FLOAT_TO_VHLO",
    "NotVhlo",
    "stablehlo_enum",
    "to_builtin_attr",
    "to_builtin_encoding",
    "to_builtin_type",
    "to_vhlo_attr",
    "to_vhlo_encoding",
    "to_vhlo_type",
]

_ = (Any, FLOAT_NAME, TokenType, OpaqueAttr, integer_type)
