"""serialization/mlirbc/reader.py: what the mutation run of the `reader` group found unchecked.

MLIR bytecode is built here by hand from the format (``../shared/reference/mlir-bytecode.md``,
MLIR's ``BytecodeReader.cpp``): a header, sections (id, length, body), the string, dialect,
attribute/type (+ offsets), IR, resource (+ offsets) and properties sections.  Each test damages
one field and expects the reader's refusal word for word with its absolute byte offset, computed
here from the layout being built (never read back from the reader), or reads a well-formed
artifact and checks what the reader hands the op builder (``read_bytecode``'s ``op_builder``:
names, locations, result types, operands, regions, properties records, use-list orders).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

import pytest
from stablehlo_py.serialization.mlirbc import read_dialect, write_dialect
from stablehlo_py.serialization.mlirbc.encoding import (
    MAGIC,
    BytecodeError,
    Reader,
    string_section,
    varint_bytes,
)
from stablehlo_py.serialization.mlirbc.reader import (
    MAX_NESTING,
    dialect_names,
    op_names,
    read_bytecode,
    read_producer,
)
from stablehlo_py.vhlo.records import VBlock, VOp, VRegion, VValue
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Region

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.location import UNKNOWN, TextLoc


# ----------------------------------------------------------------------------- building bytes
def v(*values: int) -> bytes:
    return b"".join(varint_bytes(x) for x in values)


def vf(value: int, flag: bool) -> bytes:
    return varint_bytes((value << 1) | int(flag))


def section(sid: int, body: bytes) -> bytes:
    return bytes((sid,)) + v(len(body)) + body


# builtin attribute / type encodings (codes of mlir/lib/IR/BuiltinDialectBytecode.td)
UNKNOWN_LOC = v(15)
I32 = v(0, 32 << 2)  # IntegerType 32, signless


def string_attr(sidx: int) -> bytes:
    return v(2, sidx)


def array_attr(*refs: int) -> bytes:
    return v(0, len(refs), *refs)


def dict_attr(*pairs: tuple[int, int]) -> bytes:
    return v(1, len(pairs)) + b"".join(v(k, x) for k, x in pairs)


def name_loc(name: int, child: int) -> bytes:
    return v(14, name, child)


def file_loc(file: int, line: int, col: int) -> bytes:
    return v(11, file, line, col)


# the strings every artifact below starts with
S_BUILTIN, S_VHLO, S_MODULE, S_FOO, S_BAR, S_FILE, S_T = range(7)
STRINGS = [b"builtin", b"vhlo", b"module", b"foo", b"bar", b"f.py", b"t"]
D_BUILTIN, D_VHLO = 0, 1


@dataclass
class Art:
    """The parts of an MLIR bytecode file; ``bytes()`` lays them out with ``prefix`` (the header)
    and the sections in ``order`` (MLIR's writer's: 1 3 2 4 6 5 0 8)."""

    version: int = 6
    producer: bytes = b"P"
    strings: list[bytes] = field(default_factory=lambda: list(STRINGS))
    dialects: list[int] = field(default_factory=lambda: [S_BUILTIN, S_VHLO])  # string indices
    # (dialect index, [(string index, registered)]) groups
    op_names: list[tuple[int, list[tuple[int, bool]]]] = field(
        default_factory=lambda: [(D_BUILTIN, [(S_MODULE, True), (S_FOO, True), (S_BAR, True)])]
    )
    declared_op_names: int | None = None  # default: the number listed
    # groups of (dialect index, [(encoding, custom)])
    attrs: list[tuple[int, list[tuple[bytes, bool]]]] = field(
        default_factory=lambda: [(D_BUILTIN, [(UNKNOWN_LOC, True)])]
    )
    types: list[tuple[int, list[tuple[bytes, bool]]]] = field(
        default_factory=lambda: [(D_BUILTIN, [(I32, True)])]
    )
    ir: bytes | None = None  # default: module_ir(self)
    props: list[bytes] | None = None  # default: [module record] from version 5
    body: dict[int, bytes] = field(default_factory=dict)  # section bodies replacing the built ones
    order: tuple[int, ...] = (1, 3, 2, 4, 6, 5, 0, 8)
    extra: list[bytes] = field(default_factory=list)  # whole sections appended

    def n_attrs(self) -> int:
        return sum(len(g) for _, g in self.attrs)

    def n_types(self) -> int:
        return sum(len(g) for _, g in self.types)

    def dialect_body(self) -> bytes:
        out = v(len(self.dialects))
        for s in self.dialects:
            out += v(s) if self.version < 1 else vf(s, False)
        if self.version >= 4:
            listed = sum(len(n) for _, n in self.op_names)
            out += v(listed if self.declared_op_names is None else self.declared_op_names)
        for d, names in self.op_names:
            out += v(d, len(names))
            for s, reg in names:
                out += vf(s, reg) if self.version >= 5 else v(s)
        return out

    def offsets_and_data(self) -> tuple[bytes, bytes]:
        off = v(self.n_attrs(), self.n_types())
        data = b""
        for table in (self.attrs, self.types):
            for d, entries in table:
                off += v(d, len(entries))
                for enc, custom in entries:
                    off += vf(len(enc), custom)
                    data += enc
        return off, data

    def props_body(self) -> bytes:
        props = self.props
        if props is None:
            props = [v(0, 0)] if self.version >= 5 else []
        return v(len(props)) + b"".join(v(len(p)) + p for p in props)

    def header(self) -> bytes:
        return MAGIC + v(self.version) + self.producer + b"\0"

    def bodies(self) -> dict[int, bytes]:
        off, data = self.offsets_and_data()
        out = {
            0: string_section(self.strings),
            1: self.dialect_body(),
            2: data,
            3: off,
            4: v(2) + (self.ir if self.ir is not None else module_op(self.version)),
            5: b"",
            6: v(0),
        }
        if self.version >= 5 or self.props is not None:
            out[8] = self.props_body()
        out.update(self.body)
        return out

    def bytes(self) -> bytes:
        bodies = self.bodies()
        return self.header() + b"".join(
            section(s, bodies[s]) for s in self.order if s in bodies
        ) + b"".join(self.extra)

    def section_start(self, sid: int) -> int:
        """Absolute offset of section ``sid``'s body in ``bytes()``."""
        bodies = self.bodies()
        pos = len(self.header())
        for s in self.order:
            if s not in bodies:
                continue
            head = 1 + len(v(len(bodies[s])))
            if s == sid:
                return pos + head
            pos += head + len(bodies[s])
        raise KeyError(sid)


def op(
    name: int = 1,
    loc: int = 0,
    *,
    attr_dict: int | None = None,
    props: int | None = None,
    results: tuple[int, ...] = (),
    operands: tuple[int, ...] = (),
    regions: list[bytes] | None = None,
    isolated: bool = True,
    version: int = 6,
    use_lists: bytes | None = None,
    mask: int = 0,
) -> bytes:
    """One op: name index, mask, location, then the parts the mask announces."""
    m = mask
    tail = b""
    if attr_dict is not None:
        m |= 0x01
        tail += v(attr_dict)
    if props is not None:
        m |= 0x40
        tail += v(props)
    if results:
        m |= 0x02
        tail += v(len(results), *results)
    if operands:
        m |= 0x04
        tail += v(len(operands), *operands)
    if use_lists is not None:
        m |= 0x20
        tail += use_lists
    if regions is not None:
        m |= 0x10
        tail += vf(len(regions), isolated)
        if isolated and version >= 2:
            tail += section(4, b"".join(regions))
        else:
            tail += b"".join(regions)
    return v(name) + bytes((m,)) + v(loc) + tail


def region(blocks: list[bytes], n_values: int = 0) -> bytes:
    if not blocks:
        return v(0)
    return v(len(blocks), n_values) + b"".join(blocks)


def block(
    ops: list[bytes] = (),  # type: ignore[assignment]
    args: list[tuple[int, int | None]] | None = None,
    version: int = 6,
    arg_use_lists: bytes | None = None,
    arg_mask: int | None = None,
) -> bytes:
    """A block; ``args`` are (type index, location index or None for unknown)."""
    out = vf(len(ops), bool(args))
    if args:
        out += v(len(args))
        for t, loc in args:
            if version >= 4:
                out += vf(t, loc is not None) + (v(loc) if loc is not None else b"")
            else:
                out += v(t, 0 if loc is None else loc)
        if version >= 3:
            mask = arg_mask if arg_mask is not None else (0x20 if arg_use_lists else 0)
            out += bytes((mask,)) + (arg_use_lists or b"")
    return out + b"".join(ops)


def module_op(
    version: int = 6, ops: list[bytes] = (), n_values: int = 0, loc: int = 0, **kw: Any  # type: ignore[assignment]
) -> bytes:
    """``builtin.module`` (op name 0) holding one block of ``ops``."""
    return op(
        0,
        loc,
        props=0 if version >= 5 else None,
        regions=[region([block(list(ops), version=version)], n_values)],
        version=version,
        **kw,
    )


def first_op(a: Art) -> int:
    """Offset of the first op in the module's body of ``module_op`` (one-byte lengths): the IR
    section's op count, the module's name, mask, location (and properties index from version 5),
    region count, nested IR section header, block and value counts, the block's op count."""
    return a.section_start(4) + 1 + 3 + (1 if a.version >= 5 else 0) + 1 + 2 + 2 + 1


# ----------------------------------------------------------------------------- reading
@dataclass
class Built:
    """What ``read_bytecode`` handed the op builder for one op."""

    name: str
    pos: int
    location: Any
    attr_dict: dict[str, Any]
    props_rec: Any
    op: VOp


def recorder(log: list[Built], limits: list[int] | None = None) -> Any:
    def build(rd, dialect, name, pos, location, attr_dict, props_rec, result_types, operands, regions):  # type: ignore[no-untyped-def]
        if limits is not None:
            limits.append(sys.getrecursionlimit())
        o = VOp(f"{dialect}.{name}", None, operands, result_types, {}, attr_dict, regions, location)
        log.append(Built(f"{dialect}.{name}", pos, location, attr_dict, props_rec, o))
        return o

    return build


def read(data: bytes, decoder: Any = None) -> tuple[Any, list[Built]]:
    log: list[Built] = []
    got = read_bytecode(data, "t.bc", recorder(log), decoder, records=True)
    return got, log


def refusal(data: bytes, decoder: Any = None) -> tuple[str, int]:
    with pytest.raises(BytecodeError) as e:
        read(data, decoder)
    return e.value.message, e.value.offset


# ----------------------------------------------------------------------------- the header
def test_not_bytecode_is_refused_at_byte_0() -> None:
    for data in (b"MLIR\x0dP\0", b"", b"ML\xef"):
        with pytest.raises(BytecodeError) as e:
            read_producer(data)
        assert e.value.message == "not MLIR bytecode (the file does not start with 'ML\\xefR')"
        assert e.value.offset == 0
    assert refusal(b"MLIR") == ("not MLIR bytecode (the file does not start with 'ML\\xefR')", 0)


def test_producer_and_version_from_the_header() -> None:
    assert read_producer(MAGIC + v(5) + b"abc\0rest") == (5, "abc")
    assert read_producer(MAGIC + v(200) + b"\0") == (200, "")
    # an invalid UTF-8 producer is replaced, not refused
    assert read_producer(MAGIC + v(6) + b"a\xffb\0") == (6, "a\ufffdb")


def test_artifact_version_producer_and_module() -> None:
    a = Art(producer=b"me\xfe")
    got, log = read(a.bytes())
    assert (got.version, got.producer) == (6, "me\ufffd")
    assert got.module is log[-1].op and got.module.name == "builtin.module"


def test_newer_version_names_the_producer() -> None:
    for version in (7, 100):
        a = Art(version=version, producer=b"X9")
        assert refusal(a.bytes()) == (
            f"MLIR bytecode version {version} is newer than this reader supports (0..6); "
            "the artifact's producer is 'X9'",
            4,
        )


def test_read_bytecode_raises_the_recursion_limit_while_reading_only() -> None:
    old = sys.getrecursionlimit()
    limits: list[int] = []
    try:
        sys.setrecursionlimit(1500)
        read_bytecode(Art().bytes(), "t.bc", recorder([], limits), records=True)
        assert limits == [20000]
        assert sys.getrecursionlimit() == 1500
        sys.setrecursionlimit(25000)  # a higher limit is kept
        limits.clear()
        read_bytecode(Art().bytes(), "t.bc", recorder([], limits), records=True)
        assert limits == [25000]
        assert sys.getrecursionlimit() == 25000
        # and restored after a refusal too
        sys.setrecursionlimit(1500)
        with pytest.raises(BytecodeError):
            read_bytecode(b"MLIR", "t.bc", recorder([]), records=True)
        assert sys.getrecursionlimit() == 1500
    finally:
        sys.setrecursionlimit(old)


# ----------------------------------------------------------------------------- the sections
def test_unknown_duplicate_and_missing_sections() -> None:
    a = Art()
    base = a.bytes()
    for sid in (9, 0x7F):
        a.extra = [section(sid, b"")]
        assert refusal(a.bytes()) == (f"unknown section id {sid}", len(base))
    names = {0: "string", 1: "dialect", 2: "attribute/type", 3: "attribute/type offset", 4: "IR"}
    for sid, name in names.items():
        a.extra = [section(sid, b"")]
        assert refusal(a.bytes()) == (f"duplicate {name} section", len(base))
        a.extra = []
        a.order = tuple(s for s in (1, 3, 2, 4, 6, 5, 0, 8) if s != sid)
        data = a.bytes()
        assert refusal(data) == (f"missing {name} section", len(data))
        a.order = (1, 3, 2, 4, 6, 5, 0, 8)


def test_properties_section_required_from_version_5() -> None:
    for version in (5, 6):
        a = Art(version=version, order=(1, 3, 2, 4, 6, 5, 0))
        data = a.bytes()
        assert refusal(data) == (
            "missing properties section (required from bytecode version 5)",
            len(data),
        )
    a = Art(version=4, order=(1, 3, 2, 4, 6, 5, 0))
    assert read(a.bytes())[0].version == 4


def test_resource_sections_come_in_pairs() -> None:
    for order in ((1, 3, 2, 4, 6, 0, 8), (1, 3, 2, 4, 5, 0, 8)):
        data = Art(order=order).bytes()
        assert refusal(data) == (
            "resource and resource offset sections must both be present",
            len(data),
        )
    # neither is fine
    assert read(Art(order=(0, 1, 2, 3, 4, 8)).bytes())[0].version == 6


def test_resources_are_refused_at_the_resource_offset_section() -> None:
    for body in (v(1), v(0, 0), v(1, 0), b""):
        a = Art(body={6: body})
        msg = (
            "the artifact carries resources (dense_resource blobs), which portable artifacts "
            "cannot hold"
        )
        if body == b"":
            # no count at all: the reader runs out of bytes
            m, off = refusal(a.bytes())
            assert m == "unexpected end of data (expected a varint) in the resource offset section"
            assert off == a.section_start(6)
        else:
            assert refusal(a.bytes()) == (msg, a.section_start(6))


def test_sections_in_any_order() -> None:
    for order in ((0, 1, 2, 3, 4, 5, 6, 8), (8, 6, 5, 4, 3, 2, 1, 0)):
        got, log = read(Art(order=order).bytes())
        assert [b.name for b in log] == ["builtin.module"]


# ----------------------------------------------------------------------------- strings
def test_string_count_that_cannot_fit() -> None:
    a = Art(body={0: v(3, 1, 1)})
    assert refusal(a.bytes()) == (
        "a list of 3 strings cannot fit in the 2 bytes left in the string section",
        a.section_start(0),
    )
    # 2 strings in 2 bytes fit as a count (one byte each at least): the sizes are what is wrong
    a = Art(body={0: v(2, 1, 1)})
    assert refusal(a.bytes()) == (
        "string sizes add up to 2 bytes but 0 remain in the string section",
        a.section_start(0) + 3,
    )


def test_string_sizes_must_cover_the_section() -> None:
    body = string_section(STRINGS)
    a = Art(body={0: body + b"x\0"})
    n = len(v(len(STRINGS))) + len(STRINGS)  # count and one-byte sizes
    total = sum(len(s) + 1 for s in STRINGS)
    assert refusal(a.bytes()) == (
        f"string sizes add up to {total} bytes but {total + 2} remain in the string section",
        a.section_start(0) + n,
    )


def test_strings_must_be_nul_terminated() -> None:
    # sizes are listed in reverse: "ab" has no NUL, at the first string's offset
    a = Art(body={0: v(2, 4, 2) + b"ab" + b"cde\0"})
    assert refusal(a.bytes()) == ("string is not NUL-terminated", a.section_start(0) + 3)
    # the second one
    a = Art(body={0: v(2, 3, 3) + b"ab\0" + b"cde"})
    assert refusal(a.bytes()) == ("string is not NUL-terminated", a.section_start(0) + 6)
    # a size of 0 cannot hold the NUL
    a = Art(body={0: v(2, 3, 0) + b"ab\0"})
    assert refusal(a.bytes()) == ("string is not NUL-terminated", a.section_start(0) + 3)


def test_strings_are_split_at_their_sizes() -> None:
    strings = STRINGS + [b"", b"v"]
    a = Art(strings=strings, dialects=[S_BUILTIN, 8, 7])
    assert dialect_names(a.bytes()) == ["builtin", "v", ""]
    got, log = read(a.bytes())
    assert log[0].name == "builtin.module"


def test_string_index_out_of_range() -> None:
    a = Art(dialects=[S_BUILTIN, len(STRINGS)])
    at = a.section_start(1) + 2  # after the count and the first dialect
    assert refusal(a.bytes()) == (f"string index {len(STRINGS)} out of range (7 strings)", at)
    a = Art(op_names=[(D_BUILTIN, [(S_MODULE, True), (len(STRINGS) + 5, True)])])
    at = a.section_start(1) + 1 + 2 + 1 + 2 + 1  # count, 2 dialects, declared, group head, name 0
    assert refusal(a.bytes()) == (f"string index {len(STRINGS) + 5} out of range (7 strings)", at)


# ----------------------------------------------------------------------------- dialects, op names
def test_dialect_and_op_names_without_reading_the_ir() -> None:
    a = Art(
        strings=STRINGS + [b"d\xffx"],
        dialects=[S_BUILTIN, S_VHLO, 7],
        op_names=[(D_BUILTIN, [(S_MODULE, True)]), (2, [(S_FOO, False), (7, True)])],
        ir=b"\xff",  # never read
    )
    data = a.bytes()
    assert dialect_names(data) == ["builtin", "vhlo", "d\ufffdx"]
    assert op_names(data) == [("builtin", "module"), ("d\ufffdx", "foo"), ("d\ufffdx", "d\ufffdx")]


def test_dialect_names_reads_the_first_of_duplicated_sections() -> None:
    a = Art()
    other = Art(dialects=[S_FOO, S_BAR], op_names=[(0, [(S_T, True)])])
    a.extra = [section(1, other.dialect_body()), section(0, string_section([b"x"]))]
    assert dialect_names(a.bytes()) == ["builtin", "vhlo"]
    assert op_names(a.bytes()) == [("builtin", "module"), ("builtin", "foo"), ("builtin", "bar")]


def test_dialect_names_needs_both_sections() -> None:
    for order in ((1, 3, 2, 4, 6, 5, 8), (3, 2, 4, 6, 5, 0, 8), (3, 2, 4)):
        data = Art(order=order).bytes()
        for fn in (dialect_names, op_names):
            with pytest.raises(BytecodeError) as e:
                fn(data)
            assert (e.value.message, e.value.offset) == (
                "missing string or dialect section",
                len(data),
            )
    with pytest.raises(BytecodeError) as e:
        dialect_names(b"MLIR")
    assert e.value.offset == 0


def test_dialect_count_that_cannot_fit() -> None:
    a = Art(body={1: v(5)})
    assert refusal(a.bytes()) == (
        "a list of 5 dialects cannot fit in the 0 bytes left in the dialect section",
        a.section_start(1),
    )
    # two dialects and an empty op name list take 3 bytes: they fit
    a = Art(op_names=[], ir=b"")
    assert dialect_names(a.bytes()) == ["builtin", "vhlo"]


def test_dialect_with_a_version_section() -> None:
    a = Art()
    body = v(2) + vf(S_BUILTIN, True) + section(7, b"\x01\x02") + vf(S_VHLO, False)
    body += a.dialect_body()[3:]
    a.body = {1: body}
    assert dialect_names(a.bytes()) == ["builtin", "vhlo"]
    assert read(a.bytes())[1][0].name == "builtin.module"
    body = v(2) + vf(S_BUILTIN, True) + section(4, b"\x01\x02") + a.dialect_body()[2:]
    a.body = {1: body}
    assert refusal(a.bytes()) == ("expected a dialect version section", a.section_start(1) + 2)


def test_version_0_dialects_and_op_names_are_plain_indices() -> None:
    for version in (0, 1, 3, 4, 5, 6):
        a = Art(version=version)
        data = a.bytes()
        assert dialect_names(data) == ["builtin", "vhlo"], version
        assert op_names(data)[:2] == [("builtin", "module"), ("builtin", "foo")], version
        got, log = read(data)
        assert got.version == version and log[-1].name == "builtin.module"


def test_op_name_count_is_declared_from_version_4() -> None:
    for version in (4, 5, 6):
        a = Art(version=version, declared_op_names=2)
        assert refusal(a.bytes()) == ("2 op names declared but 3 listed", a.section_start(1))
        a = Art(version=version, declared_op_names=9)
        assert refusal(a.bytes()) == (
            "a list of 9 op names cannot fit in the 5 bytes left in the dialect section",
            a.section_start(1) + 3,
        )


def test_op_name_group_errors() -> None:
    a = Art(op_names=[(2, [(S_MODULE, True)])])
    at = a.section_start(1) + 5  # after the count, 2 dialects, declared, dialect index
    assert refusal(a.bytes()) == ("dialect index 2 out of range in the dialect section", at)
    a = Art(op_names=[(1, [(S_MODULE, True)])])
    body = a.dialect_body()[:-2] + v(5)  # a group of 5 names in no bytes
    a.body = {1: body}
    assert refusal(a.bytes()) == (
        "a list of 5 op names cannot fit in the 0 bytes left in the dialect section",
        a.section_start(1) + 5,
    )


# ----------------------------------------------------------------------------- attribute/type offsets
def test_attribute_and_type_counts_that_cannot_fit() -> None:
    a = Art(body={3: v(9)})
    assert refusal(a.bytes()) == (
        "a list of 9 attributes cannot fit in the 0 bytes left in the attribute/type offset "
        "section",
        a.section_start(3),
    )
    a = Art(body={3: v(0, 9)})
    assert refusal(a.bytes()) == (
        "a list of 9 types cannot fit in the 0 bytes left in the attribute/type offset section",
        a.section_start(3) + 1,
    )
    # counts that fit one byte per item: the group that follows is what is wrong
    a = Art(body={3: v(3, 0, 0, 9)})
    assert refusal(a.bytes()) == (
        "a list of 9 entries cannot fit in the 0 bytes left in the attribute/type offset section",
        a.section_start(3) + 3,
    )
    a = Art(body={3: v(0, 2, 0, 1)})
    assert refusal(a.bytes()) == (
        "a list of 1 entries cannot fit in the 0 bytes left in the attribute/type offset section",
        a.section_start(3) + 3,
    )


def test_attribute_group_errors() -> None:
    a = Art(body={3: v(1, 0, 2, 1) + vf(1, True)})
    assert refusal(a.bytes()) == (
        "dialect index 2 out of range in the attribute/type offset section",
        a.section_start(3) + 3,
    )
    # a second group lists more than remain
    a = Art(
        attrs=[(D_BUILTIN, [(UNKNOWN_LOC, True)]), (D_BUILTIN, [(UNKNOWN_LOC, True)] * 3)],
    )
    a.body = {3: v(3, 1) + v(0, 1) + vf(1, True) + v(0, 3) + vf(1, True) * 3 + v(0, 1) + vf(2, True)}
    assert refusal(a.bytes()) == (
        "a group lists 3 entries but only 2 of the 3 attributes remain in the attribute/type "
        "offset section",
        a.section_start(3) + 6,
    )
    a.body = {3: v(0, 3) + v(0, 1) + vf(1, True) + v(0, 3) + vf(1, True) * 3}
    assert refusal(a.bytes()) == (
        "a group lists 3 entries but only 2 of the 3 types remain in the attribute/type "
        "offset section",
        a.section_start(3) + 6,
    )


def test_attribute_entry_sizes_must_fit_the_section() -> None:
    a = Art()
    data_len = len(UNKNOWN_LOC) + len(I32)
    a.body = {3: v(1, 1, 0, 1) + vf(1, True) + v(0, 1) + vf(data_len, True)}
    assert refusal(a.bytes()) == (
        "an attribute/type entry runs past the end of its section in the attribute/type offset "
        "section",
        a.section_start(3) + 8,
    )
    # an entry ending exactly at the end of the section is fine; one short leaves bytes over
    a.body = {3: v(1, 1, 0, 1) + vf(1, True) + v(0, 1) + vf(data_len - 2, True)}
    assert refusal(a.bytes()) == (
        "attribute/type section has bytes no entry covers",
        a.section_start(2) + data_len - 1,
    )
    a.body = {3: v(1, 1, 0, 1) + vf(1, True) + v(0, 1) + vf(data_len - 1, True) + b"\x01"}
    assert refusal(a.bytes()) == (
        "trailing bytes in the attribute/type offset section",
        a.section_start(3) + 8,
    )


def test_attribute_entries_in_several_groups_and_dialects() -> None:
    # attribute 0 unknown location, 1 "foo", 2 NameLoc("foo", 0), 3 "bar"; in three groups
    a = Art(
        attrs=[
            (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)]),
            (D_BUILTIN, [(name_loc(1, 0), True)]),
            (D_BUILTIN, [(string_attr(S_BAR), True), (dict_attr((1, 3), (3, 1)), True)]),
        ],
        types=[(D_BUILTIN, [(I32, True)]), (D_BUILTIN, [(v(5), True), (v(2, 2, 0, 1, 1, 1), True)])],
        ir=module_op(ops=[op(1, 2, attr_dict=4, results=(0, 1, 2))], n_values=3),
    )
    got, log = read(a.bytes())
    assert [b.name for b in log] == ["builtin.foo", "builtin.module"]
    foo = log[0]
    assert foo.location == TextLoc('"foo"')
    assert foo.attr_dict == {"bar": StringAttr("foo"), "foo": StringAttr("bar")}
    t = foo.op.result_types
    assert t[0] == IntegerType(32) and str(t[1]) == "f32"
    assert [str(x) for x in t[2].inputs] == ["i32", "f32"] and [str(x) for x in t[2].outputs] == ["f32"]


def test_version_4_op_with_properties_but_no_properties_section() -> None:
    a = Art(version=4, ir=module_op(4, ops=[op(1, props=0, version=4)]))
    assert refusal(a.bytes()) == (
        "properties index 0 out of range (0 records)",
        first_op(a) + 3,  # foo's name, mask, location
    )


def test_dialect_names_after_a_version_whose_varint_holds_a_zero_byte() -> None:
    a = Art(version=1 << 14)  # PrefixVarInt 04 00 02
    assert b"\x04\x00\x02" in a.header()
    assert dialect_names(a.bytes()) == ["builtin", "vhlo"]


def test_read_bytecode_builds_xdsl_ir_unless_asked_for_records() -> None:
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op

    data = Art().bytes()
    got = read_bytecode(data, "t.bc", build_vhlo_op)
    assert isinstance(got.module, ModuleOp)
    assert isinstance(got.module.body, Region) and isinstance(got.module.body.blocks[0], Block)
    got = read_bytecode(data, "t.bc", build_vhlo_op, records=True)
    assert isinstance(got.module, VOp) and got.module.name == "builtin.module"
    assert isinstance(got.module.regions[0], VRegion)
    assert isinstance(got.module.regions[0].blocks[0], VBlock)


def test_unknown_vhlo_op_names_the_producer() -> None:
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op

    a = Art(
        producer=b"StableHLO_v9.9.9",
        op_names=[(D_BUILTIN, [(S_MODULE, True)]), (D_VHLO, [(S_FOO, True)])],
        ir=module_op(ops=[op(1)]),
    )
    with pytest.raises(BytecodeError) as e:
        read_bytecode(a.bytes(), "t.bc", build_vhlo_op)
    assert e.value.message.startswith(
        "unknown VHLO op vhlo.foo (the artifact's producer is 'StableHLO_v9.9.9'; "
    )


# ----------------------------------------------------------------------------- attribute/type entries
class Decoder:
    """A ``dialect_decoder`` that records its calls and decodes an entry as the string attribute
    its first varint refers to (through the context) followed by the rest of its bytes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bool, bool]] = []

    def __call__(self, r: Reader, ctx: Any, dialect: str, is_type: bool, custom: bool) -> Any:
        self.calls.append((dialect, is_type, custom))
        first = ctx.read_attr(r)
        rest = r.bytes(r.remaining())
        name = first.data if isinstance(first, StringAttr) else type(first).__name__
        return StringAttr(name + "|" + rest.hex())


def _module_with_attr_dict(attrs: list[tuple[int, list[tuple[bytes, bool]]]], dict_idx: int, **kw: Any) -> Art:
    return Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=dict_idx)]), **kw)


def test_entries_of_other_dialects_and_textual_entries_go_to_the_decoder() -> None:
    # attrs: 0 unknown loc, 1 "foo", 2 "bar"; 3 textual builtin, 4 custom "t" dialect, 5 the dict
    strings = STRINGS
    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (string_attr(S_BAR), True)]),
        (D_BUILTIN, [(v(1) + b"xy", False)]),
        (2, [(v(2) + b"zw", True)]),
        (D_BUILTIN, [(dict_attr((1, 3), (2, 4)), True)]),
    ]
    a = _module_with_attr_dict(attrs, 5, strings=strings, dialects=[S_BUILTIN, S_VHLO, S_T])
    dec = Decoder()
    got, log = read(a.bytes(), dec)
    assert log[0].attr_dict == {"foo": StringAttr("foo|7879"), "bar": StringAttr("bar|7a77")}
    assert dec.calls == [("builtin", False, False), ("t", False, True)]
    # a custom type of another dialect, through the decoder too
    a.types = [(2, [(v(1), True)])]
    a.ir = module_op(ops=[op(1, results=(0,))], n_values=1)
    dec = Decoder()
    got, log = read(a.bytes(), dec)
    assert log[0].op.result_types == (StringAttr("foo|"),)
    assert dec.calls == [("t", True, True)]


def test_builtin_vhlo_and_sdy_entries_are_decoded_by_the_reader() -> None:
    from stablehlo_py.vhlo import types as vt

    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (string_attr(S_BAR), True)]),
        (D_VHLO, [(v(1, 0), True)]),  # vhlo.array_v1 []
        (2, [(v(0, 1, 2), True)]),  # sdy manual axes {"bar"}
        (D_BUILTIN, [(dict_attr((1, 3), (2, 4)), True)]),
    ]
    types = [(D_VHLO, [(v(4), True)]), (D_BUILTIN, [(I32, True)])]
    for dec in (None, Decoder()):
        a = _module_with_attr_dict(attrs, 5, dialects=[S_BUILTIN, S_VHLO, 7], strings=STRINGS + [b"sdy"])
        a.types = types
        a.ir = module_op(ops=[op(1, attr_dict=5, results=(0, 1))], n_values=2)
        got, log = read(a.bytes(), dec)
        d = log[0].attr_dict
        assert type(d["foo"]).__name__ == "ArrayV1Attr"
        assert log[0].op.result_types[0] == vt.F32
        assert log[0].op.result_types[1] == IntegerType(32)
        if dec is None:
            assert "bar" in str(d["bar"]) and type(d["bar"]).__name__ == "OpaqueAttr"
        else:  # only the sdy entry goes to the decoder
            assert dec.calls == [("sdy", False, True)]
            assert d["bar"] == StringAttr("Loc|0305")


def test_entries_without_a_decoder() -> None:
    base = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)])]
    dialects = [S_BUILTIN, S_VHLO, S_T]
    cases = [
        ((D_BUILTIN, [(b"x\xffy\0", False)]), "textual attribute 'x\ufffdy' (dialect 'builtin') is "
         "not supported: portable artifacts with other dialects (allow_other_dialects) cannot be read"),
        ((2, [(b"ab\0", False)]), "textual attribute 'ab' (dialect 't') is not supported: portable "
         "artifacts with other dialects (allow_other_dialects) cannot be read"),
        ((D_BUILTIN, [(b"ab", False)]), "textual attribute/type entry is not NUL-terminated"),
        ((2, [(v(0), True)]), "attribute of dialect 't' is not supported (portable artifacts hold "
         "VHLO and builtin only)"),
    ]
    for entry, message in cases:
        a = _module_with_attr_dict(base + [entry], 2, dialects=dialects)
        a.ir = module_op(ops=[op(1, loc=2)])
        start = a.section_start(2) + len(UNKNOWN_LOC) + len(string_attr(S_FOO))
        assert refusal(a.bytes()) == (message, start), message
    for entry, message in [
        ((D_BUILTIN, [(b"i\xfe7\0", False)]), "textual type 'i\ufffd7' (dialect 'builtin') is "
         "not supported: portable artifacts with other dialects (allow_other_dialects) cannot be read"),
        ((2, [(v(0), True)]), "type of dialect 't' is not supported (portable artifacts hold "
         "VHLO and builtin only)"),
    ]:
        a = Art(attrs=base, types=[entry], dialects=dialects)
        a.ir = module_op(ops=[op(1, results=(0,))], n_values=1)
        start = a.section_start(2) + len(UNKNOWN_LOC) + len(string_attr(S_FOO))
        assert refusal(a.bytes()) == (message, start), message


def test_trailing_bytes_after_an_entry() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO) + b"\x07", True)])]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, loc=1)]))
    assert refusal(a.bytes()) == (
        "trailing bytes after an attribute/type encoding",
        a.section_start(2) + 1 + 2,
    )


def test_attribute_and_type_index_out_of_range() -> None:
    a = Art(ir=module_op(ops=[op(1, loc=1)]))
    at = first_op(a) + 2  # foo's location
    assert refusal(a.bytes()) == ("attribute index 1 out of range (1 attributes)", at)
    a = Art(ir=module_op(ops=[op(1, results=(1,))], n_values=1))
    at = first_op(a) + 4  # foo's name, mask, location, result count
    assert refusal(a.bytes()) == ("type index 1 out of range (1 types)", at)
    # a reference inside an entry, after another one was decoded: at the entry
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (array_attr(1, 9), True)])]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=2)]))
    assert refusal(a.bytes()) == (
        "attribute index 9 out of range (3 attributes)",
        a.section_start(2) + 1 + 2,
    )
    types = [(D_BUILTIN, [(I32, True), (v(15, 2, 0, 7), True)])]  # tuple<i32, #7>
    a = Art(types=types, ir=module_op(ops=[op(1, results=(1,))], n_values=1))
    assert refusal(a.bytes()) == (
        "type index 7 out of range (2 types)",
        a.section_start(2) + 1 + len(I32),
    )


def test_reference_cycles() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (array_attr(1, 3), True),
                          (array_attr(2), True)])]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=2)]))
    assert refusal(a.bytes()) == (
        "an attribute refers to itself (a reference cycle)",
        a.section_start(2) + 1 + 2,
    )
    types = [(D_BUILTIN, [(I32, True), (v(15, 2, 0, 1), True)])]  # tuple<i32, itself>
    a = Art(types=types, ir=module_op(ops=[op(1, results=(1,))], n_values=1))
    assert refusal(a.bytes()) == (
        "a type refers to itself (a reference cycle)",
        a.section_start(2) + 1 + len(I32),
    )


def test_entries_are_decoded_once() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (dict_attr((1, 1)), True)])]
    a = Art(
        attrs=attrs,
        ir=module_op(ops=[op(1, attr_dict=2, results=(0, 0)), op(2, attr_dict=2, results=(0,))], n_values=3),
    )
    got, log = read(a.bytes())
    foo, bar = log[0].op, log[1].op
    assert foo.result_types[0] is foo.result_types[1] is bar.result_types[0]
    assert foo.attributes is not bar.attributes and foo.attributes == bar.attributes
    assert foo.attributes["foo"] is bar.attributes["foo"]


# ----------------------------------------------------------------------------- the IR
def ir_at(a: Art, fragment: bytes, nth: int = 0) -> int:
    """Absolute offset of ``fragment`` in the IR section (after the top-level op count)."""
    assert a.ir is not None
    pos = -1
    for _ in range(nth + 1):
        pos = a.ir.index(fragment, pos + 1)
    return a.section_start(4) + 1 + pos


def test_ir_section_holds_one_module() -> None:
    for head in (v(4), v(3), v(0)):  # 2 ops, 1 op with block arguments, none
        a = Art(body={4: head + module_op()})
        assert refusal(a.bytes()) == (
            "the IR section must hold exactly one top-level op in the IR section",
            a.section_start(4) + 1,
        )
    a = Art(body={4: v(2) + module_op() + b"\x05"})
    assert refusal(a.bytes()) == (
        "trailing bytes after the top-level op in the IR section",
        a.section_start(4) + 1 + len(module_op()),
    )
    a = Art(ir=op(1, regions=[region([block()])]))
    assert refusal(a.bytes()) == (
        "the top-level op is builtin.foo, expected builtin.module",
        a.section_start(4),
    )
    a = Art(ir=module_op(results=(0,)))
    assert refusal(a.bytes()) == (
        "more values defined than the region declared",
        a.section_start(4) + 1,
    )


def test_op_name_mask_and_location_errors() -> None:
    bad = op(3)
    a = Art(ir=module_op(ops=[op(1), bad]))
    assert refusal(a.bytes()) == ("op name index 3 out of range in the IR section", ir_at(a, bad))
    bad = op(2, mask=0x80)
    a = Art(ir=module_op(ops=[op(1), bad]))
    assert refusal(a.bytes()) == (
        "invalid op encoding mask 0x80 in the IR section",
        ir_at(a, bad) + 1,
    )
    bad = op(2, mask=0x88)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes())[0] == "invalid op encoding mask 0x88 in the IR section"
    bad = op(2, mask=0x08)
    a = Art(ir=module_op(ops=[op(1), bad]))
    assert refusal(a.bytes()) == (
        "builtin.bar has successors, which VHLO ops never have in the IR section",
        ir_at(a, bad),
    )
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)])]
    bad = op(2, loc=1)
    a = Art(attrs=attrs, ir=module_op(ops=[op(1), bad]))
    assert refusal(a.bytes()) == ("expected a location", ir_at(a, bad) + 2)


def test_locations_are_decoded_once_per_attribute() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (name_loc(1, 0), True),
                          (string_attr(S_FILE), True), (file_loc(3, 3, 4), True)])]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, loc=2), op(2, loc=4), op(1, loc=2), op(2, loc=0)]))
    got, log = read(a.bytes())
    assert [b.location for b in log] == [
        TextLoc('"foo"'), TextLoc('"f.py":3:4'), TextLoc('"foo"'), UNKNOWN, UNKNOWN,
    ]
    assert log[0].location is log[2].location
    assert log[3].location is UNKNOWN and log[4].location is UNKNOWN


def test_attribute_dictionary_and_properties_of_an_op() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (dict_attr((1, 1)), True)])]
    a = Art(
        attrs=attrs,
        props=[v(0, 0), v(1, 2, 3), b""],
        ir=module_op(ops=[op(1, attr_dict=2, props=1), op(2, props=2), op(1)]),
    )
    got, log = read(a.bytes())
    foo, bar, foo2, module = log
    assert foo.attr_dict == {"foo": StringAttr("foo")} and foo2.attr_dict == {}
    p = a.section_start(8) + 1  # the count; each record is its size then its bytes
    assert foo.props_rec == ((p + 4, p + 7), ir_at(a, op(1, attr_dict=2, props=1)) + 4)
    assert bar.props_rec == ((p + 8, p + 8), ir_at(a, op(2, props=2)) + 3)
    assert foo2.props_rec is None
    assert module.props_rec == ((p + 1, p + 3), a.section_start(4) + 4)
    # not a dictionary
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=1)]))
    assert refusal(a.bytes()) == (
        "an op's attribute dictionary is not a dictionary",
        ir_at(a, op(1, attr_dict=1)) + 3,
    )
    # a properties index past the records
    bad = op(1, props=3)
    a = Art(props=[v(0, 0), b"", b""], ir=module_op(ops=[op(2, props=2), bad]))
    assert refusal(a.bytes()) == ("properties index 3 out of range (3 records)", ir_at(a, bad) + 3)


def test_properties_records() -> None:
    a = Art(body={8: v(3, 0, 2)})
    assert refusal(a.bytes()) == (
        "a list of 3 properties records cannot fit in the 2 bytes left in the properties section",
        a.section_start(8),
    )
    a = Art(body={8: v(2, 1) + b"\x01" + v(4) + b"\x01\x02"})
    assert refusal(a.bytes()) == (
        "a properties record of 4 bytes runs past the end in the properties section",
        a.section_start(8) + 4,
    )
    # a record ending at the end of the section is fine; 2 records in 2 bytes fit as a count
    a = Art(body={8: v(2, 0, 0)}, ir=module_op(ops=[op(1, props=1)]))
    got, log = read(a.bytes())
    assert log[0].props_rec[0] == (a.section_start(8) + 3, a.section_start(8) + 3)
    assert log[1].props_rec[0] == (a.section_start(8) + 2, a.section_start(8) + 2)
    a = Art(body={8: v(1, 2, 7, 9)}, ir=module_op(ops=[op(1, props=0)]))
    got, log = read(a.bytes())
    assert log[0].props_rec[0] == (a.section_start(8) + 2, a.section_start(8) + 4)


def test_results_and_operands() -> None:
    types = [(D_BUILTIN, [(I32, True), (v(5), True)])]
    ops = [
        op(1, results=(0, 1)),
        op(2, results=(1,), operands=(1, 0)),
        op(1, operands=(2, 2, 0)),
    ]
    a = Art(types=types, ir=module_op(ops=ops, n_values=3))
    got, log = read(a.bytes())
    foo, bar, foo2, _ = log
    assert foo.op.result_types == (IntegerType(32), log[1].op.result_types[0]) and str(foo.op.result_types[1]) == "f32"
    assert bar.op.operands == [foo.op.results[1], foo.op.results[0]]
    assert foo2.op.operands == [bar.op.results[0], bar.op.results[0], foo.op.results[0]]
    # the counts are checked against the bytes left: 2 results / operands as the last bytes fit
    a = Art(types=types, ir=module_op(ops=[op(1, results=(0, 1))], n_values=2))
    assert len(read(a.bytes())[1][0].op.results) == 2
    a = Art(types=types, ir=module_op(ops=[op(1, results=(0, 1)), op(2, operands=(1, 0))], n_values=2))
    assert len(read(a.bytes())[1][1].op.operands) == 2
    bad = op(2, mask=0x02) + v(5)
    a = Art(types=types, ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "a list of 5 results cannot fit in the 0 bytes left in the IR section",
        ir_at(a, bad) + 3,
    )
    bad = op(2, mask=0x04) + v(5)
    a = Art(types=types, ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "a list of 5 operands cannot fit in the 0 bytes left in the IR section",
        ir_at(a, bad) + 3,
    )


def test_operands_must_be_defined_before_use() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    for vid, n_values in ((1, 2), (2, 2), (7, 2)):
        bad = op(2, operands=(0, vid))
        a = Art(types=types, ir=module_op(ops=[op(1, results=(0,)), bad], n_values=n_values))
        assert refusal(a.bytes()) == (
            f"operand refers to value #{vid}, which is not defined before its use (forward "
            "references are not supported)",
            ir_at(a, bad) + 5,
        )


def test_more_values_than_declared() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    bad = op(2, results=(0, 0))
    a = Art(types=types, ir=module_op(ops=[op(1, results=(0,)), bad], n_values=2))
    assert refusal(a.bytes()) == ("more values defined than the region declared", ir_at(a, bad))
    blk = block([op(1, results=(0,))], args=[(0, None)])
    a = Art(types=types, ir=op(0, props=0, regions=[region([blk], 1)]))
    assert refusal(a.bytes()) == ("more values defined than the region declared", ir_at(a, blk) + 4)
    blk = block([], args=[(0, None), (0, None)])
    a = Art(types=types, ir=op(0, props=0, regions=[region([blk], 1)]))
    assert refusal(a.bytes()) == ("more values defined than the region declared", ir_at(a, blk))


def test_regions_number_values_by_isolation() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    for version in (1, 2, 6):
        # %0 = foo; %1 = bar { ^(%2): %3 = foo(%0, %2); foo(%3) }; foo(%1)   (non-isolated region:
        # its values come after the 2 of the module's region)
        inner = block([op(1, operands=(0, 2), results=(0,), version=version), op(1, operands=(3,), version=version)],
                      args=[(0, None)], version=version)
        bar = op(2, results=(0,), regions=[region([inner], 2)], isolated=False, version=version)
        ops = [op(1, results=(0,), version=version), bar, op(1, operands=(1,), version=version)]
        a = Art(version=version, types=types, ir=module_op(version, ops=ops, n_values=2))
        got, log = read(a.bytes())
        foo0, foo1, foo2, bar_, foo3, module = log
        assert [b.name for b in log][:5] == ["builtin.foo", "builtin.foo", "builtin.foo", "builtin.bar", "builtin.foo"]
        arg = bar_.op.regions[0].blocks[0].args[0]
        assert foo1.op.operands == [foo0.op.results[0], arg]
        assert foo2.op.operands == [foo1.op.results[0]]
        assert foo3.op.operands == [bar_.op.results[0]]
        # an isolated region numbers its values from 0
        inner = block([op(1, operands=(0,), version=version)], args=[(0, None)], version=version)
        bar = op(2, results=(0,), regions=[region([inner], 1)], isolated=True, version=version)
        ops = [op(1, results=(0,), version=version), bar, op(1, operands=(1,), version=version)]
        a = Art(version=version, types=types, ir=module_op(version, ops=ops, n_values=2))
        got, log = read(a.bytes())
        arg = log[2].op.regions[0].blocks[0].args[0]
        assert log[1].op.operands == [arg] and log[3].op.operands == [log[2].op.results[0]]


def test_values_of_a_region_end_with_it() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    inner = block([op(1, results=(0,))], args=[(0, None)])
    bar = op(2, regions=[region([inner], 2)], isolated=False)
    bad = op(1, operands=(1,))
    a = Art(types=types, ir=module_op(ops=[op(1, results=(0,)), bar, bad], n_values=1))
    assert refusal(a.bytes()) == (
        "operand refers to value #1, which is not defined before its use (forward references "
        "are not supported)",
        ir_at(a, bad) + 4,
    )
    # an isolated region does not see the values around it
    bad = op(1, operands=(0,))
    bar = op(2, regions=[region([block([bad])], 0)], isolated=True)
    a = Art(types=types, ir=module_op(ops=[op(1, results=(0,)), bar], n_values=1))
    assert refusal(a.bytes())[0].startswith("operand refers to value #0, which is not defined")


def test_blocks_of_a_region_share_its_values() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    b1 = block([op(1, results=(0,))], args=[(0, None)])
    b2 = block([op(2, operands=(1, 0, 2))], args=[(0, None)])
    a = Art(types=types, ir=op(0, props=0, regions=[region([b1, b2], 3)]))
    got, log = read(a.bytes())
    blocks = log[-1].op.regions[0].blocks
    assert len(blocks) == 2
    assert log[1].op.operands == [log[0].op.results[0], blocks[0].args[0], blocks[1].args[0]]
    assert blocks[0].ops == [log[0].op] and blocks[1].ops == [log[1].op]


def test_isolated_region_section_errors() -> None:
    reg = region([block([op(1)])])
    bar = op(2, regions=[reg]).replace(section(4, reg), section(5, reg))
    a = Art(ir=module_op(ops=[bar]))
    assert refusal(a.bytes()) == (
        "expected an IR section for an isolated region",
        ir_at(a, bar) + 4,
    )
    bar = op(2, regions=[reg]).replace(section(4, reg), section(4, reg + b"\x07"))
    a = Art(ir=module_op(ops=[bar]))
    assert refusal(a.bytes()) == (
        "trailing bytes after the regions in the IR section",
        ir_at(a, bar) + 6 + len(reg),
    )


def test_region_counts_against_the_bytes_left() -> None:
    bad = op(2, mask=0x10) + vf(9, False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "9 regions cannot fit in the bytes left in the IR section",
        ir_at(a, bad) + 4,
    )
    # two empty regions in the last two bytes fit
    last = op(2, regions=[region([]), region([])], isolated=False)
    a = Art(ir=module_op(ops=[last]))
    assert len(read(a.bytes())[1][0].op.regions) == 2
    assert read(a.bytes())[1][0].op.regions[0].blocks == []
    # blocks and values
    bad = op(2, regions=[v(4) + v(0) + vf(0, False) * 2], isolated=False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "4 blocks cannot fit in the bytes left in the IR section",
        ir_at(a, bad) + 5,
    )
    bad = op(2, regions=[v(3) + v(0) + vf(0, False) * 2], isolated=False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "unexpected end of data (expected a varint) in the IR section",
        ir_at(a, bad) + 8,
    )
    bad = op(2, regions=[v(1) + v(9) + vf(0, False)], isolated=False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "9 values cannot be defined in the bytes left in the IR section",
        ir_at(a, bad) + 5,
    )
    bad = op(2, regions=[v(1) + v(1) + vf(0, False)], isolated=False)  # 1 value, 1 byte left: fine
    a = Art(ir=module_op(ops=[bad]))
    assert read(a.bytes())[1][0].name == "builtin.bar"


def _nested(depth: int, sibling_regions: int = 0) -> bytes:
    """``depth`` ops with regions nested in each other inside the module (which is one more)."""
    inner = block([op(1, regions=[region([block()])]) for _ in range(sibling_regions)])
    for _ in range(depth):
        inner = block([op(2, regions=[region([inner])])])
    return op(0, props=0, regions=[region([inner])])


def test_region_nesting_limit() -> None:
    assert MAX_NESTING == 100
    got, log = read(Art(ir=_nested(MAX_NESTING - 1)).bytes())
    assert len(log) == MAX_NESTING
    a = Art(ir=_nested(MAX_NESTING))
    # the innermost bar is the 101st op with regions
    innermost = op(2, regions=[region([block()])])
    assert refusal(a.bytes()) == (
        "regions nest more than 100 levels deep, which this toolkit does not support in the IR "
        "section",
        ir_at(a, innermost),
    )
    # many regions side by side are fine
    got, log = read(Art(ir=_nested(3, sibling_regions=2 * MAX_NESTING)).bytes())
    assert len(log) == 2 * MAX_NESTING + 4


def test_block_errors() -> None:
    bad = op(2, regions=[v(1, 0) + vf(9, False)], isolated=False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "9 ops cannot fit in the bytes left in the IR section",
        ir_at(a, bad) + 6,
    )
    bad = op(2, regions=[v(1, 0) + vf(0, True) + v(5)], isolated=False)
    a = Art(ir=module_op(ops=[bad]))
    assert refusal(a.bytes()) == (
        "a list of 5 block arguments cannot fit in the 0 bytes left in the IR section",
        ir_at(a, bad) + 7,
    )
    for m in (1, 0x21, 0x40):
        blk = block([], args=[(0, None)], arg_mask=m)
        a = Art(ir=op(0, props=0, regions=[region([blk], 1)]))
        assert refusal(a.bytes()) == (
            f"invalid block use-list mask {m:#x} in the IR section",
            ir_at(a, blk) + 3,
        )
    # two arguments in the last bytes of the region fit
    blk = block([], args=[(0, None), (0, None)])
    a = Art(ir=op(0, props=0, regions=[region([blk], 2)]))
    assert len(read(a.bytes())[1][0].op.regions[0].blocks[0].args) == 2


def test_block_argument_types_and_locations() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (name_loc(1, 0), True)])]
    types = [(D_BUILTIN, [(I32, True), (v(5), True)])]
    for version in (3, 4, 5, 6):
        blk = block([op(1, operands=(1, 0), version=version)], args=[(1, 2), (0, None), (0, 2)],
                    version=version)
        if version < 4:  # no flag: every argument has a location (here the unknown one)
            blk = blk.replace(v(0, 0), v(0, 0))
        a = Art(version=version, attrs=attrs, types=types,
                ir=op(0, props=0 if version >= 5 else None, regions=[region([blk], 3)], version=version))
        got, log = read(a.bytes())
        args = log[-1].op.regions[0].blocks[0].args
        assert [str(x.type) for x in args] == ["f32", "i32", "i32"]
        assert args[0].location == TextLoc('"foo"') and args[2].location is args[0].location
        assert args[1].location is VValue.location  # not set
        assert log[0].op.operands == [args[1], args[0]]
    # a type entry that does not decode to a type
    blk = block([], args=[(0, None)])
    a = Art(types=[(2, [(v(1), True)])], dialects=[S_BUILTIN, S_VHLO, S_T],
            attrs=[(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)])],
            ir=op(0, props=0, regions=[region([blk], 1)]))
    assert refusal(a.bytes(), Decoder()) == ("block argument type is not a type", ir_at(a, blk))


def test_block_arguments_in_xdsl_blocks() -> None:
    text = "func.func @f(%a: tensor<f32> loc(\"x\"), %b: tensor<i32>) {\n  return\n}\n"
    m = parse(text, "t.mlir")
    data = write_dialect(m)
    _, _, back = read_dialect(data)
    assert print_ir(back) == print_ir(m)
    f = list(back.body.block.ops)[0]
    args = f.body.blocks[0].args
    assert isinstance(f.body.blocks[0], Block)
    assert [str(x.type) for x in args] == ["tensor<f32>", "tensor<i32>"]
    assert str(args[0].location) == str(TextLoc('"x"')) or args[0].location == TextLoc('"x"')
    assert write_dialect(back) == data


# ----------------------------------------------------------------------------- use-list orders
def _use_orders(values: Any) -> list[Any]:
    return [x.__dict__.get("_use_order") for x in values]


def test_use_list_orders_of_results() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    cases = [
        # one result: no count, no index
        ((0,), vf(3, False) + v(2, 0, 1), [[2, 0, 1]]),
        ((0,), vf(4, True) + v(1, 0, 0, 1), [[1, 0]]),  # pairs (value, index)
        ((0,), vf(6, True) + v(2, 0, 0, 1, 1, 2), [[2, 0, 1]]),
        # two results: a count, then (index, order) for each listed one
        ((0, 0), v(1, 1) + vf(2, False) + v(1, 0), [None, [1, 0]]),
        ((0, 0), v(2, 1) + vf(2, False) + v(1, 0) + v(0) + vf(3, False) + v(0, 2, 1), [[0, 2, 1], [1, 0]]),
        ((0, 0, 0), v(1, 2) + vf(4, True) + v(1, 0, 0, 1), [None, None, [1, 0]]),
    ]
    for results, lists, want in cases:
        first = op(1, results=results, use_lists=lists)
        ops = [first, op(2, operands=(0,)), op(1, results=(0,))]
        a = Art(types=types, ir=module_op(ops=ops, n_values=len(results) + 1))
        got, log = read(a.bytes())
        assert _use_orders(log[0].op.results) == want, lists.hex()
        assert log[1].op.operands == [log[0].op.results[0]]
        assert _use_orders(log[2].op.results) == [None]


def test_use_list_orders_of_block_arguments() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    for version in (3, 6):
        lists = v(1, 1) + vf(2, False) + v(1, 0)
        blk = block([op(1, operands=(1, 1), version=version)], args=[(0, None), (0, None)],
                    version=version, arg_use_lists=lists)
        a = Art(version=version, types=types,
                ir=op(0, props=0 if version >= 5 else None, regions=[region([blk], 2)], version=version))
        got, log = read(a.bytes())
        args = log[-1].op.regions[0].blocks[0].args
        assert _use_orders(args) == [None, [1, 0]]
        blk = block([op(1, operands=(0,), version=version)], args=[(0, None)], version=version,
                    arg_use_lists=vf(2, False) + v(1, 0))
        a = Art(version=version, types=types,
                ir=op(0, props=0 if version >= 5 else None, regions=[region([blk], 1)], version=version))
        got, log = read(a.bytes())
        assert _use_orders(log[-1].op.regions[0].blocks[0].args) == [[1, 0]]


def test_use_list_order_errors() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    msg = " in the IR section"
    cases = [
        ((0, 0, 0), v(1, 3) + vf(1, False) + v(0), "use-list order for value #3 of 3"),
        ((), v(1, 0) + vf(1, False) + v(0), "use-list order for value #0 of 0"),
        ((0,), vf(3, True) + v(0, 1, 2), "a pair-encoded use-list order has an odd length"),
        ((0,), vf(2, False) + v(0, 0), "a use-list order is not a permutation"),
        ((0,), vf(2, False) + v(1, 2), "a use-list order is not a permutation"),
        ((0,), vf(4, True) + v(1, 0, 1, 1), "a use-list order is not a permutation"),
        ((0, 0), v(9), "a list of 9 use-lists cannot fit in the 0 bytes left"),
    ]
    for results, lists, message in cases:
        bad = op(1, results=results, use_lists=lists)
        a = Art(types=types, ir=module_op(ops=[bad], n_values=len(results)))
        start = ir_at(a, bad) + 3 + (1 + len(results) if results else 0)
        assert refusal(a.bytes()) == (message + msg, start), message
    bad = op(1, results=(0,), use_lists=vf(7, False) + v(0, 1))
    a = Art(types=types, ir=module_op(ops=[bad], n_values=1))
    assert refusal(a.bytes()) == (
        "a use-list order runs past the end in the IR section",
        ir_at(a, bad) + 6,
    )
    # a count of 2 with 2 bytes left: the orders are what is wrong
    bad = op(1, results=(0, 0), use_lists=v(2, 0, 1))
    a = Art(types=types, ir=module_op(ops=[bad], n_values=2))
    assert refusal(a.bytes()) == (
        "unexpected end of data (expected a varint) in the IR section",
        ir_at(a, bad) + 9,
    )


def test_use_list_orders_survive_a_round_trip() -> None:
    text = """func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  %1 = stablehlo.add %arg0, %arg0 : tensor<f32>
  %2 = stablehlo.add %arg0, %arg0 : tensor<f32>
  %3 = stablehlo.add %0, %1 : tensor<f32>
  %4 = stablehlo.add %3, %2 : tensor<f32>
  return %4 : tensor<f32>
}"""
    plain = write_dialect(parse(text))
    # pair-encoded when fewer than half the uses move: [1, 0, 2, ...] lists only the first two
    for order in ([5, 4, 3, 2, 1, 0], [0, 1, 2, 3, 5, 4], [1, 0, 3, 2, 5, 4], [1, 0, 2, 3, 4, 5],
                  [0, 2, 1, 3, 4, 5]):
        m = parse(text)
        arg = list(m.body.block.ops)[0].body.blocks[0].args[0]
        arg.__dict__["_use_order"] = order
        data = write_dialect(m)
        assert data != plain
        _, _, back = read_dialect(data)
        arg = list(back.body.block.ops)[0].body.blocks[0].args[0]
        assert arg.__dict__["_use_order"] == order
        assert write_dialect(back) == data


# ----------------------------------------------------------------------------- depth, nesting, budgets
_MAX_DEPTH = 1500  # references followed while decoding one entry (the reader's limit)


def _name_loc_chain(levels: int) -> Art:
    """Attribute 0 the unknown location, then per level a fresh string attribute "foo" and a
    NameLoc of it around the previous level's: decoding the outermost follows ``levels`` NameLocs
    and, below the innermost, its name: ``levels + 1`` entries deep."""
    attrs = [(UNKNOWN_LOC, True)]
    for k in range(levels):
        attrs.append((string_attr(S_FOO), True))
        attrs.append((name_loc(1 + 2 * k, 0 if k == 0 else 2 * k), True))
    return Art(attrs=[(D_BUILTIN, attrs)], ir=module_op(ops=[op(1, loc=2 * levels)]))


def test_reference_depth_limit() -> None:
    old = sys.getrecursionlimit()
    got, log = read(_name_loc_chain(_MAX_DEPTH - 1).bytes())
    assert log[0].location.data.count('"foo"(') == _MAX_DEPTH - 2  # locations nest past MAX_NESTING
    assert sys.getrecursionlimit() == old
    a = _name_loc_chain(_MAX_DEPTH)
    assert refusal(a.bytes()) == (
        "attribute and type references nest more than 1500 levels deep",
        a.section_start(2) + len(UNKNOWN_LOC),  # the innermost name
    )


def test_reference_depth_counts_nesting_not_entries() -> None:
    # 2000 entries side by side in one array: deep 2 at most
    n = 2000
    attrs = [(UNKNOWN_LOC, True)] + [(string_attr(S_FOO), True)] * n
    attrs.append((v(0, n) + b"".join(varint_bytes(1 + i) for i in range(n)), True))
    attrs.append((dict_attr((1, n + 1)), True))
    a = Art(attrs=[(D_BUILTIN, attrs)], ir=module_op(ops=[op(1, attr_dict=n + 2)]))
    got, log = read(a.bytes())
    assert len(log[0].attr_dict["foo"].data) == n


def _nested_arrays(depth: int) -> Art:
    """Attributes 0 unknown, 1 "foo", 2 [] (1 level), then arrays around it: the last one is
    ``depth`` levels deep; the op's dictionary {foo = it} one more."""
    attrs = [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (array_attr(), True)]
    for k in range(depth - 1):
        attrs.append((array_attr(2 + k), True))
    top = len(attrs) - 1
    attrs.append((dict_attr((1, top)), True))
    return Art(attrs=[(D_BUILTIN, attrs)], ir=module_op(ops=[op(1, attr_dict=top + 1)]))


def test_attribute_nesting_limit() -> None:
    got, log = read(_nested_arrays(MAX_NESTING - 1).bytes())  # the dictionary is 100 deep
    x, depth = log[0].attr_dict["foo"], 1
    while x.data:
        x, depth = x.data[0], depth + 1
    assert depth == MAX_NESTING - 1
    a = _nested_arrays(MAX_NESTING + 1)
    start = a.section_start(2) + 1 + 2 + 2 + 3 * (MAX_NESTING - 1)  # the 101st level
    assert refusal(a.bytes()) == (
        "attribute nests more than 100 levels deep (attributes and types inside each other), "
        "which this toolkit does not support",
        start,
    )
    a = _nested_arrays(MAX_NESTING)
    start = a.section_start(2) + 1 + 2 + 2 + 3 * (MAX_NESTING - 1)  # the dictionary
    assert refusal(a.bytes())[1] == start


def _nested_tuples(depth: int) -> Art:
    types = [(I32, True)] + [(v(15, 1, k), True) for k in range(depth - 1)]
    return Art(types=[(D_BUILTIN, types)], ir=module_op(ops=[op(1, results=(depth - 1,))], n_values=1))


def test_type_nesting_limit() -> None:
    got, log = read(_nested_tuples(MAX_NESTING).bytes())
    assert str(log[0].op.result_types[0]).count("tuple<") == MAX_NESTING - 1
    a = _nested_tuples(MAX_NESTING + 1)
    assert refusal(a.bytes()) == (
        "type nests more than 100 levels deep (attributes and types inside each other), which "
        "this toolkit does not support",
        a.section_start(2) + len(UNKNOWN_LOC) + len(I32) + 3 * (MAX_NESTING - 1),
    )


def test_properties_record_past_its_section() -> None:
    # the properties section is not the last one: a record may not run into the next section
    a = Art(order=(1, 3, 2, 4, 6, 5, 8, 0), body={8: v(1, 5) + b"\x01"})
    assert refusal(a.bytes()) == (
        "a properties record of 5 bytes runs past the end in the properties section",
        a.section_start(8) + 2,
    )


def test_builder_gets_each_ops_start_and_parts() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    ops = [op(1, results=(0,)), op(2, operands=(0,)), op(1)]
    a = Art(types=types, ir=module_op(ops=ops, n_values=1))
    got, log = read(a.bytes())
    assert [b.pos for b in log] == [
        ir_at(a, ops[0]), ir_at(a, ops[1]), ir_at(a, ops[2], 0), a.section_start(4) + 1,
    ]
    assert ir_at(a, ops[2]) > ir_at(a, ops[1])
    assert [b.name for b in log] == ["builtin.foo", "builtin.bar", "builtin.foo", "builtin.module"]
    assert log[-1].op.regions[0].blocks[0].ops == [b.op for b in log[:3]]


def test_reference_errors_inside_an_op_are_located_at_the_reference() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (dict_attr((1, 1)), True)])]
    bad = op(2, attr_dict=7)
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=2), bad]))
    assert refusal(a.bytes()) == ("attribute index 7 out of range (3 attributes)", ir_at(a, bad) + 3)
    types = [(D_BUILTIN, [(I32, True)])]
    blk = block([], args=[(0, None), (4, None)])
    a = Art(attrs=attrs, types=types, ir=op(0, props=0, regions=[region([blk], 2)]))
    assert refusal(a.bytes()) == ("type index 4 out of range (1 types)", ir_at(a, blk) + 3)
    blk = block([], args=[(0, 1)], version=3)
    a = Art(version=3, attrs=attrs, types=types, ir=op(0, regions=[region([blk], 1)], version=3))
    assert refusal(a.bytes()) == ("expected a location", ir_at(a, blk) + 3)


def test_errors_inside_an_entry_name_the_attribute_section() -> None:
    attrs = [(D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (v(0, 9, 1), True),
                          (dict_attr((1, 2)), True)])]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=3)]))
    assert refusal(a.bytes()) == (
        "a list of 9 array elements cannot fit in the 1 bytes left in the attribute/type section",
        a.section_start(2) + 1 + 2 + 1,
    )


def test_vhlo_entries_refer_to_other_entries() -> None:
    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)]),
        (D_VHLO, [(v(1, 0), True), (v(1, 2, 2, 2), True)]),  # [] and [[], []]
        (D_BUILTIN, [(dict_attr((1, 3)), True)]),
    ]
    a = Art(attrs=attrs, ir=module_op(ops=[op(1, attr_dict=4)]))
    got, log = read(a.bytes())
    outer = log[0].attr_dict["foo"]
    assert [type(x).__name__ for x in outer.value] == ["ArrayV1Attr"] * 2
    assert outer.value[0] is outer.value[1]


def test_sdy_has_no_types() -> None:
    a = Art(strings=STRINGS + [b"sdy"], dialects=[S_BUILTIN, S_VHLO, 7], types=[(2, [(v(0), True)])],
            ir=module_op(ops=[op(1, results=(0,))], n_values=1))
    assert refusal(a.bytes()) == ("the sdy dialect has no types", a.section_start(2) + 1)


def test_region_nesting_is_counted_on_the_way_out_too() -> None:
    # module > a > (b > c, then 98 more ops nested in each other): the last is 101 deep
    inner = block([op(2, regions=[region([block()])])])
    for _ in range(MAX_NESTING - 3):
        inner = block([op(2, regions=[region([inner])])])
    b = op(1, regions=[region([block([op(1, regions=[region([block()])])])])])
    a_op = op(2, regions=[region([block([b, op(1, regions=[region([inner])])])])])
    a = Art(ir=op(0, props=0, regions=[region([block([a_op])])]))
    msg, _ = refusal(a.bytes())
    assert msg.startswith("regions nest more than 100 levels deep")


def test_pair_encoded_order_of_one() -> None:
    types = [(D_BUILTIN, [(I32, True)])]
    first = op(1, results=(0,), use_lists=vf(2, True) + v(0, 0))
    a = Art(types=types, ir=module_op(ops=[first, op(2, operands=(0,))], n_values=1))
    got, log = read(a.bytes())
    assert _use_orders(log[0].op.results) == [[0]]


# ----------------------------------------------------------------------------- expansion and element budgets
# The budgets (reader.py's EXPANSION_BUDGET, serialization/reader.py's ATTR_ELEMENT_BUDGET and
# MAX_ATTR_SPLAT): values all uses may expand to, 2**18 plus 16 per artifact byte; tensor elements
# of non-constant attributes, 2**22 plus 1 per byte; a splat outside constants at most 2**16.
EXPANSION = (1 << 18, 16)
ELEMENTS = (1 << 22, 1)
SPLAT = 1 << 16
S_RETURN = len(STRINGS)


def _vhlo_art(attrs: list[tuple[int, list[tuple[bytes, bool]]]], ops: list[bytes], pad: int = 0,
              types: list[tuple[int, list[tuple[bytes, bool]]]] | None = None) -> Art:
    """builtin.module of vhlo.return_v1 ops (op name 1); a padding string of ``pad`` bytes."""
    return Art(
        strings=STRINGS + [b"return_v1", b"x" * pad],
        attrs=attrs,
        types=types if types is not None else [(D_VHLO, [(v(14), True)])],
        op_names=[(D_BUILTIN, [(S_MODULE, True)]), (D_VHLO, [(S_RETURN, True)])],
        ir=module_op(ops=ops),
    )


def _read_vhlo(data: bytes) -> tuple[str, int] | None:
    from stablehlo_py.serialization.mlirbc.ops import build_vhlo_op

    try:
        read_bytecode(data, "t.bc", build_vhlo_op)
    except BytecodeError as e:
        return e.message, e.offset
    return None


def _shared_arrays(k: int, j: int, n_ops: int, pad: int) -> tuple[Art, int, int]:
    """vhlo arrays sharing their elements: L = [], A = [L] * 60, B = [A] * 60, X = [B] * k + [L] * j,
    and ``n_ops`` ops with the attribute dictionary {foo = X}; (artifact, size of the dictionary
    expanded, offset of X)."""
    m = n = 60
    entries = [v(1, 0), v(1, m) + v(2) * m, v(1, n) + v(3) * n, v(1, k + j) + v(4) * k + v(2) * j]
    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)]),
        (D_VHLO, [(e, True) for e in entries]),
        (D_BUILTIN, [(dict_attr((1, 5)), True)]),
    ]
    size = 1 + 1 + (1 + k * (1 + n * (1 + m)) + j)  # the dictionary, its key, X
    a = _vhlo_art(attrs, [op(1, attr_dict=6)] * n_ops, pad)
    x_at = a.section_start(2) + 1 + 2 + sum(len(e) for e in entries[:3])
    return a, size, x_at


def _exact_expansion(n_ops: int) -> tuple[int, int, int]:
    """(k, j, pad) for which the ops' dictionaries expand to exactly the artifact's budget."""
    base, per_byte = EXPANSION
    for k in range(1, 200):
        for j in range(16):
            _, size, _ = _shared_arrays(k, j, n_ops, 0)
            total = size * n_ops
            if total <= base or (total - base) % per_byte:
                continue
            want = (total - base) // per_byte
            for pad in range(0, 400):
                a, _, _ = _shared_arrays(k, j, n_ops, pad)
                if len(a.bytes()) == want:
                    return k, j, pad
    raise AssertionError("no exact layout")


def test_expansion_budget_of_one_value_is_exact() -> None:
    k, j, pad = _exact_expansion(1)
    a, size, x_at = _shared_arrays(k, j, 1, pad)
    budget = EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    assert size == budget
    assert _read_vhlo(a.bytes()) is None
    assert read(a.bytes())[1][0].name == "vhlo.return_v1"
    a, size, x_at = _shared_arrays(k, j, 1, pad - 1)
    budget = EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    assert _read_vhlo(a.bytes()) == (
        f"attribute expands to more than {budget} values (sub-attributes shared exponentially); "
        "refusing to expand it",
        x_at,
    )


def test_expansion_budget_of_all_uses_is_exact() -> None:
    k, j, pad = _exact_expansion(2)
    a, size, _ = _shared_arrays(k, j, 2, pad)
    assert 2 * size == EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    assert _read_vhlo(a.bytes()) is None
    assert len(read(a.bytes())[1]) == 3
    a, size, _ = _shared_arrays(k, j, 2, pad - 1)
    budget = EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    second = ir_at(a, op(1, attr_dict=6), 1)
    want = (
        f"the attributes and types of the ops expand to more than {budget} values (shared "
        "sub-attributes count at each use); refusing to expand them",
        second + 3,
    )
    assert _read_vhlo(a.bytes()) == want
    assert refusal(a.bytes()) == want


def _shared_tuples() -> list[tuple[int, list[tuple[bytes, bool]]]]:
    """Types 0 i32, 1 tuple<i32 x 60>, 2 tuple<#1 x 60>, 3 tuple<#2 x 55>: 201356 values."""
    return [(D_BUILTIN, [(I32, True), (v(15, 60) + v(0) * 60, True), (v(15, 60) + v(1) * 60, True),
                         (v(15, 55) + v(2) * 55, True)])]


def test_result_and_argument_types_count_at_each_use() -> None:
    types = _shared_tuples()
    first = op(1, results=(3,))
    a = Art(types=types, ir=module_op(ops=[first, op(2, results=(0, 3))], n_values=3))
    budget = EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    msg = (f"the attributes and types of the ops expand to more than {budget} values (shared "
           "sub-attributes count at each use); refusing to expand them")
    assert refusal(a.bytes()) == (msg, ir_at(a, op(2, results=(0, 3))) + 5)
    assert read(Art(types=types, ir=module_op(ops=[first], n_values=1)).bytes())[1][0].op.results
    blk = block([], args=[(0, None), (3, None), (3, None)])
    a = Art(types=types, ir=op(0, props=0, regions=[region([blk], 3)]))
    budget = EXPANSION[0] + EXPANSION[1] * len(a.bytes())
    msg = (f"the attributes and types of the ops expand to more than {budget} values (shared "
           "sub-attributes count at each use); refusing to expand them")
    assert refusal(a.bytes()) == (msg, ir_at(a, blk) + 4)


def _tensor_type(dims: tuple[int, ...], elem: int) -> bytes:
    return v(20, len(dims)) + b"".join(v(2 * d) for d in dims) + v(elem)  # dims are zigzag


def _tensor_attr(t: int, blob: bytes) -> bytes:
    return v(15, t, len(blob)) + blob


def _elements_art(dims: tuple[int, ...], uses: int, extra: int | None = None) -> Art:
    """{foo = [S, S]} on ``uses`` ops, S a splat i64 tensor of shape ``dims``; then, with ``extra``,
    one op with {foo = [P, D], bar = D}, P a splat of ``extra`` elements, D = [1, 2]: extra + 4
    elements."""
    types = [(D_VHLO, [(v(14), True), (_tensor_type(dims, 0), True),
                       (_tensor_type((extra or 2,), 0), True), (_tensor_type((2,), 0), True)])]
    seven = (7).to_bytes(8, "little")
    one_two = (1).to_bytes(8, "little") + (2).to_bytes(8, "little")
    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True), (string_attr(S_BAR), True)]),
        (D_VHLO, [(_tensor_attr(1, seven), True), (v(1, 2, 3, 3), True), (_tensor_attr(2, seven), True),
                  (_tensor_attr(3, one_two), True), (v(1, 2, 5, 6), True)]),
        (D_BUILTIN, [(dict_attr((1, 4)), True), (dict_attr((1, 7), (2, 6)), True)]),
    ]
    ops = [op(1, attr_dict=8)] * uses + ([op(1, attr_dict=9)] if extra is not None else [])
    return _vhlo_art(attrs, ops, types=types)


def test_element_budget_is_exact() -> None:
    uses = ELEMENTS[0] // (2 * SPLAT)  # 32 ops with two splats of 2**16 each
    n = len(_elements_art((256, 256), uses, 700).bytes())
    a = _elements_art((256, 256), uses, n - 4)
    assert len(a.bytes()) == n
    assert _read_vhlo(a.bytes()) is None
    a = _elements_art((256, 256), uses, n - 3)
    limit = ELEMENTS[0] + ELEMENTS[1] * n
    assert _read_vhlo(a.bytes()) == (
        f"the attributes of the program describe more than {limit} tensor elements (an artifact "
        f"of {n} bytes); refusing to expand them",
        ir_at(a, op(1, attr_dict=9)),
    )


def test_splats_outside_constants_are_limited() -> None:
    assert _read_vhlo(_elements_art((256, 256), 1).bytes()) is None
    a = _elements_art((256, 257), 1)
    assert _read_vhlo(a.bytes()) == (
        "attribute 'foo' of vhlo.return_v1 holds a splat tensor standing for 65792 elements; "
        "outside constant values tensors are limited to 65536 elements stored as one",
        ir_at(a, op(1, attr_dict=8)),
    )


def test_a_large_tensor_that_is_not_a_splat() -> None:
    n = SPLAT + 1
    types = [(D_VHLO, [(v(0), True), (_tensor_type((n,), 0), True)])]
    blob = bytes((0x55,)) * ((n + 7) // 8)
    attrs = [
        (D_BUILTIN, [(UNKNOWN_LOC, True), (string_attr(S_FOO), True)]),
        (D_VHLO, [(_tensor_attr(1, blob), True), (v(1, 1, 2), True)]),
        (D_BUILTIN, [(dict_attr((1, 3)), True)]),
    ]
    a = _vhlo_art(attrs, [op(1, attr_dict=4)], types=types)
    assert _read_vhlo(a.bytes()) is None


# ----------------------------------------------------------------------------- value slots
# A region declares its values before they are read; every value takes at least one byte, so the
# regions being read at once may together declare at most as many values as the artifact has bytes.
FILL = 60  # ops (3 bytes each) in the innermost region, so that the regions have bytes to declare


def _chain(values: list[int]) -> Art:
    """module region declaring values[0], holding bar whose (non-isolated) region declares
    values[1], ... the innermost holding FILL foo ops."""
    inner = block([op(1)] * FILL)
    for n in reversed(values[1:]):
        inner = block([op(2, regions=[region([inner], n)], isolated=False)])
    return Art(ir=op(0, props=0, regions=[region([inner], values[0])]))


def _siblings(outer: int, first: int, second: int) -> Art:
    """module region declaring ``outer`` values, holding two bars whose regions declare ``first``
    and ``second`` values (the first region holds FILL foo ops)."""
    b1 = op(2, regions=[region([block([op(1)] * FILL)], first)], isolated=False)
    b2 = op(2, regions=[region([block([op(1)] * (2 * FILL))], second)], isolated=False)
    return Art(ir=op(0, props=0, regions=[region([block([b1, b2])], outer)]))


def _solve(build: Any, values: list[int]) -> int:
    """The last value count for which all of ``values`` add up to the artifact's size."""
    guess = values[-1]
    n = len(build(values[:-1] + [guess]).bytes())
    last = n - sum(values[:-1])
    assert len(build(values[:-1] + [last]).bytes()) == n
    return last


def test_value_slots_of_nested_regions() -> None:
    for depth_values in ([150, 200], [100, 20, 200]):
        last = _solve(_chain, depth_values)
        values = depth_values[:-1] + [last]
        a = _chain(values)
        assert sum(values) == len(a.bytes())
        assert read(a.bytes())[1][0].name == "builtin.foo"
        values[-1] += 1
        a = _chain(values)
        msg, at = refusal(a.bytes())
        assert msg == f"{values[-1]} values cannot be defined in the bytes left in the IR section"
        assert a.bytes()[at:].startswith(v(values[-1]) + vf(FILL, False))


def test_value_slots_are_released_after_a_region() -> None:
    # outer + second = size: fine, whatever the first region declared
    outer = 3 * 3 * FILL - 50  # the module's region has the bytes of both
    last = len(_siblings(outer, 100, 150).bytes()) - outer
    a = _siblings(outer, 100, last)
    assert outer + last == len(a.bytes()) and last + 1 < 3 * 2 * FILL
    assert read(a.bytes())[1][-1].name == "builtin.module"
    a = _siblings(outer, 2, last + 1)
    msg, _ = refusal(a.bytes())
    assert msg == f"{last + 1} values cannot be defined in the bytes left in the IR section"


def test_pair_encoded_orders_keep_the_unmoved_uses_after_the_last_moved_one() -> None:
    # %0 has 4 uses, the first two swapped: pairs (1, 0) (0, 1) say nothing of uses 2 and 3
    types = [(D_BUILTIN, [(I32, True)])]
    first = op(1, results=(0,), use_lists=vf(4, True) + v(1, 0, 0, 1))
    ops = [first, op(2, operands=(0, 0, 0)), op(2, operands=(0,))]
    a = Art(types=types, ir=module_op(ops=ops, n_values=1))
    got, log = read(a.bytes())
    assert _use_orders(log[0].op.results) == [[1, 0, 2, 3]]
    assert type(log[0].op.results[0].__dict__["_use_order"]) is list
    # and a block argument's, in a nested region
    blk = block([op(1, operands=(0,) * 5)], args=[(0, None)], arg_use_lists=vf(4, True) + v(2, 1, 1, 2))
    bar = op(2, regions=[region([blk], 1)])
    a = Art(types=types, ir=module_op(ops=[bar]))
    got, log = read(a.bytes())
    assert _use_orders(log[1].op.regions[0].blocks[0].args) == [[0, 2, 1, 3, 4]]
    # a block with arguments after the value
    later = op(2, regions=[region([block([op(1, operands=(0,))], args=[(0, None)])], 1)])
    a = Art(types=types, ir=module_op(ops=[first, later] + ops[1:], n_values=1))
    got, log = read(a.bytes())
    assert _use_orders(log[0].op.results) == [[1, 0, 2, 3]]
    # an unused value's order, and more listed than used (neither is MLIR's): left as read
    first = op(1, results=(0,), use_lists=vf(4, True) + v(1, 0, 0, 1))
    a = Art(types=types, ir=module_op(ops=[first, op(2)], n_values=1))
    assert _use_orders(read(a.bytes())[1][0].op.results) == [[1, 0]]
    first = op(1, results=(0,), use_lists=vf(4, True) + v(2, 1, 1, 2))
    a = Art(types=types, ir=module_op(ops=[first, op(2, operands=(0,))], n_values=1))
    assert _use_orders(read(a.bytes())[1][0].op.results) == [[0, 2, 1]]
