"""Float -> integer `convert` at every edge: every integer width, every float source type.

The spec (spec.md#convert) truncates the fractional part toward zero and leaves values the result
cannot hold TBD (#180); the interpreter follows upstream's reference interpreter
(stablehlo/reference/Element.cpp `convert(Type, APFloat)`: APFloat::convertToInteger with
rmTowardZero), which saturates at the result's min/max, maps NaN to 0, and for i1 gives `x != 0`
(NaN -> true).  The expected values here are computed in Python integers: a float's value is
exact as a Python float (every float type widens exactly to f64) and `math.trunc` of it is the
exact integer toward zero; the clamp is on Python ints.  No numpy float->int cast is used.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.semantics import dtypes
from stablehlo_py.semantics.conversion import convert

FLOAT_NAMES = [n for n in dtypes.ELEMENT_TYPES if dtypes.is_float(n)]
INT_NAMES = [n for n in dtypes.ELEMENT_TYPES if dtypes.is_int(n) or dtypes.is_bool(n)]
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def int_range(name: str) -> tuple[int, int]:
    """[min, max] of an integer type from its width alone (i1 is a bool: 0..1)."""
    if name == "i1":
        return 0, 1
    bits = int(name.lstrip("ui"))
    if name.startswith("ui"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def reference(x: float, name: str) -> int:
    """The spec's truncation, upstream's saturation and NaN -> 0, in Python integers."""
    if name == "i1":
        return int(x != 0.0)  # NaN != 0 is True
    lo, hi = int_range(name)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return hi if x > 0 else lo
    t = math.trunc(x)  # exact: x is a binary float, t the integer toward zero
    return min(max(t, lo), hi)


@functools.lru_cache(maxsize=None)
def every_value(fname: str) -> np.ndarray:
    """Every bit pattern of a <=16-bit float type, as that type."""
    dt = dtypes.dtype_of(fname)
    return np.arange(1 << dtypes.bitwidth(fname), dtype=_UINT[dt.itemsize]).view(dt)


def edges(fname: str) -> np.ndarray:
    """f32/f64: the values around every integer type's edges and the special values."""
    dt = dtypes.dtype_of(fname).type
    points: list[float] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 0.9999, -0.9999, 1.5, -1.5,
                           2.5, -2.5, 1.0, -1.0]
    fi = np.finfo(dt)
    points += [float(fi.max), -float(fi.max), float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]
    for name in INT_NAMES:
        lo, hi = int_range(name)
        for edge in (lo, hi + 1, lo - 1, hi, 0):
            e = dt(edge)  # powers of two (and their neighbours where exact) for every width
            for v in (e, np.nextafter(e, dt(np.inf)), np.nextafter(e, dt(-np.inf))):
                points.append(float(v))
            points += [float(dt(edge) + dt(0.5)), float(dt(edge) - dt(0.5))]
    out = np.array(points, dtype=np.float64).astype(dt)
    # the f64 values above must be the f32 values themselves, not roundings of them
    return out


def sources(fname: str) -> np.ndarray:
    if dtypes.bitwidth(fname) <= 16:
        return every_value(fname)
    return edges(fname)


def as_python_ints(result: np.ndarray, name: str) -> list[int]:
    if name == "i1":
        return [int(bool(v)) for v in result.ravel()]
    wide = np.uint64 if name.startswith("ui") else np.int64
    return [int(v) for v in result.astype(wide).ravel()]  # integer widening only


@pytest.mark.parametrize("iname", INT_NAMES)
@pytest.mark.parametrize("fname", FLOAT_NAMES)
def test_float_to_int_every_edge(fname: str, iname: str) -> None:
    x = sources(fname)
    with np.errstate(invalid="ignore"):
        as_f64 = [float(v) for v in x.astype(np.float64)]
    got = convert(x, iname)
    assert got.dtype == dtypes.dtype_of(iname)
    expected = [reference(v, iname) for v in as_f64]
    mismatches = [
        (v, e, g) for v, e, g in zip(as_f64, expected, as_python_ints(got, iname)) if e != g
    ]
    assert not mismatches, f"{fname} -> {iname}: (value, expected, got) {mismatches[:10]}"


@pytest.mark.parametrize("iname", [n for n in INT_NAMES if n != "i1"])
@pytest.mark.parametrize("fname", ["f64", "f32"])
def test_saturation_edges_named(fname: str, iname: str) -> None:
    """The exact edges spelled out: 2^(n-1) (or 2^n) saturates, the largest float below it does
    not; -2^(n-1) is exact, the next float below it saturates; fractions truncate toward zero."""
    dt = dtypes.dtype_of(fname).type
    lo, hi = int_range(iname)
    top = dt(hi + 1)  # 2^(n-1) or 2^n, exact in f32/f64
    below_top = np.nextafter(top, dt(0))
    bottom = dt(lo)
    below_bottom = np.nextafter(bottom, dt(-np.inf))
    x = np.array([top, below_top, bottom, below_bottom, dt(-0.0), dt(0.0), dt(0.75), dt(-0.75)], dt)
    got = as_python_ints(convert(x, iname), iname)
    assert got[0] == hi, "exactly 2^(n-1) (2^n unsigned) saturates to max"
    assert got[1] == min(math.trunc(float(below_top)), hi)
    assert got[2] == lo
    assert got[3] == lo
    assert got[4:] == [0, 0, 0, 0]
    if int(float(below_top)) < hi + 1 and float(below_top) >= lo:
        # where the type can hold it, the largest float below the edge converts exactly
        assert got[1] == math.trunc(float(below_top))


@pytest.mark.parametrize("fname", ["f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "f64"])
@pytest.mark.parametrize("iname", ["i1", "i2", "i4", "i8", "ui8", "i32", "ui32", "i64", "ui64"])
def test_convert_op_in_a_program(fname: str, iname: str) -> None:
    """The same reference through stablehlo.convert, with the operand spelled as bit patterns."""
    dt = dtypes.dtype_of(fname)
    lo, hi = int_range(iname)
    values = [0.0, -0.0, 1.5, -1.5, float(hi + 1), float(hi), float(lo), float(lo - 1), float(hi) + 0.5,
              np.inf, -np.inf, np.nan, 127.5, 128.0, -128.0, -129.0]
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.array(values, np.float64).astype(dt)
        as_f64 = [float(v) for v in x.astype(np.float64)]
    width = dtypes.bitwidth(fname) // 4
    hexes = ", ".join(f"0x{int(b):0{width}X}" for b in x.view(_UINT[dt.itemsize]))
    n = len(values)
    text = (
        f"func.func @main() -> tensor<{n}x{iname}> {{\n"
        f"  %x = stablehlo.constant dense<[{hexes}]> : tensor<{n}x{fname}>\n"
        f"  %r = stablehlo.convert %x : (tensor<{n}x{fname}>) -> tensor<{n}x{iname}>\n"
        f"  func.return %r : tensor<{n}x{iname}>\n}}"
    )
    (r,) = run(text)
    assert as_python_ints(np.asarray(r), iname) == [reference(v, iname) for v in as_f64]


def test_reference_itself() -> None:
    """The reference is the rule it claims to be (a few values worked by hand)."""
    assert reference(128.0, "i8") == 127
    assert reference(127.99, "i8") == 127
    assert reference(-128.99, "i8") == -128
    assert reference(-129.0, "i8") == -128
    assert reference(2.0**31, "i32") == 2**31 - 1
    assert reference(-(2.0**31), "i32") == -(2**31)
    assert reference(-0.99, "ui8") == 0
    assert reference(-1.0, "ui8") == 0
    assert reference(2.0**64, "ui64") == 2**64 - 1
    assert reference(2.0**63, "i64") == 2**63 - 1
    assert reference(float("nan"), "i32") == 0
    assert reference(float("nan"), "i1") == 1
    assert reference(-0.0, "i1") == 0
    assert reference(1.5, "i2") == 1
    assert reference(2.0, "i2") == 1
    assert reference(-2.5, "i2") == -2
    assert reference(-3.0, "i2") == -2
    assert reference(3.9, "ui2") == 3
    assert reference(4.0, "ui2") == 3
