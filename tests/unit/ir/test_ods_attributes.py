"""upstream's ODS attribute constraints: a property of the wrong kind fails with MLIR's message
(`attribute 'x' failed to satisfy constraint: <summary>`), and MLIR's typed strings
(`"foo" : tensor<3xf32>`) are string attributes (StrAttr accepts them; VHLO does not)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerType, Signedness, StringAttr

from stablehlo_py.errors import StableHLOError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.attributes import TypedStringAttr
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.verify import verify

T = "tensor<2x3xf32>"


def _op(body: str) -> str:
    return f"func.func @f(%a: {T}) {{\n  %0 = {body}\n  return\n}}\n"


def test_summaries() -> None:
    assert ods.integer_attr_summary(IntegerType(64)) == "64-bit signless integer attribute"
    assert ods.integer_attr_summary(IntegerType(1)) == "bool attribute"
    assert (
        ods.integer_attr_summary(IntegerType(32, Signedness.UNSIGNED))
        == "32-bit unsigned integer attribute"
    )
    assert ods.dense_array_summary(IntegerType(64)) == "i64 dense array attribute"
    assert ods.property_summary("stablehlo.iota", "iota_dimension", IntegerType) is None
    assert ods.attr_constraint_failure("x", "bool attribute") == (
        "attribute 'x' failed to satisfy constraint: bool attribute"
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            f'"stablehlo.transpose"(%a) {{permutation = array<f32: 1.0, 0.0>}} : ({T}) -> {T}',
            (
                "'stablehlo.transpose' op attribute 'permutation' failed to satisfy constraint: "
                "i64 dense array attribute"
            ),
        ),
        (
            f'"stablehlo.transpose"(%a) {{permutation = "x"}} : ({T}) -> {T}',
            "attribute 'permutation' failed to satisfy constraint: i64 dense array attribute",
        ),
        (
            f'"stablehlo.concatenate"(%a) {{dimension = 0.0 : f32}} : ({T}) -> {T}',
            (
                "attribute 'dimension' failed to satisfy constraint: 64-bit signless integer "
                "attribute whose value is non-negative"
            ),
        ),
        (
            (
                f'"stablehlo.compare"(%a, %a) {{comparison_direction = "EQ"}} : ({T}, {T}) -> '
                "tensor<2x3xi1>"
            ),
            (
                "attribute 'comparison_direction' failed to satisfy constraint: Which comparison "
                "operation to perform."
            ),
        ),
        (
            (
                f'"stablehlo.custom_call"(%a) {{call_target_name = "x", has_side_effect = 1 : i32}} '
                f": ({T}) -> {T}"
            ),
            "attribute 'has_side_effect' failed to satisfy constraint: bool attribute",
        ),
        (
            f'"stablehlo.custom_call"(%a) {{call_target_name = 1 : i32}} : ({T}) -> {T}',
            "attribute 'call_target_name' failed to satisfy constraint: string attribute",
        ),
        (
            (
                f'"stablehlo.custom_call"(%a) {{call_target_name = "x", api_version = 1 : i64}} '
                f": ({T}) -> {T}"
            ),
            "attribute 'api_version' failed to satisfy constraint: Custom call API version",
        ),
    ],
)
def test_wrong_kind_of_property_is_mlirs_message(body: str, message: str) -> None:
    with pytest.raises(VerifyError, match="^") as info:
        verify(parse(_op(body), "t.mlir"))
    assert message in info.value.message
    assert info.value.location == "t.mlir:2:8"


def test_typed_string_is_a_string_attribute() -> None:
    text = _op(
        f'"stablehlo.custom_call"(%a) {{call_target_name = "foo" : tensor<3xf32>}} : ({T}) -> {T}'
    )
    module = parse(text, "t.mlir")
    verify(module)  # StrAttr accepts a typed string, as MLIR's
    op = next(o for o in module.walk() if o.name == "stablehlo.custom_call")
    target = op.properties["call_target_name"]
    assert isinstance(target, TypedStringAttr) and target.data == "foo"
    generic = print_ir(module, generic=True)
    assert 'call_target_name = "foo" : tensor<3xf32>' in generic
    assert print_ir(parse(generic, "g.mlir"), generic=True) == generic
    # the pretty form prints the symbol only (upstream's printCustomCallTarget)
    assert "stablehlo.custom_call @foo(" in print_ir(module)
    # `: none` is no type: a plain StringAttr
    plain = parse(
        _op(f'"stablehlo.custom_call"(%a) {{call_target_name = "foo" : none}} : ({T}) -> {T}')
    )
    op = next(o for o in plain.walk() if o.name == "stablehlo.custom_call")
    assert isinstance(op.properties["call_target_name"], StringAttr)


def test_typed_string_has_no_vhlo_form() -> None:
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo

    text = _op(
        f'"stablehlo.custom_call"(%a) {{call_target_name = "foo" : tensor<3xf32>}} : ({T}) -> {T}'
    )
    module = parse(text, "t.mlir")
    with pytest.raises(
        StableHLOError, match="failed to legalize operation 'stablehlo.custom_call'"
    ):
        legalize_to_vhlo(module)
