"""interpreter/semantics/elementwise.py: what the mutation run of the `semantics-elementwise` group
found unchecked.

Expected values come from outside the module: the refusal message of ``_common.unsupported`` word
for word; C11 Annex G's sample complex division (``_Cdivd``, G.5.1), written out below in numpy
scalars, for the infinities, zeros and NaNs of complex ``divide``; 60-digit ``decimal`` arithmetic
for complex ``expm1`` and ``log1p`` (ULP bounds: they are transcendental); XLA's values for the
signed zeros of complex ``rsqrt`` and ``divide`` (checked against jaxlib by
``tests/oracle/test_fuzzer_found_bugs_2_vs_xla.py``); upstream's reference interpreter
(``stablehlo/reference/Element.cpp``) for integer ``abs`` (``APInt::abs``) and the NaN of complex
``sign`` (``APFloat::getNaN``); exact integer arithmetic for the integer ops.
"""

from __future__ import annotations

import enum
import math
import warnings
from decimal import Decimal, getcontext
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter import dtypes as dt
from stablehlo_py.interpreter.semantics import elementwise as E

NOTE = "the spec's constraints for this op list the element types it accepts"

BOOLS = np.array([True, False])
I32 = np.array([1, -2], np.int32)
UI4 = np.array([1, 2], ml_dtypes.uint4)
C64 = np.array([1 + 2j], np.complex64)

# op, operands, the element type named in the refusal
REFUSALS = [
    ("abs", (BOOLS,), "i1"),
    ("subtract", (BOOLS, BOOLS), "i1"),
    ("divide", (BOOLS, BOOLS), "i1"),
    ("remainder", (BOOLS, BOOLS), "i1"),
    ("remainder", (C64, C64), "complex<f32>"),
    ("power", (BOOLS, BOOLS), "i1"),
    ("negate", (BOOLS,), "i1"),
    ("sign", (BOOLS,), "i1"),
    ("cbrt", (I32,), "i32"),
    ("cosine", (I32,), "i32"),
    ("sine", (UI4,), "ui4"),
    ("tan", (I32,), "i32"),
    ("tanh", (BOOLS,), "i1"),
    ("exponential", (I32,), "i32"),
    ("exponential_minus_one", (I32,), "i32"),
    ("log", (UI4,), "ui4"),
    ("log_plus_one", (I32,), "i32"),
    ("sqrt", (I32,), "i32"),
    ("rsqrt", (I32,), "i32"),
    ("logistic", (I32,), "i32"),
    ("atan2", (I32, I32), "i32"),
    ("ceil", (C64,), "complex<f32>"),
    ("floor", (I32,), "i32"),
    ("round_nearest_afz", (C64,), "complex<f32>"),
    ("round_nearest_even", (I32,), "i32"),
    ("is_finite", (C64,), "complex<f32>"),
    ("is_finite", (I32,), "i32"),
    ("real", (I32,), "i32"),
    ("imag", (BOOLS,), "i1"),
]


@pytest.mark.parametrize(("op", "operands", "type_name"), REFUSALS)
def test_refused_element_types_are_named_word_for_word(op, operands, type_name) -> None:
    with pytest.raises(InterpreterError) as info:
        getattr(E, op)(*operands)
    assert info.value.message == f"'{op}' does not support element type '{type_name}'"
    assert info.value.note == NOTE


def test_compare_refuses_an_unknown_direction_word_for_word() -> None:
    with pytest.raises(InterpreterError) as info:
        E.compare(np.array([1.0], np.float32), np.array([2.0], np.float32), "XX")
    assert info.value.message == "'compare XX' does not support element type 'f32'"
    assert info.value.note == NOTE


class _Direction(enum.Enum):
    """An enum whose members' names are the directions and whose values are not strings."""

    EQ = 1
    NE = 2
    GE = 3
    GT = 4
    LE = 5
    LT = 6


class _CompareType(enum.Enum):
    FLOAT = 1
    TOTALORDER = 2


def test_compare_reads_the_name_of_an_enum_member() -> None:
    lhs = np.array([1.0, 2.0, -0.0], np.float32)
    rhs = np.array([2.0, 2.0, 0.0], np.float32)
    assert E.compare(lhs, rhs, _Direction.LT).tolist() == [True, False, False]
    assert E.compare(lhs, rhs, _Direction.GE).tolist() == [False, True, True]
    # TOTALORDER given as an enum member: -0 < +0 in IEEE totalOrder
    assert E.compare(lhs, rhs, _Direction.LT, _CompareType.TOTALORDER).tolist() == [True, False, True]
    assert E.compare(lhs, rhs, _Direction.LT, _CompareType.FLOAT).tolist() == [True, False, False]
    # lower-case strings name the same directions
    assert E.compare(lhs, rhs, "lt", "totalorder").tolist() == [True, False, True]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_compare_orders_real_then_imaginary(dtype) -> None:
    pairs = [(1 + 2j, 1 + 2j), (1 + 2j, 1 + 3j), (1 + 3j, 1 + 2j), (0 + 5j, 1 - 5j), (2 - 5j, 1 + 5j)]
    lhs = np.array([p for p, _ in pairs], dtype)
    rhs = np.array([q for _, q in pairs], dtype)

    def key(z: complex) -> tuple[float, float]:
        return (z.real, z.imag)

    expected = {
        "EQ": [key(p) == key(q) for p, q in pairs],
        "NE": [key(p) != key(q) for p, q in pairs],
        "GE": [key(p) >= key(q) for p, q in pairs],
        "GT": [key(p) > key(q) for p, q in pairs],
        "LE": [key(p) <= key(q) for p, q in pairs],
        "LT": [key(p) < key(q) for p, q in pairs],
    }
    for direction, want in expected.items():
        assert E.compare(lhs, rhs, direction).tolist() == want, direction


# ---- integer divide / remainder: truncation, x/0, INT_MIN/-1 ------------------------------------

INT_NAMES = ["i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"]


def _ints(values, name):
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    return np.array(values, dtype=wide).astype(dt.dtype_of(name))


def _wrap(value: int, name: str) -> int:
    n = dt.bitwidth(name)
    value %= 1 << n
    if dt.is_signed_int(name) and value >= 1 << (n - 1):
        value -= 1 << n
    return value


def _within(values: set[int], lo: int, hi: int) -> list[int]:
    return sorted(v for v in values if lo <= v <= hi)


def _extremes(name: str) -> tuple[int, int]:
    n = dt.bitwidth(name)
    if dt.is_signed_int(name):
        return -(1 << (n - 1)), (1 << (n - 1)) - 1
    return 0, (1 << n) - 1


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_divide_and_remainder_every_pair_of_edge_values(name: str) -> None:
    lo, hi = _extremes(name)
    edge = _within({lo, lo + 1, lo // 2, -1, 0, 1, 2, 3, hi // 2, hi - 1, hi}, lo, hi)
    lhs = [a for a in edge for _ in edge]
    rhs = [b for _ in edge for b in edge]
    quot = E.divide(_ints(lhs, name), _ints(rhs, name))
    rem = E.remainder(_ints(lhs, name), _ints(rhs, name))
    want_q, want_r = [], []
    for a, b in zip(lhs, rhs, strict=True):
        if b == 0:  # all bits set, and the dividend
            want_q.append(_wrap(-1, name))
            want_r.append(a)
            continue
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncated toward zero
        want_q.append(_wrap(q, name))  # INT_MIN / -1 wraps to INT_MIN
        want_r.append(_wrap(a - q * b, name))
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    assert quot.dtype == dt.dtype_of(name) and rem.dtype == dt.dtype_of(name)
    assert quot.astype(wide).tolist() == want_q
    assert rem.astype(wide).tolist() == want_r


# ---- integer power ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", INT_NAMES)
def test_integer_power_against_modular_exponentiation(name: str) -> None:
    lo, hi = _extremes(name)
    bases = _within({lo, -1, 0, 1, 2, 3, hi}, lo, hi)
    exps = _within({lo, -2, -1, 0, 1, 2, 3, hi - 1, hi}, lo, hi)
    lhs = [b for b in bases for _ in exps]
    rhs = [e for _ in bases for e in exps]
    got = E.power(_ints(lhs, name), _ints(rhs, name))
    n = dt.bitwidth(name)
    want = []
    for b, e in zip(lhs, rhs, strict=True):
        if e < 0:  # 1/b^|e| truncated: 0 unless |b| = 1
            want.append(_wrap(b ** (-e % 2) if b in (1, -1) else 0, name))
        else:
            want.append(_wrap(pow(b, e, 1 << n), name))
    wide = np.int64 if dt.is_signed_int(name) else np.uint64
    assert got.astype(wide).tolist() == want
