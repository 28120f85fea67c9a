"""stablehlo-refine-arguments and its Python API `refine_arguments` (upstream's
StablehloRefineArguments.cpp)."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_refine_arguments import (
    OPERAND_WRAPPER,
    refine_arguments,
    refine_shapes_target,
)
from xdsl.dialects.builtin import TensorType, f32

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.types import tensor_type
from stablehlo_py.ir.verify import verify

PROGRAM = """
func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<f32>, %arg2: tensor<*xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  %1 = stablehlo.multiply %0, %arg0 : tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
"""


def _main(module):  # type: ignore[no-untyped-def]
    return refine_shapes_target(module)


def test_api_with_type_strings_wraps_refined_arguments() -> None:
    m = parse(PROGRAM)
    assert refine_arguments(m, ["tensor<3x4xf32>", "tensor<f32>", "tensor<2x2xf32>"]) is m
    verify(m)
    text = print_ir(m)
    assert (
        "func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<f32>, %arg2: tensor<2x2xf32>) -> tensor<?x4xf32>"
        in text
    )
    assert "%c = stablehlo.constant dense<[3, 4]> : tensor<2xi64>" in text
    assert (
        f"%0 = stablehlo.custom_call @{OPERAND_WRAPPER}(%arg0, %c) {{indices_of_shape_operands = dense<1> : "
        "tensor<1xi64>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>"
    ) in text
    assert "%c_0 = stablehlo.constant dense<2> : tensor<2xi64>" in text
    assert f"%1 = stablehlo.custom_call @{OPERAND_WRAPPER}(%arg2, %c_0)" in text
    # every former use of %arg0 goes through its wrapper; the unrefined %arg1 has no wrapper
    assert "stablehlo.add %0, %0" in text and "stablehlo.multiply %2, %0" in text
    assert text.count(OPERAND_WRAPPER) == 2


def test_api_with_type_attributes_and_function_type() -> None:
    m = parse(PROGRAM)
    t = tensor_type(f32, (5, 4))
    refine_arguments(m, [t, "tensor<f32>", "tensor<*xf32>"])
    func = _main(m)
    assert next(iter(func.function_type.inputs.data)) == t
    assert func.body.blocks[0].args[0].type == t
    assert isinstance(next(iter(func.function_type.outputs.data)), TensorType)
    assert print_ir(m).count(OPERAND_WRAPPER) == 1


def test_no_refinement_is_the_identity() -> None:
    m = parse(PROGRAM)
    before = print_ir(m)
    refine_arguments(m, ["tensor<?x4xf32>", "tensor<f32>", "tensor<*xf32>"])
    assert print_ir(m) == before


def test_pass_through_the_pipeline_verifies() -> None:
    m = parse(PROGRAM)
    out = run_pipeline(
        m, [("stablehlo-refine-arguments", {"types": "tensor<7x4xf32>,tensor<f32>,tensor<*xf32>"})]
    )
    assert "%arg0: tensor<7x4xf32>" in print_ir(out)


@pytest.mark.parametrize(
    ("types", "message"),
    [
        (["tensor<3x4xf32>"], "number of refinements must match number of op operands 1 vs 3"),
        (
            ["tensor<3x4xi32>", "tensor<f32>", "tensor<*xf32>"],
            "invalid refinement for argument 0, refinement element types must match in tensor<?x4xf32> -> tensor<3x4xi32>",
        ),
        (
            ["tensor<3x5xf32>", "tensor<f32>", "tensor<*xf32>"],
            (
                "invalid refinement for argument 0, refinement dimension sizes must match for static dimensions in "
                "tensor<?x4xf32> -> tensor<3x5xf32>"
            ),
        ),
        (
            ["tensor<3x4x1xf32>", "tensor<f32>", "tensor<*xf32>"],
            "invalid refinement for argument 0, refinement rank must match operand rank in tensor<?x4xf32> -> tensor<3x4x1xf32>",
        ),
        (
            ["tensor<*xf32>", "tensor<f32>", "tensor<*xf32>"],
            "invalid refinement for argument 0, refinement must be ranked in tensor<?x4xf32> -> tensor<*xf32>",
        ),
        (
            ["tensor<3x4xf32>", "!stablehlo.token", "tensor<*xf32>"],
            "invalid refinement for argument 1, refinement must be a tensor in tensor<f32> -> !stablehlo.token",
        ),
    ],
)
def test_invalid_refinements_are_reported_at_the_function(types: list[str], message: str) -> None:
    m = parse(PROGRAM, "p.mlir")
    with pytest.raises(VerifyError) as e:
        refine_arguments(m, types)
    assert e.value.message == f"'func.func' op {message}"
    assert e.value.location == "p.mlir:2:1"


@pytest.mark.parametrize("bad", ["!not.a_type", "tensor<3x4xf32", "tensor<3x4xf32> junk", "3"])
def test_invalid_type_string(bad: str) -> None:
    m = parse(PROGRAM)
    with pytest.raises(VerifyError, match="Invalid type string: "):
        refine_arguments(m, [bad, "tensor<f32>", "tensor<*xf32>"])


def _refined(text: str, types: list[str]) -> str:
    """The printout of ``text`` after refine_arguments(``types``)."""
    m = parse(text)
    refine_arguments(m, types)
    return print_ir(m)


def test_several_functions_refine_main_only() -> None:
    text = _refined(
        "func.func private @f(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n  return %arg0 : tensor<?xf32>\n}\n"
        "func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {\n"
        "  %0 = func.call @f(%arg0) : (tensor<?xf32>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n",
        ["tensor<2xf32>"],
    )
    assert "func.func private @f(%arg0: tensor<?xf32>)" in text
    assert "func.func @main(%arg0: tensor<2xf32>)" in text


def test_several_functions_without_main() -> None:
    m = parse(
        "func.func @f(%arg0: tensor<?xf32>) {\n  return\n}\nfunc.func @g(%arg0: tensor<?xf32>) {\n  return\n}\n"
    )
    with pytest.raises(
        VerifyError, match="must have no more than one function or a `main` function"
    ):
        refine_arguments(m, ["tensor<2xf32>"])


def test_unknown_option() -> None:
    from stablehlo_py.errors import StableHLOError

    with pytest.raises(StableHLOError, match="unknown option 'type'"):
        run_pipeline(parse(PROGRAM), [("stablehlo-refine-arguments", {"type": "tensor<f32>"})])


def test_partial_refinement_writes_mlirs_dynamic_size_in_the_shape_constant() -> None:
    text = _refined(
        "func.func @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {\n  return %arg0 : tensor<?x?xf32>\n}\n",
        ["tensor<8x?xf32>"],
    )
    assert "%c = stablehlo.constant dense<[8, -9223372036854775808]> : tensor<2xi64>" in text
    assert "(tensor<8x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>" in text


def test_api_rejects_what_is_not_a_type() -> None:
    from stablehlo_py.errors import StableHLOError

    with pytest.raises(StableHLOError, match=r"refinement 0 is \(3, 4\); give an MLIR type"):
        refine_arguments(parse(PROGRAM), [(3, 4), "tensor<f32>", "tensor<*xf32>"])  # type: ignore[list-item]


def test_api_accepts_one_type_for_one_argument() -> None:
    m = parse("func.func @main(%arg0: tensor<?xf32>) {\n  return\n}\n")
    refine_arguments(m, "tensor<5xf32>")
    assert "%arg0: tensor<5xf32>" in print_ir(m)


def test_wrappers_take_the_arguments_locations() -> None:
    m = parse(
        'func.func @main(%arg0: tensor<?xf32> loc("x"), %arg1: tensor<?xf32>) {\n  return\n}\n',
        "l.mlir",
    )
    refine_arguments(m, ["tensor<2xf32>", "tensor<3xf32>"])
    lines = print_ir(m, debuginfo=True).splitlines()
    assert lines[2].endswith(': tensor<1xi64> loc("x")') and lines[3].endswith('loc("x")')
    assert lines[4].endswith('loc("l.mlir":1:48)') and lines[5].endswith('loc("l.mlir":1:48)')
