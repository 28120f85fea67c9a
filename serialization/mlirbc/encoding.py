"""MLIR bytecode primitives: PrefixVarInt, zigzag, APInt/APFloat, sections, the byte reader.

MLIR's varint is *PrefixVarInt*, not LEB128: the number of trailing zero bits of the first byte is
the number of extra bytes, and the value is the little-endian word shifted right by (extra + 1).  A
first byte of ``00`` is followed by a raw u64.  See ``../shared/reference/mlir-bytecode.md`` §1.1 and
MLIR's ``EncodingEmitter::emitVarInt`` / ``EncodingReader::parseVarInt``.

The :class:`Reader` checks every read against the end of its buffer and raises :class:`BytecodeError`
with the absolute byte offset; nothing is allocated from a size before the bytes are known to exist.
"""

from __future__ import annotations

import struct

__all__ = [
    "MAGIC",
    "SECTION_NAMES",
    "BytecodeError",
    "Emitter",
    "Reader",
    "Section",
    "varint_bytes",
]

MAGIC = b"ML\xefR"
ALIGNMENT_BYTE = 0xCB
_U64 = (1 << 64) - 1


class Section:
    """Section ids (``mlir/lib/Bytecode/Encoding.h``)."""

    STRING = 0
    DIALECT = 1
    ATTR_TYPE = 2
    ATTR_TYPE_OFFSET = 3
    IR = 4
    RESOURCE = 5
    RESOURCE_OFFSET = 6
    DIALECT_VERSIONS = 7
    PROPERTIES = 8
    COUNT = 9


SECTION_NAMES = {
    0: "string",
    1: "dialect",
    2: "attribute/type",
    3: "attribute/type offset",
    4: "IR",
    5: "resource",
    6: "resource offset",
    7: "dialect versions",
    8: "properties",
}


class BytecodeError(Exception):
    """A malformed byte sequence; ``offset`` is absolute in the artifact."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


def _multi_byte(value: int) -> bytes:
    if value < 0 or value >> 64:
        raise ValueError(f"a PrefixVarInt holds an unsigned 64-bit value, not {value}")
    it = value >> 7
    for n in range(2, 9):
        it >>= 7
        if it == 0:
            enc = ((value << 1) | 1) << (n - 1)
            return enc.to_bytes(8, "little")[:n]
    return b"\x00" + value.to_bytes(8, "little")


_SMALL = [bytes(((v << 1) | 1,)) for v in range(128)]


def varint_bytes(value: int) -> bytes:
    """The PrefixVarInt encoding of an unsigned 64-bit value."""
    if 0 <= value < 128:
        return _SMALL[value]
    return _multi_byte(value)


def zigzag(value: int) -> int:
    """Signed (or 64-bit unsigned) value -> zigzag, as ``emitSignedVarInt`` on a uint64."""
    value &= _U64
    signed = value - (1 << 64) if value >> 63 else value
    return ((value << 1) & _U64) ^ (signed >> 63 & _U64)


def unzigzag(value: int) -> int:
    """Zigzag -> signed 64-bit value."""
    return (value >> 1) ^ -(value & 1)


class Emitter:
    """A growing byte buffer with MLIR's emission primitives.

    `large(data)` appends a large buffer by reference (the buffers written so far and it become
    pieces of the emitter, `pieces()`): a 1 GiB constant is not copied into the section's buffer.
    Only emitters whose pieces their user reads (`pieces()`, not `buf`) may take `large`."""

    __slots__ = ("_done", "_done_len", "buf")

    def __init__(self) -> None:
        self.buf = bytearray()
        self._done: list[bytes | bytearray] = []
        self._done_len = 0

    def __len__(self) -> int:
        return self._done_len + len(self.buf)

    def large(self, data: bytes) -> None:
        if self.buf:
            self._done.append(self.buf)
            self._done_len += len(self.buf)
            self.buf = bytearray()
        self._done.append(data)
        self._done_len += len(data)

    def pieces(self) -> list[bytes | bytearray]:
        """The bytes written, in order, as buffers (joined: the emitter's contents)."""
        return [*self._done, self.buf]

    def byte(self, b: int) -> None:
        self.buf.append(b)

    def raw(self, data: bytes | bytearray) -> None:
        self.buf += data

    def varint(self, value: int) -> None:
        if value < 128:
            self.buf.append((value << 1) | 1)
        else:
            self.buf += _multi_byte(value)

    def svarint(self, value: int) -> None:
        self.varint(zigzag(value))

    def varint_flag(self, value: int, flag: bool) -> None:
        self.varint((value << 1) | (1 if flag else 0))

    def cstring(self, s: bytes) -> None:
        self.buf += s
        self.buf.append(0)

    def section(self, code: int, body: bytes | bytearray) -> None:
        """A section without alignment (VHLO and StableHLO bytecode never align)."""
        self.buf.append(code)
        self.varint(len(body))
        self.buf += body

    def apint(self, value: int, width: int) -> None:
        """``writeAPIntWithKnownWidth``: ``value`` is taken modulo 2**width (zero-extended)."""
        value &= (1 << width) - 1
        if width <= 8:
            self.buf.append(value)
        elif width <= 64:
            self.svarint(value)
        else:
            words = []
            v = value
            while v:
                words.append(v & _U64)
                v >>= 64
            n = max(1, len(words))
            self.varint(n)
            for i in range(n):
                self.svarint(words[i] if i < len(words) else 0)


class Reader:
    """Bounds-checked reading of a byte range ``[pos, end)`` of ``data``."""

    __slots__ = ("data", "end", "pos", "what")

    def __init__(
        self, data: bytes | memoryview, pos: int = 0, end: int | None = None, what: str = ""
    ):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end
        self.what = what

    def fail(self, message: str, offset: int | None = None) -> BytecodeError:
        where = f" in the {self.what} section" if self.what else ""
        return BytecodeError(message + where, self.pos if offset is None else offset)

    def at_end(self) -> bool:
        return self.pos >= self.end

    def remaining(self) -> int:
        return self.end - self.pos

    def byte(self) -> int:
        if self.pos >= self.end:
            raise self.fail("unexpected end of data (expected a byte)")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def bytes(self, n: int) -> bytes:
        if n < 0 or n > self.end - self.pos:
            raise self.fail(
                f"a length of {n} bytes runs past the end ({self.end - self.pos} bytes remain)"
            )
        out = bytes(self.data[self.pos : self.pos + n])
        self.pos += n
        return out

    def varint(self) -> int:
        pos = self.pos
        if pos >= self.end:
            raise self.fail("unexpected end of data (expected a varint)")
        first = self.data[pos]
        if first & 1:
            self.pos = pos + 1
            return first >> 1
        if first == 0:
            if self.end - pos < 9:
                raise self.fail("truncated 9-byte varint")
            self.pos = pos + 9
            return int.from_bytes(self.data[pos + 1 : pos + 9], "little")
        extra = (first & -first).bit_length() - 1
        n = extra + 1
        if self.end - pos < n:
            raise self.fail(f"truncated {n}-byte varint")
        self.pos = pos + n
        return int.from_bytes(self.data[pos : pos + n], "little") >> n

    def svarint(self) -> int:
        return unzigzag(self.varint())

    def varint_flag(self) -> tuple[int, bool]:
        v = self.varint()
        return v >> 1, bool(v & 1)

    def count(self, per_item: int = 1, what: str = "items") -> int:
        """A list length, checked against the bytes left (each item takes >= ``per_item`` bytes)."""
        pos = self.pos
        n = self.varint()
        if per_item and n * per_item > self.end - self.pos:
            raise self.fail(
                f"a list of {n} {what} cannot fit in the {self.end - self.pos} bytes left", pos
            )
        return n

    def cstring(self) -> bytes:
        idx = self.data.find(b"\x00", self.pos, self.end) if isinstance(self.data, bytes) else -1
        if idx < 0:
            if not isinstance(self.data, bytes):
                for i in range(self.pos, self.end):
                    if self.data[i] == 0:
                        idx = i
                        break
            if idx < 0:
                raise self.fail("a string has no NUL terminator")
        out = bytes(self.data[self.pos : idx])
        self.pos = idx + 1
        return out

    def apint(self, width: int) -> int:
        """``readAPIntWithKnownWidth``: the value, zero-extended (unsigned), checked to fit."""
        pos = self.pos
        if width <= 8:
            v = self.byte()
        elif width <= 64:
            v = self.varint()
            v = (v >> 1) ^ (-(v & 1) & _U64)  # unzigzag as uint64
        else:
            n = self.count(1, "APInt words")
            words = bytearray()
            for _ in range(n):  # assembled at the end: shifting a growing int is quadratic
                w = self.varint()
                words += ((w >> 1) ^ (-(w & 1) & _U64)).to_bytes(8, "little")
            v = int.from_bytes(words, "little")
        if v >> width:
            raise self.fail(f"integer value {v:#x} does not fit in {width} bits", pos)
        return v

    def section_header(self) -> tuple[int, int, int]:
        """(section id, body start, body end); alignment padding is checked and skipped."""
        start = self.pos
        code = self.byte()
        sid = code & 0x7F
        length = self.varint()
        if code & 0x80:
            align = self.varint()
            if align == 0 or align & (align - 1) or align > 1 << 20:
                raise self.fail(f"section alignment {align} is not a power of two", start)
            while self.pos % align:
                if self.byte() != ALIGNMENT_BYTE:
                    raise self.fail("section padding byte is not 0xCB", self.pos - 1)
        if length > self.end - self.pos:
            name = SECTION_NAMES.get(sid)
            what = f"the {name} section" if name else f"a section with the unknown id {sid}"
            raise BytecodeError(
                f"{what} declares {length} bytes but only {self.end - self.pos} remain", start
            )
        body = self.pos
        self.pos += length
        return sid, body, body + length


def string_section(strings: list[bytes]) -> bytes:
    """The string section's body: the count, the sizes (each with its NUL) in reverse order, then
    the NUL-terminated strings."""
    e = Emitter()
    e.varint(len(strings))
    for st in reversed(strings):
        e.varint(len(st) + 1)
    for st in strings:
        e.cstring(st)
    return bytes(e.buf)


_PACK_F64 = struct.Struct("<d")


def f64_bits(value: float) -> int:
    return int.from_bytes(_PACK_F64.pack(value), "little")


def bits_f64(bits: int) -> float:
    return _PACK_F64.unpack(bits.to_bytes(8, "little"))[0]
