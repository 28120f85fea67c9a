"""Write a VHLO module as a portable artifact (see ``format.py`` for the layout).

Only VHLO is accepted: a ``builtin.module`` whose ops are VHLO ops (``vhlo.add_v1``...) and whose
types and attributes are VHLO types and attributes, all legal at the target version.  Everything
that is not -- a StableHLO op, a builtin type, an op fork outside the target's range -- is collected
and reported together in one error naming each op and its location.

Determinism: the traversal follows the IR's order; entries and locations are numbered in first-use
order and deduplicated by their encoded form (never by hash order or object identity alone);
discardable attributes are sorted by name; msgpack encoding is canonical for the values we write
(smallest integer encodings, float64 for floats, bin for bytes).  So the same module and target give
the same bytes in any process, whatever ``PYTHONHASHSEED``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import msgpack
from stablehlo_py.serialization import codes
from stablehlo_py.serialization.entries import ATTR, TEXT_CODE, TYPE, codec_for, float_key, text_of
from stablehlo_py.serialization.format import (
    CURRENT_SCHEMA,
    MAGIC,
    Schema,
    producer_string,
    toolkit_string,
)
from stablehlo_py.serialization.locations import LocationTable
from xdsl.dialects.builtin import ModuleOp, UnknownLoc
from xdsl.ir import Attribute, Block, Operation, Region

from stablehlo_py import specs
from stablehlo_py.errors import SerializationError
from stablehlo_py.ir.text.location import TextLoc, source_position
from stablehlo_py.ir.text.printer import escape_string, location_text
from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.swap import successors_of, value_types
from stablehlo_py.version import Version

__all__ = ["write_artifact"]

_MAX_PROBLEMS = 50


def _packer(autoreset: bool = True) -> msgpack.Packer:
    return msgpack.Packer(
        use_bin_type=True,
        use_single_float=False,
        unicode_errors="surrogatepass",
        autoreset=autoreset,
    )


def attribute_fields(
    props: Any, attributes: Any, names: Any, entry: Any
) -> tuple[list[Any], list[Any]]:
    """An op record's attribute fields (FORMAT.md): one per attribute name of its VHLO class, in
    order, absent ones None and the trailing absent ones trimmed; then the extra attributes (not
    among `names`) as sorted name, entry pairs.  `entry(attribute)` gives an attribute's entry.
    The one rule for the slow writer and `direct_write`."""
    attrs: list[Any] = []
    if names:
        for name in names:
            a = props.get(name)
            if a is None:
                a = attributes.get(name)
                if a is None:
                    attrs.append(None)
                    continue
            attrs.append(entry(a))
        while attrs and attrs[-1] is None:
            attrs.pop()
    extra: list[Any] = []
    if attributes or len(props) > len(names):
        others = {k: v for k, v in attributes.items() if k not in names}
        others.update((k, v) for k, v in props.items() if k not in names)
        for k in sorted(others):
            extra.append(k)
            extra.append(entry(others[k]))
    return attrs, extra


def _op_location_text(op: Operation) -> str:
    return f"loc({location_text(op)})"


class _OpInfo:
    __slots__ = ("attr_names", "code", "legal", "spec")

    def __init__(self, code: int, spec: specs.OpSpec, target: Version):
        self.code = code
        self.spec = spec
        self.attr_names = spec.attribute_names
        self.legal = spec.is_legal_at(target)


_MISSING = object()


@cache
def _op_info(name: str, target: Version) -> _OpInfo | None:
    if not name.startswith("vhlo."):
        return None
    try:
        spec = specs.op(name)
        return _OpInfo(codes.op_code(spec.name), spec, target)
    except KeyError:
        return None


@cache
def _codec_legal(kind: int, name: str, target: Version) -> bool:
    spec = specs.type_spec(name) if kind == TYPE else specs.attr_spec(name)
    return spec.is_legal_at(target)


class _Writer:
    def __init__(
        self, target: Version, strip_debuginfo: bool, schema: Schema, allow_other: bool = False
    ):
        self.allow_other = allow_other  # other dialects' ops, types, attributes: as text entries
        self.text_ids: dict[tuple[int, int], int] = {}
        self.target = target
        self.strip = strip_debuginfo
        self.schema = schema
        self.fv = schema.format_for_target(target)
        self.op_record = schema["op"]
        # all fields of the op record this writer fills exist in the target's format: trimming
        # trailing zero values is all that pack() would do (falsy == zero value for wire values)
        self.op_fast = self.op_record.width(self.fv) >= 7
        self.block_record = schema["block"]
        self.entries: list[list[Any]] = []
        self.entry_kinds: list[int] = []
        self.by_id: dict[int, int] = {}
        self.by_key: dict[tuple[Any, ...], int] = {}
        self.alive: list[Attribute] = []
        self.locs = LocationTable()
        self.file_names: dict[str, str] = {}
        self.prev_loc = 0
        self.stack: list[int] = []  # id() of each value in scope, by position
        self.position: dict[int, int] = {}
        self.ops: dict[str, _OpInfo | None] = {}
        self.problems: list[str] = []

    # -- problems (reported together)
    def problem(self, text: str) -> None:
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(text)

    # -- entries
    def entry(self, a: Attribute, kind: int, where: Operation | None) -> int:
        idx = self.by_id.get(id(a))
        if idx is not None:
            if self.entry_kinds[idx] != kind:
                if self.allow_other and codec_for(a) is None:  # a builtin type used as a TypeAttr
                    return self.text_entry(a, kind, where)
                self._wrong_kind(a, kind, where)
            return idx
        codec = codec_for(a)
        if codec is None:
            if self.allow_other:
                return self.text_entry(a, kind, where)
            self._not_vhlo(a, kind, where)
            return 0
        if codec.kind != kind:
            self._wrong_kind(a, kind, where)
        if not _codec_legal(codec.kind, codec.name, self.target):
            s = codec.spec
            at = f" used by {where.name} at {_op_location_text(where)}" if where is not None else ""
            self.problem(
                f"{'type' if kind == TYPE else 'attribute'} vhlo.{codec.name}{at} is not in StableHLO "
                f"{self.target} (it exists from {s.min} to {s.max})"
            )
        values = codec.encode(a)
        wire: list[Any] = []
        key: list[Any] = [codec.kind, codec.code]
        for value, wk in zip(values, codec.wire):
            if wk == "T" or wk == "A":
                r = self.entry(value, TYPE if wk == "T" else ATTR, where)
                wire.append(r)
                key.append(r)
            elif wk == "A?":
                r = None if value is None else self.entry(value, ATTR, where)
                wire.append(r)
                key.append(r)
            elif wk == "Ts" or wk == "As":
                k = TYPE if wk == "Ts" else ATTR
                refs = [self.entry(x, k, where) for x in value]
                wire.append(refs)
                key.append(tuple(refs))
            elif wk == "i":
                v = int(value)
                wire.append(v)
                key.append(v)
            elif wk == "is":
                vs = [int(x) for x in value]
                wire.append(vs)
                key.append(tuple(vs))
            elif wk == "f":
                v = float(value)
                wire.append(v)
                key.append(float_key(v))
            elif wk == "fs":
                fs = [float(x) for x in value]
                wire.append(fs)
                key.append(tuple(float_key(x) for x in fs))
            elif wk == "b":
                b = bytes(value)
                wire.append(b)
                key.append(b)
            elif wk == "s":
                s = str(value)
                wire.append(s)
                key.append(s)
            else:  # "?"
                v = bool(value)
                wire.append(v)
                key.append(v)
        tkey = tuple(key)
        idx = self.by_key.get(tkey)
        if idx is None:
            idx = len(self.entries)
            self.entries.append([codec.kind, codec.code, *codec.record.pack(wire, self.fv)])
            self.entry_kinds.append(codec.kind)
            self.by_key[tkey] = idx
        self.by_id[id(a)] = idx
        self.alive.append(a)
        return idx

    def text_entry(self, a: Attribute, kind: int, where: Operation | None) -> int:
        """A type or attribute that is not VHLO, as its MLIR text (``allow_other_dialects``)."""
        idx = self.text_ids.get((id(a), kind))
        if idx is not None:
            return idx
        try:
            text = text_of(a, kind)
        except Exception:  # noqa: BLE001 - an attribute the printer cannot print
            self._not_vhlo(a, kind, where)
            return 0
        key = (kind, TEXT_CODE, text)
        idx = self.by_key.get(key)
        if idx is None:
            idx = len(self.entries)
            self.entries.append([kind, TEXT_CODE, text])
            self.entry_kinds.append(kind)
            self.by_key[key] = idx
        self.text_ids[(id(a), kind)] = idx
        self.alive.append(a)
        return idx

    def _not_vhlo(self, a: Attribute, kind: int, where: Operation | None) -> None:
        from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

        try:
            text = type_to_str(a) if kind == TYPE else attr_to_str(a)
        except Exception:  # noqa: BLE001 - only for the message
            text = a.name
        at = f" in {where.name} at {_op_location_text(where)}" if where is not None else ""
        self.problem(
            f"{'type' if kind == TYPE else 'attribute'} {text}{at} is not a VHLO "
            f"{'type' if kind == TYPE else 'attribute'}; portable artifacts hold only VHLO "
            "(run stablehlo-legalize-to-vhlo first)"
        )

    def _wrong_kind(self, a: Attribute, kind: int, where: Operation | None) -> None:
        at = f" in {where.name} at {_op_location_text(where)}" if where is not None else ""
        want = "a type" if kind == TYPE else "an attribute"
        self.problem(f"{a.name}{at} is used where {want} is expected")

    # -- locations
    def op_loc(self, op: object) -> int:
        """An op's or block argument's location; without `loc(...)`, where it was parsed (as MLIR's
        parser locates everything, and the printer shows with debuginfo)."""
        if self.strip:
            return 0
        loc = getattr(op, "location", None)
        if type(loc) is TextLoc:
            return self.locs.ref(loc.data)
        pos = source_position(op)
        if pos is not None:
            return self.locs.file_line_col(self._file_name(pos[0]), pos[1], pos[2])
        return self.loc(loc) if loc is not None else 0

    def _file_name(self, filename: str) -> str:
        name = self.file_names.get(filename)
        if name is None:
            name = self.file_names[filename] = escape_string(filename)
        return name

    def loc(self, loc: Attribute) -> int:
        if self.strip or not isinstance(loc, TextLoc):
            if isinstance(loc, (TextLoc, UnknownLoc)) or self.strip:
                return 0
            self.problem(f"unsupported location kind {loc.name}")
            return 0
        return self.loc_text(loc.data)

    def loc_text(self, text: str) -> int:
        return self.locs.ref(text)

    # -- values
    def push(self, value: object) -> None:
        self.position[id(value)] = len(self.stack)
        self.stack.append(id(value))

    def pop_to(self, mark: int) -> None:
        for vid in self.stack[mark:]:
            del self.position[vid]
        del self.stack[mark:]

    # -- ops
    def op_info(self, op: Operation) -> _OpInfo | None:
        info = _op_info(op.name, self.target)
        self.ops[op.name] = info
        return info

    def op(self, op: Operation) -> list[Any]:
        info = self.ops.get(op.name, _MISSING)
        if info is _MISSING:
            info = self.op_info(op)
        if info is None:
            if self.allow_other and op.name != "builtin.module":
                return self.other_op(op)
            self.problem(
                f"op {op.name} at {_op_location_text(op)} is not a VHLO op; portable artifacts hold "
                "only VHLO (run stablehlo-legalize-to-vhlo first; other dialects are not supported)"
            )
            return [0]
        if not info.legal:
            spec = info.spec
            self.problem(
                f"op {op.name} at {_op_location_text(op)} is not in StableHLO {self.target} "
                f"(it exists from {spec.min} to {spec.max}); run vhlo-to-version first"
            )
        # the fields as stored (``xdsl_compat.swap``): the public accessors build view objects
        # and cost 2-3x as much on this hot path
        if successors_of(op):
            self.problem(
                f"op {op.name} at {_op_location_text(op)} has successors, which VHLO ops never have"
            )
        stack = self.stack
        position = self.position
        n = len(stack)
        try:
            operands = [n - position[id(v)] for v in operands_of(op)]
        except KeyError:
            operands = self._operands_slow(op, n)
        by_id = self.by_id
        kinds = self.entry_kinds
        result_types = []
        results = op.results
        for t in value_types(results):
            idx = by_id.get(id(t))
            if idx is None or kinds[idx] != TYPE:
                idx = self.entry(t, TYPE, op)
            result_types.append(idx)
        props = op.properties
        attributes = op.attributes
        entry = self.entry

        def attr_entry(a: Any) -> int:
            idx = by_id.get(id(a))
            if idx is None or kinds[idx] != ATTR:
                idx = entry(a, ATTR, op)
            return idx  # type: ignore[no-any-return]

        attrs, extra = attribute_fields(props, attributes, info.attr_names, attr_entry)
        loc = self.op_loc(op)  # before the regions: the reader sees the ops in this order
        record = self.op_fields(op, info.code, operands, result_types, loc, attrs, extra)
        if self.op_fast:
            while len(record) > 1 and not record[-1]:
                record.pop()
            return record
        return self.op_record.pack(record, self.fv)

    def op_fields(
        self,
        op: Operation,
        code: int,
        operands: list[int],
        result_types: list[int],
        loc: int,
        attrs: list[Any],
        extra: list[Any],
    ) -> list[Any]:
        """An op record's fields, untrimmed (FORMAT.md): its location as a delta from the previous
        op's, its regions (written after the location: the reader sees the ops in this order), and
        its results numbered on the value stack.  Shared by this writer and `direct_write`."""
        loc_delta = loc - self.prev_loc
        self.prev_loc = loc
        regions = [self.region(r) for r in op.regions] if op.regions else []
        stack, position = self.stack, self.position
        for r in op.results:
            position[id(r)] = len(stack)
            stack.append(id(r))
        rt: Any = result_types[0] if len(result_types) == 1 else result_types
        return [code, operands, rt, loc_delta, attrs, regions, extra]

    def other_op(self, op: Operation) -> list[Any]:
        """An op of another dialect (``allow_other_dialects``), a ``format.OTHER_OP`` record: its
        name, its properties and discardable attributes by name, its types and attributes as
        entries (text entries when not VHLO)."""
        if successors_of(op):
            self.problem(
                f"op {op.name} at {_op_location_text(op)} has successors, which portable "
                "artifacts cannot hold"
            )
        n = len(self.stack)
        try:
            operands = [n - self.position[id(v)] for v in operands_of(op)]
        except KeyError:
            operands = self._operands_slow(op, n)
        result_types = [self.entry(t, TYPE, op) for t in value_types(op.results)]
        props: list[Any] = []
        for k in sorted(op.properties):
            props += [k, self.entry(op.properties[k], ATTR, op)]
        extra: list[Any] = []
        for k in sorted(op.attributes):
            extra += [k, self.entry(op.attributes[k], ATTR, op)]
        loc = self.op_loc(op)
        loc_delta = loc - self.prev_loc
        self.prev_loc = loc
        regions = [self.region(r) for r in op.regions]
        for r in op.results:
            self.push(r)
        rt: Any = result_types[0] if len(result_types) == 1 else result_types
        record = [op.name, operands, rt, loc_delta, props, regions, extra]
        return self.schema["other_op"].pack(record, self.fv)

    def _operands_slow(self, op: Operation, n: int) -> list[int]:
        out = []
        for i, v in enumerate(op.operands):
            p = self.position.get(id(v))
            if p is None:
                self.problem(
                    f"operand #{i} of {op.name} at {_op_location_text(op)} is not defined before "
                    "the op in an enclosing scope"
                )
                p = 0
            out.append(n - p)
        return out

    def region(self, region: Region) -> list[Any]:
        mark = len(self.stack)
        blocks: Sequence[Block] = list(region.blocks)
        for block in blocks:
            for a in block.args:
                self.push(a)
        out = []
        for block in blocks:
            arg_types = [self.entry(a.type, TYPE, block.parent_op()) for a in block.args]
            ops = [self.op(o) for o in block.ops]
            arg_locs = [self.op_loc(a) for a in block.args]
            if not any(arg_locs):
                arg_locs = []
            out.append(self.block_record.pack([arg_types, ops, arg_locs], self.fv))
        self.pop_to(mark)
        return out

    def module(self, module: ModuleOp) -> list[Any]:
        name = module.properties.get("sym_name")
        sym = None if name is None else name.data  # type: ignore[attr-defined]
        attrs: list[Any] = []
        vhlo_attrs: list[Any] = []
        for k in sorted(module.attributes):
            a = module.attributes[k]
            if codec_for(a) is not None:
                vhlo_attrs += [k, self.entry(a, ATTR, module)]
                continue
            converted = _module_attr_to_vhlo(a)
            if converted is None and self.allow_other:  # kept as it is (a text entry)
                vhlo_attrs += [k, self.entry(a, ATTR, module)]
                continue
            if converted is None:
                self.problem(
                    f"module attribute '{k}' ({_attr_text(a)}) has no VHLO counterpart that converts "
                    "back to it exactly, so it cannot be stored in a portable artifact"
                )
                continue
            attrs += [k, self.entry(converted, ATTR, module)]
        body = self.region(module.body)
        return self.schema["module"].pack(
            [sym, attrs, body, self.op_loc(module), vhlo_attrs], self.fv
        )


def _attr_text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str

    try:
        return attr_to_str(a)
    except Exception:  # noqa: BLE001 - only for the message
        return a.name


def _module_attr_to_vhlo(a: Attribute) -> Attribute | None:
    """The VHLO form of a builtin module attribute, if converting it back gives it exactly."""
    from stablehlo_py.vhlo.convert import to_builtin_attr, to_vhlo_attr

    try:
        v = to_vhlo_attr(a)
        if v is None or codec_for(v) is None:
            return None
        return v if to_builtin_attr(v) == a else None
    except Exception:  # noqa: BLE001 - an attribute the conversion does not handle
        return None


def write_artifact(
    module: Operation,
    target: Version,
    strip_debuginfo: bool = False,
    schema: Schema = CURRENT_SCHEMA,
    *,
    allow_other_dialects: bool = False,
) -> bytes:
    """Encode a VHLO ``builtin.module`` whose contents are legal at ``target`` (an X.Y.0 release).

    Raises :class:`SerializationError` listing every op, type or attribute that is not VHLO or not
    legal at ``target``; with ``allow_other_dialects`` ops of other dialects and types and
    attributes that are not VHLO are written too (``format.OTHER_OP`` records, text entries).
    """
    if module.name != "builtin.module":
        raise SerializationError(f"expected a builtin.module to serialize, got {module.name}")
    w = _Writer(target, strip_debuginfo, schema, allow_other_dialects)
    from stablehlo_py.ir import no_gc

    with no_gc():
        module_record = w.module(module)
        if w.problems:
            more = "" if len(w.problems) < _MAX_PROBLEMS else f"\n  (stopped after {_MAX_PROBLEMS})"
            raise SerializationError(
                f"cannot write a portable artifact for StableHLO {target}:\n  "
                + "\n  ".join(w.problems)
                + more
            )
        return pack_artifact(w, module_record, schema, target)


def pack_artifact(w: _Writer, module_record: list[Any], schema: Schema, target: Version) -> bytes:
    """The artifact's bytes: magic, header, and the body sections (a writer's entries and
    locations, and the module record) packed into one buffer, copied once into the artifact."""
    packer = _packer(autoreset=False)
    for section in schema["body"].pack([w.entries, w.locs.items, module_record], w.fv):
        packer.pack(section)
    body = packer.getbuffer()
    header = schema["header"].pack(
        [w.fv, producer_string(target), toolkit_string(), len(body)], w.fv
    )
    return b"".join((MAGIC, _packer().pack(header), body))
