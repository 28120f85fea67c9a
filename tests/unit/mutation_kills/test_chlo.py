"""stablehlo_py/semantics/chlo.py: what the mutation run of the `semantics-chlo` group found unchecked.

Expected values are independent of the module: Python's math/cmath (C99's special values at
infinities), exact integer arithmetic, SciPy's special functions (the `test` extra) judged within
stated ULP bounds, and identities that hold exactly (the range of erf, the bit patterns of
next_after).  Where a decomposition switches formula at a threshold (erfc's 8, erf_inv's w = 5, 6.25
and 16, erf's clamp to [-4, 4]), the inputs lie just beside it and are chosen so that the
decomposition's first rounding vanishes (x with x*x exact), which leaves only the approximation's own
error to judge; each threshold is upstream's (ChloLegalizeToStablehlo.cpp), as the module says.
"""

from __future__ import annotations

import cmath
import math
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.semantics import chlo
from stablehlo_py.ir import parse
from stablehlo_py.passes import run_pipeline

special = pytest.importorskip("scipy.special")

F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)


def _type_name(dtype: np.dtype) -> str:
    return {
        np.dtype(np.float16): "f16", BF16: "bf16", np.dtype(np.float32): "f32",
        np.dtype(np.float64): "f64", np.dtype(np.complex64): "complex<f32>",
        np.dtype(np.complex128): "complex<f64>", np.dtype(np.int8): "i8", np.dtype(np.uint8): "ui8",
        np.dtype(np.int16): "i16", np.dtype(np.int32): "i32", np.dtype(np.uint32): "ui32",
        np.dtype(np.int64): "i64", np.dtype(np.uint64): "ui64",
    }[np.dtype(dtype)]


def lowered(op: str, *operands: np.ndarray) -> np.ndarray:
    """chlo.`op` lowered by chlo-legalize-to-stablehlo (the decomposition replayed on traced
    values) and run by the interpreter."""
    t = f"tensor<{operands[0].size}x{_type_name(operands[0].dtype)}>"
    rt = f"tensor<{operands[0].size}xi1>" if op.startswith("is_") else t
    args = ", ".join(f"%a{i}: {t}" for i in range(len(operands)))
    uses = ", ".join(f"%a{i}" for i in range(len(operands)))
    types = ", ".join([t] * len(operands))
    text = (f"func.func @main({args}) -> {rt} {{\n  %0 = chlo.{op} {uses} : {types} -> {rt}\n"
            f"  return %0 : {rt}\n}}")
    module = run_pipeline(parse(text), [("chlo-legalize-to-stablehlo", {})])
    assert not any(o.name.startswith("chlo.") for o in module.walk())
    (out,) = Evaluator(module).call("main", list(operands))
    return np.asarray(out)


def both(op: str, *operands: np.ndarray) -> dict[str, np.ndarray]:
    """The op evaluated natively and as its lowering."""
    with np.errstate(all="ignore"):
        return {"native": np.asarray(getattr(chlo, op)(*operands)), "lowered": lowered(op, *operands)}


def ulps(got: np.ndarray, ref: np.ndarray, dtype: Any) -> np.ndarray:
    """|got - ref| in units of the spacing of `dtype` at the reference (ref in f64)."""
    r = np.asarray(ref, np.float64)
    fi = ml_dtypes.finfo(dtype)
    _, e = np.frexp(np.abs(r))  # |r| = m 2^e, 1/2 <= m < 1: the binade of r itself, not of r rounded
    spacing = np.maximum(np.ldexp(1.0, e - 1 - int(fi.nmant)), float(fi.smallest_subnormal))
    return np.abs(np.asarray(got).astype(np.float64) - r) / spacing


# ---- operand types: every op names itself in its refusal ---------------------------------------

ONE_OPERAND = sorted(set(chlo.UNARY_OPS))


@pytest.mark.parametrize("op", ONE_OPERAND)
def test_an_integer_operand_is_refused_with_the_op_name(op: str) -> None:
    with pytest.raises(InterpreterError) as e:
        getattr(chlo, op)(np.array([1, 2], np.int32))
    assert e.value.message == f"'chlo.{op}' does not support element type 'i32'"
    assert e.value.note == "the spec's constraints for this op list the element types it accepts"


@pytest.mark.parametrize("op", ["next_after", "zeta", "polygamma"])
def test_binary_ops_refuse_an_integer_first_operand(op: str) -> None:
    with pytest.raises(InterpreterError) as e:
        getattr(chlo, op)(np.array([1, 2], np.int16), np.array([1, 2], np.int16))
    assert e.value.message == f"'chlo.{op}' does not support element type 'i16'"


@pytest.mark.parametrize(("operand", "name"), [(np.array([1.5], np.float32), "f32"),
                                               (np.array([True]), "i1")])
def test_mulhi_refuses_floats_and_booleans(operand: np.ndarray, name: str) -> None:
    with pytest.raises(InterpreterError) as e:
        chlo.mulhi(operand, operand)
    assert e.value.message == f"'chlo.mulhi' does not support element type '{name}'"


# ---- the op wrappers: evaluate arrays, emit for traced values -----------------------------------


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def emit(self, name: str, *args: Any) -> str:
        self.calls.append((name, *args))
        return "emitted"


def test_op_wrapper_evaluates_arrays_and_emits_for_traced_values() -> None:
    seen: list[tuple] = []

    def numpy_fn(*args: Any) -> str:
        seen.append(args)
        return "evaluated"

    fn = chlo._op("and_", numpy_fn)
    assert fn(1, 2) == "evaluated" and seen == [(1, 2)]
    builder = _Recorder()
    t = chlo.Traced("v", builder, np.dtype(np.float32), (2,))
    # a traced value in any position switches to emission, with every argument in order
    assert fn(3, t, "LT") == "emitted"
    assert builder.calls == [("and_", 3, t, "LT")]
    assert seen == [(1, 2)]
    assert fn.__name__ == fn.__qualname__ == "and_"
    assert fn.__doc__ == "stablehlo.and"  # trailing underscores only: the Python-keyword escape
    assert chlo._op("_x_", numpy_fn).__doc__ == "stablehlo._x"
    assert chlo._op("maX_", numpy_fn).__doc__ == "stablehlo.maX"


@pytest.mark.parametrize("direction", ["LT", "LE", "GT", "GE", "EQ", "NE"])
def test_comparison_helpers_compare_in_their_direction(direction: str) -> None:
    a = np.array([1.0, 2.0, 3.0], np.float32)
    b = np.array([2.0, 2.0, 2.0], np.float32)
    expected = {"LT": a < b, "LE": a <= b, "GT": a > b, "GE": a >= b, "EQ": a == b, "NE": a != b}
    np.testing.assert_array_equal(chlo._comparison(direction)(a, b), expected[direction])
    builder = _Recorder()
    t = chlo.Traced("v", builder, np.dtype(np.float32), (3,))
    chlo._comparison(direction)(t, b)
    assert builder.calls == [("compare", t, b, direction)]


def test_module_comparisons() -> None:
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([2.0, 2.0, 2.0])
    for fn, want in zip((chlo._lt, chlo._le, chlo._gt, chlo._ge, chlo._eq, chlo._ne),
                        (a < b, a <= b, a > b, a >= b, a == b, a != b)):
        np.testing.assert_array_equal(fn(a, b), want)


# ---- mulhi ----------------------------------------------------------------------------------------


def _mulhi_exact(a: np.ndarray, b: np.ndarray) -> list[int]:
    bits = np.dtype(a.dtype).itemsize * 8
    return [(int(x) * int(y)) >> bits for x, y in zip(a, b)]


@pytest.mark.parametrize("how", ["native", "lowered"])
def test_mulhi_i32_product_beyond_f64_precision(how: str) -> None:
    # (2^31 - 1) * -(2^31 - 1) = -0x3FFFFFFF00000001: rounded to f64 it would lose the low 1 and
    # the high half would be -0x3FFFFFFF instead of -0x40000000
    a = np.array([2147483647, 2147483647, -2147483647, 46341], np.int32)
    b = np.array([-2147483647, 2147483647, -2147483647, -46341], np.int32)
    got = chlo.mulhi(a, b) if how == "native" else lowered("mulhi", a, b)
    assert got.dtype == np.int32
    assert got.tolist() == _mulhi_exact(a, b)
    assert got.tolist()[0] == -0x40000000


@pytest.mark.parametrize("how", ["native", "lowered"])
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_mulhi_64_bit_with_zero_and_small_operands(how: str, dtype: type) -> None:
    signed = np.dtype(dtype) == np.int64
    a_list = [0, 0, 5, 1, 3, 7] + ([-3, -1, 0] if signed else [2**64 - 1, 2**63, 0])
    b_list = [7, 2**62 + 1, 0, 1, 2**63 - 1, 9] + ([0, -1, -(2**63)] if signed else [2**64 - 1, 2, 2**63])
    a = np.array(a_list, dtype)
    b = np.array(b_list, dtype)
    got = chlo.mulhi(a, b) if how == "native" else lowered("mulhi", a, b)
    assert got.dtype == np.dtype(dtype)
    assert [int(v) for v in got] == _mulhi_exact(a, b)


# ---- ragged_prefix ------------------------------------------------------------------------------


def test_ragged_prefix_of_a_batch_dimension() -> None:
    # group_sizes is indexed by the batch dimensions before the ragged one
    assert chlo.ragged_prefix(1, [0, 1], [2]) == [0]
    assert chlo.ragged_prefix(2, [0, 1, 2], [3]) == [0, 1]
    assert chlo.ragged_prefix(0, [0], [2]) == []


def test_ragged_prefix_of_a_contracting_dimension() -> None:
    assert chlo.ragged_prefix(3, [0], [1, 3]) == [0, 1]
    assert chlo.ragged_prefix(1, [0], [1, 3]) == [0]


def test_ragged_prefix_of_a_free_dimension() -> None:
    # the batch dimensions, then the free (neither batch nor contracting) dimensions before it
    assert chlo.ragged_prefix(3, [0], [2]) == [0, 1]
    assert chlo.ragged_prefix(4, [1], [0, 3]) == [1, 2]
    assert chlo.ragged_prefix(2, [], [1]) == [0]
    assert chlo.ragged_prefix(0, [], [1]) == []


# ---- conj, square -------------------------------------------------------------------------------


def test_conj_of_a_real_operand_is_a_new_array() -> None:
    x = np.array([1.5, -0.0, np.inf], np.float32)
    got = chlo.conj(x)
    assert got.dtype == x.dtype and got.tolist() == x.tolist()
    assert not np.shares_memory(got, x)
    got[0] = 7.0
    assert x[0] == 1.5


@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_square_of_a_float_and_a_complex(dtype: type) -> None:
    # exact in f64/complex128 for these small operands
    x = np.array([1.5, -3.0, 0.25], dtype) if dtype == np.float32 else np.array([1 + 2j, -3 + 0.5j], dtype)
    for how, got in both("square", x).items():
        assert got.dtype == np.dtype(dtype), how
        assert got.tolist() == (x.astype(np.complex128 if dtype == np.complex64 else np.float64) ** 2).tolist(), how


# ---- next_after: bit patterns, natively and lowered ---------------------------------------------


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_next_after_lowered_matches_numpy(dtype: type) -> None:
    # numpy's nextafter is C's (with the IEEE ±0 rule: 0 toward y is the smallest subnormal of y's
    # sign; x == y gives y, so next_after(0, -0) = -0)
    x = np.array([0.0, -0.0, 0.0, -0.0, 0.0, 1.0, 1.0, -1.0, np.inf, -np.inf, 2.0, np.nan, 3.0], dtype)
    y = np.array([-0.0, 0.0, 0.0, 1.0, -1.0, 2.0, 0.0, -0.0, 0.0, 0.0, -np.inf, 1.0, np.nan], dtype)
    # C99: x == y gives y (numpy 2.4's float16 nextafter returns x there: -0 for next_after(-0, 0))
    want = np.where(x == y, y, np.nextafter(x, y))
    for how, got in both("next_after", x, y).items():
        assert got.dtype == np.dtype(dtype), how
        bits = f"u{np.dtype(dtype).itemsize}"
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan, err_msg=how)
        np.testing.assert_array_equal(got[~nan].view(bits), want[~nan].view(bits), err_msg=how)


# ---- erf, erfc: beside the thresholds ---------------------------------------------------------


def test_erfc_f64_beside_eight() -> None:
    # Cephes switches from P/Q to R/S at |x| = 8; x*x is exact for these x, so exp(-x*x) is the only
    # other rounding and the result is within 2 ulps (P/Q beyond 8 is 4 to 11 ulps off)
    x = np.array([7.875, 8.0, 8.25, 8.5, 8.75, 8.9375, -8.5])
    for how, got in both("erfc", x).items():
        err = ulps(got, special.erfc(x), np.float64)
        assert (err <= 2).all(), (how, err)


def test_erfc_f32_is_zero_where_exp_of_minus_x_squared_underflows() -> None:
    # upstream's f32 erfc: 0 where -x^2 < -88.72283905206835 (Cephes' MAXLOG for float), |x| above
    # 9.4193; below it the value (a subnormal) is within 4 ulps of SciPy's
    x = np.array([9.40625, 9.4140625, 9.42578125, 9.5, 10.0, 20.0, np.inf], np.float32)
    for how, got in both("erfc", x).items():
        assert got[2:].tolist() == [0.0] * 5, how
        ref = special.erfc(x[:2].astype(np.float64))
        assert (got[:2] > 0).all() and (ulps(got[:2], ref, np.float32) <= 4).all(), (how, got[:2], ref)
        assert np.asarray(getattr(chlo, "erfc")(-x)).tolist() == [2.0] * 7


@pytest.mark.parametrize("dtype", [np.float32, F16, BF16])
def test_erf_stays_in_its_range(dtype: np.dtype) -> None:
    # |erf| <= 1 exactly: Eigen's rational, clamped to [-1, 1], would exceed it by an ulp around
    # |x| = 3.6 .. 4 without the clamp
    x = np.linspace(3.0, 6.0, 3001).astype(dtype)
    x = np.concatenate([x, -x])
    for how, got in both("erf", x).items():
        g = got.astype(np.float64)
        assert (np.abs(g) <= 1.0).all(), (how, g[np.abs(g) > 1][:4])


def test_erf_f32_rounds_to_one_beyond_four() -> None:
    # the argument is clamped to [-4, 4]; for 4 < |x| <= 5 erf(x) is 1 - (< 1.6e-8), which rounds to
    # 1 in f32 (the rational evaluated there instead is 2 ulps below)
    x = np.linspace(4.0, 5.0, 257).astype(np.float32)
    x = np.concatenate([x, -x])
    ref = special.erf(x.astype(np.float64))
    for how, got in both("erf", x).items():
        err = ulps(got, ref, np.float32)
        assert (err <= 1).all(), (how, x[err > 1][:4], got[err > 1][:4])


# ---- erf_inv: beside Giles' switches (w = -log(1 - x^2)) ---------------------------------------


def test_erf_inv_f32_beside_w_five() -> None:
    # w = 5.55 and 5.14 (x*x exact): the w >= 5 polynomial (the w < 5 one, extrapolated: 6 to 100 ulps)
    x = np.array([1 - 2.0**-9, 1 - 3 * 2.0**-10, -(1 - 2.0**-9), 1 - 2.0**-7], np.float32)
    ref = special.erfinv(x.astype(np.float64))
    for how, got in both("erf_inv", x).items():
        err = ulps(got, ref, np.float32)
        assert (err <= 2).all(), (how, err)


def test_erf_inv_f64_beside_w_six_and_a_quarter_and_sixteen() -> None:
    # w = 6.93 and 6.34 (x = 1 - 2^-11, 1 - 6 2^-13), 16.64 and 16.23 (x = 1 - 2^-25, 1 - 3 2^-26):
    # x*x is exact, so the only error is the polynomial's; each is used beside its range's edge
    x = np.array([1 - 2.0**-11, 1 - 6 * 2.0**-13, 1 - 2.0**-25, 1 - 3 * 2.0**-26])
    x = np.concatenate([x, -x])
    ref = special.erfinv(x)
    for how, got in both("erf_inv", x).items():
        err = ulps(got, ref, np.float64)
        assert (err <= 8).all(), (how, err)


# ---- complex sinh/cosh: upstream's formula for |Re z| >= 1 -------------------------------------


@pytest.mark.parametrize(("op", "z"), [
    ("sinh", -1.394429326057434 + 3.4439191818237305j),
    ("sinh", -1.3868509531021118 - 0.5250933766365051j),
    ("cosh", -1.3242104053497314 - 2.8852908611297607j),
    ("cosh", 1.4185439348220825 + 1.7454625368118286j),
])
def test_complex_sinh_cosh_with_a_real_part_above_one(op: str, z: complex) -> None:
    # e^(z + log 1/2) -/+ e^(log 1/2 - z) (upstream's) is within 1 ulp of |ref| here for each part;
    # the by-parts form used below |Re z| = 1 (sinh x cos y + i cosh x sin y) is 1.5 to 2 ulps off
    x = np.array([z], np.complex64)
    ref = getattr(cmath, op)(complex(x[0]))
    scale = float(np.spacing(np.float32(abs(ref))))
    for how, got in both(op, x).items():
        for part, want in ((got.real, ref.real), (got.imag, ref.imag)):
            assert abs(float(part[0]) - want) <= scale, (how, got[0], ref)


# ---- complex atanh/atan: infinities and the safe region -----------------------------------------

INF = math.inf
INFINITE = [complex(-INF, -INF), complex(-INF, INF), complex(INF, INF), complex(INF, -INF),
            complex(1, INF), complex(-2, -INF), complex(0, INF), complex(INF, 3),
            complex(-INF, -3), complex(1e30, INF), complex(-0.5, -INF)]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op", ["atanh", "atan"])
def test_complex_atanh_atan_at_infinities_as_c99(op: str, dtype: type) -> None:
    # C99 (cmath): catanh(±inf + iy) = ±0 ± iπ/2, catanh(x ± i inf) = ±0 ± iπ/2
    z = np.array(INFINITE, dtype)
    ref = [getattr(cmath, op)(complex(v)) for v in z]
    part = np.float32 if dtype == np.complex64 else np.float64
    for how, got in both(op, z).items():
        for g, r, v in zip(got.tolist(), ref, z.tolist()):
            for a, b in ((g.real, r.real), (g.imag, r.imag)):
                if b == 0:
                    assert a == 0 and math.copysign(1, a) == math.copysign(1, b), (how, v, g, r)
                else:
                    assert abs(a - b) <= float(np.spacing(part(abs(b)))), (how, v, g, r)


@pytest.mark.parametrize(("dtype", "values"), [
    (np.complex64, [4.5e6 + 4.5e6j, 6e6 + 5e6j]),
    (np.complex128, [3e14 + 3e14j, 5e14 - 4e14j, 4e15 + 1e3j]),
])
def test_complex_atanh_of_large_arguments_inside_the_safe_region(dtype: type, values: list) -> None:
    # atanh(z) ~ 1/z + iπ/2 for large z: the safe region (|x|, |y| < 16777218^2 in complex64,
    # 9007199254740994^2 in complex128) keeps the 1/|z| terms that the outer formulas drop
    z = np.array(values, dtype)
    ref = [cmath.atanh(complex(v)) for v in z]
    part = np.float32 if dtype == np.complex64 else np.float64
    for how, got in both("atanh", z).items():
        for g, r in zip(got.tolist(), ref):
            for a, b in ((g.real, r.real), (g.imag, r.imag)):
                assert abs(a - b) <= 2 * float(np.spacing(part(abs(b)))), (how, g, r)


@pytest.mark.parametrize(("dtype", "edge"), [
    (np.complex64, float(np.float32(16777218.0) * np.float32(16777218.0))),  # 2^48 + 2^26
    (np.complex128, 9007199254740994.0 * 9007199254740994.0),  # 2^106 + 2^55
])
def test_complex_atanh_safe_region_edge(dtype: type, edge: float) -> None:
    # upstream's safe region ends at safe_max = safe_max_opt^2 (rounded); inside it the imaginary
    # part is atan2(2y, (1-x)(1+x) - y^2) / 2, which honours y = -0 (-π/2), beyond it upstream takes
    # the sign of y by y >= 0 (+π/2 for -0; ChloDecompositionPatternsMath.td, kept as upstream's)
    part = np.float32 if dtype == np.complex64 else np.float64
    below = float(np.nextafter(part(edge), part(0)))
    z = np.array([complex(below, -0.0), complex(edge, -0.0), complex(below, 0.0), complex(edge, 0.0)], dtype)
    half_pi = float(part(math.pi / 2))
    for how, got in both("atanh", z).items():
        assert got.imag.astype(np.float64).tolist() == [-half_pi, half_pi, half_pi, half_pi], how


# ---- complex asin/acos/asinh/acosh (modified Hull et al.): the kernel's thresholds --------------


def _part_ulps(value: float, ref: float, part: Any) -> float:
    """|value - ref| in ulps of the part type at ref (the binade of ref itself)."""
    return float(ulps(np.array([value]), np.array([ref]), part)[0])


@pytest.mark.parametrize(("dtype", "values"), [
    (np.complex128, [8.379879956214122e154j, 1.6592162313303962e155j, 0.5 + 1e155j, 1e150 + 1e155j]),
    (np.complex64, [1.1529214166459168e20j, 2.2827844031996966e20j, 0.5 + 2e20j, 1e15 + 2e20j]),
])
@pytest.mark.parametrize("op", ["asin", "acos", "asinh", "acosh"])
def test_complex_inverse_trig_with_a_huge_imaginary_part(op: str, dtype: type, values: list) -> None:
    # |y| between sqrt(max)/8 * 1e-6 and sqrt(max)/8 * 100 with a small x: the log(2) + log(mx) form
    # (y*y overflows in the general one)
    z = np.array(values, dtype)
    part = np.float32 if dtype == np.complex64 else np.float64
    for how, got in both(op, z).items():
        for g, v in zip(got.tolist(), z.tolist()):
            r = getattr(cmath, op)(v)
            assert math.isfinite(g.real) and math.isfinite(g.imag), (how, v, g)
            assert _part_ulps(g.real, r.real, part) <= 2 and _part_ulps(g.imag, r.imag, part) <= 2, (how, v, g, r)


# complex64 points where the decomposition's value is the correctly rounded one (SciPy-free: cmath
# in double, 1e-16 relative, decides the f32 rounding with a margin of >= 0.09 ulp) for the named
# part, each beside one of the kernel's switches; the neighbouring formula gives the other
# neighbour of the true value
CORRECTLY_ROUNDED = [
    # max(x, y) just below sqrt(max)/8: the general q and imaginary part (not q = y)
    ("asin", 2.134855894393946e18 + 1j, "imag"),
    ("acosh", 2.134855894393946e18 + 1j, "real"),
    # x >= sqrt(max)/8 * 1e12 and y at sqrt(max)/8 * 100: y is the larger term (mx = y)
    ("asin", 5.90941074514925e30 + 2.319314401599066e20j, "imag"),
    # y just above 4 sqrt(smallest normal) (the tiny-y branch ends there), x < 1
    ("asin", 0.25 + 4.87890977618477e-19j, "imag"),
    ("acos", 0.8999999761581421 + 4.87890977618477e-19j, "imag"),
    # x < 1 and a = (|z+1| + |z-1|)/2 between 1.5 and 2.5: a - 1 (not the y^2 sums)
    ("asin", 0.18538004159927368 + 1.3549593687057495j, "imag"),
    ("acosh", 0.15715996921062470 + 2.1116104125976562j, "real"),
]


@pytest.mark.parametrize(("op", "value", "which"), CORRECTLY_ROUNDED)
def test_complex_inverse_trig_correctly_rounded_beside_a_switch(op: str, value: complex, which: str) -> None:
    z = np.array([value], np.complex64)
    assert complex(z[0]) == value  # the point is a complex64 value
    r = getattr(cmath, op)(value)
    for how, got in both(op, z).items():
        g = complex(got[0])
        assert _part_ulps(getattr(g, which), getattr(r, which), np.float32) <= 0.5, (how, g, r)
        # and the other part within the bound of test_chlo_reference.py
        other = "real" if which == "imag" else "imag"
        assert _part_ulps(getattr(g, other), getattr(r, other), np.float32) <= 4, (how, g, r)


# ---- operands: Python sequences are taken as arrays; narrow floats are computed in f32 ----------


def test_python_sequences_are_operands() -> None:
    got = chlo.mulhi([3, -(2**62)], [5, 4])  # int64, as numpy takes Python ints
    assert got.dtype == np.int64 and got.tolist() == [0, -1]
    erf = chlo.erf([0.0, -0.0])
    assert erf.dtype == np.float64 and erf.tolist() == [0.0, 0.0] and np.signbit(erf[1])
    z = chlo.zeta(np.array([2.0]), [1.0])
    assert abs(float(z[0]) - math.pi**2 / 6) <= 4 * math.ulp(math.pi**2 / 6)


def test_bessel_i1e_bf16_subnormals_round_below_half() -> None:
    # i1e(x) = x/2 - x^2/2 + O(x^3) lies just below x/2: for x = k m (m the smallest bf16
    # subnormal) and k = 1 (mod 4) the correctly rounded value is (k - 1)/2 m (the f32 computation's
    # x * 0.5 is the tie and rounds to that even neighbour; evaluated in f64 instead it rounds up).
    # (For k = 3 (mod 4) the tie rounds to the even neighbour above, one subnormal off: within
    # test_chlo_reference.py's floor of 32 subnormals.)
    m = float(ml_dtypes.finfo(BF16).smallest_subnormal)
    k = np.array([1, 5, 9, 13, 41])
    x = np.concatenate([k * m, -k * m]).astype(BF16)
    want = np.concatenate([(k - 1) / 2 * m, -(k - 1) / 2 * m])
    for how, got in both("bessel_i1e", x).items():
        assert got.dtype == BF16, how
        assert got.astype(np.float64).tolist() == want.tolist(), how
