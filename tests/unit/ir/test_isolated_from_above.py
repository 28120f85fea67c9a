"""A function (IsolatedFromAbove) whose body uses a value of another function fails verification,
also through the compiled plans' own IsolatedFromAbove check; values of enclosing blocks inside one
function (a reduce body using the function's arguments) are fine."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from stablehlo_py.ir.verify.driver import verifies

PROGRAM = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @g(%b: tensor<4xf32>, %init: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%b init: %init) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>)  {
    %1 = stablehlo.add %x, %init : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }
  return %0 : tensor<f32>
}
"""


def _funcs(module):  # type: ignore[no-untyped-def]
    return [op for op in module.walk() if op.name == "func.func"]


def test_values_of_enclosing_blocks_within_one_function_verify() -> None:
    module = parse(PROGRAM)
    verify(module)
    assert all(verifies(f) for f in _funcs(module))


def test_a_value_of_another_function_is_refused() -> None:
    module = parse(PROGRAM)
    f, g = _funcs(module)
    add = next(op for op in f.walk() if op.name == "stablehlo.add")
    add.operands[1] = g.regions[0].blocks.first.args[0]  # %b of @g, used in @f
    assert not verifies(f)
    with pytest.raises(StableHLOError, match="IsolatedFromAbove|outside"):
        verify(module)
