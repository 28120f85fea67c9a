"""The check ops reject values just outside their tolerance and accept values just inside.

`check.expect_close` (max/min ULP difference), `check.expect_almost_eq[_const]` (absolute tolerance),
`check.expect_eq[_const]` (exact), `check.expect_serialized_eq`, and the `custom_call @check.*`
forms of upstream's testdata (3 ULP, 1e-3, `@check.eq` -> i1) are tested at the exact edge of their
bound for every float type the interpreter has, plus complex, and once through the CLI.

The neighbours "k ULPs away" are computed here independently of `interpreter/checks.py`: for types of
at most 16 bits by enumerating every bit pattern, sorting the finite values and counting positions
(+0 and -0 are one position, as upstream's ULPDifference counts them), for f32/f64 by
`np.nextafter` steps.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter import checks, run
from stablehlo_py.semantics import dtypes
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

FLOAT_NAMES = [
    name
    for name in dtypes.ELEMENT_TYPES
    if dtypes.is_float(name)
]
SMALL_FLOATS = [n for n in FLOAT_NAMES if dtypes.bitwidth(n) <= 16]
U64_MAX = (1 << 64) - 1


def _uint_of(dtype: np.dtype) -> type:
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]


@functools.lru_cache(maxsize=None)
def _finite_ladder(name: str) -> np.ndarray:
    """Every finite value of a <=16-bit float type, ascending, -0 merged into +0 (float64)."""
    dt = dtypes.dtype_of(name)
    bits = dtypes.bitwidth(name)
    patterns = np.arange(1 << bits, dtype=_uint_of(dt))
    with np.errstate(invalid="ignore"):
        values = patterns.view(dt).astype(np.float64)
    values = values[np.isfinite(values)]
    return np.unique(values)  # unique merges -0.0 and 0.0


def _step(name: str, x: float, k: int) -> float:
    """The value k representable steps above (k < 0: below) the finite value x of type `name`."""
    if dtypes.bitwidth(name) <= 16:
        ladder = _finite_ladder(name)
        i = int(np.searchsorted(ladder, x))
        assert ladder[i] == x, (name, x)
        if not 0 <= i + k < len(ladder):
            raise IndexError(f"{name} has no value {k} steps from {x}")
        return float(ladder[i + k])
    dt = dtypes.dtype_of(name).type
    v = dt(x)
    target = dt(np.inf) if k > 0 else dt(-np.inf)
    for _ in range(abs(k)):
        with np.errstate(over="ignore"):
            v = np.nextafter(v, target)
        if v == 0:
            v = dt(0.0)  # nextafter from the smallest subnormal gives the zero of that sign
    return float(v)


def _max_finite(name: str) -> float:
    if dtypes.bitwidth(name) <= 16:
        return float(_finite_ladder(name)[-1])
    return float(np.finfo(dtypes.dtype_of(name)).max)


def _arr(name: str, *values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64).astype(dtypes.dtype_of(name))


def _bases(name: str) -> list[float]:
    """Finite values of the type to start from: 1, a negative, the smallest positive, the largest
    finite, and zero (steps from zero cross into negatives)."""
    if dtypes.bitwidth(name) <= 16:
        ladder = _finite_ladder(name)
        positive = ladder[ladder > 0]
        out = [1.0, float(positive[0]), float(ladder[-1])]
        if ladder[0] < 0:
            out += [-1.0 if -1.0 in ladder else float(ladder[0]), 0.0]
        return out
    fi = np.finfo(dtypes.dtype_of(name))
    return [1.0, float(fi.smallest_subnormal), float(fi.max), -1.0, 0.0, -3.5]


def _neighbour_pairs(name: str, k: int):
    """(base, other) with other exactly k ULPs from base, where the type has such values."""
    for base in _bases(name):
        for direction in (1, -1):
            try:
                other = _step(name, base, direction * k)
            except IndexError:
                continue  # the ladder ends
            if dtypes.bitwidth(name) > 16 and not np.isfinite(other):
                continue
            yield base, other


# ------------------------------------------------------------------------------------------------
# expect_close: ULP bounds
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOAT_NAMES)
@pytest.mark.parametrize("max_ulp", [0, 1, 3, 4])
def test_expect_close_max_ulp_edge(name: str, max_ulp: int) -> None:
    checked = 0
    for base, inside in _neighbour_pairs(name, max_ulp):
        a, e = _arr(name, base), _arr(name, inside)
        assert checks.expect_close(a, e, max_ulp) is None, (name, base, inside, max_ulp)
        assert checks.expect_close(e, a, max_ulp) is None, (name, inside, base, max_ulp)
        checked += 1
    for base, outside in _neighbour_pairs(name, max_ulp + 1):
        a, e = _arr(name, base), _arr(name, outside)
        problem = checks.expect_close(a, e, max_ulp)
        assert problem is not None, (name, base, outside, max_ulp)
        assert f"by more than {max_ulp} ULP" in problem
        assert f"largest difference: {max_ulp + 1} ULP" in problem
        assert checks.expect_close(e, a, max_ulp) is not None
        checked += 1
    assert checked >= 4, name  # every type has neighbours around 1.0 at least


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_expect_close_min_ulp_edge(name: str) -> None:
    for base, at_min in _neighbour_pairs(name, 2):
        a, e = _arr(name, base), _arr(name, at_min)
        assert checks.expect_close(a, e, max_ulp=5, min_ulp=2) is None
        problem = checks.expect_close(a, e, max_ulp=5, min_ulp=3)
        assert problem is not None and "[3, 5] ULP" in problem
        assert checks.expect_close(a, a, max_ulp=5, min_ulp=1) is not None


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_expect_close_defaults_are_zero_to_one_ulp(name: str) -> None:
    one_up, two_up = _step(name, 1.0, 1), _step(name, 1.0, 2)
    assert checks.expect_close(_arr(name, 1.0), _arr(name, one_up)) is None
    assert checks.expect_close(_arr(name, 1.0), _arr(name, two_up)) is not None


@pytest.mark.parametrize("name", [n for n in SMALL_FLOATS if _finite_ladder(n)[0] < 0])
def test_ulp_count_across_zero_against_the_enumeration(name: str) -> None:
    """Every pair of finite values of a small type, counted by position on the ladder."""
    ladder = _finite_ladder(name)
    if len(ladder) > 300:  # f16/bf16: a sample of pairs around zero, 1 and the extremes
        idx = np.unique(np.r_[0:20, len(ladder) // 2 - 20 : len(ladder) // 2 + 20, len(ladder) - 20 : len(ladder)])
        ladder_idx = idx
    else:
        ladder_idx = np.arange(len(ladder))
    i, j = np.meshgrid(ladder_idx, ladder_idx, indexing="ij")
    a, e = _arr(name, *ladder[i.ravel()]), _arr(name, *ladder[j.ravel()])
    expected = np.abs(i.ravel() - j.ravel()).astype(np.uint64)
    np.testing.assert_array_equal(checks.ulp_distance(a, e), expected)


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_expect_close_zeros_and_non_finite(name: str) -> None:
    dt = dtypes.dtype_of(name)
    has_neg_zero = np.signbit(np.array(-0.0).astype(dt).astype(np.float64))
    if has_neg_zero:
        assert checks.expect_close(_arr(name, 0.0), _arr(name, -0.0), max_ulp=0) is None
    fin = _max_finite(name)
    has_inf = np.isinf(np.array(np.inf).astype(dt).astype(np.float64))
    has_nan = np.isnan(np.array(np.nan).astype(dt).astype(np.float64))
    huge = U64_MAX - 1  # any finite pair is within this
    if has_inf:
        inf = _arr(name, np.inf)
        assert checks.expect_close(inf, inf, max_ulp=0) is None
        assert checks.expect_close(inf, _arr(name, fin), max_ulp=huge) is not None
        assert checks.expect_close(_arr(name, fin), inf, max_ulp=huge) is not None
        assert checks.expect_close(_arr(name, -np.inf), inf, max_ulp=huge) is not None
    if has_nan:
        nan = _arr(name, np.nan)
        assert checks.expect_close(nan, nan, max_ulp=0) is None
        assert checks.expect_close(nan, _arr(name, fin), max_ulp=huge) is not None
        assert checks.expect_close(_arr(name, _bases(name)[1]), nan, max_ulp=huge) is not None
        if has_inf:
            assert checks.expect_close(nan, _arr(name, np.inf), max_ulp=huge) is not None
        # a NaN of another payload (and sign) is still "both NaN"
        u = _uint_of(dt)
        other = (nan.view(u) ^ u(1)).view(dt)
        if np.isnan(other.astype(np.float64)).all() and (other.view(u) != nan.view(u)).all():
            assert checks.expect_close(nan, other, max_ulp=0) is None
    # the whole finite range is within the largest bound
    lo = float(_finite_ladder(name)[0]) if dtypes.bitwidth(name) <= 16 else -fin
    assert checks.expect_close(_arr(name, lo), _arr(name, fin), max_ulp=huge) is None


@pytest.mark.parametrize("name", ["complex<f32>", "complex<f64>"])
@pytest.mark.parametrize("max_ulp", [0, 1, 3])
def test_expect_close_complex_takes_the_larger_part(name: str, max_ulp: int) -> None:
    part = "f32" if name == "complex<f32>" else "f64"
    dt = dtypes.dtype_of(name)
    re, im = 1.5, -2.25
    inside_re, inside_im = _step(part, re, max_ulp), _step(part, im, -max_ulp)
    out_re, out_im = _step(part, re, max_ulp + 1), _step(part, im, max_ulp + 1)
    a = np.array([complex(re, im)], dt)
    ok = np.array([complex(inside_re, inside_im)], dt)
    assert checks.expect_close(a, ok, max_ulp) is None
    for bad in (complex(out_re, im), complex(re, out_im), complex(inside_re, out_im)):
        assert checks.expect_close(a, np.array([bad], dt), max_ulp) is not None, bad
    nan = np.array([complex(np.nan, im)], dt)
    assert checks.expect_close(nan, nan, 0) is None
    assert checks.expect_close(nan, a, U64_MAX - 1) is not None


# ------------------------------------------------------------------------------------------------
# expect_almost_eq: absolute tolerance
# ------------------------------------------------------------------------------------------------


def _tolerance_pairs(name: str):
    """(a, e, tol): a and e of the type with |a - e| == tol exactly (in f64)."""
    ladder = _finite_ladder(name) if dtypes.bitwidth(name) <= 16 else None
    for base in (1.0, 0.0):
        if ladder is not None and base not in ladder:
            continue
        for k in (1, 3):
            try:
                other = _step(name, base, k)
            except IndexError:
                continue
            yield base, other, other - base


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_expect_almost_eq_tolerance_edge(name: str) -> None:
    checked = 0
    for a_, e_, tol in _tolerance_pairs(name):
        a, e = _arr(name, a_), _arr(name, e_)
        below = float(np.nextafter(tol, 0.0))
        assert checks.expect_almost_eq(a, e, tol) is None, (name, a_, e_, tol)
        assert checks.expect_almost_eq(e, a, tol) is None
        problem = checks.expect_almost_eq(a, e, below)
        assert problem is not None and "by more than" in problem, (name, a_, e_, below)
        assert checks.expect_almost_eq(e, a, below) is not None
        checked += 1
    assert checked >= 2


def test_expect_almost_eq_default_tolerance_is_1e_4() -> None:
    tol = 1e-4
    zero = np.zeros(1)
    assert checks.expect_almost_eq(zero, np.array([tol])) is None
    assert checks.expect_almost_eq(zero, np.array([np.nextafter(tol, 1.0)])) is not None
    assert checks.expect_almost_eq(np.array([-tol]), zero) is None
    assert checks.expect_almost_eq(np.array([np.nextafter(-tol, -1.0)]), zero) is not None


@pytest.mark.parametrize("name", FLOAT_NAMES)
def test_expect_almost_eq_non_finite(name: str) -> None:
    dt = dtypes.dtype_of(name)
    f64 = np.array([np.nan, np.inf, -np.inf]).astype(dt).astype(np.float64)
    if np.isnan(f64[0]):
        nan = _arr(name, np.nan)
        assert checks.expect_almost_eq(nan, nan) is None
        assert checks.expect_almost_eq(nan, _arr(name, 1.0), np.inf) is not None
        assert checks.expect_almost_eq(_arr(name, 1.0), nan, np.inf) is not None
    if np.isinf(f64[1]):
        inf = _arr(name, np.inf)
        assert checks.expect_almost_eq(inf, inf, 0.0) is None
        # upstream's areApproximatelyEqual: a non-finite value matches only itself, whatever the
        # tolerance (even an infinite one)
        for other in (0.0, 1.0, _max_finite(name), -np.inf):
            assert checks.expect_almost_eq(inf, _arr(name, other), np.inf) is not None, other
            assert checks.expect_almost_eq(_arr(name, other), inf, np.inf) is not None, other
    if np.signbit(np.array(-0.0).astype(dt).astype(np.float64)):
        assert checks.expect_almost_eq(_arr(name, -0.0), _arr(name, 0.0), 0.0) is None


@pytest.mark.parametrize("name", ["complex<f32>", "complex<f64>"])
def test_expect_almost_eq_complex_each_part(name: str) -> None:
    dt = dtypes.dtype_of(name)
    tol = 0.25
    a = np.array([1 + 1j], dt)
    assert checks.expect_almost_eq(a, np.array([1.25 + 0.75j], dt), tol) is None
    below = float(np.nextafter(tol, 0.0))
    assert checks.expect_almost_eq(a, np.array([1.25 + 1j], dt), below) is not None
    assert checks.expect_almost_eq(a, np.array([1 + 0.75j], dt), below) is not None
    # each part separately, not the modulus: 0.25 + 0.25j is 0.354 away but within 0.25 per part
    assert checks.expect_almost_eq(a, np.array([1.25 + 1.25j], dt), tol) is None


# ------------------------------------------------------------------------------------------------
# expect_eq: exact
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", FLOAT_NAMES + ["complex<f32>", "complex<f64>"])
def test_expect_eq_rejects_one_ulp(name: str) -> None:
    part = {"complex<f32>": "f32", "complex<f64>": "f64"}.get(name, name)
    up = _step(part, 1.0, 1)
    dt = dtypes.dtype_of(name)
    a = np.array([1.0, 1.0]).astype(dt)
    assert checks.expect_eq(a, a.copy()) is None
    assert checks.expect_eq(a, np.array([1.0, up]).astype(dt)) is not None
    if dtypes.is_complex(name):
        assert checks.expect_eq(a, np.array([1.0, complex(1.0, _step(part, 0.0, 1))], dt)) is not None


@pytest.mark.parametrize(
    "name", [n for n in dtypes.ELEMENT_TYPES if dtypes.is_int(n) or dtypes.is_bool(n)]
)
def test_expect_eq_integers_off_by_one(name: str) -> None:
    dt = dtypes.dtype_of(name)
    lo, hi = int(dtypes.min_value(name)), int(dtypes.max_value(name))
    a = np.array([lo, hi], dtype=object).astype(dt)
    assert checks.expect_eq(a, a.copy()) is None
    assert checks.expect_eq(a, np.array([lo + 1, hi], dtype=object).astype(dt)) is not None
    assert checks.expect_eq(a, np.array([lo, hi - 1], dtype=object).astype(dt)) is not None
    # the float-only checks fall back to exact comparison for integers
    assert checks.expect_almost_eq(a, np.array([lo, hi - 1], dtype=object).astype(dt), 10.0) is not None
    assert checks.expect_close(a, np.array([lo + 1, hi], dtype=object).astype(dt), 10) is not None


def test_shape_mismatch_is_reported() -> None:
    for check in (checks.expect_eq, checks.expect_almost_eq, checks.expect_close):
        assert "shapes differ" in check(np.zeros(2), np.zeros(3))


# ------------------------------------------------------------------------------------------------
# The ops, through the interpreter
# ------------------------------------------------------------------------------------------------


def _hex(name: str, x: float) -> str:
    dt = dtypes.dtype_of(name)
    bits = int(np.array([x]).astype(dt).view(_uint_of(dt))[0])
    width = max(1, (dtypes.bitwidth(name) + 3) // 4)
    return f"0x{bits:0{width}X}"


def _program(name: str, body: str) -> str:
    return f"func.func @main() {{\n{body}\n  func.return\n}}"


OP_TYPES = ["f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2", "f4E2M1FN"]


@pytest.mark.parametrize("name", OP_TYPES)
def test_check_expect_close_op_bounds(name: str) -> None:
    t = f"tensor<{name}>"
    for k in (1, 3):
        for steps, ok in ((k, True), (k + 1, False)):
            other = _step(name, 1.0, steps)
            body = (
                f"  %a = stablehlo.constant dense<{_hex(name, 1.0)}> : {t}\n"
                f"  %b = stablehlo.constant dense<{_hex(name, other)}> : {t}\n"
                f"  check.expect_close %a, %b, max_ulp_difference = {k} : {t}, {t}"
            )
            _expect_run(_program(name, body), ok, (name, k, steps))


@pytest.mark.parametrize("name", OP_TYPES)
def test_check_expect_almost_eq_ops_bounds(name: str) -> None:
    t = f"tensor<{name}>"
    other = _step(name, 1.0, 1)
    tol = other - 1.0
    for tolerance, ok in ((tol, True), (float(np.nextafter(tol, 0.0)), False)):
        tol_text = repr(tolerance)
        body = (
            f"  %a = stablehlo.constant dense<{_hex(name, 1.0)}> : {t}\n"
            f"  %b = stablehlo.constant dense<{_hex(name, other)}> : {t}\n"
            f"  check.expect_almost_eq %a, %b, tolerance = {tol_text} : {t}\n"
            f"  check.expect_almost_eq_const %a, dense<{_hex(name, other)}> : {t}, tolerance = {tol_text}"
        )
        failures = _run_failures(_program(name, body))
        assert len(failures) == (0 if ok else 2), (name, tolerance, failures)


@pytest.mark.parametrize("name", ["f32", "f16", "i8", "ui64", "i1"])
def test_check_expect_eq_ops(name: str) -> None:
    t = f"tensor<{name}>"
    if dtypes.is_float(name):
        a, b = _hex(name, 1.0), _hex(name, _step(name, 1.0, 1))
    elif name == "i1":
        a, b = "true", "false"
    else:
        a, b = str(int(dtypes.max_value(name))), str(int(dtypes.max_value(name)) - 1)
    same = (
        f"  %a = stablehlo.constant dense<{a}> : {t}\n"
        f"  %b = stablehlo.constant dense<{a}> : {t}\n"
        f"  check.expect_eq %a, %b : {t}\n"
        f"  check.expect_eq_const %a, dense<{a}> : {t}"
    )
    assert _run_failures(_program(name, same)) == []
    differ = same.replace(f"%b = stablehlo.constant dense<{a}>", f"%b = stablehlo.constant dense<{b}>")
    differ = differ.replace(f"expect_eq_const %a, dense<{a}>", f"expect_eq_const %a, dense<{b}>")
    assert len(_run_failures(_program(name, differ))) == 2


def _custom_call(target: str, name: str, a: float, b: float, result: str = "") -> str:
    t = f"tensor<{name}>"
    res = f"%r = " if result else ""
    ret = f" -> {result}" if result else " -> ()"
    return (
        f"  %a = stablehlo.constant dense<{_hex(name, a)}> : {t}\n"
        f"  %b = stablehlo.constant dense<{_hex(name, b)}> : {t}\n"
        f"  {res}stablehlo.custom_call @{target}(%a, %b) {{has_side_effect = true}} : ({t}, {t}){ret}"
    )


@pytest.mark.parametrize("name", ["f32", "f16", "bf16", "f64"])
def test_custom_call_check_expect_close_allows_3_ulp(name: str) -> None:
    assert _run_failures(_program(name, _custom_call("check.expect_close", name, 1.0, _step(name, 1.0, 3)))) == []
    assert len(_run_failures(_program(name, _custom_call("check.expect_close", name, 1.0, _step(name, 1.0, 4))))) == 1


def test_custom_call_check_expect_almost_eq_allows_1e_3() -> None:
    tol = 1e-3
    ok = _custom_call("check.expect_almost_eq", "f64", 0.0, tol)
    bad = _custom_call("check.expect_almost_eq", "f64", 0.0, float(np.nextafter(tol, 1.0)))
    assert _run_failures(_program("f64", ok)) == []
    assert len(_run_failures(_program("f64", bad))) == 1


def test_custom_call_check_eq_returns_i1_with_1e_4() -> None:
    tol = 1e-4
    for b, expected in ((tol, True), (float(np.nextafter(tol, 1.0)), False)):
        text = (
            "func.func @main() -> tensor<i1> {\n"
            + _custom_call("check.eq", "f64", 0.0, b, "tensor<i1>")
            + "\n  func.return %r : tensor<i1>\n}"
        )
        (r,) = Evaluator(parse(text)).call("main", [])
        assert bool(np.asarray(r)) is expected, b


def test_expect_serialized_eq_rejects_one_ulp(tmp_path: Path) -> None:
    one, up = _hex("f32", 1.0), _hex("f32", _step("f32", 1.0, 1))
    text = (
        "func.func @main() {\n"
        f"  %x = stablehlo.constant dense<{one}> : tensor<f32>\n"
        f"  %y = stablehlo.constant dense<{up}> : tensor<f32>\n"
        '  %p = interpreter.probe %x, probe_id = "p" : tensor<f32>\n'
        '  check.expect_serialized_eq %x, probe_id = "p" : tensor<f32>\n'
        '  check.expect_serialized_eq %y, probe_id = "p" : tensor<f32>\n'
        "  func.return\n}"
    )
    ev = Evaluator(parse(text))
    ev.probe_dir = str(tmp_path)  # type: ignore[attr-defined]
    try:
        ev.call("main", [])
    except InterpreterError:
        pass
    assert len(ev.failures) == 1, ev.failures


def _run_failures(text: str) -> list:
    ev = Evaluator(parse(text))
    try:
        ev.call("main", [])
    except InterpreterError:
        pass
    return list(ev.failures)


def _expect_run(text: str, ok: bool, what: object) -> None:
    if ok:
        run(text)
    else:
        with pytest.raises(InterpreterError, match="check failed"):
            run(text)


# ------------------------------------------------------------------------------------------------
# The CLI
# ------------------------------------------------------------------------------------------------


def _translate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.translate", "--interpret", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_failing_check_exit_status_and_message(tmp_path: Path) -> None:
    body = (
        "  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        f"  %b = stablehlo.constant dense<[1.0, {_hex('f32', _step('f32', 2.0, 2))}]> : tensor<2xf32>\n"
        "  check.expect_close %a, %b, max_ulp_difference = {k} : tensor<2xf32>, tensor<2xf32>"
    )
    bad = tmp_path / "bad.mlir"
    bad.write_text(_program("f32", body.replace("{k}", "1")))
    r = _translate(bad)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert f"{bad}:4:3: error: check failed in @main: check.expect_close" in r.stderr, r.stderr
    assert "by more than 1 ULP (largest difference: 2 ULP): at [1]" in r.stderr
    good = tmp_path / "good.mlir"
    good.write_text(_program("f32", body.replace("{k}", "2")))
    r = _translate(good)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert r.stderr == ""


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_expect_eq_compares_as_ieee_equality(dtype: type) -> None:
    """Upstream's evalExpectEqOp compares with APFloat's `==`: NaN equals nothing (not even itself),
    -0 equals +0."""
    from stablehlo_py.interpreter import checks

    nan = np.array([np.nan], dtype=dtype)
    assert checks.expect_eq(nan, nan) is not None
    assert checks.expect_eq(np.array([-0.0], dtype=dtype), np.array([0.0], dtype=dtype)) is None
    assert checks.expect_eq(np.array([1.0, 2.0], dtype=dtype), np.array([1.0, 2.0], dtype=dtype)) is None
