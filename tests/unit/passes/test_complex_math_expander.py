"""`stablehlo-complex-math-expander`: the expanded programs compute what the complex ops compute.

Each of log_plus_one, sqrt, log and exponential on complex64 and complex128 is run by the
interpreter before and after the pass on edge values (0, subnormal, tiny, 1 +- eps, huge,
sqrt(largest), largest, inf, both signs, all combinations), on values with |z| near 1 and on random
values over the whole exponent range, and the results agree to a few ulps of |w| (the interpreter
computes the original op in double precision).  Where the interpreter's formula for the original
op is itself inaccurate (its log_plus_one is log(z + 1), which loses everything for tiny z and near
x = -y*y/2) the expansion is checked against a reference computed exactly with `decimal`.

Special values are upstream's (functional_algorithms'), not C99 Annex G's, and are checked as
such: a nan component in gives nan out; exp of an infinite real part with a non-finite imaginary
part is nan; sqrt takes sgn(-0.0) = +1 (sqrt(-4 - 0j) = 2j).

The pass itself: ops with a non-default result_accuracy, real-typed ops and other ops are left
alone; dynamic shapes use chlo.constant_like; ops in nested regions are expanded with their
constants hoisted to the function's entry; locations are carried; the CLI runs it.
"""

from __future__ import annotations

import math
import re
import subprocess
from decimal import Decimal, localcontext
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_complex_math_expander import CONFIG, patterns

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.printer import print_module
from stablehlo_py.ir.verify import verify
from tests.unit.passes.helpers import run_opt

PASS = "stablehlo-complex-math-expander"
OPS = ("log_plus_one", "sqrt", "log", "exponential")
TYPES = {"f32": (np.float32, np.complex64), "f64": (np.float64, np.complex128)}
ULPS = 8
"""Largest difference allowed, in units of the element type's epsilon times |w|."""


def _program(op: str, t: str, shape: str) -> str:
    ty = f"tensor<{shape}complex<{t}>>"
    return f"""func.func @main(%z: {ty}) -> {ty} {{
  %r = stablehlo.{op} %z : {ty}
  return %r : {ty}
}}"""


def _expanded(text: str) -> object:
    module = run_pipeline(parse(text), [(PASS, {})])
    verify(module)
    return module


def _both(op: str, t: str, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the original op's result, the expanded program's result), each from a fresh parse."""
    text = _program(op, t, f"{z.size}x")
    with np.errstate(all="ignore"):
        original = run(text, z)[0]
        expanded = run(_expanded(text), z)[0]  # type: ignore[arg-type]
    return original, expanded


def _assert_close(got: np.ndarray, ref: np.ndarray, z: np.ndarray, eps: float) -> None:
    """Component-wise: the same nan and signed-inf positions; finite parts within ULPS * eps of
    |ref| (of the finite component when the other is infinite), or a few of the smallest
    subnormals apart."""
    tiny = float(np.finfo(got.real.dtype).smallest_subnormal)
    with np.errstate(all="ignore"):
        mag = np.abs(ref.astype(np.complex128))
    for part in ("real", "imag"):
        g = getattr(got, part).astype(np.float64)
        r = getattr(ref, part).astype(np.float64)
        bad = np.isnan(g) != np.isnan(r)
        inf = np.isinf(g) | np.isinf(r)
        bad |= inf & (g != r)
        fin = np.isfinite(g) & np.isfinite(r)
        scale = np.where(np.isfinite(mag), mag, np.abs(r))
        bad |= fin & (np.abs(g - r) > ULPS * eps * scale + 4 * tiny)
        if bad.any():
            i = np.flatnonzero(bad)[:5]
            pytest.fail(f"{part} parts differ at z = {z[i]}: expanded {got[i]}, reference {ref[i]}")


def _edge_values(real: type) -> np.ndarray:
    fi = np.finfo(real)
    eps = float(fi.eps)
    mags = [
        0.0,
        float(fi.smallest_subnormal),
        float(fi.tiny),
        1e-5,
        0.5,
        1 - eps,
        1.0,
        1 + 2 * eps,
        2.0,
        1e5,
        float(np.sqrt(fi.max)),
        float(fi.max),
        math.inf,
    ]
    parts = np.array(mags + [-m for m in mags if m != 0.0], dtype=real)
    return parts


def _grid(real: type, cplx: type) -> np.ndarray:
    parts = _edge_values(real)
    re, im = np.meshgrid(parts, parts)
    return _complex(re.ravel(), im.ravel(), cplx)


def _complex(re: np.ndarray, im: np.ndarray, cplx: type) -> np.ndarray:
    """Complex values from their parts (`re + 1j * im` would make inf * 1j a nan real part)."""
    z = np.empty(np.shape(re), dtype=cplx)
    z.real, z.imag = re, im
    return z


def _near_unit_circle(real: type, cplx: type, rng: np.random.Generator) -> np.ndarray:
    eps = float(np.finfo(real).eps)
    ang = rng.uniform(-np.pi, np.pi, 200)
    rad = 1 + rng.choice([-1, 1], 200) * 10.0 ** rng.uniform(np.log10(eps), -1, 200)
    return (rad * np.exp(1j * ang)).astype(cplx)


def _random(real: type, cplx: type, rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    mag = 10.0 ** rng.uniform(lo, hi, 400)
    return (mag * np.exp(1j * rng.uniform(-np.pi, np.pi, 400))).astype(cplx)


def _exponent_range(op: str, real: type) -> tuple[float, float]:
    """The magnitudes to sample: the whole range, but exp only where it neither overflows nor
    underflows away (those are in the edge grid)."""
    top = float(np.log10(np.finfo(real).max)) - 1
    if op == "exponential":
        return -3.0, float(np.log10(np.log(np.finfo(real).max)))
    return -top, top


@pytest.mark.parametrize("t", sorted(TYPES))
@pytest.mark.parametrize("op", OPS)
def test_expansion_computes_the_op(op: str, t: str) -> None:
    real, cplx = TYPES[t]
    rng = np.random.default_rng(sum(map(ord, op + t)))
    z = np.concatenate(
        [
            _grid(real, cplx),
            _near_unit_circle(real, cplx, rng),
            _random(real, cplx, rng, *_exponent_range(op, real)),
        ]
    )
    if op == "log_plus_one":
        # upstream's limit: 0.5 * log((x + 1)**2 + y**2) where both squares underflow (x = -1 and
        # a tiny y give -inf; see test_log_plus_one_near_minus_one_underflows_as_upstream's)
        tiny = float(np.finfo(real).tiny)
        with np.errstate(all="ignore"):
            xp1 = z.real.astype(np.float64) + 1
        z = z[~(np.hypot(xp1, z.imag.astype(np.float64)) < 2 * math.sqrt(tiny))]
    if op == "exponential":
        # exp of an infinite real part with a non-finite imaginary part: upstream's nan, not C99's
        # (see test_exponential_special_values)
        z = z[~(np.isinf(z.real) & ~np.isfinite(z.imag))]
    original, expanded = _both(op, t, z)
    assert expanded.dtype == original.dtype == cplx
    if op == "log_plus_one":
        # the interpreter computes log(z + 1), whose real part loses everything for tiny z and
        # near x = -y*y/2: the reference real part is the exact one there
        original = original.astype(np.complex128)
        for i in np.flatnonzero(np.isfinite(z)):
            original[i] = complex(
                _exact_log1p_real(float(z[i].real), float(z[i].imag)), original[i].imag
            )
    _assert_close(expanded, original, z, float(np.finfo(real).eps))


# ------------------------------------------------------------------------- exact references
def _half_log1p(s: Decimal) -> float:
    """0.5 * log1p(s) of an exact ``s``, to about 40 digits."""
    with localcontext() as ctx:
        ctx.prec = 60
        if abs(s) < Decimal("1e-3"):
            # log1p(s) = s - s^2/2 + s^3/3 - ..., to 40 digits
            term, total, k = s, Decimal(0), 1
            while k < 60:
                total += term / k
                term *= -s
                k += 1
            return float(total / 2)
        return float((1 + s).ln() / 2)


def _exact_log1p_real(x: float, y: float) -> float:
    """0.5 * log((1 + x)**2 + y**2) = 0.5 * log1p(2x + x*x + y*y), the argument summed exactly."""
    with localcontext() as ctx:
        ctx.prec = 1300
        dx, dy = Decimal(x), Decimal(y)
        return _half_log1p(2 * dx + dx * dx + dy * dy)


def _exact_log_real(x: float, y: float) -> float:
    """log(hypot(x, y)) = 0.5 * log(x*x + y*y), the square summed exactly."""
    with localcontext() as ctx:
        ctx.prec = 1300
        dx, dy = Decimal(x), Decimal(y)
        return _half_log1p(dx * dx + dy * dy - 1)


def _assert_parts_close(got: np.ndarray, want: np.ndarray, z: np.ndarray, eps: float) -> None:
    """Each component within ULPS * eps of itself (relative, component-wise)."""
    for part in ("real", "imag"):
        g = getattr(got, part).astype(np.float64)
        w = getattr(want, part).astype(np.float64)
        bad = np.abs(g - w) > ULPS * eps * np.abs(w)
        if bad.any():
            i = np.flatnonzero(bad)[:5]
            pytest.fail(f"{part} parts differ at z = {z[i]}: expanded {got[i]}, exact {want[i]}")


@pytest.mark.parametrize("t", sorted(TYPES))
def test_log_plus_one_is_accurate_where_log_of_z_plus_one_is_not(t: str) -> None:
    real, cplx = TYPES[t]
    rng = np.random.default_rng(7)
    lo = float(np.log10(np.finfo(real).tiny)) + 2
    tiny = _random(real, cplx, rng, lo, -3)[:150]
    # x close to -y*y/2 (|1 + z| close to 1: catastrophic cancellation in the real part)
    y = (10.0 ** rng.uniform(-3, -0.5, 150)).astype(real)
    x = (-(y.astype(np.float64) ** 2) / 2 * (1 + rng.uniform(-1e-3, 1e-3, 150))).astype(real)
    z = np.concatenate([tiny, _complex(x, y, cplx)])
    _, expanded = _both("log_plus_one", t, z)
    want = np.array(
        [
            complex(
                _exact_log1p_real(float(v.real), float(v.imag)),
                math.atan2(float(v.imag), 1.0 + float(v.real)),
            )
            for v in z
        ]
    )
    _assert_parts_close(expanded, want, z, float(np.finfo(real).eps))


@pytest.mark.parametrize("t", sorted(TYPES))
def test_log_plus_one_near_minus_one_underflows_as_upstreams(t: str) -> None:
    """upstream's expansion takes 0.5 * log((x + 1)**2 + y**2) when |x + 1| + |y| < 0.2; for
    x = -1 and |y| below sqrt(smallest normal) the squares underflow and the real part is -inf
    (log|y| is finite).  A bigger y is fine."""
    real, cplx = TYPES[t]
    tiny = float(np.finfo(real).tiny)
    z = _complex(np.array([-1.0, -1.0]), np.array([tiny, 1e-3]), cplx)
    _, got = _both("log_plus_one", t, z)
    assert got[0].real == -math.inf and got[0].imag == pytest.approx(math.pi / 2)
    assert got[1].real == pytest.approx(math.log(1e-3), rel=1e-6)


@pytest.mark.parametrize("t", sorted(TYPES))
def test_log_real_part_is_accurate_near_the_unit_circle(t: str) -> None:
    real, cplx = TYPES[t]
    rng = np.random.default_rng(11)
    z = _near_unit_circle(real, cplx, rng)
    _, expanded = _both("log", t, z)
    want = np.array(
        [
            complex(
                _exact_log_real(float(v.real), float(v.imag)),
                math.atan2(float(v.imag), float(v.real)),
            )
            for v in z
        ]
    )
    _assert_parts_close(expanded, want, z, float(np.finfo(real).eps))


# -------------------------------------------------------------------------- special values
@pytest.mark.parametrize("t", sorted(TYPES))
@pytest.mark.parametrize("op", OPS)
def test_nan_in_gives_nan_out(op: str, t: str) -> None:
    real, cplx = TYPES[t]
    parts = np.concatenate([_edge_values(real), [np.nan]]).astype(real)
    re, im = np.meshgrid(parts, parts)
    keep = np.isnan(re) | np.isnan(im)
    z = _complex(re[keep], im[keep], cplx)
    _, expanded = _both(op, t, z)
    assert (np.isnan(expanded.real) | np.isnan(expanded.imag)).all()


@pytest.mark.parametrize("t", sorted(TYPES))
def test_exponential_special_values(t: str) -> None:
    real, cplx = TYPES[t]
    inf = math.inf
    z = _complex(np.array([inf, -inf, inf, inf]), np.array([0.0, 1.0, 1.0, inf]), cplx)
    _, got = _both("exponential", t, z)
    assert got[0] == complex(inf, 0.0)  # y == 0: imaginary part 0, not inf * 0
    assert got[1] == 0  # exp(-inf) * cis(1)
    assert np.isinf(got[2].real) and np.isinf(got[2].imag)
    assert np.isnan(got[3].real) and np.isnan(got[3].imag)  # upstream's, C99 has (+-inf, nan)
    # exp(x) overflows while exp(x/2) * cos(y) * exp(x/2) does not
    x = float(np.log(np.finfo(real).max)) + 0.5
    y = math.pi / 2 - float(np.finfo(real).eps) * 2
    _, got = _both("exponential", t, _complex(np.array([x]), np.array([y]), cplx))
    assert np.isfinite(got[0].real) and np.isinf(got[0].imag)


@pytest.mark.parametrize("t", sorted(TYPES))
def test_branch_cut_signs(t: str) -> None:
    """On the negative real axis: log and log_plus_one follow atan2's sign of zero; sqrt takes
    sgn(y) = +1 for y = -0.0 (upstream's definition, where C99 gives -2j)."""
    _, cplx = TYPES[t]
    z = _complex(np.array([-4.0, -4.0]), np.array([-0.0, 0.0]), cplx)
    _, log = _both("log", t, z)
    assert log[0].imag == pytest.approx(-math.pi) and log[1].imag == pytest.approx(math.pi)
    _, log1p = _both("log_plus_one", t, z)
    assert log1p[0].imag == pytest.approx(-math.pi) and log1p[1].imag == pytest.approx(math.pi)
    _, sq = _both("sqrt", t, z)
    assert sq[0] == 2j and sq[1] == 2j


@pytest.mark.parametrize("t", sorted(TYPES))
def test_sqrt_where_u_underflows_or_overflows(t: str) -> None:
    """u = sqrt((hypot(x, y) + |x|) / 2) is 0 for (0, smallest subnormal) and inf near the largest
    value; the rescaled formulas give the exact result there (and for |x| == |y|)."""
    real, cplx = TYPES[t]
    fi = np.finfo(real)
    sub, big = float(fi.smallest_subnormal), float(fi.max)
    re = np.array([0.0, -0.0, sub, big, -big, big / 2, 0.0])
    im = np.array([sub, -sub, sub, big, big / 2, -big, big])
    z = _complex(re, im, cplx)
    _, got = _both("sqrt", t, z)
    with localcontext() as ctx:
        ctx.prec = 60
        for v, g in zip(z, got, strict=True):
            x, y = Decimal(float(v.real)), Decimal(float(v.imag))
            u = (((x * x + y * y).sqrt() + abs(x)) / 2).sqrt()
            want = (u, y / (2 * u)) if x >= 0 else (abs(y) / (2 * u), u.copy_sign(y))
            for part, w in zip((g.real, g.imag), want, strict=True):
                assert abs(float(part) - float(w)) <= ULPS * float(fi.eps) * abs(float(w)), v


# ---------------------------------------------------------------------------- the pass itself
def _names(module: object) -> list[str]:
    return [op.name for op in module.walk()]  # type: ignore[attr-defined]


def test_default_accuracy_written_out_is_expanded_other_accuracies_are_not() -> None:
    text = """func.func @main(%z: tensor<2xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %a = stablehlo.sqrt %z {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<2xcomplex<f32>>
  %b = stablehlo.sqrt %z {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<2xcomplex<f32>>
  return %a, %b : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
}"""
    module = _expanded(text)
    sqrts = [op for op in module.walk() if op.name == "stablehlo.sqrt"]  # type: ignore[attr-defined]
    complex_sqrts = [op for op in sqrts if "complex" in str(op.operands[0].type)]
    assert len(complex_sqrts) == 1
    assert "HIGHEST" in print_module(module)  # type: ignore[arg-type]
    assert len(sqrts) > 1  # the expansion's own (real) square roots


def test_real_ops_and_other_ops_are_untouched() -> None:
    text = """func.func @main(%x: tensor<3xf32>, %z: tensor<3xcomplex<f64>>) -> (tensor<3xf32>, tensor<3xcomplex<f64>>) {
  %a = stablehlo.log %x : tensor<3xf32>
  %b = stablehlo.sqrt %a : tensor<3xf32>
  %c = stablehlo.tanh %z : tensor<3xcomplex<f64>>
  return %b, %c : tensor<3xf32>, tensor<3xcomplex<f64>>
}"""
    before = print_module(parse(text))
    assert print_module(_expanded(text)) == before  # type: ignore[arg-type]


def test_every_expanded_op_is_gone_and_constants_are_shared() -> None:
    text = """func.func @main(%z: tensor<2x3xcomplex<f64>>) -> tensor<2x3xcomplex<f64>> {
  %a = stablehlo.log %z : tensor<2x3xcomplex<f64>>
  %b = stablehlo.log_plus_one %a : tensor<2x3xcomplex<f64>>
  %c = stablehlo.sqrt %b : tensor<2x3xcomplex<f64>>
  %d = stablehlo.exponential %c : tensor<2x3xcomplex<f64>>
  return %d : tensor<2x3xcomplex<f64>>
}"""
    module = _expanded(text)
    for op in module.walk():  # type: ignore[attr-defined]
        if op.name in {f"stablehlo.{n}" for n in OPS}:
            assert "complex" not in str(op.operands[0].type), op.name
    func = next(op for op in module.walk() if op.name == "func.func")  # type: ignore[attr-defined]
    ops = list(func.body.block.ops)
    n_const = sum(op.name == "stablehlo.constant" for op in ops)
    assert all(op.name == "stablehlo.constant" for op in ops[:n_const])  # hoisted to the start
    values = [str(op.properties["value"]) for op in ops[:n_const]]
    assert len(values) == len(set(values))  # uniqued
    z = np.array([[1 + 2j, -0.5 + 1e-3j, 3 - 4j], [1e-8 + 0j, -2 - 1j, 0.25j]])
    want = run(text, z)[0]
    got = run(module, z)[0]  # type: ignore[arg-type]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_dynamic_shapes_use_constant_like() -> None:
    text = _program("log", "f32", "?x")
    module = _expanded(text)
    names = _names(module)
    assert "chlo.constant_like" in names and "stablehlo.constant" not in names
    z = np.array([0.5 + 0.5j, -3 + 1j, 1e-20 + 0j], dtype=np.complex64)
    np.testing.assert_allclose(
        run(module, z)[0],  # type: ignore[arg-type]
        run(text, z)[0],
        rtol=1e-6,
    )


def test_ops_in_nested_regions_are_expanded_with_constants_at_the_function_start() -> None:
    text = """func.func @main(%z: tensor<4xcomplex<f32>>) -> tensor<complex<f32>> {
  %init = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%z init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
  %c = stablehlo.constant dense<true> : tensor<i1>
  %w = "stablehlo.if"(%c) ({
    %e = stablehlo.exponential %r : tensor<complex<f32>>
    stablehlo.return %e : tensor<complex<f32>>
  }, {
    stablehlo.return %r : tensor<complex<f32>>
  }) : (tensor<i1>) -> tensor<complex<f32>>
  return %w : tensor<complex<f32>>
}"""
    module = _expanded(text)
    func = next(op for op in module.walk() if op.name == "func.func")  # type: ignore[attr-defined]
    if_op = next(op for op in module.walk() if op.name == "stablehlo.if")  # type: ignore[attr-defined]
    branch = [op.name for op in if_op.regions[0].block.ops]
    assert "stablehlo.constant" not in branch and "stablehlo.cosine" in branch
    first = list(func.body.block.ops)[:3]
    assert all(op.name == "stablehlo.constant" for op in first)
    z = np.array([0.25 + 1j, 1 - 0.5j, -0.5 + 0j, 0.1 + 0.1j], dtype=np.complex64)
    np.testing.assert_allclose(run(module, z)[0], run(text, z)[0], rtol=1e-6)  # type: ignore[arg-type]


def test_patterns_and_config_are_upstreams() -> None:
    assert [p.root for p in patterns()] == [f"stablehlo.{n}" for n in OPS]  # type: ignore[attr-defined]
    assert CONFIG.top_down and CONFIG.max_iterations == 10


def _opt(args: list[str], text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return run_opt(*args, str(path))


def _resolved_lines(text: str) -> list[str]:
    """The printed ops with each `loc(#locN)` alias replaced by the location it names."""
    aliases = dict(re.findall(r"^(#loc\d*) = (loc\(.*\))$", text, re.MULTILINE))
    lines = [ln for ln in text.splitlines() if not ln.startswith("#loc")]
    return [re.sub(r"loc\((#loc\d*)\)", lambda m: aliases[m.group(1)], ln) for ln in lines]


def _expanded_with_locations(text: str, tmp_path: Path) -> list[str]:
    """`stablehlo-opt --PASS --mlir-print-debuginfo` of ``text`` (which must succeed): the printed
    lines, locations resolved."""
    r = _opt([f"--{PASS}", "--mlir-print-debuginfo"], text, tmp_path)
    assert r.returncode == 0, r.stderr
    return _resolved_lines(r.stdout)


def test_cli_expands_and_carries_the_location(tmp_path: Path) -> None:
    """The expansion's ops take the expanded op's location; a constant merged with an equal one
    of another expansion is at an unknown location (MLIR's OperationFolder)."""
    one = """func.func @main(%z: tensor<complex<f32>>) -> tensor<complex<f32>> {
  %r = stablehlo.exponential %z : tensor<complex<f32>> loc("a")
  return %r : tensor<complex<f32>>
}"""
    lines = _expanded_with_locations(one, tmp_path)
    body = [ln for ln in lines if "stablehlo." in ln and "return" not in ln]
    assert len(body) > 10 and all('loc("a")' in ln for ln in body)
    two = """func.func @main(%z: tensor<complex<f32>>) -> tensor<complex<f32>> {
  %r = stablehlo.exponential %z : tensor<complex<f32>> loc("a")
  %s = stablehlo.exponential %r : tensor<complex<f32>> loc("b")
  return %s : tensor<complex<f32>>
}"""
    lines = _expanded_with_locations(two, tmp_path)
    const = [ln for ln in lines if "stablehlo.constant" in ln]
    assert len(const) == 3 and all("loc(unknown)" in ln for ln in const)
    assert any("stablehlo.cosine" in ln and 'loc("b")' in ln for ln in lines)
    r = _opt([f"--{PASS}"], one, tmp_path)
    assert r.returncode == 0 and "stablehlo.exponential %arg0 :" not in r.stdout
