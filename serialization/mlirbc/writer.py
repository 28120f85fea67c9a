"""Write MLIR bytecode exactly as MLIR's ``BytecodeWriter`` does (byte for byte).

The order of every table follows ``mlir/lib/Bytecode/Writer/IRNumbering.cpp``:

* the root op is numbered, then regions from a LIFO worklist (so the last function's body is
  numbered first); an op is numbered as its name, result types, attribute dictionary (only the
  discardable attributes from bytecode version 5), properties, location; a block argument as its
  location, then its type;
* attributes, types and op names are stable-sorted by reference count (descending), then grouped by
  dialect within each varint-byte-size bucket (``groupByDialectPerByte``);
* an op whose regions use no value from outside is "isolated": its regions number values from 0
  and, from bytecode version 2, are written as nested IR sections (lazy loading);
* strings are numbered in first-insertion order while writing: dialect names, op names, then the
  strings of attributes and types in table order; properties records are de-duplicated.

Use-list orders carry no meaning; MLIR writes a value's only when a transformation left its uses
in an order a reader would not rebuild.  We write the ones a reader kept and the ones upstream's
version conversion leaves (``uselists.py``, keyed by the upstream version emulated), nothing else.

The op-level encoding (which attributes are properties, in which order) comes from an
:class:`OpEncoding` (``ops.py``); attribute and type encodings from ``vhlo.py`` / ``builtin.py``.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.serialization.mlirbc import builtin
from stablehlo_py.serialization.mlirbc.encoding import (
    MAGIC,
    Emitter,
    Section,
    string_section,
    varint_bytes,
)
from stablehlo_py.serialization.mlirbc.model import Entry, Interner
from stablehlo_py.serialization.mlirbc.ops import OpEncoder
from stablehlo_py.serialization.mlirbc.uselists import encode_orders, use_list_orders
from xdsl.ir import Block, Operation, Region

from stablehlo_py.ir.xdsl_compat.fields import block_ops, operands_of
from stablehlo_py.ir.xdsl_compat.swap import value_types

__all__ = ["write_bytecode"]


_LARGE_BLOB = 1 << 20  # bytes: a dense blob above this is not copied into the section


class _OpName:
    __slots__ = ("dialect", "name", "number", "refcount", "registered")

    def __init__(self, dialect: str, name: str, registered: bool):
        self.dialect = dialect
        self.name = name
        self.registered = registered
        self.refcount = 1
        self.number = -1


def _group_by_dialect_per_byte(items: list[Any], dialect_number: dict[str, int]) -> None:
    """MLIR's groupByDialectPerByte: within each varint-size bucket, a stable sort by dialect with
    the previous bucket's last dialect first; then number the entries."""
    if not items:
        return
    order_first = 0
    in_group = 0
    start = 0
    n = len(items)
    for i in range(1, 9):
        in_group = (1 << (7 * i)) - in_group
        end = min(n, start + in_group)
        sub = items[start:end]
        first = order_first
        sub.sort(key=lambda e: (dialect_number[e.dialect] != first, dialect_number[e.dialect]))
        items[start:end] = sub
        order_first = dialect_number[sub[-1].dialect]
        start = end
        if start >= n:
            break
    for idx, e in enumerate(items):
        e.number = idx


def _block_ops(block: Any) -> list[Any]:
    """The ops of an xDSL block (its linked list walked once) or of a record block (its list)."""
    if isinstance(block, Block):
        return block_ops(block)
    return block.ops  # type: ignore[no-any-return]


class _Numbering:
    """MLIR's IRNumbering: the attribute, type and op-name tables (ordered as MLIR orders them),
    the value numbers, and what the writer takes of each op (``op_data``) and block
    (``block_data``), so that the writer visits each object once more and asks the encoder
    nothing again."""

    def __init__(self, root: Operation, enc: OpEncoder):
        self.enc = enc
        self.it = enc.interner
        self.version = enc.version
        self.dialects: dict[str, int] = {}
        self.attrs: list[Entry] = []
        self.types: list[Entry] = []
        self.seen: set[int] = set()
        self.op_names: dict[str, _OpName] = {}
        self.ordered_op_names: list[_OpName] = []
        self.value_ids: dict[int, int] = {}
        self.region_counts: dict[int, tuple[int, int]] = {}
        self.next_value = 0
        self.isolated: dict[int, bool] = {}
        self.op_data: dict[int, tuple[Any, ...]] = {}
        self.block_data: dict[int, tuple[list[Any], list[tuple[Entry, Entry]]]] = {}
        self.block_ops: dict[int, list[Any]] = {}
        self._isolation(root)
        self.number_op(root)
        stack: list[tuple[Region, int]] = []
        isolated = self.isolated
        block_data = self.block_data

        def push_regions(op: Operation) -> None:
            start = 0 if isolated[id(op)] else self.next_value
            for r in op.regions:
                stack.append((r, start))

        if root.regions:
            push_regions(root)
        while stack:
            region, self.next_value = stack.pop()
            self.number_region(region)
            for block in region.blocks:
                for op in block_data[id(block)][0]:
                    if op.regions:
                        push_regions(op)
        refcount_first = lambda e: -e.refcount
        self.attrs.sort(key=refcount_first)
        self.types.sort(key=refcount_first)
        self.ordered_op_names.sort(key=refcount_first)
        _group_by_dialect_per_byte(self.attrs, self.dialects)
        _group_by_dialect_per_byte(self.ordered_op_names, self.dialects)
        _group_by_dialect_per_byte(self.types, self.dialects)

    # -- isolation (computeGlobalNumberingState)
    def _isolation(self, root: Operation) -> None:
        depth_of: dict[int, int] = {}
        isolated = self.isolated
        stack: list[Operation] = []
        trait_isolated = self.enc.trait_isolated
        block_ops_of = self.block_ops = {}  # id(block) -> its ops (for number_block)

        def visit(op: Operation) -> None:
            d = len(stack)
            for v in operands_of(op):
                vd = depth_of.get(id(v), 0)
                if vd < d:
                    for k in range(d - 1, vd - 1, -1):
                        if trait_isolated(stack[k]):
                            break
                        isolated[id(stack[k])] = False
            if op.regions:
                isolated.setdefault(id(op), True)
                stack.append(op)
                for r in op.regions:
                    for b in r.blocks:
                        for a in b.args:
                            depth_of[id(a)] = d + 1
                        ops = block_ops_of[id(b)] = _block_ops(b)
                        for o in ops:
                            visit(o)
                stack.pop()
            for r in op.results:
                depth_of[id(r)] = d

        visit(root)

    # -- attributes and types
    def dialect(self, name: str) -> None:
        if name not in self.dialects:
            self.dialects[name] = len(self.dialects)

    def number(self, e: Entry) -> None:
        key = id(e)
        if key in self.seen:
            e.refcount += 1
            return
        self.seen.add(key)
        e.refcount = 1
        (self.types if e.is_type else self.attrs).append(e)
        self.dialect(e.dialect)
        for tag, v in e.items:
            if tag == "A" or tag == "T" or (tag == "oA" and v is not None):
                self.number(v)

    # -- IR
    def number_op(self, op: Operation) -> None:
        enc = self.enc
        info = enc.describe(op)
        name = self.op_names.get(info.full_name)
        if name is None:
            self.dialect(info.dialect)
            name = _OpName(info.dialect, info.short_name, info.registered)
            self.op_names[info.full_name] = name
            self.ordered_op_names.append(name)
        else:
            name.refcount += 1
        seen = self.seen
        number = self.number
        results = op.results
        if results:
            value_ids = self.value_ids
            type_entry = enc.type_entry
            nv = self.next_value
            for r in results:
                value_ids[id(r)] = nv
                nv += 1
            self.next_value = nv
            result_types = [type_entry(t, op) for t in value_types(results)]
            for e in result_types:
                if id(e) in seen:
                    e.refcount += 1
                else:
                    number(e)
        else:
            result_types = []
        for e in info.refs:  # (the attribute dictionary, then the properties' references)
            if id(e) in seen:
                e.refcount += 1
            else:
                number(e)
        loc = enc.op_location(op)
        if id(loc) in seen:
            loc.refcount += 1
        else:
            number(loc)
        self.op_data[id(op)] = (name, result_types, info.attr_dict, info.props, loc)

    def number_region(self, region: Region) -> None:
        if not region.blocks:
            return
        first = self.next_value
        nblocks = 0
        for block in region.blocks:
            self.number_block(block)
            nblocks += 1
        self.region_counts[id(region)] = (nblocks, self.next_value - first)

    def number_block(self, block: Block) -> None:
        args = []
        if block.args:
            enc = self.enc
            owner = block.parent_op()
            for a in block.args:
                self.value_ids[id(a)] = self.next_value
                self.next_value += 1
                loc = enc.arg_location(a)
                self.number(loc)
                t = enc.type_entry(a.type, owner)
                self.number(t)
                args.append((t, loc))
        ops = self.block_ops.pop(id(block))
        self.block_data[id(block)] = (ops, args)
        number_op = self.number_op
        for op in ops:
            number_op(op)


class _Writer:
    def __init__(self, root: Operation, enc: OpEncoder, producer: str, use_lists_as: Any = None):
        self.enc = enc
        self.version = enc.version
        self.producer = producer
        self.numbering = _Numbering(root, enc)
        self.strings: dict[bytes, int] = {}
        self.props: list[bytes] = []
        self.props_index: dict[bytes, int] = {}
        self.props_of: dict[int, int] = {}  # id(an op's properties items, kept in op_data) -> index
        self.root = root
        keep = self.version >= 3 and enc.keeps_use_lists
        self.orders = use_list_orders(root, use_lists_as) if keep else {}
        self._blob_sink: Emitter | None = None  # the emitter that takes large blobs by reference

    def string(self, s: bytes) -> int:
        idx = self.strings.get(s)
        if idx is None:
            idx = self.strings[s] = len(self.strings)
        return idx

    def emit_items(self, em: Emitter, items: tuple[tuple[str, Any], ...]) -> None:
        buf = em.buf
        table = _VARINTS
        for tag, v in items:
            if tag == "v":
                buf += table[v] if 0 <= v < _TABLE_SIZE else varint_bytes(v)
            elif tag == "A" or tag == "T":
                v = v.number
                buf += table[v] if v < _TABLE_SIZE else varint_bytes(v)
            elif tag == "s":
                em.svarint(v)
            elif tag == "ap":
                em.apint(v[1], v[0])
            elif tag == "str":
                em.varint(self.string(v))
            elif tag == "blob":
                em.varint(len(v))
                if len(v) > _LARGE_BLOB and em is self._blob_sink:
                    em.large(v)  # by reference: the section's pieces include it
                    buf = em.buf  # (a new buffer after it)
                else:
                    em.raw(v)
            elif tag == "oA":
                em.varint(0 if v is None else (v.number << 1) | 1)
            elif tag == "b":
                em.byte(v)
            else:  # pragma: no cover
                raise AssertionError(tag)

    def write(self) -> bytes:
        n = self.numbering
        out = Emitter()
        out.raw(MAGIC)
        out.varint(self.version)
        out.cstring(self.producer.encode())
        # The file is a list of buffers joined once: the sections' bodies are not copied into a
        # growing file buffer (a large constant's bytes would be held twice more).
        parts: list[bytes | bytearray] = [out.buf]

        def section(code: int, body: bytes | bytearray | Emitter) -> None:
            head = Emitter()
            head.byte(code)  # Emitter.section's header: the id, the length; no alignment
            head.varint(len(body))
            parts.append(head.buf)
            if isinstance(body, Emitter):
                parts.extend(body.pieces())
            else:
                parts.append(body)

        # dialect section
        d = Emitter()
        dialect_names = sorted(n.dialects, key=n.dialects.__getitem__)
        d.varint(len(dialect_names))
        for name in dialect_names:
            sid = self.string(name.encode())
            if self.version < 1:
                d.varint(sid)
            else:
                d.varint_flag(sid, False)  # no dialect writes a version here
        if self.version >= 4:
            d.varint(len(n.ordered_op_names))

        def op_name(e: _OpName) -> None:
            sid = self.string(e.name.encode())
            if self.version < 5:
                d.varint(sid)
            else:
                d.varint_flag(sid, e.registered)

        self._grouped(d, n.ordered_op_names, op_name)
        section(Section.DIALECT, d.buf)
        # attribute/type sections
        offsets = Emitter()
        data = Emitter()
        self._blob_sink = data  # the attribute section takes large blobs by reference
        offsets.varint(len(n.attrs))
        offsets.varint(len(n.types))
        prev = [0]

        def entry(e: Entry) -> None:
            if e.items and e.items[0][0] == "txt":
                data.cstring(e.items[0][1])
                custom = False
            else:
                self.emit_items(data, e.items)
                custom = True
            cur = len(data)
            offsets.varint_flag(cur - prev[0], custom)
            prev[0] = cur

        self._grouped(offsets, n.attrs, entry)
        self._grouped(offsets, n.types, entry)
        section(Section.ATTR_TYPE_OFFSET, offsets.buf)
        section(Section.ATTR_TYPE, data)
        self._blob_sink = None
        # IR
        ir = Emitter()
        ir.varint_flag(1, False)
        self.write_op(ir, self.root)
        section(Section.IR, ir.buf)
        # resources: no external printers, no dialect resources
        section(Section.RESOURCE_OFFSET, b"\x01")
        section(Section.RESOURCE, b"")
        # strings
        section(Section.STRING, string_section(list(self.strings)))
        if self.version >= 5:
            p = Emitter()
            p.varint(len(self.props))
            for rec in self.props:
                p.raw(rec)
            section(Section.PROPERTIES, p.buf)
        return b"".join(parts)

    def _grouped(self, em: Emitter, entries: list[Any], fn: Any) -> None:
        dn = self.numbering.dialects
        i = 0
        total = len(entries)
        while i < total:
            j = i + 1
            dialect = entries[i].dialect
            while j < total and entries[j].dialect == dialect:
                j += 1
            em.varint(dn[dialect])
            em.varint(j - i)
            for k in range(i, j):
                fn(entries[k])
            i = j

    def write_op(self, em: Emitter, op: Operation) -> None:
        n = self.numbering
        name, result_types, attr_dict, props, loc = n.op_data[id(op)]
        mask = 0
        nums = [loc.number]
        if attr_dict is not None:
            mask = 0x01
            nums.append(attr_dict.number)
        if props is not None:
            idx = self.props_of.get(id(props))
            if idx is None:
                idx = self.props_of[id(props)] = self._props_index(props)
            mask |= 0x40
            nums.append(idx)
        if result_types:
            mask |= 0x02
            nums.append(len(result_types))
            nums.extend([t.number for t in result_types])
        operands = operands_of(op)
        if operands:
            mask |= 0x04
            nums.append(len(operands))
            ids = n.value_ids
            nums.extend([ids[id(v)] for v in operands])
        regions = op.regions
        if regions:
            mask |= 0x10
        buf = em.buf
        _put(buf, name.number)
        mask_at = len(buf)
        buf.append(mask)
        _put_all(buf, nums)
        if self.orders and encode_orders(em, op.results, self.orders):
            buf[mask_at] = mask | 0x20
        if regions:
            isolated = n.isolated[id(op)]
            em.varint_flag(len(regions), isolated)
            if isolated and self.version >= 2:
                sub = Emitter()
                for r in regions:
                    self.write_region(sub, r)
                em.section(Section.IR, sub.buf)
            else:
                for r in regions:
                    self.write_region(em, r)

    def _props_index(self, props: tuple[tuple[str, Any], ...]) -> int:
        """The index of an op's properties record (records are de-duplicated by their bytes)."""
        rec = Emitter()
        self.emit_items(rec, props)
        body = Emitter()
        body.varint(len(rec))
        body.raw(rec.buf)
        key = bytes(body.buf)
        idx = self.props_index.get(key)
        if idx is None:
            idx = self.props_index[key] = len(self.props)
            self.props.append(key)
        return idx

    def write_region(self, em: Emitter, region: Region) -> None:
        if not region.blocks:
            em.varint(0)
            return
        nblocks, nvalues = self.numbering.region_counts[id(region)]
        em.varint(nblocks)
        em.varint(nvalues)
        for block in region.blocks:
            self.write_block(em, block)

    def write_block(self, em: Emitter, block: Block) -> None:
        ops, args = self.numbering.block_data[id(block)]
        em.varint_flag(len(ops), bool(args))
        if args:
            em.varint(len(args))
            for t, loc in args:
                if self.version >= 4:
                    unknown = loc.items == ((("v", builtin.UNKNOWN_LOC)),)
                    em.varint_flag(t.number, not unknown)
                    if not unknown:
                        em.varint(loc.number)
                else:
                    em.varint(t.number)
                    em.varint(loc.number)
            if self.version >= 3:
                at = len(em)
                em.byte(0)
                if self.orders and encode_orders(em, block.args, self.orders):
                    em.buf[at] = 0x20
        write_op = self.write_op
        for op in ops:
            write_op(em, op)


_TABLE_SIZE = 1 << 14
_VARINTS: list[bytes] = [bytes(((v << 1) | 1,)) for v in range(128)] + [
    ((v << 2) | 2).to_bytes(2, "little") for v in range(128, _TABLE_SIZE)
]
"""The PrefixVarInt of each number below 2**14 (one and two bytes): what most numbers of a module
are (entry, op-name and value numbers), written by a look-up instead of arithmetic."""


def _put(buf: bytearray, value: int) -> None:
    """One PrefixVarInt (``Emitter.varint``) onto ``buf``."""
    buf += _VARINTS[value] if 0 <= value < _TABLE_SIZE else varint_bytes(value)


def _put_all(buf: bytearray, values: list[int]) -> None:
    """PrefixVarInts of ``values`` onto ``buf``."""
    try:
        buf += b"".join([_VARINTS[v] for v in values])
    except IndexError:  # (a number of 2**14 or more)
        for v in values:
            _put(buf, v)


def write_bytecode(
    root: Operation, encoder: OpEncoder, producer: str, use_lists_as: Any = None
) -> bytes:
    """MLIR bytecode of ``root`` at ``encoder.version`` with the given producer string.

    Raises :class:`~.builtin.NotEncodable` (via the encoder) for anything without an encoding; the
    encoder collects problems and raises them together before numbering finishes.
    """
    w = _Writer(root, encoder, producer, use_lists_as)
    encoder.check()
    return w.write()


_ = Interner
