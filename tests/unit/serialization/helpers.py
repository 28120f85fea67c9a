"""Shared helpers: a representative program, re-encoding an artifact after editing its records
(how the tests play a newer or older writer, or corrupt a record on purpose), and the section table
of MLIR bytecode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
from stablehlo_py.serialization.format import MAGIC
from stablehlo_py.serialization.mlirbc.encoding import Reader
from stablehlo_py.serialization.reader import read_raw

PROGRAM = (Path(__file__).parent / "program.mlir").read_text()


def rewrite(data: bytes, edit: Callable[[list[Any], list[Any]], None]) -> bytes:
    """Decode header and sections, let ``edit(header, sections)`` change them in place, re-encode."""
    raw = read_raw(data)
    up = msgpack.Unpacker(raw=False)
    up.feed(data[len(MAGIC) :])
    header = up.unpack()
    sections = [s for s in raw.sections]
    edit(header, sections)
    while sections and not sections[-1]:
        sections.pop()
    body = b"".join(msgpack.packb(s, use_bin_type=True) for s in sections)
    header[3] = len(body)
    return MAGIC + msgpack.packb(header, use_bin_type=True) + body


def first_op(sections: list[Any]) -> list[Any]:
    """The first op record of the module body (the first func)."""
    module = sections[2]
    return module[2][0][1][0]


def bytecode_sections(data: bytes) -> dict[int, tuple[int, int]]:
    """The (start, end) of each section of the MLIR bytecode ``data``, by section id (the last
    section of an id)."""
    r = Reader(data, 4)
    r.varint()
    r.cstring()
    sections = {}
    while not r.at_end():
        sid, start, end = r.section_header()
        sections[sid] = (start, end)
    return sections
