"""The container of a portable artifact: magic, header, format versions and the struct_size rule.

Layout (everything after the magic is msgpack)::

    MAGIC (9 bytes)  b"\\x89SHLO\\r\\n\\x1a\\n"
    header           [format_version, producer, toolkit, body_size]
    body             three msgpack objects, one after another:
                     entries  -- the types and attributes, each once: [kind, code, *fields]
                     locs     -- location texts, each once
                     module   -- [sym_name, attributes, body region, loc]

The header is one small msgpack array right after the magic: :func:`read_header` reads it without
touching the body (``get_portable_artifact_version`` is header-only).  ``producer`` is
``StableHLO_vX.Y.Z`` -- the version the artifact was written *for* (its target), which decides how
a consumer reads it; ``toolkit`` names the writer (``stablehlo-py 0.1.0``); ``body_size`` lets a
reader tell a truncated artifact from a corrupted one before decoding anything.

**Records and the struct_size rule.**  Every record is a msgpack array whose length is its size.
Fields are only ever appended (a deprecated field keeps its slot); each field has the format version
that introduced it and a default.  A reader checks the length before reading each field: a missing
field takes its default (an older writer), extra trailing fields (a newer writer) are accepted when
they hold their default and refused with a clear error otherwise.  To make that check possible without
knowing the newer fields, **every default is a zero value** (nil, false, 0, "", b"", [] or {}), which
:class:`Record` enforces.  A writer targeting an older StableHLO version writes the record shape of
the format version that target reads (:meth:`Schema.format_for_target`), and refuses to drop a field
that holds a non-default value.  Writers also trim trailing default fields, which is the same rule
seen from the other side (the reader fills them back).

**Format versions.**  :data:`FORMAT_VERSIONS` maps each format version to the first StableHLO version
whose artifacts use it.  There is one today (format 1, every target from 0.9.0); a future field is
added by appending it with ``since=2`` and adding ``2: <first StableHLO version>`` -- artifacts for
older targets keep format 1 and stay readable by older consumers.  Tests exercise the rule with a
hypothetical format 2 (:func:`Schema.extended`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from stablehlo_py.errors import SerializationError
from stablehlo_py.version import Version

__all__ = [
    "FORMAT_VERSIONS",
    "MAGIC",
    "MLIR_BYTECODE_MAGIC",
    "PRODUCER_PREFIX",
    "Field",
    "Record",
    "Schema",
    "artifact_error",
    "is_zero",
    "parse_producer",
    "producer_string",
    "toolkit_string",
]

MAGIC = b"\x89SHLO\r\n\x1a\n"
"""First bytes of every artifact.  As PNG's signature: a high-bit byte (catches 7-bit transfers), a
name, CR-LF and LF (catch newline conversion) and ^Z (stops `type` on Windows)."""

MLIR_BYTECODE_MAGIC = b"ML\xefR"
"""Upstream's artifacts are MLIR bytecode; recognised only to say so in the error."""

PRODUCER_PREFIX = "StableHLO_v"

_PRODUCER_RE = re.compile(r"StableHLO_v([0-9]{1,6})\.([0-9]{1,6})\.([0-9]{1,6})")

FORMAT_VERSIONS: dict[int, Version] = {1: Version(0, 9, 0)}
"""Format version -> the first StableHLO target whose artifacts use it (append only)."""


def producer_string(version: Version) -> str:
    return f"{PRODUCER_PREFIX}{version}"


def parse_producer(text: object) -> Version | None:
    """``StableHLO_vX.Y.Z`` -> Version, or None when ``text`` is not of that form."""
    if not isinstance(text, str):
        return None
    m = _PRODUCER_RE.fullmatch(text)
    if m is None:
        return None
    return Version(int(m[1]), int(m[2]), int(m[3]))


@cache
def toolkit_string() -> str:
    """``stablehlo-py <version>`` of the installed distribution (fixed per install, so bytes are
    reproducible in any process)."""
    try:
        from importlib.metadata import version

        return f"stablehlo-py {version('stablehlo-py')}"
    except Exception:  # noqa: BLE001 - running from a source tree that was never installed
        return "stablehlo-py 0+unknown"


def is_zero(value: object) -> bool:
    """Whether a wire value is a zero value (the only kind of default a field may have)."""
    if value is None or value is False:
        return True
    if isinstance(value, (bool, int, float)):
        return value == 0
    if isinstance(value, (str, bytes, list, tuple, dict)):
        return len(value) == 0
    return False


def artifact_error(
    message: str, offset: int | None, name: str = "<artifact>", note: str | None = None
) -> SerializationError:
    """A SerializationError located at a byte offset of the artifact (``offset`` is kept on the
    exception as ``.offset``)."""
    location = name if offset is None else f"{name}: byte {offset}"
    err = SerializationError(message, location=location, note=note)
    err.offset = offset  # type: ignore[attr-defined]
    return err


# --------------------------------------------------------------------------------------------
# Records


_NO_DEFAULT = object()


@dataclass(frozen=True)
class Field:
    """One field of a record: its name, the format version that introduced it, and its default
    (a zero value) -- or ``required=True`` for a field every version has written since format 1."""

    name: str
    since: int = 1
    default: Any = None
    required: bool = False

    def __post_init__(self) -> None:
        if self.required and self.since != 1:
            raise ValueError(f"field {self.name}: a field added after format 1 needs a default")
        if not self.required and not is_zero(self.default):
            raise ValueError(
                f"field {self.name}: a default must be a zero value, not {self.default!r}"
            )


@dataclass(frozen=True)
class Record:
    """The shape of one kind of record: its fields in order (append only)."""

    name: str
    fields: tuple[Field, ...]
    defaults: tuple[Any, ...] = field(init=False, repr=False, compare=False)
    required: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        since = [f.since for f in self.fields]
        if since != sorted(since):
            raise ValueError(f"record {self.name}: fields must be appended in format-version order")
        req = [i for i, f in enumerate(self.fields) if f.required]
        if req != list(range(len(req))):
            raise ValueError(f"record {self.name}: required fields must come first")
        object.__setattr__(self, "defaults", tuple(f.default for f in self.fields))
        object.__setattr__(self, "required", len(req))

    def width(self, format_version: int) -> int:
        """How many fields a record of this kind has in ``format_version``."""
        return sum(1 for f in self.fields if f.since <= format_version)

    def pack(self, values: Sequence[Any], format_version: int) -> list[Any]:
        """The wire record for ``values`` (one per known field) in ``format_version``'s shape:
        fields newer than that version are dropped -- refused when they hold a non-default value --
        and trailing defaults are trimmed."""
        n = self.width(format_version)
        for f, v in zip(self.fields[n:], values[n:]):
            if not is_zero(v):
                raise SerializationError(
                    f"cannot write field '{f.name}' of a {self.name} record in format version "
                    f"{format_version}: it was introduced in format version {f.since}",
                    note="choose a newer target version, or drop the feature that needs this field",
                )
        out = list(values[:n])
        while len(out) > self.required and is_zero(out[-1]):
            out.pop()
        return out

    def extra_fields_problem(self, record: Sequence[Any]) -> str | None:
        """Why the trailing fields a newer writer appended cannot be ignored, or None if they hold
        defaults (the struct_size rule)."""
        known = len(self.fields)
        for i in range(known, len(record)):
            if not is_zero(record[i]):
                return (
                    f"{self.name} record has {len(record)} fields; this reader knows {known}, and "
                    f"field {i} (written by a newer producer) holds {_short(record[i])}, not a "
                    "default value"
                )
        return None

    def missing_required(self, record: Sequence[Any]) -> str | None:
        if len(record) < self.required:
            names = ", ".join(f.name for f in self.fields[len(record) : self.required])
            return f"{self.name} record has {len(record)} fields; required field(s) {names} missing"
        return None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Schema:
    """Every record kind of one format version, and which targets use which format."""

    format_version: int
    records: Mapping[str, Record]
    first_target: Mapping[int, Version]

    def __getitem__(self, name: str) -> Record:
        return self.records[name]

    def format_for_target(self, target: Version) -> int:
        """The newest format version whose first target is <= ``target``."""
        usable = [fv for fv, first in self.first_target.items() if first <= target]
        if not usable:
            raise SerializationError(f"no artifact format can be read by StableHLO {target}")
        return max(usable)

    def extended(
        self, record: str, extra: Sequence[Field], format_version: int, first_target: Version
    ) -> Schema:
        """A newer schema with ``extra`` fields appended to ``record`` (tests of the struct_size rule
        use it to play a newer writer or reader)."""
        records = dict(self.records)
        old = records[record]
        records[record] = Record(old.name, old.fields + tuple(extra))
        targets = dict(self.first_target)
        targets[format_version] = first_target
        return Schema(max(self.format_version, format_version), records, targets)


HEADER = Record(
    "header",
    (
        Field("format_version", required=True),
        Field("producer", required=True),
        Field("toolkit", default=""),
        Field("body_size", default=0),
    ),
)

BODY = Record(
    "body",
    (
        Field("entries", default=()),
        Field("locs", default=()),
        Field("module", default=None),
    ),
)
"""The body's sections: one msgpack object each, in this order (a newer format may append
sections, which an older reader accepts only when they are nil or empty)."""

ENTRY = Record("entry", (Field("kind", required=True), Field("code", required=True)))
"""The head of an entry of the entries table: kind (0 = type, 1 = attribute) and code.  The fields
after the head are the type's or attribute's own, described per code in ``entries.py`` (each with
the same struct_size rule)."""

MODULE = Record(
    "module",
    (
        Field("sym_name", default=None),
        Field("attributes", default=()),
        Field("body", default=()),
        Field("loc", default=0),
        Field("vhlo_attributes", default=()),
    ),
)
"""``builtin.module``: optional name, attributes, the body region, location.  A module's attributes
are builtin (``mhlo.num_partitions = 1 : i32``: VHLO legalization converts ops, not the module), so
``attributes`` stores each as its VHLO counterpart and the reader converts it back (the writer checks
that this round trip is exact); ``vhlo_attributes`` keeps attributes that already were VHLO.  Both are
flat [name, entry, ...] lists sorted by name."""

OP = Record(
    "op",
    (
        Field("code", required=True),
        Field("operands", default=()),
        Field("result_types", default=()),
        Field("loc", default=0),
        Field("attributes", default=()),
        Field("regions", default=()),
        Field("extra_attributes", default=()),
    ),
)
"""An operation.  ``operands`` are relative value references (1 = the value defined last in the
enclosing scopes); ``loc`` is the location reference minus the previous op's (ops in pre-order: an
op before the ops of its regions), so 0 -- the default -- repeats the previous op's location and a
module parsed from text spends one byte per op on it; ``result_types`` is a list of type entries,
or the entry itself for the common single result; ``attributes`` follows the op fork's attribute list in ``specs/ops.toml`` (an
entry reference, or nil when absent); ``extra_attributes`` holds attributes the fork does not declare
(discardable ones) as a flat [name, entry, ...] list sorted by name."""

OTHER_OP = Record(
    "other_op",
    (
        Field("name", required=True),
        Field("operands", default=()),
        Field("result_types", default=()),
        Field("loc", default=0),
        Field("properties", default=()),
        Field("regions", default=()),
        Field("attributes", default=()),
    ),
)
"""An operation of another dialect (``allow_other_dialects``: Shardy's ``sdy.mesh``,
``sdy.manual_computation`` ... and the ``builtin.unrealized_conversion_cast`` between them and the
VHLO), where an op record may stand: told apart by its first field, the op's full name (a string;
an op record's is its integer code).  ``operands``, ``result_types``, ``loc`` and ``regions`` as an op
record's; ``properties`` and ``attributes`` (discardable) as flat [name, entry, ...] lists sorted by
name, the entries text entries when not VHLO.  A reader that predates it refuses the record at its
name (an op code must be an integer)."""

BLOCK = Record(
    "block",
    (
        Field("arg_types", default=()),
        Field("ops", default=()),
        Field("arg_locs", default=()),
    ),
)
"""A block: argument types, operations, argument locations (all 0 -> omitted).  A region is a plain
list of blocks."""

CURRENT_SCHEMA = Schema(
    format_version=1,
    records={r.name: r for r in (HEADER, BODY, ENTRY, MODULE, OP, OTHER_OP, BLOCK)},
    first_target=FORMAT_VERSIONS,
)
