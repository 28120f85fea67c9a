"""stablehlo-legalize-deprecated-ops (upstream's StablehloLegalizeDeprecatedOps.cpp): each deprecated
op becomes its replacement and computes the same (through the interpreter); map and rng fail with
upstream's words unless fail-on-unused=false; a failed pass leaves the module unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.unit.passes.helpers import run_opt

PASS = "stablehlo-legalize-deprecated-ops"

PROGRAM = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<3xi32>) -> (tensor<2x4xf32>, tensor<5x3xi32>, tensor<2xf32>, tensor<3xi32>) {
  %0 = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("the_dot")
  %1 = "stablehlo.broadcast"(%v) {broadcast_sizes = array<i64: 5>} : (tensor<3xi32>) -> tensor<5x3xi32>
  %2 = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"} : (tensor<2x3xf32>) -> tensor<2xf32>
  %3 = "stablehlo.unary_einsum"(%v) {einsum_config = "a->a"} : (tensor<3xi32>) -> tensor<3xi32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<5x3xi32>, tensor<2xf32>, tensor<3xi32>
}
"""


def _legalize(text: str, **options: str) -> str:
    return print_ir(run_pipeline(parse(text, "d.mlir"), [(PASS, options)]))


def test_replacements_compute_the_same() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    v = np.array([7, -2, 5], np.int32)
    before = run(parse(PROGRAM), a, b, v)
    out = _legalize(PROGRAM)
    for gone in ("stablehlo.dot ", "stablehlo.broadcast ", "unary_einsum"):
        assert gone not in out
    assert (
        "stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], "
        "precision = [HIGHEST, DEFAULT]" in out
    )
    assert (
        "stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xi32>) -> tensor<5x3xi32>" in out
    )
    assert "%c = stablehlo.constant dense<1> : tensor<i32>" in out
    assert 'stablehlo.einsum %c, %arg2, config = ",a->a"' in out
    after = run(parse(out), a, b, v)
    for x, y in zip(before, after, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_location_is_kept() -> None:
    m = run_pipeline(parse(PROGRAM, "d.mlir"), [(PASS, {})])
    out = print_ir(m, debuginfo=True)
    (line,) = [ln for ln in out.splitlines() if "stablehlo.dot_general" in ln]
    assert line.endswith('loc("the_dot")') or "loc(#loc" in line
    if "loc(#loc" in line:
        alias = line.rsplit("loc(", 1)[1].rstrip(")")
        assert f'{alias} = loc("the_dot")' in out


def test_create_token_and_cross_replica_sum() -> None:
    out = _legalize(
        """
func.func @main(%x: tensor<4xf32>) -> (!stablehlo.token, tensor<4xf32>) {
  %0 = "stablehlo.create_token"() : () -> !stablehlo.token
  %1 = "stablehlo.cross-replica-sum"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : !stablehlo.token, tensor<4xf32>
}
"""
    )
    assert "stablehlo.after_all  : !stablehlo.token" in out
    assert (
        '"stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}>'
        in out
    )
    assert "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):" in out
    assert "stablehlo.add %arg1, %arg2 : tensor<f32>" in out
    # the result verifies and reads back the same
    assert print_ir(parse(out)) == out


RNG = """
func.func @main(%lo: tensor<f32>, %hi: tensor<f32>, %x: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> (tensor<2xf32>, tensor<2x4xf32>) {
  %shape = stablehlo.constant dense<[2]> : tensor<1xi64>
  %0 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<2xf32>
  %1 = "stablehlo.dot"(%x, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0, %1 : tensor<2xf32>, tensor<2x4xf32>
}
"""


def test_rng_fails_on_unused_and_leaves_the_module_unchanged() -> None:
    m = parse(RNG, "r.mlir")
    before = print_ir(m)
    with pytest.raises(StableHLOError) as e:
        run_pipeline(m, [(PASS, {})])
    msg = str(e.value)
    assert "failed to legalize operation 'stablehlo.rng' that was explicitly marked illegal" in msg
    assert "r.mlir:4:" in msg
    assert print_ir(m) == before  # the dot after it was not rewritten either


def test_fail_on_unused_false_keeps_rng_and_map() -> None:
    out = _legalize(RNG, **{"fail-on-unused": "false"})
    assert "stablehlo.rng" in out
    assert "stablehlo.dot_general" in out


def test_unary_einsum_of_unsupported_element_type_is_a_clear_error() -> None:
    text = """
func.func @main(%x: tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x!quant.uniform<i8:f32, 0.5>> {
  %0 = "stablehlo.unary_einsum"(%x) {einsum_config = "a->a"} : (tensor<3x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<3x!quant.uniform<i8:f32, 0.5>>
}
"""
    with pytest.raises(StableHLOError, match="getScalarOfType supports float, integer and complex"):
        _legalize(text)


def test_cli_reports_the_error_without_traceback(tmp_path: Path) -> None:
    f = tmp_path / "r.mlir"
    f.write_text(RNG)
    p = run_opt(f"--{PASS}", str(f))
    assert p.returncode != 0
    assert "failed to legalize operation 'stablehlo.rng'" in p.stderr
    assert "Traceback" not in p.stderr
    p = run_opt(f"--{PASS}=fail-on-unused=false", str(f))
    assert p.returncode == 0, p.stderr
    assert "stablehlo.dot_general" in p.stdout
