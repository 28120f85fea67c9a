"""The interpreter's observer hook (interpreter/observe.py): `run(..., trace=OBSERVER)` and
`Evaluator(observer=)` report each op after it ran, with its results, in the order the ops run --
ops in control-flow regions each time they run, ops in element-wise bodies (reduce, sort) never --
and an untraced run's compiled code has no report in it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import TOKEN, Evaluator
from stablehlo_py.interpreter.observe import (
    CONTROL_FLOW,
    Observer,
    ObserverError,
    reported_block,
)

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

from tests.unit.trace.programs import FAILING_CHECK


class Recorder:
    """Keeps (op name, results) of every report, and what begin/end were told."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, tuple[Any, ...]]] = []
        self.ops: list[Any] = []
        self.begun: list[str] = []
        self.ended: list[BaseException | None] = []

    def begin(self, module: Any, entry: str) -> None:
        self.begun.append(entry)

    def after_op(self, op: Any, results: Any) -> None:
        self.ops.append(op)
        self.seen.append((op.name, tuple(results)))

    def end(self, error: BaseException | None) -> None:
        self.ended.append(error)

    def names(self) -> list[str]:
        return [name.split(".", 1)[1] for name, _ in self.seen]


LOOP = """func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<2> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<3xf32>
    cond {
      %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %i1 = stablehlo.add %i, %one : tensor<i32>
      %v1 = stablehlo.multiply %v, %v : tensor<3xf32>
      stablehlo.return %i1, %v1 : tensor<i32>, tensor<3xf32>
    }
  %s = stablehlo.reduce(%r#1 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %r#1, %s : tensor<3xf32>, tensor<f32>
}"""


def test_ops_in_a_loop_body_are_reported_each_iteration_before_the_loop() -> None:
    rec = Recorder()
    x = np.array([1, 2, 3], np.float32)
    results = run(LOOP, x, trace=rec)
    assert rec.names() == [
        *["constant"] * 4,
        *["compare", "add", "multiply"] * 2,
        "compare",
        "while",
        "reduce",  # its add body is applied to elements: not reported
    ]
    products = [r[0] for name, r in rec.seen if name == "stablehlo.multiply"]
    np.testing.assert_array_equal(products[0], x * x)
    np.testing.assert_array_equal(products[1], x**4)
    i, v = rec.seen[-2][1]  # the while op: both of its results
    assert int(i) == 2
    np.testing.assert_array_equal(v, results[0])
    np.testing.assert_array_equal(rec.seen[-1][1][0], results[1])
    assert rec.begun == ["main"] and rec.ended == [None]


def test_an_untraced_run_is_unchanged_and_its_code_reports_nothing() -> None:
    x = np.array([1, 2, 3], np.float32)
    module = parse(LOOP)
    plain = Evaluator(module)
    traced = Evaluator(module, observer=Recorder())
    a = plain.call("main", [x])
    b = traced.call("main", [x])
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert traced.observer.seen and plain.observer is None

    def report_names(ev: Evaluator) -> set[str]:
        return {
            name
            for fn in ev._code.values()
            for name, obj in getattr(fn, "__globals__", {}).items()
            if getattr(obj, "__name__", "") == "report"
        }

    assert report_names(traced) and not report_names(plain)


def test_a_run_without_trace_never_calls_an_observer_made_before() -> None:
    rec = Recorder()
    module = parse(LOOP)
    Evaluator(module, observer=rec)  # compiled code is per evaluator
    run(module, np.ones(3, np.float32))
    assert rec.seen == []


def test_taken_branches_only_and_a_case_reports_the_branch_ops() -> None:
    text = """func.func @main(%i: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = "stablehlo.case"(%i) ({
    %a = stablehlo.negate %x : tensor<2xf32>
    stablehlo.return %a : tensor<2xf32>
  }, {
    %b = stablehlo.abs %x : tensor<2xf32>
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}"""
    rec = Recorder()
    run(text, np.int32(1), np.array([-1, 2], np.float32), trace=rec)
    assert rec.names() == ["abs", "case"]


def test_sort_comparator_ops_are_not_reported_and_results_come_as_a_tuple() -> None:
    text = """func.func @main(%k: tensor<4xi32>, %v: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %r:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xi32>, tensor<4xf32>
}"""
    rec = Recorder()
    keys = np.array([3, 1, 2, 0], np.int32)
    run(text, keys, np.arange(4, dtype=np.float32), trace=rec)
    assert rec.names() == ["sort"]
    (name, results) = rec.seen[0]
    assert isinstance(results, tuple) and len(results) == 2
    np.testing.assert_array_equal(results[0], np.sort(keys))
    np.testing.assert_array_equal(results[1], np.array([3, 1, 2, 0], np.float32))


def test_bodies_the_interpreter_runs_on_whole_arrays_are_not_reported() -> None:
    # neither body is one the interpreter replaces by a numpy function: both run, vectorized
    text = """func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
      %aa = stablehlo.abs %a : tensor<f32>
      %bb = stablehlo.abs %b : tensor<f32>
      %c = stablehlo.maximum %aa, %bb : tensor<f32>
      stablehlo.return %c : tensor<f32>
    }
  %s = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %np = stablehlo.negate %p : tensor<f32>
    %nq = stablehlo.negate %q : tensor<f32>
    %lt = stablehlo.compare LT, %np, %nq : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %m, %s : tensor<f32>, tensor<4xf32>
}"""
    rec = Recorder()
    x = np.array([1, -5, 3, 2], np.float32)
    m, s = run(text, x, trace=rec)
    assert float(m) == 5
    np.testing.assert_array_equal(s, [3, 2, 1, -5])
    assert rec.names() == ["constant", "reduce", "sort"]


def test_called_functions_report_their_ops_in_order_each_call() -> None:
    text = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %a = func.call @twice(%x) : (tensor<f32>) -> tensor<f32>
  %b = stablehlo.negate %a : tensor<f32>
  %c = func.call @twice(%b) : (tensor<f32>) -> tensor<f32>
  return %c : tensor<f32>
}
func.func private @twice(%y: tensor<f32>) -> tensor<f32> {
  %t = stablehlo.add %y, %y : tensor<f32>
  return %t : tensor<f32>
}"""
    rec = Recorder()
    (out,) = run(text, np.float32(3), trace=rec)
    assert rec.names() == ["add", "call", "negate", "add", "call"]
    assert [float(r[0]) for _, r in rec.seen] == [6, 6, -6, -12, -12]
    assert float(out) == -12


def test_token_and_tuple_results_and_ops_without_results() -> None:
    text = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %t = stablehlo.create_token : !stablehlo.token
  %u = stablehlo.tuple %x, %t : tuple<tensor<2xi32>, !stablehlo.token>
  %e = stablehlo.get_tuple_element %u[0] : (tuple<tensor<2xi32>, !stablehlo.token>) -> tensor<2xi32>
  stablehlo.custom_call @check.expect_eq(%e, %x) : (tensor<2xi32>, tensor<2xi32>) -> ()
  return %e : tensor<2xi32>
}"""
    rec = Recorder()
    x = np.array([4, 5], np.int32)
    run(text, x, trace=rec)
    assert rec.names() == ["create_token", "tuple", "get_tuple_element", "custom_call"]
    assert rec.seen[0][1] == (TOKEN,)
    (pair,) = rec.seen[1][1]
    assert isinstance(pair, tuple) and pair[1] is TOKEN
    np.testing.assert_array_equal(pair[0], x)
    assert rec.seen[3][1] == ()


def test_dynamic_shapes_are_reported_as_computed() -> None:
    text = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = stablehlo.exponential %x : tensor<?xf32>
  return %y : tensor<?xf32>
}"""
    for n in (2, 5):
        rec = Recorder()
        run(text, np.zeros(n, np.float32), trace=rec)
        ((name, (y,)),) = rec.seen
        assert name == "stablehlo.exponential" and y.shape == (n,)
        np.testing.assert_array_equal(y, np.ones(n, np.float32))


def test_constants_are_reported_folded_or_not() -> None:
    # `add` of two constants is folded when compiling: still reported, after its operands
    text = """func.func @main() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<10> : tensor<2xi32>
  %c = stablehlo.add %a, %b : tensor<2xi32>
  return %c : tensor<2xi32>
}"""
    rec = Recorder()
    run(text, trace=rec)
    assert rec.names() == ["constant", "constant", "add"]
    np.testing.assert_array_equal(rec.seen[2][1][0], [11, 12])


def test_a_region_run_on_its_own_reports_only_under_control_flow() -> None:
    module = parse(LOOP)
    func = module.body.block.first_op
    ops = list(func.body.blocks.first.ops)
    loop = next(op for op in ops if op.name == "stablehlo.while")
    reduce = next(op for op in ops if op.name == "stablehlo.reduce")
    assert reported_block(func.body.blocks.first)
    assert reported_block(loop.regions[1].blocks.first)
    assert not reported_block(reduce.regions[0].blocks.first)
    assert "stablehlo.while" in CONTROL_FLOW and "stablehlo.reduce" not in CONTROL_FLOW


def test_the_ops_reported_are_the_modules_own_objects() -> None:
    module = parse(LOOP)
    rec = Recorder()
    run(module, np.ones(3, np.float32), trace=rec)
    walked = set(module.walk())
    assert all(op in walked for op in rec.ops)


def test_a_failing_observer_stops_the_run_naming_the_op() -> None:
    class Broken:
        def after_op(self, op: Any, results: Any) -> None:
            if op.name == "stablehlo.multiply":
                raise ValueError("bad observer")

    with pytest.raises(ObserverError) as info:
        run(LOOP, np.ones(3, np.float32), trace=Broken())
    assert "after 'stablehlo.multiply'" in str(info.value)
    assert "ValueError: bad observer" in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)


def test_end_is_told_the_error_of_a_failing_run() -> None:
    rec = Recorder()
    with pytest.raises(InterpreterError):
        run(FAILING_CHECK, np.array([1, 2], np.int32), trace=rec)
    assert rec.names() == ["negate", "custom_call"]
    assert len(rec.ended) == 1 and isinstance(rec.ended[0], InterpreterError)


@pytest.mark.parametrize("bad", [1, "trace", object()])
def test_trace_must_be_an_observer(bad: Any) -> None:
    with pytest.raises(TypeError, match=r"after_op\(op, results\).*Trace\(level=1\)"):
        run(LOOP, np.ones(3, np.float32), trace=bad)
    assert not isinstance(bad, Observer)
    assert isinstance(Recorder(), Observer)


def test_a_partitioned_run_reports_partition_zero_once() -> None:
    text = """module @t attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @m = <["i"=4]>
  func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"i"}]>] out_shardings=[<@m, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %f = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
      %k = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %m = stablehlo.add %b, %k : tensor<1xf32>
      sdy.return %m : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}"""
    rec = Recorder()
    a = np.array([10, 20, 30, 40], np.float32)
    (out,) = run(text, a, trace=rec)
    np.testing.assert_array_equal(out, a + np.arange(4))
    assert rec.names() == [
        "partition_id", "convert", "broadcast_in_dim", "add", "manual_computation"
    ]
    assert int(rec.seen[0][1][0]) == 0
    np.testing.assert_array_equal(rec.seen[3][1][0], [10])  # partition 0's part
    np.testing.assert_array_equal(rec.seen[4][1][0], out)
