"""CHLO ops: pretty and generic round trips, upstream's printed syntax, verifiers, parse errors."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.ops import chlo
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import roundtrip as _roundtrip



def _func(body: str, args: str = "", results: str = "") -> str:
    return f"func.func @f({args}){' -> ' + results if results else ''} {{\n{body}\n  return\n}}\n"


T = "tensor<2x3xf32>"
UNARY_FP = sorted(chlo.UNARY)
UNARY_PRED = sorted(chlo.UNARY_PRED)


@pytest.mark.parametrize("name", UNARY_FP)
def test_unary_roundtrip(name: str) -> None:
    kind = chlo.UNARY[name][0]
    t = "tensor<2x3xcomplex<f32>>" if kind == "complex" else T
    line = f"    %0 = chlo.{name} %arg0 : {t} -> {t}"
    out = _roundtrip(_func(f"  %0 = chlo.{name} %arg0 : {t} -> {t}", f"%arg0: {t}"))
    assert line in out


@pytest.mark.parametrize("name", UNARY_PRED)
def test_is_inf_family(name: str) -> None:
    out = _roundtrip(_func(f"  %0 = chlo.{name} %arg0 : {T} -> tensor<2x3xi1>", f"%arg0: {T}"))
    assert f"chlo.{name} %arg0 : {T} -> tensor<2x3xi1>" in out


def test_unary_generic_form_reads_as_pretty() -> None:
    out = _roundtrip(_func(f'  %0 = "chlo.erf_inv"(%arg0) : ({T}) -> {T}', f"%arg0: {T}"))
    assert f"%0 = chlo.erf_inv %arg0 : {T} -> {T}" in out


@pytest.mark.parametrize(
    "name,bad",
    [
        ("lgamma", "tensor<2x3xcomplex<f32>>"),  # HLO_AnyFpTensor
        ("acos", "tensor<2x3xi32>"),  # HLO_AnyFpOrComplexTensor
    ],
)
def test_unary_rejects_element_type(name: str, bad: str) -> None:
    with pytest.raises(VerifyError, match="operand #0 must be tensor of"):
        verify(parse(_func(f"  %0 = chlo.{name} %arg0 : {bad} -> {bad}", f"%arg0: {bad}")))


@pytest.mark.parametrize("name", UNARY_FP + UNARY_PRED)
def test_unary_rejects_shape_change(name: str) -> None:
    t = "tensor<2x3xcomplex<f32>>" if chlo.UNARY.get(name, ("",))[0] == "complex" else T
    r = t.replace("2x3", "3x2")
    if name in chlo.UNARY_PRED:
        r = "tensor<3x2xi1>"
    with pytest.raises(
        VerifyError, match=r"inferred type\(s\) .* are incompatible with return type\(s\)"
    ):
        verify(parse(_func(f"  %0 = chlo.{name} %arg0 : {t} -> {r}", f"%arg0: {t}")))


def test_asin_acos_kernel_is_complex_only() -> None:
    with pytest.raises(VerifyError, match="tensor of complex type with 32/64-bit float elements values"):
        verify(parse(_func(f"  %0 = chlo._asin_acos_kernel %arg0 : {T} -> {T}", f"%arg0: {T}")))


def test_is_inf_rejects_non_pred_result() -> None:
    with pytest.raises(VerifyError, match=r"result #0 must be tensor of bool values"):
        verify(parse(_func(f"  %0 = chlo.is_inf %arg0 : {T} -> {T}", f"%arg0: {T}")))


BROADCAST = sorted(set(chlo.BROADCAST_BINARY) - {"broadcast_and", "broadcast_or", "broadcast_xor"})


@pytest.mark.parametrize("name", BROADCAST)
def test_broadcast_binary_roundtrip(name: str) -> None:
    sig = f"({T}, tensor<3xf32>) -> {T}"
    out = _roundtrip(
        _func(f"  %0 = chlo.{name} %arg0, %arg1 : {sig}", f"%arg0: {T}, %arg1: tensor<3xf32>")
    )
    assert f"%0 = chlo.{name} %arg0, %arg1 : {sig}" in out


@pytest.mark.parametrize("name", ["broadcast_and", "broadcast_or", "broadcast_xor"])
def test_broadcast_logical_roundtrip(name: str) -> None:
    sig = "(tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>"
    out = _roundtrip(
        _func(
            f"  %0 = chlo.{name} %arg0, %arg1 : {sig}", "%arg0: tensor<4xi8>, %arg1: tensor<4xi8>"
        )
    )
    assert f"chlo.{name} %arg0, %arg1 : {sig}" in out


def test_broadcast_dimensions_and_generic_form() -> None:
    body = (
        "  %0 = chlo.broadcast_add %arg0, %arg1 {broadcast_dimensions = array<i64: 1>} : "
        f"({T}, tensor<3xf32>) -> {T}"
    )
    m = parse(_func(body, f"%arg0: {T}, %arg1: tensor<3xf32>"))
    g = print_ir(m, generic=True)
    assert '"chlo.broadcast_add"(%arg0, %arg1) <{broadcast_dimensions = array<i64: 1>}>' in g
    assert "{broadcast_dimensions = array<i64: 1>}" in _roundtrip(print_ir(m))


def test_broadcast_complex() -> None:
    sig = f"({T}, {T}) -> tensor<2x3xcomplex<f32>>"
    out = _roundtrip(
        _func(f"  %0 = chlo.broadcast_complex %arg0, %arg1 : {sig}", f"%arg0: {T}, %arg1: {T}")
    )
    assert sig in out


@pytest.mark.parametrize("name", sorted(chlo.BROADCAST_OPS.keys() - {"broadcast_compare"}))
def test_broadcast_rejects_non_broadcastable(name: str) -> None:
    et = "i32" if name in ("broadcast_and", "broadcast_or", "broadcast_xor") else "f32"
    a, b = f"tensor<2x3x{et}>", f"tensor<4x{et}>"
    r = "tensor<2x3xcomplex<f32>>" if name == "broadcast_complex" else a
    body = f"  %0 = chlo.{name} %arg0, %arg1 : ({a}, {b}) -> {r}"
    with pytest.raises(VerifyError, match="incompatible shapes for broadcasting 3 and 4"):
        verify(parse(_func(body, f"%arg0: {a}, %arg1: {b}")))


def test_broadcast_rejects_wrong_result_shape() -> None:
    body = f"  %0 = chlo.broadcast_multiply %arg0, %arg1 : ({T}, tensor<3xf32>) -> tensor<3x3xf32>"
    with pytest.raises(VerifyError, match=r"inferred type\(s\) 'tensor<2x3xf32>' are incompatible"):
        verify(parse(_func(body, f"%arg0: {T}, %arg1: tensor<3xf32>")))


def test_broadcast_rejects_mixed_element_types() -> None:
    body = f"  %0 = chlo.broadcast_add %arg0, %arg1 : ({T}, tensor<3xf64>) -> {T}"
    with pytest.raises(
        VerifyError, match="requires compatible element types for all operands and results"
    ):
        verify(parse(_func(body, f"%arg0: {T}, %arg1: tensor<3xf64>")))
    # an op without that trait: the inference's message
    body = body.replace("broadcast_add", "broadcast_multiply")
    with pytest.raises(VerifyError, match="requires the same element type for all operands and results"):
        verify(parse(_func(body, f"%arg0: {T}, %arg1: tensor<3xf64>")))


def test_broadcast_logical_rejects_float() -> None:
    body = f"  %0 = chlo.broadcast_and %arg0, %arg0 : ({T}, {T}) -> {T}"
    with pytest.raises(VerifyError, match="tensor of bool or 2/4/8/16/32/64-bit integer values"):
        verify(parse(_func(body, f"%arg0: {T}")))


def test_broadcast_complex_rejects_real_result() -> None:
    body = f"  %0 = chlo.broadcast_complex %arg0, %arg0 : ({T}, {T}) -> {T}"
    with pytest.raises(
        VerifyError, match=r"inferred type\(s\) 'tensor<2x3xcomplex<f32>>' are incompatible"
    ):
        verify(parse(_func(body, f"%arg0: {T}")))


def test_broadcast_compare() -> None:
    sig = f"({T}, {T}) -> tensor<2x3xi1>"
    body = (
        f"  %0 = chlo.broadcast_compare %arg0, %arg1 {{comparison_direction = #chlo<comparison_direction LT>, "
        f"compare_type = #chlo<comparison_type TOTALORDER>}} : {sig}"
    )
    out = _roundtrip(_func(body, f"%arg0: {T}, %arg1: {T}"))
    assert (
        "chlo.broadcast_compare %arg0, %arg1 {compare_type = #chlo<comparison_type TOTALORDER>, "
        f"comparison_direction = #chlo<comparison_direction LT>}} : {sig}"
    ) in out


def test_broadcast_compare_needs_direction() -> None:
    body = f"  %0 = chlo.broadcast_compare %arg0, %arg0 : ({T}, {T}) -> tensor<2x3xi1>"
    with pytest.raises(VerifyError, match="comparison_direction"):
        verify(parse(_func(body, f"%arg0: {T}")))


def test_broadcast_compare_rejects_non_pred_result() -> None:
    body = (
        "  %0 = chlo.broadcast_compare %arg0, %arg0 {comparison_direction = #chlo<comparison_direction EQ>} "
        f": ({T}, {T}) -> {T}"
    )
    with pytest.raises(VerifyError, match=r"result #0 must be tensor of bool values"):
        verify(parse(_func(body, f"%arg0: {T}")))


def test_broadcast_select() -> None:
    sig = f"(tensor<2x3xi1>, {T}, tensor<f32>) -> {T}"
    body = f"  %0 = chlo.broadcast_select %arg0, %arg1, %arg2 : {sig}"
    out = _roundtrip(_func(body, f"%arg0: tensor<2x3xi1>, %arg1: {T}, %arg2: tensor<f32>"))
    assert f"chlo.broadcast_select %arg0, %arg1, %arg2 : {sig}" in out


def test_broadcast_select_rejects_non_pred() -> None:
    body = f"  %0 = chlo.broadcast_select %arg1, %arg1, %arg1 : ({T}, {T}, {T}) -> {T}"
    with pytest.raises(VerifyError, match="operand #0 must be ranked tensor of bool values"):
        verify(parse(_func(body, f"%arg1: {T}")))


@pytest.mark.parametrize("name", ["next_after", "polygamma", "zeta"])
def test_binary_same_type(name: str) -> None:
    body = f"  %0 = chlo.{name} %arg0, %arg1 : {T}, {T} -> {T}"
    out = _roundtrip(_func(body, f"%arg0: {T}, %arg1: {T}"))
    assert f"%0 = chlo.{name} %arg0, %arg1 : {T}, {T} -> {T}" in out


@pytest.mark.parametrize("name", ["next_after", "polygamma", "zeta"])
def test_binary_same_type_rejects_mismatch(name: str) -> None:
    body = f"  %0 = chlo.{name} %arg0, %arg1 : {T}, tensor<2x3xf64> -> {T}"
    with pytest.raises(VerifyError, match="requires compatible types for all operands and results"):
        verify(parse(_func(body, f"%arg0: {T}, %arg1: tensor<2x3xf64>")))


def test_mulhi() -> None:
    t = "tensor<3xi8>"
    out = _roundtrip(
        _func(f'  %0 = "chlo.mulhi"(%arg0, %arg1) : ({t}, {t}) -> {t}', f"%arg0: {t}, %arg1: {t}")
    )
    assert f"%0 = chlo.mulhi %arg0, %arg1 : {t}, {t} -> {t}" in out
    with pytest.raises(
        VerifyError, match="ranked tensor of 2/4/8/16/32/64-bit integer values, but got"
    ):
        verify(parse(_func(f"  %0 = chlo.mulhi %arg0, %arg0 : {T}, {T} -> {T}", f"%arg0: {T}")))


def test_top_k() -> None:
    body = "  %0:2 = chlo.top_k(%arg0, k=8) : tensor<16x16xi32> -> (tensor<16x8xi32>, tensor<16x8xi32>)"
    out = _roundtrip(
        _func(
            body + "\n  check.expect_eq %0#1, %0#1 : tensor<16x8xi32>", "%arg0: tensor<16x16xi32>"
        )
    )
    assert (
        "%values, %indices = chlo.top_k(%arg0, k = 8) : tensor<16x16xi32> -> "
        "(tensor<16x8xi32>, tensor<16x8xi32>)"
    ) in out
    assert "check.expect_eq %indices, %indices" in out


def test_top_k_generic() -> None:
    body = '  %0:2 = "chlo.top_k"(%arg0) <{k = 2 : i64}> : (tensor<5xf32>) -> (tensor<2xf32>, tensor<2xi32>)'
    assert (
        "chlo.top_k(%arg0, k = 2) : tensor<5xf32> -> (tensor<2xf32>, tensor<2xi32>)"
        in _roundtrip(_func(body, "%arg0: tensor<5xf32>"))
    )


@pytest.mark.parametrize(
    "types,msg",
    [
        ("tensor<3xf32> -> (tensor<5xf32>, tensor<5xi32>)", "last dimension must be at least 5"),
        (
            "tensor<8xf32> -> (tensor<5xf32>, tensor<5xi64>)",
            r"inferred type\(s\) .*'tensor<5xi32>'",
        ),
        ("tensor<8xf32> -> (tensor<4xf32>, tensor<4xi32>)", r"inferred type\(s\) 'tensor<5xf32>'"),
    ],
)
def test_top_k_rejects(types: str, msg: str) -> None:
    arg = types.split(" ->")[0]
    with pytest.raises(VerifyError, match=msg):
        verify(parse(_func(f"  %0:2 = chlo.top_k(%arg0, k = 5) : {types}", f"%arg0: {arg}")))


def test_constant() -> None:
    out = _roundtrip(
        _func(
            "  %0 = chlo.constant dense<[1, 2]> : tensor<2xi32>\n  %1 = chlo.constant dense<1.5> : tensor<f32>"
        )
    )
    assert "%c = chlo.constant dense<[1, 2]> : tensor<2xi32>" in out
    assert "%cst = chlo.constant dense<1.500000e+00> : tensor<f32>" in out


def test_constant_generic_type_mismatch() -> None:
    body = '  %0 = "chlo.constant"() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2xi64>'
    with pytest.raises(VerifyError, match=r"inferred type\(s\) 'tensor<2xi32>' are incompatible"):
        verify(parse(_func(body)))


def test_constant_like() -> None:
    body = f'  %0 = "chlo.constant_like"(%arg0) {{value = 1.0 : f32}} : ({T}) -> {T}'
    out = _roundtrip(_func(body, f"%arg0: {T}"))
    assert (
        f'%0 = "chlo.constant_like"(%arg0) <{{value = 1.000000e+00 : f32}}> : ({T}) -> {T}' in out
    )
    bad = f'  %0 = "chlo.constant_like"(%arg0) {{value = 1 : i32}} : ({T}) -> {T}'
    with pytest.raises(VerifyError, match="value's type doesn't match element return type"):
        verify(parse(_func(bad, f"%arg0: {T}")))


def test_minimum_broadcast_shapes() -> None:
    t = "tensor<?xindex>"
    body = f"  %0:2 = chlo.minimum_broadcast_shapes %arg0, %arg1 : {t}, {t} -> {t}, {t}"
    assert (
        f"%0:2 = chlo.minimum_broadcast_shapes %arg0, %arg1 : {t}, {t} -> {t}, {t}"
        in _roundtrip(_func(body, f"%arg0: {t}, %arg1: {t}"))
    )
    with pytest.raises(VerifyError, match="should be >= 2"):
        verify(
            parse(_func(f"  %0 = chlo.minimum_broadcast_shapes %arg0 : {t} -> {t}", f"%arg0: {t}"))
        )


RAGGED = (
    '  %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) {{\n'
    "    ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], "
    "rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], "
    "lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>,\n"
    "    precision_config = [#chlo<precision DEFAULT>, #chlo<precision HIGHEST>]\n"
    "  }} : (tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> {result}"
)
RAGGED_ARGS = "%arg0: tensor<2x11x5xf32>, %arg1: tensor<3x2x5x7xf32>, %arg2: tensor<3xi64>"


def test_ragged_dot_prints_generic_with_properties() -> None:
    out = _roundtrip(_func(RAGGED.format(result="tensor<2x11x7xf32>"), RAGGED_ARGS))
    assert (
        '%0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, '
        "#chlo<precision HIGHEST>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], "
        "rhs_batching_dimensions = [1], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2], "
        "lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>}> : "
        "(tensor<2x11x5xf32>, tensor<3x2x5x7xf32>, tensor<3xi64>) -> tensor<2x11x7xf32>"
    ) in out


def test_ragged_dot_elides_empty_dimension_lists() -> None:
    body = (
        '  %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) {ragged_dot_dimension_numbers = #chlo.ragged_dot<'
        "lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], "
        "rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : "
        "(tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>"
    )
    out = _roundtrip(
        _func(body, "%arg0: tensor<11x5xf32>, %arg1: tensor<3x5x7xf32>, %arg2: tensor<3xi64>")
    )
    assert (
        "#chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], "
        "lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>"
    ) in out


def test_ragged_dot_rejects_result_shape() -> None:
    with pytest.raises(VerifyError, match=r"inferred shape '\[2, 11, 7\]'"):
        verify(parse(_func(RAGGED.format(result="tensor<2x11x8xf32>"), RAGGED_ARGS)))


def test_ragged_dot_rejects_group_count() -> None:
    text = _func(RAGGED.format(result="tensor<2x11x7xf32>"), RAGGED_ARGS).replace(
        "tensor<3xi64>", "tensor<4xi64>"
    )
    with pytest.raises(VerifyError, match="rhs group dimension is expected to have size=4, got 3"):
        verify(parse(text))


def test_ragged_dot_attribute_parse_errors() -> None:
    text = _func(RAGGED.format(result="tensor<2x11x7xf32>"), RAGGED_ARGS).replace(
        "rhs_group_dimensions = [0]", "rhs_group_dimensions = [0], lhs_ragged_dimensions = [1]"
    )
    with pytest.raises(
        ParseError, match=r"t\.mlir:\d+:\d+: error: duplicated `lhs_ragged_dimensions`"
    ):
        parse(text, "t.mlir")
    text = _func(RAGGED.format(result="tensor<2x11x7xf32>"), RAGGED_ARGS).replace(
        "rhs_group_dimensions", "rhs_grp_dimensions"
    )
    with pytest.raises(ParseError, match="expected one of: `lhs_batching_dimensions`"):
        parse(text, "t.mlir")


SCAN = """  %c0 = stablehlo.constant dense<0> : tensor<2xi32>
  %0:2 = chlo.scan(%arg0) inits(%c0) dimension=1 {attrs}{{
  ^bb0(%a: tensor<2xi32>, %b: tensor<2xi32>):
    %1 = stablehlo.add %a, %b : tensor<2xi32>
    stablehlo.return %1, %1 : tensor<2xi32>, tensor<2xi32>
  }} : (tensor<2x3xi32>, tensor<2xi32>) -> ({out}, tensor<2xi32>)"""


def test_scan_roundtrip() -> None:
    out = _roundtrip(_func(SCAN.format(attrs="", out="tensor<2x3xi32>"), "%arg0: tensor<2x3xi32>"))
    assert "%0:2 = chlo.scan(%arg0) inits (%c) dimension=1  {\n" in out
    assert "^bb0(%input: tensor<2xi32>, %carry: tensor<2xi32>):" in out
    assert "} : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)" in out
    out = _roundtrip(
        _func(
            SCAN.format(attrs="attributes {is_reverse = true} ", out="tensor<2x3xi32>"),
            "%arg0: tensor<2x3xi32>",
        )
    )
    assert "dimension=1  attributes {is_reverse = true} {" in out
    m = parse(out)
    g = print_ir(m, generic=True)
    assert re.search(
        r'"chlo.scan"\(%arg0, %0\) <\{dimension = 1 : i64, is_reverse = true, '
        r"operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>\}>",
        g,
    )


def test_scan_rejects_carry_type() -> None:
    text = _func(SCAN.format(attrs="", out="tensor<2x3xi32>"), "%arg0: tensor<2x3xi32>").replace(
        "-> (tensor<2x3xi32>, tensor<2xi32>)", "-> (tensor<2x3xi32>, tensor<3xi32>)"
    )
    with pytest.raises(
        VerifyError,
        match=re.escape(
            "inferred type(s) 'tensor<2x3xi32>', 'tensor<2xi32>' are incompatible with return "
            "type(s) of operation 'tensor<2x3xi32>', 'tensor<3xi32>'"
        ),
    ):
        verify(parse(text))


def test_scan_rejects_dimension() -> None:
    text = _func(SCAN.format(attrs="", out="tensor<2x3xi32>"), "%arg0: tensor<2x3xi32>").replace(
        "dimension=1", "dimension=2"
    )
    with pytest.raises(VerifyError, match="scan dimension of operand 0 is out of bounds"):
        verify(parse(text))


def test_scan_parse_error_location() -> None:
    text = _func(
        "  %0:2 = chlo.scan(%arg0) inits(%arg0) dim=0 {\n  } : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)",
        "%arg0: tensor<2xi32>",
    )
    with pytest.raises(ParseError, match=r"s\.mlir:2:\d+: error: custom op 'chlo.scan' expected 'dimension'"):
        parse(text, "s.mlir")


def test_parse_errors_have_locations() -> None:
    text = _func(f"  %0 = chlo.erf %arg0 : {T} {T}", f"%arg0: {T}")
    with pytest.raises(ParseError, match=r"e\.mlir:2:\d+: error: expected '->'"):
        parse(text, "e.mlir")
    text = _func(
        f"  %0 = chlo.broadcast_compare %arg0, %arg0 {{comparison_direction = #chlo<comparison_direction XX>}} : ({T}, {T}) -> tensor<2x3xi1>",
        f"%arg0: {T}",
    )
    with pytest.raises(ParseError, match=r"e\.mlir:2:\d+: error: expected ::mlir::chlo::ComparisonDirection to be one of"):
        parse(text, "e.mlir")


def test_broadcast_shape_rules() -> None:
    assert chlo.broadcast_shape(_tt("2x1x3"), _tt("4x1"), None) == (2, 4, 3)
    assert chlo.broadcast_shape(_tt("2x?"), _tt("3"), None) == (2, 3)
    assert chlo.broadcast_shape(_tt("2x3x4"), _tt("3"), (1,)) == (2, 3, 4)
    assert chlo.broadcast_shape(_tt("2x3x4"), _tt("3"), (2,)) is False
    assert chlo.broadcast_shape(_tt("2x3"), _tt("4"), None) is False


def _tt(dims: str):  # type: ignore[no-untyped-def]
    from stablehlo_py.ir.text.parser import Parser

    return Parser(f"tensor<{dims}xf32>", default_registry()).parse_type()
