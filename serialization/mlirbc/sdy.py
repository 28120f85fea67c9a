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

from typing import Any

from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.sdy_attrs import (
    AxisRef,
    DimSharding,
    Mesh,
    SdyAttrError,
    Sharding,
    manual_axes_text,
    mesh_text,
    parse_mesh,
    parse_sharding,
    sharding_per_value_text,
    sharding_text,
)

__all__ = ["decode"]

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


def _mesh_of(value: Any, pos: int) -> Mesh:
    text = _expect(value, OpaqueAttr, "a mesh reference", pos).data
    try:
        return parse_mesh(text)
    except SdyAttrError as e:
        raise BytecodeError(f"invalid sdy mesh: {e}", pos) from None


def _sharding_of(value: Any, pos: int) -> Sharding:
    text = _expect(value, OpaqueAttr, "a tensor sharding reference", pos).data
    try:
        return parse_sharding(text)
    except SdyAttrError as e:
        raise BytecodeError(f"invalid sdy sharding: {e}", pos) from None


class _DimMapping(tuple):  # type: ignore[type-arg]
    """The factor indices of one dimension (an entry of its own in the bytecode)."""


class _TensorMapping(tuple):  # type: ignore[type-arg]
    """The dim mappings of one operand or result."""


_RULE_LISTS = ("reduction", "need_replication", "permutation", "blocked_propagation")
_LAST_LETTER = ord("z") - ord("i")  # factor 17 is `z`, then `z_1`, `z_2`, ...


def _svarints(r: Reader) -> list[int]:
    return [r.svarint() for _ in range(r.varint())]


def _factor(i: int) -> str:
    return chr(ord("i") + i) if i <= _LAST_LETTER else f"z_{i - _LAST_LETTER}"


def _rule_text(sizes, operands, results, lists, custom: bool) -> str:  # type: ignore[no-untyped-def]
    """`#sdy.op_sharding_rule<([i, j])->([i]) {i=4, j=8} reduction={j}, custom>`, as Shardy prints."""

    def tensors(mappings) -> str:  # type: ignore[no-untyped-def]
        return ", ".join(
            "[" + ", ".join("".join(_factor(f) for f in dim) for dim in m) + "]" for m in mappings
        )

    out = f"#sdy.op_sharding_rule<({tensors(operands)})->({tensors(results)})"
    if sizes:
        out += " {" + ", ".join(f"{_factor(i)}={n}" for i, n in enumerate(sizes)) + "}"
    for name, factors in zip(_RULE_LISTS, lists):
        if factors:
            out += f" {name}={{" + ", ".join(_factor(f) for f in factors) + "}"
    return out + (", custom>" if custom else ">")


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
        lists = [_svarints(r) for _ in _RULE_LISTS]
        custom = _bool(r, pos)
        return OpaqueAttr(_rule_text(sizes, operands, results, lists, custom))
    if code in (7, 16):
        items = [_sharding_of(ctx.read_attr(r), pos) for _ in range(r.varint())]
        return OpaqueAttr(sharding_per_value_text(tuple(items)))
    raise BytecodeError(f"unknown sdy attribute code {code} (written by a newer Shardy?)", pos)
