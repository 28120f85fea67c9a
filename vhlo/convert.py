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
from stablehlo_py.vhlo import stablehlo_text, structs
from stablehlo_py.vhlo.convert_types import (
    _MISS,
    FLOAT_TO_VHLO,
    INT_WIDTHS,
    NotVhlo,
    _ByIdentity,
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
from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAlias
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracy
from stablehlo_py.ir.attrs.struct import f64_bits
from stablehlo_py.ir.enums import ENUM_CLASSES as STABLEHLO_ENUMS
from stablehlo_py.ir.enums import EnumAttr
from stablehlo_py.ir.types import (
    FLOAT_NAME,
    TokenType,
    TypeExtensionsAttr,
    integer_type,
)

# --------------------------------------------------------------------------------------------
# Tables

ENUM_TO_VHLO: dict[str, str] = {
    "comparison_direction": "comparison_direction_v1",
    "comparison_type": "comparison_type_v1",
    "precision": "precision_v1",
    "fft_type": "fft_type_v1",
    "rng_distribution": "rng_distribution_v1",
    "rng_algorithm": "rng_algorithm_v1",
    "transpose": "transpose_v1",
    "result_accuracy_mode": "result_accuracy_mode_v1",
}
"""StableHLO enum mnemonic -> VHLO enum (custom_call's api_version is an i32 in StableHLO and is
converted by the op pattern)."""

VHLO_TO_ENUM = {v: k for k, v in ENUM_TO_VHLO.items()}


def _exact_classes() -> frozenset[type]:
    from stablehlo_py.ir.gather_scatter_attrs import (
        GatherDimensionNumbersAttr,
        ScatterDimensionNumbersAttr,
    )
    from stablehlo_py.ir.op_attrs import (
        ConvDimensionNumbersAttr,
        DotAlgorithmAttr,
        DotDimensionNumbersAttr,
    )
    from stablehlo_py.ir.ops.collectives import ChannelHandleAttr

    return frozenset(
        {
            StringAttr,
            IntegerAttr,
            UnitAttr,
            DenseArrayBase,
            GatherDimensionNumbersAttr,
            ScatterDimensionNumbersAttr,
            ConvDimensionNumbersAttr,
            DotAlgorithmAttr,
            DotDimensionNumbersAttr,
            ChannelHandleAttr,
            *STABLEHLO_ENUMS.values(),
        }
    )


EXACT_EQUALITY: frozenset[type] = _exact_classes()
"""Builtin/StableHLO attribute classes whose ``==`` is exact (strings, integers, enums, bytes of
dense arrays, structs of integers and element types) and whose hash is cheap: a conversion of such
attributes may be memoized by value.  (Not floats: ``0.0 == -0.0``; not dense elements: large.)"""

_VHLO_ATTR_IDS = _ByIdentity()
_BUILTIN_ATTR_IDS = _ByIdentity()


# --------------------------------------------------------------------------------------------
# Attributes (generic part; op-specific flattening lives in the passes)


def to_vhlo_attr(a: Attribute, allow_other: bool = False) -> Attribute | None:
    """upstream's StableHLO->VHLO convertGeneric.  With ``allow_other`` an attribute of another
    dialect is kept as it is (``allow-other-dialects``); otherwise it has no counterpart."""
    if allow_other or isinstance(a, DenseIntOrFPElementsAttr):
        return _to_vhlo_attr(a, allow_other)  # (constants: mostly unique, and large to keep alive)
    got = _VHLO_ATTR_IDS.get(a)
    if got is not _MISS:
        return got  # type: ignore[no-any-return]
    return _VHLO_ATTR_IDS.put(a, _to_vhlo_attr(a, False))  # type: ignore[no-any-return]


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
        return None
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
    mnemonic = stablehlo_text.mnemonic_of(a)
    if mnemonic is not None:
        return _stablehlo_struct_to_vhlo(a, mnemonic)
    if isinstance(a, UnitAttr):
        return None
    if allow_other:
        return a
    return None


def _enum_alias(cls: type[va.VhloEnumAttr], case: str) -> str | None:
    key = case.replace("_", "").upper()
    for name in cls.CASES:
        if name.replace("_", "").upper() == key:
            return name
    return None


def _output_operand_alias(d: Any) -> Attribute | None:
    return va.OutputOperandAliasV1Attr(
        (tuple(d.output_tuple_indices), d.operand_index, tuple(d.operand_tuple_indices))
    )


def _result_accuracy(d: Any) -> Attribute | None:
    return va.ResultAccuracyV1Attr(
        (d.atol, d.rtol, int(d.ulps), va.enum("result_accuracy_mode_v1", d.mode))
    )


def _replica_group_mesh_axes(d: Any) -> Attribute | None:
    mesh = to_vhlo_attr(d.mesh)
    axes = [to_vhlo_attr(x) for x in d.axes]
    if mesh is None or any(x is None for x in axes):
        return None
    return va.ReplicaGroupMeshAxesV1Attr((mesh, va.array(axes)))  # type: ignore[arg-type]


def _axis_ref(d: Any) -> Attribute | None:
    sub = d.sub_axis_info
    return va.AxisRefV1Attr(
        (va.string(d.name), None if sub is None else va.SubAxisInfoV1Attr(tuple(sub)))
    )


_MIRRORED = {
    "output_operand_alias": _output_operand_alias,
    "result_accuracy": _result_accuracy,
    "replica_group_mesh_axes": _replica_group_mesh_axes,
    "axis_ref": _axis_ref,
}
"""The described StableHLO structs VHLO mirrors one to one, from the struct's value (the others,
flattened into their op's attributes, are op-specific)."""


def _stablehlo_struct_to_vhlo(a: Attribute, mnemonic: str) -> Attribute | None:
    """The StableHLO attributes VHLO mirrors one to one (everything else is op-specific)."""
    mirror = _MIRRORED.get(mnemonic)
    if mirror is not None:
        try:
            data = structs.struct_data(a, BY_MNEMONIC[mnemonic])
        except structs.StructError:
            return None
        return mirror(data)
    if mnemonic not in ("mesh", "mesh_axis", "type_extensions", "bounds"):
        return None
    try:
        _, f = stablehlo_text.read(a)
    except stablehlo_text.StructTextError:
        return None
    if mnemonic == "mesh_axis":
        return va.MeshAxisV1Attr((va.string(f["name"]), int(f["size"])))
    if mnemonic == "mesh":
        axes = [to_vhlo_attr(x) for x in f["axes"]]
        ids = f.get("device_ids")
        vids = None if ids is None else to_vhlo_attr(ids)
        if any(x is None for x in axes) or (ids is not None and vids is None):
            return None
        return va.MeshV1Attr((va.array(axes), vids))  # type: ignore[arg-type]
    return va.TypeExtensionsV1Attr(tuple(f["bounds"]))


def to_builtin_attr(a: Attribute) -> Attribute | None:
    """upstream's VHLO->StableHLO convertGeneric; non-VHLO attributes (allow-other-dialects) pass."""
    if isinstance(a, va.TensorV1Attr):
        return a.dense  # (constants: mostly unique, and large to keep alive)
    got = _BUILTIN_ATTR_IDS.get(a)
    if got is not _MISS:
        return got  # type: ignore[no-any-return]
    return _BUILTIN_ATTR_IDS.put(a, _to_builtin_attr(a))  # type: ignore[no-any-return]


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
    if isinstance(a, va.OutputOperandAliasV1Attr):
        out_idx, idx, opnd = a.data  # type: ignore[misc]
        return structs.build(
            _ALIAS, OutputOperandAlias(tuple(out_idx), int(idx), tuple(opnd))
        )
    if isinstance(a, va.ResultAccuracyV1Attr):
        atol, rtol, ulps, mode = a.data  # type: ignore[misc]
        return structs.build(
            _ACCURACY,
            ResultAccuracy(f64_bits(float(atol)), f64_bits(float(rtol)), int(ulps), mode.case),
        )
    if isinstance(a, va.TypeExtensionsV1Attr):
        return TypeExtensionsAttr(tuple(a.bounds))
    if isinstance(
        a, (va.ReplicaGroupMeshAxesV1Attr, va.AxisRefV1Attr, va.MeshV1Attr, va.MeshAxisV1Attr)
    ):
        text = _mesh_text(a)
        return None if text is None else stablehlo_text.parse_attr(text)
    return None


def _mesh_text(a: Attribute) -> str | None:
    if isinstance(a, va.StringV1Attr):
        from stablehlo_py.ir.text.printer import symbol_text

        return symbol_text(a.value)
    if isinstance(a, va.AxisRefV1Attr):
        name, sub = a.data  # type: ignore[misc]
        if not isinstance(name, va.StringV1Attr) or not (
            sub is None or isinstance(sub, va.SubAxisInfoV1Attr)
        ):
            return None
        return stablehlo_text.text_of(
            "axis_ref",
            {"name": name.value, "sub_axis_info": None if sub is None else tuple(sub.data)},
        )
    if isinstance(a, va.MeshAxisV1Attr):
        name, size = a.data  # type: ignore[misc]
        if not isinstance(name, va.StringV1Attr):
            return None
        return stablehlo_text.text_of("mesh_axis", {"name": name.value, "size": size})
    if isinstance(a, va.MeshV1Attr):
        axes, ids = a.data  # type: ignore[misc]
        if not isinstance(axes, va.ArrayV1Attr):
            return None
        parts = [_mesh_text(x) for x in axes.value]
        ids_text = None
        if ids is not None:
            b = to_builtin_attr(ids)
            if b is None:
                return None
            from stablehlo_py.ir.text.printer import attr_to_str

            ids_text = attr_to_str(b)
        if any(p is None for p in parts):
            return None
        return stablehlo_text.text_of("mesh", {"axes": parts, "device_ids": ids_text})
    if isinstance(a, va.ReplicaGroupMeshAxesV1Attr):
        mesh, axes = a.data  # type: ignore[misc]
        if not isinstance(axes, va.ArrayV1Attr):
            return None
        mesh_text = _mesh_text(mesh)
        parts = [_mesh_text(x) for x in axes.value]
        if mesh_text is None or any(p is None for p in parts):
            return None
        return stablehlo_text.text_of("replica_group_mesh_axes", {"mesh": mesh_text, "axes": parts})
    return None


_ALIAS = BY_MNEMONIC["output_operand_alias"]
_ACCURACY = BY_MNEMONIC["result_accuracy"]


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
        return stablehlo_text.parse_attr(f"#stablehlo.result_accuracy_mode<{case}>")
    return stablehlo_text.parse_attr(f"#stablehlo<{mnemonic} {case}>")


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
