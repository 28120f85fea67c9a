"""stablehlo_py/semantics/prepared.py: every prepared function equals the general semantics function
bit for bit -- for every op name it knows, on every element type (not only the ones it speeds up),
on the types it was prepared for and on any other operands (other dtypes, numpy scalars, Python
numbers), errors included.  The general functions (elementwise.py, bitwise.py, conversion.py) are
the reference: prepared.py promises their bits (its docstring), nothing else.
"""

from __future__ import annotations

import itertools
import zlib

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py import semantics as sem
from stablehlo_py.semantics import conversion, prepared

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
BOOL = np.dtype(np.bool_)
TYPES = [
    BOOL,
    *map(np.dtype, (ml_dtypes.int4, ml_dtypes.uint4, np.int8, np.uint8, np.int16, np.uint16)),
    *map(np.dtype, (np.int32, np.uint32, np.int64, np.uint64)),
    *map(np.dtype, (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2)),
    BF16,
    F16,
    F32,
    F64,
    *map(np.dtype, (np.complex64, np.complex128)),
]
BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power", "atan2",
          "and", "or", "xor"]
UNARY = ["not", "negate", "abs", "cbrt", "cosine", "sine", "tan", "tanh", "exponential",
         "exponential_minus_one", "log", "log_plus_one", "sqrt", "rsqrt", "logistic", "floor", "sign"]
GENERAL = {"and": sem.and_, "or": sem.or_, "not": sem.not_, "xor": sem.xor}


@pytest.fixture(autouse=True)
def _no_fp_warnings():  # the evaluator runs programs with these off
    with np.errstate(all="ignore"):
        yield


def _general(name):
    return GENERAL.get(name) or getattr(sem, name)


def _values(d: np.dtype) -> np.ndarray:
    """Every special value of the type, a few ordinary ones and random bit patterns."""
    rng = np.random.default_rng(zlib.crc32(d.name.encode()))  # the same values every run
    if d == BOOL:
        return np.array([False, True])
    if d.kind == "c":
        part = _values(np.dtype(np.float32 if d == np.complex64 else np.float64))
        re = part[rng.integers(0, len(part), 40)]
        im = part[rng.integers(0, len(part), 40)]
        return (re + 1j * im).astype(d)
    if d.kind in "iu" or d in (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)):
        info = ml_dtypes.iinfo(d)
        vals = {0, 1, 2, 3, 7, int(info.max), int(info.min), int(info.max) - 1, int(info.min) + 1}
        if info.min < 0:
            vals |= {-1, -2, -3}
        vals |= {int(v) for v in rng.integers(int(info.min), int(info.max), 8, dtype=np.int64, endpoint=True)} \
            if info.bits < 64 else set()
        return np.array(sorted(v for v in vals if info.min <= v <= info.max), dtype=object).astype(d)
    bits = 8 * d.itemsize
    u = np.dtype(f"u{d.itemsize}")
    if bits == 8:
        patterns = np.arange(256, dtype=np.uint64)[::3]
    else:
        top = (1 << bits) - 1
        sign = 1 << (bits - 1)
        info = ml_dtypes.finfo(d)
        exp_all = ((1 << (bits - 1 - info.nmant)) - 1) << info.nmant
        special = [0, sign, 1, sign | 1, exp_all, exp_all | sign, exp_all | 1, exp_all | (1 << (info.nmant - 1)),
                   top, top - 1, exp_all - 1, sign | (exp_all - 1), 1 << info.nmant]
        rand = rng.integers(0, top, 24, dtype=np.uint64, endpoint=True)
        patterns = np.concatenate([np.array(special, np.uint64), rand])
    vals = patterns.astype(u).view(d)
    ordinary = np.array([0.5, -2.5, 3.0, 1e-3, 7.25, -1.0, 100.0], np.float64).astype(d)
    return np.concatenate([vals, ordinary])


def _pairs(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = len(v)
    return np.repeat(v, n).reshape(n, n), np.tile(v, n).reshape(n, n)


def _outcome(fn, *args):
    try:
        with np.errstate(all="ignore"):
            out = fn(*args)
    except Exception as e:  # noqa: BLE001 - the refusal is part of the behaviour compared
        return ("raises", type(e), str(e))
    out = np.asarray(out)
    return ("value", out.dtype, out.shape, out.tobytes())


def _same(fast, general, *args) -> None:
    got, want = _outcome(fast, *args), _outcome(general, *args)
    assert got == want


def _other(d: np.dtype) -> np.dtype:
    if d.kind == "c":
        return np.dtype(np.complex128) if d == np.complex64 else np.dtype(np.complex64)
    return F64 if d != F64 else F32


@pytest.mark.parametrize("d", TYPES, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_prepared_equals_general(name, d) -> None:
    fast = prepared.prepare(name, [d, d])
    if fast is None:
        return
    general = _general(name)
    a, b = _pairs(_values(d))
    _same(fast, general, a, b)
    _same(fast, general, a[1, 1, ...], b[0, 1, ...])  # 0-d arrays
    _same(fast, general, a.T, b.T)  # strided
    o = _other(d)
    _same(fast, general, a.astype(o), b.astype(o))  # other dtypes: the general function
    _same(fast, general, a, b.astype(o))
    _same(fast, general, a.astype(o), b)
    _same(fast, general, a[0, 0][()], b[0, 0])  # a numpy scalar is not an ndarray
    _same(fast, general, a[0, 0], b[0, 0][()])


@pytest.mark.parametrize("d", TYPES, ids=str)
@pytest.mark.parametrize("name", UNARY)
def test_unary_prepared_equals_general(name, d) -> None:
    fast = prepared.prepare(name, [d])
    if fast is None:
        return
    general = _general(name)
    x = _values(d)
    _same(fast, general, x)
    _same(fast, general, x[1, ...])
    _same(fast, general, x[::-2])
    _same(fast, general, x.astype(_other(d)))
    _same(fast, general, x[-1][()])


def test_prepared_functions_exist_for_the_documented_fast_paths() -> None:
    # the module's tables: IEEE arithmetic on f32/f64, functions via double on f16/f32/f64,
    # extrema and sign-bit ops on f16/f32/f64, integer and boolean ufuncs, logistic on f32/f64
    for d, name in itertools.product([F32, F64], ["add", "subtract", "multiply", "divide", "remainder"]):
        assert prepared.prepare(name, [d, d]) is not None
    for d, name in itertools.product([F16, F32, F64], ["tanh", "rsqrt", "maximum", "minimum", "negate", "abs"]):
        assert prepared.prepare(name, [d] * (2 if name in ("maximum", "minimum") else 1)) is not None
    for d in TYPES[3:11]:
        for name in ("add", "multiply", "and", "xor", "maximum"):
            assert prepared.prepare(name, [d, d]) is not None
        assert prepared.prepare("not", [d]) is not None
    for name in ("add", "multiply", "maximum", "minimum", "and", "or", "xor"):
        assert prepared.prepare(name, [BOOL, BOOL]) is not None
    assert prepared.prepare("not", [BOOL]) is not None
    assert prepared.prepare("logistic", [F32]) is not None and prepared.prepare("logistic", [F64]) is not None
    # nothing better than the general function
    assert prepared.prepare("add", []) is None
    assert prepared.prepare("add", [F16, F16]) is None
    assert prepared.prepare("add", [BF16, BF16]) is None
    assert prepared.prepare("logistic", [F16]) is None
    assert prepared.prepare("negate", [BF16]) is None
    assert prepared.prepare("not", [np.dtype(ml_dtypes.int4)]) is None
    assert prepared.prepare("tanh", [np.dtype(np.complex64)]) is None


DIRECTIONS = ["EQ", "NE", "GE", "GT", "LE", "LT"]


@pytest.mark.parametrize("d", TYPES, ids=str)
@pytest.mark.parametrize("compare_type", [None, "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"])
def test_compare_prepared_equals_general(d, compare_type) -> None:
    a, b = _pairs(_values(d))
    for direction in DIRECTIONS:
        fast = prepared.prepare("compare", [d, d], comparison_direction=direction, compare_type=compare_type)
        if fast is None:
            continue

        def general(x, y, direction=direction):
            return sem.compare(x, y, direction, compare_type)

        _same(fast, general, a, b)
        _same(fast, general, a[0, 1, ...], b[0, 1, ...])
        _same(fast, general, a.astype(_other(d)), b.astype(_other(d)))
        _same(fast, general, a, b.astype(_other(d)))


def test_compare_is_prepared_where_documented() -> None:
    for d in [F16, F32, F64, np.dtype(np.int8), np.dtype(np.uint64), BOOL]:
        for direction in DIRECTIONS:
            assert prepared.prepare("compare", [d, d], comparison_direction=direction) is not None
    assert prepared.prepare("compare", [F32, F32], comparison_direction="LT", compare_type="TOTALORDER") is None
    assert prepared.prepare("compare", [BF16, BF16], comparison_direction="LT") is None
    assert prepared.prepare("compare", [F32, F32], comparison_direction="XX") is None

    class Direction:  # an enum-like attribute: its name is read
        name = "lt"

    fast = prepared.prepare("compare", [F32, F32], comparison_direction=Direction(), compare_type="FLOAT")
    assert fast is not None
    x = np.array([1.0, 2.0, np.nan], np.float32)
    assert fast(x, np.array([2.0, 2.0, 1.0], np.float32)).tolist() == [True, False, False]


@pytest.mark.parametrize("d", TYPES, ids=str)
def test_select_prepared_equals_general(d) -> None:
    fast = prepared.prepare("select", [BOOL, d, d])
    assert fast is not None
    general = sem.select
    a, b = _pairs(_values(d))
    p = (np.arange(a.size).reshape(a.shape) % 3) == 0
    _same(fast, general, p, a, b)
    _same(fast, general, p[0, 0, ...], a, b)
    _same(fast, general, p[0, 1, ...], a[0, 0, ...], b[0, 0, ...])
    o = _other(d)
    _same(fast, general, p, a.astype(o), b.astype(o))
    _same(fast, general, p, a, b.astype(o))
    _same(fast, general, p.astype(np.int8), a, b)
    _same(fast, general, p[0, 0][()], a, b)


def test_select_is_prepared_only_for_a_boolean_predicate_and_equal_branches() -> None:
    assert prepared.prepare("select", [BOOL, F32, F64]) is None
    assert prepared.prepare("select", [np.dtype(np.int8), F32, F32]) is None
    assert prepared.prepare("select", [BOOL, F32]) is None


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(TYPES, [F16, F32, F64, BF16, np.dtype(np.int32)])),
                         ids=str)
def test_convert_prepared_equals_general(src, dst) -> None:
    fast = prepared.prepare("convert", [src], result_dtype=dst)
    assert (fast is not None) == (src in (F16, F32, F64) and dst in (F16, F32, F64))
    if fast is None:
        return

    def general(x):
        return conversion.convert(x, dst)

    x = _values(src)
    _same(fast, general, x)
    _same(fast, general, x[1, ...])
    _same(fast, general, x.astype(BF16))
    _same(fast, general, x.astype(np.complex64))
    # an integer operand: convert rounds once (2**60 + 2**36 + 1 lies above an f32 midpoint), a
    # cast through float64 would round twice
    _same(fast, general, np.array([2**60 + 2**36 + 1, -(2**60) - 2**36 - 1, 7], np.int64))
    _same(fast, general, x[4][()])
    assert prepared.prepare("convert", [src]) is None


def test_logistic_prepared_is_the_composition_of_the_prepared_steps() -> None:
    # elementwise.logistic composes negate, exp, add, divide: 1 / (1 + exp(-x))
    for d in (F32, F64):
        fast = prepared.prepare("logistic", [d])
        x = _values(d)
        want = sem.divide(np.ones_like(x), sem.add(np.ones_like(x), sem.exponential(sem.negate(x))))
        with np.errstate(all="ignore"):
            got = fast(x)
        assert got.dtype == d and got.tobytes() == want.tobytes()


def test_prepared_functions_pass_python_numbers_to_the_general_function() -> None:
    # a Python number has no dtype: the prepared function must not read one, and gives what the
    # general function gives (a 0-d array, or its refusal)
    x = np.array([1.5, -0.0, np.inf], F32)
    for name in ("negate", "tanh"):
        _same(prepared.prepare(name, [F32]), _general(name), 1.5)
    _same(prepared.prepare("not", [np.dtype(np.int8)]), sem.not_, 3)
    for name in ("add", "maximum"):
        fast, general = prepared.prepare(name, [F32, F32]), _general(name)
        _same(fast, general, 1.5, x)
        _same(fast, general, x, 1.5)
    lt = prepared.prepare("compare", [F32, F32], comparison_direction="LT")
    _same(lt, lambda a, b: sem.compare(a, b, "LT"), 1.5, x)
    _same(lt, lambda a, b: sem.compare(a, b, "LT"), x, 1.5)
    sel = prepared.prepare("select", [BOOL, F32, F32])
    p = np.array([True, False, True])
    _same(sel, sem.select, True, x, x[::-1])
    _same(sel, sem.select, p, 1.5, x)
    _same(sel, sem.select, p, x, 1.5)


def test_prepared_select_with_branches_of_another_type_is_the_general_select() -> None:
    # select's result has on_true's type: an f16 on_true with the f32 on_false it was prepared for
    # gives f16, not numpy's promoted f32
    sel = prepared.prepare("select", [BOOL, F32, F32])
    p = np.array([True, False])
    on_true, on_false = np.array([0.1, 0.2], F16), np.array([0.3, 0.4], F32)
    got = sel(p, on_true, on_false)
    assert got.dtype == F16 and got.tolist() == [np.float16(0.1), np.float16(0.4)]
    _same(sel, sem.select, p, on_true, on_false)


def test_prepared_compare_refuses_object_operands_as_the_general_compare() -> None:
    # an operand numpy can compare but the interpreter has no element type for: the general
    # function's refusal, whichever side it is on and whatever the other side's type
    lt = prepared.prepare("compare", [np.dtype(np.int8), np.dtype(np.int8)], comparison_direction="LT")
    i8 = np.array([1, 2], np.int8)
    obj = np.array([2, 1], dtype=object)
    for lhs, rhs in [(obj, i8), (i8, obj), (obj, obj), (obj, i8.astype(np.int16))]:
        got = _outcome(lt, lhs, rhs)
        assert got[0] == "raises" and got == _outcome(lambda a, b: sem.compare(a, b, "LT"), lhs, rhs)
        assert "is not a StableHLO element type the interpreter supports" in got[2]


def test_compare_of_two_other_types_or_one_operand_is_not_prepared() -> None:
    assert prepared.prepare("compare", [F32, F64], comparison_direction="LT") is None
    assert prepared.prepare("compare", [np.dtype(np.int8), np.dtype(np.uint8)], comparison_direction="EQ") is None
    assert prepared.prepare("compare", [F32], comparison_direction="LT") is None
    assert prepared.prepare("compare", [F32, F32, F32], comparison_direction="LT") is None


def test_prepared_compare_passes_its_compare_type_to_the_general_compare() -> None:
    # prepared for integers with compare_type TOTALORDER, then given floats: the general compare
    # with TOTALORDER (-0 < +0, a NaN ordered), not the IEEE comparison
    lt = prepared.prepare("compare", [np.dtype(np.int8)] * 2, comparison_direction="LT", compare_type="TOTALORDER")
    lhs = np.array([-0.0, 1.0, -np.nan, 2.0], F32)
    rhs = np.array([0.0, np.nan, 1.0, 2.0], F32)
    got = lt(lhs, rhs)
    assert got.tolist() == [True, True, True, False]
    assert got.tolist() == sem.compare(lhs, rhs, "LT", "TOTALORDER").tolist()
