"""interpreter-instrument-with-probe (upstream's InterpreterInstrumentWithProbe.cpp): which values get
an `interpreter.probe` and with which id, and what a user does with it -- interpret the instrumented
program with a probe output directory and read the probed values back from its index.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.interpreter_instrument_with_probe import location_name

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.passes.helpers import run_opt, run_tool

PASS = "interpreter-instrument-with-probe"

PROGRAM = """
func.func @main(%x: tensor<3xf32>, %n: tensor<i64>) -> (tensor<3xf32>, tensor<i64>) {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %s = stablehlo.multiply %x, %x : tensor<3xf32> loc("square@model.py:3")
  %r:2 = stablehlo.while(%i = %zero, %acc = %s) : tensor<i64>, tensor<3xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %a = stablehlo.add %acc, %x : tensor<3xf32> loc("acc")
    %j = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %j, %a : tensor<i64>, tensor<3xf32>
  }
  return %r#1, %r#0 : tensor<3xf32>, tensor<i64>
}
"""


def _instrument(text: str, debug: bool) -> str:
    options = {"useDebugInfo": "true"} if debug else {}
    return print_ir(run_pipeline(parse(text, "p.mlir"), [(PASS, options)]))


def _probes(out: str) -> list[str]:
    return [
        ln.split("probe_id = ", 1)[1].split(" ")[0]
        for ln in out.splitlines()
        if "interpreter.probe" in ln
    ]


def test_probe_ids_follow_the_walk_order_and_the_name_locations() -> None:
    with_names = _instrument(PROGRAM, debug=True)
    # post-order: the multiply, the while's regions (compare, the two adds), then the while's results
    # (its second result's probe is inserted first, right after the while)
    assert _probes(with_names) == [
        '"square.1"',
        '"probe2"',
        '"acc.3"',
        '"probe4"',
        '"probe6"',
        '"probe5"',
    ]
    assert _probes(_instrument(PROGRAM, debug=False)) == [f'"probe{i}"' for i in (1, 2, 3, 4, 6, 5)]
    assert "stablehlo.constant dense<1> : tensor<i64>\n" in with_names  # constants are not probed
    # every later use reads the probe
    assert "stablehlo.while(%iterArg = %c_0, %iterArg_1 = %1)" in with_names


def test_probed_values_can_be_read_back_after_interpreting(tmp_path: Path) -> None:
    module = run_pipeline(parse(PROGRAM), [(PASS, {"useDebugInfo": "true"})])
    verify(module)
    ev = Evaluator(module)
    ev.probe_dir = str(tmp_path)  # type: ignore[attr-defined]  # stablehlo-translate --probe-output-dir
    x = np.array([1.0, 2.0, -3.0], np.float32)
    n = np.array(2, np.int64)
    results = ev.call("main", [x, n])
    expected = run(parse(PROGRAM), x, n)
    for a, b in zip(results, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    with open(tmp_path / "index.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    ids = [r[0] for r in rows]
    # the loop ran twice: the compare is probed 3 times, the adds twice each
    assert ids == [
        "square.1",
        "probe2",
        "acc.3",
        "probe4",
        "probe2",
        "acc.3",
        "probe4",
        "probe2",
        "probe6",
        "probe5",
    ]
    values = {}
    for probe_id, type_text, path in rows:
        values.setdefault(probe_id, []).append((type_text, np.load(path)))
    assert values["square.1"][0][0] == "tensor<3xf32>"
    np.testing.assert_array_equal(values["square.1"][0][1], x * x)
    np.testing.assert_array_equal(values["acc.3"][0][1], x * x + x)
    np.testing.assert_array_equal(values["acc.3"][1][1], x * x + 2 * x)
    assert [bool(v) for _, v in values["probe2"]] == [True, True, False]
    np.testing.assert_array_equal(values["probe6"][0][1], x * x + 2 * x)
    assert int(values["probe5"][0][1]) == 2


def test_only_tensors_of_stablehlo_element_types_are_probed() -> None:
    text = """
func.func @main(%x: tensor<f32>) -> (!stablehlo.token, tuple<tensor<f32>>, tensor<f32>, tensor<!tf_type.string>) {
  %t = stablehlo.create_token : !stablehlo.token
  %u = stablehlo.tuple %x : tuple<tensor<f32>>
  %s = "tf.Const"() {value = dense<"hello"> : tensor<!tf_type.string>} : () -> tensor<!tf_type.string>
  %a = stablehlo.add %x, %x : tensor<f32>
  return %t, %u, %a, %s : !stablehlo.token, tuple<tensor<f32>>, tensor<f32>, tensor<!tf_type.string>
}
"""
    module = parse(text, "p.mlir", allow_unregistered=True)
    out = print_ir(run_pipeline(module, [(PASS, {})]))
    assert _probes(out) == ['"probe1"']
    assert 'value = dense<"hello"> : tensor<!tf_type.string>' in out  # kept verbatim


def test_location_names() -> None:
    m = parse(
        """
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.negate %x : tensor<f32> loc("a\\"b"("f.py":1:2))
  %1 = stablehlo.negate %0 : tensor<f32> loc("f.py":1:2)
  %2 = stablehlo.negate %1 : tensor<f32> loc(callsite("g"("x.py":1:1) at "y.py":2:2))
  %3 = stablehlo.negate %2 : tensor<f32>
  return %3 : tensor<f32>
}
"""
    )
    names = [location_name(o) for o in m.walk() if o.name == "stablehlo.negate"]
    assert names == ['a"b', None, None, None]


def test_cli_instrument_then_interpret_with_probe_output_dir(tmp_path: Path) -> None:
    src = tmp_path / "p.mlir"
    src.write_text(
        """
func.func @main() -> tensor<2xi32> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.add %c, %c : tensor<2xi32> loc("twice")
  return %0 : tensor<2xi32>
}
"""
    )
    instrumented = tmp_path / "i.mlir"
    res = run_opt(f"--{PASS}=useDebugInfo=true", str(src), "-o", str(instrumented))
    assert res.returncode == 0, res.stderr
    probes = tmp_path / "probes"
    res = run_tool(
        "stablehlo-translate", "--interpret", f"--probe-output-dir={probes}", str(instrumented)
    )
    assert res.returncode == 0, res.stderr
    with open(probes / "index.csv", encoding="utf-8") as f:
        (row,) = list(csv.reader(f))
    assert row[:2] == ["twice.1", "tensor<2xi32>"]
    np.testing.assert_array_equal(np.load(row[2]), [2, 4])
