"""Every width of MLIR's PrefixVarInt that the bytecode writer emits (1..9 bytes), against an
independent encoder written here from ../shared/reference/mlir-bytecode.md §1.1 and MLIR's
`EncodingEmitter::emitVarInt` / `emitMultiByteVarInt` (mlir/lib/Bytecode/Writer/BytecodeWriter.cpp):

* a value needing 7k bits (k = 1..8) takes k bytes: the first byte has k-1 trailing zero bits then a
  one bit, and the value's bits follow, least significant first;
* a value of 57..64 bits takes 9 bytes: a 0x00 byte then the raw little-endian u64.

So 2^(7k)-1 is the largest k-byte value and 2^(7k) the smallest (k+1)-byte one; 2^49..2^56-1 take
8 bytes (not 9), 2^56..2^64-1 take 9.  Signed values are zigzagged (`(v << 1) ^ (v >> 63)` on
64 bits).  The reader (`Reader.varint`) must return every value and stop after exactly its bytes.
"""

from __future__ import annotations

import random

import pytest
from stablehlo_py.serialization.mlirbc.encoding import (
    BytecodeError,
    Emitter,
    Reader,
    unzigzag,
    varint_bytes,
    zigzag,
)

from stablehlo_py import serialization as S
from stablehlo_py.ir import parse, print_ir

U64 = (1 << 64) - 1


def ref_width(value: int) -> int:
    """Bytes MLIR spends on an unsigned 64-bit value."""
    assert 0 <= value <= U64
    for k in range(1, 9):
        if value < 1 << (7 * k):
            return k
    return 9


def ref_encode(value: int) -> bytes:
    """PrefixVarInt built bit by bit: the marker (k-1 zeros, a one) then the value's 7k bits,
    least significant bit first, packed into k bytes LSB-first."""
    k = ref_width(value)
    if k == 9:
        return bytes([0]) + bytes((value >> (8 * i)) & 0xFF for i in range(8))
    bits = [0] * (k - 1) + [1] + [(value >> i) & 1 for i in range(7 * k)]
    assert len(bits) == 8 * k
    return bytes(sum(bits[8 * j + i] << i for i in range(8)) for j in range(k))


def ref_zigzag(value: int) -> int:
    """Signed 64-bit value -> MLIR's zigzag (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...)."""
    assert -(1 << 63) <= value < 1 << 63
    return 2 * value if value >= 0 else -2 * value - 1


def boundaries() -> list[int]:
    out = {0, 1, 2, U64, U64 - 1, 1 << 63, (1 << 63) - 1}
    for k in range(1, 10):
        for d in (-2, -1, 0, 1):
            v = (1 << (7 * k)) + d
            if 0 <= v <= U64:
                out.add(v)
    return sorted(out)


def test_the_reference_on_the_notes_examples() -> None:
    assert ref_encode(2) == bytes([0x05])
    assert ref_encode(131) == bytes([0x0E, 0x02])
    assert ref_encode(ref_zigzag(-(1 << 63))) == bytes([0x00] + [0xFF] * 8)
    assert ref_encode(0) == b"\x01" and ref_encode(127) == b"\xff"
    assert ref_encode(128) == bytes([0x02, 0x02])


@pytest.mark.parametrize("value", boundaries())
def test_writer_matches_the_reference_at_each_boundary(value: int) -> None:
    expected = ref_encode(value)
    assert len(expected) == ref_width(value)
    assert varint_bytes(value) == expected
    e = Emitter()
    e.varint(value)
    assert bytes(e.buf) == expected


@pytest.mark.parametrize("k", range(1, 10))
def test_each_width_exactly(k: int) -> None:
    lo = 0 if k == 1 else 1 << (7 * (k - 1))
    hi = (1 << (7 * k)) - 1 if k < 9 else U64
    if k == 9:
        lo = 1 << 56
    for v in (lo, lo + 1, (lo + hi) // 2, hi - 1, hi):
        assert len(varint_bytes(v)) == k, (k, v)
        assert varint_bytes(v) == ref_encode(v)


def test_2_49_to_2_56_take_8_bytes_and_2_56_up_take_9() -> None:
    rng = random.Random(49)
    for _ in range(2000):
        v = rng.randrange(1 << 49, 1 << 56)
        assert len(varint_bytes(v)) == 8, v
        assert varint_bytes(v) == ref_encode(v)
        w = rng.randrange(1 << 56, 1 << 64)
        assert len(varint_bytes(w)) == 9, w
        assert varint_bytes(w) == ref_encode(w)
    for e in range(49, 56):
        assert len(varint_bytes(1 << e)) == 8
        assert len(varint_bytes((1 << (e + 1)) - 1)) == 8


def test_random_values_of_every_bit_length() -> None:
    rng = random.Random(7)
    for bits in range(0, 65):
        for _ in range(50):
            v = rng.getrandbits(bits) | (1 << (bits - 1) if bits else 0)
            enc = varint_bytes(v)
            assert enc == ref_encode(v), (bits, v)
            r = Reader(enc + b"\xaa")
            assert r.varint() == v
            assert r.pos == len(enc)


@pytest.mark.parametrize("value", boundaries())
def test_reader_round_trip_stops_after_its_bytes(value: int) -> None:
    enc = ref_encode(value)
    data = b"\x33" + enc + b"\x07"  # a byte before and after
    r = Reader(data, pos=1)
    assert r.varint() == value
    assert r.pos == 1 + len(enc)
    assert r.varint() == 3  # the trailing 0x07 is the next varint
    for cut in range(len(enc)):  # every truncation is an error, not a short value
        with pytest.raises(BytecodeError):
            Reader(enc[:cut]).varint()


def test_reader_accepts_non_canonical_widths_as_mlir_does() -> None:
    """MLIR's reader takes the width from the first byte, whatever the value."""
    for v in (0, 5, 127, 300):
        for k in range(ref_width(v), 9):
            enc = (((v << 1) | 1) << (k - 1)).to_bytes(k, "little")
            r = Reader(enc)
            assert r.varint() == v and r.pos == k
        raw = b"\x00" + v.to_bytes(8, "little")
        assert Reader(raw).varint() == v


def signed_boundaries() -> list[int]:
    out = {0, 1, -1, (1 << 63) - 1, -(1 << 63)}
    for k in range(1, 10):
        for d in (-1, 0):
            m = (1 << (7 * k - 1)) + d  # zigzag doubles: these sit at the width edges
            for v in (m, -m, -m - 1):
                if -(1 << 63) <= v < 1 << 63:
                    out.add(v)
    return sorted(out)


@pytest.mark.parametrize("value", signed_boundaries())
def test_signed_varints(value: int) -> None:
    z = ref_zigzag(value)
    assert zigzag(value) == z
    assert zigzag(value & U64) == z  # a uint64 holding the two's complement, as MLIR passes it
    assert unzigzag(z) == value
    e = Emitter()
    e.svarint(value)
    assert bytes(e.buf) == ref_encode(z)
    r = Reader(bytes(e.buf))
    assert r.svarint() == value and r.at_end()


def test_signed_width_edges() -> None:
    for k in range(1, 9):
        top = (1 << (7 * k - 1)) - 1  # largest non-negative value in k bytes
        assert len(varint_bytes(zigzag(top))) == k
        assert len(varint_bytes(zigzag(top + 1))) == k + 1
        assert len(varint_bytes(zigzag(-top - 1))) == k
        assert len(varint_bytes(zigzag(-top - 2))) == k + 1


@pytest.mark.parametrize("value", [0, 1, 63, 64, (1 << 48) - 1, 1 << 48, (1 << 55) - 1, 1 << 55, U64 >> 1])
@pytest.mark.parametrize("flag", [False, True])
def test_varint_with_flag(value: int, flag: bool) -> None:
    e = Emitter()
    e.varint_flag(value, flag)
    assert bytes(e.buf) == ref_encode((value << 1) | int(flag))
    assert Reader(bytes(e.buf)).varint_flag() == (value, flag)


@pytest.mark.parametrize(
    ("value", "width"),
    [(0xAB, 8), (0x1FF, 9), ((1 << 49) + 3, 64), (U64, 64), (-1, 32), (1 << 56, 64), ((1 << 100) + 5, 128)],
)
def test_apint_widths(value: int, width: int) -> None:
    e = Emitter()
    e.apint(value, width)
    v = value & ((1 << width) - 1)
    if width <= 8:
        assert bytes(e.buf) == bytes([v])
    elif width <= 64:
        assert bytes(e.buf) == ref_encode(((v << 1) & U64) ^ (U64 if v >> 63 else 0))
    else:
        words = [(v >> (64 * i)) & U64 for i in range((width + 63) // 64)]
        while len(words) > 1 and words[-1] == 0:
            words.pop()
        expected = ref_encode(len(words)) + b"".join(
            ref_encode(((w << 1) & U64) ^ (U64 if w >> 63 else 0)) for w in words
        )
        assert bytes(e.buf) == expected
    assert Reader(bytes(e.buf)).apint(width) == v


@pytest.mark.parametrize("dim", [(1 << 48) - 1, 1 << 48, (1 << 55) - 1, 1 << 55, (1 << 62)])
def test_a_tensor_dimension_through_the_whole_writer(dim: int) -> None:
    """A shape dimension is an svarint: its bytes appear in the artifact as the reference encodes
    them, and the artifact reads back to the same module."""
    text = (
        f"func.func @main(%arg0: tensor<{dim}xf32>) -> tensor<{dim}xf32> {{\n"
        f"  return %arg0 : tensor<{dim}xf32>\n}}"
    )
    data = S.serialize_portable_artifact_str(text, "1.1.0", format="mlir")
    assert ref_encode(ref_zigzag(dim)) in data
    assert print_ir(S.deserialize_portable_artifact(data)) == print_ir(parse(text))


@pytest.mark.parametrize("value", [-1, -128, 1 << 64, (1 << 64) + 5])
def test_values_outside_u64_are_refused(value: int) -> None:
    from stablehlo_py.serialization.mlirbc.encoding import varint_bytes

    with pytest.raises(ValueError, match="unsigned 64-bit"):
        varint_bytes(value)
