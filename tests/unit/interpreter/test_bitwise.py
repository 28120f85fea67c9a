"""Bitwise semantics: and/or/xor/not, shifts, popcnt, count_leading_zeros at every integer width."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stablehlo_py.semantics import dtypes as dt
from stablehlo_py import semantics as S

from stablehlo_py.errors import InterpreterError
from tests.unit.interpreter.helpers import INT_TYPES, wrap


def a(values, name):
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    return np.array(values, dtype=wide).astype(dt.dtype_of(name))


def ints(x):
    return [int(v) for v in np.asarray(x).astype(object).ravel()]


# --- and.mlir, or.mlir, xor.mlir, not.mlir -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lhs", "rhs", "and_", "or_", "xor"),
    [
        ("i4", [7, -8, -8], [0, 7, -8], [0, 0, -8], [7, -1, -8], [7, -1, 0]),
        ("ui4", [0, 7, 15], [15, 15, 15], [0, 7, 15], [15, 15, 15], [15, 8, 0]),
        ("i8", [127, -128, -128], [0, 127, -128], [0, 0, -128], [127, -1, -128], [127, -1, 0]),
        ("ui8", [0, 127, 255], [255, 255, 255], [0, 127, 255], [255, 255, 255], [255, 128, 0]),
        (
            "i64",
            [2**63 - 1, -(2**63), -(2**63)],
            [0, 2**63 - 1, -(2**63)],
            [0, 0, -(2**63)],
            [2**63 - 1, -1, -(2**63)],
            [2**63 - 1, -1, 0],
        ),
        (
            "ui64",
            [0, 2**63 - 1, 2**64 - 1],
            [2**64 - 1] * 3,
            [0, 2**63 - 1, 2**64 - 1],
            [2**64 - 1] * 3,
            [2**64 - 1, 2**63, 0],
        ),
    ],
)
def test_and_or_xor_conformance_values(name, lhs, rhs, and_, or_, xor):
    x, y = a(lhs, name), a(rhs, name)
    assert S.and_(x, y).dtype == x.dtype
    assert ints(S.and_(x, y)) == and_
    assert ints(S.or_(x, y)) == or_
    assert ints(S.xor(x, y)) == xor


def test_booleans_are_logical():
    p, q = np.array([False, False, True, True]), np.array([False, True, False, True])
    assert S.and_(p, q).tolist() == [False, False, False, True]
    assert S.or_(p, q).tolist() == [False, True, True, True]
    assert S.xor(p, q).tolist() == [False, True, True, False]
    assert S.not_(np.array([True, False])).tolist() == [False, True]
    assert S.and_(np.array(True), np.array([False, True])).tolist() == [False, True]


@pytest.mark.parametrize(
    ("name", "operand", "expected"),
    [
        ("i4", [7, -8, 0], [-8, 7, -1]),
        ("ui4", [0, 7, 15], [15, 8, 0]),
        ("i8", [127, -128, 0], [-128, 127, -1]),
        ("ui16", [0, 32767, 65535], [65535, 32768, 0]),
        ("i32", [1, 2, 3, 4], [-2, -3, -4, -5]),
        ("ui64", [0], [2**64 - 1]),
    ],
)
def test_not(name, operand, expected):
    assert ints(S.not_(a(operand, name))) == expected


def test_bitwise_rejects_floats():
    with pytest.raises(InterpreterError, match="and"):
        S.and_(np.array([1.0]), np.array([2.0]))


# --- shifts: shift_*.mlir and the >= bitwidth rule ---------------------------------------------------


def test_shift_conformance_values():
    assert ints(S.shift_left(a([-1, 0, 1], "i64"), a([1, 2, 3], "i64"))) == [-2, 0, 8]
    assert ints(S.shift_right_arithmetic(a([-1, 0, 8], "i64"), a([1, 2, 3], "i64"))) == [-1, 0, 1]
    assert ints(S.shift_right_logical(a([-1, 0, 8], "i64"), a([1, 2, 3], "i64"))) == [
        9223372036854775807,
        0,
        1,
    ]


@pytest.mark.parametrize("name", INT_TYPES)
def test_shifts_by_bitwidth_or_more(name):
    n = dt.bitwidth(name)
    signed = dt.is_signed_int(name)
    values = (
        [dt.max_value(name), dt.min_value(name), 1]
        if signed
        else [dt.max_value(name), 1 << (n - 1), 1]
    )
    x = a(values, name)
    top_bit_fill = [
        (-1 if v < 0 else 0) if signed else ((1 << n) - 1 if v >> (n - 1) else 0) for v in values
    ]
    amounts = ([n] if dt.max_value(name) >= n else []) + ([-1] if signed else [])
    for amount in amounts:  # -1 reads as the unsigned 2**n - 1
        k = a([amount] * 3, name)
        assert ints(S.shift_left(x, k)) == [0, 0, 0]
        assert ints(S.shift_right_logical(x, k)) == [0, 0, 0]
        assert ints(S.shift_right_arithmetic(x, k)) == top_bit_fill


def test_shift_right_arithmetic_on_unsigned_fills_with_the_top_bit():
    assert ints(S.shift_right_arithmetic(a([0x80, 0x40], "ui8"), a([1, 1], "ui8"))) == [0xC0, 0x20]
    assert ints(S.shift_right_arithmetic(a([8], "ui4"), a([2], "ui4"))) == [14]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(INT_TYPES))
def test_shifts_match_python_on_the_bit_pattern(data, name):
    n = dt.bitwidth(name)
    lo, hi = dt.min_value(name), dt.max_value(name)
    values = data.draw(st.lists(st.integers(lo, hi), min_size=1, max_size=8))
    amounts = data.draw(
        st.lists(
            st.integers(max(lo, -2), min(hi, n + 2)), min_size=len(values), max_size=len(values)
        )
    )
    x, k = a(values, name), a(amounts, name)
    mask = (1 << n) - 1

    def unsigned_amount(s):
        return s & mask

    left = [
        wrap((v & mask) << unsigned_amount(s), name) if unsigned_amount(s) < n else 0
        for v, s in zip(values, amounts)
    ]
    logical = [
        wrap((v & mask) >> unsigned_amount(s), name) if unsigned_amount(s) < n else 0
        for v, s in zip(values, amounts)
    ]
    signed = [wrap(v, f"i{n}") for v in values]
    arithmetic = [wrap(sv >> min(unsigned_amount(s), n), name) for sv, s in zip(signed, amounts)]
    assert ints(S.shift_left(x, k)) == left
    assert ints(S.shift_right_logical(x, k)) == logical
    assert ints(S.shift_right_arithmetic(x, k)) == arithmetic


# --- popcnt, count_leading_zeros ---------------------------------------------------------------------


def test_popcnt_and_clz_conformance_values():
    assert ints(S.popcnt(a([0, 1, 2, 127], "i64"))) == [0, 1, 1, 7]
    assert ints(S.count_leading_zeros(a([[0, 1], [128, -1]], "i64"))) == [64, 63, 56, 0]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), name=st.sampled_from(INT_TYPES))
def test_popcnt_and_clz_match_python(data, name):
    n = dt.bitwidth(name)
    values = data.draw(
        st.lists(st.integers(dt.min_value(name), dt.max_value(name)), min_size=1, max_size=8)
    )
    pattern = [v & ((1 << n) - 1) for v in values]
    assert ints(S.popcnt(a(values, name))) == [wrap(p.bit_count(), name) for p in pattern]
    assert ints(S.count_leading_zeros(a(values, name))) == [
        wrap(n - p.bit_length(), name) for p in pattern
    ]
