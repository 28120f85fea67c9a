"""Ops of the toolkit's dialects in MLIR bytecode: what ``stablehlo-opt -emit-bytecode`` writes.

Writer side, :class:`DialectOpEncoder`: an op's *properties* record is what MLIR's ODS-generated
``writeProperties`` emits, that is one entry per inherent attribute in **alphabetical order of the
names** (ODS sorts its attribute metadata by name), a required attribute as a plain reference
(``writeAttribute``), an optional or default-valued one as ``writeOptionalAttribute`` (0 when
absent, else ``index << 1 | 1``); then, from bytecode version 6, each ``AttrSized*Segments``
size list as ``writeSparseArray``.  Below version 6 the sizes come first, as a dense i32 array
attribute; below version 5 every attribute goes to the op's attribute dictionary.  An op without
inherent attributes has no properties.  The remaining (discardable) attributes form the op's
attribute dictionary.  Checked against jaxlib's ``write_bytecode`` (which writes version 6).

The inherent attributes of an op are its xDSL property definitions (optional when the definition
is), except where upstream's ODS has more than the toolkit models (:data:`LAYOUTS`: ``func.func``'s
and ``func.call``'s ``no_inline``, ``arg_attrs``, ``res_attrs``; ``chlo.scan``'s
``scan_dim_size``).  VHLO ops and ``builtin.module`` are described as for portable artifacts.

Reader side, :func:`build_dialect_op`: the same layout read back; the op is built as the text
parser's generic form builds it (the op class's ``build_generic``).
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.serialization.mlirbc import builtin, stablehlo
from stablehlo_py.serialization.mlirbc.builtin import Loc
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.ops import OpInfo, VhloOpEncoder, build_vhlo_op
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import AttrSizedOperandSegments, AttrSizedResultSegments, OptPropertyDef
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

__all__ = [
    "LAYOUTS",
    "DialectOpEncoder",
    "PropsLayout",
    "build_dialect_op",
    "decode_entry",
    "layout_of",
    "sparse_array_items",
]

_I32 = IntegerType(32)
OPERAND_SEGMENTS = "operandSegmentSizes"
RESULT_SEGMENTS = "resultSegmentSizes"


class PropsLayout:
    """An op's properties record: ``attrs`` as (name, required) in write order, then the segment
    size lists it carries (``operandSegmentSizes`` and/or ``resultSegmentSizes``)."""

    __slots__ = ("attrs", "names", "segments")

    def __init__(self, attrs: tuple[tuple[str, bool], ...], segments: tuple[str, ...] = ()):
        self.attrs = tuple(sorted(attrs))
        self.names = frozenset(n for n, _ in self.attrs) | frozenset(segments)
        self.segments = segments

    @property
    def empty(self) -> bool:
        return not self.attrs and not self.segments


# Upstream's ODS where it declares more inherent attributes than the toolkit's op classes (the
# complete layout; func.* and arith.* checked against jaxlib's generated op bindings; every
# stablehlo and chlo op has the layout of upstream's ODS (tests/unit/ir/test_ods_fidelity.py),
# which jaxlib 0.12 writes; jaxlib 0.10.2's older layouts are in OLDER_LAYOUTS).
LAYOUTS: dict[str, PropsLayout] = {
    "func.func": PropsLayout(
        (
            ("arg_attrs", False),
            ("function_type", True),
            ("no_inline", False),
            ("res_attrs", False),
            ("sym_name", True),
            ("sym_visibility", False),
        )
    ),
    "func.call": PropsLayout(
        (("arg_attrs", False), ("callee", True), ("no_inline", False), ("res_attrs", False))
    ),
    "chlo.scan": PropsLayout(
        (
            ("dimension", True),
            ("is_associative", False),
            ("is_reverse", False),
            ("scan_dim_size", False),
        ),
        (OPERAND_SEGMENTS, RESULT_SEGMENTS),
    ),
}

# arith's float binary ops in jaxlib's MLIR: fastmath (default-valued) and roundingmode
for _name in ("arith.addf", "arith.divf", "arith.mulf", "arith.subf"):
    LAYOUTS[_name] = PropsLayout((("fastmath", False), ("roundingmode", False)))

# Older layouts a reader also accepts (told apart by their number of entries): ops that gained an
# inherent attribute after jaxlib 0.10.2 (StableHLO 1.17.0), whose bytecode has the older layout.
OLDER_LAYOUTS: dict[str, tuple[PropsLayout, ...]] = {
    "stablehlo.collective_broadcast": (
        PropsLayout((("channel_handle", False), ("replica_groups", True))),
    ),
    # result_tilings (1.18.0)
    "stablehlo.custom_call": (
        PropsLayout(
            (
                ("api_version", False),
                ("backend_config", False),
                ("call_target_name", True),
                ("called_computations", False),
                ("has_side_effect", False),
                ("operand_layouts", False),
                ("output_operand_aliases", False),
                ("result_layouts", False),
            )
        ),
    ),
    "chlo.top_k": (PropsLayout((("k", True),)),),  # is_stable (1.19.0)
}

_CACHE = CONTEXT.table("mlirbc.props_layouts", 4096)  # op class -> its properties layout


def layout_of(cls: type[Operation]) -> PropsLayout:
    """The properties layout of an op class (``LAYOUTS`` or its IRDL property definitions)."""
    got = _CACHE.get(cls)
    if got is not None:
        return got
    name = getattr(cls, "name", "")
    got = LAYOUTS.get(name)
    if got is None:
        attrs: list[tuple[str, bool]] = []
        segments: list[str] = []
        try:
            d = cls.get_irdl_definition()  # type: ignore[attr-defined]
        except AttributeError:
            d = None
        if d is not None:
            for opt in d.options:
                if isinstance(opt, AttrSizedOperandSegments) and opt.as_property:
                    segments.append(OPERAND_SEGMENTS)
                elif isinstance(opt, AttrSizedResultSegments) and opt.as_property:
                    segments.append(RESULT_SEGMENTS)
            for k, v in d.properties.items():
                if k in (OPERAND_SEGMENTS, RESULT_SEGMENTS):
                    continue
                attrs.append((k, not isinstance(v, OptPropertyDef)))
        got = PropsLayout(tuple(attrs), tuple(segments))
    return _CACHE.put(cls, got)  # type: ignore[no-any-return]


def sparse_array_items(values: list[int]) -> list[tuple[str, Any]]:
    """``DialectBytecodeWriter::writeSparseArray``: dense (``size << 1``, then the values) unless
    at most half the values are non-zero and the last non-zero index is at most 256; sparse is
    (``count << 1 | 1``, the index width, then ``value << width | index`` per non-zero value)."""
    size = len(values)
    nonzero = [i for i, v in enumerate(values) if v]
    last = nonzero[-1] if nonzero else 0
    if last > 256 or len(nonzero) > size // 2:
        return [("v", size << 1), *(("v", v & 0xFFFFFFFF) for v in values)]
    items: list[tuple[str, Any]] = [("v", len(nonzero) << 1 | 1)]
    if not nonzero:
        return items
    width = (last).bit_length()  # Log2_32_Ceil(last + 1)
    items.append(("v", width))
    items.extend(("v", (values[i] & 0xFFFFFFFF) << width | i) for i in nonzero)
    return items


def _read_sparse_array(r: Reader, pos: int) -> list[int]:
    v = r.varint()
    n, sparse = v >> 1, v & 1
    if not sparse:
        if n > r.remaining():
            raise BytecodeError(f"a segment size list of {n} values runs past its record", pos)
        return [r.varint() for _ in range(n)]
    if n == 0:
        return []
    width = r.varint()
    if width > 32:
        raise BytecodeError(f"invalid sparse array index width {width}", pos)
    pairs = [r.varint() for _ in range(n)]
    size = max((p & ((1 << width) - 1) for p in pairs), default=-1) + 1
    out = [0] * size
    for p in pairs:
        out[p & ((1 << width) - 1)] = p >> width
    return out


def _segments(op: Operation, key: str) -> list[int] | None:
    a = op.properties.get(key) or op.attributes.get(key)
    if isinstance(a, DenseArrayBase):
        return [int(x) for x in a.get_values()]  # type: ignore[arg-type]
    return None


class DialectOpEncoder(VhloOpEncoder):
    """Ops of any of the toolkit's dialects (stablehlo, chlo, func, check, builtin, VHLO ...)."""

    def __init__(self, version: int = 6, strip_debuginfo: bool = False):
        super().__init__(version, strip_debuginfo)
        self.interner.fallback = stablehlo.dialect_entry

    def trait_isolated(self, op: Operation) -> bool:
        return isinstance(op, ModuleOp) or op.has_trait(IsolatedFromAbove)

    def describe(self, op: Operation) -> OpInfo:
        if isinstance(op, ModuleOp):
            return self.module_info(op)
        name = op.name
        if name.startswith("vhlo."):
            return super().describe(op)
        dialect, _, short = name.partition(".")
        layout = layout_of(type(op))
        props_src = op.properties
        attrs_src = op.attributes
        values: dict[str, Attribute] = {}
        for k, required in layout.attrs:
            a = props_src.get(k)
            if a is None:
                a = attrs_src.get(k)
            if a is None:
                if required:
                    self.problem(f"op {name}{self.where(op)} has no '{k}' attribute")
                continue
            values[k] = a
        discardable = {k: v for k, v in attrs_src.items() if k not in layout.names}
        discardable.update((k, v) for k, v in props_src.items() if k not in layout.names)
        if self.version < 5 or layout.empty:
            merged = dict(discardable)
            merged.update(values)
            for seg in layout.segments:
                sizes = _segments(op, seg)
                if sizes is not None:
                    merged[seg] = DenseArrayBase.from_list(_I32, sizes)
            return OpInfo(name, dialect, short, True, self.dictionary(merged, op), None)
        props: list[tuple[str, Any]] = []
        if self.version < 6:
            for seg in layout.segments:
                sizes = _segments(op, seg) or []
                props.append(
                    ("A", self.value_entry(DenseArrayBase.from_list(_I32, sizes), op, seg))
                )
        for k, required in layout.attrs:
            v = values.get(k)
            if required:
                if v is not None:
                    props.append(("A", self.value_entry(v, op, k)))
            else:
                props.append(("oA", None if v is None else self.value_entry(v, op, k)))
        if self.version >= 6:
            for seg in layout.segments:
                sizes = _segments(op, seg)
                if sizes is None:
                    self.problem(f"op {name}{self.where(op)} has no '{seg}'")
                    sizes = []
                props.extend(sparse_array_items(sizes))
        return OpInfo(name, dialect, short, True, self.dictionary(discardable, op), tuple(props))


# =============================================================================================
# Reader side


def decode_entry(r: Reader, ctx: Any, dialect: str, is_type: bool, custom: bool) -> Attribute:
    """The reader's decoder for entries of dialects other than builtin and VHLO, and for textual
    entries of any dialect."""
    if not custom:
        pos = r.pos
        raw = r.bytes(r.remaining())
        if not raw.endswith(b"\x00"):
            raise BytecodeError("a textual attribute/type entry is not NUL-terminated", pos)
        return stablehlo.decode_text(raw[:-1].decode("utf-8", "surrogateescape"), is_type, pos)
    if dialect == "sdy":
        from stablehlo_py.serialization.mlirbc import sdy

        return sdy.decode(r, ctx, is_type)
    if dialect in ("stablehlo", "chlo", "quant"):
        pos = r.pos
        try:
            return stablehlo.decode(r, ctx, dialect, is_type)
        except (VerifyException, ValueError, TypeError, OverflowError) as e:
            raise BytecodeError(f"invalid {dialect} attribute or type: {e}", pos) from None
    raise BytecodeError(
        f"{'type' if is_type else 'attribute'} of dialect '{dialect}' has a custom encoding "
        "stablehlo-py cannot read",
        r.pos,
    )


def build_dialect_op(
    rd: Any,
    dialect: str,
    name: str,
    pos: int,
    location: Any,
    attr_dict: dict[str, Attribute],
    props_rec: Any,
    result_types: list[Attribute],
    operands: list[Any],
    regions: list[Any],
) -> Operation:
    """Build one op of dialect bytecode from its decoded parts (``rd`` is the bytecode reader)."""
    full = f"{dialect}.{name}"
    if full == "builtin.module" or dialect == "vhlo":
        op = build_vhlo_op(
            rd, dialect, name, pos, location, attr_dict, props_rec, result_types, operands, regions
        )
        if isinstance(op, ModuleOp) and "sym_visibility" in op.properties:
            # the text parser keeps a module's visibility with its other attributes
            op.attributes["sym_visibility"] = op.properties.pop("sym_visibility")
        return op
    from stablehlo_py.ir.dialects import default_registry

    cls = default_registry().ops.get(full)
    if cls is None:
        raise BytecodeError(f"unknown operation '{full}' (stablehlo-py does not model it)", pos)
    layout = layout_of(cls)
    props: dict[str, Attribute] = {}
    attrs = dict(attr_dict)
    if props_rec is not None:
        (start, end), at = props_rec
        layout = _record_layout(rd, full, layout, start, end)
        r = Reader(rd.data, start, end, "properties")
        if rd.version < 6:
            for seg in layout.segments:
                rd._pos = r.pos
                props[seg] = _prop_attr(rd, r.varint(), full, seg, at)
        for key, required in layout.attrs:
            rd._pos = r.pos
            v = r.varint()
            if required:
                props[key] = _prop_attr(rd, v, full, key, at)
            elif v & 1:
                props[key] = _prop_attr(rd, v >> 1, full, key, at)
            elif v:
                raise BytecodeError(f"invalid optional attribute reference {v} in {full}", at)
        if rd.version >= 6:
            for seg in layout.segments:
                props[seg] = DenseArrayBase.from_list(_I32, _read_sparse_array(r, at))
        if not r.at_end():
            raise BytecodeError(
                f"{full}'s properties record has trailing bytes (a different version of the op?)",
                start,
            )
    else:
        for key in layout.names:
            if key in attrs:
                props[key] = attrs.pop(key)
    # inherent upstream, discardable in the toolkit's op class (chlo.scan's scan_dim_size,
    # func.call's arg_attrs/res_attrs/no_inline ...): attributes, where the text parser keeps them
    declared = _declared(cls)
    for key in [k for k in props if k not in declared]:
        attrs[key] = props.pop(key)
    # and, as MLIR's Operation::setAttrs, an inherent attribute in the attribute dictionary (what an
    # older producer without it in its ODS writes, e.g. jaxlib 0.10's custom_call result_tilings)
    for key in [k for k in attrs if k in declared and k not in props]:
        props[key] = attrs.pop(key)
    for key, a in attrs.items():
        if isinstance(a, Loc):
            raise BytecodeError(f"attribute '{key}' of {full} is a location", pos)
    try:
        op = cls.create(
            operands=operands,
            result_types=result_types,
            properties=props,
            attributes=attrs,
            regions=regions,
        )
    except Exception as e:  # noqa: BLE001 - xDSL construction problems become format errors
        raise BytecodeError(f"invalid {full}: {e}", pos) from None
    op.location = location
    return op




def _declared(cls: type[Operation]) -> frozenset[str]:
    try:
        return frozenset(cls.get_irdl_definition().properties)  # type: ignore[attr-defined]
    except AttributeError:
        return frozenset()


def _record_layout(rd: Any, op: str, layout: PropsLayout, start: int, end: int) -> PropsLayout:
    """``layout``, or an older layout of ``op`` whose number of entries the record has."""
    older = OLDER_LAYOUTS.get(op)
    if not older or layout.segments:
        return layout
    r = Reader(rd.data, start, end, "properties")
    n = 0
    while not r.at_end():
        r.varint()
        n += 1
    if n == len(layout.attrs):
        return layout
    return next((x for x in older if len(x.attrs) == n), layout)


def _prop_attr(rd: Any, idx: int, op: str, key: str, at: int) -> Attribute:
    a = rd.attr(idx)
    if not isinstance(a, Attribute) or isinstance(a, Loc):
        raise BytecodeError(f"property '{key}' of {op} is not an attribute", at)
    return a


_ = builtin
