"""Elementwise semantics: hand-checked values (spec examples, interpret/*.mlir) and properties."""

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
from tests.unit.interpreter.helpers import FLOAT_TYPES, INT_TYPES, bits, f64bits, wrap


def a(values, name):
    """An array of MLIR element type ``name`` from Python values (ints wrap like the IR's)."""
    dtype = dt.dtype_of(name)
    if dt.is_int(name):
        wide = np.int64 if dt.is_signed_int(name) else np.uint64
        return np.array(values, dtype=wide).astype(dtype)
    return np.array(values, dtype=np.float64 if dt.is_float(name) else None).astype(dtype)


def same_floats(got, expected):
    g, e = np.asarray(got, dtype=np.float64), np.asarray(expected, dtype=np.float64)
    return bool(np.all((g == e) & (np.signbit(g) == np.signbit(e)) | (np.isnan(g) & np.isnan(e))))


# --- integer arithmetic: add.mlir, subtract.mlir, multiply.mlir, negate.mlir -----------------------


@pytest.mark.parametrize(
    ("name", "lhs", "rhs", "expected"),
    [
        ("i2", [1, 0, -1, -2], [-1, 1, 1, 1], [0, 1, 0, -1]),
        ("ui2", [0, 2], [1, 1], [1, 3]),
        ("i4", [0, 1, 2, -3, 0], [-8, -1, 2, -3, 7], [-8, 0, 4, -6, 7]),
        ("ui4", [0, 2], [15, 3], [15, 5]),
        ("i8", [0, 1, 8, -9, 0], [-128, -1, 8, -9, 127], [-128, 0, 16, -18, 127]),
        ("ui8", [0, 16], [255, 16], [255, 32]),
        ("i64", [9223372036854775807], [1], [-9223372036854775808]),
        ("ui64", [18446744073709551615], [2], [1]),
    ],
)
def test_add_wraps(name, lhs, rhs, expected):
    out = S.add(a(lhs, name), a(rhs, name))
    assert out.dtype == dt.dtype_of(name)
    assert out.astype(np.int64 if dt.is_signed_int(name) else np.uint64).tolist() == expected


def test_add_spec_example_and_booleans():
    assert S.add(a([[1, 2], [3, 4]], "i32"), a([[5, 6], [7, 8]], "i32")).tolist() == [
        [6, 8],
        [10, 12],
    ]
    lhs, rhs = np.array([False, False, True, True]), np.array([False, True, False, True])
    assert S.add(lhs, rhs).tolist() == [False, True, True, True]
    assert S.multiply(lhs, rhs).tolist() == [False, False, False, True]


def test_subtract_and_multiply_conformance_values():
    assert S.subtract(a([0, 1, 2, -3, 0], "i4"), a([-8, -1, 2, -3, 7], "i4")).astype(
        int
    ).tolist() == [-8, 2, 0, 0, -7]
    assert S.subtract(a([0, 2], "ui4"), a([15, 3], "ui4")).astype(int).tolist() == [1, 15]
    assert S.multiply(a([0, 1, 8, -9, 0], "i8"), a([-128, -1, 8, -9, 127], "i8")).tolist() == [
        0,
        -1,
        64,
        81,
        0,
    ]
    assert S.multiply(a([0, 16, 16], "ui8"), a([255, 16, 17], "ui8")).tolist() == [0, 0, 16]
    assert S.multiply(a([1, 2147483648], "i64"), a([-1, 2147483648], "i64")).tolist() == [
        -1,
        4611686018427387904,
    ]


def test_negate_wraps():
    assert S.negate(a([-8, -1, 0, 1, 7], "i4")).astype(int).tolist() == [-8, 1, 0, -1, -7]
    assert S.negate(a([0, 8, 15], "ui4")).astype(int).tolist() == [0, 8, 1]
    assert S.negate(a([-128], "i8")).tolist() == [-128]
    assert bits(S.negate(np.array([0.0, 2.5, np.nan], np.float32))) == [
        0x80000000,
        0xC0200000,
        0xFFC00000,
    ]


def test_negate_and_abs_on_types_without_negative_zero():
    fnuz = np.array([0x00, 0x80, 0x01, 0x81], np.uint8).view(
        ml_dtypes.float8_e4m3fnuz
    )  # 0, NaN, ±tiny
    assert bits(S.negate(fnuz)) == [0x00, 0x80, 0x81, 0x01]
    assert bits(S.abs(fnuz)) == [0x00, 0x80, 0x01, 0x01]
    e8m0 = np.array([1.0, 4.0], ml_dtypes.float8_e8m0fnu)
    assert S.abs(e8m0).astype(float).tolist() == [1.0, 4.0]


def test_abs():
    assert S.abs(a([-2, 0, 2], "i32")).tolist() == [2, 0, 2]
    assert S.abs(a([-8, -7], "i4")).astype(int).tolist() == [-8, 7]  # abs(INT_MIN) wraps
    assert same_floats(S.abs(np.array([23.1, -23.1, -0.0])), [23.1, 23.1, 0.0])
    out = S.abs(np.array(3 + 4j, np.complex128))
    assert out.dtype == np.float64 and out.shape == () and float(out) == 5.0
    assert S.abs(np.array([3 + 4j], np.complex64)).dtype == np.float32


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(INT_TYPES))
def test_integer_arithmetic_matches_python_modulo_2n(data, name):
    lo, hi = dt.min_value(name), dt.max_value(name)
    values = st.lists(st.integers(lo, hi), min_size=1, max_size=8)
    lhs = data.draw(values)
    rhs = data.draw(st.lists(st.integers(lo, hi), min_size=len(lhs), max_size=len(lhs)))
    x, y = a(lhs, name), a(rhs, name)
    as_int = lambda arr: [
        int(v) for v in arr.astype(np.int64 if dt.is_signed_int(name) else np.uint64)
    ]
    assert as_int(S.add(x, y)) == [wrap(p + q, name) for p, q in zip(lhs, rhs)]
    assert as_int(S.subtract(x, y)) == [wrap(p - q, name) for p, q in zip(lhs, rhs)]
    assert as_int(S.multiply(x, y)) == [wrap(p * q, name) for p, q in zip(lhs, rhs)]
    assert as_int(S.negate(x)) == [wrap(-p, name) for p in lhs]
    assert as_int(S.maximum(x, y)) == [max(p, q) for p, q in zip(lhs, rhs)]
    assert as_int(S.minimum(x, y)) == [min(p, q) for p, q in zip(lhs, rhs)]

    def tdiv(p, q):
        if q == 0:
            return -1
        quotient = abs(p) // abs(q)
        return quotient if (p < 0) == (q < 0) else -quotient

    def trem(p, q):
        return p if q == 0 else p - q * tdiv(p, q)

    assert as_int(S.divide(x, y)) == [wrap(tdiv(p, q), name) for p, q in zip(lhs, rhs)]
    assert as_int(S.remainder(x, y)) == [wrap(trem(p, q), name) for p, q in zip(lhs, rhs)]


@settings(max_examples=40, deadline=None)
@given(data=st.data(), name=st.sampled_from(INT_TYPES))
def test_integer_power_matches_python(data, name):
    lo, hi = dt.min_value(name), dt.max_value(name)
    base = data.draw(st.lists(st.integers(lo, hi), min_size=1, max_size=6))
    exponent = data.draw(
        st.lists(st.integers(max(lo, -5), min(hi, 70)), min_size=len(base), max_size=len(base))
    )

    def expected(b, e):
        if e < 0:
            return 1 if b == 1 else (-1) ** (-e) if b == -1 else 0
        return wrap(pow(b, e, 1 << 64), name)

    out = S.power(a(base, name), a(exponent, name))
    got = [int(v) for v in out.astype(np.int64 if dt.is_signed_int(name) else np.uint64)]
    assert got == [wrap(expected(b, e), name) for b, e in zip(base, exponent)]


# --- division, remainder, power: divide.mlir, remainder.mlir, power.mlir ----------------------------


def test_divide_and_remainder_conformance_values():
    lhs, rhs = a([17, -17, 17, -17], "i64"), a([3, 3, -3, -3], "i64")
    assert S.divide(lhs, rhs).tolist() == [5, -5, -5, 5]
    assert S.remainder(lhs, rhs).tolist() == [2, -2, 2, -2]
    assert S.divide(a([17, 18, 19, 20], "ui64"), a([3, 4, 5, 7], "ui64")).tolist() == [5, 4, 3, 2]
    assert S.remainder(a([17, 18, 19, 20], "ui64"), a([3, 4, 5, 7], "ui64")).tolist() == [
        2,
        2,
        4,
        6,
    ]
    f = S.remainder(np.array([17.1, -17.1, 17.1, -17.1]), np.array([3.0, 3.0, -3.0, -3.0]))
    assert f.tolist() == [
        2.1000000000000014,
        -2.1000000000000014,
        2.1000000000000014,
        -2.1000000000000014,
    ]
    q = S.divide(np.array([17.1, -17.1], np.float32), np.array([3.0, -3.0], np.float32))
    assert q.dtype == np.float32 and q.tolist() == [np.float32(17.1) / np.float32(3.0)] * 2


@pytest.mark.parametrize("name", INT_TYPES)
def test_integer_division_by_zero_and_overflow(name):
    lo = dt.min_value(name)
    x = a([5, lo, 0], name)
    zero = a([0, 0, 0], name)
    all_ones = -1 if dt.is_signed_int(name) else dt.max_value(name)
    as_int = lambda arr: [int(v) for v in arr.astype(object)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_int(S.divide(x, zero)) == [all_ones] * 3
        assert as_int(S.remainder(x, zero)) == as_int(x)
        if dt.is_signed_int(name):
            minus_one = a([-1], name)
            assert as_int(S.divide(a([lo], name), minus_one)) == [lo]
            assert as_int(S.remainder(a([lo], name), minus_one)) == [0]


def test_power_conformance_values():
    assert S.power(a([-1, -1, -3, 1, -3, 0], "i64"), a([1, 0, -3, -3, 3, 2], "i64")).tolist() == [
        -1,
        1,
        0,
        1,
        -27,
        0,
    ]
    assert S.power(a([0, 0, 1, 1, 5], "ui64"), a([0, 1, 0, 2, 5], "ui64")).tolist() == [
        1,
        0,
        1,
        1,
        3125,
    ]
    got = S.power(
        np.array([-2.0, -0.0, -36.0, 5.0, 3.0, 10000.0]), np.array([2.0, 2.0, 1.1, 2.0, -1.0, 10.0])
    )
    assert got[[0, 1, 3, 5]].tolist() == [4.0, 0.0, 25.0, 1e40] and math.isnan(got[2])
    assert got[4] == pytest.approx(1 / 3)
    c = S.power(np.array([1.5 + 2.5j, 7.5 + 5.5j]), np.array([2.5 + 1.5j, 5.5 + 7.5j]))
    np.testing.assert_allclose(
        c,
        [-1.5679313814305016 - 2.6674775446623613j, 392.89270835580857 + 1801.8249193362644j],
        rtol=1e-12,
    )


def test_complex_arithmetic_conformance_values():
    x = np.array([1.5 + 2.5j, 7.5 + 5.5j], np.complex64)
    assert S.multiply(x, x).tolist() == [-4 + 7.5j, 26 + 82.5j]
    q = S.divide(np.array([1.5 + 2.5j, 7.5 + 5.5j]), np.array([2.5 + 1.5j, 5.5 + 7.5j]))
    np.testing.assert_allclose(
        q,
        [0.88235294117647056 + 0.4705882352941177j, 0.95375722543352603 - 0.30057803468208094j],
        rtol=1e-15,
    )


# --- float arithmetic is correctly rounded in the element type --------------------------------------


def test_bf16_arithmetic_rounds_once():
    one = np.array([1.0], ml_dtypes.bfloat16)
    tiny = np.array([2.0**-8 + 2.0**-15], ml_dtypes.bfloat16)
    assert S.add(one, tiny).astype(np.float64).tolist() == [1 + 2**-7]
    third = S.divide(np.array([1.0], ml_dtypes.bfloat16), np.array([3.0], ml_dtypes.bfloat16))
    assert third.dtype == ml_dtypes.bfloat16 and float(third[0]) == float(ml_dtypes.bfloat16(1 / 3))


def test_multiply_conformance_bf16_f16():
    x = a([0.0, -0.0, 1.0, 0.125, 0.1, 3.141], "bf16")
    y = a([0.0, -0.0, 7.0, 0.75, 0.3, 3.141], "bf16")
    assert S.multiply(x, y).astype(np.float64).tolist() == pytest.approx(
        [0.0, 0.0, 7.0, 0.09375, 0.0301514, 9.875], rel=1e-4
    )
    x16 = a([0.1, 3.141], "f16")
    y16 = a([0.3, 3.141], "f16")
    assert S.multiply(x16, y16).astype(np.float64).tolist() == pytest.approx(
        [0.0299988, 9.86718], rel=1e-4
    )
    inf_times_zero = S.multiply(np.array([np.inf], np.float16), np.array([0.0], np.float16))
    assert bits(inf_times_zero) == [0x7E00]


# the unary ops that keep a float operand's element type, and the binary ones
FLOAT_UNARY = [
    S.abs,
    S.negate,
    S.sign,
    S.ceil,
    S.floor,
    S.round_nearest_afz,
    S.round_nearest_even,
    S.exponential,
    S.exponential_minus_one,
    S.log,
    S.log_plus_one,
    S.logistic,
    S.sqrt,
    S.rsqrt,
    S.cbrt,
    S.sine,
    S.cosine,
    S.tan,
    S.tanh,
]
BINARY = [
    S.add,
    S.subtract,
    S.multiply,
    S.divide,
    S.remainder,
    S.power,
    S.maximum,
    S.minimum,
    S.atan2,
]


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_float_ops_keep_the_element_type(name):
    x = a([1.0, 2.0, 4.0], name)
    y = a([0.5, 1.0, 2.0], name)
    for fn in BINARY:
        assert fn(x, y).dtype == x.dtype, fn.__name__
    for fn in FLOAT_UNARY:
        assert fn(x).dtype == x.dtype, fn.__name__
    assert S.add(x, y).astype(np.float64).tolist() == [1.5, 3.0, 6.0]
    assert S.divide(y, x).astype(np.float64).tolist() == [0.5, 0.5, 0.5]


def test_transcendentals_compute_in_double_then_round():
    x = np.array([1.0, 0.5, 3.0], np.float32)
    assert S.exponential(x).tolist() == np.exp(x.astype(np.float64)).astype(np.float32).tolist()
    assert S.tanh(x).tolist() == np.tanh(x.astype(np.float64)).astype(np.float32).tolist()
    assert S.rsqrt(np.array([[1.0, 4.0], [9.0, 25.0]], np.float32)).tolist() == [
        [1.0, 0.5],
        [np.float32(1 / 3), np.float32(0.2)],
    ]
    np.testing.assert_allclose(
        S.logistic(np.array([[0.0, 1.0], [2.0, 3.0]])),
        [[0.5, 0.73105858], [0.88079708, 0.95257413]],
        rtol=1e-7,
    )
    assert S.exponential_minus_one(np.array([0.0, 1.0])).tolist() == pytest.approx(
        [0.0, 1.7182818284590451], rel=1e-15
    )
    assert S.log_plus_one(np.array([0.0, -0.999, 7.0])).tolist() == pytest.approx(
        [0.0, -6.90776825, 2.07944155], abs=1e-4
    )
    # numpy's float64 cbrt differs in the last bit by SIMD level (cbrt(27) is 3.0000000000000004
    # without AVX-512): within an ulp, never exact
    assert S.cbrt(np.array([0.0, 1.0, 8.0, 27.0])).tolist() == pytest.approx(
        [0.0, 1.0, 2.0, 3.0], rel=4e-16, abs=0.0
    )
    np.testing.assert_allclose(S.cbrt(np.array(3 + 4j)), 1.6289371459221759 + 0.5201745023045458j)
    tan = S.tan(np.array([0.0, 1.57079632, 3.14159265, 4.71238898]))
    np.testing.assert_allclose(
        tan, [0.0, 147169271.76124874, -3.5897930298416118e-9, 2599497068.2695704], rtol=1e-6
    )


def test_sqrt_and_log_of_negatives_are_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = S.sqrt(np.array([-1.0, -0.0, 4.0], np.float32))
        assert math.isnan(out[0]) and bits(out[1:]) == [0x80000000, 0x40000000]
        logs = S.log(np.array([-1.0, 0.0, 1.0]))
        assert math.isnan(logs[0]) and logs[1] == -np.inf and logs[2] == 0.0
        assert math.isnan(S.rsqrt(np.array([-4.0]))[0])
        np.testing.assert_allclose(S.sqrt(np.array([-1 + 0j, 3 + 4j])), [1j, 2 + 1j])
        np.testing.assert_allclose(S.rsqrt(np.array([-1 + 0j, 3 + 4j])), [-1j, 0.4 - 0.2j])


def test_rounding_ops_conformance_values():
    v = np.array([-2.5, 0.4, 0.5, 0.6, 2.5])
    assert S.round_nearest_afz(v).tolist() == [-3.0, 0.0, 1.0, 1.0, 3.0]
    assert S.round_nearest_even(v).tolist() == [-2.0, 0.0, 0.0, 1.0, 2.0]
    assert bits(S.round_nearest_afz(np.array([-0.4, 2.0**52 + 1], np.float64))) == bits(
        np.array([-0.0, 2.0**52 + 1])
    )
    x = f64bits(
        0xFFF0000000000000,
        0xC004000000000000,
        0x8000000000000001,
        0x8000000000000000,
        0,
        1,
        0x4004000000000000,
        0x7FF0000000000000,
        0x7FF8000000000000,
    )
    assert bits(S.ceil(x)) == bits(
        np.array([-np.inf, -2.0, -0.0, -0.0, 0.0, 1.0, 3.0, np.inf, np.nan])
    )
    assert bits(S.floor(x)) == bits(
        np.array([-np.inf, -3.0, -1.0, -0.0, 0.0, 0.0, 2.0, np.inf, np.nan])
    )
    bf = np.array([0xFF80, 0xC020, 0x8001, 0x8000, 0, 1, 0x4020, 0x7F80, 0x7FC0], np.uint16).view(
        ml_dtypes.bfloat16
    )
    assert bits(S.ceil(bf)) == [0xFF80, 0xC000, 0x8000, 0x8000, 0, 0x3F80, 0x4040, 0x7F80, 0x7FC0]


def test_sign():
    assert S.sign(a([-1, 0, 1], "i64")).tolist() == [-1, 0, 1]
    assert S.sign(a([-8, 0, 7], "i4")).astype(int).tolist() == [-1, 0, 1]
    x = f64bits(0x7FFFFFFFFFFFFFFF, 0xBFF0000000000000, 0x8000000000000000, 0, 0x3FF0000000000000)
    assert bits(S.sign(x)) == bits(x)
    c = np.array([complex(np.nan, 0), complex(0, np.nan), 0j, 1j, 3 + 4j])
    out = S.sign(c)
    assert np.isnan(out[:2].real).all() and np.isnan(out[:2].imag).all()
    assert out[2:].tolist() == [0j, 1j, 0.6 + 0.8j]


# --- maximum / minimum / clamp: maximum.mlir, minimum.mlir, clamp.mlir ------------------------------

F32_SPECIALS_L = [
    0xFF800000,
    0xFF800000,
    0xBF800000,
    0x80000001,
    0,
    0,
    1,
    0x3F800000,
    0x7F800000,
    0x7F800000,
    0x7FC00000,
]
F32_SPECIALS_R = [
    0xFF800000,
    0xBF800000,
    0x80000001,
    0x80000000,
    0x80000000,
    1,
    0x3F800000,
    0x7F800000,
    0x7F800000,
    0xFF800000,
    0x7F800000,
]


def test_maximum_minimum_floats_nan_wins_and_signed_zeros():
    lhs = np.array(F32_SPECIALS_L, np.uint32).view(np.float32)
    rhs = np.array(F32_SPECIALS_R, np.uint32).view(np.float32)
    assert bits(S.maximum(lhs, rhs)) == [
        0xFF800000, 0xBF800000, 0x80000001, 0x80000000, 0, 1,
        0x3F800000, 0x7F800000, 0x7F800000, 0x7F800000, 0x7FC00000,
    ]
    assert bits(S.minimum(lhs, rhs)) == [
        0xFF800000, 0xFF800000, 0xBF800000, 0x80000001, 0x80000000, 0,
        1, 0x3F800000, 0x7F800000, 0xFF800000, 0x7FC00000,
    ]
    nan_rhs = S.maximum(np.array([1.0]), np.array([np.nan]))
    assert math.isnan(nan_rhs[0])
    assert bits(S.maximum(np.array([-0.0, 0.0]), np.array([0.0, -0.0]))) == [0, 0]
    assert bits(S.minimum(np.array([-0.0, 0.0]), np.array([0.0, -0.0]))) == [1 << 63, 1 << 63]


def test_maximum_minimum_ints_bools_complex():
    assert S.maximum(a([0, 1, 2, -3, 0], "i4"), a([-8, -1, 2, -3, 7], "i4")).astype(
        int
    ).tolist() == [0, 1, 2, -3, 7]
    assert S.minimum(a([0, 2], "ui4"), a([15, 3], "ui4")).astype(int).tolist() == [0, 2]
    t, f = np.array([False, False, True, True]), np.array([False, True, False, True])
    assert S.maximum(t, f).tolist() == [False, True, True, True]
    assert S.minimum(t, f).tolist() == [False, False, False, True]
    c1, c2 = np.array([1 + 2j, 1 + 5j, 3 + 0j]), np.array([1 + 3j, 1 + 4j, 2 + 9j])
    assert S.maximum(c1, c2).tolist() == [1 + 3j, 1 + 5j, 3 + 0j]
    assert S.minimum(c1, c2).tolist() == [1 + 2j, 1 + 4j, 2 + 9j]


def test_clamp_conformance_values():
    x = a([2, 3, -1], "i64")
    assert S.clamp(a([1, 5, -5], "i64"), x, a([3, 7, -3], "i64")).tolist() == [2, 5, -3]
    assert S.clamp(a([0, 0, -2], "i64"), x, np.array(1)).tolist() == [1, 1, -1]
    assert S.clamp(np.array(0), x, a([1, 1, 4], "i64")).tolist() == [1, 1, 0]
    assert S.clamp(np.array(0), x, np.array(1)).tolist() == [1, 1, 0]
    assert S.clamp(
        a([5, 10, 15], "i32"), a([3, 13, 23], "i32"), a([10, 15, 20], "i32")
    ).tolist() == [5, 13, 20]


# --- compare and select: compare.mlir, select.mlir ---------------------------------------------------

F64_L = [
    0xFFF0000000000001,
    0xFFF0000000000001,
    0xFFF0000000000000,
    0xFFF0000000000000,
    0xC000000000000000,
    0xC000000000000000,
    0x8000000000000000,
    0x8000000000000000,
    0,
    0x3FF0000000000000,
    0x4000000000000000,
    0x7FF0000000000000,
    0x7FF0000000000001,
    0x7FF0000000000001,
]
F64_R = [
    0xFFF0000000000001,
    0x7FF0000000000001,
    0xFFF0000000000000,
    0x7FF0000000000000,
    0xC000000000000000,
    0xBFF0000000000000,
    0x8000000000000000,
    0,
    0,
    0x4000000000000000,
    0x4000000000000000,
    0x7FF0000000000000,
    0x7FF0000000000001,
    0x7FFFFFFFFFFFFFFF,
]
T, F_ = True, False


@pytest.mark.parametrize(
    ("direction", "expected"),
    [
        ("EQ", [F_, F_, T, F_, T, F_, T, T, T, F_, T, T, F_, F_]),
        ("NE", [T, T, F_, T, F_, T, F_, F_, F_, T, F_, F_, T, T]),
        ("GE", [F_, F_, T, F_, T, F_, T, T, T, F_, T, T, F_, F_]),
        ("GT", [F_] * 14),
        ("LE", [F_, F_, T, T, T, T, T, T, T, T, T, T, F_, F_]),
        ("LT", [F_, F_, F_, T, F_, T, F_, F_, F_, T, F_, F_, F_, F_]),
    ],
)
def test_compare_float_conformance_values(direction, expected):
    out = S.compare(f64bits(*F64_L), f64bits(*F64_R), direction, "FLOAT")
    assert out.dtype == np.bool_ and out.tolist() == expected
    assert S.compare(f64bits(*F64_L), f64bits(*F64_R), direction).tolist() == expected


def test_compare_totalorder():
    # -NaN < -Inf < -1 < -0 < +0 < 1 < +Inf < +NaN
    order = [np.float32(v) for v in (-np.inf, -1.0, -0.0, 0.0, 1.0, np.inf)]
    values = np.array(
        [
            np.float32(-np.nan) if False else np.uint32(0xFFC00000).view(np.float32),
            *order,
            np.uint32(0x7FC00000).view(np.float32),
        ],
        dtype=np.float32,
    )
    lt = S.compare(values[:-1], values[1:], "LT", "TOTALORDER")
    assert lt.tolist() == [True] * 7
    eq = S.compare(values, values, "EQ", "TOTALORDER")
    assert eq.tolist() == [True] * 8  # NaN equals itself under totalOrder
    zeros = S.compare(np.array([-0.0]), np.array([0.0]), "EQ", "TOTALORDER")
    assert zeros.tolist() == [False]
    bf = np.array([-2.0, 1.0], ml_dtypes.bfloat16)
    assert S.compare(bf, bf[::-1].copy(), "GT", "TOTALORDER").tolist() == [False, True]


def test_compare_ints_bools_complex():
    lhs, rhs = a([-2, -1, 0, 2, 2], "i64"), a([-2, -2, 0, 1, 2], "i64")
    assert S.compare(lhs, rhs, "GE", "SIGNED").tolist() == [True] * 5
    assert S.compare(lhs, rhs, "LT", "SIGNED").tolist() == [False] * 5
    assert S.compare(a([0, 1], "ui64"), a([0, 0], "ui64"), "GT", "UNSIGNED").tolist() == [
        False,
        True,
    ]
    assert S.compare(a([15], "ui4"), a([1], "ui4"), "GT").tolist() == [True]
    b1, b2 = np.array([True, True, False, False]), np.array([True, False, True, False])
    assert S.compare(b1, b2, "GE", "UNSIGNED").tolist() == [True, True, False, True]
    assert S.compare(b1, b2, "LT", "UNSIGNED").tolist() == [False, False, True, False]
    nan = float("nan")
    c1 = np.array([complex(nan, 0.0), complex(0.0, nan), complex(-0.0, 0.0), 2 + 2j])
    c2 = np.array([complex(nan, -0.0), complex(-0.0, nan), 0j, 2 + 1j])
    assert S.compare(c1, c2, "EQ", "FLOAT").tolist() == [False, False, True, False]
    assert S.compare(c1, c2, "NE").tolist() == [True, True, False, True]
    assert S.compare(c1, c2, "GT").tolist() == [False, False, False, True]
    assert S.compare(np.array([1 + 1j]), np.array([1 + 1j]), "LE").tolist() == [True]


def test_select():
    pred = np.array([[False, True], [True, False]])
    out = S.select(pred, a([[1, 2], [3, 4]], "i32"), a([[5, 6], [7, 8]], "i32"))
    assert out.dtype == np.int32 and out.tolist() == [[5, 2], [3, 8]]
    assert S.select(np.array(False), a([2, 3, -1], "i64"), a([3, 7, -3], "i64")).tolist() == [
        3,
        7,
        -3,
    ]
    bf = S.select(np.array([True, False]), a([1, 2], "bf16"), a([3, 4], "bf16"))
    assert bf.dtype == ml_dtypes.bfloat16 and bf.astype(float).tolist() == [1.0, 4.0]


# --- complex parts, is_finite, atan2 -----------------------------------------------------------------


def test_complex_real_imag():
    c = S.complex(np.array([1.0, 3.0]), np.array([2.0, 4.0]))
    assert c.dtype == np.complex128 and c.tolist() == [1 + 2j, 3 + 4j]
    assert S.complex(np.array([1.0], np.float32), np.array([2.0], np.float32)).dtype == np.complex64
    assert S.real(c).tolist() == [1.0, 3.0] and S.imag(c).tolist() == [2.0, 4.0]
    assert S.real(np.array([1.0, 2.0])).tolist() == [1.0, 2.0]
    assert bits(S.imag(np.array([1.0, -2.0], np.float32))) == [0, 0]
    c32 = np.array([1 + 2j], np.complex64)
    assert S.real(c32).dtype == np.float32 and S.imag(c32).flags.c_contiguous


def test_is_finite():
    x = f64bits(
        0xFFF0000000000000,
        0x7FF0000000000000,
        0x7FF8000000000000,
        0xC024000000000000,
        0x8000000000000000,
        0,
        0x4024000000000000,
    )
    assert S.is_finite(x).tolist() == [False, False, False, True, True, True, True]
    assert S.is_finite(a([1.0, 448.0], "f8E4M3FN")).tolist() == [True, True]
    nan8 = np.array([0x7F], np.uint8).view(ml_dtypes.float8_e4m3fn)
    assert S.is_finite(nan8).tolist() == [False]


def test_atan2():
    out = S.atan2(np.array([0.0, 1.0, -1.0]), np.array([0.0, 0.0, 0.0]))
    assert out.tolist() == [0.0, 1.5707963267948966, -1.5707963267948966]
    c = S.atan2(np.array([1 + 0j, -1 + 0j]), np.array([0j, 0j]))
    np.testing.assert_allclose(c, [1.5707963267948966, -1.5707963267948966], atol=1e-15)


# --- shapes, dtypes, errors, warnings ----------------------------------------------------------------


UNARY = [*FLOAT_UNARY, S.is_finite, S.real, S.imag]


@pytest.mark.parametrize("fn", UNARY + BINARY, ids=lambda f: f.__name__)
def test_scalars_come_back_as_0d_arrays(fn):
    x = np.array(0.75, np.float32)
    out = fn(x) if fn in UNARY else fn(x, x)
    assert isinstance(out, np.ndarray) and out.shape == ()


def test_integer_scalars_come_back_as_0d_arrays():
    for fn in (S.add, S.divide, S.power, S.maximum):
        out = fn(np.array(7, ml_dtypes.int4), np.array(2, ml_dtypes.int4))
        assert isinstance(out, np.ndarray) and out.shape == () and out.dtype == ml_dtypes.int4


def test_no_numpy_floating_point_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S.divide(np.array([1.0, 0.0, -1.0]), np.array([0.0, 0.0, 0.0]))
        S.multiply(np.array([1e300]), np.array([1e300]))
        S.exponential(np.array([1000.0], np.float32))
        S.power(np.array([0.0, -8.0]), np.array([-1.0, 1 / 3]))
        S.log(np.array([0.0, -1.0], ml_dtypes.bfloat16))
        S.add(np.array([127], np.int8), np.array([1], np.int8))


def test_unsupported_element_types_raise_interpreter_errors():
    with pytest.raises(InterpreterError, match="subtract"):
        S.subtract(np.array([True]), np.array([False]))
    with pytest.raises(InterpreterError, match="sqrt"):
        S.sqrt(np.array([4], np.int32))
    with pytest.raises(InterpreterError, match="remainder"):
        S.remainder(np.array([1j]), np.array([1j]))
