"""Byte offsets inside msgpack data, for error messages only.

The reader decodes each section with msgpack's C unpacker and walks the resulting lists; when it finds
a problem it knows the *path* to the offending value (section, index, index, ...).  These helpers turn
that path into a byte offset, and find the exact byte where undecodable data starts, by walking the
encoding in pure Python.  They run only after something went wrong, so their speed does not matter;
they are iterative (no recursion) and never allocate in proportion to declared sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["first_problem", "offset_of", "skip"]


class Bad(Exception):
    def __init__(self, offset: int, what: str):
        super().__init__(what)
        self.offset = offset
        self.what = what


def _header(data: bytes, pos: int) -> tuple[str, int, int]:
    """(kind, count_or_length, header_size) of the object at ``pos``.  kind is 'scalar' (count =
    payload length), 'array', 'map' or 'ext'."""
    n = len(data)
    if pos >= n:
        raise Bad(pos, "unexpected end of data")
    b = data[pos]

    def need(k: int) -> int:
        if pos + 1 + k > n:
            raise Bad(pos, "unexpected end of data inside a length")
        return int.from_bytes(data[pos + 1 : pos + 1 + k], "big")

    if b <= 0x7F or b >= 0xE0:
        return "scalar", 0, 1
    if 0x80 <= b <= 0x8F:
        return "map", b & 0x0F, 1
    if 0x90 <= b <= 0x9F:
        return "array", b & 0x0F, 1
    if 0xA0 <= b <= 0xBF:
        return "scalar", b & 0x1F, 1
    if b in (0xC0, 0xC2, 0xC3):
        return "scalar", 0, 1
    if b == 0xC1:
        raise Bad(pos, "byte 0xc1 is never used in msgpack")
    fixed = {
        0xCA: 4,
        0xCB: 8,
        0xCC: 1,
        0xCD: 2,
        0xCE: 4,
        0xCF: 8,
        0xD0: 1,
        0xD1: 2,
        0xD2: 4,
        0xD3: 8,
    }
    if b in fixed:
        return "scalar", fixed[b], 1
    if b in (0xC4, 0xD9):
        return "scalar", need(1), 2
    if b in (0xC5, 0xDA):
        return "scalar", need(2), 3
    if b in (0xC6, 0xDB):
        return "scalar", need(4), 5
    if b == 0xDC:
        return "array", need(2), 3
    if b == 0xDD:
        return "array", need(4), 5
    if b == 0xDE:
        return "map", need(2), 3
    if b == 0xDF:
        return "map", need(4), 5
    ext = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
    if b in ext:
        return "ext", ext[b] + 1, 1
    if b == 0xC7:
        return "ext", need(1) + 1, 2
    if b == 0xC8:
        return "ext", need(2) + 1, 3
    return "ext", need(4) + 1, 5  # 0xC9


def skip(data: bytes, pos: int) -> int:
    """End offset of the msgpack object starting at ``pos`` (raises :class:`Bad` on bad data)."""
    remaining = [1]
    while remaining:
        if remaining[-1] == 0:
            remaining.pop()
            continue
        remaining[-1] -= 1
        kind, count, head = _header(data, pos)
        if kind in ("scalar", "ext"):
            end = pos + head + count
            if end > len(data):
                raise Bad(pos, "unexpected end of data inside a value")
            pos = end
        else:
            pos += head
            remaining.append(count * 2 if kind == "map" else count)
    return pos


def offset_of(data: bytes, start: int, path: Sequence[int]) -> int:
    """Offset of the value reached from the object at ``start`` by indexing arrays with ``path``
    (stops early, at the deepest reachable value, if the path does not fit the data)."""
    pos = start
    for index in path:
        try:
            kind, count, head = _header(data, pos)
        except Bad:
            return pos
        if kind != "array" or index >= count:
            return pos
        pos += head
        for _ in range(index):
            try:
                pos = skip(data, pos)
            except Bad as e:
                return e.offset
    return pos


def first_problem(data: bytes, start: int) -> tuple[int, str]:
    """Where and why the object at ``start`` cannot be decoded (offset, what)."""
    try:
        end = skip(data, start)
    except Bad as e:
        return e.offset, e.what
    return end, "the data decodes here"
