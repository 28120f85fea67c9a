"""The msgpack writer's fast path: StableHLO ops straight to op records, no VHLO records between.

``serialize_portable_artifact`` is ``stablehlo-legalize-to-vhlo`` -> ``vhlo-to-version{target}`` ->
:func:`~stablehlo_py.serialization.writer.write_artifact` (DESIGN.md §2); those arrows stay the
semantics.  When the target is the current version the fork step changes nothing (the legalization
writes the current forks), and the legalization of one op is a function of its class, its
attributes and its types alone.  So this writer encodes each StableHLO op directly, through the same
tables and the same entry encoder as ``write_artifact``:

* the op code: the op's current VHLO fork (``specs.op_for_stablehlo``), once per op name;
* the attribute fields: the legalization's own attribute conversion (``_split_attributes``: flattened
  structs, integer enums, written-out defaults), once per distinct set of attribute objects, kept as
  the encoded ``[entry, ...]`` field and the sorted extra-attribute pairs;
* result and block-argument types: ``convert.to_vhlo_type`` once per type object, then its entry;
* operands, locations, regions, the module record: as ``write_artifact`` writes them.

Anything this path does not cover -- an op that is not StableHLO or func (a nested module, another
dialect), a type or attribute without a VHLO counterpart, any problem the writer would report --
raises :class:`NotDirect`, and the caller takes the slow path, which gives the diagnostics.
``tests/serialization/test_direct_paths.py`` checks the bytes are the slow path's.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.serialization.entries import ATTR, TYPE
from stablehlo_py.serialization.format import CURRENT_SCHEMA
from stablehlo_py.serialization.writer import _op_info, _Writer, attribute_fields, pack_artifact
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region

from stablehlo_py import specs
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.xdsl_compat.side_data import SRC
from stablehlo_py.ir.xdsl_compat.fields import block_ops, operands_of
from stablehlo_py.ir.xdsl_compat.swap import successors_of, value_types
from stablehlo_py.version import Version, get_current_version

__all__ = ["NotDirect", "write_direct"]


class NotDirect(Exception):
    """The module holds something the fast path does not encode; take the slow path."""


class _OpClass:
    """What the fast path knows of a StableHLO op name: its VHLO fork and the fork's op code."""

    __slots__ = ("attr_names", "cls", "code", "no_attrs", "spec")

    def __init__(self, name: str, target: Version):
        from stablehlo_py.passes.stablehlo_legalize_to_vhlo import _fork_of

        try:
            self.spec, self.cls = _fork_of(name)
        except KeyError:
            raise NotDirect(name) from None
        info = _op_info(f"vhlo.{self.spec.name}", target)
        if info is None or not info.legal:
            raise NotDirect(name)
        self.code = info.code
        self.attr_names = info.attr_names
        self.no_attrs: tuple[list[Any], list[Any]] | None = None  # fields of an op without any


class _DirectWriter(_Writer):
    def __init__(self, target: Version, strip_debuginfo: bool):
        super().__init__(target, strip_debuginfo, CURRENT_SCHEMA)
        from stablehlo_py.passes.stablehlo_legalize_to_vhlo import _Legalizer
        from stablehlo_py.vhlo import sinks

        self.legalizer = _Legalizer(False, sinks.RECORDS)
        self.classes: dict[str, _OpClass] = {}
        self.type_entries: dict[int, int] = {}  # id(builtin type) -> its VHLO type's entry
        self.attr_fields: dict[tuple[Any, ...], tuple[list[Any], list[Any]]] = {}
        self.sources: dict[int, tuple[str, Any]] = {}  # id(parsed buffer) -> file name, line_col

    def type_entry(self, t: Any, where: Operation | None) -> int:
        idx = self.type_entries.get(id(t))
        if idx is None:
            from stablehlo_py.vhlo.convert import to_vhlo_type

            v = to_vhlo_type(t)
            if v is None:
                raise NotDirect("a type without a VHLO counterpart")
            idx = self.type_entries[id(t)] = self.entry(v, TYPE, where)
            self.alive.append(t)
        return idx

    def op_loc(self, op: object) -> int:
        """``_Writer.op_loc`` with the file name and line table looked up once per parsed buffer."""
        if self.strip:
            return 0
        loc = getattr(op, "location", None)
        if type(loc) is TextLoc:
            return self.locs.ref(loc.data)
        src = getattr(op, SRC, None)
        if src is None:
            return super().op_loc(op)
        source, pos = src
        got = self.sources.get(id(source))
        if got is None:
            got = self.sources[id(source)] = (self._file_name(source.filename), source.line_col)
            self.alive.append(source)
        line, col = got[1](pos)
        return self.locs.file_line_col(got[0], line, col)

    def fields(self, op: Operation, cls: _OpClass) -> tuple[list[Any], list[Any]]:
        """The op record's attribute fields (trimmed) and extra attributes of the VHLO op the
        legalization makes of ``op``."""
        props, attributes = self.legalizer._split_attributes(op, cls.spec, cls.cls)
        entry = self.entry
        return attribute_fields(props, attributes, cls.attr_names, lambda a: entry(a, ATTR, op))

    def op(self, op: Operation) -> list[Any]:  # type: ignore[override]
        name = op.name
        cls = self.classes.get(name)
        if cls is None:
            if isinstance(op, ModuleOp):
                raise NotDirect("a nested module")
            cls = self.classes[name] = _OpClass(name, self.target)
        if successors_of(op):
            raise NotDirect("successors")
        stack = self.stack
        position = self.position
        n = len(stack)
        try:
            operands = [n - position[id(v)] for v in operands_of(op)]
        except KeyError:
            raise NotDirect("an operand not in scope") from None
        results = op.results
        try:
            result_types = [self.type_entries[id(t)] for t in value_types(results)]
        except KeyError:
            result_types = [self.type_entry(t, op) for t in value_types(results)]
        props = op.properties
        attributes = op.attributes
        if props or attributes:
            key = (name, *props, None, *attributes, *map(id, props.values()), *map(id, attributes.values()))
            got = self.attr_fields.get(key)
            if got is None:
                got = self.attr_fields[key] = self.fields(op, cls)
                self.alive.append(op)  # (its attributes: the key holds their identities)
        else:
            got = cls.no_attrs
            if got is None:
                got = cls.no_attrs = self.fields(op, cls)
        # (``op_loc``'s common cases inline: an op where it was parsed, an op with `loc(...)`)
        src = None if self.strip else getattr(op, SRC, None)
        if src is not None and type(op.location) is not TextLoc:
            got_src = self.sources.get(id(src[0]))
            if got_src is None:
                loc = self.op_loc(op)
            else:
                line, col = got_src[1](src[1])
                loc = self.locs.file_line_col(got_src[0], line, col)
        else:
            loc = self.op_loc(op)
        record = self.op_fields(op, cls.code, operands, result_types, loc, got[0], got[1])
        while len(record) > 1 and not record[-1]:
            record.pop()
        return record

    def region(self, region: Region) -> list[Any]:
        mark = len(self.stack)
        blocks = list(region.blocks)
        for block in blocks:
            for a in block.args:
                self.push(a)
        out = []
        for block in blocks:
            owner = block.parent_op()
            arg_types = [self.type_entry(t, owner) for t in value_types(block.args)]
            ops = [self.op(o) for o in block_ops(block)]
            arg_locs = [self.op_loc(a) for a in block.args]
            if not any(arg_locs):
                arg_locs = []
            out.append(self.block_record.pack([arg_types, ops, arg_locs], self.fv))
        self.pop_to(mark)
        return out


def write_direct(module: ModuleOp, target: Version, strip_debuginfo: bool = False) -> bytes:
    """``write_artifact(vhlo_records(module, target))`` for a target that needs no fork step (the
    current version), encoded straight from the StableHLO ops; :class:`NotDirect` for a module
    or target the fast path does not cover."""
    if target != get_current_version() or not isinstance(module, ModuleOp):
        raise NotDirect("target")
    w = _DirectWriter(target, strip_debuginfo)
    if not w.op_fast:
        raise NotDirect("schema")
    try:
        record = w.module(module)
    except NotDirect:
        raise
    except Exception as e:  # noqa: BLE001 - the slow path reports it as it does
        raise NotDirect(str(e)) from None
    if w.problems:
        raise NotDirect("problems")
    return pack_artifact(w, record, CURRENT_SCHEMA, target)


_ = specs
