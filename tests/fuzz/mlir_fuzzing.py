"""Structure-aware mutation fuzzing of MLIR bytecode artifacts (shared by
tests/fuzz/test_mlir_fuzz.py and ``bench/fuzz_artifacts.py --format mlir``).

A seed artifact is first *analysed*: it is read once with the toolkit's own reader while every varint,
section header and blob it reads is logged (``Reader`` is instrumented for the duration), and its
length-prefixed ranges are listed: top-level and nested (lazy region) sections, the string sizes,
the attribute/type entry sizes of the offset section, the properties records and the blobs.  A
mutation is then an edit of the bytes followed by a fix-up of every length that encloses it
(cascading outwards), so that the damage reaches the decoder of the inner structure instead of
stopping at the first size check.  Mutations:

* byte level (``tests/fuzz/fuzzing.py``): truncation, bit flips, interesting bytes, insertions,
  deletions, splices of other seeds -- without fix-ups;
* the same inside one length-prefixed range (an attribute entry, a string, a properties record, a
  nested section...), with fix-ups;
* a varint replaced by another value (0, off by one, the low flag bit flipped, 2**k, 2**63,
  2**64 - 1, ...), canonically or in a longer (non-canonical) encoding: counts, sizes, kind codes,
  masks' neighbours, shapes, enum values, APInt words;
* references (attribute, type) pointed at themselves (self-referencing entries), at other entries
  of the wrong kind, at the end of the table and beyond;
* a length changed without fix-up (a section, an entry, a string, a record, a blob);
* top-level sections duplicated, dropped, swapped or renumbered; entries spliced from other seeds;
* generated artifacts with deep nesting (attributes, locations, regions) and exponentially shared
  attributes ("billion laughs") -- see :func:`deep_artifacts`.

The oracle is the one of ``tests/fuzz/fuzzing.py``: any exception that is not a StableHLOError is a
finding; so is a StableHLOError that only wraps an internal crash (``... (MemoryError: ...)``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stablehlo_py.serialization.mlirbc.encoding import (
    MAGIC,
    Emitter,
    Reader,
    string_section,
    varint_bytes,
)
from tests.fuzz.fuzzing import FuzzResult, OutOfTime, cpu_budget

__all__ = [
    "Image",
    "Layout",
    "analyse",
    "artifact",
    "deep_artifacts",
    "mutate",
    "wrapped_crash",
]

_U64 = (1 << 64) - 1


# =============================================================================================
# Analysis


@dataclass
class Var:
    """A varint the reader read: position, encoded size, value; ``ref`` is ('attr'|'type', index,
    shift) when it was used as a reference (shift 1: the low bit is a flag)."""

    pos: int
    size: int
    value: int
    ref: tuple[str, int, int] | None = None
    owner: tuple[str, int] | None = None  # the attribute/type entry the varint is part of


@dataclass
class Field:
    """A length prefix: the varint at [vpos, vpos + vsize) holds ``len(range) << shift | flag``."""

    vpos: int
    vsize: int
    start: int
    end: int
    kind: str
    shift: int = 0
    flag: int = 0

    def value(self) -> int:
        return (self.end - self.start) << self.shift | self.flag


@dataclass
class Layout:
    data: bytes
    version: int
    varints: list[Var]
    fields: list[Field]
    sections: list[tuple[int, int, int]]  # (section id, header start, end) of top-level sections
    attr_entries: list[tuple[int, int]]
    type_entries: list[tuple[int, int]]
    n_strings: int = 0
    var_pos: Any = None
    var_size: Any = None
    refs: list[int] = field(default_factory=list)
    entry_fields: list[int] = field(default_factory=list)
    _arrays: Any = None

    def arrays(self) -> tuple[Any, ...]:
        """(varint position, varint size, start, end, shift, flag) of the fields, as arrays."""
        if self._arrays is None:
            cols = list(
                zip(*((f.vpos, f.vsize, f.start, f.end, f.shift, f.flag) for f in self.fields))
            )
            self._arrays = tuple(np.array(c, dtype=np.int64) for c in cols)
        return self._arrays

    def entry_at(self, pos: int) -> tuple[str, int] | None:
        for kind, table in (("attr", self.attr_entries), ("type", self.type_entries)):
            for i, (s, e) in enumerate(table):
                if s <= pos < e:
                    return kind, i
        return None


def _instrumented_read(
    data: bytes,
) -> tuple[list[Var], list[tuple[int, int, int]], list[tuple[int, int]]]:
    """Read ``data`` with the toolkit's reader, logging varints, section headers and blobs."""
    from stablehlo_py.serialization.mlirbc import read_vhlo
    from stablehlo_py.serialization.mlirbc import reader as rmod

    varints: dict[int, Var] = {}
    last: list[Var | None] = [None]
    headers: list[tuple[int, int, int]] = []
    blobs: list[tuple[int, int]] = []
    orig_varint = Reader.varint
    orig_header = Reader.section_header
    orig_bytes = Reader.bytes
    orig_attr = rmod._Reader.attr
    orig_type = rmod._Reader.type

    def varint(self: Reader) -> int:
        pos = self.pos
        v = orig_varint(self)
        var = varints.get(pos)
        if var is None:
            var = varints[pos] = Var(pos, self.pos - pos, v)
        last[0] = var
        return v

    def section_header(self: Reader) -> tuple[int, int, int]:
        start = self.pos
        got = orig_header(self)
        headers.append((start, got[1], got[2]))
        return got

    def bytes_(self: Reader, n: int) -> bytes:
        var = last[0]
        if var is not None and var.pos + var.size == self.pos and var.value == n:
            blobs.append((var.pos, self.pos))
        return orig_bytes(self, n)

    def tag(kind: str, idx: int) -> None:
        var = last[0]
        if var is None or var.ref is not None:
            return
        if var.value == idx:
            var.ref = (kind, idx, 0)
        elif var.value >> 1 == idx:
            var.ref = (kind, idx, 1)

    def attr(self: Any, idx: int) -> Any:
        tag("attr", idx)
        return orig_attr(self, idx)

    def type_(self: Any, idx: int) -> Any:
        tag("type", idx)
        return orig_type(self, idx)

    Reader.varint = varint  # type: ignore[method-assign]
    Reader.section_header = section_header  # type: ignore[method-assign]
    Reader.bytes = bytes_  # type: ignore[method-assign]
    rmod._Reader.attr = attr  # type: ignore[method-assign]
    rmod._Reader.type = type_  # type: ignore[method-assign]
    try:
        read_vhlo(data)
    finally:
        Reader.varint = orig_varint  # type: ignore[method-assign]
        Reader.section_header = orig_header  # type: ignore[method-assign]
        Reader.bytes = orig_bytes  # type: ignore[method-assign]
        rmod._Reader.attr = orig_attr  # type: ignore[method-assign]
        rmod._Reader.type = orig_type  # type: ignore[method-assign]
    return sorted(varints.values(), key=lambda v: v.pos), headers, blobs


def analyse(data: bytes) -> Layout:
    """The layout of a valid MLIR bytecode artifact (see the module docstring)."""
    varints, headers, blobs = _instrumented_read(data)
    r = Reader(data, 4)
    version = r.varint()
    r.cstring()
    fields: list[Field] = []
    sections: list[tuple[int, int, int]] = []
    seen: set[int] = set()
    top: dict[int, tuple[int, int]] = {}
    while not r.at_end():
        start = r.pos
        sid, body, end = r.section_header()
        sections.append((sid, start, end))
        top[sid] = (body, end)
    for start, body, end in headers:
        if start in seen:
            continue
        seen.add(start)
        lr = Reader(data, start + 1)
        lr.varint()
        fields.append(Field(start + 1, lr.pos - start - 1, body, end, "section"))
    for vpos, bstart in blobs:
        size = Reader(data, vpos).varint()
        fields.append(Field(vpos, bstart - vpos, bstart, bstart + size, "blob"))
    # strings: count, sizes in reverse order, then the strings
    body, end = top[0]
    sr = Reader(data, body, end)
    n = sr.varint()
    sizes = []
    for _ in range(n):
        p = sr.pos
        sizes.append((p, sr.varint()))
    pos = sr.pos
    for p, s in reversed(sizes):
        fields.append(Field(p, _var_size(data, p), pos, pos + s, "string"))
        pos += s
    # attribute/type entry sizes (in section 3) over ranges of section 2
    attr_entries: list[tuple[int, int]] = []
    type_entries: list[tuple[int, int]] = []
    body, end = top[3]
    dpos = top[2][0]
    ar = Reader(data, body, end)
    counts = (ar.varint(), ar.varint())
    for count, table in zip(counts, (attr_entries, type_entries)):
        while len(table) < count:
            ar.varint()
            k = ar.varint()
            for _ in range(k):
                p = ar.pos
                size, custom = ar.varint_flag()
                fields.append(Field(p, ar.pos - p, dpos, dpos + size, "entry", 1, int(custom)))
                table.append((dpos, dpos + size))
                dpos += size
    # properties records
    if 8 in top:
        body, end = top[8]
        pr = Reader(data, body, end)
        for _ in range(pr.varint()):
            p = pr.pos
            size = pr.varint()
            fields.append(Field(p, pr.pos - p, pr.pos, pr.pos + size, "record"))
            pr.pos += size
    lay = Layout(data, version, varints, fields, sections, attr_entries, type_entries, n)
    for var in varints:
        var.owner = lay.entry_at(var.pos)
    lay.refs = [i for i, v in enumerate(varints) if v.ref is not None]
    lay.entry_fields = [i for i, f in enumerate(fields) if f.kind == "entry"]
    lay.var_pos = np.array([v.pos for v in varints], dtype=np.int64)
    lay.var_size = np.array([v.size for v in varints], dtype=np.int64)
    return lay


def _var_size(data: bytes, pos: int) -> int:
    first = data[pos]
    if first == 0:
        return 9
    return (first & -first).bit_length()


# =============================================================================================
# Editing with length fix-ups


class Image:
    """A mutable copy of an analysed artifact whose edits keep enclosing lengths consistent.

    Positions are numpy arrays (one edit updates them all at once): for each length field its
    varint's position and size and its range; for each varint of the layout its position and
    whether it is still intact (``vlive``)."""

    def __init__(self, layout: Layout):
        self.lay = layout
        self.buf = bytearray(layout.data)
        fa = layout.arrays()
        self.fv, self.fs, self.st, self.en = (x.copy() for x in fa[:4])
        self.shift, self.flag = fa[4], fa[5]
        self.flive = np.ones(len(self.fv), dtype=bool)
        self.vp = layout.var_pos.copy()
        self.vlive = np.ones(len(self.vp), dtype=bool)

    def replace(self, p: int, q: int, new: bytes, fix: bool = True) -> None:
        """Replace ``buf[p:q]`` by ``new``; with ``fix``, re-encode every length whose range
        contains the edit (and so on outwards).  An insertion at position x belongs to the range
        that starts at x."""
        n = len(new)
        d = n - (q - p)
        ins = p == q
        self.buf[p:q] = new
        fv, st, en = self.fv, self.st, self.en
        vend = fv + self.fs
        self.flive &= ~(((fv < p) & (p < vend)) if ins else ((fv < q) & (p < vend)))
        inside = (st <= p) & (q <= en)
        if ins:
            inside &= ~((en == p) & (st < en))
        self.fv = _move(fv, p, q, d, n, False, False)
        self.st = _move(st, p, q, d, n, True, False)
        self.en = _move(en, p, q, d, n, ~inside, inside)
        vp = self.vp
        vend = vp + self.lay.var_size
        self.vlive &= ~(((vp < p) & (p < vend)) if ins else ((vp < q) & (p < vend)))
        self.vp = _move(vp, p, q, d, n, False, False)
        if not fix or not d:
            return
        for i in np.nonzero(inside & self.flive)[0].tolist():
            if not self.flive[i]:
                continue
            value = (int(self.en[i] - self.st[i]) << int(self.shift[i])) | int(self.flag[i])
            enc = varint_bytes(value & _U64)
            at, size = int(self.fv[i]), int(self.fs[i])
            if enc != self.buf[at : at + size]:
                self.replace(at, at + size, enc)
                self.fs[i] = len(enc)
                self.flive[i] = True

    def live_fields(self) -> list[int]:
        return np.nonzero(self.flive)[0].tolist()

    def bytes(self) -> bytes:
        return bytes(self.buf)


def _move(x: Any, p: int, q: int, d: int, n: int, stay_on_insert: Any, inside_end: Any) -> Any:
    """Where positions ``x`` go when [p, q) is replaced by ``n`` bytes (``d`` = n - (q - p))."""
    if p == q:
        return np.where((x > p) | ((x == p) & ~np.asarray(stay_on_insert)), x + d, x)
    return np.where(x < p, x, np.where(x >= q, x + d, np.where(inside_end, p + n, p)))


# =============================================================================================
# Mutations

INTERESTING_VALUES = [
    0,
    1,
    2,
    3,
    5,
    7,
    8,
    31,
    63,
    64,
    127,
    128,
    255,
    256,
    1 << 14,
    (1 << 16) - 1,
    1 << 20,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    (1 << 62),
    (1 << 63) - 1,
    1 << 63,
    _U64 - 1,
    _U64,
]


def encode_varint(value: int, rng: random.Random | None = None) -> bytes:
    """PrefixVarInt of ``value`` (< 2**64), sometimes in a longer, non-canonical form."""
    value &= _U64
    enc = varint_bytes(value)
    if rng is None or rng.random() >= 0.15 or len(enc) >= 9:
        return enc
    n = rng.randint(len(enc) + 1, 9)
    if n == 9:
        return b"\x00" + value.to_bytes(8, "little")
    return (((value << 1) | 1) << (n - 1)).to_bytes(n, "little")


def _new_value(rng: random.Random, v: int) -> int:
    k = rng.randrange(8)
    if k == 0:
        return rng.choice(INTERESTING_VALUES)
    if k == 1:
        return max(0, v + rng.choice((-2, -1, 1, 2)))
    if k == 2:
        return v ^ 1
    if k == 3:
        return v ^ (1 << rng.randrange(64))
    if k == 4:
        return v * rng.choice((2, 3, 16, 1 << 20)) & _U64
    if k == 5:
        return rng.randrange(256)
    if k == 6:
        return rng.getrandbits(rng.choice((8, 16, 32, 64)))
    return 0 if v else 1


def _mutate_varint(rng: random.Random, img: Image) -> None:
    live = np.nonzero(img.vlive)[0]
    if len(live):
        i = int(live[rng.randrange(len(live))])
        at, size = int(img.vp[i]), int(img.lay.var_size[i])
        img.replace(at, at + size, encode_varint(_new_value(rng, img.lay.varints[i].value), rng))


def _mutate_ref(rng: random.Random, img: Image) -> None:
    lay = img.lay
    refs = [i for i in lay.refs if img.vlive[i]]
    if not refs:
        _mutate_varint(rng, img)
        return
    i = rng.choice(refs)
    var = lay.varints[i]
    kind, _, shift = var.ref  # type: ignore[misc]
    table = lay.attr_entries if kind == "attr" else lay.type_entries
    other = lay.type_entries if kind == "attr" else lay.attr_entries
    k = rng.randrange(7)
    owner = var.owner
    if k <= 1 and owner is not None:
        # the entry itself (a self-reference), or for a reference of the other kind any entry
        new = owner[1] if owner[0] == kind else rng.randrange(max(1, len(table)))
    elif k == 2:
        new = len(table)
    elif k == 3:
        new = len(table) + rng.choice((1, 2, 100, 1 << 20, 1 << 40, (1 << 63) - len(table)))
    elif k == 4 and other:
        new = rng.randrange(len(other))  # an index of the other table (kind confusion)
    elif k == 5 and owner is not None and owner[0] == kind and owner[1] + 1 < len(table):
        new = rng.randrange(owner[1] + 1, len(table))  # a later entry (a forward reference)
    else:
        new = rng.randrange(max(1, len(table)))
    low = var.value & 1 if shift else 0
    value = ((new << shift) | low) & _U64
    at = int(img.vp[i])
    img.replace(at, at + var.size, encode_varint(value, rng))


def _mutate_length(rng: random.Random, img: Image) -> None:
    live = img.live_fields()
    if not live:
        return
    i = rng.choice(live)
    v = (int(img.en[i] - img.st[i]) << int(img.shift[i])) | int(img.flag[i])
    new = rng.choice(
        (
            max(0, v - 1),
            v + 1,
            max(0, v - 2),
            v + 2,
            0,
            v << 1,
            v >> 1,
            v ^ 1,
            rng.choice(INTERESTING_VALUES),
        )
    )
    at = int(img.fv[i])
    img.replace(at, at + int(img.fs[i]), encode_varint(new, rng))


def _mutate_in_range(rng: random.Random, img: Image, seeds: Sequence[bytes]) -> None:
    """A byte-level edit inside one length-prefixed range, lengths fixed up."""
    from tests.fuzz import fuzzing

    i = rng.randrange(len(img.st))
    s, e = int(img.st[i]), int(img.en[i])
    if e < s:
        return
    part = bytes(img.buf[s:e])
    kind = rng.randrange(5)
    if kind == 0 or not part:  # insert
        at = s + rng.randrange(len(part) + 1)
        img.replace(at, at, bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))))
    elif kind == 1:  # delete
        at = s + rng.randrange(len(part))
        img.replace(at, min(e, at + rng.randint(1, 4)), b"")
    elif kind == 2:  # truncate the range
        img.replace(s + rng.randrange(len(part)), e, b"")
    elif kind == 3:  # one byte changed in place
        at = s + rng.randrange(len(part))
        b = rng.choice((rng.randrange(256), part[at - s] ^ 1, part[at - s] ^ 0x80, 0, 0xFF))
        img.replace(at, at + 1, bytes((b,)))
    else:
        img.replace(s, e, fuzzing._byte_mutation(rng, part, seeds))


def _splice_entry(rng: random.Random, img: Image, layouts: Sequence[Layout]) -> None:
    """Replace an attribute/type entry by an entry of another (or the same) seed."""
    other = rng.choice(layouts)
    mine = img.lay.entry_fields
    theirs = other.attr_entries + other.type_entries
    if not mine or not theirs:
        return
    i = rng.choice(mine)
    s2, e2 = rng.choice(theirs)
    img.replace(int(img.st[i]), int(img.en[i]), other.data[s2:e2])


def top_sections(data: bytes) -> tuple[int, list[tuple[int, int]]]:
    """(where the sections start, [(header start, end)...]) of a (possibly damaged) artifact."""
    r = Reader(data, 4)
    r.varint()
    r.cstring()
    start = r.pos
    out = []
    while not r.at_end():
        s = r.pos
        r.section_header()
        out.append((s, r.pos))
    return start, out


def _mutate_sections(rng: random.Random, data: bytes) -> bytes:
    start, secs = top_sections(data)
    if not secs:
        return data
    parts = [data[s:e] for s, e in secs]
    k = rng.randrange(5)
    i = rng.randrange(len(parts))
    if k == 0:  # duplicate
        parts.insert(rng.randrange(len(parts) + 1), parts[i])
    elif k == 1:  # drop
        del parts[i]
    elif k == 2:  # swap
        j = rng.randrange(len(parts))
        parts[i], parts[j] = parts[j], parts[i]
    elif k == 3:  # renumber (keeping or flipping the alignment bit)
        p = bytearray(parts[i])
        p[0] = rng.choice((rng.randrange(10), rng.randrange(256), p[0] ^ 0x80))
        parts[i] = bytes(p)
    else:  # an aligned header: alignment varint and padding
        p = parts[i]
        sid = p[0] & 0x7F
        r = Reader(p, 1)
        length = r.varint()
        if p[0] & 0x80:
            r.varint()
        body = p[r.pos :]
        align = rng.choice((1, 2, 4, 8, 16, 3, 0, 1 << 30))
        hdr = bytes((sid | 0x80,)) + varint_bytes(length) + varint_bytes(align)
        off = start + sum(len(x) for x in parts[:i]) + len(hdr)
        pad = (-off) % align if align and not align & (align - 1) and align < 64 else 0
        pad += rng.choice((0, 0, 0, 1))
        fill = 0xCB if rng.random() < 0.9 else 0
        parts[i] = hdr + bytes((fill,)) * pad + body
    return data[:start] + b"".join(parts)


def mutate(rng: random.Random, seeds: Sequence[bytes], layouts: Sequence[Layout]) -> bytes:
    """One mutated artifact: one to three edits of one seed, with lengths fixed up; sometimes a
    section-level or a plain byte-level mutation on top."""
    from tests.fuzz import fuzzing

    i = rng.randrange(len(seeds))
    lay = layouts[i]
    if rng.random() < 0.15:
        return fuzzing._byte_mutation(rng, seeds[i], seeds)
    img = Image(lay)
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        r = rng.random()
        if r < 0.3:
            _mutate_varint(rng, img)
        elif r < 0.5:
            _mutate_ref(rng, img)
        elif r < 0.62:
            _mutate_length(rng, img)
        elif r < 0.9:
            _mutate_in_range(rng, img, seeds)
        else:
            _splice_entry(rng, img, layouts)
    data = img.bytes()
    r = rng.random()
    try:
        if r < 0.08:
            data = _mutate_sections(rng, data)
        elif r < 0.15:
            data = fuzzing._byte_mutation(rng, data, seeds)
    except Exception:  # noqa: BLE001 - the edits broke the section structure: bytes only
        data = fuzzing._byte_mutation(rng, data, seeds)
    return data


def wrapped_crash(message: str) -> bool:
    """A StableHLOError that only wraps an internal error of another kind (a finding too)."""
    return any(
        f"({name}" in message
        for name in (
            "MemoryError",
            "RecursionError",
            "IndexError",
            "KeyError",
            "ValueError",
            "TypeError",
            "AssertionError",
            "AttributeError",
            "OverflowError",
            "UnicodeError",
            "UnicodeEncodeError",
            "UnicodeDecodeError",
            "ZeroDivisionError",
            "VerifyException",
        )
    )


@dataclass
class MlirFuzzResult(FuzzResult):
    slowest: float = 0.0


def default_readers() -> list[tuple[Callable[[bytes], object], int]]:
    """The public entry points, each with how often it reads a case (every n-th case):
    ``deserialize_portable_artifact`` every case, ``get_portable_artifact_version`` every case,
    ``check_compat`` (current and 0.9.0 consumers) every 8th."""
    from stablehlo_py.serialization import (
        check_compat,
        deserialize_portable_artifact,
        get_portable_artifact_version,
    )

    return [
        (deserialize_portable_artifact, 1),
        (get_portable_artifact_version, 1),
        (lambda d: check_compat(d, "current"), 8),
        (lambda d: check_compat(d, "0.9.0"), 8),
    ]


def check_one(
    read: Callable[[bytes], object], data: bytes, result: MlirFuzzResult, keep_messages: bool
) -> bool:
    """Read one artifact and judge the outcome (True: accepted)."""
    import traceback

    from stablehlo_py.errors import StableHLOError

    try:
        read(data)
        return True
    except StableHLOError as e:
        if wrapped_crash(e.message):
            result.findings.append((data, f"wrapped: {e.message[:300]}"))
        elif getattr(e, "offset", None) is None and "decodes, but" not in e.message:
            pass  # header-level refusals (version, format) carry no offset: fine
        if keep_messages:
            key = e.message.split(":")[0][:60]
            result.messages[key] = result.messages.get(key, 0) + 1
        return False
    except RecursionError as e:
        result.findings.append((data, f"RecursionError: {str(e)[:200]}"))
    except Exception as e:  # noqa: BLE001 - the finding
        tb = traceback.extract_tb(e.__traceback__)[-1]
        result.findings.append(
            (data, f"{type(e).__name__}: {str(e)[:300]} at {tb.filename}:{tb.lineno}")
        )
    return False


def run(
    seeds: Sequence[bytes],
    cases: int,
    seed: int = 0,
    keep_messages: bool = False,
    memory_limit: int | None = 6 << 30,
    slow: float = 5.0,
    timeout: float | None = 60.0,
    extra: Sequence[bytes] = (),
    readers: Sequence[tuple[Callable[[bytes], object], int]] | None = None,
) -> MlirFuzzResult:
    """Like ``tests.fuzz.fuzzing.run`` for MLIR bytecode: ``cases`` mutated artifacts (plus
    ``extra`` ones given as is) through ``readers`` (default :func:`default_readers`); each must be read or
    refused with a StableHLOError.  A case taking more than ``slow`` seconds of CPU time is a
    finding, and one still running after ``timeout`` CPU seconds is interrupted and reported as a
    hang."""
    import time

    from tests.fuzz.fuzzing import _memory_limit

    rng = random.Random(seed)
    layouts = layouts_of(seeds)
    readers = default_readers() if readers is None else readers
    result = MlirFuzzResult()
    with _memory_limit(memory_limit):
        for n in range(cases + len(extra)):
            data = extra[n - cases] if n >= cases else mutate(rng, seeds, layouts)
            result.cases += 1
            t0 = time.process_time()
            ok = True
            try:
                with cpu_budget(timeout):
                    for i, (read, every) in enumerate(readers):
                        if n % every == 0:
                            got = check_one(read, data, result, keep_messages and i == 0)
                            if i == 0:
                                ok = got
            except OutOfTime:
                result.findings.append((data, f"hang: still reading after {timeout} CPU seconds"))
                ok = False
            if ok:
                result.accepted += 1
            else:
                result.refused += 1
            dt = time.process_time() - t0
            result.slowest = max(result.slowest, dt)
            if dt > slow:
                result.findings.append((data, f"slow: {dt:.1f} s"))
    return result


def layouts_of(seeds: Sequence[bytes]) -> list[Layout]:
    """The layout of each seed (a seed given twice is analysed once)."""
    done: dict[bytes, Layout] = {}
    return [done[s] if s in done else done.setdefault(s, analyse(s)) for s in seeds]


# =============================================================================================
# Building artifacts by hand (deep nesting, shared attributes, targeted structural cases)


def _string_refs(out: Emitter, refs: Sequence[int], flagged: bool, flag: bool) -> None:
    """String-section indices, each with ``flag`` in its low bit where the version has the bit."""
    for s in refs:
        if flagged:
            out.varint_flag(s, flag)
        else:
            out.varint(s)


def artifact(
    *,
    version: int = 6,
    producer: bytes = b"StableHLO_v1.0.0",
    strings: Sequence[bytes] = (),
    dialects: Sequence[int] = (),
    op_names: Sequence[tuple[int, Sequence[int]]] = (),
    attrs: Sequence[tuple[int, bytes]] = (),
    types: Sequence[tuple[int, bytes]] = (),
    ir: bytes = b"",
    props: Sequence[bytes] | None = None,
    extra_sections: Sequence[tuple[int, bytes]] = (),
) -> bytes:
    """MLIR bytecode from its parts: ``dialects`` are string indices; ``op_names`` are (dialect
    index, [string index...]) groups; attribute/type entries are (dialect index, custom encoding)."""
    out = Emitter()
    out.raw(MAGIC)
    out.varint(version)
    out.cstring(producer)
    d = Emitter()
    d.varint(len(dialects))
    _string_refs(d, dialects, version >= 1, False)
    if version >= 4:
        d.varint(sum(len(n) for _, n in op_names))
    for di, names in op_names:
        d.varint(di)
        d.varint(len(names))
        _string_refs(d, names, version >= 5, True)
    out.section(1, d.buf)
    off = Emitter()
    data = Emitter()
    off.varint(len(attrs))
    off.varint(len(types))
    for table in (attrs, types):
        for di, enc in table:  # one group per entry: simple and valid
            off.varint(di)
            off.varint(1)
            off.varint_flag(len(enc), True)
            data.raw(enc)
    out.section(3, off.buf)
    out.section(2, data.buf)
    out.section(4, ir)
    out.section(6, b"\x01")
    out.section(5, b"")
    out.section(0, string_section(list(strings)))
    if props is None and version >= 5:
        props = [b"\x01\x01"]
    if props is not None:
        p = Emitter()
        p.varint(len(props))
        for rec in props:
            p.varint(len(rec))
            p.raw(rec)
        out.section(8, p.buf)
    for sid, body in extra_sections:
        out.section(sid, body)
    return bytes(out.buf)


def _v(*values: int) -> bytes:
    return b"".join(varint_bytes(v) for v in values)


# The strings and dialects every hand-built artifact below uses.
_STRINGS = [b"builtin", b"vhlo", b"module", b"a", b"f.py", b"func_v1", b"return_v1"]
_BUILTIN, _VHLO = 0, 1


def module_artifact(
    attrs: Sequence[tuple[int, bytes]],
    loc: int,
    module_attr_dict: int | None = None,
    body_ops: bytes = b"",
    n_body_ops: int = 0,
    types: Sequence[tuple[int, bytes]] = (),
    version: int = 6,
    op_names: Sequence[tuple[int, Sequence[int]]] = ((0, (2,)),),
    props: Sequence[bytes] | None = None,
    n_values: int = 0,
) -> bytes:
    """An artifact whose IR is one ``builtin.module`` (location ``loc``, optional discardable
    attribute dictionary) holding ``body_ops`` (``n_body_ops`` ops of ``op_names``)."""
    mask = 0x10 | (0x01 if module_attr_dict is not None else 0) | (0x40 if version >= 5 else 0)
    op = _v(0) + bytes((mask,)) + _v(loc)
    if module_attr_dict is not None:
        op += _v(module_attr_dict)
    if version >= 5:
        op += _v(0)
    body = _v(1) + (_v(n_values) + _v(n_body_ops << 1) + body_ops)
    if version >= 2:
        op += _v(1 << 1 | 1) + bytes((4,)) + _v(len(body)) + body
    else:
        op += _v(1 << 1 | 1) + body
    ir = _v(1 << 1) + op
    return artifact(
        version=version,
        strings=_STRINGS,
        dialects=(0, 1),
        op_names=op_names,
        attrs=attrs,
        types=types,
        ir=ir,
        props=props,
    )


def deep_artifacts(depth: int = 3000) -> list[tuple[str, bytes]]:
    """Artifacts that nest deeply or share exponentially (what each is, the bytes)."""
    out: list[tuple[str, bytes]] = []
    unknown = (_BUILTIN, _v(15))
    name = (_BUILTIN, _v(2, 3))  # StringAttr "a"
    # NameLoc chain: attr 0 unknown, 1 "a", then each NameLoc("a", previous)
    chain = [unknown, name] + [(_BUILTIN, _v(14, 1, i + 1 if i else 0)) for i in range(depth)]
    out.append(("deep NameLoc chain", module_artifact(chain, loc=len(chain) - 1)))
    # the same chain referring forwards (the head first)
    n = depth
    fwd = [(_BUILTIN, _v(14, n + 1, i + 1)) for i in range(n)] + [(_BUILTIN, _v(15)), name]
    fwd[n - 1] = (_BUILTIN, _v(14, n + 1, n))
    out.append(("deep forward NameLoc chain", module_artifact(fwd, loc=0)))
    # nested arrays as a module attribute: {a = [[[...]]]}
    arrays = [unknown, name, (_BUILTIN, _v(0, 0))] + [
        (_BUILTIN, _v(0, 1, i + 2)) for i in range(depth)
    ]
    dict_idx = len(arrays)
    arrays.append((_BUILTIN, _v(1, 1, 1, dict_idx - 1)))
    out.append(("deep nested arrays", module_artifact(arrays, loc=0, module_attr_dict=dict_idx)))
    # billion laughs: arr_k = [arr_{k-1}, arr_{k-1}], 64 levels
    laughs = [unknown, name, (_BUILTIN, _v(0, 0))] + [
        (_BUILTIN, _v(0, 2, i + 2, i + 2)) for i in range(64)
    ]
    dict_idx = len(laughs)
    laughs.append((_BUILTIN, _v(1, 1, 1, dict_idx - 1)))
    out.append(("shared arrays (2**64)", module_artifact(laughs, loc=0, module_attr_dict=dict_idx)))
    # location laughs: fused[l, l] 64 levels
    locs = [unknown, name, (_BUILTIN, _v(11, 1, 1, 1))] + [
        (_BUILTIN, _v(12, 2, i + 2, i + 2)) for i in range(64)
    ]
    out.append(("shared locations (2**64)", module_artifact(locs, loc=len(locs) - 1)))
    # call-site laughs
    cs = [unknown, name, (_BUILTIN, _v(11, 1, 1, 1))] + [
        (_BUILTIN, _v(10, i + 2, i + 2)) for i in range(64)
    ]
    out.append(("shared callsite locations (2**64)", module_artifact(cs, loc=len(cs) - 1)))
    # nested builtin modules: regions nesting ``depth`` deep
    for version in (6, 1):
        op = b""
        for _ in range(depth):
            mask = 0x10 | (0x40 if version >= 5 else 0)
            head = _v(0) + bytes((mask,)) + _v(0) + (_v(0) if version >= 5 else b"")
            body = _v(1) + _v(0) + _v((1 if op else 0) << 1) + op
            if version >= 2:
                op = head + _v(3) + bytes((4,)) + _v(len(body)) + body
            else:
                op = head + _v(3) + body
        out.append(
            (
                f"deep nested modules (v{version})",
                artifact(
                    version=version,
                    producer=b"StableHLO_v1.0.0" if version >= 5 else b"StableHLO_v0.10.0",
                    strings=_STRINGS,
                    dialects=(0, 1),
                    op_names=((0, (2,)),),
                    attrs=[unknown],
                    ir=_v(1 << 1) + op,
                ),
            )
        )
    return out


def func_artifact(
    extra_attrs: Sequence[tuple[int, bytes]],
    attr_dict: int | None = None,
    extra_types: Sequence[tuple[int, bytes]] = (),
    props: Sequence[int] | None = None,
) -> bytes:
    """A module holding ``vhlo.func_v1 @main() { vhlo.return_v1 }`` (bytecode version 6, 1.0.0).

    Attributes 0-6 are fixed (0 unknown location, 1 StringAttr "a", 2 ``#vhlo.array_v1<[]>``,
    3 ``#vhlo.string_v1<"main">``, 4 ``#vhlo.string_v1<"">``, 5 ``#vhlo.type_v1<type 0>``, 6 the
    builtin dictionary ``{a = attribute 2}``); ``extra_attrs`` follow from index 7.  Type 0 is
    ``!vhlo.func_v1<() -> ()>``; ``extra_types`` follow.  The func's discardable attributes are
    the dictionary ``attr_dict`` (an attribute index; none by default), its properties ``props``
    (arg_attrs, function_type, res_attrs, sym_name, sym_visibility; default 2, 5, 2, 3, 4)."""
    strings = [*_STRINGS, b"main", b""]
    attrs = [
        (_BUILTIN, _v(15)),
        (_BUILTIN, _v(2, 3)),
        (_VHLO, _v(1, 0)),
        (_VHLO, _v(14, 7)),
        (_VHLO, _v(14, 8)),
        (_VHLO, _v(17, 0)),
        (_BUILTIN, _v(1, 1, 1, 2)),
        *extra_attrs,
    ]
    types = [(_VHLO, _v(8, 0, 0)), *extra_types]
    ret = _v(2) + b"\x00" + _v(0)
    body = _v(1, 0, 1 << 1) + ret
    mask = 0x50 | (0x01 if attr_dict is not None else 0)
    func = _v(1) + bytes((mask,)) + _v(0)
    if attr_dict is not None:
        func += _v(attr_dict)
    func += _v(1, 3) + b"\x04" + _v(len(body)) + body
    mbody = _v(1, 0, 1 << 1) + func
    module = _v(0) + b"\x50" + _v(0, 0, 3) + b"\x04" + _v(len(mbody)) + mbody
    return artifact(
        strings=strings,
        dialects=(0, 1),
        op_names=((0, (2,)), (1, (5, 6))),
        attrs=attrs,
        types=types,
        ir=_v(1 << 1) + module,
        props=[b"\x01\x01", _v(*(props if props is not None else (2, 5, 2, 3, 4)))],
    )


def shared_vhlo_arrays(levels: int = 64) -> bytes:
    """``vhlo.func_v1`` with a discardable attribute ``a = A_levels`` where ``A_0 = []`` and
    ``A_k = [A_{k-1}, A_{k-1}]``: 2**levels arrays once expanded ("billion laughs")."""
    extra = [(_VHLO, _v(1, 2, 7 + i - 1 if i else 2, 7 + i - 1 if i else 2)) for i in range(levels)]
    top = 7 + levels - 1
    extra.append((_BUILTIN, _v(1, 1, 1, top)))
    return func_artifact(extra, attr_dict=7 + levels)
