"""`stablehlo-refine-polymorphic-shapes{types=...}`: XLA's refinement of a shape-polymorphic JAX
export in one pass (refine-arguments, composites to calls, inline, ext-refine-shapes,
canonicalize-dynamism), and its check that nothing dynamic is left.  Oracle tests with real
exports: tests/oracle/test_shape_poly.py."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes.registry import PASSES
from stablehlo_py.passes.stablehlo_refine_polymorphic_shapes import (
    PolymorphicShapesError,
    dynamic_values,
    refine_polymorphic_shapes,
)

from stablehlo_py.ir import parse, print_ir

# JAX's shape: the window of a cumulative sum over the dynamic dimension comes from its size, in a
# private helper that gets the size as an argument
CUMSUM = """
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %1 = call @cumsum(%0, %arg0) : (tensor<i32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
func.func private @cumsum(%n: tensor<i32>, %x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %ones = stablehlo.constant dense<1> : tensor<2xi32>
  %m1 = stablehlo.constant dense<-1> : tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<1xi32>
  %zeros = stablehlo.constant dense<0> : tensor<1x2xi32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %dims = stablehlo.concatenate %n1, %one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %lo = stablehlo.add %n, %m1 : tensor<i32>
  %lo1 = stablehlo.reshape %lo : (tensor<i32>) -> tensor<1xi32>
  %row = stablehlo.concatenate %lo1, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row2 = stablehlo.reshape %row : (tensor<2xi32>) -> tensor<1x2xi32>
  %pad = stablehlo.concatenate %row2, %zeros, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %init, %dims, %ones, %ones, %ones, %pad)
    {called_computations = [@body]} : (tensor<?x4xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
func.func private @body(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
"""


@pytest.mark.parametrize("n", [1, 3, 7])
def test_a_cumsum_becomes_static_and_computes_the_cumulative_sum(n: int) -> None:
    module = refine_polymorphic_shapes(parse(CUMSUM), [f"tensor<{n}x4xf32>"])
    assert dynamic_values(module) == []
    assert "?" not in print_ir(module)
    x = np.arange(n * 4, dtype=np.float32).reshape(n, 4)
    (got,) = run(module, x)
    np.testing.assert_allclose(got, np.cumsum(x, axis=0))


def test_upstreams_refine_shapes_alone_leaves_it_dynamic() -> None:
    """Why the pass exists: upstream's stablehlo-refine-shapes leaves the experimental custom call
    to XLA's patterns."""
    module = PASSES["stablehlo-refine-arguments"].run(parse(CUMSUM), {"types": "tensor<3x4xf32>"})
    module = PASSES["stablehlo-refine-shapes"].run(module, {})
    assert dynamic_values(module) != []


def test_a_program_left_dynamic_is_an_error_naming_the_op() -> None:
    with pytest.raises(PolymorphicShapesError) as e:
        refine_polymorphic_shapes(parse(CUMSUM))  # no concrete types
    text = str(e.value)
    assert "not static after shape refinement" in text
    assert "argument #0 of 'func.func' has type tensor<?x4xf32>" in text
    assert "more dynamic values" in text and "types=" in text


def test_the_pass_takes_its_options_from_the_pass_table() -> None:
    info = PASSES["stablehlo-refine-polymorphic-shapes"]
    module = info.run(parse(CUMSUM), {"types": "tensor<2x4xf32>"})
    assert dynamic_values(module) == []
    assert [o.name for o in info.options] == ["types"]
