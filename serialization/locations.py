"""The locations section: MLIR locations, structured so that file names and names are stored once.

In memory a location is its MLIR text (``TextLoc``: ``"f.py":12:7``, ``"jit(f)/add"("f.py":12:7)``,
``callsite("g"("f.py":3:1) at "f.py":9:2)``, ``fused["a", "b"]``...).  On the wire the section is a list
of items; an op refers to item ``i`` as ``i + 1`` (0 = no location).  Each item is

* a **string**: a location written as text (any form not listed below), or -- when referenced by
  another item -- a file name or a name, kept exactly as written between the quotes (escapes
  included);
* ``[0, file, line, col]``: ``"file":line:col`` (``file`` refers to a string item);
* ``[1, name, child]``: ``"name"`` or ``"name"(child)`` (``child`` 0 when absent);
* ``[2, callee, caller]``: ``callsite(callee at caller)``;
* ``[3, [loc, ...]]``: ``fused[loc, ...]``;
* ``[4, line_delta, col]``: ``"file":line:col`` in the file of the previous file item (kind 0 or 4),
  ``line`` = that item's line + ``line_delta`` (ops parsed from one file cost a few bytes each);
* ``[5, file, line, col, end_line_delta, end_col]``: ``"file":line:col to :end_col`` (delta 0) or
  ``"file":line:col to end_line:end_col`` (JAX's debug locations are ranges).

References are 1-based and point to earlier items.  The writer stores a location structurally only
when printing the structure gives back exactly the same text; anything else (ranges, fused metadata,
unusual spacing) is stored as text, so nothing is ever lost.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["LocationTable", "render_locations"]

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_INT = re.compile(r"[0-9]+")
_FILE_LINE_COL = re.compile(r'"((?:[^"\\]|\\.)*)":([0-9]+):([0-9]+)')

FILE_LINE_COL = 0
NAME = 1
CALLSITE = 2
FUSED = 3
SAME_FILE = 4
RANGE = 5


class _NoStructure(Exception):
    pass


class LocationTable:
    """Builds the locations section (writer side)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.by_text: dict[str, int] = {}
        self.by_item: dict[Any, int] = {}
        self.last_file = 0
        self.last_line = 0

    def ref(self, text: str) -> int:
        """1-based reference of a location text (0 for ``unknown``)."""
        if text == "unknown":
            return 0
        got = self.by_text.get(text)
        if got is not None:
            return got
        m = _FILE_LINE_COL.fullmatch(text)
        if (
            m is not None
            and str(int(m.group(2))) == m.group(2)
            and str(int(m.group(3))) == m.group(3)
        ):
            r = self.file_line_col(m.group(1), int(m.group(2)), int(m.group(3)))
            self.by_text[text] = r
            return r
        mark = len(self.items)
        try:
            r, end = self._loc(text, 0)
            if end != len(text):
                raise _NoStructure
        except _NoStructure:
            del self.items[mark:]
            for k in [k for k, v in self.by_item.items() if v > mark]:
                del self.by_item[k]
            r = self._add(("s", text), text)
        self.by_text[text] = r
        return r

    def file_line_col(self, file: str, line: int, col: int) -> int:
        """Reference of ``"file":line:col`` (``file`` as written between the quotes)."""
        key = (FILE_LINE_COL, file, line, col)
        got = self.by_item.get(key)
        if got is not None:
            return got
        f = self._string(file)
        k = (FILE_LINE_COL, f, line, col)
        r = self.by_item.get(k)
        if r is None:
            if self.last_file == f:
                r = self._add(k, [SAME_FILE, line - self.last_line, col])
            else:
                r = self._add(k, [FILE_LINE_COL, f, line, col])
            self.last_file, self.last_line = f, line
        self.by_item[key] = r
        return r

    def _add(self, key: Any, item: Any) -> int:
        got = self.by_item.get(key)
        if got is not None:
            return got
        self.items.append(item)
        r = len(self.items)
        self.by_item[key] = r
        return r

    def _string(self, raw: str) -> int:
        return self._add(("s", raw), raw)

    def _loc(self, text: str, pos: int) -> tuple[int, int]:
        if text.startswith('"', pos):
            m = _STRING.match(text, pos)
            if m is None:
                raise _NoStructure
            raw = m.group(1)
            pos = m.end()
            if text.startswith(":", pos):
                line = _INT.match(text, pos + 1)
                if line is None or not text.startswith(":", line.end()):
                    raise _NoStructure
                col = _INT.match(text, line.end() + 1)
                if col is None:
                    raise _NoStructure
                ln, cl = int(line.group(0)), int(col.group(0))
                if str(ln) != line.group(0) or str(cl) != col.group(0):
                    raise _NoStructure
                if not text.startswith(" to ", col.end()):
                    return self.file_line_col(raw, ln, cl), col.end()
                # FileLineColRange: `to :C2` on the same line, `to L2:C2` otherwise
                pos = col.end() + 4
                end_line = ln
                if not text.startswith(":", pos):
                    m2 = _INT.match(text, pos)
                    if m2 is None or str(int(m2.group(0))) != m2.group(0):
                        raise _NoStructure
                    end_line = int(m2.group(0))
                    if end_line == ln:
                        raise _NoStructure  # MLIR prints `to :C2` then; keep this spelling as text
                    pos = m2.end()
                if not text.startswith(":", pos):
                    raise _NoStructure
                m3 = _INT.match(text, pos + 1)
                if m3 is None or str(int(m3.group(0))) != m3.group(0):
                    raise _NoStructure
                f = self._string(raw)
                key = (RANGE, f, ln, cl, end_line, int(m3.group(0)))
                item = [RANGE, f, ln, cl, end_line - ln, int(m3.group(0))]
                return self._add(key, item), m3.end()
            child = 0
            if text.startswith("(", pos):
                child, pos = self._loc(text, pos + 1)
                if not text.startswith(")", pos):
                    raise _NoStructure
                pos += 1
            n = self._string(raw)
            return self._add((NAME, n, child), [NAME, n, child]), pos
        if text.startswith("callsite(", pos):
            callee, pos = self._loc(text, pos + 9)
            if not text.startswith(" at ", pos):
                raise _NoStructure
            caller, pos = self._loc(text, pos + 4)
            if not text.startswith(")", pos):
                raise _NoStructure
            return self._add((CALLSITE, callee, caller), [CALLSITE, callee, caller]), pos + 1
        if text.startswith("fused[", pos):
            pos += 6
            parts: list[int] = []
            while True:
                r, pos = self._loc(text, pos)
                parts.append(r)
                if text.startswith(", ", pos):
                    pos += 2
                    continue
                if text.startswith("]", pos):
                    break
                raise _NoStructure
            return self._add((FUSED, tuple(parts)), [FUSED, parts]), pos + 1
        if text.startswith("unknown", pos):
            raise _NoStructure  # only meaningful at top level (0); nested 'unknown' stays text
        raise _NoStructure


class LocationError(Exception):
    def __init__(self, index: int, path: list[int], message: str):
        super().__init__(message)
        self.index = index
        self.path = path
        self.message = message


def render_locations(items: Any, budget: int) -> list[str | None]:
    """The text of every item (reader side), index 0 = no location.  Raises LocationError (item index,
    path inside the item, message) on a malformed item, or when the texts would exceed ``budget``
    characters in total (shared sub-locations let a few bytes describe a huge text)."""
    if type(items) is not list:
        raise LocationError(-1, [], "the locs section must be an array")
    texts: list[str | None] = [None]
    is_string: list[bool] = [False]
    last_file: str | None = None
    last_line = 0

    def ref(i: int, v: Any, path: list[int], what: str, allow_zero: bool = False) -> str | None:
        if type(v) is not int or not (0 if allow_zero else 1) <= v <= i:
            raise LocationError(i, path, f"{what} reference {v!r} is not an earlier location item")
        return texts[v]

    for i, item in enumerate(items):
        if type(item) is str:
            budget -= len(item)
            texts.append(item)
            is_string.append(True)
            continue
        if type(item) is not list or not item or type(item[0]) is not int:
            raise LocationError(i, [], "a location item must be a string or an array [kind, ...]")
        kind = item[0]
        n = len(item)
        if kind == FILE_LINE_COL and n == 4:
            f = ref(i, item[1], [1], "file")
            if not is_string[item[1]]:
                raise LocationError(i, [1], "the file of a location must be a string item")
            line, col = item[2], item[3]
            if type(line) is not int or type(col) is not int or line < 0 or col < 0:
                raise LocationError(i, [2], "line and column must be non-negative integers")
            text = f'"{f}":{line}:{col}'
            last_file, last_line = f, line
        elif kind == SAME_FILE and n == 3:
            if last_file is None:
                raise LocationError(i, [0], "a same-file location needs an earlier file location")
            delta, col = item[1], item[2]
            if type(delta) is not int or type(col) is not int or last_line + delta < 0 or col < 0:
                raise LocationError(
                    i, [1], "line delta and column must be integers (line >= 0, column >= 0)"
                )
            last_line += delta
            text = f'"{last_file}":{last_line}:{col}'
        elif kind == RANGE and n == 6:
            f = ref(i, item[1], [1], "file")
            if not is_string[item[1]]:
                raise LocationError(i, [1], "the file of a location must be a string item")
            line, col, delta, end_col = item[2:6]
            if (
                any(type(x) is not int for x in item[2:6])
                or min(line, col, end_col, line + delta) < 0
            ):
                raise LocationError(i, [2], "range bounds must be non-negative integers")
            end = f":{end_col}" if delta == 0 else f"{line + delta}:{end_col}"
            text = f'"{f}":{line}:{col} to {end}'
        elif kind == NAME and n == 3:
            name = ref(i, item[1], [1], "name")
            if not is_string[item[1]]:
                raise LocationError(i, [1], "the name of a location must be a string item")
            child = ref(i, item[2], [2], "child", allow_zero=True)
            text = f'"{name}"' if child is None else f'"{name}"({child})'
        elif kind == CALLSITE and n == 3:
            callee = ref(i, item[1], [1], "callee")
            caller = ref(i, item[2], [2], "caller")
            text = f"callsite({callee} at {caller})"
        elif kind == FUSED and n == 2 and type(item[1]) is list and item[1]:
            parts = [ref(i, v, [1, j], "fused part") for j, v in enumerate(item[1])]
            text = "fused[" + ", ".join(p or "" for p in parts) + "]"
        else:
            raise LocationError(i, [0], f"unknown location item kind {kind!r} with {n} fields")
        budget -= len(text)
        if budget < 0:
            raise LocationError(
                i, [], "the location texts would take more memory than the artifact justifies"
            )
        texts.append(text)
        is_string.append(False)
    return texts
