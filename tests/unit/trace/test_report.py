"""The text report of a trace (stablehlo_py/trace/report.py): one line per op with its key (indented
by region depth), run count, summaries and source; values at level 2; the first NaN/Inf; the
error of a failed run."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.trace import Trace, entry_line, format_trace
from tests.unit.trace.programs import FAILING_CHECK, LOOP, NAMED


def test_one_line_per_op_with_its_source() -> None:
    trace = Trace()
    run(NAMED, np.zeros(3, np.float32), trace=trace)
    assert format_trace(trace) == "\n".join(
        [
            "trace of @main: 4 ops, 4 runs",
            "   0  jit(f)/block0/stablehlo.sine#0  f32[3] min 0 max 0 mean 0  model.py:10",
            "   1  jit(f)/block0/stablehlo.cosine#0  f32[3] min 1 max 1 mean 1  model.py:11",
            "   2  jit(f)/block1/stablehlo.sine#0  f32[3] min 0.841471 max 0.841471 mean 0.841471"
            "  model.py:20",
            "   3  jit(f)/block1/stablehlo.add#0  f32[3] min 0.841471 max 0.841471 mean 0.841471"
            "  model.py:21",
        ]
    )


def test_loops_show_depth_runs_and_the_first_infinity() -> None:
    trace = Trace()
    run(LOOP, np.array([1e10, 2], np.float32), trace=trace)
    lines = format_trace(trace).splitlines()
    assert lines[0] == "trace of @main: 7 ops, 14 runs"
    assert lines[6] == (
        "   5    @main/stablehlo.multiply#0 x3  f32[2] min 4 max inf mean 2.5e+19 inf 2  -:11:13"
    )
    assert lines[7] == (
        "   6  @main/stablehlo.while#0  i32[] min 3 max 3 mean 3 | f32[2] min 256 max inf "
        "mean 256 inf 1  -:5:10"
    )
    assert lines[-1] == "first NaN/Inf: @main/stablehlo.multiply#0 (run 2 of 3) at -:11:13"


def test_level_two_shows_kept_values_under_their_op() -> None:
    trace = Trace(2, max_elements=2)
    run(LOOP, np.array([2, 3], np.float32), trace=trace)
    text = format_trace(trace)
    assert "   6  @main/stablehlo.while#0  i32[]" in text
    assert "        #0 = 3\n        #1 = [ 256. 6561.]" in text
    assert "          = [ 256. 6561.]" in text  # the multiply in the loop body, one deeper
    assert "= " not in format_trace(trace, values=False)


def test_long_values_are_shortened() -> None:
    trace = Trace(3)
    text = """func.func @main(%x: tensor<100xi32>) -> tensor<100xi32> {
  %y = stablehlo.negate %x : tensor<100xi32>
  return %y : tensor<100xi32>
}"""
    run(text, np.arange(100, dtype=np.int32), trace=trace)
    report = format_trace(trace, max_elements=6)
    assert report.splitlines()[2] == "        = [  0  -1  -2 ... -97 -98 -99]"


def test_a_failed_run_says_why_and_ops_without_results() -> None:
    trace = Trace()
    with pytest.raises(InterpreterError):
        run(FAILING_CHECK, np.array([1, 2], np.int32), trace=trace)
    lines = format_trace(trace).splitlines()
    assert lines[2] == "   1  @main/stablehlo.custom_call#0  (no results)  -:3:3"
    assert lines[-1].startswith("the run failed: InterpreterError: ")
    assert entry_line(trace.entries[1]) == lines[2]
