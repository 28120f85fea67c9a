"""Data-movement and shape ops: pretty and generic round trips, #stablehlo.gather/#stablehlo.scatter
text, one negative verifier test per op (spec constraint ids), parse errors with file:line:col."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.gather_scatter_attrs import (
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
)
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import func_renamed as _func
from tests.unit.ir.helpers import verify_error
from tests.unit.ir.helpers import roundtrip_line as _roundtrip


# (function arguments, op as upstream prints it)
PRETTY = [
    (
        "%a: tensor<1x2xf32>",
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
    ),
    (
        "%a: tensor<3xi32>",
        "%0 = stablehlo.broadcast %arg0, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>",
    ),
    (
        "%a: tensor<1xf32>, %s: tensor<2xindex>",
        (
            "%0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [1] {known_nonexpanding_dimensions = array<i64: 0>} "
            ": (tensor<1xf32>, tensor<2xindex>) -> tensor<?x?xf32>"
        ),
    ),
    (
        "%a: tensor<3x2xi64>, %b: tensor<1x2xi64>",
        "%0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>",
    ),
    (
        "%a: tensor<4x4xi32>, %i: tensor<i64>",
        "%0 = stablehlo.dynamic_slice %arg0, %arg1, %arg1, sizes = [2, 2] : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>",
    ),
    (
        "%a: tensor<4x4xi32>, %u: tensor<2x2xi32>, %i: tensor<i64>",
        "%0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg2 : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>",
    ),
    ("", "%0 = stablehlo.iota dim = 0 : tensor<4x5xi32>"),
    (
        "%s: tensor<1xindex>",
        "%0 = stablehlo.dynamic_iota %arg0, dim = 0 : (tensor<1xindex>) -> tensor<4xi32>",
    ),
    (
        "%a: tensor<2x3xi32>, %p: tensor<i32>",
        "%0 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>",
    ),
    (
        "%a: tensor<?x?xf32>, %p: tensor<f32>, %l: tensor<2xindex>",
        "%0 = stablehlo.dynamic_pad %arg0, %arg1, %arg2, %arg2, %arg2 : (tensor<?x?xf32>, tensor<f32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>",
    ),
    ("%a: tensor<2xf32>", "%0 = stablehlo.reshape %arg0 : (tensor<2xf32>) -> tensor<1x2xf32>"),
    (
        "%a: tensor<?xf32>, %s: tensor<2xindex>",
        "%0 = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>",
    ),
    ("%a: tensor<3x2xi32>", "%0 = stablehlo.reverse %arg0, dims = [1] : tensor<3x2xi32>"),
    (
        "%a: tensor<3x8xf32>",
        "%0 = stablehlo.slice %arg0 [1:3, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>",
    ),
    (
        "%a: tensor<256x?xf32>, %s: tensor<2xindex>",
        "%0 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<256x?xf32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<256x?xf32>",
    ),
    (
        "%a: tensor<1x2x3xi32>",
        "%0 = stablehlo.transpose %arg0, dims = [2, 1, 0] : (tensor<1x2x3xi32>) -> tensor<3x2x1xi32>",
    ),
    (
        "%t: tuple<tensor<2xf32>, tuple<tensor<i32>>>",
        "%0 = stablehlo.get_tuple_element %arg0[1] : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>",
    ),
    (
        "%a: tensor<2xf32>, %b: tuple<tensor<i32>>",
        "%0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2xf32>, tuple<tensor<i32>>>",
    ),
    ("", "%0 = stablehlo.tuple  : tuple<>"),
    (
        "%a: tensor<2x3xi64>",
        "%0 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>",
    ),
    (
        "%a: tensor<4x2xf32>, %s: tensor<i32>",
        "%0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 1 : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x?xf32>",
    ),
    (
        "%p: tensor<2x2xi1>, %a: tensor<2x2xi32>",
        "%0 = stablehlo.select %arg0, %arg1, %arg1 : tensor<2x2xi1>, tensor<2x2xi32>",
    ),
    (
        "%p: tensor<i1>, %a: tensor<2x?xi32>, %b: tensor<?x2xi32>",
        "%0 = stablehlo.select %arg0, %arg1, %arg2 : (tensor<i1>, tensor<2x?xi32>, tensor<?x2xi32>) -> tensor<2x2xi32>",
    ),
    ("%a: tensor<3xi32>", "%0 = stablehlo.clamp %arg0, %arg0, %arg0 : tensor<3xi32>"),
    (
        "%m: tensor<i32>, %a: tensor<3xi32>",
        "%0 = stablehlo.clamp %arg0, %arg1, %arg0 : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>",
    ),
    ("%a: tensor<2xf64>", "%0 = stablehlo.complex %arg0, %arg0 : tensor<2xcomplex<f64>>"),
    (
        "%a: tensor<2xf32>",
        "%0 = stablehlo.compare LT, %arg0, %arg0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>",
    ),
    (
        "%a: tensor<2xi32>",
        "%0 = stablehlo.compare GE, %arg0, %arg0, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>",
    ),
    (
        "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>",
        (
            '%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], '
            "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true, "
            "slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>"
        ),
    ),
    (
        "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>, %s: tensor<3xi64>",
        (
            '%0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], '
            "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>}> "
            ": (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>"
        ),
    ),
    (
        "%a: tensor<8x128x3072x64xf32>, %i: tensor<8x16x1024xi32>",
        (
            '%0 = "stablehlo.torch_index_select"(%arg0, %arg1) <{batch_dims = 1 : i64, dim = 2 : i64}> '
            ": (tensor<8x128x3072x64xf32>, tensor<8x16x1024xi32>) -> tensor<8x128x16x1024x64xf32>"
        ),
    ),
]


@pytest.mark.parametrize(
    "args,line", PRETTY, ids=[line.split("(")[0].split(" = ")[1].strip('" ') for _, line in PRETTY]
)
def test_pretty_roundtrip(args: str, line: str) -> None:
    assert _roundtrip(args, line) == line


# (function arguments, generic form accepted as input, expected pretty print)
GENERIC = [
    (
        "%a: tensor<1x2xf32>",
        '%0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<1x2x3xf32>',
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>",
    ),
    (
        "%a: tensor<3x4xi32>",
        '%0 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<3x4xi32>) -> tensor<1x2xi32>',
        "%0 = stablehlo.slice %arg0 [1:2, 0:4:2] : (tensor<3x4xi32>) -> tensor<1x2xi32>",
    ),
    (
        "%a: tensor<3xi32>",
        '%0 = "stablehlo.compare"(%arg0, %arg0) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>',
        "%0 = stablehlo.compare LT, %arg0, %arg0, TOTALORDER : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>",
    ),
    (
        "",
        '%0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<1x10xf32>',
        "%0 = stablehlo.iota dim = 1 : tensor<1x10xf32>",
    ),
    (
        "%a: tensor<i32>",
        '%0 = "stablehlo.tuple"() : () -> tuple<>',
        "%0 = stablehlo.tuple  : tuple<>",
    ),
    (
        "%a: tensor<2xf32>",
        '%0 = "stablehlo.complex"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>',
        "%0 = stablehlo.complex %arg0, %arg0 : tensor<2xcomplex<f32>>",
    ),
]


@pytest.mark.parametrize("args,generic,pretty", GENERIC)
def test_generic_input(args: str, generic: str, pretty: str) -> None:
    assert _roundtrip(args, generic) == pretty


def test_properties_are_properties() -> None:
    m = parse(
        _func(
            "%a: tensor<3xi32>",
            '%0 = "stablehlo.concatenate"(%arg0) {dimension = 0 : i64} : (tensor<3xi32>) -> tensor<3xi32>',
        )
    )
    op = next(o for o in m.walk() if o.name == "stablehlo.concatenate")
    assert "dimension" in op.properties and not op.attributes
    assert '"stablehlo.concatenate"(%arg0) <{dimension = 0 : i64}>' in print_ir(m, generic=True)


def test_default_valued_properties_in_generic_form() -> None:
    # Set explicitly they stay (as upstream prints them); absent they are not invented.
    line = (
        '%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
        "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
        "slice_sizes = array<i64: 1, 2>}> : (tensor<3x2xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>"
    )
    assert _roundtrip("%a: tensor<3x2xf32>, %i: tensor<4x1xi32>", line) == line
    op = next(
        o
        for o in parse(
            _func(
                "%a: tensor<3x2xf32>, %i: tensor<4x1xi32>",
                line.replace("indices_are_sorted = false, ", ""),
            )
        ).walk()
        if o.name == "stablehlo.gather"
    )
    assert "indices_are_sorted" not in op.properties
    assert op.indices_are_sorted.value.data == 0


def test_slice_stride_one_is_elided_and_empty_ranges() -> None:
    assert _roundtrip(
        "%a: tensor<8xf32>", "%0 = stablehlo.slice %arg0 [0:1:1] : (tensor<8xf32>) -> tensor<1xf32>"
    ) == ("%0 = stablehlo.slice %arg0 [0:1] : (tensor<8xf32>) -> tensor<1xf32>")
    assert _roundtrip(
        "%a: tensor<f32>", "%0 = stablehlo.slice %arg0 [] : (tensor<f32>) -> tensor<f32>"
    ) == ("%0 = stablehlo.slice %arg0 [] : (tensor<f32>) -> tensor<f32>")


# ------------------------------------------------------------------ #stablehlo.gather / scatter
def _attr(text: str):
    m = parse(f"func.func @f() attributes {{x = {text}}} {{\n  return\n}}")
    fn = next(o for o in m.walk() if o.name == "func.func")
    return fn.attributes["x"]


def test_gather_attr_fields_any_order_optional_commas_and_elision() -> None:
    a = _attr("#stablehlo.gather<index_vector_dim = 0, start_index_map = [1 2], offset_dims = [],>")
    assert isinstance(a, GatherDimensionNumbersAttr)
    assert a.dims.start_index_map == (1, 2) and a.dims.offset_dims == ()
    assert a.mlir_text() == "#stablehlo.gather<start_index_map = [1, 2]>"
    assert _attr("#stablehlo.gather<>").mlir_text() == "#stablehlo.gather<>"


def test_scatter_attr_all_fields_in_declaration_order() -> None:
    text = (
        "#stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1, 2], input_batching_dims = [0], "
        "scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 2>"
    )
    a = _attr(text.replace("update_window_dims = [2], ", "") + "")
    assert isinstance(a, ScatterDimensionNumbersAttr)
    full = _attr(
        "#stablehlo.scatter<index_vector_dim = 2, scatter_dims_to_operand_dims = [1, 2], "
        "scatter_indices_batching_dims = [0], input_batching_dims = [0], inserted_window_dims = [1, 2], "
        "update_window_dims = [2]>"
    )
    assert full.mlir_text() == text


def test_struct_attr_errors() -> None:
    with pytest.raises(ParseError, match=r"-:1:\d+: error: duplicated `offset_dims` entry"):
        _attr("#stablehlo.gather<offset_dims = [1], offset_dims = [2]>")
    with pytest.raises(ParseError, match=r"expected one of: `update_window_dims`"):
        _attr("#stablehlo.scatter<offset_dims = [1]>")


# -------------------------------------------------------------------------------- scatter
SCATTER = """%0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>}> ({
  ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
    %1 = stablehlo.add %arg3, %arg4 : tensor<i32>
    stablehlo.return %1 : tensor<i32>
  }) : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>"""
SCATTER_ARGS = "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>, %u: tensor<2x3x2x2xi32>"


def test_scatter_roundtrip() -> None:
    m = parse(_func(SCATTER_ARGS, "  " + SCATTER))
    verify(m)
    text = print_ir(m)
    assert SCATTER.replace("\n  ", "\n    ") in text
    assert print_ir(parse(text)) == text
    assert print_ir(parse(print_ir(m, generic=True))) == text


def test_scatter_verifier_update_computation() -> None:
    bad = SCATTER.replace("%arg4: tensor<i32>", "%arg4: tensor<f32>").replace(
        "%arg3, %arg4 : tensor<i32>", "%arg3, %arg3 : tensor<i32>"
    )
    with pytest.raises(
        VerifyError,
        match=re.escape(
            "error: The type of reduction-region's parameter at index 1 is "
            "different than the corresponding result type: 'tensor<f32>' vs 'tensor<i32>'"
        ),
    ):
        verify(parse(_func(SCATTER_ARGS, "  " + bad)))


def test_scatter_verifier_dims() -> None:
    bad = SCATTER.replace(
        "scatter_dims_to_operand_dims = [1, 0]", "scatter_dims_to_operand_dims = [1]"
    )
    with pytest.raises(
        VerifyError,
        match="Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound of "
        "dimension index_vector_dim=2 of scatter_indices is 2. These two numbers must be equal.",
    ):
        verify(parse(_func(SCATTER_ARGS, "  " + bad)))


# ----------------------------------------------------------------------------- verifiers
INVALID = [
    # (op, args, line, message fragment)
    (
        "broadcast_in_dim_c5",
        "%a: tensor<2xf32>",
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<2xf32>) -> tensor<2x3xf32>",
        "size of operand dimension 0 (2) is not equal to 1 or size of result dimension 1 (3)",
    ),
    (
        "broadcast_in_dim_c2",
        "%a: tensor<2xf32>",
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2xf32>) -> tensor<2x3xf32>",
        "broadcast_dimensions size (2) does not match operand rank (1)",
    ),
    (
        "broadcast",
        "%a: tensor<3xi32>",
        "%0 = stablehlo.broadcast %arg0, sizes = [2] : (tensor<3xi32>) -> tensor<3x2xi32>",
        "inferred type(s) 'tensor<2x3xi32>' are incompatible with return type(s) of operation 'tensor<3x2xi32>'",
    ),
    (
        "dynamic_broadcast_in_dim",
        "%a: tensor<1xf32>, %s: tensor<2xindex>",
        "%0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [2] : (tensor<1xf32>, tensor<2xindex>) -> tensor<?x?xf32>",
        "broadcast_dimensions contains invalid value 2 for result with rank 2",
    ),
    (
        "concatenate_c2",
        "%a: tensor<3x2xi64>, %b: tensor<1x3xi64>",
        "%0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x2xi64>, tensor<1x3xi64>) -> tensor<4x2xi64>",
        "shapes of operand (0) and (1) are not compatible at non-concat index 1: (3, 2) != (1, 3)",
    ),
    (
        "concatenate_c6",
        "%a: tensor<3x2xi64>, %b: tensor<1x2xi64>",
        "%0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<5x2xi64>",
        "inferred type(s) 'tensor<4x2xi64>' are incompatible with return type(s) of operation 'tensor<5x2xi64>'",
    ),
    (
        "dynamic_slice_c4",
        "%a: tensor<4x4xi32>, %i: tensor<i64>",
        "%0 = stablehlo.dynamic_slice %arg0, %arg1, %arg1, sizes = [5, 2] : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<5x2xi32>",
        "has slice size 5 greater than dimension size 4 in dimension 0 of operand",
    ),
    (
        "dynamic_update_slice_c4",
        "%a: tensor<4x4xi32>, %u: tensor<2x2xi32>, %i: tensor<i64>",
        "%0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2 : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>) -> tensor<4x4xi32>",
        "expects number of start_indices to match operand rank: 1 vs 2.",
    ),
    (
        "iota_c1",
        "",
        "%0 = stablehlo.iota dim = 2 : tensor<4x5xi32>",
        "iota dimension cannot go beyond the output rank.",
    ),
    (
        "dynamic_iota",
        "%s: tensor<2xindex>",
        "%0 = stablehlo.dynamic_iota %arg0, dim = 1 : (tensor<2xindex>) -> tensor<4xi32>",
        "iota dimension cannot go beyond the output rank.",
    ),
    (
        "pad_c4",
        "%a: tensor<2x3xi32>, %p: tensor<i32>",
        "%0 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, 1], interior = [1, 2] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x8xi32>",
        "inferred type(s) 'tensor<5x9xi32>' are incompatible with return type(s) of operation 'tensor<5x8xi32>'",
    ),
    (
        "pad_c3",
        "%a: tensor<2x3xi32>, %p: tensor<i32>",
        "%0 = stablehlo.pad %arg0, %arg1, low = [0, 0], high = [0, 0], interior = [-1, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>",
        "Interior padding cannot be negative: -1",
    ),
    (
        "dynamic_pad",
        "%a: tensor<?x?xf32>, %p: tensor<f32>, %l: tensor<3xindex>",
        "%0 = stablehlo.dynamic_pad %arg0, %arg1, %arg2, %arg2, %arg2 : (tensor<?x?xf32>, tensor<f32>, tensor<3xindex>, tensor<3xindex>, tensor<3xindex>) -> tensor<?x?xf32>",
        "padding operands size (3) must match operand rank (2)",
    ),
    (
        "reshape_c2",
        "%a: tensor<2x3xf32>",
        "%0 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<5xf32>",
        "number of output elements (5) doesn't match expected number of elements (6)",
    ),
    (
        "dynamic_reshape",
        "%a: tensor<?xf32>, %s: tensor<3xindex>",
        "%0 = stablehlo.dynamic_reshape %arg0, %arg1 : (tensor<?xf32>, tensor<3xindex>) -> tensor<?x?xf32>",
        "result should have a rank equal to the number of elements in output_shape",
    ),
    (
        "reverse_c2",
        "%a: tensor<3x2xi32>",
        "%0 = stablehlo.reverse %arg0, dims = [1, 1] : tensor<3x2xi32>",
        "dimensions should be unique. Got: 1, 1",
    ),
    (
        "slice_c3",
        "%a: tensor<3x8xf32>",
        "%0 = stablehlo.slice %arg0 [2:1, 0:8] : (tensor<3x8xf32>) -> tensor<0x8xf32>",
        "start index 2 is larger than limit index 1 in dimension 0",
    ),
    (
        "slice_c5",
        "%a: tensor<3x8xf32>",
        "%0 = stablehlo.slice %arg0 [0:3, 0:8:3] : (tensor<3x8xf32>) -> tensor<3x2xf32>",
        "inferred type(s) 'tensor<3x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'",
    ),
    (
        "real_dynamic_slice",
        "%a: tensor<256x?xf32>, %s: tensor<3xindex>",
        "%0 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<256x?xf32>, tensor<3xindex>, tensor<3xindex>, tensor<3xindex>) -> tensor<256x?xf32>",
        "has mismatched number of operand rank (2) and start_indices size (3)",
    ),
    (
        "transpose_c2",
        "%a: tensor<1x2x3xi32>",
        "%0 = stablehlo.transpose %arg0, dims = [2, 2, 0] : (tensor<1x2x3xi32>) -> tensor<3x3x1xi32>",
        "attribute permutation must be a permutation of [0, 1, 2] but got 2, 2, 0",
    ),
    (
        "get_tuple_element_c1",
        "%t: tuple<tensor<2xf32>>",
        "%0 = stablehlo.get_tuple_element %arg0[1] : (tuple<tensor<2xf32>>) -> tensor<2xf32>",
        "index 1 is out of bounds of operand with size 1",
    ),
    (
        "tuple_c1",
        "%a: tensor<2xf32>",
        '%0 = "stablehlo.tuple"(%arg0) : (tensor<2xf32>) -> tuple<tensor<3xf32>>',
        "inferred type(s) 'tuple<tensor<2xf32>>' are incompatible with return type(s) of operation 'tuple<tensor<3xf32>>'",
    ),
    (
        "get_dimension_size_c1",
        "%a: tensor<2x3xi64>",
        "%0 = stablehlo.get_dimension_size %arg0, dim = 2 : (tensor<2x3xi64>) -> tensor<i32>",
        "requires dimension attribute in range [0, 2); found (2)",
    ),
    (
        "set_dimension_size",
        "%a: tensor<4x2xf32>, %s: tensor<i64>",
        "%0 = stablehlo.set_dimension_size %arg0, %arg1, dim = 1 : (tensor<4x2xf32>, tensor<i64>) -> tensor<4x?xf32>",
        (
            "operand #1 must be ranked tensor of 32-bit signless integer values, but got "
            "'tensor<i64>'"
        ),
    ),
    (
        "select_c1",
        "%p: tensor<3xi1>, %a: tensor<2xi32>",
        "%0 = stablehlo.select %arg0, %arg1, %arg1 : tensor<3xi1>, tensor<2xi32>",
        "requires the same shape for all operands",
    ),
    (
        "clamp_c1",
        "%m: tensor<2xi32>, %a: tensor<3xi32>",
        "%0 = stablehlo.clamp %arg0, %arg1, %arg0 : (tensor<2xi32>, tensor<3xi32>, tensor<2xi32>) -> tensor<3xi32>",
        "min shape [2] is not scalar and is not compatible to operand shape [3]",
    ),
    (
        "complex_c3",
        "%a: tensor<2xf32>",
        '%0 = "stablehlo.complex"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>',
        "inferred type(s) 'tensor<2xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<2xcomplex<f64>>'",
    ),
    (
        "compare_c2",
        "%a: tensor<2xi32>, %b: tensor<3xi32>",
        "%0 = stablehlo.compare LT, %arg0, %arg1 : (tensor<2xi32>, tensor<3xi32>) -> tensor<2xi1>",
        "requires the same shape for all operands and results",
    ),
    (
        "gather_c22",
        "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>",
        (
            '%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], '
            "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>}> "
            ": (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x3xi32>"
        ),
        "inferred type(s) 'tensor<2x3x2x2xi32>' are incompatible with return type(s) of operation 'tensor<2x3x2x3xi32>'",
    ),
    (
        "gather_c9",
        "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>",
        (
            '%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], '
            "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 2, 2, 2>}> "
            ": (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>"
        ),
        "Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should be <= 1, but got 2",
    ),
    (
        "dynamic_gather",
        "%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xi64>, %s: tensor<2xi64>",
        (
            '%0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], '
            "collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>}> "
            ": (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2xi64>) -> tensor<2x3x2x2xi32>"
        ),
        "slice_sizes size (2) not equal to operand rank (3)",
    ),
]


@pytest.mark.parametrize("case,args,line,message", INVALID, ids=[c[0] for c in INVALID])
def test_verifier_rejects(case: str, args: str, line: str, message: str) -> None:
    m = parse(_func(args, "  " + line), "bad.mlir")
    with pytest.raises(VerifyError) as e:
        verify(m)
    assert message in str(e.value)
    assert "bad.mlir:2:" in str(e.value)


# ---------------------------------------------------------------------------- parse errors
PARSE_ERRORS = [
    (
        "%a: tensor<8xf32>",
        "%0 = stablehlo.slice %arg0 [0;1] : (tensor<8xf32>) -> tensor<1xf32>",
        r"bad\.mlir:2:\d+: error: expected ':'",
    ),
    (
        "%p: tensor<i1>, %a: tensor<2xf32>",
        "%0 = stablehlo.select %arg0, %arg1, %arg1 : tensor<2xf32>",
        r"bad\.mlir:2:\d+: error: custom op 'stablehlo.select' expected functional type or list of two types",
    ),
    (
        "%a: tensor<2xf32>",
        "%0 = stablehlo.complex %arg0, %arg0 : tensor<2xf32>",
        r"bad\.mlir:2:\d+: error: custom op 'stablehlo.complex' expected tensor with complex element type",
    ),
    (
        "%a: tensor<2xf32>",
        "%0 = stablehlo.tuple %arg0 : tensor<2xf32>",
        r"bad\.mlir:2:\d+: error: custom op 'stablehlo.tuple' expected tuple type",
    ),
    (
        "%a: tensor<2xf32>",
        "%0 = stablehlo.broadcast_in_dim %arg0, dims = 0 : (tensor<2xf32>) -> tensor<2xf32>",
        r"bad\.mlir:2:\d+: error: expected '\['",
    ),
    (
        "%a: tensor<3xi32>",
        "%0 = stablehlo.compare XX, %arg0, %arg0 : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>",
        r"bad\.mlir:2:\d+: error: custom op 'stablehlo.compare' expected ::mlir::stablehlo::ComparisonDirection to be one of",
    ),
    (
        "%a: tensor<3x2xf32>, %i: tensor<4x1xi32>",
        "%0 = stablehlo.gather(%arg0, %arg1) : (tensor<3x2xf32>, tensor<4x1xi32>) -> tensor<4x2xf32>",
        r"bad\.mlir:2:\d+: error: 'stablehlo\.gather' has no custom assembly form",
    ),
    (
        "%a: tensor<2x3xi32>",
        "%0 = stablehlo.concatenate %arg0 dim = 0 : (tensor<2x3xi32>) -> tensor<2x3xi32>",
        r"bad\.mlir:2:\d+: error: expected ','",
    ),
]


@pytest.mark.parametrize("args,line,pattern", PARSE_ERRORS)
def test_parse_errors(args: str, line: str, pattern: str) -> None:
    with pytest.raises(ParseError, match=pattern):
        parse(_func(args, "  " + line), "bad.mlir")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) ->",
            "tensor<2x3x2xf32>, tensor<2x3x2x2xi32>) ->",
            (
                "operand #1 must be ranked tensor of integer or index values, but got "
                "'tensor<2x3x2xf32>'"
            ),
        ),
        (
            "index_vector_dim = 2>",
            "index_vector_dim = 4>",
            (
                "Expects index_vector_dim to be in range [0, rank-of('scatter_indices')] i.e. "
                "[0, 3]. got: 4."
            ),
        ),
        (
            "update_window_dims = [2, 3]",
            "update_window_dims = [3, 2]",
            "Expects update_window_dims to be sorted; got: [3, 2].",
        ),
        (
            "inserted_window_dims = [0]",
            "inserted_window_dims = [0], input_batching_dims = [0]",
            # upstream's order: the operand rank (scatter_c2) before the duplicates (scatter_c9)
            (
                "Expects rank-of operand to match size-of('update_window_dims') + "
                "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. 4 but got 3."
            ),
        ),
    ],
)
def test_scatter_verifier_upstream_words(old: str, new: str, message: str) -> None:
    bad = SCATTER.replace(old, new)
    assert bad != SCATTER
    args = (
        SCATTER_ARGS
        if "xf32>, tensor<2x3x2x2" not in new
        else SCATTER_ARGS.replace("%i: tensor<2x3x2xi64>", "%i: tensor<2x3x2xf32>")
    )
    with pytest.raises(VerifyError) as e:
        verify(parse(_func(args, "  " + bad)))
    assert message in str(e.value)


@pytest.mark.parametrize(
    ("args", "body", "message"),
    [
        # upstream accepts a shape operand whose length differs from the result rank (only a
        # constant shape is compared with the result type)
        (
            "%s: tensor<2xindex>",
            "%0 = stablehlo.dynamic_iota %arg0, dim = 0 : (tensor<2xindex>) -> tensor<4xi32>",
            None,
        ),
        (
            "",
            (
                "%c = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
                "  %0 = stablehlo.dynamic_iota %c, dim = 0 : (tensor<1xi64>) -> tensor<4xi32>"
            ),
            "output shape [3] is incompatible with return type of operation 'tensor<4xi32>'",
        ),
        (
            "",
            "%0 = stablehlo.iota dim = 0 : tensor<i32>",
            "does not support scalars.",
        ),
        (
            "%a: tensor<2x3xf32>",
            (
                "%c = stablehlo.constant dense<[2, 2]> : tensor<2xi64>\n"
                "  %0 = stablehlo.dynamic_reshape %arg0, %c : (tensor<2x3xf32>, tensor<2xi64>) "
                "-> tensor<?x?xf32>"
            ),
            (
                "output_shape is incompatible with input type of operation: input has 6 elements, "
                "but output_shape has 4"
            ),
        ),
        (
            "%a: tensor<2xf32>, %s: tensor<2xindex>",
            (
                "%0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0, 1] "
                ": (tensor<2xf32>, tensor<2xindex>) -> tensor<?x?xf32>"
            ),
            "broadcast_dimensions size (2) does not match operand rank (1)",
        ),
        (
            "%a: tensor<2xf32>, %s: tensor<2xindex>",
            (
                "%0 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg1, dims = [0] "
                "{known_expanding_dimensions = array<i64: 0>, "
                "known_nonexpanding_dimensions = array<i64: 0>} "
                ": (tensor<2xf32>, tensor<2xindex>) -> tensor<?x?xf32>"
            ),
            "duplicate expansion hint for at least one operand dimension",
        ),
        (
            "%a: tensor<2xf32>, %p: tensor<f32>",
            (
                "%c = stablehlo.constant dense<[1]> : tensor<1xi64>\n"
                "  %n = stablehlo.constant dense<[-1]> : tensor<1xi64>\n"
                "  %0 = stablehlo.dynamic_pad %arg0, %arg1, %c, %c, %n "
                ": (tensor<2xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) "
                "-> tensor<4xf32>"
            ),
            "interior_padding must be non-negative, but got -1",
        ),
        (
            "%a: tensor<2xf32>, %p: tensor<f32>",
            (
                "%c = stablehlo.constant dense<[1]> : tensor<1xi64>\n"
                "  %0 = stablehlo.dynamic_pad %arg0, %arg1, %c, %c, %c "
                ": (tensor<2xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) "
                "-> tensor<4xf32>"
            ),
            "expected output dimension at index 0 to equal 5, but got 4",
        ),
    ],
)
def test_shape_operand_ops_as_upstream(args: str, body: str, message: str | None) -> None:
    """The verifiers of the ops with shape operands: upstream's words, upstream's acceptance."""
    if message is None:
        verify(parse(_func(args, "  " + body)))
        return
    assert message in verify_error(args, body)


# reverse and transpose: the verifiers' words
REVERSE_TRANSPOSE_ERRORS = [
    (
        "%a: tensor<3x2xi32>",
        "%0 = stablehlo.reverse %arg0, dims = [2] : tensor<3x2xi32>",
        "all dimensions should be between [0, 2). Got dimension: 2.",
    ),
    (
        "%a: tensor<3x2xi32>",
        "%0 = stablehlo.reverse %arg0, dims = [-1] : tensor<3x2xi32>",
        "all dimensions should be non-negative. Got dimension: -1.",
    ),
    (
        "%a: tensor<2x3xi32>",
        "%0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xf32>",
        "requires compatible element types for all operands and results",
    ),
]


def test_torch_index_select_verifies_as_upstream() -> None:
    """Upstream's torch_index_select has no verifier: any dim and batch_dims are accepted."""
    verify(
        parse(
            _func(
                "%a: tensor<8x128xf32>, %i: tensor<8x16xi32>",
                '  %0 = "stablehlo.torch_index_select"(%arg0, %arg1) '
                "<{batch_dims = 1 : i64, dim = 2 : i64}> "
                ": (tensor<8x128xf32>, tensor<8x16xi32>) -> tensor<8x16xf32>",
            )
        )
    )


def test_complex_constraints_as_upstream() -> None:
    message = verify_error(
        "%a: tensor<2xf16>",
        '%0 = "stablehlo.complex"(%arg0, %arg0) '
        ": (tensor<2xf16>, tensor<2xf16>) -> tensor<2xcomplex<f32>>",
    )
    assert (
        "operand #0 must be ranked tensor of 32/64-bit float values, but got "
        "'tensor<2xf16>'"
    ) in message


# dynamic_slice and dynamic_update_slice: ODS operand and trait constraints
DYNAMIC_SLICE_ERRORS = [
    (
        "%a: tensor<4xf32>, %i: tensor<f32>",
        (
            "%0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [2] "
            ": (tensor<4xf32>, tensor<f32>) -> tensor<2xf32>"
        ),
        (
            "operand #1 must be variadic of 0D tensor of 2/4/8/16/32/64-bit integer values, "
            "but got 'tensor<f32>'"
        ),
    ),
    (
        "%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<index>",
        (
            "%0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2 "
            ": (tensor<4xf32>, tensor<2xf32>, tensor<index>) -> tensor<4xf32>"
        ),
        (
            "operand #2 must be variadic of 0D tensor of 2/4/8/16/32/64-bit integer values, "
            "but got 'tensor<index>'"
        ),
    ),
    (
        "%a: tensor<4xf32>, %u: tensor<2xi32>, %i: tensor<i32>",
        (
            "%0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2 "
            ": (tensor<4xf32>, tensor<2xi32>, tensor<i32>) -> tensor<4xf32>"
        ),
        "failed to verify that all of {operand, update, result} have same element type",
    ),
]


def test_dimension_attributes_non_negative() -> None:
    """upstream's ODS attribute constraint comes before the inference rule's own check."""
    message = verify_error(
        "%a: tensor<4x2xf32>",
        "%0 = stablehlo.get_dimension_size %arg0, dim = -1 : (tensor<4x2xf32>) -> tensor<i32>",
    )
    assert (
        "attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute "
        "whose value is non-negative"
    ) in message


def test_gather_start_indices_ods() -> None:
    body = (
        '%0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<'
        "offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], "
        "index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>}> "
        ": (tensor<3x4x2xi32>, tensor<2x3x2xindex>) -> tensor<2x3x2x2xi32>"
    )
    assert (
        "operand #1 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got "
        "'tensor<2x3x2xindex>'"
    ) in verify_error("%a: tensor<3x4x2xi32>, %i: tensor<2x3x2xindex>", body)


def test_concatenate_element_types_trait_first() -> None:
    message = verify_error(
        "%a: tensor<2xf32>, %b: tensor<2xi32>",
        "%0 = stablehlo.concatenate %arg0, %arg1, dim = 0 "
        ": (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>",
    )
    assert "requires the same element type for all operands and results" in message


# pad: ODS operand and attribute constraints, traits
PAD_ERRORS = [
    (
        "%a: tensor<2xf32>, %p: tensor<1xf32>",
        (
            "%0 = stablehlo.pad %arg0, %arg1, low = [1], high = [1], interior = [0] "
            ": (tensor<2xf32>, tensor<1xf32>) -> tensor<4xf32>"
        ),
        (
            "operand #1 must be 0D tensor of 4/6/8/16/32/64-bit float or bool or "
            "2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or "
            "per-tensor integer quantized values, but got 'tensor<1xf32>'"
        ),
    ),
    (
        "%a: tensor<2xf32>, %p: tensor<f32>",
        (
            "%0 = stablehlo.pad %arg0, %arg1, low = [1], high = [1, 0], interior = [0] "
            ": (tensor<2xf32>, tensor<f32>) -> tensor<4xf32>"
        ),
        (
            "failed to verify that all of {edge_padding_low, edge_padding_high, "
            "interior_padding} have same size"
        ),
    ),
    (
        "%a: tensor<2xf32>, %p: tensor<i32>",
        (
            "%0 = stablehlo.pad %arg0, %arg1, low = [1], high = [1], interior = [0] "
            ": (tensor<2xf32>, tensor<i32>) -> tensor<4xf32>"
        ),
        "requires the same element type for all operands and results",
    ),
]


@pytest.mark.parametrize(
    ("args", "body", "message"), [*REVERSE_TRANSPOSE_ERRORS, *DYNAMIC_SLICE_ERRORS, *PAD_ERRORS]
)
def test_verifier_errors_as_upstream(args: str, body: str, message: str) -> None:
    assert message in verify_error(args, body)
