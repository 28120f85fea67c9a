"""``rng`` and ``rng_bit_generator`` as pure numpy functions.

``rng_bit_generator`` follows XLA bit for bit (``xla/service/rng_bit_generator_expander.cc``
and ``xla/hlo/builder/lib/prng.cc``):

* the state's first word is the key; ``THREE_FRY`` counts from ``state[1]`` (the new state
  adds the number of counter values used); ``PHILOX`` counts with the 128-bit counter
  ``(state[1], state[0])`` (low, high) for a 2-word state and ``(state[1], state[2])`` for
  a 3-word state, and a 2-word new state keeps only the counter's low word;
* ``DEFAULT`` is ``PHILOX``, as on XLA's CPU and GPU backends
  (``RngBitGeneratorExpander(RNG_PHILOX)``);
* 64-bit outputs use one Threefry-2x32 block (two Philox words) per element; 32-bit outputs
  split the shape in halves (Threefry) or take the four Philox words round-robin; narrower
  outputs take the low bits of the 32-bit generator. Float and signed outputs are the
  generated bits reinterpreted (bitcast) in the output type.

``rng`` is implementation-defined (spec.md#rng): here it draws from numpy's PCG64 seeded
with ``seed`` (default 0, so runs are reproducible), see :func:`rng`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._element_kinds import bit_width, is_bool, is_float, is_integer, storage_uint

__all__ = ["rng", "rng_bit_generator", "threefry2x32", "philox4x32"]

_U32 = np.uint32
_U64 = np.uint64
_MASK32 = np.uint64(0xFFFF_FFFF)


def _lo32(v: np.ndarray) -> np.ndarray:
    return (v & _MASK32).astype(_U32)


def _hi32(v: np.ndarray) -> np.ndarray:
    return (v >> _U64(32)).astype(_U32)


def _join64(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(_U64) | (hi.astype(_U64) << _U64(32))


def _rotl32(v: np.ndarray, distance: int) -> np.ndarray:
    return (v << _U32(distance)) | (v >> _U32(32 - distance))


_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def threefry2x32(
    x0: ArrayLike, x1: ArrayLike, k0: ArrayLike, k1: ArrayLike
) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds (Salmon et al. 2011), on uint32 arrays."""
    with np.errstate(over="ignore"):
        key0 = np.asarray(k0, dtype=_U32)
        key1 = np.asarray(k1, dtype=_U32)
        ks = (key0, key1, _U32(0x1BD11BDA) ^ key0 ^ key1)
        a = np.asarray(x0, dtype=_U32) + ks[0]
        b = np.asarray(x1, dtype=_U32) + ks[1]
        for block in range(5):
            for rotation in _THREEFRY_ROTATIONS[block % 2]:
                a = a + b
                b = _rotl32(b, rotation) ^ a
            a = a + ks[(block + 1) % 3]
            b = b + ks[(block + 2) % 3] + _U32(block + 1)
    return np.asarray(a, dtype=_U32), np.asarray(b, dtype=_U32)


def philox4x32(
    counter: Sequence[ArrayLike], key: Sequence[ArrayLike]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Philox-4x32 with 10 rounds (Salmon et al. 2011), on uint32 arrays."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=_U32) for c in counter)
    k0 = np.asarray(key[0], dtype=_U32)
    k1 = np.asarray(key[1], dtype=_U32)
    with np.errstate(over="ignore"):
        for _ in range(10):
            p0 = c0.astype(_U64) * _U64(0xD2511F53)
            p1 = c2.astype(_U64) * _U64(0xCD9E8D57)
            c0, c1, c2, c3 = _hi32(p1) ^ c1 ^ k0, _lo32(p1), _hi32(p0) ^ c3 ^ k1, _lo32(p0)
            k0 = k0 + _U32(0x9E3779B9)
            k1 = k1 + _U32(0xBB67AE85)
    return c0, c1, c2, c3


# --- XLA's bit generators ------------------------------------------------------------------------


def _split_shape_into_halves(shape: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """XLA's ``SplitShapeIntoHalves``: the split dimension and the half shape (without the
    inserted unit dimension, which does not change the counter layout)."""
    if not shape:
        return -1, (1,)
    split = next((i for i, d in enumerate(shape) if d % 2 == 0), -1)
    if split == -1:
        split = max(range(len(shape)), key=lambda i: (shape[i], -i))
    half = list(shape)
    half[split] = -(-shape[split] // 2)
    return split, tuple(half)


def _combine_halves(
    first: np.ndarray, second: np.ndarray, split: int, shape: tuple[int, ...]
) -> np.ndarray:
    if not shape:
        return first.reshape(())
    both = np.stack([first, second], axis=split + 1)
    merged = list(shape)
    merged[split] = 2 * first.shape[split]
    return both.reshape(merged)[tuple(slice(0, d) for d in shape)]


def _threefry_bits(
    key: np.uint64, state: np.uint64, shape: tuple[int, ...], width: int
) -> tuple[np.ndarray, np.uint64]:
    k0, k1 = _lo32(np.asarray(key)), _hi32(np.asarray(key))
    with np.errstate(over="ignore"):
        if width == 64:
            size = int(np.prod(shape, dtype=np.int64))
            counters = state + np.arange(size, dtype=_U64).reshape(shape)
            o0, o1 = threefry2x32(_lo32(counters), _hi32(counters), k0, k1)
            return _join64(o0, o1), _U64(state + _U64(size))
        split, half = _split_shape_into_halves(shape)
        size = int(np.prod(half, dtype=np.int64))
        counters = state + np.arange(size, dtype=_U64).reshape(half)
        o0, o1 = threefry2x32(_lo32(counters), _hi32(counters), k0, k1)
        return _combine_halves(o0, o1, split, shape), _U64(state + _U64(size))


def _philox_bits(
    key: np.uint64, counter: tuple[np.uint64, np.uint64], shape: tuple[int, ...], width: int
) -> tuple[np.ndarray, tuple[np.uint64, np.uint64]]:
    size = int(np.prod(shape, dtype=np.int64))
    words = size * 2 if width == 64 else size
    blocks = -(-words // 4)
    low, high = _U64(counter[0]), _U64(counter[1])
    with np.errstate(over="ignore"):
        new_low = low + np.arange(blocks, dtype=_U64)
        new_high = np.where(new_low < low, high + _U64(1), high).astype(_U64)
        out = philox4x32(
            (_lo32(new_low), _hi32(new_low), _lo32(new_high), _hi32(new_high)),
            (_lo32(np.asarray(key)), _hi32(np.asarray(key))),
        )
        next_low = _U64(low + _U64(blocks))
        next_high = _U64(high + _U64(1)) if next_low < low else high
    if width == 64:
        pairs = np.stack([_join64(out[0], out[1]), _join64(out[2], out[3])], axis=1)
        bits = pairs.reshape(-1)[:size]
    else:
        bits = np.stack(out, axis=1).reshape(-1)[:size]
    return bits.reshape(shape), (next_low, next_high)


def _bits_to_type(bits: np.ndarray, dtype: np.dtype[Any], width: int) -> np.ndarray:
    """Keep the low ``width`` bits and reinterpret them in ``dtype`` (XLA's convert to
    ``U<width>`` followed by a bitcast)."""
    storage = storage_uint(dtype)
    if width < 8 * dtype.itemsize:
        bits = bits & bits.dtype.type((1 << width) - 1)
    return bits.astype(storage).copy(order="C").view(dtype)


def rng_bit_generator(
    initial_state: ArrayLike,
    rng_algorithm: str,
    result_shape: Sequence[int],
    element_type: DTypeLike,
) -> tuple[np.ndarray, np.ndarray]:
    """XLA's ``RngBitGenerator``: ``(output_state, output)`` (spec.md#rng_bit_generator).

    ``rng_algorithm`` is ``DEFAULT`` (= ``PHILOX``), ``THREE_FRY`` or ``PHILOX``;
    ``initial_state`` is a ``ui64`` vector of 2 words (Threefry) or 2 or 3 words (Philox).
    """
    state = np.asarray(initial_state).astype(_U64).reshape(-1)
    algorithm = str(rng_algorithm).upper().replace("THREEFRY", "THREE_FRY")
    if algorithm == "DEFAULT":
        algorithm = "PHILOX"
    shape = tuple(int(s) for s in result_shape)
    dtype = np.dtype(element_type)
    if is_bool(dtype) or not (is_integer(dtype) or is_float(dtype)):
        raise TypeError(f"rng_bit_generator cannot produce elements of type {dtype}")
    width = bit_width(dtype)
    gen_width = 64 if width == 64 else 32
    if width > 64 or (width > 32 and width != 64):
        raise TypeError(f"rng_bit_generator cannot produce {width}-bit elements")
    key = state[0]
    if algorithm == "THREE_FRY":
        if state.size != 2:
            raise ValueError(f"THREE_FRY needs a 2-word state, got {state.size} words")
        bits, new_counter = _threefry_bits(key, state[1], shape, gen_width)
        output_state = np.array([key, new_counter], dtype=_U64)
    elif algorithm == "PHILOX":
        if state.size == 2:
            counter = (state[1], state[0])
        elif state.size == 3:
            counter = (state[1], state[2])
        else:
            raise ValueError(f"PHILOX needs a 2- or 3-word state, got {state.size} words")
        bits, (low, high) = _philox_bits(key, counter, shape, gen_width)
        words = [key, low] if state.size == 2 else [key, low, high]
        output_state = np.array(words, dtype=_U64)
    else:
        raise ValueError(
            f"rng_algorithm must be DEFAULT, THREE_FRY or PHILOX, got {rng_algorithm!r}"
        )
    return output_state, _bits_to_type(bits, dtype, width)


def rng(
    a: ArrayLike,
    b: ArrayLike,
    shape: Sequence[int],
    rng_distribution: str,
    seed: int | None = 0,
) -> np.ndarray:
    """Random numbers of ``a``'s element type (spec.md#rng; implementation-defined).

    This implementation draws from ``numpy.random.default_rng(seed)`` (PCG64), so a given
    ``seed`` reproduces its values; ``seed=None`` draws fresh entropy.

    * ``UNIFORM``: integers/booleans uniform in ``[a, b)``; floats ``a + (b - a) * u`` with
      ``u`` uniform in ``[0, 1)`` (computed in f64, rounded to the element type; a value that
      rounds up to ``b`` is replaced by ``a``).
    * ``NORMAL``: floats ``a + b * z`` with ``z`` standard normal (computed in f64).
    """
    lo = np.asarray(a)
    hi = np.asarray(b)
    dtype = lo.dtype
    out_shape = tuple(int(s) for s in np.asarray(shape, dtype=np.int64).reshape(-1))
    gen = np.random.default_rng(seed)
    dist = str(rng_distribution).upper()
    if dist == "UNIFORM":
        if is_bool(dtype) or is_integer(dtype):
            low = int(lo.astype(np.int64)) if dtype != np.uint64 else int(lo)
            high = int(hi.astype(np.int64)) if dtype != np.uint64 else int(hi)
            if high <= low:
                return np.full(out_shape, lo, dtype=dtype)
            draw_type = np.uint64 if dtype == np.uint64 else np.int64
            drawn = gen.integers(low, high, size=out_shape, dtype=draw_type)
            return np.asarray(drawn.astype(dtype))
        u = gen.random(out_shape)
        lo64, hi64 = lo.astype(np.float64), hi.astype(np.float64)
        values = (lo64 + (hi64 - lo64) * u).astype(dtype)
        return np.asarray(np.where(values >= hi, lo, values).astype(dtype))
    if dist == "NORMAL":
        z = gen.standard_normal(out_shape)
        return np.asarray((lo.astype(np.float64) + hi.astype(np.float64) * z).astype(dtype))
    raise ValueError(f"rng_distribution must be UNIFORM or NORMAL, got {rng_distribution!r}")
