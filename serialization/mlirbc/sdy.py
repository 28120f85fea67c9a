"""Shardy's (`sdy`) attributes in MLIR bytecode (shardy/dialect/sdy/ir/bytecode.td), read into the
IR's form of them: the attribute's text (`OpaqueAttr`, as `stablehlo_py/ir/ops/sdy.py` keeps it).

An entry is its code (varint) then its fields; attributes inside it are references to other entries
(so an axis, an axis reference or a dimension sharding is an entry of its own, decoded here into the
structure `stablehlo_py.ir.sdy_attrs` reads from text):

====  ==========================  ===========================================================
code  attribute                   fields
====  ==========================  ===========================================================
0     manual axes                 [string attribute]
1     mesh axis                   name (string), size (signed varint)
2     mesh                        [mesh axis], device ids (count, signed varints)
3     sub-axis info               pre-size, size (signed varints)
4     axis reference              name (string), optional sub-axis info (flagged reference)
5     dimension sharding          [axis reference], is_closed (a byte), optional priority
                                  (flagged varint)
6     tensor sharding (v1)        mesh or symbol reference, [dimension sharding], [replicated]
15    tensor sharding (v2)        ... then [unreduced] (reduction SUM)
7/16  sharding per value          [tensor sharding]
8     dim mapping                 factor indices (count, signed varints)
9     tensor mapping              [dim mapping]
10    op sharding rule            factor sizes (count, signed varints), [operand tensor
                                  mapping], [result tensor mapping], then the reduction,
                                  need-replication, permutation and blocked-propagation factor
                                  lists (count, signed varints each), is_custom (a byte)
====  ==========================  ===========================================================

An op sharding rule (JAX's `sdy.sharding_rule` on its LAPACK and other custom calls) reads into
the text Shardy prints for it.  The collective attributes (11-14) and tensor shardings with a
non-SUM reduction (17) are refused with a clear error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablehlo_py.serialization.mlirbc import builtin
from stablehlo_py.serialization.mlirbc.builtin import NotEncodable
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.model import Entry, Interner, counted
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.sdy_attrs import (
    RULE_LISTS,
    AxisRef,
    DimSharding,
    Mesh,
    OpShardingRule,
    SdyAttrError,
    Sharding,
    manual_axes_text,
    mesh_text,
    op_sharding_rule_text,
    parse_manual_axes,
    parse_mesh,
    parse_op_sharding_rule,
    parse_sharding,
    parse_sharding_per_value,
    sharding_per_value_text,
    sharding_text,
)

__all__ = ["decode", "entry"]

_UNSUPPORTED = {
    11: "axis ref list",
    12: "list of axis ref lists",
    13: "all-to-all parameter",
    14: "all-to-all parameter list",
    17: "tensor sharding with a non-SUM reduction",
}


def _bool(r: Reader, pos: int) -> bool:
    """MLIR's `readBool`: one byte, 0 or 1."""
    b = r.byte()
    if b > 1:
        raise BytecodeError(f"invalid sdy attribute: a boolean byte is {b}", pos)
    return bool(b)


def _expect(value: Any, kind: type | tuple[type, ...], what: str, pos: int) -> Any:
    if not isinstance(value, kind):
        raise BytecodeError(f"invalid sdy attribute: {what} is {type(value).__name__}", pos)
    return value


def _opaque_of(value: Any, pos: int, what: str, parse: Callable[[str], Any], noun: str) -> Any:
    """The sdy attribute (`what`, an invalid one an error naming `noun`) an opaque attribute's text
    spells, read with `parse`."""
    text = _expect(value, OpaqueAttr, what, pos).data
    try:
        return parse(text)
    except SdyAttrError as e:
        raise BytecodeError(f"invalid sdy {noun}: {e}", pos) from None


def _mesh_of(value: Any, pos: int) -> Mesh:
    return _opaque_of(value, pos, "a mesh reference", parse_mesh, "mesh")  # type: ignore[no-any-return]


def _sharding_of(value: Any, pos: int) -> Sharding:
    return _opaque_of(value, pos, "a tensor sharding reference", parse_sharding, "sharding")  # type: ignore[no-any-return]


class _DimMapping(tuple):  # type: ignore[type-arg]
    """The factor indices of one dimension (an entry of its own in the bytecode)."""


class _TensorMapping(tuple):  # type: ignore[type-arg]
    """The dim mappings of one operand or result."""


def _svarints(r: Reader) -> list[int]:
    return [r.svarint() for _ in range(r.varint())]


def decode(r: Reader, ctx: Any, is_type: bool) -> Any:
    """One sdy entry (`ctx`: the reader's DecodeContext for references and strings)."""
    pos = r.pos
    if is_type:
        raise BytecodeError("the sdy dialect has no types", pos)
    code = r.varint()
    if code in _UNSUPPORTED:
        raise BytecodeError(
            f"sdy attribute '{_UNSUPPORTED[code]}' (bytecode code {code}) is not supported by "
            "stablehlo-py",
            pos,
        )

    def refs(kind: type | tuple[type, ...], what: str) -> list[Any]:
        return [_expect(ctx.read_attr(r), kind, what, pos) for _ in range(r.varint())]

    if code == 0:
        names = refs(StringAttr, "a manual axis")
        return OpaqueAttr(manual_axes_text(tuple(n.data for n in names)))
    if code == 1:
        return (ctx.read_str(r), r.svarint())
    if code == 2:
        axes = refs(tuple, "a mesh axis")
        ids = [r.svarint() for _ in range(r.varint())]
        return OpaqueAttr(mesh_text(Mesh(tuple(axes), tuple(ids) if ids else None)))
    if code == 3:
        return ("sub", r.svarint(), r.svarint())
    if code == 4:
        name = ctx.read_str(r)
        idx, present = r.varint_flag()
        if not present:
            return AxisRef(name)
        sub = _expect(ctx.attr(idx), tuple, "a sub-axis info", pos)
        return AxisRef(name, sub[1], sub[2])
    if code == 5:
        axes = refs(AxisRef, "an axis reference")
        closed = _bool(r, pos)
        prio, present = r.varint_flag()
        return DimSharding(tuple(axes), closed, prio if present else None)
    if code in (6, 15):
        mesh_ref = ctx.read_attr(r)
        if isinstance(mesh_ref, SymbolRefAttr):
            mesh: str | Mesh = mesh_ref.root_reference.data
        else:
            mesh = _mesh_of(mesh_ref, pos)
        dims = refs(DimSharding, "a dimension sharding")
        replicated = refs(AxisRef, "a replicated axis")
        unreduced = refs(AxisRef, "an unreduced axis") if code == 15 else []
        return OpaqueAttr(
            sharding_text(Sharding(mesh, tuple(dims), tuple(replicated), tuple(unreduced)))
        )
    if code == 8:
        return _DimMapping(tuple(_svarints(r)))
    if code == 9:
        return _TensorMapping(tuple(refs(_DimMapping, "a dim mapping")))
    if code == 10:
        sizes = _svarints(r)
        operands = refs(_TensorMapping, "an operand mapping")
        results = refs(_TensorMapping, "a result mapping")
        lists = {name: tuple(_svarints(r)) for name in RULE_LISTS}
        custom = _bool(r, pos)
        rule = OpShardingRule(tuple(sizes), tuple(operands), tuple(results), custom=custom, **lists)
        return OpaqueAttr(op_sharding_rule_text(rule))
    if code in (7, 16):
        items = [_sharding_of(ctx.read_attr(r), pos) for _ in range(r.varint())]
        return OpaqueAttr(sharding_per_value_text(tuple(items)))
    raise BytecodeError(f"unknown sdy attribute code {code} (written by a newer Shardy?)", pos)


# =============================================================================================
# Writer side: the same codes, from the attribute's text (what Shardy's writer emits for it)

D = "sdy"


def _name(text: str) -> tuple[str, Any]:
    return ("str", text.encode("utf-8", "surrogateescape"))


def _ints(values: tuple[int, ...] | list[int]) -> list[tuple[str, Any]]:
    """`writeSignedVarInts`: the count, then each value."""
    return [("v", len(values)), *(("s", int(v)) for v in values)]


def _refs(entries: list[Entry]) -> list[tuple[str, Any]]:
    """`writeList` of attributes: the count, then each reference."""
    return counted("A", entries)


def _axis_ref(it: Interner, ref: AxisRef) -> Entry:
    sub = None
    if ref.size is not None:
        sub = it.attr(D, ("v", 3), ("s", ref.pre_size), ("s", ref.size))
    return it.attr(D, ("v", 4), _name(ref.name), ("oA", sub))


def _dim(it: Interner, dim: DimSharding) -> Entry:
    prio = 0 if dim.priority is None else (dim.priority << 1) | 1  # writeOptionalVarInt
    return it.attr(
        D,
        ("v", 5),
        *_refs([_axis_ref(it, a) for a in dim.axes]),
        ("b", 1 if dim.closed else 0),
        ("v", prio),
    )


def _mesh(it: Interner, mesh: Mesh) -> Entry:
    axes = [it.attr(D, ("v", 1), _name(n), ("s", size)) for n, size in mesh.axes]
    return it.attr(D, ("v", 2), *_refs(axes), *_ints(mesh.device_ids or ()))


def _sharding(it: Interner, s: Sharding) -> Entry:
    if isinstance(s.mesh, Mesh):
        mesh = _mesh(it, s.mesh)
    else:
        mesh = builtin.attr_entry(it, SymbolRefAttr(s.mesh))
    items = [
        ("A", mesh),
        *_refs([_dim(it, d) for d in s.dims]),
        *_refs([_axis_ref(it, a) for a in s.replicated]),
    ]
    if s.unreduced:  # v2 (a SUM reduction: the only one this toolkit's sdy attributes express)
        return it.attr(D, ("v", 15), *items, *_refs([_axis_ref(it, a) for a in s.unreduced]))
    return it.attr(D, ("v", 6), *items)


def _per_value(it: Interner, shardings: tuple[Sharding, ...]) -> Entry:
    code = 16 if any(s.unreduced for s in shardings) else 7
    return it.attr(D, ("v", code), *_refs([_sharding(it, s) for s in shardings]))


def _rule(it: Interner, rule: OpShardingRule) -> Entry:
    def tensor(mapping: tuple[tuple[int, ...], ...]) -> Entry:
        dims = [it.attr(D, ("v", 8), *_ints(d)) for d in mapping]
        return it.attr(D, ("v", 9), *_refs(dims))

    items: list[tuple[str, Any]] = [("v", 10), *_ints(rule.factor_sizes)]
    items += _refs([tensor(m) for m in rule.operands])
    items += _refs([tensor(m) for m in rule.results])
    for name in RULE_LISTS:
        items += _ints(getattr(rule, name))
    items.append(("b", 1 if rule.custom else 0))
    return it.attr(D, *items)


def _manual_axes(it: Interner, axes: tuple[str, ...]) -> Entry:
    return it.attr(D, ("v", 0), *_refs([builtin.attr_entry(it, StringAttr(a)) for a in axes]))


_ENCODERS: tuple[tuple[str, Any], ...] = (
    ("#sdy.sharding<", lambda it, t: _sharding(it, parse_sharding(t))),
    ("#sdy.sharding_per_value<", lambda it, t: _per_value(it, parse_sharding_per_value(t))),
    ("#sdy.mesh<", lambda it, t: _mesh(it, parse_mesh(t))),
    ("#sdy.op_sharding_rule<", lambda it, t: _rule(it, parse_op_sharding_rule(t))),
    ("#sdy<manual_axes", lambda it, t: _manual_axes(it, parse_manual_axes(t))),
)
"""Text prefix -> the entry Shardy's bytecode writer gives that attribute."""


def entry(it: Interner, a: OpaqueAttr) -> Entry | None:
    """The custom encoding of an sdy attribute kept as its text (``OpaqueAttr``), or None for an
    sdy attribute this toolkit does not model (written as its text, which MLIR's reader parses with
    Shardy's parser)."""
    text = a.data
    for prefix, encode in _ENCODERS:
        if text.startswith(prefix):
            try:
                return encode(it, text)  # type: ignore[no-any-return]
            except SdyAttrError as e:
                raise NotEncodable(f"{text} cannot be encoded: {e.message}") from None
    return None
