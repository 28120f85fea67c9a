"""A `while` generated as a Python loop in its block's code (`compiled._Codegen._loop`) gives the
bits of the `while` step (`compiled.INLINE_LOOPS = False`): loops run zero times, nested, inside
other regions, reading values of enclosing blocks, carrying values unchanged, with calls inlined
in their bodies; errors are located at the op that failed; a traced run still reports the loop."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import compiled
from stablehlo_py.interpreter.evaluator import Evaluator

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

CALLS = 3

NESTED = """func.func @main(%x: tensor<3xf32>, %n: tensor<i32>) -> (tensor<3xf32>, tensor<i32>, tensor<3xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %w = stablehlo.constant dense<[0.5, -0.0, 2.0]> : tensor<3xf32>
  %r:4 = stablehlo.while(%i = %c0, %v = %x, %s = %c0, %keep = %w) : tensor<i32>, tensor<3xf32>, tensor<i32>, tensor<3xf32>
  cond {
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %inner:2 = stablehlo.while(%j = %c0, %t = %s) : tensor<i32>, tensor<i32>
    cond {
      %q = stablehlo.compare LT, %j, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %t2 = stablehlo.add %t, %j : tensor<i32>
      %j2 = stablehlo.add %j, %one : tensor<i32>
      stablehlo.return %j2, %t2 : tensor<i32>, tensor<i32>
    }
    %m = stablehlo.multiply %v, %w : tensor<3xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [0]
      : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %v2 = func.call @step(%m, %b) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v2, %inner#1, %keep : tensor<i32>, tensor<3xf32>, tensor<i32>, tensor<3xf32>
  }
  %p = stablehlo.compare GT, %n, %c0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %f = "stablehlo.if"(%p) ({
    %l:2 = stablehlo.while(%k = %c0, %a = %x) : tensor<i32>, tensor<3xf32>
    cond {
      %q = stablehlo.compare LT, %k, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %a2 = stablehlo.sine %a : tensor<3xf32>
      %k2 = stablehlo.add %k, %one : tensor<i32>
      stablehlo.return %k2, %a2 : tensor<i32>, tensor<3xf32>
    }
    stablehlo.return %l#1 : tensor<3xf32>
  }, {
    stablehlo.return %x : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
  %o = stablehlo.add %r#1, %r#3 : tensor<3xf32>
  return %o, %r#2, %f : tensor<3xf32>, tensor<i32>, tensor<3xf32>
}
func.func private @step(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %d = stablehlo.divide %a, %b : tensor<3xf32>
  %t = stablehlo.tanh %d : tensor<3xf32>
  return %t : tensor<3xf32>
}"""


def _runs(text: str, args: list[np.ndarray], inline: bool) -> list[list[np.ndarray]]:
    old, compiled.INLINE_LOOPS = compiled.INLINE_LOOPS, inline
    try:
        ev = Evaluator(parse(text))
        return [ev.call("main", args) for _ in range(CALLS)]
    finally:
        compiled.INLINE_LOOPS = old


def _bits(values: list[np.ndarray]) -> list[tuple[str, tuple[int, ...], bytes]]:
    return [(str(v.dtype), v.shape, np.asarray(v).tobytes()) for v in values]


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("x", [[1.0, -2.0, 0.25], [np.nan, -0.0, np.inf], [0.0, 0.0, 0.0]])
def test_generated_loops_give_the_steps_bits(n: int, x: list[float]) -> None:
    args = [np.array(x, np.float32), np.array(n, np.int32)]
    loops, steps = _runs(NESTED, args, True), _runs(NESTED, args, False)
    for a, b in zip(loops, steps, strict=True):
        assert _bits(a) == _bits(b)
    triangle = n * (n - 1) * (n - 2) // 6 if n > 1 else 0  # sum over i < n of (0 + ... + i-1)
    assert int(loops[0][1]) == triangle


def test_the_while_becomes_a_python_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    sources: list[str] = []
    real = compiled._Codegen.build

    def build(self: compiled._Codegen) -> dict:  # type: ignore[type-arg]
        sources.append("\n".join(self.lines))
        return real(self)

    monkeypatch.setattr(compiled._Codegen, "build", build)
    Evaluator(parse(NESTED)).call("main", [np.ones(3, np.float32), np.array(2, np.int32)])
    assert sources[0].count("while True:") == 3
    monkeypatch.setattr(compiled, "INLINE_LOOPS", False)
    sources.clear()
    Evaluator(parse(NESTED)).call("main", [np.ones(3, np.float32), np.array(2, np.int32)])
    assert "while True:" not in sources[0]


FAILING = """func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2x3xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %t = stablehlo.transpose %v, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %i2, %v : tensor<i32>, tensor<2x3xf32>
  }
  return %r#1 : tensor<2x3xf32>
}"""


@pytest.mark.parametrize("inline", [True, False])
def test_an_error_in_a_loop_body_is_located_at_its_op(inline: bool) -> None:
    old, compiled.INLINE_LOOPS = compiled.INLINE_LOOPS, inline
    try:
        ev = Evaluator(parse(FAILING))
        for _ in range(CALLS):
            with pytest.raises(InterpreterError) as e:
                ev.call("main", [np.zeros((2, 3), np.float32)])
            assert str(e.value).startswith("-:9:10: error: 'stablehlo.transpose' failed")
    finally:
        compiled.INLINE_LOOPS = old


def test_a_traced_run_reports_the_loop_and_its_ops() -> None:
    seen: list[str] = []

    class Names:
        def after_op(self, op, results):  # type: ignore[no-untyped-def]
            seen.append(op.name)

    ev = Evaluator(parse(NESTED), observer=Names())
    for _ in range(CALLS):
        seen.clear()
        ev.call("main", [np.ones(3, np.float32), np.array(3, np.int32)])
        assert seen.count("stablehlo.while") == 1 + 3 + 1 and seen.count("stablehlo.sine") == 3


# values computed when compiling are read as globals of the generated code: never deleted, also
# when a callee or a loop body returns one, or nothing uses one
CONSTANTS = """func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %unused = stablehlo.constant dense<7.0> : tensor<2xf32>
  %k = func.call @seven() : () -> tensor<2xf32>
  %r:3 = stablehlo.while(%i = %c0, %v = %x, %w = %x) : tensor<i32>, tensor<2xf32>, tensor<2xf32>
  cond {
    %n = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %half = stablehlo.constant dense<0.5> : tensor<2xf32>
    %v2 = stablehlo.add %v, %half : tensor<2xf32>
    stablehlo.return %i2, %v2, %half : tensor<i32>, tensor<2xf32>, tensor<2xf32>
  }
  return %k, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func private @seven() -> tensor<2xf32> {
  %s = stablehlo.constant dense<7.0> : tensor<2xf32>
  return %s : tensor<2xf32>
}"""


@pytest.mark.parametrize("inline", [True, False])
def test_constants_returned_by_callees_and_loops(inline: bool) -> None:
    old = compiled.INLINE_LOOPS, compiled.INLINE_CALLS
    compiled.INLINE_LOOPS = compiled.INLINE_CALLS = inline
    try:
        ev = Evaluator(parse(CONSTANTS))
        for _ in range(12):
            k, v, w = ev.call("main", [np.array([1.0, -1.0], np.float32)])
            assert k.tolist() == [7.0, 7.0] and v.tolist() == [2.0, 0.0]
            assert w.tolist() == [0.5, 0.5]
    finally:
        compiled.INLINE_LOOPS, compiled.INLINE_CALLS = old
