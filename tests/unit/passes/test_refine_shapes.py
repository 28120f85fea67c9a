"""stablehlo-refine-shapes through its Python API (passes/stablehlo_refine_shapes.py) and the
shape-only inference layer it uses (stablehlo_py/ir/infer/components.py)."""

from __future__ import annotations

import pytest
from stablehlo_py.passes.stablehlo_refine_shapes import refine_shapes

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.infer.components import Components, infer_components


def _refined(text: str) -> str:
    return print_ir(refine_shapes(parse(text, "t.mlir")))


def test_shape_computation_is_folded_and_refines_dynamic_reshape() -> None:
    out = _refined(
        """func.func @main(%arg0: tensor<6xf32>) -> tensor<?x?xf32> {
  %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<6xf32>) -> tensor<i32>
  %1 = stablehlo.constant dense<2> : tensor<i32>
  %2 = stablehlo.divide %0, %1 : tensor<i32>
  %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
  %4 = stablehlo.reshape %1 : (tensor<i32>) -> tensor<1xi32>
  %5 = stablehlo.concatenate %3, %4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %6 = stablehlo.dynamic_reshape %arg0, %5 : (tensor<6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  func.return %6 : tensor<?x?xf32>
}"""
    )
    assert "func.func @main(%arg0: tensor<6xf32>) -> tensor<3x2xf32>" in out
    assert "stablehlo.constant dense<[3, 2]> : tensor<2xi32>" in out
    assert "-> tensor<3x2xf32>" in out
    assert "get_dimension_size" not in out and "concatenate" not in out  # folded, then dead


def test_refinement_flows_through_elementwise_ops_and_the_signature() -> None:
    out = _refined(
        """func.func @main(%arg0: tensor<4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<?xf64>
  %1 = stablehlo.abs %0 : tensor<?xf64>
  %2 = stablehlo.convert %1 : (tensor<?xf64>) -> tensor<?xf32>
  func.return %2 : tensor<?xf32>
}"""
    )
    assert "-> tensor<4xf32>" in out.splitlines()[1]
    assert "?" not in out
    assert "unrealized_conversion_cast" not in out


def test_a_callee_is_specialized_for_its_dimension_argument() -> None:
    out = _refined(
        """module {
  func.func @main(%arg0: tensor<3xf32>) -> tensor<?xf32> {
    %0 = stablehlo.constant dense<3> : tensor<i64>
    %1 = func.call @body(%0, %arg0) : (tensor<i64>, tensor<3xf32>) -> tensor<?xf32>
    func.return %1 : tensor<?xf32>
  }
  func.func private @body(%n: tensor<i64>, %x: tensor<3xf32>) -> tensor<?xf32> {
    %0 = stablehlo.reshape %n : (tensor<i64>) -> tensor<1xi64>
    %1 = stablehlo.dynamic_broadcast_in_dim %x, %0, dims = [0] : (tensor<3xf32>, tensor<1xi64>) -> tensor<?xf32>
    func.return %1 : tensor<?xf32>
  }
}"""
    )
    assert "func.func private @body(%arg0: tensor<3xf32>) -> tensor<3xf32>" in out
    assert "call @body(%arg0) : (tensor<3xf32>) -> tensor<3xf32>" in out


def test_incompatible_refinement_keys_are_reported_with_the_verifier_error() -> None:
    text = """module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<6xf32>) -> tensor<?xf32> {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<?xf32>
    %1 = stablehlo.bitcast_convert %arg1 : (tensor<6xf32>) -> tensor<?xf32>
    %2 = func.call @f(%0) : (tensor<?xf32>) -> tensor<?xf32>
    %3 = func.call @f(%1) : (tensor<?xf32>) -> tensor<?xf32>
    func.return %3 : tensor<?xf32>
  }
  func.func @f(%arg0: tensor<?xf32>) -> tensor<?xf32> {
    func.return %arg0 : tensor<?xf32>
  }
}"""
    with pytest.raises(VerifyError) as info:
        refine_shapes(parse(text, "t.mlir"))
    messages = [e.message for e in getattr(info.value, "preceding", [])] + [info.value.message]
    assert any("'func.func' op refined with incompatible refinement keys" in m for m in messages), (
        messages
    )
    assert "curr=RefinementKey(f, toks=0, dim_args=[], fn_args=[tensor<6xf32>])" in str(info.value)


def test_several_functions_without_main_are_refused() -> None:
    text = """module {
  func.func @a(%arg0: tensor<f32>) -> tensor<f32> { func.return %arg0 : tensor<f32> }
  func.func @b(%arg0: tensor<f32>) -> tensor<f32> { func.return %arg0 : tensor<f32> }
}"""
    with pytest.raises(
        VerifyError, match="must have no more than one function or a `main` function"
    ):
        refine_shapes(parse(text, "t.mlir"))


def test_components_are_shape_only_where_upstream_infers_shapes_only() -> None:
    m = parse(
        """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> (tensor<?x?xf64>, tensor<?x?xi32>) {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<?x?xf64>
  %1 = stablehlo.convert %a : (tensor<2x3xf32>) -> tensor<?x?xi32>
  func.return %0, %1 : tensor<?x?xf64>, tensor<?x?xi32>
}""",
        "t.mlir",
    )
    dot = next(o for o in m.walk() if o.name == "stablehlo.dot")
    convert = next(o for o in m.walk() if o.name == "stablehlo.convert")
    assert infer_components(dot) == [Components((2, 5))]
    assert infer_components(convert) == [Components((2, 3))]
    out = print_ir(refine_shapes(m))
    assert "-> tensor<2x5xf64>" in out and "-> tensor<2x3xi32>" in out


def test_module_without_function_is_left_as_is() -> None:
    """Nothing to refine: the module comes back unchanged (upstream's pass fails silently there)."""
    from stablehlo_py.passes.stablehlo_refine_shapes import refine_shapes

    from stablehlo_py.ir import parse, print_ir

    module = parse("module {\n}\n")
    assert print_ir(refine_shapes(module)) == "module {\n}\n"
