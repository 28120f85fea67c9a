"""Read a portable artifact back into a VHLO module (see ``format.py`` for the layout).

Robustness: the input may be truncated, corrupted or not an artifact at all.  Every declared size is
checked before anything is allocated -- msgpack's unpacker is given limits equal to the bytes that
remain, so a declared string, byte, array or map length larger than the data is refused before it
is allocated; the header's body size is compared with the data; references are range-checked --
and every value is checked for its wire type before use.  Nothing is ever evaluated (no pickle, no
eval, no msgpack extension types).  Any problem raises :class:`SerializationError` with the byte
offset of the offending record (found, on the error path only, by ``locate.py``).

Version handling: the header's producer version P is the StableHLO version the artifact was written
for.  Every op, type and attribute must be legal at P.  An artifact for a version newer than this
toolkit's current version is refused with the versions involved and the op/type/attribute codes this
toolkit does not know.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, NoReturn

import msgpack
from stablehlo_py.serialization import codes, locate
from stablehlo_py.serialization.entries import (
    ATTR,
    KIND_NAMES,
    TEXT_CODE,
    TYPE,
    DecodeProblem,
    codec_for_code,
    from_text,
)
from stablehlo_py.serialization.format import (
    CURRENT_SCHEMA,
    MAGIC,
    MLIR_BYTECODE_MAGIC,
    PRODUCER_PREFIX,
    Record,
    Schema,
    artifact_error,
    parse_producer,
)
from stablehlo_py.serialization.locations import LocationError, render_locations
from stablehlo_py.vhlo.attrs import TensorV1Attr
from stablehlo_py.vhlo import sinks
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py import specs
from stablehlo_py.errors import SerializationError
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.version import Version, get_current_version, get_minimum_version

__all__ = ["Header", "RawArtifact", "read_artifact", "read_header", "read_raw"]

_SECTIONS = ("entries", "locs", "module")

MAX_ATTR_SPLAT = 1 << 16
"""Largest splat tensor allowed outside a constant's value (a dimension list or replica group that
"is" a billion copies of one number would be expanded into Python integers by the conversion)."""
ATTR_ELEMENT_BUDGET = 1 << 22
"""Tensor elements all non-constant attribute uses together may describe, plus one per artifact
byte (uses of one shared entry count each time: the conversion expands each use)."""
_UNKNOWN = UnknownLoc()


@dataclass(frozen=True)
class Header:
    """What the header says (readable without decoding the body)."""

    format_version: int
    producer: str
    """``StableHLO_vX.Y.Z``."""
    version: Version
    """The StableHLO version the artifact was written for (its target)."""
    toolkit: str
    body_size: int
    body_offset: int
    """Offset of the body in the artifact."""


class _Fail(Exception):
    """A problem at a path inside a section (indices, innermost last once reversed)."""

    def __init__(self, message: str, note: str | None = None):
        super().__init__(message)
        self.message = message
        self.note = note
        self.path: list[int] = []


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack extension type {code} is not used by portable artifacts")


def _limits(limit: int) -> dict[str, Any]:
    """msgpack's decoding options: no extension types, no object larger than the data."""
    limit = max(limit, 1)
    return {
        "raw": False,
        "use_list": True,
        "strict_map_key": True,
        "unicode_errors": "surrogatepass",
        "ext_hook": _no_ext,
        "max_str_len": limit,
        "max_bin_len": limit,
        "max_array_len": limit,
        "max_map_len": limit,
        "max_ext_len": limit,
    }


def _unpacker(limit: int) -> msgpack.Unpacker:
    return msgpack.Unpacker(max_buffer_size=max(limit, 1), **_limits(limit))


def _unpack_at(data: bytes, pos: int) -> tuple[Any, int]:
    """The msgpack object at `pos` and the offset after it, decoded in place (msgpack's streaming
    Unpacker copies its input into a buffer first: a large constant's bytes twice more)."""
    view = memoryview(data)[pos:]
    try:
        return msgpack.unpackb(view, **_limits(len(view))), len(data)
    except msgpack.ExtraData as e:  # more objects follow (only their bytes are copied)
        return e.unpacked, len(data) - len(e.extra)


# --------------------------------------------------------------------------------------------
# Header


def read_header(data: bytes, name: str = "<artifact>", check_body: bool = True) -> Header:
    """Check the magic and decode the header only.  With ``check_body=False`` the bytes after the
    header are not looked at (a prefix of an artifact is enough); otherwise their length must be the
    header's body size."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SerializationError(f"a portable artifact is bytes, not {type(data).__name__}")
    data = bytes(data)
    if not data:
        raise artifact_error("not a StableHLO portable artifact (empty input)", 0, name)
    if not data.startswith(MAGIC):
        if data.startswith(MLIR_BYTECODE_MAGIC):
            raise artifact_error(
                "this is an MLIR bytecode artifact (upstream StableHLO's format); stablehlo-py "
                "reads and writes its own msgpack artifacts only",
                0,
                name,
                note="convert it to text with upstream's `stablehlo-translate --deserialize`, then "
                "serialize that text with stablehlo-py",
            )
        if len(data) < len(MAGIC) and MAGIC.startswith(data):
            raise artifact_error(
                f"artifact truncated: {len(data)} bytes, inside the magic", len(data), name
            )
        what = f"starts with {data[:8]!r}"
        note = None
        head = data[:4096].lstrip()
        if head[:1] in (b"m", b"f", b"/", b"#", b'"') and (b"func" in head or b"module" in head):
            note = "this looks like MLIR text: read it with stablehlo-opt, or serialize it first"
        raise artifact_error(
            f"not a StableHLO portable artifact ({what}; expected the magic {MAGIC!r})",
            0,
            name,
            note=note,
        )
    start = len(MAGIC)
    up = _unpacker(len(data) - start)
    up.feed(data[start : start + 4096])
    try:
        record = up.unpack()
    except msgpack.OutOfData:
        if len(data) - start > 4096:
            up = _unpacker(len(data) - start)
            up.feed(data[start:])
            try:
                record = up.unpack()
            except Exception:  # noqa: BLE001
                _raise_undecodable(data, start, "header", name)
        else:
            _raise_undecodable(data, start, "header", name)
    except Exception:  # noqa: BLE001 - msgpack raises ValueError subclasses and others
        _raise_undecodable(data, start, "header", name)
    body_offset = start + up.tell()
    rec = CURRENT_SCHEMA["header"]
    if type(record) is not list:
        raise artifact_error(f"the header must be an array, found {_kind(record)}", start, name)
    problem = rec.missing_required(record)
    if problem is not None:
        raise artifact_error(problem, start, name)
    values = _padded(record, rec)
    fv, producer, toolkit, body_size = values[:4]
    if type(fv) is not int or fv < 1:
        raise artifact_error(
            f"format version must be a positive integer, found {fv!r}", start, name
        )
    version = parse_producer(producer)
    if version is None:
        raise artifact_error(
            f"producer must be '{PRODUCER_PREFIX}X.Y.Z', found {_short(producer)}", start, name
        )
    if type(toolkit) is not str:
        raise artifact_error(f"toolkit must be a string, found {_kind(toolkit)}", start, name)
    if type(body_size) is not int or body_size < 0:
        raise artifact_error(
            f"body size must be a non-negative integer, found {body_size!r}", start, name
        )
    extra = rec.extra_fields_problem(record)
    if extra is not None:
        raise artifact_error(
            extra,
            start,
            name,
            note=f"written by {toolkit or 'an unknown toolkit'}; upgrade stablehlo-py",
        )
    actual = len(data) - body_offset
    if not check_body:
        return Header(fv, producer, version, toolkit, body_size, body_offset)
    if actual < body_size:
        raise artifact_error(
            f"artifact truncated: the header declares a body of {body_size} bytes, "
            f"{actual} are present",
            len(data),
            name,
        )
    if actual > body_size:
        raise artifact_error(
            f"{actual - body_size} unexpected bytes after the end of the artifact",
            body_offset + body_size,
            name,
        )
    return Header(fv, producer, version, toolkit, body_size, body_offset)


def _raise_undecodable(data: bytes, start: int, what: str, name: str) -> NoReturn:
    offset, why = locate.first_problem(data, start)
    if why == "the data decodes here":
        offset, why = start, "invalid data"
    if offset >= len(data) or "end of data" in why:
        raise artifact_error(
            f"artifact truncated inside the {what} ({why})", min(offset, len(data)), name
        )
    raise artifact_error(f"corrupted {what}: {why}", offset, name)


# Field checks by wire kind (``entries`` module docstring), besides the references: the exact type
# of a scalar (`type(v) is int`, so a bool is not an integer) and of each element of a list.
_SCALAR_KINDS: dict[str, tuple[type, str]] = {
    "i": (int, "an integer"),
    "f": (float, "a float"),
    "b": (bytes, "bytes"),
    "s": (str, "a string"),
    "?": (bool, "a boolean"),
}
_LIST_KINDS: dict[str, tuple[type, str]] = {"is": (int, "an integer"), "fs": (float, "a float")}


def _kind(value: object) -> str:
    return {
        list: "an array",
        dict: "a map",
        str: "a string",
        bytes: "bytes",
        int: "an integer",
        float: "a float",
        bool: "a boolean",
        type(None): "nil",
    }.get(type(value), type(value).__name__)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 48 else text[:45] + "..."


def _padded(record: list[Any], rec: Record) -> list[Any]:
    n = len(record)
    known = len(rec.fields)
    if n >= known:
        return record
    return record + [list(d) if isinstance(d, tuple) else d for d in rec.defaults[n:]]


# --------------------------------------------------------------------------------------------
# Body


@dataclass
class RawArtifact:
    """The decoded msgpack of an artifact, before any IR is built."""

    header: Header
    sections: list[Any]
    """entries, locs, module (padded with defaults)."""
    offsets: list[int]
    """Byte offset of each section present in the data."""
    data: bytes
    name: str


def read_raw(data: bytes, name: str = "<artifact>") -> RawArtifact:
    """Header and the body's msgpack objects (checked for size and encoding only)."""
    header = read_header(data, name)
    data = bytes(data)
    sections: list[Any] = []
    offsets: list[int] = []
    pos = header.body_offset
    while pos < len(data):
        try:
            obj, end = _unpack_at(data, pos)
        except Exception:  # noqa: BLE001 - any msgpack decoding problem
            _raise_undecodable(data, pos, _section_name(len(sections)), name)
        sections.append(obj)
        offsets.append(pos)
        pos = end
    body = CURRENT_SCHEMA["body"]
    extra = body.extra_fields_problem(sections)
    if extra is not None:
        i = next(i for i in range(len(body.fields), len(sections)) if sections[i])
        raise artifact_error(
            extra.replace("body record", "the body") + " (a section this reader does not know)",
            offsets[i],
            name,
            note=f"written by {header.toolkit}; upgrade stablehlo-py",
        )
    return RawArtifact(header, _padded(sections, body), offsets, data, name)


def _section_name(i: int) -> str:
    return f"{_SECTIONS[i]} section" if i < len(_SECTIONS) else f"section {i}"


class _Reader:
    def __init__(self, raw: RawArtifact, schema: Schema, records: bool = False):
        self.sink = sinks.of_records(records)  # VHLO records (``vhlo.records``) or xDSL ops
        self.other = False  # text entries seen: the artifact holds other dialects' content
        self.raw = raw
        self.version = raw.header.version
        self.schema = schema
        self.objs: list[Attribute] = []
        self.kinds: list[int] = []
        self.elems: list[tuple[int, int]] = []
        self.elems_of: dict[int, tuple[int, int]] = {}
        self.attr_elements = 0
        self.attr_budget = ATTR_ELEMENT_BUDGET + len(raw.data)
        self.loc_texts: list[str | None] = [None]
        self.loc_objs: dict[int, TextLoc] = {}
        self.prev_loc = 0
        self.stack: list[SSAValue] = []
        self.op_infos: dict[int, _OpShape] = {}
        op = schema["op"]
        self.op_width = len(op.fields)
        self.op_pad = [list(d) if isinstance(d, tuple) else d for d in op.defaults]
        self.op_record = op
        block = schema["block"]
        self.block_width = len(block.fields)
        self.block_pad = [list(d) if isinstance(d, tuple) else d for d in block.defaults]
        self.block_record = block
        self.legal_codecs: set[int] = set()

    # -- errors
    def fail_at(
        self, section: int, path: list[int], message: str, note: str | None = None
    ) -> NoReturn:
        raw = self.raw
        if section < len(raw.offsets):
            offset = locate.offset_of(raw.data, raw.offsets[section], path)
        else:
            offset = len(raw.data)
        raise artifact_error(message, offset, raw.name, note)

    # -- entries
    def entries(self, table: Any) -> None:
        if type(table) is not list:
            self.fail_at(0, [], f"the entries section must be an array, found {_kind(table)}")
        for i, e in enumerate(table):
            try:
                obj, kind = self.entry(e)
            except _Fail as f:
                self.fail_at(0, [i, *reversed(f.path)], f"entry {i}: {f.message}", f.note)
            except DecodeProblem as p:
                self.fail_at(0, [i], f"entry {i}: {p}")
            self.objs.append(obj)
            self.kinds.append(kind)
            row = self._elements(obj) if kind == ATTR else (0, 0)
            self.elems.append(row)
            if row[0]:
                self.elems_of[id(obj)] = row

    def _elements(self, a: Attribute) -> tuple[int, int]:
        """(elements, largest splat) of the tensors inside an attribute (from its children's rows,
        which are already computed): what converting it to StableHLO may expand."""
        if isinstance(a, TensorV1Attr):
            n = 1
            for d in a.type.shape:  # type: ignore[attr-defined]
                n *= d
            return n, (n if n > 1 and _is_splat(a) else 0)
        children = getattr(a, "children", None)
        if children is None:
            return 0, 0
        total = biggest = 0
        for c in children():
            got = self.elems_of.get(id(c))
            if got is not None:
                total += got[0]
                biggest = max(biggest, got[1])
        return total, biggest

    def charge(self, a: int, what: str, path: list[int]) -> None:
        """Count what a non-constant attribute use may expand to (StableHLO keeps dimension lists as
        Python integers): a splat may stand for at most MAX_ATTR_SPLAT elements, and all uses
        together for at most ATTR_ELEMENT_BUDGET plus the artifact size."""
        n, splat = self.elems[a]
        if not n:
            return
        if splat > MAX_ATTR_SPLAT:
            _path_fail(
                f"{what} holds a splat tensor standing for {splat} elements; outside constant values "
                f"tensors are limited to {MAX_ATTR_SPLAT} elements stored as one",
                path,
            )
        self.attr_elements += n
        if self.attr_elements > self.attr_budget:
            _path_fail(
                f"the attributes of the program describe more than {self.attr_budget} tensor elements "
                f"(an artifact of {len(self.raw.data)} bytes); refusing to expand them",
                path,
            )

    def entry(self, e: Any) -> tuple[Attribute, int]:
        if type(e) is not list or len(e) < 2:
            raise _Fail(f"an entry must be an array [kind, code, ...], found {_kind(e)}")
        kind, code = e[0], e[1]
        if kind not in (TYPE, ATTR) or type(kind) is not int:
            _path_fail(f"entry kind must be 0 (type) or 1 (attribute), found {_short(kind)}", [0])
        if type(code) is not int:
            _path_fail(f"entry code must be an integer, found {_kind(code)}", [1])
        if code == TEXT_CODE:  # not VHLO: its MLIR text (allow_other_dialects)
            if len(e) != 3 or type(e[2]) is not str:
                _path_fail(f"a text entry is [kind, {TEXT_CODE}, text]", [2])
            self.other = True
            return from_text(e[2], kind), kind
        codec = codec_for_code(kind, code)
        if codec is None:
            _path_fail(
                f"unknown {KIND_NAMES[kind]} code {code}",
                [1],
                note=f"the artifact was written for StableHLO {self.version} by "
                f"{self.raw.header.toolkit}; this toolkit may be older than the writer",
            )
        if id(codec) not in self.legal_codecs:
            if not _legal_at(codec.kind, codec.name, self.version):
                s = codec.spec
                _path_fail(
                    f"{KIND_NAMES[kind]} vhlo.{codec.name} is not in StableHLO {self.version} "
                    f"(it exists from {s.min} to {s.max}), but the artifact says it was written for "
                    f"{self.version}",
                    [1],
                )
            self.legal_codecs.add(id(codec))
        fields = e[2:]
        rec = codec.record
        n = len(fields)
        if n < rec.required:
            raise _Fail(
                f"{KIND_NAMES[kind]} vhlo.{codec.name} has {n} fields; field "
                f"'{rec.fields[n].name}' is required"
            )
        if n > len(rec.fields):
            problem = rec.extra_fields_problem(fields)
            if problem is not None:
                raise _Fail(
                    f"vhlo.{codec.name}: " + problem.replace("entry fields record", "entry")
                )
            fields = fields[: len(rec.fields)]
        elif n < len(rec.fields):
            fields = fields + [list(d) if isinstance(d, tuple) else d for d in rec.defaults[n:]]
        values = [self.field(v, wk, j + 2) for j, (v, wk) in enumerate(zip(fields, codec.wire))]
        return codec.decode(values), kind

    def ref(self, v: Any, kind: int, path: list[int]) -> Attribute:
        if type(v) is not int or not 0 <= v < len(self.objs):
            _path_fail(
                f"reference {_short(v)} is not an earlier entry (there are {len(self.objs)})", path
            )
        if self.kinds[v] != kind:
            _path_fail(
                f"entry {v} is {'a type' if self.kinds[v] == TYPE else 'an attribute'}, "
                f"expected {'a type' if kind == TYPE else 'an attribute'}",
                path,
            )
        return self.objs[v]

    def field(self, v: Any, wk: str, j: int) -> Any:
        if wk == "T":
            return self.ref(v, TYPE, [j])
        if wk == "A":
            return self.ref(v, ATTR, [j])
        if wk == "A?":
            return None if v is None else self.ref(v, ATTR, [j])
        if wk == "Ts" or wk == "As":
            _expect_list(v, j)
            k = TYPE if wk == "Ts" else ATTR
            return [self.ref(x, k, [j, m]) for m, x in enumerate(v)]
        scalar = _SCALAR_KINDS.get(wk)
        if scalar is not None:
            if type(v) is not scalar[0]:
                _path_fail(f"expected {scalar[1]}, found {_kind(v)}", [j])
            return v
        element, what = _LIST_KINDS[wk]
        _expect_list(v, j)
        for m, x in enumerate(v):
            if type(x) is not element:
                _path_fail(f"expected {what}, found {_kind(x)}", [j, m])
        return v

    # -- locations
    def read_locs(self, items: Any) -> None:
        budget = max(64 << 20, 256 * len(self.raw.data))
        try:
            self.loc_texts = render_locations(items, budget)
        except LocationError as e:
            self.fail_at(
                1, [e.index, *e.path] if e.index >= 0 else [], f"location {e.index}: {e.message}"
            )

    def loc(self, v: Any, path: list[int]) -> TextLoc | None:
        got = self.loc_objs.get(v) if type(v) is int else None
        if got is not None:
            return got
        if type(v) is not int or not 0 <= v < len(self.loc_texts):
            _path_fail(
                f"location reference {_short(v)} out of range (there are {len(self.loc_texts) - 1})",
                path,
            )
        text = self.loc_texts[v]
        if text is None:
            return None
        loc = self.loc_objs[v] = TextLoc(text)
        return loc

    # -- ops
    def op_info(self, code: Any) -> _OpShape:
        info = self.op_infos.get(code) if type(code) is int else None
        if info is not None:
            return info
        if type(code) is not int:
            _path_fail(f"op code must be an integer, found {_kind(code)}", [0])
        name = codes.op_name_for_code(code)
        if name is None:
            _path_fail(
                f"unknown op code {code}",
                [0],
                note=f"the artifact was written for StableHLO {self.version} by "
                f"{self.raw.header.toolkit}; this toolkit may be older than the writer",
            )
        spec = specs.op(name)
        if not _legal_at(2, name, self.version):
            _path_fail(
                f"op vhlo.{name} is not in StableHLO {self.version} (it exists from {spec.min} to "
                f"{spec.max}), but the artifact says it was written for {self.version}",
                [0],
            )
        info = _op_shape(code)
        self.op_infos[code] = info
        return info

    def fit(
        self, rec: list[Any], width: int, pad: list[Any], record: Record, path: list[int]
    ) -> list[Any]:
        """An op or block record of another writer's width as ``width`` fields: an older writer's
        missing fields take their defaults (``pad``); a newer writer's extra fields are refused
        unless ``record`` allows them (``Record.extra_fields_problem``), then left for the caller
        to ignore."""
        if len(rec) < width:
            return rec + pad[len(rec) :]
        problem = record.extra_fields_problem(rec)
        if problem is not None:
            toolkit = self.raw.header.toolkit
            _path_fail(problem, path, note=f"written by {toolkit}; upgrade stablehlo-py")
        return rec

    def op(self, rec: Any) -> Operation:
        if type(rec) is not list or not rec:
            raise _Fail(f"an op must be a non-empty array, found {_kind(rec)}")
        if type(rec[0]) is str:  # an op of another dialect: format.OTHER_OP
            return self.other_op(rec)
        if len(rec) != self.op_width:
            rec = self.fit(rec, self.op_width, self.op_pad, self.op_record, [])
        code, operands, result_types, loc, attrs, regions, extra = rec[:7]
        shape = self.op_info(code)
        spec = shape.spec
        stack = self.stack
        values = self.operand_values(operands, f"vhlo.{spec.name}")
        if type(result_types) is int:  # the common single result, written without a list
            result_types = [result_types]
        else:
            _expect_list(result_types, 2)
        objs, kinds = self.objs, self.kinds
        n_objs = len(objs)
        rtypes = []
        for i, t in enumerate(result_types):
            if type(t) is not int or not 0 <= t < n_objs or kinds[t] != TYPE:
                _path_fail(
                    f"result type #{i} of vhlo.{spec.name} is not a type entry: {_short(t)}", [2, i]
                )
            rtypes.append(objs[t])
        if type(loc) is not int:
            _path_fail(f"location delta must be an integer, found {_kind(loc)}", [3])
        loc += self.prev_loc
        location = self.loc_objs.get(loc)
        if location is None:
            location = self.loc(loc, [3])
        self.prev_loc = loc
        _expect_list(attrs, 4)
        names = spec.attribute_names
        if len(attrs) > len(names):
            _path_fail(
                f"vhlo.{spec.name} has {len(names)} attributes; the record lists {len(attrs)}", [4]
            )
        props: dict[str, Attribute] = {}
        for i, a in enumerate(attrs):
            if a is None:
                continue
            if type(a) is not int or not 0 <= a < n_objs or kinds[a] != ATTR:
                _path_fail(
                    f"attribute '{names[i]}' of vhlo.{spec.name} is not an attribute entry", [4, i]
                )
            if not (shape.constant and names[i] == "value"):
                self.charge(a, f"attribute '{names[i]}' of vhlo.{spec.name}", [4, i])
            props[names[i]] = objs[a]
        region_objs = self.op_regions(regions)
        _expect_list(extra, 6)
        attributes: dict[str, Attribute] = {}
        if extra:
            if len(extra) % 2:
                _path_fail("extra attributes must come as name, entry pairs", [6])
            for i in range(0, len(extra), 2):
                k, a = extra[i], extra[i + 1]
                if type(k) is not str:
                    _path_fail(f"attribute name must be a string, found {_kind(k)}", [6, i])
                if type(a) is not int or not 0 <= a < n_objs or kinds[a] != ATTR:
                    _path_fail(f"attribute '{k}' is not an attribute entry", [6, i + 1])
                if k in props or k in attributes:
                    _path_fail(f"attribute '{k}' is given twice", [6, i])
                self.charge(a, f"attribute '{k}' of vhlo.{spec.name}", [6, i + 1])
                attributes[k] = objs[a]
        if shape.counts != (len(values), len(rtypes), len(region_objs), len(props)):
            problem = shape.problem(len(values), len(rtypes), len(region_objs), props)
            if problem is not None:
                raise _Fail(f"invalid vhlo.{spec.name}: {problem}")
        op = self.sink.op(
            None, shape.cls, values, rtypes, props, attributes, region_objs,
            _UNKNOWN if location is None else location,
        )
        stack.extend(op.results)
        return op

    def _named_entries(
        self,
        pairs: Any,
        j: int,
        what: str,
        out: dict[str, Attribute] | None = None,
        noun: str = "attribute",
        take: Callable[[str, Any, Attribute, list[int]], Attribute] | None = None,
    ) -> dict[str, Attribute]:
        """A flat ``[name, entry, ...]`` list (field ``j``) as a dict (added to ``out``, where a
        name may not stand twice either); ``take(name, entry, attribute, path)`` gives the value
        kept, when given."""
        _expect_list(pairs, j)
        if len(pairs) % 2:
            _path_fail(f"{what} must come as name, entry pairs", [j])
        if out is None:
            out = {}
        for i in range(0, len(pairs), 2):
            k, a = pairs[i], pairs[i + 1]
            if type(k) is not str:
                _path_fail(f"attribute name must be a string, found {_kind(k)}", [j, i])
            if k in out:
                _path_fail(f"{noun} '{k}' is given twice", [j, i])
            value = self.ref(a, ATTR, [j, i + 1])
            out[k] = value if take is None else take(k, a, value, [j, i + 1])
        return out

    def _module_attr(self, k: str, a: Any, value: Attribute, path: list[int]) -> Attribute:
        """A module attribute of the builtin list: charged, and converted from its VHLO form."""
        self.charge(a, f"module attribute '{k}'", path)
        return _module_attr_from_vhlo(value, path)

    def _module_vhlo_attr(self, k: str, a: Any, value: Attribute, path: list[int]) -> Attribute:
        """A module attribute kept as VHLO: charged."""
        self.charge(a, f"module attribute '{k}'", path)
        return value

    def other_op(self, rec: list[Any]) -> Operation:
        """An op of another dialect (``format.OTHER_OP``): built as the text parser builds it,
        from its registered class."""
        shape = self.schema["other_op"]
        if len(rec) > len(shape.fields):
            problem = shape.extra_fields_problem(rec)
            if problem is not None:
                raise _Fail(
                    problem, note=f"written by {self.raw.header.toolkit}; upgrade stablehlo-py"
                )
        name, operands, result_types, loc, props, regions, extra = _padded(rec, shape)[:7]
        if not self.sink.holds_other_ops:
            _path_fail(f"op {name} is not VHLO, but the artifact has no text entries", [0])
        from stablehlo_py.ir.dialects import default_registry

        cls = default_registry().ops.get(name)
        if cls is None or name.startswith("vhlo.") or name == "builtin.module":
            _path_fail(f"unknown operation '{name}' (stablehlo-py does not model it)", [0])
        stack = self.stack
        values = self.operand_values(operands, name)
        if type(result_types) is int:
            result_types = [result_types]
        _expect_list(result_types, 2)
        rtypes = [self.ref(t, TYPE, [2, i]) for i, t in enumerate(result_types)]
        if type(loc) is not int:
            _path_fail(f"location delta must be an integer, found {_kind(loc)}", [3])
        loc += self.prev_loc
        location = self.loc(loc, [3])
        self.prev_loc = loc
        properties = self._named_entries(props, 4, "properties")
        attributes = self._named_entries(extra, 6, "extra attributes")
        region_objs = self.op_regions(regions)
        try:
            op = cls.create(
                operands=values,
                result_types=rtypes,
                properties=properties,
                attributes=attributes,
                regions=region_objs,
            )
        except Exception as e:  # noqa: BLE001 - xDSL construction problems become format errors
            raise _Fail(f"invalid {name}: {e}") from None
        op.location = _UNKNOWN if location is None else location
        stack.extend(op.results)
        return op

    def operand_values(self, operands: Any, op_name: str) -> list[Any]:
        """An op record's operands (field 1): each a count of values back on the value stack."""
        stack = self.stack
        depth = len(stack)
        _expect_list(operands, 1)
        values = []
        for i, r in enumerate(operands):
            if type(r) is not int or not 1 <= r <= depth:
                _path_fail(
                    f"operand #{i} of {op_name} refers to value {_short(r)} back, but {depth} "
                    "values are in scope",
                    [1, i],
                )
            values.append(stack[depth - r])
        return values

    def op_regions(self, regions: Any) -> list[Region]:
        """An op record's regions (field 5), a failure located at its region."""
        _expect_list(regions, 5)
        region_objs = []
        for i, r in enumerate(regions):
            try:
                region_objs.append(self.region(r))
            except _Fail as f:
                f.path.extend((i, 5))
                raise
        return region_objs

    def region(self, rec: Any) -> Region:
        if type(rec) is not list:
            raise _Fail(f"a region must be an array of blocks, found {_kind(rec)}")
        stack = self.stack
        mark = len(stack)
        blocks: list[tuple[Block, list[Any], list[Any]]] = []
        objs, kinds = self.objs, self.kinds
        n_objs = len(objs)
        for b, brec in enumerate(rec):
            if type(brec) is not list:
                _path_fail(f"a block must be an array, found {_kind(brec)}", [b])
            if len(brec) != self.block_width:
                brec = self.fit(brec, self.block_width, self.block_pad, self.block_record, [b])
            arg_types, ops, arg_locs = brec[:3]
            _expect_list(arg_types, 0, b)
            types = []
            for i, t in enumerate(arg_types):
                if type(t) is not int or not 0 <= t < n_objs or kinds[t] != TYPE:
                    _path_fail(
                        f"block argument #{i} type is not a type entry: {_short(t)}", [b, 0, i]
                    )
                types.append(objs[t])
            block = self.sink.block(None, types)
            _expect_list(arg_locs, 2, b)
            if arg_locs:
                if len(arg_locs) != len(types):
                    _path_fail(
                        f"block has {len(types)} arguments but {len(arg_locs)} argument locations",
                        [b, 2],
                    )
                for i, (arg, lv) in enumerate(zip(block.args, arg_locs)):
                    loc = self.loc(lv, [b, 2, i])
                    if loc is not None:
                        arg.location = loc
            stack.extend(block.args)
            _expect_list(ops, 1, b)
            blocks.append((block, ops, brec))
        region = self.sink.region()
        for b, (block, ops, _) in enumerate(blocks):
            built = []
            for j, o in enumerate(ops):
                try:
                    built.append(self.op(o))
                except _Fail as f:
                    f.path.extend((j, 1, b))
                    raise
            block.add_ops(built)
            region.add_block(block)
        del stack[mark:]
        return region

    def module(self, rec: Any) -> ModuleOp:
        if rec is None:
            rec = []
        if type(rec) is not list:
            self.fail_at(2, [], f"the module must be an array, found {_kind(rec)}")
        mrec = self.schema["module"]
        if len(rec) > len(mrec.fields):
            problem = mrec.extra_fields_problem(rec)
            if problem is not None:
                self.fail_at(
                    2, [], problem, f"written by {self.raw.header.toolkit}; upgrade stablehlo-py"
                )
        sym, attrs, body, loc, vhlo_attrs = _padded(rec, mrec)[:5]
        try:
            if sym is not None and type(sym) is not str:
                _path_fail(f"module name must be a string or nil, found {_kind(sym)}", [0])
            attributes: dict[str, Attribute] = {}
            lists = ((1, attrs, self._module_attr), (4, vhlo_attrs, self._module_vhlo_attr))
            for j, pairs, take in lists:
                self._named_entries(
                    pairs, j, "module attributes", attributes, "module attribute", take
                )
            try:
                region = self.region(body)
            except _Fail as f:
                f.path.append(2)
                raise
            if len(region.blocks) != 1:
                _path_fail(f"the module body must have one block, found {len(region.blocks)}", [2])
            if region.blocks.first.args:  # type: ignore[union-attr]
                _path_fail("the module body block cannot have arguments", [2])
            location = self.loc(loc, [3])
        except _Fail as f:
            self.fail_at(2, list(reversed(f.path)), f.message, f.note)
        props: dict[str, Attribute] = {} if sym is None else {"sym_name": StringAttr(sym)}
        return self.sink.module(props, attributes, [region], location)


def _module_attr_from_vhlo(a: Attribute, path: list[int]) -> Attribute:
    from stablehlo_py.vhlo.convert import to_builtin_attr

    try:
        b = to_builtin_attr(a)
    except Exception:  # noqa: BLE001 - a combination the conversion does not handle
        b = None
    if b is None:
        _path_fail(f"module attribute {a.name} has no builtin counterpart", path)
    return b


class _OpShape:
    """What the reader checks of an op fork before building it: the operand, result and region
    counts its groups allow (fixed groups take one value, variadic groups share the rest equally, as
    ``VhloOp.verify_``) and that every attribute is present (VHLO attributes are all required; the
    defaults are written out by the legalization).  Types and attributes are VHLO by construction."""

    __slots__ = ("cls", "constant", "counts", "n_attrs", "operands", "regions", "results", "spec")

    def __init__(self, spec: specs.OpSpec):
        from stablehlo_py.vhlo.ops import op_class

        self.spec = spec
        self.cls = op_class(spec.name)
        self.operands = _rule(spec.operands)
        self.results = _rule(spec.results)
        self.regions = _rule(spec.regions)
        self.n_attrs = len(spec.attributes)
        self.constant = spec.base == "constant"
        fixed = (self.operands, self.results, self.regions)
        # the one valid (operands, results, regions, attributes) count of a fork without variadic
        # groups: checked with one tuple comparison on the hot path
        self.counts = (
            tuple(f for f, _ in fixed) + (self.n_attrs,) if all(v == 0 for _, v in fixed) else None
        )

    def problem(
        self, n_operands: int, n_results: int, n_regions: int, props: dict[str, Any]
    ) -> str | None:
        for what, n, (fixed, var), groups in (
            ("operands", n_operands, self.operands, self.spec.operands),
            ("results", n_results, self.results, self.spec.results),
            ("regions", n_regions, self.regions, self.spec.regions),
        ):
            rest = n - fixed
            if rest < 0 or (rest if var == 0 else rest % var):
                sig = ", ".join(g.name + ("..." if g.variadic else "") for g in groups)
                return f"expects {what} ({sig}) but has {n}"
        if len(props) != self.n_attrs:
            missing = [n for n in self.spec.attribute_names if n not in props]
            return f"requires attribute '{missing[0]}'" + (
                f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            )
        return None


@cache
def _op_shape(code: int) -> _OpShape:
    return _OpShape(specs.op(codes.OP_CODES[code]))


@cache
def _legal_at(kind: int, name: str, version: Version) -> bool:
    """Range test of an op (kind 2), type or attribute at a version (cached: Version objects are
    rebuilt on every test otherwise)."""
    if kind == 2:
        return specs.op(name).is_legal_at(version)
    return (specs.type_spec(name) if kind == TYPE else specs.attr_spec(name)).is_legal_at(version)


def _rule(groups: tuple[specs.ValueSpec, ...]) -> tuple[int, int]:
    n_var = sum(1 for g in groups if g.variadic)
    return len(groups) - n_var, n_var


def _is_splat(a: TensorV1Attr) -> bool:
    from stablehlo_py.ir.text.dense import is_splat

    return is_splat(a.dense)


def _path_fail(message: str, path: list[int], note: str | None = None) -> NoReturn:
    f = _Fail(message, note)
    f.path.extend(reversed(path))
    raise f


def _expect_list(v: Any, j: int, *outer: int) -> None:
    if type(v) is not list:
        _path_fail(f"expected an array, found {_kind(v)}", [*outer, j])


def _walk_ops(record: Any, out: list[int]) -> None:
    """Collect the op codes of a raw module record (tolerant of malformed data)."""
    stack = [record]
    while stack:
        rec = stack.pop()
        if type(rec) is not list:
            continue
        for region in rec:
            if type(region) is not list:
                continue
            for block in region:
                if type(block) is not list or len(block) < 2 or type(block[1]) is not list:
                    continue
                for op in block[1]:
                    if type(op) is list and op:
                        out.append(op[0])
                        if len(op) > 5 and type(op[5]) is list:
                            stack.append(op[5])


def unknown_codes(raw: Any) -> list[str]:
    """The op, type and attribute codes of a raw artifact this toolkit does not know (sorted)."""
    found: set[tuple[str, int]] = set()
    entries, _, module = raw.sections[:3]
    if type(entries) is list:
        for e in entries:
            known = type(e) is list and len(e) >= 2 and e[0] in (TYPE, ATTR) and type(e[1]) is int
            if known and codec_for_code(e[0], e[1]) is None:
                found.add(("type" if e[0] == TYPE else "attribute", e[1]))
    ops: list[int] = []
    if type(module) is list and len(module) > 2:
        _walk_ops([module[2]], ops)
    for code in ops:
        if type(code) is int and codes.op_name_for_code(code) is None:
            found.add(("op", code))
    return [f"{kind} code {code}" for kind, code in sorted(found)]


def check_version(header: Header, raw: RawArtifact | None, name: str) -> None:
    """Refuse artifacts written for versions this toolkit cannot read, saying why."""
    current, minimum = get_current_version(), get_minimum_version()
    v = header.version
    if v.with_zero_patch() > current:
        unknown = ""
        if raw is not None:
            found = unknown_codes(raw)
            if found:
                unknown = "; codes this toolkit does not know: " + ", ".join(found)
        raise artifact_error(
            f"the artifact was written for StableHLO {v} (by {header.toolkit or 'an unknown toolkit'}), "
            f"newer than this consumer, which reads StableHLO {minimum} to {current}{unknown}",
            len(MAGIC),
            name,
            note=f"ask the producer to serialize with --target={current} (or older), or upgrade stablehlo-py",
        )
    if v < minimum:
        raise artifact_error(
            f"the artifact was written for StableHLO {v}, older than the oldest version this "
            f"consumer reads ({minimum})",
            len(MAGIC),
            name,
        )


def read_artifact(
    data: bytes, name: str = "<artifact>", schema: Schema = CURRENT_SCHEMA, records: bool = False
) -> tuple[Header, ModuleOp]:
    """Decode an artifact into (header, VHLO module at the header's version); with ``records`` the
    module is ``vhlo.records``, not xDSL ops."""
    from stablehlo_py.ir import no_gc

    with no_gc():  # msgpack builds many lists: repeated full collections would dominate
        raw = read_raw(data, name)
        check_version(raw.header, raw, name)
        return raw.header, build_module(raw, schema, records)


def build_module(
    raw: RawArtifact, schema: Schema = CURRENT_SCHEMA, records: bool = False
) -> ModuleOp:
    from stablehlo_py.ir import no_gc

    r = _Reader(raw, schema, records)
    entries, locs, module = raw.sections[:3]
    with no_gc():
        r.entries(entries)
        if r.other:  # other dialects' content (text entries): xDSL ops, as the MLIR reader does
            r.sink = sinks.XDSL
        r.read_locs(locs)
        return r.module(module)


_ = Callable
