"""Read MLIR bytecode (versions 0-6) of a VHLO portable artifact into a VHLO ``builtin.module``.

Follows ``mlir/lib/Bytecode/Reader/BytecodeReader.cpp``: sections in any order (each at most once;
0-4 required, 8 required from version 5, 5 and 6 together), strings, dialects and op names,
attributes and types decoded lazily on first reference (memoized; a reference to a later entry is
fine, a cycle is an error), properties records or the pre-v5 attribute dictionary, values numbered
per isolated scope, lazily-loadable region sections, use-list orders read and dropped.

Every problem is a :class:`~.encoding.BytecodeError` with the absolute byte offset.  Sizes are
checked against the bytes present before anything is allocated from them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from stablehlo_py.serialization.mlirbc import builtin, vhlo
from stablehlo_py.serialization.mlirbc.builtin import DecodeContext, Loc
from stablehlo_py.serialization.mlirbc.encoding import (
    MAGIC,
    SECTION_NAMES,
    BytecodeError,
    Reader,
    Section,
)
from stablehlo_py.serialization.reader import ATTR_ELEMENT_BUDGET, MAX_ATTR_SPLAT, _is_splat
from stablehlo_py.vhlo.attrs import TensorV1Attr
from stablehlo_py.vhlo.records import VBlock, VRegion
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py import specs
from stablehlo_py.ir.text.location import UNKNOWN, TextLoc

__all__ = ["BytecodeArtifact", "read_bytecode", "read_producer"]

MAX_VERSION = 6
_MAX_DEPTH = 1500  # references followed while decoding one entry (JAX's location chains are long)
MAX_NESTING = 100
"""Deepest nesting of regions in ops, and of attributes and types in each other (locations aside):
the rest of the toolkit recurses over both (StableHLO programs nest a few levels)."""
EXPANSION_BUDGET = 1 << 18
"""Attribute and type values all uses together may expand to, plus 16 per artifact byte: a shared
sub-attribute counts at each use, as the conversions and comparisons downstream expand it (real
artifacts use well under one per byte; exponential sharing would never finish)."""


@dataclass
class BytecodeArtifact:
    version: int
    producer: str
    module: ModuleOp


def read_producer(data: bytes) -> tuple[int, str]:
    """(bytecode version, producer) from the header alone."""
    if not data.startswith(MAGIC):
        raise BytecodeError("not MLIR bytecode (the file does not start with 'ML\\xefR')", 0)
    r = Reader(data, 4)
    version = r.varint()
    producer = r.cstring()
    return version, producer.decode("utf-8", "replace")


class _Entry:
    __slots__ = ("custom", "dialect", "end", "is_type", "start")

    def __init__(self, dialect: str, start: int, end: int, custom: bool, is_type: bool):
        self.dialect = dialect
        self.start = start
        self.end = end
        self.custom = custom
        self.is_type = is_type


_IN_PROGRESS = object()


class _Reader:
    _pos = 0  # where a reference being resolved was read (for the messages)

    def __init__(
        self,
        data: bytes,
        op_builder: Callable[..., Operation],
        dialect_decoder: Callable[..., Any] | None = None,
        records: bool = False,
    ):
        self.data = data
        self.build_op = op_builder
        self.dialect_decoder = dialect_decoder
        self.records = records  # build VHLO records (``vhlo.records``) instead of xDSL IR
        self._loc_objs: dict[int, TextLoc] = {}  # attribute index -> its location, decoded once

    # ------------------------------------------------------------------ sections
    def read(self) -> BytecodeArtifact:
        data = self.data
        version, producer = read_producer(data)
        if version > MAX_VERSION:
            raise BytecodeError(
                f"MLIR bytecode version {version} is newer than this reader supports "
                f"(0..{MAX_VERSION}); the artifact's producer is '{producer}'",
                4,
            )
        self.version = version
        self.producer = producer
        r = Reader(data, 4)
        r.varint()
        r.cstring()
        sections: dict[int, tuple[int, int]] = {}
        while not r.at_end():
            start = r.pos
            sid, body, end = r.section_header()
            if sid >= Section.COUNT:
                raise BytecodeError(f"unknown section id {sid}", start)
            if sid in sections:
                raise BytecodeError(f"duplicate {SECTION_NAMES[sid]} section", start)
            sections[sid] = (body, end)
        for sid in (
            Section.STRING,
            Section.DIALECT,
            Section.ATTR_TYPE,
            Section.ATTR_TYPE_OFFSET,
            Section.IR,
        ):
            if sid not in sections:
                raise BytecodeError(f"missing {SECTION_NAMES[sid]} section", len(data))
        if version >= 5 and Section.PROPERTIES not in sections:
            raise BytecodeError(
                "missing properties section (required from bytecode version 5)", len(data)
            )
        if (Section.RESOURCE in sections) != (Section.RESOURCE_OFFSET in sections):
            raise BytecodeError(
                "resource and resource offset sections must both be present", len(data)
            )
        self.read_strings(*sections[Section.STRING])
        self.read_dialects(*sections[Section.DIALECT])
        self.read_attr_type_offsets(
            *sections[Section.ATTR_TYPE_OFFSET], *sections[Section.ATTR_TYPE]
        )
        if Section.RESOURCE_OFFSET in sections:
            self.check_resources(*sections[Section.RESOURCE_OFFSET])
        self.props: list[tuple[int, int]] = []
        if Section.PROPERTIES in sections:
            self.read_properties(*sections[Section.PROPERTIES])
        self.ctx = DecodeContext(self.attr, self.type, self.string)
        module = self.read_ir(*sections[Section.IR])
        return BytecodeArtifact(version, producer, module)

    def read_strings(self, start: int, end: int) -> None:
        r = Reader(self.data, start, end, "string")
        n = r.count(1, "strings")
        sizes = [r.varint() for _ in range(n)]
        sizes.reverse()
        total = sum(sizes)
        if total != r.remaining():
            raise r.fail(f"string sizes add up to {total} bytes but {r.remaining()} remain")
        out = []
        pos = r.pos
        for s in sizes:
            if s == 0 or self.data[pos + s - 1] != 0:
                raise BytecodeError("string is not NUL-terminated", pos)
            out.append(bytes(self.data[pos : pos + s - 1]))
            pos += s
        self.strings = out

    def string(self, idx: int) -> bytes:
        if idx >= len(self.strings):
            raise BytecodeError(
                f"string index {idx} out of range ({len(self.strings)} strings)", self._pos
            )
        return self.strings[idx]

    def read_dialects(self, start: int, end: int) -> None:
        r = Reader(self.data, start, end, "dialect")
        n = r.count(1, "dialects")
        dialects = []
        for _ in range(n):
            self._pos = r.pos
            if self.version < 1:
                sid, has_version = r.varint(), False
            else:
                sid, has_version = r.varint_flag()
            dialects.append(self.string(sid).decode("utf-8", "replace"))
            if has_version:
                vstart = r.pos
                sid2, _, _ = r.section_header()
                if sid2 != Section.DIALECT_VERSIONS:
                    raise BytecodeError("expected a dialect version section", vstart)
        self.dialects = dialects
        names: list[tuple[str, str, bool]] = []
        declared = r.count(1, "op names") if self.version >= 4 else None
        while not r.at_end():
            d = r.varint()
            if d >= len(dialects):
                raise r.fail(f"dialect index {d} out of range")
            for _ in range(r.count(1, "op names")):
                self._pos = r.pos
                if self.version >= 5:
                    sid, registered = r.varint_flag()
                else:
                    sid, registered = r.varint(), True
                names.append((dialects[d], self.string(sid).decode("utf-8", "replace"), registered))
        if declared is not None and declared != len(names):
            raise BytecodeError(f"{declared} op names declared but {len(names)} listed", start)
        self.op_names = names

    def read_attr_type_offsets(self, start: int, end: int, dstart: int, dend: int) -> None:
        r = Reader(self.data, start, end, "attribute/type offset")
        n_attrs = r.count(1, "attributes")
        n_types = r.count(1, "types")
        entries: list[_Entry] = []
        pos = dstart
        for count, is_type in ((n_attrs, False), (n_types, True)):
            got = 0
            while got < count:
                d = r.varint()
                if d >= len(self.dialects):
                    raise r.fail(f"dialect index {d} out of range")
                kpos = r.pos
                k = r.count(1, "entries")
                if got + k > count:
                    what = "types" if is_type else "attributes"
                    raise r.fail(
                        f"a group lists {k} entries but only {count - got} of the {count} {what} "
                        "remain",
                        kpos,
                    )
                for _ in range(k):
                    size, custom = r.varint_flag()
                    if size > dend - pos:
                        raise r.fail("an attribute/type entry runs past the end of its section")
                    entries.append(_Entry(self.dialects[d], pos, pos + size, custom, is_type))
                    pos += size
                got += k
        if not r.at_end():
            raise r.fail("trailing bytes")
        if pos != dend:
            raise BytecodeError("attribute/type section has bytes no entry covers", pos)
        self.attr_entries = entries[:n_attrs]
        self.type_entries = entries[n_attrs:]
        self.attr_cache: list[Any] = [None] * n_attrs
        self.type_cache: list[Any] = [None] * n_types
        self.depth = 0
        # per decoded value (by id): [expanded values, nesting depth, tensor elements, largest splat]
        self.stats: dict[int, list[int]] = {}
        self._acc: list[list[int]] = []
        self.budget = EXPANSION_BUDGET + 16 * len(self.data)
        self.expanded = 0
        self.elements = 0

    def attr(self, idx: int) -> Any:
        if idx >= len(self.attr_cache):
            raise BytecodeError(
                f"attribute index {idx} out of range ({len(self.attr_cache)} attributes)", self._pos
            )
        got = self.attr_cache[idx]
        if got is None:
            got = self._decode(self.attr_entries[idx], self.attr_cache, idx)
        elif got is _IN_PROGRESS:
            raise BytecodeError(
                "an attribute refers to itself (a reference cycle)", self.attr_entries[idx].start
            )
        if self._acc:
            self._child(got)
        return got

    def type(self, idx: int) -> Any:
        if idx >= len(self.type_cache):
            raise BytecodeError(
                f"type index {idx} out of range ({len(self.type_cache)} types)", self._pos
            )
        got = self.type_cache[idx]
        if got is None:
            got = self._decode(self.type_entries[idx], self.type_cache, idx)
        elif got is _IN_PROGRESS:
            raise BytecodeError(
                "a type refers to itself (a reference cycle)", self.type_entries[idx].start
            )
        if self._acc:
            self._child(got)
        return got

    def _child(self, value: Any) -> None:
        """Count a reference made while decoding an entry into that entry's statistics."""
        st = self.stats.get(id(value))
        if st is not None:
            acc = self._acc[-1]
            acc[0] += st[0]
            acc[1] = max(acc[1], st[1])
            acc[2] += st[2]
            acc[3] = max(acc[3], st[3])

    def _measure(self, e: _Entry, value: Any, acc: list[int]) -> None:
        """Record what ``value`` expands to; refuse values nested or shared beyond what the rest of
        the toolkit can process."""
        what = "type" if e.is_type else "attribute"
        acc[1] += 1
        if acc[1] > MAX_NESTING and not isinstance(value, Loc):
            raise BytecodeError(
                f"{what} nests more than {MAX_NESTING} levels deep (attributes and types inside "
                "each other), which this toolkit does not support",
                e.start,
            )
        if acc[0] > self.budget:
            raise BytecodeError(
                f"{what} expands to more than {self.budget} values (sub-attributes shared "
                f"exponentially); refusing to expand it",
                e.start,
            )
        if isinstance(value, TensorV1Attr):
            n = 1
            for d in value.type.shape:  # type: ignore[attr-defined]
                n *= d
            acc[2] = n
            acc[3] = n if n > 1 and _is_splat(value) else 0
        self.stats[id(value)] = acc

    def charge(
        self, value: Any, pos: int, what: str = "", nodes: bool = True, elements: bool = False
    ) -> None:
        """Count one use of a decoded value against the budgets: with ``nodes`` its expanded size,
        with ``elements`` the tensor elements it holds (dimension lists and the like, which the
        conversion turns into Python integers; not a constant's value)."""
        st = self.stats.get(id(value))
        if st is None:
            return
        self.expanded += st[0] if nodes else 0
        if self.expanded > self.budget:
            raise BytecodeError(
                f"the attributes and types of the ops expand to more than {self.budget} values "
                "(shared sub-attributes count at each use); refusing to expand them",
                pos,
            )
        if not elements or not st[2]:
            return
        if st[3] > MAX_ATTR_SPLAT:
            raise BytecodeError(
                f"{what} holds a splat tensor standing for {st[3]} elements; outside constant "
                f"values tensors are limited to {MAX_ATTR_SPLAT} elements stored as one",
                pos,
            )
        self.elements += st[2]
        limit = ATTR_ELEMENT_BUDGET + len(self.data)
        if self.elements > limit:
            raise BytecodeError(
                f"the attributes of the program describe more than {limit} tensor elements (an "
                f"artifact of {len(self.data)} bytes); refusing to expand them",
                pos,
            )

    def _decode(self, e: _Entry, cache: list[Any], idx: int) -> Any:
        cache[idx] = _IN_PROGRESS
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            self.depth -= 1
            cache[idx] = None
            raise BytecodeError(
                f"attribute and type references nest more than {_MAX_DEPTH} levels deep", e.start
            )
        saved = self._pos
        acc = [1, 0, 0, 0]
        self._acc.append(acc)
        try:
            r = Reader(self.data, e.start, e.end, "attribute/type")
            self._pos = e.start
            if self.dialect_decoder is not None and (
                not e.custom or e.dialect not in ("builtin", "vhlo")
            ):
                value = self.dialect_decoder(r, self.ctx, e.dialect, e.is_type, e.custom)
            elif not e.custom:
                value = self._text_entry(r, e)
            elif e.dialect == "builtin":
                value = (
                    builtin.decode_type(r, self.ctx)
                    if e.is_type
                    else builtin.decode_attr(r, self.ctx)
                )
            elif e.dialect == "vhlo":
                value = vhlo.decode(r, self.ctx, e.is_type)
            elif e.dialect == "sdy":  # Shardy's attributes, beside VHLO in JAX's artifacts
                from stablehlo_py.serialization.mlirbc import sdy

                value = sdy.decode(r, self.ctx, e.is_type)
            else:
                raise BytecodeError(
                    f"{'type' if e.is_type else 'attribute'} of dialect '{e.dialect}' is not "
                    "supported (portable artifacts hold VHLO and builtin only)",
                    e.start,
                )
            if not r.at_end():
                raise BytecodeError("trailing bytes after an attribute/type encoding", r.pos)
            self._measure(e, value, acc)
        except BaseException:
            cache[idx] = None
            raise
        finally:
            self.depth -= 1
            self._pos = saved
            self._acc.pop()
        cache[idx] = value
        return value

    def _text_entry(self, r: Reader, e: _Entry) -> Any:
        raw = r.bytes(r.remaining())
        if not raw.endswith(b"\x00"):
            raise BytecodeError("textual attribute/type entry is not NUL-terminated", e.start)
        text = raw[:-1].decode("utf-8", "replace")
        raise BytecodeError(
            f"textual {'type' if e.is_type else 'attribute'} '{text}' (dialect '{e.dialect}') is not "
            "supported: portable artifacts with other dialects (allow_other_dialects) cannot be read",
            e.start,
        )

    def check_resources(self, start: int, end: int) -> None:
        r = Reader(self.data, start, end, "resource offset")
        n_external = r.varint()
        if n_external or not r.at_end():
            raise BytecodeError(
                "the artifact carries resources (dense_resource blobs), which portable artifacts "
                "cannot hold",
                start,
            )

    def read_properties(self, start: int, end: int) -> None:
        r = Reader(self.data, start, end, "properties")
        n = r.count(1, "properties records")
        out = []
        for _ in range(n):
            size = r.varint()
            if size > r.remaining():
                raise r.fail(f"a properties record of {size} bytes runs past the end")
            out.append((r.pos, r.pos + size))
            r.pos += size
        self.props = out

    # ------------------------------------------------------------------ IR
    def read_ir(self, start: int, end: int) -> ModuleOp:
        r = Reader(self.data, start, end, "IR")
        nops, has_args = r.varint_flag()
        if nops != 1 or has_args:
            raise r.fail("the IR section must hold exactly one top-level op")
        self.scopes: list[list[SSAValue | None]] = [[]]
        self.next_id: list[int] = []
        self.slots = 0  # value slots reserved by the regions being read
        self.region_depth = 0
        self.pair_orders = False  # whether a pair-encoded use-list order was read
        op = self.read_op(r)
        if not r.at_end():
            raise r.fail("trailing bytes after the top-level op")
        if op.name != "builtin.module":
            raise BytecodeError(f"the top-level op is {op.name}, expected builtin.module", start)
        if self.pair_orders:
            _complete_pair_orders(op)
        return op

    def loc(self, r: Reader) -> TextLoc:
        pos = r.pos
        self._pos = pos
        idx = r.varint()
        got = self._loc_objs.get(idx)
        if got is not None:
            return got
        a = self.attr(idx)
        if not isinstance(a, Loc):
            raise BytecodeError("expected a location", pos)
        got = self._loc_objs[idx] = UNKNOWN if a.text == "unknown" else TextLoc(a.text)
        return got

    def read_op(self, r: Reader) -> Operation:
        op_start = r.pos
        idx = r.varint()
        if idx >= len(self.op_names):
            raise r.fail(f"op name index {idx} out of range", op_start)
        dialect, name, _ = self.op_names[idx]
        mask = r.byte()
        if mask & 0x80:
            raise r.fail(f"invalid op encoding mask {mask:#x}", r.pos - 1)
        location = self.loc(r)
        attr_dict: dict[str, Attribute] = {}
        if mask & 0x01:
            pos = r.pos
            self._pos = pos
            d = self.attr(r.varint())
            if not isinstance(d, DictionaryAttr):
                raise BytecodeError("an op's attribute dictionary is not a dictionary", pos)
            self.charge(d, pos)
            attr_dict = dict(d.data)
        props_rec = None
        if mask & 0x40:
            pos = r.pos
            pidx = r.varint()
            if pidx >= len(self.props):
                raise BytecodeError(
                    f"properties index {pidx} out of range ({len(self.props)} records)", pos
                )
            props_rec = (self.props[pidx], pos)
        result_types: list[Attribute] = []
        if mask & 0x02:
            for _ in range(r.count(1, "results")):
                self._pos = pos = r.pos
                t = self.type(r.varint())
                self.charge(t, pos)
                result_types.append(t)
        operands: list[SSAValue] = []
        if mask & 0x04:
            scope = self.scopes[-1]
            for _ in range(r.count(1, "operands")):
                pos = r.pos
                vid = r.varint()
                v = scope[vid] if vid < len(scope) else None
                if v is None:
                    raise BytecodeError(
                        f"operand refers to value #{vid}, which is not defined before its use "
                        "(forward references are not supported)",
                        pos,
                    )
                operands.append(v)
        if mask & 0x08:
            raise r.fail(f"{dialect}.{name} has successors, which VHLO ops never have", op_start)
        use_orders: dict[int, list[int]] = {}
        if mask & 0x20:
            use_orders = self.read_use_lists(r, len(result_types))
        regions: list[Region] = []
        if mask & 0x10:
            nregions, isolated = r.varint_flag()
            if nregions > r.remaining():
                raise r.fail(f"{nregions} regions cannot fit in the bytes left")
            self.region_depth += 1
            if self.region_depth > MAX_NESTING:
                raise r.fail(
                    f"regions nest more than {MAX_NESTING} levels deep, which this toolkit does "
                    "not support",
                    op_start,
                )
            if isolated:
                self.scopes.append([])
            if isolated and self.version >= 2:
                sstart = r.pos
                sid, body, send = r.section_header()
                if sid != Section.IR:
                    raise BytecodeError("expected an IR section for an isolated region", sstart)
                sub = Reader(self.data, body, send, "IR")
                regions = [self.read_region(sub) for _ in range(nregions)]
                if not sub.at_end():
                    raise sub.fail("trailing bytes after the regions")
            else:
                regions = [self.read_region(r) for _ in range(nregions)]
            if isolated:
                self.scopes.pop()
            self.region_depth -= 1
        op = self.build_op(
            self,
            dialect,
            name,
            op_start,
            location,
            attr_dict,
            props_rec,
            result_types,
            operands,
            regions,
        )
        for idx, order in use_orders.items():
            op.results[idx].__dict__["_use_order"] = order
        scope = self.scopes[-1]
        self.define(scope, op.results, op_start)
        return op

    def define(self, scope: list[SSAValue | None], values: Any, pos: int) -> None:
        for v in values:
            i = self.next_id[-1] if self.next_id else len(scope)
            if i >= len(scope):
                raise BytecodeError("more values defined than the region declared", pos)
            scope[i] = v
            self.next_id[-1] = i + 1

    def read_use_lists(self, r: Reader, n_values: int) -> dict[int, list[int]]:
        """Use-list orders: value index -> the order MLIR's writer encodes.  They carry no meaning;
        they are kept on the values (``_use_order``) only so that writing an unchanged module
        again reproduces the bytes."""
        start = r.pos
        n = r.count(1, "use-lists") if n_values != 1 else 1
        out: dict[int, list[int]] = {}
        for _ in range(n):
            idx = r.varint() if n_values != 1 else 0
            if idx >= n_values:
                raise r.fail(f"use-list order for value #{idx} of {n_values}", start)
            k, pairs = r.varint_flag()
            if k > r.remaining():
                raise r.fail("a use-list order runs past the end")
            items = [r.varint() for _ in range(k)]
            if pairs:
                # (value, index) of the uses that moved; the others, up to the value's number of
                # uses (known once the IR is read: _complete_pair_orders), keep their place
                if k % 2:
                    raise r.fail("a pair-encoded use-list order has an odd length", start)
                order = _PairOrder(range(max(items + [0]) + 1))
                for x, i in zip(items[::2], items[1::2]):
                    order[i] = x
                self.pair_orders = True
            else:
                order = items
            if sorted(order) != list(range(len(order))):
                raise r.fail("a use-list order is not a permutation", start)
            out[idx] = order
        return out

    def read_region(self, r: Reader) -> Region:
        region = VRegion() if self.records else Region()
        nblocks = r.varint()
        if nblocks == 0:
            return region
        if nblocks > r.remaining():
            raise r.fail(f"{nblocks} blocks cannot fit in the bytes left")
        vpos = r.pos
        nvalues = r.varint()
        # every value takes at least one byte (its type), and the slots of all the regions being
        # read at once are for different values
        if nvalues > r.remaining() or self.slots + nvalues > len(self.data):
            raise r.fail(f"{nvalues} values cannot be defined in the bytes left", vpos)
        scope = self.scopes[-1]
        base = len(scope)
        scope.extend([None] * nvalues)
        self.slots += nvalues
        self.next_id.append(base)
        try:
            for _ in range(nblocks):
                region.add_block(self.read_block(r, scope))
        finally:
            self.next_id.pop()
            self.slots -= nvalues
        del scope[base:]
        return region

    def read_block(self, r: Reader, scope: list[SSAValue | None]) -> Block:
        start = r.pos
        nops, has_args = r.varint_flag()
        if nops > r.remaining():
            raise r.fail(f"{nops} ops cannot fit in the bytes left", start)
        types: list[Attribute] = []
        locs: list[TextLoc] = []
        use_orders: dict[int, list[int]] = {}
        if has_args:
            for _ in range(r.count(1, "block arguments")):
                self._pos = r.pos
                tpos = r.pos
                if self.version >= 4:
                    tidx, has_loc = r.varint_flag()
                    t = self.type(tidx)
                    loc = self.loc(r) if has_loc else UNKNOWN
                else:
                    t = self.type(r.varint())
                    loc = self.loc(r)
                self.charge(t, tpos)
                from xdsl.ir import TypeAttribute

                if not isinstance(t, TypeAttribute):
                    raise BytecodeError("block argument type is not a type", start)
                types.append(t)
                locs.append(loc)
            if self.version >= 3:
                m = r.byte()
                if m not in (0, 0x20):
                    raise r.fail(f"invalid block use-list mask {m:#x}", r.pos - 1)
                if m:
                    use_orders = self.read_use_lists(r, len(types))
        block = VBlock(types) if self.records else Block(arg_types=types)
        for idx, order in use_orders.items():
            block.args[idx].__dict__["_use_order"] = order
        for a, loc in zip(block.args, locs):
            if loc is not UNKNOWN:
                a.location = loc  # type: ignore[attr-defined]
        self.define(scope, block.args, start)
        ops = [self.read_op(r) for _ in range(nops)]
        block.add_ops(ops)
        return block


class _PairOrder(list):  # type: ignore[type-arg]
    """A pair-encoded use-list order, without the unmoved uses after the last moved one."""


def _complete_pair_orders(root: Any) -> None:
    """Extend each pair-encoded use-list order to its value's number of uses (MLIR's reader does
    it when it sorts the uses), so that writing the module again writes the same order."""
    uses: dict[int, int] = {}
    values: list[Any] = []
    for o in root.walk():
        for v in o.operands:
            uses[id(v)] = uses.get(id(v), 0) + 1
        values += o.results
        for region in o.regions:
            for b in region.blocks:
                values += b.args
    for v in values:
        order = v.__dict__.get("_use_order")
        if isinstance(order, _PairOrder):
            v.__dict__["_use_order"] = order + list(range(len(order), uses.get(id(v), 0)))


def op_names(data: bytes) -> list[tuple[str, str]]:
    """(dialect, op name) of every op name in the dialect section, without reading the IR."""
    return [(d, n) for d, n, _ in _dialect_section(data).op_names]


def dialect_names(data: bytes) -> list[str]:
    """The dialects the bytecode uses (ops, attributes or types), without reading the IR."""
    return list(_dialect_section(data).dialects)


def _dialect_section(data: bytes) -> _Reader:
    rd = _Reader(data, None)  # type: ignore[arg-type]  # reads no IR: no op builder
    version, _ = read_producer(data)
    rd.version = version
    r = Reader(data, 4)
    r.varint()
    r.cstring()
    sections: dict[int, tuple[int, int]] = {}
    while not r.at_end():
        sid, body, end = r.section_header()
        sections.setdefault(sid, (body, end))
    if Section.STRING not in sections or Section.DIALECT not in sections:
        raise BytecodeError("missing string or dialect section", len(data))
    rd.read_strings(*sections[Section.STRING])
    rd.read_dialects(*sections[Section.DIALECT])
    return rd


def read_bytecode(
    data: bytes,
    name: str,
    op_builder: Callable[..., Operation],
    dialect_decoder: Callable[..., Any] | None = None,
    records: bool = False,
) -> BytecodeArtifact:
    """Read MLIR bytecode; ``op_builder`` builds each op from its decoded parts (see ``ops_read``).

    ``dialect_decoder(reader, ctx, dialect, is_type, custom)`` decodes the attribute/type entries
    of dialects other than builtin and vhlo, and textual entries (``custom`` false); without it
    they are refused.  ``records``: regions and blocks are ``vhlo.records`` (the op builder builds
    records too)."""
    old = sys.getrecursionlimit()
    if old < 20000:
        sys.setrecursionlimit(20000)
    try:
        rd = _Reader(data, op_builder, dialect_decoder, records)
        return rd.read()
    finally:
        sys.setrecursionlimit(old)


_ = (StringAttr, specs)
