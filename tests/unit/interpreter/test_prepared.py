"""Prepared elementwise semantics (semantics/prepared.py) give the general functions' bits.

Each prepared function is compared, bit for bit, with the general semantics function on arrays
holding every special value of the type (NaNs of both signs and with payloads, infinities, signed
zeros, subnormals, extremes) against every other, plus random values; and it must fall back to the
general function for operands of other dtypes.
"""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py import semantics as sem
from stablehlo_py.semantics import conversion, prepared

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32)]
BOOL = np.dtype(np.bool_)


def _float_values(d: np.dtype) -> np.ndarray:
    info = np.finfo(d)
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[d.itemsize]
    bits = 8 * d.itemsize
    neg_qnan_payload = (1 << bits) - 2  # all ones but the last bit: a negative NaN with payload
    specials = np.array(
        [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, info.max, -info.max]
        + [info.tiny, -info.tiny, float(info.smallest_subnormal), 3.0, 1e-3, 7.25],
        dtype=d,
    )
    payload = np.array([neg_qnan_payload, (1 << (bits - 1)) - 1], dtype=u).view(d)
    rng = np.random.default_rng(0)
    rand = (rng.normal(size=12) * 4).astype(d)
    return np.concatenate([specials, payload, rand])


def _int_values(d: np.dtype) -> np.ndarray:
    info = np.iinfo(d)
    vals = [0, 1, 2, 3, 7, info.max, info.min, info.max - 1]
    if info.min < 0:
        vals += [-1, -2, info.min + 1]
    return np.array(vals, dtype=d)


def _pairs(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every value against every other: two (n, n) arrays."""
    n = len(v)
    return np.repeat(v, n).reshape(n, n), np.tile(v, n).reshape(n, n)


@pytest.fixture(autouse=True)
def _no_fp_warnings():  # the evaluator runs programs with these off
    with np.errstate(all="ignore"):
        yield


def _same_bits(x: np.ndarray, y: np.ndarray) -> None:
    assert type(x) is np.ndarray and type(y) is np.ndarray
    assert x.dtype == y.dtype and x.shape == y.shape
    assert x.tobytes() == y.tobytes()


BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"]
UNARY_FLOAT = [
    "negate",
    "abs",
    "tanh",
    "exponential",
    "log",
    "sqrt",
    "rsqrt",
    "sine",
    "cosine",
    "logistic",
    "log_plus_one",
    "exponential_minus_one",
]


@pytest.mark.parametrize("d", [F16, F32, F64], ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_float_binary_bits(name: str, d: np.dtype) -> None:
    fast = prepared.prepare(name, [d, d])
    if d == F16 and name not in ("maximum", "minimum"):
        assert fast is None  # computed through float64 by the general function
        return
    assert fast is not None
    a, b = _pairs(_float_values(d))
    general = getattr(sem, name)
    _same_bits(fast(a, b), general(a, b))
    _same_bits(fast(a[0, 0], b[0, 0]), general(a[0, 0], b[0, 0]))  # 0-d stays an array
    _same_bits(fast(a.T, b.T), general(a.T, b.T))  # strided operands


@pytest.mark.parametrize("d", [F16, F32, F64], ids=str)
@pytest.mark.parametrize("name", UNARY_FLOAT)
def test_float_unary_bits(name: str, d: np.dtype) -> None:
    fast = prepared.prepare(name, [d])
    if name == "logistic" and d == F16:
        assert fast is None
        return
    assert fast is not None
    x = _float_values(d)
    general = getattr(sem, name)
    with np.errstate(all="ignore"):
        _same_bits(fast(x), general(x))
        _same_bits(fast(x[3].reshape(())), general(x[3].reshape(())))
        _same_bits(fast(x[::-2]), general(x[::-2]))


@pytest.mark.parametrize("d", [*INTS, BOOL], ids=str)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "and", "or"])
def test_int_and_bool_bits(name: str, d: np.dtype) -> None:
    fast = prepared.prepare(name, [d, d])
    if d == BOOL and name == "subtract":
        assert fast is None
        return
    assert fast is not None
    v = np.array([True, False]) if d == BOOL else _int_values(d)
    a, b = _pairs(v)
    general = getattr(sem, name if name not in ("and", "or") else name + "_")
    _same_bits(fast(a, b), general(a, b))
    _same_bits(fast(a[0, 0], b[0, 0]), general(a[0, 0], b[0, 0]))


@pytest.mark.parametrize("d", [F16, F32, F64, *INTS, BOOL], ids=str)
@pytest.mark.parametrize("direction", ["EQ", "NE", "GE", "GT", "LE", "LT"])
def test_compare_bits(direction: str, d: np.dtype) -> None:
    fast = prepared.prepare("compare", [d, d], comparison_direction=direction)
    assert fast is not None
    total = prepared.prepare(
        "compare", [d, d], comparison_direction=direction, compare_type="TOTALORDER"
    )
    assert (total is None) == (d.kind == "f")  # totalOrder keys: the general function
    if d.kind == "f":
        v = _float_values(d)
    else:
        v = np.array([True, False]) if d == BOOL else _int_values(d)
    a, b = _pairs(v)
    _same_bits(fast(a, b), sem.compare(a, b, direction))
    _same_bits(fast(a[0, 0], b[0, 0]), sem.compare(a[0, 0], b[0, 0], direction))


@pytest.mark.parametrize("d", [F32, np.dtype(ml_dtypes.bfloat16), np.dtype(np.int8)], ids=str)
def test_select_bits(d: np.dtype) -> None:
    fast = prepared.prepare("select", [BOOL, d, d])
    assert fast is not None
    rng = np.random.default_rng(1)
    p = rng.random((3, 4)) > 0.5
    t = rng.normal(size=(3, 4)).astype(d)
    f = rng.normal(size=(3, 4)).astype(d)
    _same_bits(fast(p, t, f), sem.select(p, t, f))
    _same_bits(fast(p[0, 0], t, f), sem.select(p[0, 0], t, f))  # a 0-d pred selects whole tensors
    _same_bits(fast(p[0, 0], t[0, 0], f[0, 0]), sem.select(p[0, 0], t[0, 0], f[0, 0]))


@pytest.mark.parametrize(
    ("src", "dst"), list(itertools.product([F16, F32, F64], repeat=2)), ids=str
)
def test_convert_bits(src: np.dtype, dst: np.dtype) -> None:
    fast = prepared.prepare("convert", [src], result_dtype=dst)
    assert fast is not None
    x = _float_values(src)
    with np.errstate(all="ignore"):
        _same_bits(fast(x), conversion.convert(x, dst))
        _same_bits(fast(x[2].reshape(())), conversion.convert(x[2].reshape(()), dst))


def test_other_dtypes_run_the_general_function() -> None:
    fast = prepared.prepare("add", [F32, F32])
    assert fast is not None
    a = np.array([1.5, np.inf], dtype=F64)
    _same_bits(fast(a, -a), sem.add(a, -a))  # f64 operands of an op prepared for f32
    bf = np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16)
    _same_bits(fast(bf, bf), sem.add(bf, bf))
    assert prepared.prepare("add", [F32, F64]) is None
    assert prepared.prepare("add", [None, F32]) is None  # type: ignore[list-item]
    assert prepared.prepare("power", [F32, F32]) is None
    tanh = prepared.prepare("tanh", [F32])
    assert tanh is not None
    c = np.array([1 + 2j], dtype=np.complex64)
    _same_bits(tanh(c), sem.tanh(c))


def test_invalid_operation_gives_positive_quiet_nan() -> None:
    fast = prepared.prepare("subtract", [F32, F32])
    assert fast is not None
    inf = np.array([np.inf, 1.0], dtype=F32)
    out = fast(inf, inf)
    assert out.view(np.uint32)[0] == 0x7FC00000  # APFloat's NaN, not x86's 0xFFC00000
    assert out[1] == 0.0
