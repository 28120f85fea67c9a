"""stablehlo-legalize-quantized-op-to-qdq and stablehlo-legalize-qdq-to-quantized-op (upstream's
StablehloLegalizeQuantizedOpToQDQ.cpp / StablehloLegalizeQDQToQuantizedOp.cpp): what each builds, what
it leaves alone, and -- through the interpreter -- that the rewritten program computes the same."""

from __future__ import annotations

import numpy as np
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_legalize_qdq_to_quantized_op import match_failure
from stablehlo_py.passes.stablehlo_legalize_quantized_op_to_qdq import QDQ_OPS

from stablehlo_py.ir import parse, print_ir
from tests.unit.passes.helpers import run_opt

TO_QDQ = "stablehlo-legalize-quantized-op-to-qdq"
FROM_QDQ = "stablehlo-legalize-qdq-to-quantized-op"
Q = "!quant.uniform<i8:f32, 5.000000e-01:-3>"


def _pass(text: str, name: str) -> str:
    return print_ir(run_pipeline(parse(text, "q.mlir"), [(name, {})]))


def _same_results(before: str, after: str, *args: np.ndarray) -> None:
    for a, b in zip(run(parse(before), *args), run(parse(after), *args), strict=True):
        np.testing.assert_array_equal(a, b)


QUANTIZED_MATH = f"""
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi1>) {{
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{Q}>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x{Q}>
  %s = stablehlo.add %qx, %qy : tensor<4x{Q}>
  %m = stablehlo.maximum %s, %qy : tensor<4x{Q}>
  %c = stablehlo.compare LT, %m, %qx : (tensor<4x{Q}>, tensor<4x{Q}>) -> tensor<4xi1>
  %r = stablehlo.uniform_dequantize %m : (tensor<4x{Q}>) -> tensor<4xf32>
  return %r, %c : tensor<4xf32>, tensor<4xi1>
}}
"""


def test_quantized_ops_become_float_ops_between_dequantize_and_quantize() -> None:
    out = _pass(QUANTIZED_MATH, TO_QDQ)
    lines = [ln.strip() for ln in out.splitlines()[4:16]]
    assert lines == [
        f"%2 = stablehlo.uniform_dequantize %0 : (tensor<4x{Q}>) -> tensor<4xf32>",
        f"%3 = stablehlo.uniform_dequantize %1 : (tensor<4x{Q}>) -> tensor<4xf32>",
        "%4 = stablehlo.add %2, %3 : tensor<4xf32>",
        f"%5 = stablehlo.uniform_quantize %4 : (tensor<4xf32>) -> tensor<4x{Q}>",
        f"%6 = stablehlo.uniform_dequantize %5 : (tensor<4x{Q}>) -> tensor<4xf32>",
        f"%7 = stablehlo.uniform_dequantize %1 : (tensor<4x{Q}>) -> tensor<4xf32>",
        "%8 = stablehlo.maximum %6, %7 : tensor<4xf32>",
        f"%9 = stablehlo.uniform_quantize %8 : (tensor<4xf32>) -> tensor<4x{Q}>",
        f"%10 = stablehlo.uniform_dequantize %9 : (tensor<4x{Q}>) -> tensor<4xf32>",
        f"%11 = stablehlo.uniform_dequantize %0 : (tensor<4x{Q}>) -> tensor<4xf32>",
        # compare's result is not quantized: no uniform_quantize after it
        "%12 = stablehlo.compare LT, %10, %11 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
        # the program's own dequantize, now of the new quantize
        f"%13 = stablehlo.uniform_dequantize %9 : (tensor<4x{Q}>) -> tensor<4xf32>",
    ]
    x = np.array([0.5, -1.0, 2.0, 7.5], np.float32)
    y = np.array([1.0, 1.5, -3.0, 0.0], np.float32)
    _same_results(QUANTIZED_MATH, out, x, y)


def test_ops_outside_the_list_are_left_but_their_regions_are_rewritten() -> None:
    text = f"""
func.func @main(%x: tensor<4x{Q}>) -> (tensor<4x{Q}>, tensor<4x{Q}>) {{
  %t = stablehlo.reshape %x : (tensor<4x{Q}>) -> tensor<4x{Q}>
  %s = "stablehlo.sort"(%x) ({{
  ^bb0(%a: tensor<{Q}>, %b: tensor<{Q}>):
    %c = stablehlo.compare GT, %a, %b : (tensor<{Q}>, tensor<{Q}>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }}) {{dimension = 0 : i64, is_stable = true}} : (tensor<4x{Q}>) -> tensor<4x{Q}>
  return %t, %s : tensor<4x{Q}>, tensor<4x{Q}>
}}
"""
    out = _pass(text, TO_QDQ)
    assert f"stablehlo.reshape %arg0 : (tensor<4x{Q}>) -> tensor<4x{Q}>" in out
    assert '"stablehlo.sort"(%arg0)' in out
    region = out.split('"stablehlo.sort"', 1)[1]
    assert "stablehlo.uniform_dequantize %arg1" in region
    assert "%4 = stablehlo.compare GT, %2, %3 : (tensor<f32>, tensor<f32>) -> tensor<i1>" in region


def test_unquantized_ops_are_untouched_and_the_list_is_upstreams() -> None:
    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    assert _pass(text, TO_QDQ) == print_ir(parse(text))
    assert len(QDQ_OPS) == 40
    assert {"stablehlo.dot_general", "stablehlo.convolution", "stablehlo.select"} <= QDQ_OPS
    assert "stablehlo.transpose" not in QDQ_OPS and "stablehlo.reduce" not in QDQ_OPS


def test_dot_general_with_a_float_rhs_keeps_its_attributes_and_location() -> None:
    text = f"""
func.func @main(%x: tensor<2x3x{Q}>, %w: tensor<3x2xf32>) -> tensor<2x2x{Q}> {{
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3x{Q}>, tensor<3x2xf32>) -> tensor<2x2x{Q}> loc("dot")
  return %0 : tensor<2x2x{Q}>
}}
"""
    out = print_ir(run_pipeline(parse(text), [(TO_QDQ, {})]), debuginfo=True)
    lines = [ln.strip() for ln in out.splitlines()[2:5]]
    dq = f"%0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x{Q}>) -> tensor<2x3xf32>"
    dot = (
        "%1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : "
        "(tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>"
    )
    q = f"%2 = stablehlo.uniform_quantize %1 : (tensor<2x2xf32>) -> tensor<2x2x{Q}>"
    assert lines == [f'{x} loc("dot")' for x in (dq, dot, q)]


FUSABLE = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %dx = stablehlo.uniform_dequantize %qx : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
  %dy = stablehlo.uniform_dequantize %qy : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
  %s = stablehlo.subtract %dx, %dy : tensor<4xf32>
  %qs = stablehlo.uniform_quantize %s : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %r = stablehlo.uniform_dequantize %qs : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def test_dequantize_op_quantize_is_fused_and_computes_the_same() -> None:
    out = _pass(FUSABLE, FROM_QDQ)
    assert f"%2 = stablehlo.subtract %0, %1 : tensor<4x{Q}>" in out
    assert "tensor<4xf32>\n    %" not in out.split("%2 =", 1)[1].split("return")[0]
    assert out.count("uniform_dequantize") == 1  # the dead ones are erased
    x = np.array([0.5, -1.0, 2.0, 7.5], np.float32)
    y = np.array([1.0, 1.5, -3.0, 0.0], np.float32)
    _same_results(FUSABLE, out, x, y)


def test_the_two_passes_undo_each_other() -> None:
    text = f"""
func.func @main(%x: tensor<4x{Q}>) -> tensor<4x{Q}> {{
  %0 = stablehlo.abs %x : tensor<4x{Q}>
  return %0 : tensor<4x{Q}>
}}
"""
    there = _pass(text, TO_QDQ)
    assert "uniform_dequantize" in there
    assert _pass(there, FROM_QDQ) == print_ir(parse(text))


def test_match_failures_are_upstreams_reasons() -> None:
    text = f"""
func.func @main(%x: tensor<4xf32>, %q: tensor<4x{Q}>) -> (tensor<4x{Q}>, tensor<4x{Q}>, tensor<4x{Q}>, tensor<4x{Q}>) {{
  %a = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{Q}>
  %c = stablehlo.constant dense<1.0> : tensor<4xf32>
  %b = stablehlo.uniform_quantize %c : (tensor<4xf32>) -> tensor<4x{Q}>
  %n = stablehlo.negate %x : tensor<4xf32>
  %d = stablehlo.uniform_quantize %n : (tensor<4xf32>) -> tensor<4x{Q}>
  %dq = stablehlo.uniform_dequantize %q : (tensor<4x{Q}>) -> tensor<4xf32>
  %s = stablehlo.add %dq, %x : tensor<4xf32>
  %e = stablehlo.uniform_quantize %s : (tensor<4xf32>) -> tensor<4x{Q}>
  return %a, %b, %d, %e : tensor<4x{Q}>, tensor<4x{Q}>, tensor<4x{Q}>, tensor<4x{Q}>
}}
"""
    m = parse(text)
    quants = [o for o in m.walk() if o.name == "stablehlo.uniform_quantize"]
    assert [match_failure(o) for o in quants] == [
        "requires operand to be defined by an op",
        "requires non empty operands",
        "requires operand to be defined by an op",
        "requires operand to be defined by an op",
    ]
    # nothing matches: the program is unchanged but for the greedy driver's constant hoisting
    out = _pass(text, FROM_QDQ)
    assert out.splitlines()[2].strip().startswith("%cst = stablehlo.constant dense<1.000000e+00>")
    assert sorted(out.splitlines()) == sorted(print_ir(parse(text)).splitlines())


def test_cli_runs_both_passes(tmp_path) -> None:
    src = tmp_path / "q.mlir"
    src.write_text(FUSABLE)
    res = run_opt(str(src), f"--{FROM_QDQ}", f"--{TO_QDQ}")
    assert res.returncode == 0, res.stderr
    assert "stablehlo.subtract %2, %3 : tensor<4xf32>" in res.stdout


def test_ui8_and_u8_storage_types_print_and_serialize_as_written() -> None:
    """upstream's qdq-to-quantized-op test prints `ui8` storage as `ui8` and `u8` as `u8`: the
    spellings are different storage types (an unsigned integer type, a signless one read as
    unsigned) and survive both artifact formats."""
    from stablehlo_py.serialization import (
        deserialize_portable_artifact,
        serialize_portable_artifact,
    )

    for storage in ("ui8", "u8"):
        text = FUSABLE.replace("i8:f32", f"{storage}:f32")
        out = _pass(text, FROM_QDQ)
        assert f"stablehlo.subtract %0, %1 : tensor<4x!quant.uniform<{storage}:f32, " in out
        for fmt in ("msgpack", "mlir"):
            artifact = serialize_portable_artifact(parse(out), "current", format=fmt)
            assert print_ir(deserialize_portable_artifact(artifact)) == out
        x = np.array([0.5, 1.0, 2.0, 7.5], np.float32)
        y = np.array([1.0, 0.5, 3.0, 0.0], np.float32)
        _same_results(text, out, x, y)


def test_not_converging_is_upstreams_error_at_the_function(monkeypatch) -> None:
    """With one iteration allowed, the fusion (which leaves its dead ops to the driver's next
    iteration) cannot converge: upstream's message, located at the function."""
    import pytest
    from stablehlo_py.passes import stablehlo_legalize_qdq_to_quantized_op as from_qdq
    from stablehlo_py.passes import stablehlo_legalize_quantized_op_to_qdq as to_qdq
    from stablehlo_py.passes.drivers.greedy import GreedyConfig

    from stablehlo_py.errors import VerifyError

    monkeypatch.setattr(from_qdq, "CONFIG", GreedyConfig(max_iterations=1))
    with pytest.raises(VerifyError) as e:
        _pass(FUSABLE, FROM_QDQ)
    assert str(e.value).startswith("q.mlir:2:1: error: Failed to converge ")
    assert "StablehloLegalizeQDQToQuantizedOpPass in 1 iterations" in str(e.value)
    monkeypatch.setattr(to_qdq, "CONFIG", GreedyConfig(max_iterations=1))
    with pytest.raises(
        VerifyError, match="Failed to converge StablehloLegalizeQuantizedOpToQDQ in 1 iterations"
    ):
        _pass(QUANTIZED_MATH, TO_QDQ)
