"""VHLO types, attributes and ops: generated from specs/, text identical to upstream's, round-trips."""

from __future__ import annotations

import pytest
from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import ops as vo
from stablehlo_py.vhlo import types as vt

from stablehlo_py import specs
from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify

# --------------------------------------------------------------------------------------------
# Coverage: every row of the table has a class, and nothing else


def test_every_table_type_has_a_class() -> None:
    assert set(vt.TYPE_CLASSES) == {t.name for t in specs.types()}
    for name, cls in vt.TYPE_CLASSES.items():
        assert cls.name == f"vhlo.{name}"


def test_every_table_attribute_has_a_class() -> None:
    assert set(va.ATTR_CLASSES) == {a.name for a in specs.attrs()}
    for spec in specs.attrs():
        if spec.kind == "enum":
            cls = va.ENUM_CLASSES[spec.name]
            assert cls.CASES == tuple(c.name for c in spec.cases)


def test_every_table_op_has_a_class() -> None:
    assert set(vo.OP_CLASSES) == {o.name for o in specs.ops()}
    assert len(vo.OP_CLASSES) == 145
    for name, cls in vo.OP_CLASSES.items():
        assert cls.name == f"vhlo.{name}"
        assert cls.SPEC is specs.op(name)


# --------------------------------------------------------------------------------------------
# Text: upstream's spelling (from the CHECK lines of stablehlo_legalize_to_vhlo.mlir)

TYPES = [
    "!vhlo.f32_v1",
    "!vhlo.bool_v1",
    "!vhlo.tf31_v1",
    "!vhlo.token_v1",
    "!vhlo.tensor_v1<!vhlo.f32_v1>",
    "!vhlo.tensor_v1<4x?x!vhlo.i64_v1>",
    "!vhlo.tensor_v1<?x?x!vhlo.f32_v1, #vhlo.type_extensions_v1<bounds = [16, ?]>>",
    "!vhlo.unranked_tensor_v1<!vhlo.f32_v1>",
    "!vhlo.buffer_v1<2x!vhlo.f32_v1>",
    "!vhlo.complex_v1<!vhlo.f64_v1>",
    "!vhlo.tuple_v1<>",
    "!vhlo.tuple_v1<!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.token_v1>",
    "!vhlo.func_v1<(!vhlo.token_v1) -> !vhlo.token_v1>",
    "!vhlo.func_v1<(()) -> !vhlo.future_v1<!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.i32_v1>>>",
    "!vhlo.func_v1<(!vhlo.f32_v1, !vhlo.i32_v1) -> ()>",
    "!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>",
    "!vhlo.quant_per_axis_v1<!vhlo.i8_v1:!vhlo.f32_v1, 0, [3.400000e+01, 3.400000e+01], [16, 16], -128:127, 1>",
]

ATTRS = [
    "#vhlo.integer_v1<1 : i64>",
    "#vhlo.integer_v1<-1 : i32>",
    "#vhlo.float_v1<1.000000e-03 : !vhlo.f32_v1>",
    "#vhlo.bool_v1<true>",
    '#vhlo.string_v1<"\\08\\03\\1A\\02">',
    "#vhlo.array_v1<[]>",
    "#vhlo.array_v1<[#vhlo<precision_v1 DEFAULT>, #vhlo<precision_v1 HIGHEST>]>",
    "#vhlo.dict_v1<{}>",
    '#vhlo.dict_v1<{#vhlo.string_v1<"attr1"> = #vhlo.integer_v1<1 : i32>}>',
    "#vhlo.tensor_v1<dense<[[0], [1]]> : tensor<2x1xi64>>",
    "#vhlo.tensor_v1<dense<> : tensor<0xi64>>",
    "#vhlo.tensor_v1<dense<true> : tensor<8xi1>>",
    "#vhlo.type_v1<!vhlo.none_v1>",
    "#vhlo<comparison_direction_v1 GT>",
    "#vhlo<api_version_v1 API_VERSION_TYPED_FFI>",
    "#vhlo<rng_algorithm_v1 THREE_FRY>",
    "#vhlo.output_operand_alias_v1<outputTupleIndices = [], operandIndex = 0, operandTupleIndices = []>",
    "#vhlo.result_accuracy_v1<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 1, mode = #vhlo<result_accuracy_mode_v1 TOLERANCE>>",
    '#vhlo.replica_group_mesh_axes_v1<mesh = #vhlo.string_v1<"mesh">, axes = #vhlo.array_v1<[#vhlo.axis_ref_v1<name = #vhlo.string_v1<"x">, sub_axis_info = #vhlo.sub_axis_info_v1<pre_size = 1, size = 2>>, #vhlo.axis_ref_v1<name = #vhlo.string_v1<"y">>]>>',
    '#vhlo.mesh_v1<axes = #vhlo.array_v1<[#vhlo.mesh_axis_v1<name = #vhlo.string_v1<"x">, size = 2>]>>',
]


def _roundtrip_attr(text: str) -> str:
    module = parse(f"func.func @f() attributes {{vhlo.x = {text}}} {{\n  return\n}}\n")
    printed = print_ir(module)
    line = next(line for line in printed.splitlines() if "vhlo.x" in line)
    return line.split("vhlo.x = ", 1)[1].rsplit("}", 1)[0]


@pytest.mark.parametrize("text", TYPES)
def test_type_text_roundtrips(text: str) -> None:
    assert _roundtrip_attr(text) == text


@pytest.mark.parametrize("text", ATTRS)
def test_attribute_text_roundtrips(text: str) -> None:
    assert _roundtrip_attr(text) == text


def test_func_type_with_no_inputs_prints_double_parens() -> None:
    assert vt.func_type([], [vt.F32]).mlir_text() == "!vhlo.func_v1<(()) -> !vhlo.f32_v1>"


def test_dictionary_keys_must_be_vhlo() -> None:
    with pytest.raises(ParseError, match="expected VHLO key attribute"):
        parse('func.func @f() attributes {x = #vhlo.dict_v1<{"attr1" = #vhlo.array_v1<[]>}>} {\n return\n}')


def test_result_accuracy_mode_must_be_vhlo() -> None:
    text = (
        "#vhlo.result_accuracy_v1<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, "
        "mode = #stablehlo.result_accuracy_mode<DEFAULT>>"
    )
    with pytest.raises(ParseError, match="expected VHLO result accuracy mode"):
        parse(f"func.func @f() attributes {{x = {text}}} {{\n return\n}}")


def test_unknown_enum_case_is_a_parse_error_naming_the_cases() -> None:
    with pytest.raises(ParseError, match="EQ, NE"):
        parse("func.func @f() attributes {x = #vhlo<comparison_direction_v1 BIG>} {\n return\n}")


# --------------------------------------------------------------------------------------------
# Ops: generic form only (func_v1 has upstream's custom syntax)

FUNC = """vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<!vhlo.f32_v1>) -> (!vhlo.tensor_v1<!vhlo.f32_v1>) {
  %0 = "vhlo.add_v1"(%arg0, %arg0) : (!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>
  "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
"""


def test_func_v1_pretty_form_roundtrips() -> None:
    module = parse(FUNC)
    verify(module)
    printed = print_ir(module)
    assert printed == "module {\n" + "".join("  " + line + "\n" for line in FUNC.splitlines()) + "}\n"


def test_generic_form_reads_back_identically() -> None:
    module = parse(FUNC)
    generic = print_ir(module, generic=True)
    assert '"vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<' in generic
    assert print_ir(parse(generic)) == print_ir(module)


def test_inherent_attributes_in_the_attribute_dictionary_are_properties() -> None:
    module = parse(
        '%0 = "vhlo.constant_v1"() {value = #vhlo.tensor_v1<dense<1> : tensor<i32>>} : () -> !vhlo.tensor_v1<!vhlo.i32_v1>\n'
    )
    op = next(iter(module.body.ops))
    assert "value" in op.properties and not op.attributes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '%0 = "vhlo.iota_v1"() : () -> !vhlo.tensor_v1<4x!vhlo.f32_v1>\n',
            "requires attribute 'iota_dimension'",
            id="missing_required_attribute",
        ),
        pytest.param(
            'func.func @f(%a: !vhlo.tensor_v1<!vhlo.f32_v1>) {\n'
            '  %0 = "vhlo.add_v1"(%a) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>\n'
            "  return\n}\n",
            r"expects operands \(lhs, rhs\)",
            id="wrong_operand_count",
        ),
        pytest.param(
            'func.func @f(%a: tensor<f32>) {\n'
            '  %0 = "vhlo.abs_v1"(%a) : (tensor<f32>) -> tensor<f32>\n'
            "  return\n}\n",
            "must be a VHLO type",
            id="builtin_types_are_refused_by_vhlo_ops",
        ),
    ],
)
def test_malformed_vhlo_ops_are_verify_errors(text: str, message: str) -> None:
    module = parse(text)
    with pytest.raises(VerifyError, match=message):
        verify(module)


def test_same_variadic_operand_groups() -> None:
    cls = vo.op_class("reduce_v1")
    module = parse(
        'func.func @f(%a: !vhlo.tensor_v1<4x!vhlo.f32_v1>, %b: !vhlo.tensor_v1<!vhlo.f32_v1>) {\n'
        '  %0:2 = "vhlo.reduce_v1"(%a, %a, %b, %b) <{dimensions = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>}> ({\n'
        '  ^bb0(%x: !vhlo.tensor_v1<!vhlo.f32_v1>, %y: !vhlo.tensor_v1<!vhlo.f32_v1>, %z: !vhlo.tensor_v1<!vhlo.f32_v1>, %w: !vhlo.tensor_v1<!vhlo.f32_v1>):\n'
        '    "vhlo.return_v1"(%x, %z) : (!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> ()\n'
        '  }) : (!vhlo.tensor_v1<4x!vhlo.f32_v1>, !vhlo.tensor_v1<4x!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>) -> (!vhlo.tensor_v1<!vhlo.f32_v1>, !vhlo.tensor_v1<!vhlo.f32_v1>)\n'
        "  return\n}\n"
    )
    verify(module)
    op = next(o for o in module.walk() if isinstance(o, cls))
    assert len(op.group("inputs")) == 2 and len(op.group("init_values")) == 2
