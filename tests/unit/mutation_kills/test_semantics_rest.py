"""stablehlo_py/semantics/ (the `semantics-rest` group): what the focused suites left unchecked in
the small modules -- attribute normalization, element-kind classification, total-order keys, top_k,
fft, quantization, region bodies, the shared bit/rounding helpers and the bitwise refusals.

Expected values come from numpy/ml_dtypes (iinfo/finfo, numpy.fft in complex128 with a relative
bound, Python integers for bit counts), exact rational arithmetic (``fractions``) for rounding, the
spec's definitions (total order, quantize/dequantize, top_k's stable descending order) and the
modules' documented conventions; error messages are checked word for word.
"""

from __future__ import annotations

import struct
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py import semantics as sem
from stablehlo_py.semantics import _attributes as A
from stablehlo_py.semantics import _common as C
from stablehlo_py.semantics import _element_kinds as K
from stablehlo_py.semantics import bitwise as B
from stablehlo_py.semantics import regions as R
from stablehlo_py.semantics.fft import fft
from stablehlo_py.semantics.quantization import uniform_dequantize, uniform_quantize
from stablehlo_py.semantics.top_k import top_k
from stablehlo_py.semantics.total_order import total_order_key

NOTE = "note: the spec's constraints for this op list the element types it accepts"
BF16 = np.dtype(ml_dtypes.bfloat16)


def _unsupported(op: str, name: str) -> str:
    return f"error: '{op}' does not support element type '{name}'\n{NOTE}"


# ---- _attributes ----------------------------------------------------------------------------------


def test_ints_flattens_any_shape_to_python_ints() -> None:
    got = A.ints(np.array([[1, 2], [3, 4]], np.int32))
    assert got == [1, 2, 3, 4] and all(type(v) is int for v in got)
    assert A.ints([7]) == [7] and A.ints(np.array(5, np.uint8)) == [5] and A.ints([]) == []


def test_ints_or_ones() -> None:
    assert A.ints_or_ones(None, 3) == [1, 1, 1]
    assert A.ints_or_ones(None, 0) == []
    assert A.ints_or_ones(np.array([2, 3]), 2) == [2, 3]
    assert A.ints_or_ones([[4], [5]], 2) == [4, 5]


def test_padding_pairs() -> None:
    zeros = A.padding_pairs(None, 3)
    assert zeros.dtype == np.int64 and zeros.shape == (3, 2) and not zeros.any()
    got = A.padding_pairs([1, -2, 3, 4], 2)
    assert got.dtype == np.int64 and got.tolist() == [[1, -2], [3, 4]]
    narrow = A.padding_pairs(np.array([[0, 5]], np.int32), 1)
    assert narrow.dtype == np.int64 and narrow.tolist() == [[0, 5]]


# ---- _element_kinds ---------------------------------------------------------------------------------

# dtype, is_bool, is_integer, is_complex, is_float, bit width, signed integer, storage uint
KIND_TABLE = [
    (np.bool_, True, False, False, False, 1, False, np.uint8),
    (ml_dtypes.int2, False, True, False, False, 2, True, np.uint8),
    (ml_dtypes.uint2, False, True, False, False, 2, False, np.uint8),
    (ml_dtypes.int4, False, True, False, False, 4, True, np.uint8),
    (ml_dtypes.uint4, False, True, False, False, 4, False, np.uint8),
    (np.int8, False, True, False, False, 8, True, np.uint8),
    (np.uint8, False, True, False, False, 8, False, np.uint8),
    (np.int16, False, True, False, False, 16, True, np.uint16),
    (np.uint16, False, True, False, False, 16, False, np.uint16),
    (np.int32, False, True, False, False, 32, True, np.uint32),
    (np.uint32, False, True, False, False, 32, False, np.uint32),
    (np.int64, False, True, False, False, 64, True, np.uint64),
    (np.uint64, False, True, False, False, 64, False, np.uint64),
    (ml_dtypes.float4_e2m1fn, False, False, False, True, 4, False, np.uint8),
    (ml_dtypes.float6_e3m2fn, False, False, False, True, 6, False, np.uint8),
    (ml_dtypes.float8_e4m3fn, False, False, False, True, 8, False, np.uint8),
    (ml_dtypes.float8_e8m0fnu, False, False, False, True, 8, False, np.uint8),
    (np.float16, False, False, False, True, 16, False, np.uint16),
    (ml_dtypes.bfloat16, False, False, False, True, 16, False, np.uint16),
    (np.float32, False, False, False, True, 32, False, np.uint32),
    (np.float64, False, False, False, True, 64, False, np.uint64),
    (np.complex64, False, False, True, False, 64, False, np.uint64),
    (np.complex128, False, False, True, False, 128, False, None),
]


@pytest.mark.parametrize("row", KIND_TABLE, ids=lambda r: np.dtype(r[0]).name)
def test_element_kinds(row) -> None:
    dtype, boolean, integer, complex_, float_, width, signed, storage = row
    assert K.is_bool(dtype) is boolean
    assert K.is_integer(dtype) is integer
    assert K.is_complex(dtype) is complex_
    assert K.is_float(dtype) is float_
    assert K.bit_width(dtype) == width
    assert K.is_signed_integer(dtype) is signed
    if storage is not None:
        assert K.storage_uint(dtype) == np.dtype(storage)


# ---- total_order ------------------------------------------------------------------------------------


def test_total_order_key_of_integers_and_booleans_is_the_value() -> None:
    b = total_order_key(np.array([True, False]))
    assert b.dtype == np.int64 and b.tolist() == [1, 0]
    i4 = total_order_key(np.array([-8, 7, -1], ml_dtypes.int4))
    assert i4.dtype == np.int64 and i4.tolist() == [-8, 7, -1]
    u32 = total_order_key(np.array([2**32 - 1, 0], np.uint32))
    assert u32.dtype == np.int64 and u32.tolist() == [2**32 - 1, 0]
    u64 = total_order_key(np.array([2**64 - 1, 3], np.uint64))
    assert u64.dtype == np.uint64 and u64.tolist() == [2**64 - 1, 3]
    i64 = total_order_key(np.array([-(2**63), 2**63 - 1], np.int64))
    assert i64.tolist() == [-(2**63), 2**63 - 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, ml_dtypes.float8_e5m2], ids=str)
def test_total_order_key_of_floats_is_the_spec_order(dtype) -> None:
    bits = 8 * np.dtype(dtype).itemsize
    u = np.dtype(f"u{bits // 8}")
    neg_nan = np.array([(1 << bits) - 1], u).view(dtype)[0]
    pos_nan = np.array([(1 << (bits - 1)) - 1], u).view(dtype)[0]
    tiny = np.array([1], u).view(dtype)[0]  # the smallest subnormal
    ordered = [neg_nan, -np.inf, -2.0, -tiny, -0.0, 0.0, tiny, 1.5, np.inf, pos_nan]
    x = np.array([np.asarray(v).astype(dtype) for v in ordered], dtype=dtype)
    keys = total_order_key(x)
    assert keys.dtype == np.int64
    assert all(keys[i] < keys[i + 1] for i in range(len(keys) - 1))


def test_total_order_key_of_unsigned_and_fnuz_floats() -> None:
    # f8E8M0FNU has no sign bit: its values (2**-127 .. 2**127, then NaN = 0xFF) order by bits
    e8m0 = C.from_bits(np.array([0xFF, 0, 127, 254, 1], np.uint64), ml_dtypes.float8_e8m0fnu)
    keys = total_order_key(e8m0)
    assert keys.dtype == np.int64 and keys.tolist() == [0xFF, 0, 127, 254, 1]
    values, indices = top_k(e8m0, 3)
    assert indices.tolist() == [0, 3, 2]  # NaN, 2**127, 1
    # the FNUZ types' NaN is the pattern of -0 and sorts first (as XLA); there is no -0
    fnuz = C.from_bits(np.array([0x80, 0x00, 0x01, 0x81, 0x7F, 0xFF], np.uint64), ml_dtypes.float8_e4m3fnuz)
    keys = total_order_key(fnuz).tolist()
    assert keys[0] < keys[5] < keys[3] < keys[1] < keys[2] < keys[4]


def test_total_order_key_refuses_complex() -> None:
    with pytest.raises(TypeError) as e:
        total_order_key(np.array([1j], np.complex64))
    assert str(e.value) == "no total-order key for element type complex64"


# ---- top_k ------------------------------------------------------------------------------------------


def _f32_key(v: float) -> int:
    (u,) = struct.unpack("<I", struct.pack("<f", v))
    return u if u < 2**31 else -(u & 0x7FFFFFFF) - 1  # the spec's totalOrder on bit patterns


def _expected_top_k(rows, k, key):
    values, indices = [], []
    for row in rows:
        order = sorted(range(len(row)), key=lambda i: -key(row[i]))[:k]  # stable
        values.append([row[i] for i in order])
        indices.append(order)
    return values, indices


def test_top_k_floats_total_order_and_ties() -> None:
    nan, neg_nan = np.float32(np.nan), -np.float32(np.nan)
    rows = np.array(
        [[1.0, -0.0, 0.0, np.inf, neg_nan, nan, -np.inf, 1.0], [3.0, 3.0, -1.0, 2.0, 3.0, -5.0, 0.0, 2.0]],
        np.float32,
    )
    values, indices = top_k(rows, 5)
    want_v, want_i = _expected_top_k(rows.tolist(), 5, lambda v: _f32_key(v))
    assert values.dtype == np.float32 and indices.dtype == np.int32
    assert indices.tolist() == want_i
    assert values.view(np.uint32).tolist() == np.array(want_v, np.float32).view(np.uint32).tolist()


@pytest.mark.parametrize(
    "dtype", [np.int8, np.uint8, np.int32, np.uint64, np.int64, ml_dtypes.int4, ml_dtypes.uint4], ids=str
)
def test_top_k_integers(dtype) -> None:
    info = ml_dtypes.iinfo(dtype)
    row = [0, int(info.max), int(info.min), 1, int(info.max), int(info.min) + 1, 2]
    x = np.array([row, row[::-1]], dtype)
    values, indices = top_k(x, 4)
    want_v, want_i = _expected_top_k([row, row[::-1]], 4, lambda v: v)
    assert values.dtype == np.dtype(dtype) and indices.dtype == np.int32
    assert indices.tolist() == want_i and values.astype(object).tolist() == want_v


def test_top_k_booleans_and_k() -> None:
    values, indices = top_k(np.array([False, True, False, True]), 3)
    assert values.tolist() == [True, True, False] and indices.tolist() == [1, 3, 0]
    values, indices = top_k(np.array([2, 9, 4], np.int16), 10)  # k clamped to the dimension
    assert values.tolist() == [9, 4, 2] and indices.tolist() == [1, 2, 0]
    values, indices = top_k(np.array([[2, 9, 4]], np.int16), 0)
    assert values.shape == (1, 0) and indices.shape == (1, 0) and indices.dtype == np.int32


def test_top_k_refusals() -> None:
    with pytest.raises(InterpreterError) as e:
        top_k(np.array([1j, 2j], np.complex64), 1)
    assert str(e.value) == _unsupported("chlo.top_k", "complex<f32>")
    with pytest.raises(InterpreterError) as e:
        top_k(np.array(1.0, np.float32), 1)
    assert str(e.value) == _unsupported("chlo.top_k of a rank-0 tensor", "f32")


# ---- fft --------------------------------------------------------------------------------------------


def _close(got: np.ndarray, want: np.ndarray, rel: float) -> None:
    scale = max(float(np.max(np.abs(want))), 1.0)
    assert float(np.max(np.abs(got.astype(np.complex128) - want))) <= rel * scale


def test_fft_over_trailing_dimensions_with_batch() -> None:
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(3, 4, 8)) + 1j * rng.normal(size=(3, 4, 8))).astype(np.complex64)
    got = fft(x, "FFT", [8])
    assert got.dtype == np.complex64 and got.shape == (3, 4, 8)
    _close(got, np.fft.fft(x.astype(np.complex128), axis=-1), 1e-6)
    got2 = fft(x, "fft", np.array([4, 8]))  # lower case; fft_length as an array
    _close(got2, np.fft.fft2(x.astype(np.complex128), axes=(-2, -1)), 1e-6)
    x128 = x.astype(np.complex128)
    inv = fft(x128, "IFFT", [3, 4, 8])
    assert inv.dtype == np.complex128
    _close(inv, np.fft.ifftn(x128), 1e-15)


def test_rfft_and_irfft_types_and_shapes() -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 6))
    for dtype, ctype, rel in [(np.float32, np.complex64, 1e-6), (np.float64, np.complex128, 1e-15)]:
        out = fft(x.astype(dtype), "RFFT", [6])
        assert out.dtype == np.dtype(ctype) and out.shape == (2, 4)
        _close(out, np.fft.rfft(x.astype(dtype).astype(np.float64)), rel)
        back = fft(out, "IRFFT", [6])
        assert back.dtype == np.dtype(dtype) and back.shape == (2, 6)
        _close(back.astype(np.complex128), x.astype(dtype).astype(np.complex128), 10 * rel)
    # other real types: complex<f32>; an odd length reads n // 2 + 1 entries
    out16 = fft(x.astype(np.float16), "RFFT", [6])
    assert out16.dtype == np.complex64
    spectrum = np.fft.rfft(rng.normal(size=5))
    odd = fft(spectrum, "IRFFT", [5])
    assert odd.dtype == np.float64 and odd.shape == (5,)
    _close(odd.astype(np.complex128), np.fft.irfft(spectrum, 5), 1e-15)
    real_in = fft(np.ones(3, np.float64), "IRFFT", [4])  # a real operand: f32 (the default)
    assert real_in.dtype == np.float32 and real_in.shape == (4,)


def test_fft_warns_nothing_and_takes_a_scalar_length() -> None:
    # numpy >= 2.0 deprecates fftn's `s` without `axes` with a warning; fft passes the trailing axes
    x = np.arange(24, dtype=np.complex128).reshape(2, 3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kind, operand in [("FFT", x), ("IFFT", x), ("RFFT", x.real), ("IRFFT", x)]:
            fft(operand, kind, [3, 4])
    _close(fft(x, "FFT", 4), np.fft.fft(x, axis=-1), 1e-15)  # a 1-d fft_length given as a number


def test_fft_and_ifft_transform_the_trailing_dimensions_whole() -> None:
    # spec.md#fft: for FFT/IFFT only size(fft_length) (L) matters -- (C4) constrains the lengths
    # for a real operand or result only, (C5) gives the result the operand's shape -- and upstream's
    # reference interpreter transforms each of the last L dimensions at its full size
    x = (np.arange(8) + 1j * np.arange(8)[::-1]).astype(np.complex128)
    out = fft(x, "FFT", [4])
    assert out.shape == (8,) and out.dtype == np.complex128
    _close(out, np.fft.fft(x), 1e-15)
    inv = fft(x, "IFFT", [16])
    assert inv.shape == (8,)
    _close(inv, np.fft.ifft(x), 1e-15)
    y = x.reshape(2, 4).astype(np.complex64)
    _close(fft(y, "FFT", [1, 1]), np.fft.fft2(y.astype(np.complex128)), 1e-6)
    _close(fft(y, "IFFT", [4]), np.fft.ifft(y.astype(np.complex128), axis=-1), 1e-6)  # batch kept
    _close(fft(y, "FFT", [0]), np.fft.fft(y.astype(np.complex128), axis=-1), 1e-6)


def test_fft_program_with_other_lengths_gives_its_declared_type() -> None:
    from stablehlo_py.interpreter import run
    from stablehlo_py.ir import parse

    module = parse(
        "func.func @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {\n"
        "  %0 = stablehlo.fft %x, type = FFT, length = [4] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>\n"
        "  return %0 : tensor<8xcomplex<f32>>\n}"
    )
    x = (np.arange(8) + 1j).astype(np.complex64)
    (out,) = run(module, x)
    assert out.shape == (8,) and out.dtype == np.complex64
    _close(out, np.fft.fft(x.astype(np.complex128)), 1e-6)


def test_fft_of_empty_operands_is_zeros_of_the_result_shape() -> None:
    out = fft(np.zeros((0, 8), np.float64), "RFFT", [8])
    assert out.dtype == np.complex128 and out.shape == (0, 5)
    out = fft(np.zeros((2, 0), np.float32), "RFFT", [0])
    assert out.dtype == np.complex64 and out.shape == (2, 0)
    out = fft(np.zeros((2, 0), np.complex64), "IRFFT", [4])
    assert out.dtype == np.float32 and out.shape == (2, 4) and not out.any()
    out = fft(np.zeros((0, 3), np.complex128), "IFFT", [3])
    assert out.dtype == np.complex128 and out.shape == (0, 3)


def test_fft_refuses_an_unknown_type_word_for_word() -> None:
    with pytest.raises(ValueError) as e:
        fft(np.zeros(4, np.complex64), "DCT", [4])
    assert str(e.value) == "fft_type must be FFT, IFFT, RFFT or IRFFT, got 'DCT'"


# ---- quantization ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi", "storage"),
    [
        (-128, 127, np.int8),
        (-8, 7, np.int8),
        (0, 255, np.uint8),
        (-129, 127, np.int16),
        (0, 256, np.int16),
        (0, 65535, np.uint16),
        (-(2**31), 2**31 - 1, np.int32),
        (0, 2**32 - 1, np.uint32),
        (-1, 2**32 - 1, np.int64),
        (0, 2**40, np.int64),
    ],
)
def test_quantize_infers_the_smallest_storage_type(lo, hi, storage) -> None:
    out = uniform_quantize(np.array([0.0, 1e30, -1e30], np.float64), 1.0, 0, lo, hi)
    assert out.dtype == np.dtype(storage)
    assert out.tolist() == [min(max(0, lo), hi), hi, lo]


def test_quantize_explicit_storage_type_and_per_axis_dimension_1() -> None:
    x = np.array([[1.0, 1.0, 1.0], [2.5, 2.5, 2.5]], np.float32)
    scale = np.array([0.5, 1.0, 2.0], np.float32)
    out = uniform_quantize(x, scale, [1, 0, -1], -128, 127, 1, storage_type=np.int16)
    assert out.dtype == np.int16
    # round_nearest_even(x / scale + zero_point): 2.5 / 1 = 2.5 -> 2, 2.5 / 2 - 1 = 0.25 -> 0
    assert out.tolist() == [[3, 1, 0], [6, 2, 0]]


def test_quantize_divides_in_the_expressed_type() -> None:
    # f16 has 11 significant bits: 2049 is not an f16 (the ulp at 2048 is 2)
    x = np.array([2047.0, 2048.0, 2050.0], np.float16)
    out = uniform_quantize(x, np.float16(1.0), 1, -(2**15), 2**15 - 1)
    # + zero_point in f16: 2047 + 1 = 2048; 2048 + 1 = 2049 -> 2048 (tie to even); 2050 + 1 -> 2052
    assert out.dtype == np.int16 and out.tolist() == [2048, 2048, 2052]
    wide = uniform_quantize(x.astype(np.float64), 1.0, 1, -(2**15), 2**15 - 1)
    assert wide.tolist() == [2048, 2049, 2051]


def test_quantize_follows_the_spec_conversions_to_the_expressed_type() -> None:
    # spec.md's quantize: scale, zero point and storage bounds are first converted to the expressed
    # type; x / scale + zero_point is computed there, then clamped, rounded and converted
    f16 = np.float16
    # the scale: f16(0.1) = 0.0999755859375; 0.0500183 / that = 0.500305 -> f16 0.500488 -> 1
    # (in f64, 0.0500183 / 0.1 = 0.500183 rounds to the f16 0.5, a tie that goes to 0)
    assert uniform_quantize(np.array([0.050018310546875], f16), 0.1, 0, -128, 127).tolist() == [1]
    # the zero point: 2049 is not an f16 (ties to 2048); 0.75 + 2048 = 2048.75 -> 2048 in f16
    assert uniform_quantize(np.array([0.75], f16), f16(1.0), 2049, -32768, 32767).tolist() == [2048]
    # the bounds: storage_max 2049 is 2048 in f16 (storage_min -2049: -2048)
    out = uniform_quantize(np.array([2050.0, -2050.0, 7.0], f16), f16(1.0), 0, -2049, 2049,
                           storage_type=np.int16)
    assert out.tolist() == [2048, -2048, 7]


def test_quantize_ends_with_convert() -> None:
    # i16 storage, f16 expressed: 32767 is 32768 in f16, so clamping leaves 32768, which convert
    # saturates to 32767 (truncate, saturate, NaN -> 0: conversion.convert's float -> int rule)
    x = np.array([4.0e4, -4.0e4, np.nan, 2050.0], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = uniform_quantize(x, np.float16(1.0), 0, -32768, 32767, storage_type=np.int16)
        assert out.dtype == np.int16 and out.tolist() == [32767, -32768, 0, 2050]
        wide = uniform_quantize(np.array([np.nan, 1.0]), np.float64(0.5), 0, -(2**31), 2**31 - 1)
        assert wide.dtype == np.int32 and wide.tolist() == [0, 2]


def test_quantize_raises_no_floating_point_warnings() -> None:
    # overflowing quotients, division by zero and 0/0 are values here (clamped; NaN converts to 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = uniform_quantize(np.array([3e38, -3e38], np.float32), np.float32(1e-3), 0, -128, 127)
        assert big.tolist() == [127, -128]
        by_zero = uniform_quantize(np.array([1.0, -1.0, 0.0], np.float32), np.float32(0.0), 0, -128, 127)
        assert by_zero.tolist() == [127, -128, 0]


def test_quantize_per_axis_on_dimension_0_and_rank_0() -> None:
    x = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], np.float32)
    out = uniform_quantize(x, np.array([1.0, 0.5], np.float32), [0, 10], -128, 127, 0)
    assert out.tolist() == [[1, 2, 3], [12, 14, 16]]
    deq = uniform_dequantize(out.astype(np.int8), np.array([1.0, 0.5], np.float32), [0, 10], -128, 127, 0)
    assert deq.tolist() == x.tolist()
    scalar = uniform_quantize(np.array(3.0, np.float32), [0.5], [1], -128, 127)
    assert scalar.shape == () and scalar.tolist() == 7
    back = uniform_dequantize(scalar, [0.5], [1], -128, 127)
    assert back.shape == () and back.tolist() == 3.0


def test_dequantize_converts_the_difference_to_the_expressed_type_first() -> None:
    # spec.md's dequantize: convert(x - zero_point, expressed) * scale. i32 storage, f32 expressed:
    # 2**24 + 1 converts to 2**24 (a tie, to even), times 1 + 2**-23 is 2**24 + 2 exactly; the
    # product of the exact difference would round to 2**24 + 4
    out = uniform_dequantize(np.array([2**24 + 1], np.int32), np.float32(1 + 2**-23), 0, -(2**31), 2**31 - 1)
    assert out.dtype == np.float32 and out.tolist() == [2.0**24 + 2]


def test_quantize_storage_beyond_int64_is_int64() -> None:
    # no standard type holds [-2**63 - 1, 2**63]: the widest, int64
    out = uniform_quantize(np.array([3.0, -2.0]), 1.0, 0, -(2**63) - 1, 2**63)
    assert out.dtype == np.int64 and out.tolist() == [3, -2]


def test_dequantize_expressed_type_rules() -> None:
    q = np.array([[3, -4], [5, 0]], np.int8)
    f64 = uniform_dequantize(q, np.array([0.5, 0.25], np.float64), [1, -2], -128, 127, 1)
    assert f64.dtype == np.float64 and f64.tolist() == [[1.0, -0.5], [2.0, 0.5]]
    per_tensor = uniform_dequantize(q, np.float64(0.5), 1, -128, 127)
    assert per_tensor.dtype == np.float64 and per_tensor.tolist() == [[1.0, -2.5], [2.0, -0.5]]
    default = uniform_dequantize(q, 0.1, 0, -128, 127)
    assert default.dtype == np.float32
    assert default.tolist() == (q.astype(np.float32) * np.float32(0.1)).tolist()
    f16 = uniform_dequantize(q, 0.1, 0, -128, 127, expressed_type=np.float16)
    assert f16.dtype == np.float16
    assert f16.tolist() == (q.astype(np.float16) * np.float16(0.1)).tolist()


# ---- regions ----------------------------------------------------------------------------------------


def test_make_comparator_and_body_attributes() -> None:
    plain = R.make_comparator(lambda a, b: a < b)
    assert R.body_sort_key(plain) is None and R.body_kind(plain) is None
    (less,) = plain(np.array([1, 5]), np.array([2, 2]))
    assert less.tolist() == [True, False]
    assert R.body_sort_key(R.make_comparator(lambda a, b: a < b, "LT")) == (0, "LT")  # key operand 0
    assert R.body_kind(np.add) is None and R.body_sort_key(np.add) is None  # plain callables
    gt = R.make_comparator(lambda *a: a[2] > a[3], "GT", 1)
    assert R.body_sort_key(gt) == (1, "GT")
    with pytest.raises(ValueError) as e:
        R.make_comparator(lambda a, b: a < b, "LE")
    assert str(e.value) == "comparator direction must be 'LT' or 'GT', got 'LE'"
    with pytest.raises(ValueError) as e:
        R.make_body(np.add, "sum")
    assert str(e.value) == (
        "unknown body kind 'sum'; expected one of ('add', 'mul', 'max', 'min', 'and', 'or', 'xor') or None"
    )

    class Fake:
        kind = "sum"

    assert R.body_kind(Fake()) is None and R.body_sort_key(Fake()) is None
    assert R.body_kind(R.make_body(np.add, "add")) == "add"


def test_comparators_compare_by_total_order() -> None:
    x = np.array([-0.0, 1.0, np.nan, -np.inf], np.float32)
    y = np.array([0.0, 1.0, np.inf, np.nan], np.float32)
    (lt,) = R.comparator_lt()(x, y)
    (gt,) = R.comparator_gt()(x, y)
    assert lt.tolist() == [True, False, False, True]
    assert gt.tolist() == [False, False, True, False]
    assert R.comparator_gt(1).sort_key == (1, "GT") and R.comparator_lt(2).sort_key == (2, "LT")
    # key operand 1 compares the second pair of arguments
    (lt1,) = R.comparator_lt(1)(y, x, x, y)
    (gt1,) = R.comparator_gt(1)(y, x, x, y)
    assert lt1.tolist() == lt.tolist() and gt1.tolist() == gt.tolist()


def test_bodies_return_tuples_of_arrays_from_lists_and_scalars() -> None:
    body = R.make_body(lambda a, b: [a + b, a * b])
    out = body(np.array(2), np.array(3))
    assert isinstance(out, tuple) and [o.tolist() for o in out] == [5, 6]
    assert all(isinstance(o, np.ndarray) for o in out)
    out = R.call_body(lambda a, b: [a - b, 7], np.array(2), np.array(3))
    assert isinstance(out, tuple) and [o.tolist() for o in out] == [-1, 7]
    assert all(isinstance(o, np.ndarray) for o in out)
    (single,) = R.call_body(lambda a: 4.5, np.array(1.0))
    assert isinstance(single, np.ndarray) and single.tolist() == 4.5
    with np.errstate(all="raise"):  # NaN and infinity are values, not warnings
        (q,) = R.call_body(lambda a, b: a / b, np.array(1.0), np.array(0.0))
        (r,) = R.make_body(lambda a, b: a / b)(np.array(0.0), np.array(0.0))
    assert q == np.inf and np.isnan(r)


@pytest.mark.parametrize(
    ("kind", "regular", "boolean"),
    [
        ("add", np.add, np.logical_or),
        ("mul", np.multiply, np.logical_and),
        ("max", np.maximum, np.logical_or),
        ("min", np.minimum, np.logical_and),
        ("and", np.bitwise_and, np.logical_and),
        ("or", np.bitwise_or, np.logical_or),
        ("xor", np.bitwise_xor, np.logical_xor),
    ],
)
def test_kind_ufuncs(kind, regular, boolean) -> None:
    assert R.kind_ufunc(kind, np.dtype(np.bool_)) is boolean
    assert R.kind_ufunc(kind, np.dtype(np.int32)) is regular
    assert R.kind_ufunc(kind, np.bool_) is boolean  # a dtype-like is enough
    x = np.array([True, True, False, False])
    y = np.array([True, False, True, False])
    assert R.KIND_BODIES[kind](x, y)[0].tolist() == boolean(x, y).tolist()
    assert R.KIND_BODIES[kind].fn.__name__ == f"{kind}_body"


@pytest.mark.parametrize("kind", R.KINDS)
def test_kind_functions_built_for_the_kind_bodies(kind) -> None:
    # ADD, MUL, ... are built at import by _kind_fn; built again here so that a change to it shows
    fn = R._kind_fn(kind)
    assert fn.__name__ == f"{kind}_body"
    for dtype in (np.bool_, np.int8, np.uint32):
        x = np.array([0, 1, 1, 0], dtype)
        y = np.array([1, 1, 0, 0], dtype)
        out = fn(x, y)
        assert isinstance(out, np.ndarray) and out.dtype == np.dtype(dtype)
        assert out.tolist() == R.kind_ufunc(kind, np.dtype(dtype))(x, y).tolist()
        assert fn(x.tolist(), y).tolist() == out.tolist()  # operands as sequences
    assert fn(np.int8(3), np.int8(6)).tolist() == R.kind_ufunc(kind, np.int8)(np.int8(3), np.int8(6))


def test_tree_reduce_refuses_an_empty_axis_and_keeps_types() -> None:
    with pytest.raises(ValueError) as e:
        R.tree_reduce(R.ADD, [np.zeros((2, 0), np.int32)])
    assert str(e.value) == "tree_reduce needs at least one element along the last axis"
    # odd lengths carry the last element up; an int8 body result keeps int8 for the carried one
    body = R.make_body(lambda a, b: (a + b).astype(np.int8))
    for n in range(1, 9):
        x = np.arange(1, n + 1, dtype=np.int16).reshape(1, n)
        (out,) = R.tree_reduce(body, [x])
        assert out.tolist() == [n * (n + 1) // 2]
        assert out.dtype == (np.int16 if n == 1 else np.int8)


def test_reduce_axis_kind_path_and_generic_path() -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int8)
    (out,) = R.reduce_axis(R.ADD, [x], [np.array(100, np.int8)])
    assert out.dtype == np.int8 and out.tolist() == [106, 115]
    (m,) = R.reduce_axis(R.MAX, [x], [np.array(5, np.int64)])  # init cast to the input type
    assert m.dtype == np.int8 and m.tolist() == [5, 6]
    wrapped = R.reduce_axis(R.ADD, [np.array([[100, 100]], np.int8)], [np.array(100, np.int8)])[0]
    assert wrapped.tolist() == [44]  # 300 wraps in int8, as the int8 add does
    # two inputs with a kind: the generic path (body(init, tree)), init first
    body = R.make_body(lambda a, b, c, d: (a * 10 + c, b - d), kind="add")
    y = x.astype(np.int64)
    s, d = R.reduce_axis(body, [y, y], [np.array(1, np.int64), np.array(0, np.int64)])
    # tree: ((x0, x1) -> 10*x0 + x1, then with x2) = 123; init: 10*1 + 123 = 133
    assert s.tolist() == [133, 466] and d.tolist() == [4, 7]
    # empty axis: the init values, in their own dtype
    e1, e2 = R.reduce_axis(body, [np.zeros((2, 0), np.int8)] * 2, [np.array(3, np.int16), np.array(4, np.int8)])
    assert e1.dtype == np.int16 and e1.tolist() == [3, 3] and e2.tolist() == [4, 4]


def test_grouped_fold_calls_the_body_once_per_rank() -> None:
    # the documented trip count: the largest number of values aimed at one element
    calls = []

    def body(acc, u):
        calls.append(len(u))
        return acc * 10 + u

    res = np.zeros(4, np.int64)
    R.grouped_fold(R.make_body(body), [res], np.array([3, 0, 3, 1, 0, 3]), [np.array([1, 2, 3, 4, 5, 6])])
    assert res.tolist() == [25, 4, 0, 136]
    assert calls == [3, 2, 1]  # rank 0: targets 3, 0, 1; rank 1: 3, 0; rank 2: 3


def test_reductions_raise_no_floating_point_warnings() -> None:
    big = np.array([[3e38, 3e38, -3e38]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (total,) = R.reduce_axis(R.ADD, [big], [np.array(3e38, np.float32)])
        (product,) = R.reduce_axis(R.MUL, [big], [np.array(1.0, np.float32)])
    assert total.tolist() == [np.inf] and product.tolist() == [-np.inf]


def test_grouped_fold_with_no_targets_is_a_no_op() -> None:
    res = np.array([1, 2], np.int64)
    R.grouped_fold(R.ADD, [res], np.array([], np.int64), [np.array([], np.int64)])
    assert res.tolist() == [1, 2]
    # values of any shape are read flat, in order (value k updates targets[k])
    res = np.zeros(3, np.int64)
    R.grouped_fold(R.make_body(lambda a, u: a * 10 + u), [res], np.array([2, 0, 2, 1]), [np.array([[1, 2], [3, 4]])])
    assert res.tolist() == [2, 4, 13]
    # many ranks: every update of one target in order
    res = np.zeros(2, np.int64)
    R.grouped_fold(R.make_body(lambda a, u: a * 2 + u), [res], np.array([1, 1, 1, 0, 1]), [np.array([1, 0, 1, 1, 1])])
    assert res.tolist() == [1, 11]


# ---- _common -----------------------------------------------------------------------------------------


def test_unsupported_names_known_and_unknown_types() -> None:
    assert str(C.unsupported("op", np.dtype("U3"))) == _unsupported("op", "<U3")
    assert str(C.unsupported("op", BF16)) == _unsupported("op", "bf16")
    assert C.unsupported("op", np.float32).note == NOTE.removeprefix("note: ")


def test_mask_of() -> None:
    assert C.mask_of(64) == np.uint64(2**64 - 1) and C.mask_of(64).dtype == np.uint64
    assert int(C.mask_of(63)) == 2**63 - 1 and int(C.mask_of(1)) == 1 and int(C.mask_of(4)) == 15


def test_compute_int_and_wrap_int() -> None:
    assert C.compute_int(np.array([True, False])).dtype == np.uint8
    assert C.compute_int(np.array([-8, 7], ml_dtypes.int4)).tolist() == [-8, 7]
    assert C.compute_int(np.array([-8, 7], ml_dtypes.int4)).dtype == np.int8
    assert C.compute_int(np.array([3], ml_dtypes.uint2)).dtype == np.uint8
    x = np.array([1, 2], np.int16)
    assert C.compute_int(x) is x
    values = np.array([-9, -8, -1, 0, 7, 8, 15, 16, 255, 256], np.int64)
    for dtype in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2, np.int8, np.uint8, np.uint64):
        bits = ml_dtypes.iinfo(dtype).bits
        signed = ml_dtypes.iinfo(dtype).min < 0
        want = [((int(v) + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) if signed
                else int(v) % (1 << bits) for v in values]
        got = C.wrap_int(values, dtype)
        assert got.dtype == np.dtype(dtype) and got.astype(object).tolist() == want
    got = C.wrap_int(np.array([0, 1, 2, 3, -1]), np.bool_)
    assert got.dtype == np.bool_ and got.tolist() == [False, True, False, True, True]
    assert C.int_min(np.int8) == -128 and C.int_max(ml_dtypes.uint4) == 15


BIT_TYPES = [np.bool_, ml_dtypes.int2, ml_dtypes.uint2, ml_dtypes.int4, ml_dtypes.uint4, np.int8, np.uint8,
             np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, ml_dtypes.float4_e2m1fn,
             ml_dtypes.float6_e2m3fn, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, np.float16, BF16,
             np.float32, np.float64]


@pytest.mark.parametrize("dtype", BIT_TYPES, ids=lambda d: np.dtype(d).name)
def test_bits_round_trip_every_pattern(dtype) -> None:
    d = np.dtype(dtype)
    width = 1 if d == np.bool_ else (ml_dtypes.iinfo(d).bits if K.is_integer(d) else ml_dtypes.finfo(d).bits)
    patterns = (np.arange(min(1 << width, 4096), dtype=np.uint64) * np.uint64(max(1, (1 << width) // 4096)))
    patterns = np.concatenate([patterns, np.array([(1 << width) - 1], np.uint64)])
    values = C.from_bits(patterns, d)
    assert values.dtype == d
    back = C.to_bits(values)
    assert back.dtype == np.uint64 and back.tolist() == patterns.tolist()
    # only the low `width` bits are read
    assert C.to_bits(C.from_bits(patterns | np.uint64(1 << 63) if width < 64 else patterns, d)).tolist() == (
        patterns.tolist())
    if K.is_integer(d):
        signed = ml_dtypes.iinfo(d).min < 0
        want = [int(p) - (1 << width) if signed and int(p) >= 1 << (width - 1) else int(p) for p in patterns]
        assert values.astype(object).tolist() == want


def test_bits_refuse_complex() -> None:
    with pytest.raises(InterpreterError) as e:
        C.to_bits(np.array([1j], np.complex64))
    assert str(e.value) == _unsupported("bits", "complex<f32>")
    with pytest.raises(InterpreterError) as e:
        C.from_bits(np.array([1], np.uint64), np.complex128)
    assert str(e.value) == _unsupported("bits", "complex<f64>")


def test_to_bits_of_a_strided_float_array() -> None:
    x = np.arange(8, dtype=np.float32)[::-2]
    assert C.to_bits(x).tolist() == [struct.unpack("<I", struct.pack("<f", v))[0] for v in (7.0, 5.0, 3.0, 1.0)]
    zero_d = C.contiguous(np.float32(2.0))
    assert zero_d.shape == () and isinstance(zero_d, np.ndarray)
    y = np.arange(6).reshape(2, 3).T
    c = C.contiguous(y)
    assert c.flags.c_contiguous and c.tolist() == y.tolist()
    z = np.arange(3)
    assert C.contiguous(z) is z


EDGE_U64 = [0, 1, 2, 3, 255, 256, 2**31, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1, 2**63, 2**64 - 1]


def test_bit_length_and_popcount() -> None:
    rng = np.random.default_rng(8)
    values = EDGE_U64 + [int(v) >> int(s) for v, s in zip(rng.integers(0, 2**63, 200, dtype=np.uint64) * 2 + 1,
                                                              rng.integers(0, 64, 200))]
    u = np.array(values, np.uint64)
    assert C.bit_length(u).tolist() == [v.bit_length() for v in values]
    assert C.popcount(u).tolist() == [bin(v).count("1") for v in values]
    assert C.popcount(u).dtype == np.int64
    assert C.bit_length(u.reshape(-1, 1)).shape == (len(values), 1)


def test_popcount_without_numpy_bitwise_count(monkeypatch) -> None:
    # numpy < 2.0 (the project accepts numpy >= 1.26) has no bitwise_count: the SWAR fallback
    values = EDGE_U64 + [0x5555555555555555, 0xAAAAAAAAAAAAAAAA, 0x0F0F0F0F0F0F0F0F, 0x8000000000000001]
    monkeypatch.delattr(np, "bitwise_count", raising=False)
    got = C.popcount(np.array(values, np.uint64))
    assert got.dtype == np.int64 and got.tolist() == [bin(v).count("1") for v in values]


def _round_fraction(q: Fraction, dtype) -> float:
    """q rounded to nearest-even in a binary float type (finfo's precision and range)."""
    info = ml_dtypes.finfo(dtype)
    p = info.nmant + 1
    emin = int(info.minexp)
    if q == 0:
        return 0.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, emin)
    quantum = Fraction(2) ** (e - p + 1)
    n = a / quantum
    whole = n.numerator // n.denominator
    rest = n - whole
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2):
        whole += 1
    value = whole * quantum
    if value > Fraction(float(info.max)):
        return float("inf") if q > 0 else float("-inf")
    return float(value) if q > 0 else -float(value)


@pytest.mark.parametrize("dtype", [BF16, ml_dtypes.float8_e4m3, ml_dtypes.float8_e5m2, np.float16, np.float32],
                         ids=lambda d: np.dtype(d).name)
def test_round_float_from_f64_rounds_once(dtype) -> None:
    # f64 values just beside the target's midpoints: a double rounding through f32 gets them wrong
    info = ml_dtypes.finfo(dtype)
    rng = np.random.default_rng(12)
    mids = []
    for _ in range(300):
        m = int(rng.integers(1 << info.nmant, 1 << (info.nmant + 1)))
        e = int(rng.integers(-3, 4))
        mid = (Fraction(2 * m + 1, 2) * Fraction(2) ** (e - info.nmant))
        for delta in (Fraction(0), Fraction(1, 2**40), -Fraction(1, 2**40)):
            mids.append(float(mid + delta * mid))
    v = np.array(mids, np.float64)
    got = C.round_float(v, dtype)
    assert got.dtype == np.dtype(dtype)
    assert got.astype(np.float64).tolist() == [_round_fraction(Fraction(x), dtype) for x in mids]
    got32 = C.round_float(v.astype(np.float32), dtype)  # from f32: one cast
    assert got32.astype(np.float64).tolist() == [
        _round_fraction(Fraction(float(x)), dtype) for x in v.astype(np.float32)]


def test_round_float_keeps_the_array_of_the_same_type_and_specials() -> None:
    x = np.array([1.5, np.nan], np.float32)
    assert C.round_float(x, np.float32) is x
    with np.errstate(all="raise"):
        got = C.round_float(np.array([np.inf, -np.inf, np.nan, 1e300, -0.0]), BF16)
    assert got.astype(np.float64)[:2].tolist() == [np.inf, -np.inf] and np.isnan(got[2].astype(np.float64))
    assert got.astype(np.float64)[3] == np.inf and np.signbit(got[4].astype(np.float64))


def test_round_complex_and_round_to() -> None:
    v = np.array([1 / 3 + 2j / 3, np.inf - 1e-300j], np.complex128)
    got = C.round_complex(v, np.complex64)
    assert got.dtype == np.complex64
    assert got.real.tolist() == [np.float32(1 / 3), np.inf] and got.imag.tolist() == [np.float32(2 / 3), -0.0]
    assert np.signbit(got.imag[1])
    assert C.round_complex(v, np.complex128) is v
    assert C.round_to(v, np.complex64).dtype == np.complex64
    assert C.round_to(np.array([0.1]), BF16).dtype == BF16
    assert C.to_f64(np.array([1], np.float16)).dtype == np.float64
    assert C.to_f64(np.array([1j], np.complex64)).dtype == np.complex128


def test_const_like() -> None:
    assert C.const_like(-1, np.array([1], np.uint8)).tolist() == 255
    assert C.const_like(300, np.array([1], np.int8)).tolist() == 44
    assert C.const_like(-1, np.array([1], np.uint64)).tolist() == 2**64 - 1
    assert C.const_like(1, np.array([True])).tolist() is True
    c = C.const_like(0.1, np.array([1.0], BF16))
    assert c.dtype == BF16 and c.shape == () and float(c) == _round_fraction(Fraction(0.1), BF16)
    z = C.const_like(0.1 + 1j, np.array([1j], np.complex64))
    assert z.dtype == np.complex64 and z.tolist() == complex(np.float32(0.1), 1.0)


def test_const_like_of_an_integer_goes_through_double() -> None:
    # upstream's getConstantLike builds a float constant with getFloatAttr(type, double) (a complex
    # one with complex::NumberAttr::get(type, double, 0)): an integer becomes a double first, then
    # the double is rounded to the type.  2**60 + 2**36 + 1 is 2**60 + 2**36 as a double, an f32
    # midpoint whose tie goes to the even 2**60 (rounded once from the integer, it is 2**60 + 2**37)
    big = 2**60 + 2**36 + 1
    assert float(big) == 2.0**60 + 2.0**36
    f = C.const_like(big, np.array([1.0], np.float32))
    assert f.dtype == np.float32 and f.tolist() == 2.0**60
    z = C.const_like(big, np.array([1j], np.complex64))
    assert z.dtype == np.complex64 and z.tolist() == complex(2.0**60, 0.0)
    assert C.const_like(-big, np.array([1.0], np.float32)).tolist() == -(2.0**60)


def test_f16_arithmetic_on_two_nans_keeps_the_lhs_nan() -> None:
    # APFloat (upstream's interpreter): an operation on two NaNs gives the lhs NaN, quieted (as x86
    # does in f32/f64).  f16 goes through f64 and back, which keeps it; numpy's own f16 add and
    # multiply give the rhs NaN
    lhs = C.from_bits(np.array([0x7E01, 0x7C01, 0xFE03], np.uint64), np.float16)  # qNaN, sNaN, -qNaN
    rhs = C.from_bits(np.array([0x7E02, 0x7E02, 0x7E04], np.uint64), np.float16)
    for op in (sem.add, sem.subtract, sem.multiply, sem.divide, sem.remainder):
        got = op(lhs, rhs)
        assert got.dtype == np.float16 and C.to_bits(got).tolist() == [0x7E01, 0x7E01, 0xFE03], op


# NaN patterns: (dtype, signaling pattern, its quiet pattern, a quiet NaN pattern)
NAN_TABLE = [
    (np.float32, 0x7F800001, 0x7FC00001, 0x7FC00000),
    (np.float64, 0xFFF0000000000002, 0xFFF8000000000002, 0x7FF8000000000000),
    (np.float16, 0x7C01, 0x7E01, 0x7E00),
    (BF16, 0xFF81, 0xFFC1, 0x7FC0),
    (ml_dtypes.float8_e5m2, 0x7D, 0x7F, 0x7E),
    (ml_dtypes.float8_e4m3, 0x79, 0x7D, 0x7C),
]


@pytest.mark.parametrize("row", NAN_TABLE, ids=lambda r: np.dtype(r[0]).name)
def test_signaling_and_quiet_nans(row) -> None:
    dtype, snan, snan_quieted, qnan = row
    x = C.from_bits(np.array([snan, qnan, 0, 1], np.uint64), dtype)  # sNaN, qNaN, +0, subnormal
    assert C.signaling_nan(x).tolist() == [True, False, False, False]
    quiet = C.quiet_nan(x)
    assert C.to_bits(quiet).tolist() == [snan_quieted, qnan, 0, 1]


def test_nan_helpers_raise_no_floating_point_warnings() -> None:
    # converting a signaling NaN to f64 raises the invalid-operation flag (numpy warns on casts)
    x = C.from_bits(np.array([0x7F800001, 0x7FC00000, 0x3F800000], np.uint64), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        signaling = C.signaling_nan(x)
        assert signaling.dtype == np.bool_ and signaling.tolist() == [True, False, False]
        assert C.to_bits(C.quiet_nan(x)).tolist() == [0x7FC00001, 0x7FC00000, 0x3F800000]
        for dtype in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu, ml_dtypes.float4_e2m1fn):
            y = np.array([1.0, 2.0], dtype)
            none = C.signaling_nan(y)  # types without infinity have no signaling NaNs
            assert none.dtype == np.bool_ and none.tolist() == [False, False]


@pytest.mark.parametrize("dtype", [ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e8m0fnu],
                         ids=lambda d: np.dtype(d).name)
def test_types_without_infinity_have_no_signaling_nans(dtype) -> None:
    x = np.array([np.nan, 1.0], dtype)
    assert C.signaling_nan(x).tolist() == [False, False]
    assert C.quiet_nan(x) is x


# ---- bitwise refusals --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("op", "fn", "args"),
    [
        ("and", B.and_, 2), ("or", B.or_, 2), ("xor", B.xor, 2), ("not", B.not_, 1),
        ("shift_left", B.shift_left, 2), ("shift_right_logical", B.shift_right_logical, 2),
        ("shift_right_arithmetic", B.shift_right_arithmetic, 2), ("popcnt", B.popcnt, 1),
        ("count_leading_zeros", B.count_leading_zeros, 1),
    ],
)
def test_bitwise_refusals_word_for_word(op, fn, args) -> None:
    x = np.array([1.0], BF16)
    with pytest.raises(InterpreterError) as e:
        fn(*[x] * args)
    assert str(e.value) == _unsupported(op, "bf16")
    if op.startswith(("shift", "popcnt", "count")):
        with pytest.raises(InterpreterError) as e:
            fn(*[np.array([True])] * args)
        assert str(e.value) == _unsupported(op, "i1")


# ---- bitwise: deterministic, against Python integers on the bit pattern -------------------------------

INT_KINDS = [ml_dtypes.int2, ml_dtypes.uint2, ml_dtypes.int4, ml_dtypes.uint4, np.int8, np.uint8, np.int16,
             np.uint16, np.int32, np.uint32, np.int64, np.uint64]


def _int_grid(dtype) -> list[int]:
    info = ml_dtypes.iinfo(dtype)
    lo, hi, bits = int(info.min), int(info.max), int(info.bits)
    if bits <= 4:
        return list(range(lo, hi + 1))
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, bits - 1, bits, bits + 1, 1 << (bits - 2), (1 << (bits - 2)) - 1}
    if lo < 0:
        vals |= {-1, -2, -bits}
    return sorted(v for v in vals if lo <= v <= hi)


def _interpret(pattern: int, dtype) -> int:
    info = ml_dtypes.iinfo(dtype)
    bits = int(info.bits)
    pattern &= (1 << bits) - 1
    return pattern - (1 << bits) if info.min < 0 and pattern >> (bits - 1) else pattern


@pytest.mark.parametrize("dtype", INT_KINDS, ids=lambda d: np.dtype(d).name)
def test_bitwise_ops_on_every_pair(dtype) -> None:
    bits = int(ml_dtypes.iinfo(dtype).bits)
    mask = (1 << bits) - 1
    grid = _int_grid(dtype)
    pairs = [(x, y) for x in grid for y in grid]
    lhs = np.array([x for x, _ in pairs], dtype=object).astype(dtype)
    rhs = np.array([y for _, y in pairs], dtype=object).astype(dtype)

    def check(fn, ref):
        got = fn(lhs, rhs)
        assert got.dtype == np.dtype(dtype)
        assert got.astype(object).tolist() == [_interpret(ref(x & mask, y & mask), dtype) for x, y in pairs]

    check(B.and_, lambda p, q: p & q)
    check(B.or_, lambda p, q: p | q)
    check(B.xor, lambda p, q: p ^ q)
    check(B.shift_left, lambda p, q: (p << q) if q < bits else 0)
    check(B.shift_right_logical, lambda p, q: (p >> q) if q < bits else 0)
    # arithmetic: the pattern read as signed, shifted with sign fill; amounts >= bits give the fill
    check(B.shift_right_arithmetic,
          lambda p, q: (p - (1 << bits) if p >> (bits - 1) else p) >> min(q, bits))
    x = np.array(grid, dtype=object).astype(dtype)
    assert B.not_(x).astype(object).tolist() == [_interpret(~v, dtype) for v in grid]
    assert B.popcnt(x).astype(object).tolist() == [_interpret(bin(v & mask).count("1"), dtype) for v in grid]
    assert B.count_leading_zeros(x).astype(object).tolist() == [
        _interpret(bits - (v & mask).bit_length(), dtype) for v in grid]


def test_bitwise_on_booleans_is_logical() -> None:
    t = np.array([True, True, False, False])
    f = np.array([True, False, True, False])
    assert B.and_(t, f).tolist() == [True, False, False, False]
    assert B.or_(t, f).tolist() == [True, True, True, False]
    assert B.xor(t, f).tolist() == [False, True, True, False]
    assert B.not_(t).tolist() == [False, False, True, True]
    assert B.and_(t, f).dtype == np.bool_ and B.not_(t).dtype == np.bool_
