"""`stablehlo-legalize-quant-to-math`: a quantized program and its lowering to integer/float math
compute the same storage values (the interpreter runs the quantized program as the spec's
dequantize -> op -> quantize), no quantized type is left, and a program the pass cannot lower
gets upstream's diagnostics from the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.printer import print_module
from tests.unit.passes.helpers import run_opt

PASS = "stablehlo-legalize-quant-to-math"

QA = "!quant.uniform<i8:f32, 5.000000e-01:-3>"
QB = "!quant.uniform<i8:f32, 2.500000e-01:4>"
QB0 = "!quant.uniform<i8:f32, 2.500000e-01>"
QI32 = "!quant.uniform<i32:f32, 1.250000e-01:7>"
QAXIS0 = "!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>"
QAXIS = "!quant.uniform<i8:f32:1, {5.000000e-01:1,2.500000e-01:-2}>"
QAXIS2 = "!quant.uniform<i8:f32:1, {2.500000e-01:3,1.000000e+00:0}>"

# name -> (program, argument shapes, largest difference in storage units)
# The dot-like lowerings rescale an i32 accumulator in f32 and convert it back toward zero, as
# upstream's do: one storage unit of difference from rounding the exact value to nearest.
PROGRAMS: dict[str, tuple[str, list[tuple[int, ...]], int]] = {
    "add_requantizes_both_sides": (
        f"""
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xi8> {{
  %a = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x{QA}>
  %b = stablehlo.uniform_quantize %y : (tensor<2x3xf32>) -> tensor<2x3x{QB}>
  %s = stablehlo.add %a, %b : (tensor<2x3x{QA}>, tensor<2x3x{QB}>) -> tensor<2x3x{QB}>
  %r = stablehlo.bitcast_convert %s : (tensor<2x3x{QB}>) -> tensor<2x3xi8>
  return %r : tensor<2x3xi8>
}}""",
        [(2, 3), (2, 3)],
        1,
    ),
    "requantize_per_axis": (
        f"""
func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xi8> {{
  %a = stablehlo.uniform_quantize %x : (tensor<3x2xf32>) -> tensor<3x2x{QAXIS}>
  %b = stablehlo.uniform_quantize %a : (tensor<3x2x{QAXIS}>) -> tensor<3x2x{QAXIS2}>
  %r = stablehlo.bitcast_convert %b : (tensor<3x2x{QAXIS2}>) -> tensor<3x2xi8>
  return %r : tensor<3x2xi8>
}}""",
        [(3, 2)],
        0,
    ),
    "dot_general_with_zero_points": (
        f"""
func.func @main(%x: tensor<2x4x3xf32>, %y: tensor<2x3x5xf32>) -> tensor<2x4x5xi32> {{
  %a = stablehlo.uniform_quantize %x : (tensor<2x4x3xf32>) -> tensor<2x4x3x{QA}>
  %b = stablehlo.uniform_quantize %y : (tensor<2x3x5xf32>) -> tensor<2x3x5x{QB0}>
  %d = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]
      : (tensor<2x4x3x{QA}>, tensor<2x3x5x{QB0}>) -> tensor<2x4x5x{QI32}>
  %r = stablehlo.bitcast_convert %d : (tensor<2x4x5x{QI32}>) -> tensor<2x4x5xi32>
  return %r : tensor<2x4x5xi32>
}}""",
        [(2, 4, 3), (2, 3, 5)],
        1,
    ),
    "dot_dynamic": (
        f"""
func.func @main(%x: tensor<?x3xf32>, %y: tensor<3x?xf32>) -> tensor<?x?xi32> {{
  %a = stablehlo.uniform_quantize %x : (tensor<?x3xf32>) -> tensor<?x3x{QA}>
  %b = stablehlo.uniform_quantize %y : (tensor<3x?xf32>) -> tensor<3x?x{QB}>
  %d = "stablehlo.dot"(%a, %b) : (tensor<?x3x{QA}>, tensor<3x?x{QB}>) -> tensor<?x?x{QI32}>
  %r = stablehlo.bitcast_convert %d : (tensor<?x?x{QI32}>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}}""",
        [(4, 3), (3, 2)],
        1,
    ),
    "convolution_nhwc_padded": (
        f"""
func.func @main(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x4x4x3xi32> {{
  %a = stablehlo.uniform_quantize %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2x{QA}>
  %b = stablehlo.uniform_quantize %w : (tensor<3x3x2x3xf32>)
      -> tensor<3x3x2x3x!quant.uniform<i8:f32, 2.500000e-01>>
  %c = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {{stride = [1, 1], pad = [[1, 1], [1, 1]]}}
      {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
      : (tensor<1x4x4x2x{QA}>, tensor<3x3x2x3x!quant.uniform<i8:f32, 2.500000e-01>>)
      -> tensor<1x4x4x3x{QI32}>
  %r = stablehlo.bitcast_convert %c : (tensor<1x4x4x3x{QI32}>) -> tensor<1x4x4x3xi32>
  return %r : tensor<1x4x4x3xi32>
}}""",
        [(1, 4, 4, 2), (3, 3, 2, 3)],
        1,
    ),
    "hybrid_dot_general_per_channel": (
        f"""
func.func @main(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>) -> tensor<3x2xf32> {{
  %b = stablehlo.uniform_quantize %w : (tensor<2x2xf32>) -> tensor<2x2x{QAXIS0}>
  %d = stablehlo.dot_general %x, %b, contracting_dims = [1] x [0]
      : (tensor<3x2xf32>, tensor<2x2x{QAXIS0}>) -> tensor<3x2xf32>
  return %d : tensor<3x2xf32>
}}""",
        [(3, 2), (2, 2)],
        0,
    ),
    "fallback_through_floats": (
        f"""
func.func @main(%x: tensor<5xf32>, %y: tensor<5xf32>) -> (tensor<5xi8>, tensor<5xi1>) {{
  %a = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x{QA}>
  %b = stablehlo.uniform_quantize %y : (tensor<5xf32>) -> tensor<5x{QA}>
  %m = stablehlo.multiply %a, %b : tensor<5x{QA}>
  %t = stablehlo.tanh %m : tensor<5x{QA}>
  %c = stablehlo.compare LT, %a, %b : (tensor<5x{QA}>, tensor<5x{QA}>) -> tensor<5xi1>
  %r = stablehlo.bitcast_convert %t : (tensor<5x{QA}>) -> tensor<5xi8>
  return %r, %c : tensor<5xi8>, tensor<5xi1>
}}""",
        [(5,), (5,)],
        0,
    ),
    "reduce_window_with_a_quantized_add_body": (
        f"""
func.func @main(%x: tensor<2x5xf32>, %z: tensor<f32>) -> tensor<2x4xi8> {{
  %a = stablehlo.uniform_quantize %x : (tensor<2x5xf32>) -> tensor<2x5x{QA}>
  %i = stablehlo.uniform_quantize %z : (tensor<f32>) -> tensor<{QA}>
  %r = "stablehlo.reduce_window"(%a, %i) ({{
  ^bb0(%p: tensor<{QA}>, %q: tensor<{QA}>):
    %s = stablehlo.add %p, %q : tensor<{QA}>
    stablehlo.return %s : tensor<{QA}>
  }}) {{window_dimensions = array<i64: 1, 2>}} : (tensor<2x5x{QA}>, tensor<{QA}>) -> tensor<2x4x{QA}>
  %o = stablehlo.bitcast_convert %r : (tensor<2x4x{QA}>) -> tensor<2x4xi8>
  return %o : tensor<2x4xi8>
}}""",
        [(2, 5), ()],
        0,
    ),
    "storage_moves_and_max": (
        f"""
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<6x2xi8> {{
  %a = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x{QA}>
  %b = stablehlo.uniform_quantize %y : (tensor<2x3xf32>) -> tensor<2x3x{QA}>
  %m = stablehlo.maximum %a, %b : tensor<2x3x{QA}>
  %c = stablehlo.concatenate %m, %a, dim = 0 : (tensor<2x3x{QA}>, tensor<2x3x{QA}>) -> tensor<4x3x{QA}>
  %s = stablehlo.reshape %c : (tensor<4x3x{QA}>) -> tensor<6x2x{QA}>
  %r = stablehlo.bitcast_convert %s : (tensor<6x2x{QA}>) -> tensor<6x2xi8>
  return %r : tensor<6x2xi8>
}}""",
        [(2, 3), (2, 3)],
        0,
    ),
}


def _lower(text: str) -> object:
    return run_pipeline(parse(text), [(PASS, {})])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lowered_program_computes_the_quantized_storage(name: str) -> None:
    text, shapes, tolerance = PROGRAMS[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    lowered = _lower(text)
    for _ in range(3):
        args = [rng.uniform(-6, 6, size=s).astype(np.float32) for s in shapes]
        native = run(text, *args)
        got = run(lowered, *args)  # type: ignore[arg-type]
        for n, g in zip(native, got, strict=True):
            assert n.shape == g.shape and n.dtype == g.dtype
            if n.dtype.kind == "f":
                np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-5)
            else:
                diff = np.abs(n.astype(np.int64) - g.astype(np.int64))
                assert int(diff.max(initial=0)) <= tolerance, (n, g)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_quantized_type_is_left(name: str) -> None:
    lowered = _lower(PROGRAMS[name][0])
    assert "quant.uniform" not in print_module(lowered)


def _opt(text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "in.mlir"
    path.write_text(text)
    return run_opt(f"--{PASS}", str(path))


def test_requantize_across_axes_reports_both_errors(tmp_path: Path) -> None:
    r = _opt(
        """
func.func @main(%x: tensor<2x2x!quant.uniform<i8:f32:0, {1.0:3, 5.0:2}>>)
    -> tensor<2x2x!quant.uniform<i8:f32:1, {5.0:1, 1.0:-1}>> {
  %0 = stablehlo.uniform_quantize %x : (tensor<2x2x!quant.uniform<i8:f32:0, {1.0:3, 5.0:2}>>)
      -> tensor<2x2x!quant.uniform<i8:f32:1, {5.0:1, 1.0:-1}>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {5.0:1, 1.0:-1}>>
}""",
        tmp_path,
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "in.mlir:4:8: error: Cannot requantize while changing quantization_axis" in r.stderr
    assert (
        "in.mlir:4:8: error: failed to legalize operation 'stablehlo.uniform_quantize' that was "
        "explicitly marked illegal" in r.stderr
    )


def test_an_op_without_a_lowering_is_named(tmp_path: Path) -> None:
    r = _opt(
        """
func.func @main(%x: tensor<4x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:17>> {
  %0 = stablehlo.reverse %x, dims = [0] : tensor<4x!quant.uniform<i8:f32, 1.0:17>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:17>>
}""",
        tmp_path,
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert (
        "in.mlir:3:8: error: failed to legalize operation 'stablehlo.reverse' that was "
        "explicitly marked illegal" in r.stderr
    )


def test_programs_without_quantized_types_are_unchanged() -> None:
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""
    assert print_module(_lower(text)) == print_module(parse(text))
