"""stablehlo_py/semantics/conversion.py: what the mutation run of the `conversion` group found
unchecked.  Expected values are worked out by hand from the rules in the module's docstring
(upstream's APFloat rounding: int -> float rounds once to nearest-even; bitcast_convert puts the
lowest bits first) and XLA's reduce_precision (round the mantissa to nearest-even, then flush
exponents at or below the reduced range's bottom to ±0 and those above its top to ±inf); the
8-bit reduce_precision cases are the XLA verdicts quoted in issue 30."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.semantics import conversion as C
from stablehlo_py.semantics.conversion import bitcast_convert, convert, reduce_precision

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)


# ---- int -> float through the round-to-odd float64 (targets narrower than f32) ----------------


@pytest.mark.parametrize("target", [F16, BF16, np.dtype(ml_dtypes.float8_e4m3fn)])
def test_small_integers_convert_exactly(target: np.dtype) -> None:
    got = convert(np.array([0, 1, 2, 3, -1, -2, 6], np.int64), target)
    assert got.dtype == target
    assert got.astype(np.float64).tolist() == [0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 6.0]
    assert not np.signbit(got[0].astype(np.float64))  # 0 -> +0, not -0


def test_int64_tie_rounds_to_even_not_up() -> None:
    # bf16 keeps 8 significant bits: 2**60 + 2**52 lies exactly halfway between 2**60 and
    # 2**60 + 2**53 and rounds to the even 2**60; a tie must not be mistaken for "above half"
    v = (1 << 60) + (1 << 52)
    assert convert(np.array([v], np.int64), BF16).astype(np.float64).tolist() == [2.0**60]
    # one more makes it above half: up
    got = convert(np.array([v + 1], np.int64), BF16).astype(np.float64).tolist()
    assert got == [2.0**60 + 2.0**53]
    # and the same for negative values
    assert convert(np.array([-v], np.int64), BF16).astype(np.float64).tolist() == [-(2.0**60)]


def test_uint64_converts_to_narrow_floats() -> None:
    got = convert(np.array([3, (1 << 64) - 1, 0], np.uint64), F16)
    assert got.dtype == F16
    assert got.tolist()[0] == 3.0 and np.isposinf(got[1]) and got[2] == 0.0
    got = convert(np.array([(1 << 63) + (1 << 55), 5], np.uint64), BF16).astype(np.float64)
    assert got.tolist() == [2.0**63, 5.0]  # a tie: to even


def test_int_to_f32_keeps_the_f32_dtype() -> None:
    got = convert(np.array([3, -7], np.int32), np.float32)
    assert got.dtype == np.float32 and got.tolist() == [3.0, -7.0]


# ---- bitcast_convert -----------------------------------------------------------------------


def test_bitcast_sub_byte_types_split_lowest_bits_first() -> None:
    # i4 7 = 0b0111 -> two i2: low 0b11 (-1), high 0b01 (1)
    got = bitcast_convert(np.array([7, -8], ml_dtypes.int4), ml_dtypes.int2)
    assert got.shape == (2, 2)
    assert got.astype(np.int64).tolist() == [[-1, 1], [0, -2]]
    back = bitcast_convert(got, ml_dtypes.int4)
    assert back.astype(np.int64).tolist() == [7, -8]


def test_bitcast_errors_name_the_types_and_shapes() -> None:
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.array([1], np.complex64), np.int64)
    assert str(ei.value).startswith(
        "error: bitcast_convert from 'complex<f32>' to 'i64': complex only converts to complex "
        "(bitcast_convert_c2)")
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.array([1, 2, 3], np.int16), np.int32)
    assert str(ei.value).startswith(
        "error: bitcast_convert from 'i16' of shape [3] to 'i32': the wider type's 32 bits must be a "
        "multiple of the narrower's 16, split over the operand's last dimension (bitcast_convert_c1)")
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.int8(1), np.int16)  # a scalar has no last dimension to fold
    assert "from 'i8' of shape [] to 'i16'" in str(ei.value)
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.zeros((2, 2), np.int8), np.int16, [3])
    assert str(ei.value).startswith(
        "error: bitcast_convert of tensor<2x2xi8> to 'i16' gives shape [2], not the requested [3] "
        "(bitcast_convert_c1)")
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.zeros((2,), np.int16), np.dtype(ml_dtypes.int4), [3])
    assert "gives shape [2, 4], not the requested [3]" in str(ei.value)


@pytest.mark.parametrize("dtype,part", [(np.complex64, np.float32), (np.complex128, np.float64)])
def test_complex_element_bits_are_real_then_imaginary(dtype: type, part: type) -> None:
    # the bit-level path (used where a byte view does not apply): real | imag << (bits / 2)
    x = np.array([1.5 - 2.0j, -0.0 + 3.25j], dtype)
    bits = C._element_bits(x)
    half = np.dtype(part).itemsize * 8
    assert bits.shape == (2, 2 * half) and bits.dtype == np.uint8
    re_bits = x.real.astype(part).view(np.uint32 if half == 32 else np.uint64)
    im_bits = x.imag.astype(part).view(np.uint32 if half == 32 else np.uint64)
    for k in range(2):
        word = sum(int(b) << i for i, b in enumerate(bits[k]))
        assert word == int(re_bits[k]) | (int(im_bits[k]) << half)
    back = C._from_element_bits(bits, np.dtype(dtype))
    assert back.dtype == np.dtype(dtype)
    assert back.view(np.uint8).tolist() == x.view(np.uint8).tolist()


# ---- reduce_precision ----------------------------------------------------------------------


def test_reduce_precision_errors() -> None:
    with pytest.raises(InterpreterError) as ei:
        reduce_precision(np.int32([1]), 8, 7)
    assert str(ei.value).startswith("error: 'reduce_precision' does not support element type 'i32'")
    with pytest.raises(InterpreterError) as ei:
        reduce_precision(np.float32([1]), 0, 7)
    assert str(ei.value).startswith(
        "error: reduce_precision needs exponent_bits >= 1 and mantissa_bits >= 0, got 0 and 7 "
        "(reduce_precision_c2, c3)")
    # one exponent bit is allowed
    assert reduce_precision(np.float32([0.0]), 1, 0).tolist() == [0.0]


@pytest.mark.parametrize("dtype,e,m", [(np.float32, 8, 23), (np.float16, 5, 10), (BF16, 8, 7)])
def test_reduce_precision_to_the_types_own_format_is_the_identity(dtype, e: int, m: int) -> None:
    tiny = float(ml_dtypes.finfo(dtype).smallest_subnormal)
    x = np.array([1.0, 3.0, 2.0, -0.5, tiny, float(ml_dtypes.finfo(dtype).max), np.inf], dtype)
    got = reduce_precision(x, e, m)
    assert got.dtype == np.dtype(dtype)
    assert got.view(np.uint8).tolist() == x.view(np.uint8).tolist()
    nan = reduce_precision(np.array([np.nan], dtype), e, m)
    assert np.isnan(nan.astype(np.float64)).all()


def test_reduce_precision_mantissa_rounds_to_nearest_even() -> None:
    ulp = 2.0**-10  # f32 reduced to 10 mantissa bits
    x = np.array([1 + ulp / 2 - 2.0**-23, 1 + ulp / 2, 1 + ulp + ulp / 2, 1 + ulp / 2 + 2.0**-23],
                 np.float32)
    got = reduce_precision(x, 8, 10)
    assert got.dtype == np.float32
    assert got.tolist() == [1.0, 1.0, 1 + 2 * ulp, 1 + ulp]


def test_reduce_precision_flushes_below_the_reduced_range() -> None:
    # f32 -> (5, 10) as f16: 2**-14 is f16's smallest normal and stays; 2**-15 (an f16 subnormal)
    # and 1e-10 go to zero, keeping the sign; 70000 overflows to inf
    x = np.array([2.0**-14, 2.0**-15, -(2.0**-15), 1e-10, 70000.0, -70000.0], np.float32)
    got = reduce_precision(x, 5, 10)
    assert got.tolist() == [2.0**-14, 0.0, -0.0, 0.0, np.inf, -np.inf]
    assert np.signbit(got[2]) and not np.signbit(got[1])


def test_reduce_precision_nan_stays_nan_with_a_mantissa_bit() -> None:
    x = np.array([np.nan, 1.0], np.float32)
    got = reduce_precision(x, 8, 1)
    assert np.isnan(got[0]) and got[1] == 1.0
    got = reduce_precision(x, 8, 0)  # no mantissa bit: NaN becomes +inf, in the operand's type
    assert got.dtype == np.float32 and got.tolist() == [np.inf, 1.0]


def test_reduce_precision_narrow_types_as_xla() -> None:
    e4m3fn = np.dtype(ml_dtypes.float8_e4m3fn)
    # issue 30's XLA verdicts
    assert np.isnan(reduce_precision(np.array([16.0], e4m3fn), 3, 3).astype(np.float64)).all()
    got = reduce_precision(np.array([-0.035], ml_dtypes.float8_e4m3fnuz), 2, 19)
    assert got.view(np.uint8).tolist() == [0]
    got = reduce_precision(np.array([np.nan], ml_dtypes.float8_e5m2), 2, 1)
    assert got.view(np.uint8).tolist() == [0x7F]
    # rounding to 2 mantissa bits, ties to even: 1.125 -> 1.0, 1.375 -> 1.5
    got = reduce_precision(np.array([1.125, 1.375, 1.0, -2.0], e4m3fn), 4, 2)
    assert got.dtype == e4m3fn and got.astype(np.float64).tolist() == [1.0, 1.5, 1.0, -2.0]
    # f8E8M0FNU (powers of two, no sign): its own format is the identity
    e8m0 = np.dtype(ml_dtypes.float8_e8m0fnu)
    x = np.array([1.0, 2.0**-10, 2.0**20], e8m0)
    assert reduce_precision(x, 8, 0).view(np.uint8).tolist() == x.view(np.uint8).tolist()


def test_reduce_precision_bf16_is_not_squeezed_through_f16() -> None:
    x = np.array([1e30, -3e-30], BF16)
    got = reduce_precision(x, 8, 7)
    assert got.dtype == BF16 and got.view(np.uint16).tolist() == x.view(np.uint16).tolist()


def test_reduce_precision_raises_no_floating_point_error() -> None:
    x32 = np.array([3e38, np.nan, np.inf, 1e-40], np.float32)
    x8 = np.array([448.0, np.nan, 16.0], ml_dtypes.float8_e4m3fn)
    with np.errstate(all="raise"):
        for x in (x32, x8):
            for e, m in [(5, 10), (8, 7), (2, 1), (8, 0), (3, 3)]:
                reduce_precision(x, e, m)


def test_int_to_unsigned_wraps() -> None:
    got = convert(np.array([-1, 300, 255, (1 << 40) + 7], np.int64), np.uint8)
    assert got.dtype == np.uint8 and got.tolist() == [255, 44, 255, 7]  # the low 8 bits


def test_int64_to_complex64_rounds_once() -> None:
    # 2**60 + 2**36 + 1 is just above the halfway point 2**60 + 2**36 between two f32 values: one
    # rounding gives 2**60 + 2**37; rounding through f64 first would lose the +1 and tie to 2**60
    v = (1 << 60) + (1 << 36) + 1
    got = convert(np.array([v], np.int64), np.complex64)
    assert got.dtype == np.complex64
    assert got.real.tolist() == [2.0**60 + 2.0**37] and got.imag.tolist() == [0.0]


def test_convert_raises_no_floating_point_error() -> None:
    with np.errstate(all="raise"):
        got = convert(np.array([np.nan, np.inf, 1e30, -1e30], np.float32), np.int32)
    assert got.tolist() == [0, 2**31 - 1, 2**31 - 1, -(2**31)]


def test_bitcast_narrowing_error_has_no_shape() -> None:
    with pytest.raises(InterpreterError) as ei:
        bitcast_convert(np.float32([1]), ml_dtypes.float6_e2m3fn)
    assert str(ei.value).startswith(
        "error: bitcast_convert from 'f32' to 'f6E2M3FN': the wider type's 32 bits must be a "
        "multiple of the narrower's 6, split over the operand's last dimension (bitcast_convert_c1)")


@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_complex_element_bits_any_rank(shape: tuple[int, ...]) -> None:
    x = (np.arange(int(np.prod(shape)), dtype=np.float32) + 1j * 7).astype(np.complex64).reshape(shape)
    bits = C._element_bits(x)
    assert bits.shape == (*shape, 64)
    back = C._from_element_bits(bits, np.dtype(np.complex64))
    assert back.shape == shape and back.tobytes() == x.tobytes()


def test_reduce_precision_narrow_is_reduced_in_f16() -> None:
    # f8E5M2's 2**-16 is an f16 subnormal; reducing to 5 exponent bits in f16 keeps it (f16 has 5),
    # while reducing in a wider type would flush it below 5 exponent bits' range
    x = np.array([2.0**-16, -(2.0**-15)], ml_dtypes.float8_e5m2)
    got = reduce_precision(x, 5, 2)
    assert got.dtype == x.dtype and got.view(np.uint8).tolist() == x.view(np.uint8).tolist()


@pytest.mark.parametrize(
    ("name", "expected"),
    [("float8_e5m2", 0x7C), ("float8_e4m3", 0x78), ("float8_e3m4", 0x70),
     ("float8_e4m3fn", 0x7F), ("float8_e4m3fnuz", 0x80), ("float8_e8m0fnu", 0xFF)],
)
def test_reduce_precision_narrow_nan_without_mantissa_bits(name: str, expected: int) -> None:
    """No mantissa bit, no NaN: +inf in the type (its NaN where it has no infinity), both signs."""
    dtype = np.dtype(getattr(ml_dtypes, name))
    x = np.array([np.nan, -np.nan, 1.0], np.float32).astype(dtype)
    got = reduce_precision(x, 3, 0)
    assert got.dtype == dtype
    assert got.view(np.uint8).tolist()[:2] == [expected, expected]
    assert got.astype(np.float64)[2] == 1.0
