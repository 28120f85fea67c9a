"""The writer's view of attributes and types: interned entries with their encoding.

MLIR uniques attributes and types by value; an :class:`Entry` is one such value as the bytecode
writer sees it: its dialect, whether it is a type, and its custom encoding as a flat tuple of
``(tag, value)`` items, exactly what the dialect's ``writeAttribute``/``writeType`` would emit:

======== =========================================== ==========================================
tag      value                                       emitted as
======== =========================================== ==========================================
``v``    int                                         varint
``s``    int                                         signed varint (zigzag)
``b``    int                                         one raw byte
``ap``   (width, value)                              ``writeAPIntWithKnownWidth``
``A``    Entry (attribute)                           varint index of the attribute
``T``    Entry (type)                                varint index of the type
``oA``   Entry or None                               optional attribute: 0, or index<<1 | 1
``str``  bytes                                       varint index into the string section
``blob`` bytes                                       varint size + raw bytes
``txt``  bytes                                       (whole entry) NUL-terminated assembly text
======== =========================================== ==========================================

Children (``A``, ``T``, ``oA``) come in the order the dialect writes them, which is also the order
MLIR's IRNumbering visits them (it numbers by running the same writer).  Entries are interned: the
same value is the same :class:`Entry` object, so identity is MLIR's uniquing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Entry", "Interner"]

Item = tuple[str, Any]


class Entry:
    __slots__ = ("dialect", "is_type", "items", "number", "refcount", "seq")

    def __init__(self, dialect: str, is_type: bool, items: tuple[Item, ...], seq: int):
        self.dialect = dialect
        self.is_type = is_type
        self.items = items
        self.refcount = 1
        self.number = -1
        self.seq = seq

    def children(self) -> list[Entry]:
        out = []
        for tag, v in self.items:
            if tag == "A" or tag == "T" or (tag == "oA" and v is not None):
                out.append(v)
        return out

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        kind = "type" if self.is_type else "attr"
        return f"<{self.dialect} {kind} {self.items[:3]}...>"


def counted(tag: str, entries: list[Entry]) -> list[Item]:
    """MLIR bytecode's ``writeList``: the count, then each entry as a ``tag`` item ("A" for an
    attribute, "T" for a type)."""
    return [("v", len(entries)), *((tag, e) for e in entries)]


class Interner:
    """Entries by value, plus memo tables from the toolkit's objects to their entries.

    ``fallback(interner, attr_or_type)`` gives the entry of anything the builtin encodings do not
    cover (another dialect's attribute inside a builtin one, a tensor's encoding, a dialect element
    type); without it such values are not encodable."""

    def __init__(self, fallback: Callable[[Interner, Any], Entry] | None = None) -> None:
        self.by_key: dict[tuple[Any, ...], Entry] = {}
        self.memo: dict[Any, Entry] = {}
        self._seq = 0
        self.fallback = fallback

    def get(self, dialect: str, is_type: bool, items: tuple[Item, ...]) -> Entry:
        key = (dialect, is_type, items)
        e = self.by_key.get(key)
        if e is None:
            e = Entry(dialect, is_type, items, self._seq)
            self._seq += 1
            self.by_key[key] = e
        return e

    def remember(self, key: Any, entry: Entry) -> Entry:
        """Memoize ``entry`` as the entry of ``key`` (a toolkit object); returns it."""
        self.memo[key] = entry
        return entry

    def attr(self, dialect: str, *items: Item) -> Entry:
        return self.get(dialect, False, items)

    def type(self, dialect: str, *items: Item) -> Entry:
        return self.get(dialect, True, items)
