"""rng_bit_generator (bit-exact with XLA) and rng (implementation-defined)."""

from __future__ import annotations

import pathlib
import re

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.semantics.random import philox4x32, rng, rng_bit_generator, threefry2x32

U64 = np.uint64


def _hex(values):
    return [hex(int(v)) for v in values]


def test_threefry2x32_known_answers():
    # Random123 kat_vectors (threefry2x32_20), also used by jax's prng tests
    assert _hex(threefry2x32(0, 0, 0, 0)) == ["0x6b200159", "0x99ba4efe"]
    assert _hex(threefry2x32(*([0xFFFFFFFF] * 4))) == ["0x1cb996fc", "0xbb002be7"]
    assert _hex(threefry2x32(0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344)) == ["0xc4923a9c", "0x483df7a0"]


def test_philox4x32_known_answers():
    # Random123 kat_vectors (philox4x32_10)
    assert _hex(philox4x32((0, 0, 0, 0), (0, 0))) == ["0x6627e8d5", "0xe169c58d", "0xbc57ac4c", "0x9b00dbd8"]
    assert _hex(philox4x32((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2)) == [
        "0x408f276d", "0x41c83b0e", "0xa20bc7c6", "0x6d5451fd"]
    assert _hex(philox4x32((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0))) == [
        "0xd16cfe09", "0x94fdcceb", "0x5001e420", "0x24126ea1"]


def test_threefry_spec_example():
    state, out = rng_bit_generator(np.array([1, 2], U64), "THREE_FRY", (2, 2), U64)
    assert state.tolist() == [1, 6]
    assert out.tolist() == [[9236835810183407956, 16087790271692313299],
                            [18212823393184779219, 2658481902456610144]]


def test_threefry_testdata_scalar():
    # testdata/rng_bit_generator_uint64_2.mlir (XLA CPU via jax)
    state, out = rng_bit_generator(np.array([3, 3], U64), "THREE_FRY", (), U64)
    assert state.tolist() == [3, 4]
    assert out.shape == () and int(out) == 3349939604322698703


def test_threefry_testdata_100x100_prefix():
    # testdata/rng_bit_generator_uint32_4.mlir: state [1, 4, 0, 1] as ui32, bitcast to ui64
    initial = np.array([1, 4, 0, 1], np.uint32).view(U64)
    state, out = rng_bit_generator(initial, "THREE_FRY", (100, 100), U64)
    assert state.view(np.uint32).tolist() == [1, 4, 10000, 1]
    flat = out.reshape(-1)
    assert flat[:3].tolist() == [11811099535163642817, 2679220122055838158, 13026259361296983694]
    assert int(flat[5000]) == 5004447490164992884 and int(flat[-1]) == 11786507949933426536


TESTDATA = pathlib.Path(__file__).resolve().parents[4] / "shared/conformance/testdata/rng_bit_generator_uint32_4.mlir"


@pytest.mark.skipif(not TESTDATA.exists(), reason="shared conformance testdata not present")
def test_threefry_testdata_100x100_full():
    text = TESTDATA.read_text()
    hex_body = re.search(r'dense<"0x([0-9A-F]+)"> : tensor<100x100xui64>', text).group(1)
    expected = np.frombuffer(bytes.fromhex(hex_body), dtype="<u8").reshape(100, 100)
    _, out = rng_bit_generator(np.array([1, 4, 0, 1], np.uint32).view(U64), "THREE_FRY", (100, 100), U64)
    assert np.array_equal(out, expected)


def test_threefry_32_bit_uses_split_halves():
    key, counter = 7, 9
    state, out = rng_bit_generator(np.array([key, counter], U64), "THREE_FRY", (2, 3), np.uint32)
    # the shape splits on dim 0 (the first even one): counters for a (1, 3) half shape
    assert state.tolist() == [key, counter + 3]
    c = np.arange(3, dtype=U64) + U64(counter)
    o0, o1 = threefry2x32(c.astype(np.uint32), (c >> U64(32)).astype(np.uint32), key, 0)
    assert out[0].tolist() == o0.tolist() and out[1].tolist() == o1.tolist()
    # odd shape (3,): counters for ceil(3/2) = 2, interleaved
    state, out = rng_bit_generator(np.array([key, counter], U64), "THREE_FRY", (3,), np.uint32)
    c = np.arange(2, dtype=U64) + U64(counter)
    o0, o1 = threefry2x32(c.astype(np.uint32), (c >> U64(32)).astype(np.uint32), key, 0)
    assert state.tolist() == [key, counter + 2]
    assert out.tolist() == [o0[0], o1[0], o0[1]]


def test_narrow_and_float_outputs_are_low_bits_reinterpreted():
    init = np.array([5, 11], U64)
    _, wide = rng_bit_generator(init, "THREE_FRY", (4, 2), np.uint32)
    _, narrow = rng_bit_generator(init, "THREE_FRY", (4, 2), np.uint8)
    assert narrow.dtype == np.uint8 and np.array_equal(narrow, (wide & 0xFF).astype(np.uint8))
    _, f32 = rng_bit_generator(init, "THREE_FRY", (4, 2), np.float32)
    assert np.array_equal(f32.view(np.uint32), wide)
    _, i4 = rng_bit_generator(init, "THREE_FRY", (4, 2), ml_dtypes.int4)
    assert i4.dtype == ml_dtypes.int4
    assert np.array_equal(i4.view(np.uint8) & 0xF, (wide & 0xF).astype(np.uint8))


def test_philox_state_layout_and_round_robin_words():
    key, ctr = 0x0000000200000001, 0x0000000400000003
    state, out = rng_bit_generator(np.array([key, ctr], U64), "PHILOX", (8,), np.uint32)
    # 2-word state: counter = (state[1], state[0]) as (low, high); the new state keeps the low word
    assert state.tolist() == [key, ctr + 2]
    block0 = philox4x32((3, 4, 1, 2), (1, 2))
    block1 = philox4x32((4, 4, 1, 2), (1, 2))
    assert out.tolist() == [int(v) for v in block0] + [int(v) for v in block1]
    # 3-word state: counter = (state[1], state[2]); carries into the high word
    state3, out3 = rng_bit_generator(np.array([key, 2**64 - 1, 5], U64), "PHILOX", (3,), U64)
    assert state3.tolist() == [key, 1, 6]
    b0 = philox4x32((0xFFFFFFFF, 0xFFFFFFFF, 5, 0), (1, 2))
    b1 = philox4x32((0, 0, 6, 0), (1, 2))
    join = lambda lo, hi: int(lo) | (int(hi) << 32)  # noqa: E731
    assert out3.tolist() == [join(b0[0], b0[1]), join(b0[2], b0[3]), join(b1[0], b1[1])]


def test_default_is_philox_and_bad_states_are_rejected():
    init = np.array([9, 4], U64)
    assert all(np.array_equal(p, q) for p, q in zip(
        rng_bit_generator(init, "DEFAULT", (5,), np.uint32), rng_bit_generator(init, "PHILOX", (5,), np.uint32)))
    with pytest.raises(ValueError, match="2-word"):
        rng_bit_generator(np.array([1, 2, 3], U64), "THREE_FRY", (2,), U64)
    with pytest.raises(ValueError, match="2- or 3-word"):
        rng_bit_generator(np.array([1, 2, 3, 4], U64), "PHILOX", (2,), U64)
    with pytest.raises(TypeError):
        rng_bit_generator(init, "PHILOX", (2,), np.bool_)


def test_rng_is_reproducible_and_in_range():
    ints = rng(np.array(0, np.int32), np.array(2, np.int32), [3, 3], "UNIFORM")
    assert ints.dtype == np.int32 and ints.shape == (3, 3) and set(ints.ravel()) <= {0, 1}
    assert np.array_equal(ints, rng(np.array(0, np.int32), np.array(2, np.int32), [3, 3], "UNIFORM"))
    floats = rng(np.array(-1.0, np.float32), np.array(1.0, np.float32), [1000], "UNIFORM", seed=3)
    assert floats.dtype == np.float32 and floats.min() >= -1.0 and floats.max() < 1.0
    normal = rng(np.array(5.0, np.float64), np.array(2.0, np.float64), [4000], "NORMAL")
    assert abs(normal.mean() - 5.0) < 0.2 and abs(normal.std() - 2.0) < 0.2
    with pytest.raises(ValueError, match="rng_distribution"):
        rng(np.array(0.0), np.array(1.0), [2], "POISSON")
