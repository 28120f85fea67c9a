"""Probe directories read back: what ``interpreter.probe`` wrote (``--probe-output-dir``), typed.

A probe directory holds ``probe<N>.npy`` files and ``index.csv``, one line per probed value:
``probe_id,type,path`` (``interp.probe``'s id, the value's tensor type as MLIR prints it, the file).
The type makes each file exact: bf16/f8/i4 values stored as their bits, and the forms upstream's
interpreter writes (``interpreter.storage``), are decoded to the type's dtype.  A probe inside a
loop is written once per iteration: its entries are numbered by ``iteration`` in file order.

A file is found beside its ``index.csv`` (by name) first, so a directory that was moved or copied
still reads; the path as written is the fallback.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter.shapes import check_value
from stablehlo_py.io.errors import InputError
from stablehlo_py.io.npy import read_npy, typed
from stablehlo_py.semantics.ir_dtypes import dtype_of_type

__all__ = ["INDEX_FILE", "ProbeEntry", "entry_for_file", "load_probe", "read_index", "read_probes"]

INDEX_FILE = "index.csv"


@dataclass(frozen=True)
class ProbeEntry:
    """One line of ``index.csv``."""

    probe_id: str
    type_text: str
    path: str
    """The file, resolved (beside the index when it is there)."""
    iteration: int
    """How many earlier lines have the same ``probe_id``."""
    line: int
    index: str
    """The ``index.csv`` this line is from."""

    @property
    def where(self) -> str:
        return f"{self.index}:{self.line}"


def _split_line(line: str) -> tuple[str, str, str] | None:
    """(probe id, type, path) of an index line; the type is bracket-matched (a quantized type
    holds commas)."""
    start = line.find(",tensor<")
    if start < 0:
        return None
    depth, i = 0, start + 1
    while i < len(line):
        if line[i] == "<":
            depth += 1
        elif line[i] == ">" and line[i - 1] != "-":
            depth -= 1
            if depth == 0:
                break
        i += 1
    if depth != 0 or line[i + 1 : i + 2] != ",":
        return None
    return line[:start], line[start + 1 : i + 1], line[i + 2 :]


def read_index(directory: str | os.PathLike[str]) -> list[ProbeEntry]:
    """The entries of ``directory/index.csv`` in file order (InputError when the directory has no
    index or a line does not read)."""
    directory = os.fspath(directory)
    index = os.path.join(directory, INDEX_FILE)
    try:
        with open(index, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise InputError(
            f"{directory} has no {INDEX_FILE}: a probe directory is what "
            "`stablehlo-translate --interpret --probe-output-dir=DIR` writes"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(f"cannot read '{index}': {getattr(e, 'strerror', None) or e}") from None
    entries: list[ProbeEntry] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = _split_line(line)
        if parts is None:
            raise InputError(
                "is not a probe index line (probe_id,tensor<...>,path)",
                location=f"{index}:{number}",
            )
        probe_id, type_text, written = parts
        beside = os.path.join(directory, os.path.basename(written))
        path = beside if os.path.exists(beside) else written
        entries.append(ProbeEntry(probe_id, type_text, path, seen.get(probe_id, 0), number, index))
        seen[probe_id] = seen.get(probe_id, 0) + 1
    return entries


def entry_for_file(path: str | os.PathLike[str]) -> ProbeEntry | None:
    """The index entry of a probe file, from the ``index.csv`` beside it; None when there is no
    index there or it does not list the file."""
    path = os.fspath(path)
    directory = os.path.dirname(path) or "."
    if not os.path.exists(os.path.join(directory, INDEX_FILE)):
        return None
    for entry in read_index(directory):
        try:
            if os.path.samefile(entry.path, path):
                return entry
        except OSError:
            continue
    return None


def probe_type(entry: ProbeEntry) -> Attribute:
    """The IR type of an entry's value (InputError at its index line when it does not parse)."""
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    try:
        p = Parser(entry.type_text, default_registry(), entry.where)
        t = p.parse_type()
        if not p.at_end():
            raise StableHLOError("trailing text")
        dtype_of_type(t)
    except StableHLOError as e:
        raise InputError(
            f"type '{entry.type_text}' of probe {entry.probe_id} does not read: {e.message}",
            location=entry.where,
        ) from None
    return t


def load_probe(entry: ProbeEntry) -> np.ndarray:
    """The value of an entry: its file read (memory-mapped) and decoded to its type exactly
    (InputError naming the file when its dtype or shape does not fit the index's type)."""
    t = probe_type(entry)
    stored = read_npy(entry.path)
    value = typed(
        stored,
        dtype_of_type(t),
        where=entry.path,
        target=f"{entry.where} says probe {entry.probe_id} is {entry.type_text}",
        foreign=True,
        fix="the file does not belong to this index",
    )
    try:
        check_value(t, value, f"{entry.path} (probe {entry.probe_id})")
    except StableHLOError as e:
        raise InputError(e.message) from None
    return value


def read_probes(directory: str | os.PathLike[str], iteration: int = 0) -> dict[str, np.ndarray]:
    """``probe_id -> value`` of a probe directory, each typed exactly by ``index.csv``: the
    ``iteration``-th value of each probe (0: the first; probes run fewer times are left out)."""
    return {
        e.probe_id: load_probe(e) for e in read_index(directory) if e.iteration == iteration
    }
