"""serialization/mlirbc/encoding.py: what the mutation run of the `encoding` group found unchecked.

Expected bytes are MLIR's, from the format reference (../shared/reference/mlir-bytecode.md §1.1 and
"APInt and APFloat", measured against jaxlib), or derived in the test from the definition of
PrefixVarInt: a first byte with k trailing zero bits is followed by k bytes, the value being the
little-endian word >> (k + 1); ``00`` is followed by a raw u64."""

from __future__ import annotations

import math

import pytest
from stablehlo_py.serialization.mlirbc.encoding import (
    BytecodeError,
    Emitter,
    Reader,
    bits_f64,
    f64_bits,
    varint_bytes,
    zigzag,
)


def _prefix_varint(value: int) -> bytes:
    """PrefixVarInt from its definition: the fewest bytes n <= 8 whose 8n - n value bits hold it."""
    for n in range(1, 9):
        if value < 1 << (7 * n):
            word = (value << n) | (1 << (n - 1))  # n - 1 zero bits, a one, then the value
            return word.to_bytes(n, "little")
    return b"\x00" + value.to_bytes(8, "little")


EDGES = sorted({0, 1, 127, (1 << 64) - 1} | {(1 << (7 * k)) + d for k in range(1, 10) for d in (-1, 0)}
               - {1 << 63})
EDGES = [v for v in EDGES if v < 1 << 64]


@pytest.mark.parametrize("value", EDGES)
def test_varint_every_width_edge(value: int) -> None:
    want = _prefix_varint(value)
    assert varint_bytes(value) == want
    e = Emitter()
    e.varint(value)
    assert bytes(e.buf) == want
    r = Reader(want + b"\x55")
    assert r.varint() == value and r.pos == len(want)


def test_varint_widths_are_mlirs() -> None:
    # 2**49 .. 2**56 - 1 take 8 bytes in MLIR (7 * 8 = 56 value bits); 2**56 and above take 9
    assert len(varint_bytes((1 << 49))) == 8
    assert len(varint_bytes((1 << 56) - 1)) == 8
    assert len(varint_bytes(1 << 56)) == 9
    assert varint_bytes(1 << 56)[0] == 0
    assert len(varint_bytes((1 << 14) - 1)) == 2 and len(varint_bytes(1 << 14)) == 3


def test_zigzag_of_the_largest_magnitudes() -> None:
    assert zigzag(-1) == 1
    assert zigzag((1 << 63) - 1) == (1 << 64) - 2
    assert zigzag(-(1 << 63)) == (1 << 64) - 1
    assert zigzag(1 << 63) == (1 << 64) - 1  # the same 64 bits given unsigned


# (width, value, bytes) measured by the reference (jaxlib's writer)
MEASURED = [
    (32, -1, bytes.fromhex("d0ffffff3f")),
    (64, -1, bytes.fromhex("03")),
    (8, -1, bytes.fromhex("ff")),
    (32, 0x3F800000, bytes.fromhex("100000e00f")),  # f32 1.0
    (32, 0x80000000, bytes.fromhex("1000000020")),  # f32 -0.0
    (64, 0x8000000000000000, bytes.fromhex("00ffffffffffffffff")),  # f64 -0.0
]


@pytest.mark.parametrize("width,value,encoded", MEASURED)
def test_apint_bytes_as_measured(width: int, value: int, encoded: bytes) -> None:
    e = Emitter()
    e.apint(value, width)
    assert bytes(e.buf) == encoded
    assert Reader(encoded).apint(width) == value % (1 << width)


def _zz(word: int) -> bytes:
    """svarint of a u64 word: zigzag as int64, then PrefixVarInt."""
    signed = word - (1 << 64) if word >> 63 else word
    return _prefix_varint(((signed << 1) ^ (signed >> 63)) & ((1 << 64) - 1))


@pytest.mark.parametrize(
    "width,value",
    [(1, 1), (7, 100), (8, 255), (9, 256), (9, 511), (16, 0x8000), (63, (1 << 63) - 1),
     (64, (1 << 64) - 1), (64, 1 << 63)],
)
def test_apint_narrow_widths(width: int, value: int) -> None:
    want = bytes([value]) if width <= 8 else _zz(value)
    e = Emitter()
    e.apint(value, width)
    assert bytes(e.buf) == want
    r = Reader(want)
    assert r.apint(width) == value and r.at_end()


@pytest.mark.parametrize(
    "width,value",
    [(65, 0), (65, 1 << 64), (128, (1 << 128) - 1), (128, 5), (128, (1 << 64) + 7),
     (192, 1 << 191), (256, (1 << 200) | 3)],
)
def test_apint_wide_is_a_word_count_and_svarint_words(width: int, value: int) -> None:
    words = []
    v = value
    while v:
        words.append(v & ((1 << 64) - 1))
        v >>= 64
    words = words or [0]  # APInt::getActiveWords is at least 1
    want = _prefix_varint(len(words)) + b"".join(_zz(w) for w in words)
    e = Emitter()
    e.apint(value, width)
    assert bytes(e.buf) == want
    r = Reader(want)
    assert r.apint(width) == value and r.at_end()


def test_apint_writer_takes_values_modulo_the_width() -> None:
    for width, value in [(8, -2), (16, -1), (100, -1), (130, 1 << 130)]:
        a, b = Emitter(), Emitter()
        a.apint(value, width)
        b.apint(value % (1 << width), width)
        assert bytes(a.buf) == bytes(b.buf)


@pytest.mark.parametrize(
    "width,encoded",
    [
        (16, _zz(1 << 16)),
        (63, _zz(1 << 63)),
        (65, _prefix_varint(2) + _zz(0) + _zz(2)),  # 2**65
        (128, _prefix_varint(3) + _zz(0) + _zz(0) + _zz(1)),  # 2**128
    ],
)
def test_apint_reader_rejects_a_value_wider_than_its_type(width: int, encoded: bytes) -> None:
    data = b"\x77" + encoded  # something before, so the offset is not 0
    r = Reader(data, pos=1, what="attribute/type")
    with pytest.raises(BytecodeError) as ei:
        r.apint(width)
    err = ei.value
    assert err.offset == 1
    assert err.message == (
        f"integer value {1 << width:#x} does not fit in {width} bits in the attribute/type section"
    )
    assert str(err) == err.message


def test_apint_reader_max_value_fits() -> None:
    for width in (9, 64, 65, 128):
        e = Emitter()
        e.apint((1 << width) - 1, width)
        assert Reader(bytes(e.buf)).apint(width) == (1 << width) - 1


def test_reader_fail_names_section_and_offset() -> None:
    r = Reader(b"\x01\x02\x03", pos=2, what="IR")
    err = r.fail("boom")
    assert isinstance(err, BytecodeError)
    assert (err.message, err.offset) == ("boom in the IR section", 2)
    err = r.fail("boom", 0)
    assert (err.message, err.offset) == ("boom in the IR section", 0)
    plain = Reader(b"", what="").fail("boom")
    assert (plain.message, plain.offset) == ("boom", 0)


def test_reader_bytes_bounds() -> None:
    r = Reader(b"abcdef", pos=1, end=4)
    assert r.bytes(0) == b""
    assert r.bytes(3) == b"bcd" and r.pos == 4
    r = Reader(b"abcdef", pos=1, end=4, what="string")
    with pytest.raises(BytecodeError) as ei:
        r.bytes(4)
    assert (ei.value.message, ei.value.offset) == (
        "a length of 4 bytes runs past the end (3 bytes remain) in the string section", 1)
    with pytest.raises(BytecodeError) as ei:
        r.bytes(-1)
    assert ei.value.message.startswith("a length of -1 bytes")
    assert r.pos == 1


def test_reader_count_checks_the_bytes_left() -> None:
    # a count of 3 with 3 bytes after it: fits one byte each, not two
    data = b"\xaa" + varint_bytes(3) + b"xyz"
    r = Reader(data, pos=1, what="dialect")
    assert r.count(1) == 3 and r.pos == 2
    r = Reader(data, pos=1, what="dialect")
    with pytest.raises(BytecodeError) as ei:
        r.count(2, "ops")
    assert (ei.value.message, ei.value.offset) == (
        "a list of 3 ops cannot fit in the 3 bytes left in the dialect section", 1)
    assert Reader(varint_bytes(1000), what="x").count(0) == 1000  # per_item 0: no check


def test_emitter_large_keeps_order_and_length() -> None:
    e = Emitter()
    e.raw(b"ab")
    big = b"L" * 10
    e.large(big)
    e.byte(0x21)
    e.large(b"M")
    e.large(b"N")
    assert len(e) == 2 + 10 + 1 + 1 + 1
    pieces = e.pieces()
    assert b"".join(pieces) == b"ab" + big + b"!MN"
    assert any(p is big for p in pieces)  # by reference, not copied
    empty = Emitter()
    empty.large(b"xy")
    assert b"".join(empty.pieces()) == b"xy" and len(empty) == 2


@pytest.mark.parametrize(
    "value,bits",
    [(1.0, 0x3FF0000000000000), (-0.0, 0x8000000000000000), (math.inf, 0x7FF0000000000000),
     (-2.5, 0xC004000000000000), (5e-324, 1)],
)
def test_f64_bits(value: float, bits: int) -> None:
    assert f64_bits(value) == bits
    back = bits_f64(bits)
    assert back == value and math.copysign(1, back) == math.copysign(1, value)


def test_bits_f64_keeps_nan_payload_bits() -> None:
    nan = bits_f64(0x7FF8000000000001)
    assert math.isnan(nan) and f64_bits(nan) == 0x7FF8000000000001


def test_reader_byte_stops_at_its_end_not_the_buffers() -> None:
    r = Reader(b"ab", end=1)
    assert r.byte() == 0x61
    with pytest.raises(BytecodeError) as ei:
        r.byte()
    assert (ei.value.message, ei.value.offset) == ("unexpected end of data (expected a byte)", 1)


def test_reader_varint_errors() -> None:
    with pytest.raises(BytecodeError) as ei:
        Reader(b"\x01", pos=1, what="IR").varint()
    assert (ei.value.message, ei.value.offset) == (
        "unexpected end of data (expected a varint) in the IR section", 1)
    # a 9-byte varint with 8 bytes left, read from a position past 0
    data = b"\xaa\x00" + b"\xff" * 7 + b"\xff\xff"
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=1, end=9).varint()
    assert (ei.value.message, ei.value.offset) == ("truncated 9-byte varint", 1)
    assert Reader(data, pos=1, end=10).varint() == int.from_bytes(data[2:10], "little")
    # a 2-byte varint (first byte ...10) with 1 byte left
    data = b"\xaa\x02\x03"
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=1, end=2).varint()
    assert (ei.value.message, ei.value.offset) == ("truncated 2-byte varint", 1)
    assert Reader(data, pos=1).varint() == 0x0302 >> 2


@pytest.mark.parametrize("kind", [bytes, memoryview])
def test_reader_cstring(kind: type) -> None:
    data = kind(b"\x00a\x00bc\x00de")
    r = Reader(data)
    assert r.cstring() == b"" and r.pos == 1  # an empty string at offset 0
    assert r.cstring() == b"a" and r.pos == 3
    assert r.cstring() == b"bc" and r.pos == 6
    with pytest.raises(BytecodeError) as ei:
        r.cstring()
    assert (ei.value.message, ei.value.offset) == ("a string has no NUL terminator", 6)
    # a NUL past the reader's end is not its terminator
    r = Reader(kind(b"xab\x00"), pos=1, end=3, what="string")
    with pytest.raises(BytecodeError) as ei:
        r.cstring()
    assert (ei.value.message, ei.value.offset) == (
        "a string has no NUL terminator in the string section", 1)


def _header(sid: int, body: bytes, align: int | None = None, pad: int = 0xCB, at: int = 0) -> bytes:
    """A section at offset ``at`` (after ``at`` filler bytes), aligned when ``align`` is given."""
    out = bytearray(b"\xee" * at)
    out.append(sid | (0x80 if align is not None else 0))
    out += varint_bytes(len(body))
    if align is not None:
        out += varint_bytes(align)
        while len(out) % align:
            out.append(pad)
    return bytes(out + body)


@pytest.mark.parametrize("align", [1, 2, 4, 16])
def test_section_header_alignment(align: int) -> None:
    data = _header(4, b"BODY", align, at=3)
    body_at = data.index(b"BODY")
    assert body_at % align == 0
    r = Reader(data, pos=3)
    assert r.section_header() == (4, body_at, body_at + 4)
    assert r.pos == len(data)


def test_section_header_largest_alignment_is_2_to_the_20() -> None:
    big = 1 << 20
    at = big - 5  # header = id, a 1-byte length, a 3-byte alignment: the body starts aligned
    data = _header(5, b"R", big, at=at)
    assert len(data) == big + 1
    assert Reader(data, pos=at).section_header() == (5, big, big + 1)
    data = b"\xee" * 2 + bytes([0x85]) + varint_bytes(1) + varint_bytes(big << 1) + b"R"
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=2).section_header()
    assert (ei.value.message, ei.value.offset) == (
        f"section alignment {big << 1} is not a power of two", 2)


@pytest.mark.parametrize("align", [0, 3, 6, 12])
def test_section_header_rejects_an_alignment_not_a_power_of_two(align: int) -> None:
    data = b"\xee\xee" + bytes([0x84]) + varint_bytes(0) + varint_bytes(align)
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=2).section_header()
    assert (ei.value.message, ei.value.offset) == (
        f"section alignment {align} is not a power of two", 2)


def test_section_header_rejects_a_wrong_padding_byte() -> None:
    data = bytearray(_header(4, b"B", 8, at=1))
    assert data[4] == 0xCB and data[5] == 0xCB
    data[5] = 0xCC
    with pytest.raises(BytecodeError) as ei:
        Reader(bytes(data), pos=1).section_header()
    assert (ei.value.message, ei.value.offset) == ("section padding byte is not 0xCB", 5)


def test_section_header_length_past_the_end() -> None:
    data = b"\xee" + bytes([4]) + varint_bytes(10) + b"short"
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=1).section_header()
    assert (ei.value.message, ei.value.offset) == (
        "the IR section declares 10 bytes but only 5 remain", 1)
    data = b"\xee\xee" + bytes([0x3F]) + varint_bytes(7) + b"abc"
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=2).section_header()
    assert (ei.value.message, ei.value.offset) == (
        "a section with the unknown id 63 declares 7 bytes but only 3 remain", 2)
    # a body that fits exactly is read; a reader's own end bounds it
    data = b"\xee\xee" + bytes([0x3F]) + varint_bytes(3) + b"abc"
    assert Reader(data, pos=2).section_header() == (0x3F, 4, 7)
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=2, end=6).section_header()
    assert ei.value.message == "a section with the unknown id 63 declares 3 bytes but only 2 remain"


def test_reader_count_defaults_one_byte_per_item() -> None:
    r = Reader(varint_bytes(3) + b"xyz")
    assert r.count() == 3
    with pytest.raises(BytecodeError) as ei:
        Reader(varint_bytes(4) + b"xyz").count()
    assert (ei.value.message, ei.value.offset) == ("a list of 4 items cannot fit in the 3 bytes left", 0)


def test_apint_reader_checks_the_word_count_before_reading_words() -> None:
    data = b"\xee" + varint_bytes(1000) + _zz(1) + _zz(2)
    with pytest.raises(BytecodeError) as ei:
        Reader(data, pos=1, what="attribute/type").apint(128)
    assert (ei.value.message, ei.value.offset) == (
        "a list of 1000 APInt words cannot fit in the 2 bytes left in the attribute/type section", 1)
