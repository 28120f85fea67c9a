"""convert, bitcast_convert, reduce_precision: conformance values, rounding, bit layouts."""

from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.semantics import dtypes as dt
from stablehlo_py import semantics as S

from stablehlo_py.errors import InterpreterError
from tests.unit.interpreter.helpers import NARROW_FLOATS, bits, f64bits


# --- convert: convert.mlir --------------------------------------------------------------------------


def test_convert_conformance_values():
    t = np.array([True, False])
    assert S.convert(t, "i1").tolist() == [True, False]
    assert S.convert(t, "i64").tolist() == [1, 0]
    assert S.convert(t, "ui64").tolist() == [1, 0]
    assert S.convert(t, "f64").tolist() == [1.0, 0.0]
    assert S.convert(t, "complex<f64>").tolist() == [1 + 0j, 0j]
    i = np.array([-1, 0, 1], np.int64)
    assert S.convert(i, "i1").tolist() == [True, False, True]
    assert S.convert(i, "f64").tolist() == [-1.0, 0.0, 1.0]
    assert S.convert(np.array([0, 1], ml_dtypes.int4), "ui64").tolist() == [0, 1]
    assert S.convert(np.array([-1, 0, 1], ml_dtypes.int4), "complex<f64>").tolist() == [
        -1 + 0j,
        0j,
        1 + 0j,
    ]
    assert S.convert(np.array([0, 1], ml_dtypes.uint4), "complex<f64>").tolist() == [0j, 1 + 0j]
    f = np.array([-1.0, 0.0, 1.0])
    assert S.convert(f, "i1").tolist() == [True, False, True]
    assert S.convert(f, "i64").tolist() == [-1, 0, 1]
    assert S.convert(np.array([0.0, 1.0]), "ui64").tolist() == [0, 1]
    c = np.array([-1 + 0j, 1j, 1 + 0j])
    assert S.convert(c, "i1").tolist() == [True, False, True]  # the imaginary part is ignored
    assert S.convert(c, "i64").tolist() == [-1, 0, 1]
    assert S.convert(c, "f64").tolist() == [-1.0, 0.0, 1.0]
    assert S.convert(c, "complex<f64>").tolist() == c.tolist()
    assert S.convert(np.array([-1, 0, 1]), np.complex128).tolist() == [-1 + 0j, 0j, 1 + 0j]


def test_convert_result_dtypes():
    x = np.array([1.5, -2.5], np.float32)
    for name in dt.ELEMENT_TYPES:
        out = S.convert(x, name)
        assert out.dtype == dt.dtype_of(name) and out.shape == (2,), name
    assert S.convert(np.array(3, np.int8), "f32").shape == ()


def test_float_to_int_truncates_saturates_and_maps_nan_to_zero():
    x = np.array([-1.5, np.nan, 1e30, -1e30, 3.9, -0.9, np.inf, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert S.convert(x, "i32").tolist() == [
            -1, 0, 2**31 - 1, -(2**31), 3, 0, 2**31 - 1, -(2**31),
        ]
        assert S.convert(x, "ui8").tolist() == [0, 0, 255, 0, 3, 0, 255, 0]
        assert S.convert(x, "i64").tolist() == [
            -1, 0, 2**63 - 1, -(2**63), 3, 0, 2**63 - 1, -(2**63),
        ]
        assert S.convert(x, "ui64").tolist() == [0, 0, 2**64 - 1, 0, 3, 0, 2**64 - 1, 0]
        assert S.convert(x, "i4").astype(int).tolist() == [-1, 0, 7, -8, 3, 0, 7, -8]
        assert S.convert(np.array([2.0**63, 2.0**64 - 2048]), "ui64").tolist() == [
            2**63,
            2**64 - 2048,
        ]
        assert S.convert(np.array([1.5, -7.9], ml_dtypes.bfloat16), "i8").tolist() == [1, -7]


def test_float_to_bool():
    x = np.array([0.0, -0.0, np.nan, 1e-45, -3.0], np.float32)
    assert S.convert(x, "i1").tolist() == [False, False, True, True, True]


def test_int_to_int_wraps():
    assert S.convert(np.array([255, 256, -1], np.int64), "ui8").tolist() == [255, 0, 255]
    assert S.convert(np.array([20, -20, 300], np.int64), "i4").astype(int).tolist() == [4, -4, -4]
    assert S.convert(np.array([15], ml_dtypes.uint4), "i4").astype(int).tolist() == [-1]
    assert S.convert(np.array([-1], ml_dtypes.int2), "ui64").tolist() == [2**64 - 1]
    assert S.convert(np.array([2**64 - 1], np.uint64), "i64").tolist() == [-1]


def test_f64_to_narrow_floats_rounds_once():
    # 1 + 2**-8 + 2**-30 is just above the bf16 midpoint; via f32 it would round down to 1.0.
    assert S.convert(np.array([1 + 2**-8 + 2**-30]), "bf16").astype(float).tolist() == [1 + 2**-7]
    assert S.convert(np.array([1 + 2**-4 + 2**-30]), "f8E4M3FN").astype(float).tolist() == [1.125]
    assert S.convert(np.array([1 + 2**-8]), "bf16").astype(float).tolist() == [1.0]  # tie to even
    assert S.convert(np.array([1 + 3 * 2**-8]), "bf16").astype(float).tolist() == [1 + 2**-6]
    assert S.convert(np.array([1e300, -1e300]), "bf16").astype(float).tolist() == [np.inf, -np.inf]
    assert math.isnan(float(S.convert(np.array([1e9]), "f8E4M3FN")[0]))  # no infinity: NaN
    assert S.convert(np.array([1e-300]), "bf16").astype(float).tolist() == [0.0]


def test_int64_to_narrow_floats_rounds_once():
    big = (1 << 62) + (1 << 54) + 1  # just above the bf16 midpoint between 2**62 and 2**62 + 2**55
    assert S.convert(np.array([big], np.int64), "bf16").astype(float).tolist() == [
        2.0**62 + 2.0**55
    ]
    assert S.convert(np.array([-big], np.int64), "bf16").astype(float).tolist() == [
        -(2.0**62 + 2.0**55)
    ]
    assert S.convert(np.array([2**64 - 1], np.uint64), "f32").tolist() == [2.0**64]
    assert S.convert(np.array([-(2**63)], np.int64), "f16").astype(float).tolist() == [-np.inf]


_TABLES: dict[str, tuple[np.ndarray, np.ndarray]] = {}


def _representable(name):
    """(values as f64, bit patterns) of every finite value of a narrow float type."""
    if name not in _TABLES:
        n = dt.bitwidth(name)
        patterns = np.arange(1 << n, dtype=np.uint64)
        raw = patterns.astype(f"u{dt.dtype_of(name).itemsize}").view(dt.dtype_of(name))
        with np.errstate(all="ignore"):
            values = raw.astype(np.float64)
        finite = np.isfinite(values)
        _TABLES[name] = (values[finite], patterns[finite])
    return _TABLES[name]


@settings(max_examples=150, deadline=None)
@given(
    value=st.floats(allow_nan=False, allow_infinity=False, width=64),
    name=st.sampled_from(NARROW_FLOATS),
)
def test_f64_to_narrow_float_is_the_nearest_value_ties_to_even(value, name):
    if value == 0 or abs(value) > dt.max_value(name):
        return  # signed zeros and overflow are covered by the hand-written cases
    values, patterns = _representable(name)
    distance = np.abs(values - value)
    best = distance == distance.min()
    if best.sum() > 1:  # a tie: the even significand wins
        best &= (patterns & 1) == 0
    expected = values[best][0]
    assert float(S.convert(np.array([value]), name).astype(np.float64)[0]) == expected


@settings(max_examples=100, deadline=None)
@given(value=st.floats(allow_nan=False, width=32), name=st.sampled_from(NARROW_FLOATS))
def test_f32_to_narrow_float_agrees_with_ml_dtypes(value, name):
    x = np.array([value], np.float32)
    with np.errstate(all="ignore"):
        expected = x.astype(dt.dtype_of(name))
    assert bits(S.convert(x, name)) == bits(expected)


# --- bitcast_convert: bitcast_convert.mlir, spec example --------------------------------------------

# the 64 bits of 0x0123456789ABCDEF, least significant first, a byte a line
PATTERN = [
    True, True, True, True, False, True, True, True,
    True, False, True, True, False, False, True, True,
    True, True, False, True, False, True, False, True,
    True, False, False, True, False, False, False, True,
    True, True, True, False, False, True, True, False,
    True, False, True, False, False, False, True, False,
    True, True, False, False, False, True, False, False,
    True, False, False, False, False, False, False, False,
]


def test_bitcast_convert_conformance_values():
    x = np.array(0x0123456789ABCDEF, np.int64)
    assert int(S.bitcast_convert(np.array(PATTERN), "i64", ())) == 0x0123456789ABCDEF
    as_f64 = S.bitcast_convert(x, "f64", ())
    assert as_f64.dtype == np.float64 and bits(as_f64) == 0x0123456789ABCDEF
    assert S.bitcast_convert(as_f64, "i1", (64,)).tolist() == PATTERN
    c = np.array(0, np.complex128)
    c.real = np.array(0x0123456789ABCDEF, np.uint64).view(np.float64)
    c.imag = np.array(0x0000000011111111, np.uint64).view(np.float64)
    out = S.bitcast_convert(c, "complex<f32>", (2,))
    assert out.dtype == np.complex64
    assert out.view(np.uint32).tolist() == [0x89ABCDEF, 0x01234567, 0x11111111, 0x00000000]
    back = S.bitcast_convert(out, "complex<f64>", ())
    assert back.reshape(1).view(np.uint64).tolist() == [0x0123456789ABCDEF, 0x0000000011111111]


def test_bitcast_convert_spec_example():
    out = S.bitcast_convert(
        np.array(0x0123456789ABCDEF, np.uint64).view(np.float64).reshape(()), "f16"
    )
    assert bits(out) == [0xCDEF, 0x89AB, 0x4567, 0x0123]
    back = S.bitcast_convert(out, "f64", ())
    assert bits(back) == 0x0123456789ABCDEF


def test_bitcast_convert_sub_byte_types():
    x = np.array([0x1F, 0xA5], np.uint8)
    nibbles = S.bitcast_convert(x, "i4", (2, 2))
    assert nibbles.astype(int).tolist() == [[-1, 1], [5, -6]]  # low nibble first
    assert S.bitcast_convert(nibbles, "ui8", (2,)).tolist() == [0x1F, 0xA5]
    pairs = S.bitcast_convert(np.array([0b11100100], np.uint8), "ui2", (1, 4))
    assert pairs.astype(int).tolist() == [[0, 1, 2, 3]]
    fp4 = S.bitcast_convert(np.array([0x21], np.uint8), "f4E2M1FN", (1, 2))
    assert fp4.astype(float).tolist() == [[0.5, 1.0]]
    same = S.bitcast_convert(np.array([7, -8], ml_dtypes.int4), "ui4", (2,))
    assert same.astype(int).tolist() == [7, 8]
    with pytest.raises(InterpreterError, match="bitcast_convert"):
        S.bitcast_convert(np.zeros(3, np.uint8), "f6E2M3FN")  # 8 is not a multiple of 6
    with pytest.raises(InterpreterError, match="complex"):
        S.bitcast_convert(np.zeros(2, np.float32), "complex<f32>")
    with pytest.raises(InterpreterError, match="shape"):
        S.bitcast_convert(np.zeros(2, np.float32), "i32", (3,))


@settings(max_examples=50, deadline=None)
@given(
    data=st.binary(min_size=8, max_size=8),
    name=st.sampled_from(
        ["i1", "i2", "i4", "ui2", "ui4", "i8", "ui16", "f16", "bf16", "f32", "f8E5M2", "i32", "f64"]
    ),
)
def test_bitcast_round_trips_through_any_width(data, name):
    x = np.frombuffer(data, np.uint64).reshape(())
    n = dt.bitwidth(name)
    out = S.bitcast_convert(x, name, () if n == 64 else (64 // n,))
    back = S.bitcast_convert(out, "ui64", ())
    assert int(back) == int(x)


# --- reduce_precision: reduce_precision.mlir, spec example ------------------------------------------


def test_reduce_precision_conformance_values():
    x = f64bits(0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0x0000000000000001, 0)
    x = np.concatenate([x, [65505.0, 65520.0]])
    out = S.reduce_precision(x, 5, 10)
    assert bits(out) == [0x7FF0000000000000, 0x7FFFFFFFFFFFFFFF, 0, 0] + bits(
        np.array([65504.0, np.inf])
    )
    nan = S.reduce_precision(f64bits(0x7FFFFFFFFFFFFFFF).reshape(()), 5, 0)
    assert nan.shape == () and bits(nan) == 0x7FF0000000000000


@settings(max_examples=200, deadline=None)
@given(value=st.floats(width=32, allow_nan=False))
def test_reduce_precision_to_f16_and_bf16_formats_matches_conversion(value):
    x = np.array([value], np.float32)
    if abs(value) >= 2.0**-14 or value == 0:  # e5m10 flushes f16's subnormal range to zero
        with np.errstate(all="ignore"):
            as_f16 = x.astype(np.float16).astype(np.float32)
        assert bits(S.reduce_precision(x, 5, 10)) == bits(as_f16)
    as_bf16 = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert bits(S.reduce_precision(x, 8, 7)) == bits(as_bf16)


def test_reduce_precision_rejects_bad_formats_and_non_floats():
    with pytest.raises(InterpreterError):
        S.reduce_precision(np.array([1.0]), 0, 3)
    with pytest.raises(InterpreterError):
        S.reduce_precision(np.array([1], np.int32), 5, 10)
