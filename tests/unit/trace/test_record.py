"""Recording a run (stablehlo_py/trace/record.py): one entry per op in the order ops first ran,
keyed as `op_keys` keys them, with name stack, source line, run counts, merged summaries, the
first run with a NaN/Inf, and values by level."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse
from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.trace import Trace, record
from stablehlo_py.trace.progress import start_progress
from tests.unit.trace.programs import FAILING_CHECK, LOOP, NAMED


def test_entries_are_keyed_by_op_keys_in_run_order_with_name_stacks() -> None:
    module = parse(NAMED)
    trace = Trace()
    x = np.array([0, 1, 2], np.float32)
    (out,) = run(module, x, trace=trace)
    keys = op_keys(module)
    func_ops = [op for op in module.walk() if op.name.startswith("stablehlo.")]
    assert trace.keys() == [keys[op] for op in func_ops]
    assert trace.keys() == [
        "jit(f)/block0/stablehlo.sine#0",
        "jit(f)/block0/stablehlo.cosine#0",
        "jit(f)/block1/stablehlo.sine#0",
        "jit(f)/block1/stablehlo.add#0",
    ]
    e = trace["jit(f)/block1/stablehlo.add#0"]
    assert (e.index, e.op, e.types, e.count) == (3, "stablehlo.add", ("tensor<3xf32>",), 1)
    assert (e.scope, e.source, e.depth) == ("jit(f)/block1", "model.py:21", 0)
    assert e.location == '"jit(f)/block1/add"("model.py":21:4)'
    assert e.position == "-:5:8" and e.where() == "model.py:21"
    assert e.results[0].max == pytest.approx(float(out.max()))
    assert e.values == []  # level 1: summaries only
    assert "jit(f)/block1/stablehlo.add#0" in trace and "nope" not in trace
    with pytest.raises(KeyError, match="no op 'nope' in the trace"):
        trace["nope"]


def test_ops_in_a_loop_run_several_times_merge_into_one_entry() -> None:
    trace = Trace()
    run(LOOP, np.array([1e10, 2], np.float32), trace=trace)
    assert [e.op.split(".")[1] for e in trace] == [
        "constant", "constant", "constant", "compare", "add", "multiply", "while"
    ]
    mul = trace["@main/stablehlo.multiply#0"]
    assert (mul.count, mul.depth, mul.first_nonfinite) == (3, 1, 2)
    s = mul.results[0]
    assert (s.min, s.max, s.inf, s.size) == (4.0, np.inf, 2, 6)
    assert trace["@main/stablehlo.compare#0"].count == 4
    assert trace["@main/stablehlo.while#0"].depth == 0
    assert trace.runs == 3 + 4 + 3 + 3 + 1
    assert trace.first_nonfinite() is mul
    assert trace.error is None and trace.entry == "main"


@pytest.mark.parametrize("level", [2, 3])
def test_values_by_level_are_copies_of_the_last_run(level: int) -> None:
    trace = Trace(level, max_elements=1)
    run(LOOP, np.array([2, 3], np.float32), trace=trace)
    mul = trace["@main/stablehlo.multiply#0"]
    n = trace["@main/stablehlo.constant#1"]
    assert int(n.values[0]) == 3
    if level == 2:  # only values of at most max_elements elements
        assert mul.values == [None]
    else:
        np.testing.assert_array_equal(mul.values[0], np.array([256, 6561], np.float32))
    loop = trace["@main/stablehlo.while#0"]
    assert int(loop.values[0]) == 3
    for e in trace:
        for v in e.values:
            if v is not None:
                assert v.flags.owndata and v.flags.writeable


def test_a_trace_made_for_an_evaluator_directly_finds_the_keys() -> None:
    module = parse(NAMED)
    trace = Trace()
    Evaluator(module, observer=trace).call("main", [np.zeros(3, np.float32)])
    assert trace.keys()[0] == "jit(f)/block0/stablehlo.sine#0" and trace.entry == ""


def test_using_a_trace_again_starts_afresh() -> None:
    trace = Trace()
    run(LOOP, np.ones(2, np.float32), trace=trace)
    run(NAMED, np.ones(3, np.float32), trace=trace)
    assert len(trace) == 4 and trace.runs == 4


def test_a_failing_run_keeps_what_ran_and_the_error() -> None:
    trace = Trace()
    with pytest.raises(InterpreterError):
        run(FAILING_CHECK, np.array([1, 2], np.int32), trace=trace)
    assert len(trace) == 2
    assert trace.error is not None and trace.error.startswith("InterpreterError: ")
    assert trace.entries[1].results == []


def test_quantized_results_say_their_type() -> None:
    text = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
  %d = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}"""
    trace = Trace()
    run(text, np.array([1, -2], np.float32), trace=trace)
    q = trace.entries[0].results[0]
    assert q.quantized == "!quant.uniform<i8:f32, 5.000000e-01>"
    assert (q.dtype, q.min, q.max) == ("i8", -4, 2)
    assert trace.entries[1].results[0].quantized == ""


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 0}, "trace level must be 1 .* got 0"),
        ({"level": "2"}, "trace level must be 1 .* got '2'"),
        ({"max_elements": -1}, "max_elements must be an int >= 0, got -1"),
    ],
)
def test_bad_settings_are_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Trace(**kwargs)


def test_progress_counts_the_ops_a_trace_can_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made: list[Any] = []

    def eager(total: int | None, desc: str, *, unit: str = "it") -> Any:
        p = start_progress(total, desc, unit=unit, interval=0.0)
        made.append(p)
        return p

    monkeypatch.setattr(record, "start_progress", eager)
    trace = Trace(progress=True)
    run(LOOP, np.ones(2, np.float32), trace=trace)
    (p,) = made
    assert p.total == 7  # 3 constants, the loop's compare, add and multiply, the while
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("trace @main: 7/7 op, 14 runs, ")
