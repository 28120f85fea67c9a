"""Builtin/StableHLO types and attributes <-> their VHLO counterparts (upstream's VhloTypeConverter
and the generic `convertGeneric` of StablehloLegalizeToVhlo.cpp / VhloLegalizeToStablehlo.cpp).

Tables first: element types by name, StableHLO enums by mnemonic.  Conversions are cached by the
(hashable, immutable) input, so a module with 100k ops converts each distinct type once.

A conversion that has no VHLO counterpart returns ``None``; the passes turn that into a diagnostic
naming the op ("failed to legalize operation ...").
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import stablehlo_text
from stablehlo_py.vhlo import types as vt
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, TypeAttribute

from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType
from stablehlo_py.ir.enums import ENUM_CLASSES as STABLEHLO_ENUMS
from stablehlo_py.ir.enums import EnumAttr
from stablehlo_py.ir.types import (
    FLOAT_NAME,
    FLOAT_TYPES,
    TOKEN,
    QuantParams,
    TokenType,
    TypeExtensionsAttr,
    UniformQuantizedType,
    integer_type,
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
_MISS = object()


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

# --------------------------------------------------------------------------------------------
# Types


class _ByIdentity:
    """A conversion's results by the identity of its (immutable) input, in front of the caches
    keyed by value: a program shares most of its types and attributes, and hashing a nested one
    costs more than converting it once.  Each entry keeps its input alive, so an id is not reused
    while it is cached; the table is cleared when it grows past ``limit``."""

    __slots__ = ("limit", "table")

    def __init__(self, limit: int = 100_000):
        self.table: dict[int, tuple[Any, Any]] = {}
        self.limit = limit

    def get(self, a: Any) -> Any:
        got = self.table.get(id(a))
        if got is not None and got[0] is a:
            return got[1]
        return _MISS

    def put(self, a: Any, value: Any) -> Any:
        if len(self.table) >= self.limit:
            self.table.clear()
        self.table[id(a)] = (a, value)
        return value


_VHLO_TYPE_IDS = _ByIdentity()
_BUILTIN_TYPE_IDS = _ByIdentity()
_VHLO_ATTR_IDS = _ByIdentity()
_BUILTIN_ATTR_IDS = _ByIdentity()


def to_vhlo_type(t: Attribute) -> Attribute | None:
    """The VHLO type of a builtin/StableHLO type, or None when VHLO has no counterpart."""
    got = _VHLO_TYPE_IDS.get(t)
    if got is not _MISS:
        return got  # type: ignore[no-any-return]
    return _VHLO_TYPE_IDS.put(t, _to_vhlo_type(t))  # type: ignore[no-any-return]


def _to_vhlo_type(t: Attribute) -> Attribute | None:
    got = _TO_VHLO.get(t, _MISS)
    if got is not _MISS:
        return got  # type: ignore[return-value]
    v = _convert_type(t)
    if v is not None:
        _TO_VHLO[t] = v
    return v


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
    if va.is_vhlo(enc):
        return enc
    if isinstance(enc, TypeExtensionsAttr):
        return va.TypeExtensionsV1Attr(tuple(enc.bounds))
    if stablehlo_text.mnemonic_of(enc) in ("type_extensions", "bounds"):
        try:
            _, f = stablehlo_text.read(enc)
        except stablehlo_text.StructTextError:
            return None
        return va.TypeExtensionsV1Attr(tuple(f["bounds"]))
    return None


class NotVhlo(Exception):
    """A type or attribute expected to be VHLO is not (VHLO -> StableHLO on mixed input)."""


def to_builtin_type(t: Attribute) -> Attribute:
    """The builtin/StableHLO type of a VHLO type (non-VHLO types are returned unchanged)."""
    got = _BUILTIN_TYPE_IDS.get(t)
    if got is not _MISS:
        return got  # type: ignore[no-any-return]
    return _BUILTIN_TYPE_IDS.put(t, _to_builtin_type(t))  # type: ignore[no-any-return]


def _to_builtin_type(t: Attribute) -> Attribute:
    got = _TO_BUILTIN.get(t)
    if got is not None:
        return got
    b = _convert_back(t)
    _TO_BUILTIN[t] = b
    return b


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
        from stablehlo_py.ir.text.printer import type_to_str

        inner = ", ".join(type_to_str(to_builtin_type(x)) for x in t.types)
        return stablehlo_text.parse_type(f"!stablehlo.future<{inner}>")
    if t == vt.SIMPLE["witness_v1"]:
        return stablehlo_text.parse_type("!shape.witness")
    if isinstance(t, vt.VhloType):
        raise NotVhlo(f"no builtin counterpart for {t.mlir_text()}")
    return t


def to_builtin_encoding(enc: Attribute) -> Attribute:
    if isinstance(enc, va.TypeExtensionsV1Attr):
        return TypeExtensionsAttr(tuple(enc.bounds))
    return enc


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


def _stablehlo_struct_to_vhlo(a: Attribute, mnemonic: str) -> Attribute | None:
    """The StableHLO attributes VHLO mirrors one to one (everything else is op-specific)."""
    if mnemonic not in (
        "output_operand_alias",
        "result_accuracy",
        "replica_group_mesh_axes",
        "axis_ref",
        "mesh",
        "mesh_axis",
        "type_extensions",
        "bounds",
    ):
        return None
    try:
        _, f = stablehlo_text.read(a)
    except stablehlo_text.StructTextError:
        return None
    if mnemonic == "output_operand_alias":
        return va.OutputOperandAliasV1Attr(
            (
                tuple(f["output_tuple_indices"]),
                f["operand_index"],
                tuple(f["operand_tuple_indices"]),
            )
        )
    if mnemonic == "result_accuracy":
        mode = f["mode"]
        mode_case = "DEFAULT" if mode is None else _mode_case(mode)
        if mode_case is None:
            return None
        return va.ResultAccuracyV1Attr(
            (
                float(f["atol"]),
                float(f["rtol"]),
                int(f["ulps"]),
                va.enum("result_accuracy_mode_v1", mode_case),
            )
        )
    if mnemonic == "replica_group_mesh_axes":
        mesh = to_vhlo_attr(f["mesh"])
        axes = [to_vhlo_attr(x) for x in f["axes"]]
        if mesh is None or any(x is None for x in axes):
            return None
        return va.ReplicaGroupMeshAxesV1Attr((mesh, va.array(axes)))  # type: ignore[arg-type]
    if mnemonic == "axis_ref":
        sub = f.get("sub_axis_info")
        return va.AxisRefV1Attr(
            (va.string(f["name"]), None if sub is None else va.SubAxisInfoV1Attr(tuple(sub)))
        )
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


def _mode_case(mode: Attribute) -> str | None:
    if isinstance(mode, EnumAttr):
        return mode.data
    try:
        _, f = stablehlo_text.read(mode)
    except stablehlo_text.StructTextError:
        return None
    return f["mode"]


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
        return stablehlo_text.write(
            "output_operand_alias",
            {"output_tuple_indices": out_idx, "operand_index": idx, "operand_tuple_indices": opnd},
        )
    if isinstance(a, va.ResultAccuracyV1Attr):
        atol, rtol, ulps, mode = a.data  # type: ignore[misc]
        return stablehlo_text.write(
            "result_accuracy", {"atol": atol, "rtol": rtol, "ulps": ulps, "mode": mode.case}
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
