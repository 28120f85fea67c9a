"""Steps shared by ops of equal content (interpreter/shared_steps.py): one step per content, never
one that holds its own op, and the same results as steps prepared per op."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from stablehlo_py.interpreter import compiled, run, shared_steps
from stablehlo_py.interpreter.registry import Step, load_impls

from stablehlo_py.ir import parse

PROGRAM = """
func.func @main(%x: tensor<2x3xf32>, %p: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xi1>) {
  %a = stablehlo.add %x, %p : tensor<2x3xf32>
  %b = stablehlo.add %a, %x : tensor<2x3xf32>
  %c = stablehlo.compare GT, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %d = stablehlo.compare LT, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %e = stablehlo.and %c, %d : tensor<2x3xi1>
  %t = stablehlo.transpose %b, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %s = stablehlo.slice %b [0:2, 0:3] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %u = stablehlo.slice %s [0:2, 0:3:2] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %v = stablehlo.concatenate %u, %u, dim = 1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x4xf32>
  %w = stablehlo.slice %v [0:2, 1:4] : (tensor<2x4xf32>) -> tensor<2x3xf32>
  return %t, %w, %e : tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xi1>
}
"""

R = np.random.default_rng(3)
ARGS = [R.normal(size=(2, 3)).astype(np.float32) for _ in range(2)]


def _ops(module: Any, name: str) -> list[Any]:
    return [op for op in module.walk() if op.name == name]


def test_ops_of_equal_content_share_one_step() -> None:
    load_impls()
    module = parse(PROGRAM)
    adds = [compiled.step_for(op) for op in _ops(module, "stablehlo.add")]
    assert adds[0] is adds[1]
    gt, lt = (compiled.step_for(op) for op in _ops(module, "stablehlo.compare"))
    assert gt is not lt  # another direction
    slices = [compiled.step_for(op) for op in _ops(module, "stablehlo.slice")]
    assert slices[0] is not slices[1] and slices[0] is not slices[2]
    other = parse(PROGRAM)  # another module: its equal ops find the same steps
    assert compiled.step_for(_ops(other, "stablehlo.add")[0]) is adds[0]
    assert compiled.step_for(_ops(other, "stablehlo.slice")[2]) is slices[2]


def test_shared_steps_give_what_steps_per_op_give(monkeypatch: pytest.MonkeyPatch) -> None:
    shared = run(parse(PROGRAM), *ARGS)
    monkeypatch.setattr(shared_steps, "find", lambda op, impl, wrappers: (None, None))
    alone = run(parse(PROGRAM), *ARGS)
    for a, b in zip(shared, alone, strict=True):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    x, p = ARGS
    np.testing.assert_array_equal(shared[0], (x + p + x).T)


def test_a_step_holding_its_op_is_not_shared() -> None:
    module = parse(PROGRAM)
    op = _ops(module, "stablehlo.add")[0]

    def reads_op(a: Any) -> Any:
        return op.name

    def nested() -> Any:
        def inner(a: Any) -> Any:
            return reads_op(a)

        return inner

    class Holder:
        def __init__(self) -> None:
            self.op = op

        def run(self, a: Any) -> Any:
            return a

    assert not shared_steps.shareable(Step(reads_op))
    assert not shared_steps.shareable(Step(nested()))
    assert not shared_steps.shareable(Step(Holder().run))
    assert not shared_steps.shareable(Step(functools.partial(lambda o, a: a, op.results[0])))
    assert not shared_steps.shareable(Step(functools.partial(lambda o, a: a, [{"k": (op,)}])))
    assert shared_steps.shareable(Step(functools.partial(np.add, np.float32(1))))


def test_constants_are_shared_only_small_and_read_only() -> None:
    small = np.zeros(4, np.float32)
    small.flags.writeable = False
    big = np.zeros(1 << 12, np.float32)
    big.flags.writeable = False
    assert shared_steps.shareable(Step(fn=print, value=small))
    assert not shared_steps.shareable(Step(fn=print, value=np.zeros(4, np.float32)))
    assert not shared_steps.shareable(Step(fn=print, value=big))


def test_custom_calls_and_region_ops_are_prepared_per_op() -> None:
    load_impls()
    text = """
func.func @main(%x: tensor<2xf32>) -> tensor<f32> {
  %a = stablehlo.custom_call @t(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %b = stablehlo.custom_call @t(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %s = stablehlo.reduce(%b init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %m = stablehlo.add %r, %s : tensor<f32>
  return %m : tensor<f32>
}"""
    module = parse(text)
    calls = [compiled.step_for(op) for op in _ops(module, "stablehlo.custom_call")]
    assert calls[0] is not calls[1]  # each holds its op (the impl reads it)
    reduces = [compiled.step_for(op) for op in _ops(module, "stablehlo.reduce")]
    assert reduces[0] is not reduces[1]


def test_a_large_constant_is_neither_shared_nor_kept() -> None:
    """Its step holds its value: sharing would keep the value alive in the table for nothing."""
    from stablehlo_py.ir.context import CONTEXT, fresh_context

    load_impls()
    n = 4096
    text = (
        f"func.func @main() -> tensor<{n}xf32> {{\n"
        f"  %c = stablehlo.constant dense<1.5> : tensor<{n}xf32>\n"
        f"  %d = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>\n"
        f"  return %c : tensor<{n}xf32>\n}}"
    )
    with fresh_context():
        module = parse(text)
        big, small = _ops(module, "stablehlo.constant")
        assert compiled.step_for(big).value.nbytes == 4 * n
        assert len(CONTEXT["interpreter.shared_steps"]) == 0
        compiled.step_for(small)
        assert len(CONTEXT["interpreter.shared_steps"]) == 1  # (by identity only)
