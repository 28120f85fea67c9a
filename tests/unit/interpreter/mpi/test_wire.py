"""interpreter/mpi/wire.py: arrays <-> (header, byte buffers), header frames, chunking; no MPI.

A transfer is simulated by copying the buffers' bytes (``bytes(...)``), so a decoded array never
shares memory with the array that was encoded."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.semantics.dtypes import BY_NAME


def _transfer(values: list) -> list[np.ndarray]:
    header, buffers = wire.encode(values)
    return wire.decode(bytes(header), [bytes(b) for b in buffers])


def _same_bits(got: np.ndarray, want: np.ndarray) -> None:
    want = np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def _random_of(row, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Values of an element type: random bit patterns where every pattern is a value (floats of
    8 bits or more: NaN payloads, -0.0, infinities; integers; complex), else in-range values."""
    dtype = row.dtype
    if row.kind == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if row.kind == "complex":
        half = np.dtype(f"u{dtype.itemsize // 2}")
        bits = rng.integers(0, np.iinfo(half).max, size=(*shape, 2), dtype=half, endpoint=True)
        return bits.view(dtype)[..., 0]
    if row.bits >= 8:
        width = np.dtype(f"u{dtype.itemsize}")
        bits = rng.integers(0, np.iinfo(width).max, size=shape, dtype=width, endpoint=True)
        return bits.view(dtype)
    if row.kind in ("sint", "uint"):
        info = ml_dtypes.iinfo(dtype)
        return rng.integers(int(info.min), int(info.max), size=shape, endpoint=True).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)  # f6 / f4


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_element_type_round_trips_bit_for_bit(name: str) -> None:
    row = BY_NAME[name]
    rng = np.random.default_rng(len(name))
    values = [_random_of(row, rng, (3, 5)), _random_of(row, rng, ()), _random_of(row, rng, (0, 4))]
    for got, want in zip(_transfer(values), values, strict=True):
        _same_bits(got, want)
    assert _transfer(values)[0].dtype == row.dtype


def test_every_interpreter_dtype_has_a_code_that_names_it_alone() -> None:
    codes = {name: wire.dtype_code(row.dtype) for name, row in BY_NAME.items()}
    assert len(set(codes.values())) == len(codes), codes  # e.g. not <V1 for every 8-bit float
    for name, code in codes.items():
        assert wire.dtype_from_code(code) == BY_NAME[name].dtype
    assert codes["bf16"] == "bfloat16" and codes["f32"] == "<f4" and codes["i1"] == "|b1"
    # ml_dtypes' float8_e5m2 has numpy kind "f" and str "<f1"; it still travels by its name
    assert codes["f8E5M2"] == "float8_e5m2"


def test_nan_payloads_and_negative_zero_keep_their_bits() -> None:
    f32 = np.array([0x7FC00001, 0xFFC12345, 0x7F800001, 0x80000000, 0x00000001], np.uint32)
    f64 = np.array([0x7FF8000000000ABC, 0x8000000000000000], np.uint64)
    f16 = np.array([0x7E01, 0x8000, 0xFC01], np.uint16)
    bf16 = np.array([0x7FC1, 0x8000, 0xFF81], np.uint16)
    f8 = np.array([0x7F, 0x80, 0xFF], np.uint8)
    values = [f32.view(np.float32), f64.view(np.float64), f16.view(np.float16),
              bf16.view(ml_dtypes.bfloat16), f8.view(ml_dtypes.float8_e4m3fn),
              np.array([complex(-0.0, np.nan)], np.complex64)]
    got = _transfer(values)
    for g, v in zip(got, values, strict=True):
        _same_bits(g, v)
    assert got[0].view(np.uint32).tolist() == f32.tolist()
    assert np.signbit(got[1][1]) and got[1][1] == 0


def test_zero_dimensional_values_and_numpy_scalars() -> None:
    values = [np.array(2.5, np.float32), np.float64(-0.0), np.int8(-7),
              np.array(1.5, ml_dtypes.bfloat16), np.bool_(True)]
    got = _transfer(values)
    assert [g.shape for g in got] == [()] * 5
    for g, v in zip(got, values, strict=True):
        _same_bits(g, np.asarray(v))
    header, buffers = wire.encode([np.float64(3.0)])
    assert [b.nbytes for b in buffers] == [8]


@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (0, 0)])
def test_empty_arrays_keep_shape_and_dtype(shape: tuple[int, ...]) -> None:
    values = [np.zeros(shape, np.float32), np.zeros(shape, ml_dtypes.int4)]
    header, buffers = wire.encode(values)
    assert [b.nbytes for b in buffers] == [0, 0]
    got = wire.decode(header, [b"", b""])
    for g, v in zip(got, values, strict=True):
        assert g.shape == shape and g.dtype == v.dtype


def test_fortran_strided_and_broadcast_inputs_travel_as_the_values_they_show() -> None:
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    values = [np.asfortranarray(base), base[::2, ::-3], np.broadcast_to(np.float32(7), (2, 3)),
              base.T, np.asfortranarray(base.astype(ml_dtypes.bfloat16))]
    got = _transfer(values)
    for g, v in zip(got, values, strict=True):
        assert g.flags.c_contiguous
        _same_bits(g, np.array(v, order="C"))


def test_contiguous_inputs_are_sent_from_their_own_memory() -> None:
    a = np.arange(10, dtype=np.int32)
    f = np.asfortranarray(np.ones((3, 4)))
    _, (buf_a, buf_f) = wire.encode([a, f])
    assert np.shares_memory(buf_a, a)
    assert not np.shares_memory(buf_f, f)  # a C-ordered copy


def test_memmap_input(tmp_path) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.arange(12, dtype=">i2").reshape(3, 4))
    m = np.load(path, mmap_mode="r")
    header, (buf,) = wire.encode([m])
    assert np.shares_memory(buf, m)
    (got,) = wire.decode(header, [bytes(buf)])
    assert type(got) is np.ndarray and got.dtype == np.dtype(">i2")
    _same_bits(got, np.load(path))


def test_decoded_arrays_are_aligned_even_from_an_odd_offset() -> None:
    values = [np.arange(5, dtype=np.float64)]
    header, (buf,) = wire.encode(values)
    raw = np.frombuffer(b"\0" + bytes(buf), np.uint8)[1:]  # 1 byte off any 8-byte boundary
    (got,) = wire.decode(header, [raw])
    assert got.flags.aligned
    _same_bits(got, values[0])


def test_decode_over_a_receive_buffer_is_writable_and_shares_it() -> None:
    values = [np.arange(6, dtype=np.int16).reshape(2, 3)]
    header, (buf,) = wire.encode(values)
    (dest,) = wire.receive_buffers(header)
    assert dest.dtype == np.uint8 and dest.shape == (12,)
    dest[:] = buf
    (got,) = wire.decode(header, [dest])
    assert np.shares_memory(got, dest) and got.flags.writeable
    _same_bits(got, values[0])


@pytest.mark.parametrize(
    "value, word",
    [
        (np.array(["a", "b"]), "<U1"),
        (np.array([object()], dtype=object), "object"),
        (np.zeros(2, dtype=[("x", np.int32)]), "[('x', '<i4')]"),
        (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64[D]"),
    ],
)
def test_non_numeric_values_are_refused(value: np.ndarray, word: str) -> None:
    with pytest.raises(InterpreterError) as e:
        wire.encode([np.float32(1), value])
    assert f"a value of dtype {word}" in str(e.value) and "cannot be sent between MPI ranks" in str(
        e.value
    )


@pytest.mark.parametrize(
    "header, words",
    [
        (b'[["<f4",[2],12]]', "inconsistent: 12 bytes for float32 of shape (2,)"),
        (b'[["<V4",[1],4]]', "unknown dtype '<V4'"),
        (b'[["finfo",[1],1]]', "unknown dtype 'finfo'"),
        (b'[["<f4",[-1],4]]', "4 bytes for float32 of shape (-1,)"),
        (b"not json", "not a list of arrays"),
        (b'[["<f4",[2]]]', "not a list of arrays"),
    ],
)
def test_bad_headers_are_refused(header: bytes, words: str) -> None:
    with pytest.raises(InterpreterError) as e:
        wire.read_header(header)
    assert words in str(e.value)


def test_buffers_must_match_their_header() -> None:
    header, buffers = wire.encode([np.zeros(3, np.float32), np.zeros(2, np.int8)])
    with pytest.raises(InterpreterError, match="lists 2 arrays but 1 arrived"):
        wire.decode(header, buffers[:1])
    with pytest.raises(InterpreterError, match=r"holds 11 bytes, its header says 12"):
        wire.decode(header, [bytes(11), bytes(2)])


# --------------------------------------------------------------------------------------- frames


@pytest.mark.parametrize("length", [0, 1, 251, 252, 253, 700])
def test_frames_carry_any_header(length: int) -> None:
    header = bytes(range(256)) * 3
    header = header[:length]
    fixed, rest = wire.frame(header)
    assert len(fixed) == wire.HEADER_SIZE == 256
    assert len(rest) == wire.rest_length(fixed) == max(0, length - 252)
    assert wire.unframe(fixed, rest) == header


def test_a_frame_missing_its_rest_is_an_error() -> None:
    fixed, rest = wire.frame(b"x" * 300)
    with pytest.raises(InterpreterError, match="frame says 300 bytes, 252 arrived"):
        wire.unframe(fixed)


def test_frames_of_other_sizes() -> None:
    fixed, rest = wire.frame(b"abcdefghij", size=8)
    assert len(fixed) == 8 and rest == b"efghij" and wire.rest_length(fixed, 8) == 6
    assert wire.unframe(fixed, rest, 8) == b"abcdefghij"
    with pytest.raises(InterpreterError, match="no room"):
        wire.frame(b"a", size=4)


def test_headers_of_typical_collectives_fit_one_frame() -> None:
    header, _ = wire.encode([np.zeros((16, 4096), np.float32), np.zeros((), np.int32)])
    assert wire.rest_length(wire.frame(header)[0]) == 0


# ------------------------------------------------------------------------------------- chunking


def test_pieces() -> None:
    assert wire.pieces(0, 3) == []
    assert wire.pieces(10, 3) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert wire.pieces(9, 3) == [(0, 3), (3, 6), (6, 9)]
    assert wire.pieces(5) == [(0, 5)]
    assert wire.pieces(3 * 2**30 + 1) == [(0, 2**30), (2**30, 2**31), (2**31, 3 * 2**30),
                                          (3 * 2**30, 3 * 2**30 + 1)]
    with pytest.raises(InterpreterError, match="at least one byte"):
        wire.pieces(4, 0)


def _gather(buffers: list[bytes], chunk: int) -> list[bytes]:
    """An all-gather run round by round as MPI's Allgatherv would, from the rounds' numbers."""
    rounds = wire.gather_rounds([len(b) for b in buffers], chunk)
    out = [bytearray(len(b)) for b in buffers]
    for rnd in rounds:
        assert rnd.total <= chunk
        recv = bytearray(rnd.total)
        for k, (a, b) in enumerate(rnd.ranges):  # rank k's contribution lands at its displacement
            assert b - a == rnd.counts[k] <= chunk // len(buffers)
            recv[rnd.displs[k] : rnd.displs[k] + rnd.counts[k]] = buffers[k][a:b]
        for k, (a, b) in enumerate(rnd.ranges):
            out[k][a:b] = recv[rnd.displs[k] : rnd.displs[k] + rnd.counts[k]]
    return [bytes(o) for o in out]


@pytest.mark.parametrize("chunk", [3, 4, 7, 64, 2**30])
def test_chunked_gather_delivers_every_byte(chunk: int) -> None:
    rng = np.random.default_rng(chunk)
    buffers = [rng.bytes(n) for n in (0, 5, 17, 3)][: max(1, min(4, chunk))]
    assert _gather(buffers, chunk) == buffers


def test_chunked_gather_of_encoded_values() -> None:
    values_of = [[np.arange(k * 7, dtype=np.float64), np.array(k, ml_dtypes.int4),
                  np.asfortranarray(np.ones((k + 1, 3), np.complex64) * k)] for k in range(3)]
    encoded = [wire.encode(v) for v in values_of]
    got = [[] for _ in range(3)]
    for i in range(3):  # value by value, as the exchange does
        for k, data in enumerate(_gather([bytes(e[1][i]) for e in encoded], chunk=5)):
            got[k].append(data)
    for k in range(3):
        for g, v in zip(wire.decode(encoded[k][0], got[k]), values_of[k], strict=True):
            _same_bits(g, np.array(v, order="C"))


def test_gather_rounds_numbers() -> None:
    rounds = wire.gather_rounds([0, 5, 17, 3], chunk=8)  # 2 bytes per rank per round
    assert len(rounds) == math.ceil(17 / 2)
    assert rounds[0].ranges == ((0, 0), (0, 2), (0, 2), (0, 2))
    assert rounds[0].counts == (0, 2, 2, 2) and rounds[0].displs == (0, 0, 2, 4)
    assert rounds[0].total == 6
    assert rounds[2].ranges == ((0, 0), (4, 5), (4, 6), (3, 3))
    assert rounds[-1].counts == (0, 0, 1, 0)
    assert wire.gather_rounds([0, 0], chunk=8) == []
    assert wire.gather_rounds([], chunk=8) == []
    with pytest.raises(InterpreterError, match="below the 4 ranks"):
        wire.gather_rounds([1, 1, 1, 1], chunk=3)


def test_no_count_or_displacement_of_a_huge_gather_passes_int32() -> None:
    """8 ranks of 3 GiB each (24 GiB in all, counted, not allocated): every count, displacement
    and round buffer of every round stays below 2^31, and the rounds cover every byte once."""
    sizes = [3 * 2**30 + k for k in range(8)]
    rounds = wire.gather_rounds(sizes)
    limit = 2**31 - 1
    assert wire.MAX_CHUNK <= limit
    covered = [0] * 8
    for rnd in rounds:
        assert rnd.total <= limit
        assert all(0 <= c <= limit for c in rnd.counts)
        assert all(0 <= d <= limit for d in rnd.displs)
        for k, (a, b) in enumerate(rnd.ranges):
            assert a == covered[k] or a == b  # in order, no gap, no overlap
            covered[k] = max(covered[k], b)
    assert covered == sizes
