"""The interpreter dialect (print, probe, run_parallel infeed/outfeed), check.expect_serialized_eq
and result printing in upstream's format."""

from __future__ import annotations

import os
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import TOKEN, Evaluator
from stablehlo_py.interpreter.printing import format_value

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse


def test_format_matches_upstream_tensor_print() -> None:
    assert format_value(np.array(1, np.uint8)) == "tensor<ui8> {1}"
    assert format_value(np.array([True, False])) == "tensor<2xi1> {\n  [true, false]\n}"
    assert format_value(np.arange(4, dtype=np.int64).reshape(2, 2)) == (
        "tensor<2x2xi64> {\n  [\n    [0, 1],\n    [2, 3]\n  ]\n}"
    )
    assert (
        format_value(np.zeros((2, 0), np.int8)) == "tensor<2x0xi8> {\n  [\n    [],\n    []\n  ]\n}"
    )
    assert format_value(np.array([1.0, -0.5], np.float32)) == (
        "tensor<2xf32> {\n  [1.000000e+00, -5.000000e-01]\n}"
    )
    assert format_value(np.array([np.inf], ml_dtypes.bfloat16)) == "tensor<1xbf16> {\n  [0x7F80]\n}"
    assert format_value(np.array([1 + 2j], np.complex64)) == (
        "tensor<1xcomplex<f32>> {\n  [[1.000000e+00, 2.000000e+00]]\n}"
    )
    assert format_value(TOKEN) == "!stablehlo.token"


def test_dense_format() -> None:
    assert format_value(np.array([[1, 2], [3, 4]], np.int8), dense=True) == (
        "dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>"
    )
    assert (
        format_value(np.full(3, 2.5, np.float32), dense=True)
        == "dense<2.500000e+00> : tensor<3xf32>"
    )


def test_print_writes_ssa_name_and_value_to_the_sink() -> None:
    module = parse(
        """
func.func @main() {
  %0 = stablehlo.iota dim = 0 : tensor<3xi32>
  interpreter.print %0 : tensor<3xi32>
  return
}"""
    )
    ev = Evaluator(module)
    out: list[str] = []
    ev.print_sink = out.append  # type: ignore[attr-defined]
    ev.call("main", [])
    assert out == ["%0 = tensor<3xi32> {\n  [0, 1, 2]\n}\n"]


PROBE = """
func.func @main() {
  %x = stablehlo.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %y = interpreter.probe %x, probe_id = "p/0" : tensor<2xbf16>
  %z = stablehlo.add %y, %y : tensor<2xbf16>
  %w = interpreter.probe %z, probe_id = "p/0" : tensor<2xbf16>
  check.expect_serialized_eq %x, probe_id = "p/0" : tensor<2xbf16>
  check.expect_serialized_eq %z, probe_id = "p/0", iter = 1 : tensor<2xbf16>
  return
}"""


def test_probe_round_trips_through_the_probe_directory(tmp_path: Path) -> None:
    ev = Evaluator(parse(PROBE))
    ev.probe_dir = str(tmp_path)  # type: ignore[attr-defined]
    ev.call("main", [])
    assert not ev.failures, ev.failures
    lines = (tmp_path / "index.csv").read_text().splitlines()
    assert [line.split(",")[:2] for line in lines] == [["p/0", "tensor<2xbf16>"]] * 2
    assert all(os.path.exists(line.split(",", 2)[2]) for line in lines)


def test_expect_serialized_eq_reports_mismatches(tmp_path: Path) -> None:
    text = PROBE.replace(
        'check.expect_serialized_eq %x, probe_id = "p/0" :',
        'check.expect_serialized_eq %z, probe_id = "p/0" :',
    )
    with pytest.raises(InterpreterError, match="check failed"):
        run(text)


def test_infeed_queue_and_outfeed_in_run_parallel() -> None:
    module = parse(
        """
func.func @q0() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[7, 8]> : tensor<2xi32>
  return %c : tensor<2xi32>
}
func.func @p(%t: !stablehlo.token) -> (tensor<2xi32>, !stablehlo.token) {
  %r:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  %o = "stablehlo.outfeed"(%r#0, %r#1) : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return %r#0, %o : tensor<2xi32>, !stablehlo.token
}
func.func @main() -> tensor<2xi32> {
  %t = stablehlo.after_all : !stablehlo.token
  %r:2 = "interpreter.run_parallel"(%t) {infeed = [@q0], programs = [[@p]]} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return %r#0 : tensor<2xi32>
}"""
    )
    (r,) = Evaluator(module).call("main", [])
    np.testing.assert_array_equal(r, [7, 8])


def test_run_parallel_verifier_counts_inputs() -> None:
    from stablehlo_py.errors import StableHLOError

    with pytest.raises(StableHLOError, match="Number of inputs"):
        run(
            """
func.func @p(%x: tensor<i32>) -> tensor<i32> {
  return %x : tensor<i32>
}
func.func @main() {
  %r:2 = "interpreter.run_parallel"() {programs = [[@p, @p]]} : () -> (tensor<i32>, tensor<i32>)
  return
}"""
        )


def test_parallel_processes_share_one_probe_directory(tmp_path: Path) -> None:
    module = parse(
        """
func.func @p(%x: tensor<2xi32>) -> tensor<2xi32> {
  %y = interpreter.probe %x, probe_id = "q" : tensor<2xi32>
  return %y : tensor<2xi32>
}
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@p], [@p]]} : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  check.expect_serialized_eq %a, probe_id = "q", iter = 1 : tensor<2xi32>
  return
}"""
    )
    ev = Evaluator(module)
    ev.probe_dir = str(tmp_path)  # type: ignore[attr-defined]
    ev.call("main", [])
    assert not ev.failures
    assert len((tmp_path / "index.csv").read_text().splitlines()) == 2


def test_dynamic_result_types_print_with_the_runtime_shape() -> None:
    from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType, i32

    t = TensorType(i32, [DYNAMIC_INDEX])
    assert format_value(np.array([1, 2], np.int32), t) == "tensor<2xi32> {\n  [1, 2]\n}"
