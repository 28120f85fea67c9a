"""Calls whose callee the generated code inlines (`compiled._Codegen._inline`: a single block of
steps that take neither the evaluator nor regions) give the results of the evaluator's call
(`compiled.INLINE_CALLS = False`) bit for bit, errors located at the callee's op, and leave
every other call (recursion, nested calls, traced runs) to the evaluator."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import compiled
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

CALLS = 12  # past the planned calls of a block without regions (then generated)

SCAN = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<5xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<5xf32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c, %v = %x, %buf = %z) : tensor<i32>, tensor<4xf32>, tensor<5xf32>
  cond {
    %n = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %k = stablehlo.constant dense<1.5> : tensor<4xf32>
    %m = stablehlo.multiply %v, %k : tensor<4xf32>
    %t = stablehlo.tanh %m : tensor<4xf32>
    %z0 = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%t init: %z0) applies stablehlo.add across dimensions = [0]
      : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %u = func.call @put(%buf, %s, %i) : (tensor<5xf32>, tensor<f32>, tensor<i32>) -> tensor<5xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %t, %u : tensor<i32>, tensor<4xf32>, tensor<5xf32>
  }
  return %r#1, %r#2 : tensor<4xf32>, tensor<5xf32>
}
func.func private @put(%a: tensor<5xf32>, %s: tensor<f32>, %i: tensor<i32>) -> tensor<5xf32> {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1xf32>
  %r = stablehlo.dynamic_update_slice %a, %b, %i : (tensor<5xf32>, tensor<1xf32>, tensor<i32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}"""

# one callee at four sites: constant and computed arguments (folded at one site, in part or not
# at the others), a callee returning its own argument, results used after the argument's last use
SITES = """func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %k = stablehlo.constant dense<[1.0, -0.0, 2.5]> : tensor<3xf32>
  %a = func.call @g(%k, %k) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %b = func.call @g(%x, %a) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %c = func.call @g(%b, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %p:2 = func.call @swap(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  %e = stablehlo.add %p#0, %p#1 : tensor<3xf32>
  %d = func.call @g(%x, %k) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %a, %c, %e, %p#1, %d : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func private @g(%u: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %h = stablehlo.constant dense<0.5> : tensor<3xf32>
  %m = stablehlo.multiply %u, %h : tensor<3xf32>
  %s = stablehlo.subtract %m, %v : tensor<3xf32>
  %unused = stablehlo.exponential %s : tensor<3xf32>
  return %s : tensor<3xf32>
}
func.func private @swap(%u: tensor<3xf32>, %v: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  return %v, %u : tensor<3xf32>, tensor<3xf32>
}"""


# a callee of two steps that do not fuse: at the second site the first is not computed when
# compiling (an argument), the second must not be either
UNFOLDED = """func.func @main(%x: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %k = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = func.call @h(%k, %k) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %b = func.call @h(%x, %k) : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
func.func private @h(%u: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<4xf32> {
  %r = stablehlo.reverse %u, dims = [0] : tensor<2xf32>
  %c = stablehlo.concatenate %r, %v, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}"""


def _runs(text: str, args: list[np.ndarray], inline: bool) -> list[list[np.ndarray]]:
    old, compiled.INLINE_CALLS = compiled.INLINE_CALLS, inline
    try:
        ev = Evaluator(parse(text))
        return [ev.call("main", args) for _ in range(CALLS)]
    finally:
        compiled.INLINE_CALLS = old


def _bits(values: list[np.ndarray]) -> list[tuple[str, tuple[int, ...], bytes]]:
    return [(str(v.dtype), v.shape, np.asarray(v).tobytes()) for v in values]


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (SCAN, [np.array([0.5, -1.0, np.nan, -0.0], np.float32)]),
        (SCAN, [np.array([np.inf, 2.0, 3.0, -np.inf], np.float32)]),
        (SITES, [np.array([3.0, -0.0, np.nan], np.float32)]),
        (UNFOLDED, [np.array([5.0, 6.0], np.float32)]),
    ],
)
def test_inlined_calls_give_the_evaluators_bits(text: str, args: list[np.ndarray]) -> None:
    inlined, called = _runs(text, args, True), _runs(text, args, False)
    for a, b in zip(inlined, called, strict=True):
        assert _bits(a) == _bits(b)
    assert _bits(inlined[0]) == _bits(inlined[-1])


def _count_calls(text: str, args: list[np.ndarray], monkeypatch: pytest.MonkeyPatch) -> int:
    seen = []
    real = Evaluator.call

    def call(self: Evaluator, name: str, a: list[np.ndarray]) -> list[np.ndarray]:
        seen.append(name)
        return real(self, name, a)

    monkeypatch.setattr(Evaluator, "call", call)
    ev = Evaluator(parse(text))
    for _ in range(CALLS):
        ev.call("main", args)
    seen.clear()
    ev.call("main", args)
    return len(seen)


def test_a_small_callee_runs_without_the_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.ones(3, np.float32)
    assert _count_calls(SITES, [x], monkeypatch) == 1  # main itself
    monkeypatch.setattr(compiled, "INLINE_CALLS", False)
    assert _count_calls(SITES, [x], monkeypatch) == 1 + 5


NESTED = """func.func @main(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = func.call @outer(%x) : (tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
func.func private @outer(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = func.call @inner(%x) : (tensor<2xi32>) -> tensor<2xi32>
  %s = stablehlo.add %r, %x : tensor<2xi32>
  return %s : tensor<2xi32>
}
func.func private @inner(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = stablehlo.multiply %x, %x : tensor<2xi32>
  return %r : tensor<2xi32>
}"""


def test_a_callee_that_calls_runs_through_the_evaluator(monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([3, -4], np.int32)
    # @outer calls: the evaluator runs it; @inner (in @outer's code) is inlined there
    assert _count_calls(NESTED, [x], monkeypatch) == 2
    assert Evaluator(parse(NESTED)).call("main", [x])[0].tolist() == [12, 12]


RECURSIVE = """func.func @main(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}
func.func private @f(%x: tensor<i32>) -> tensor<i32> {
  %r = func.call @f(%x) : (tensor<i32>) -> tensor<i32>
  return %r : tensor<i32>
}"""


def test_recursion_still_meets_the_depth_limit() -> None:
    ev = Evaluator(parse(RECURSIVE))
    for _ in range(CALLS):
        with pytest.raises(InterpreterError, match="calls nested more than"):
            ev.call("main", [np.array(1, np.int32)])


FAILING = """func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = func.call @f(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}
func.func private @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %n = stablehlo.negate %a : tensor<2x3xf32>
  %t = stablehlo.transpose %n, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}"""


@pytest.mark.parametrize("inline", [True, False])
def test_an_error_in_an_inlined_callee_is_located_at_its_op(inline: bool) -> None:
    old, compiled.INLINE_CALLS = compiled.INLINE_CALLS, inline
    try:
        ev = Evaluator(parse(FAILING))
        for _ in range(CALLS):
            with pytest.raises(InterpreterError) as e:
                ev.call("main", [np.zeros((2, 3), np.float32)])
            assert str(e.value).startswith("-:7:8: error: 'stablehlo.transpose' failed")
    finally:
        compiled.INLINE_CALLS = old


def test_a_traced_run_sees_the_callee_ops() -> None:
    seen: list[str] = []

    class Names:
        def after_op(self, op, results):  # type: ignore[no-untyped-def]
            seen.append(op.name)

    x = np.ones(3, np.float32)
    ev = Evaluator(parse(SITES), observer=Names())
    for _ in range(CALLS):
        seen.clear()
        ev.call("main", [x])
        assert seen.count("stablehlo.subtract") == 4


def test_a_long_callee_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """A callee is generated again at each call: past INLINE_MAX_OPS ops it is called."""
    x = np.ones(3, np.float32)
    monkeypatch.setattr(compiled, "INLINE_MAX_OPS", 4)  # @g has 5 ops with its return
    assert _count_calls(SITES, [x], monkeypatch) == 1 + 4  # @swap (one op) still inlined
