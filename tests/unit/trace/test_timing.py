"""Per-op times of a traced run (``Trace(timing=True)``, stablehlo_py/trace/record.py): off by
default, summed over an op's runs, the trace's own bookkeeping and the compiling of a function
(the observer's optional ``compiled()``, interpreter/observe.py) left out, kept by trace files."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
from stablehlo_py.interpreter import compiled, run

from stablehlo_py.ir import parse
from stablehlo_py.trace import Trace, load_trace, record, save_trace
from tests.unit.trace.programs import LOOP, NAMED

CALLS = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = stablehlo.sine %x : tensor<3xf32>
  %b = call @g(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %c = stablehlo.cosine %b : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func private @g(%y: tensor<3xf32>) -> tensor<3xf32> {
  %d = stablehlo.exponential %y : tensor<3xf32>
  return %d : tensor<3xf32>
}"""


def test_off_by_default() -> None:
    trace = Trace(1)
    run(parse(NAMED), np.ones(3, np.float32), trace=trace)
    assert len(trace) == 4 and all(e.time is None for e in trace)


def test_each_run_of_an_op_counts_once_without_the_bookkeeping(monkeypatch: Any) -> None:
    """A clock ticking once per reading: each run of an op reads it once before its bookkeeping
    and once after, so each run adds exactly one tick (the bookkeeping's reading is not charged)."""
    ticks = iter(range(1, 1_000_000))
    monkeypatch.setattr(record, "perf_counter", lambda: float(next(ticks)))
    trace = Trace(2, timing=True)
    run(parse(LOOP), np.array([1.0, 2.0], np.float32), trace=trace)
    assert {e.op for e in trace if e.count > 1} >= {"stablehlo.add", "stablehlo.compare"}
    assert [e.time for e in trace] == [float(e.count) for e in trace]


def test_compiling_a_function_is_not_an_ops_time(monkeypatch: Any) -> None:
    """Functions compile when first called; with compiling made slow (0.25 s each: @main and @g),
    no op's time holds it (without ``compiled()`` the first op of each function would)."""
    build = compiled._Codegen.build

    def slow(self: Any) -> Any:
        time.sleep(0.25)
        return build(self)

    monkeypatch.setattr(compiled._Codegen, "build", slow)
    trace = Trace(1, timing=True)
    start = time.perf_counter()
    run(parse(CALLS), np.ones(3, np.float32), trace=trace)
    assert time.perf_counter() - start >= 0.5
    times = {e.key: e.time for e in trace}
    assert len(times) == 4 and all(t is not None and 0 <= t < 0.2 for t in times.values()), times


def test_observers_hear_of_each_compiled_function() -> None:
    class Counting:
        def __init__(self) -> None:
            self.compiled_count, self.ops = 0, 0

        def after_op(self, op: Any, results: Any) -> None:
            self.ops += 1

        def compiled(self) -> None:
            self.compiled_count += 1

    observer = Counting()
    run(parse(CALLS), np.ones(3, np.float32), trace=observer)
    assert (observer.compiled_count, observer.ops) == (2, 4)  # @main and @g; 4 ops reported


def test_trace_files_keep_the_times(tmp_path: Path) -> None:
    timed, plain = Trace(1, timing=True), Trace(1)
    for trace in (timed, plain):
        run(parse(NAMED), np.ones(3, np.float32), trace=trace)
    save_trace(timed, tmp_path / "timed.npz")
    save_trace(plain, tmp_path / "plain.npz")
    again = load_trace(tmp_path / "timed.npz")
    assert [e.time for e in again] == [e.time for e in timed]
    assert all(isinstance(e.time, float) and e.time >= 0 for e in again)
    assert all(e.time is None for e in load_trace(tmp_path / "plain.npz"))


def test_a_timed_run_records_the_same_trace() -> None:
    traces = [Trace(2, timing=t) for t in (False, True)]
    for trace in traces:
        (out,) = run(parse(LOOP), np.array([1.0, 2.0], np.float32), trace=trace)
        assert out.tolist() == [1.0, 256.0]
    plain, timed = ([(e.key, e.count, e.results, e.first_nonfinite) for e in t] for t in traces)
    assert plain == timed and len(plain) == 7
