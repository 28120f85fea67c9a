"""Linear-algebra, convolution, FFT, random, quantization and result-accuracy ops: pretty and generic
round trips as upstream prints them, the #stablehlo.dot/conv/dot_algorithm/result_accuracy/
output_operand_alias attributes, !quant.uniform and #stablehlo.bounds text, one negative verifier test
per op (spec constraint ids) and parse errors with file:line:col."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.op_attrs import (
    ConvDimensionNumbersAttr,
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    OutputOperandAliasAttr,
    ResultAccuracyAttr,
)
from stablehlo_py.ir.ops.elementwise import UNARY_WITH_ACCURACY
from stablehlo_py.ir.types import TypeExtensionsAttr, UniformQuantizedType
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import func_renamed as _func
from tests.unit.ir.helpers import roundtrip_line as _roundtrip


ALGORITHM = (
    "<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, "
    "rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>"
)
Q_AXIS = "!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>"
Q = "!quant.uniform<i8:f32, 5.000000e-01:-20>"
ACC = "#stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"

# (function arguments, op as upstream prints it)
PRETTY = [
    (
        "%a: tensor<3xi64>",
        "%0 = stablehlo.dot %arg0, %arg0, precision = [DEFAULT, DEFAULT] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>",
    ),
    (
        "%a: tensor<3xi64>",
        "%0 = stablehlo.dot %arg0, %arg0, precision = [] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>",
    ),
    (
        "%a: tensor<2x3xf32>, %b: tensor<3x4xf32>",
        "%0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>",
    ),
    (
        "%a: tensor<2x2x2xi8>, %b: tensor<2x2x3xi8>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] "
            ": (tensor<2x2x2xi8>, tensor<2x2x3xi8>) -> tensor<2x2x3xi32>"
        ),
    ),
    (
        "%a: tensor<2x2xi8>, %b: tensor<2x3xi8>",
        "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], "
        "algorithm = " + ALGORITHM + " : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>",
    ),
    (
        "%a: tensor<2x2xi8>, %b: tensor<2x3xi8>",
        "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = "
        + ALGORITHM
        + " : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>",
    ),
    (
        "%a: tensor<2x2xi64>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [] x [] : (tensor<2x2xi64>, tensor<2x2xi64>) "
            "-> tensor<2x2x2x2xi64>"
        ),
    ),
    (
        "%a: tensor<1x4x4x1xi64>, %b: tensor<3x3x1x1xi64>",
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], "
            "reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, "
            "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} "
            ": (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>"
        ),
    ),
    (
        "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>",
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} "
            "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x5xf32>, tensor<2x3x2xf32>) "
            "-> tensor<1x2x4xf32>"
        ),
    ),
    (
        "%a: tensor<16xcomplex<f32>>",
        "%0 = stablehlo.fft %arg0, type = FFT, length = [16] : (tensor<16xcomplex<f32>>) -> tensor<16xcomplex<f32>>",
    ),
    (
        "%a: tensor<3x9xf32>",
        "%0 = stablehlo.fft %arg0, type = RFFT, length = [9] : (tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>>",
    ),
    (
        "%a: tensor<3x5xcomplex<f64>>",
        "%0 = stablehlo.fft %arg0, type = IRFFT, length = [9] : (tensor<3x5xcomplex<f64>>) -> tensor<3x9xf64>",
    ),
    ("%a: tensor<2x2xf32>", "%0 = stablehlo.cholesky %arg0 : tensor<2x2xf32>"),
    ("%a: tensor<2x2xf32>", "%0 = stablehlo.cholesky %arg0, lower = true : tensor<2x2xf32>"),
    (
        "%a: tensor<f32>, %s: tensor<3xi64>",
        (
            "%0 = stablehlo.rng %arg0, %arg0, %arg1, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<3xi64>) "
            "-> tensor<2x3x5xf32>"
        ),
    ),
    (
        "%a: tensor<2xui64>",
        (
            "%output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) "
            "-> (tensor<2xui64>, tensor<4xui32>)"
        ),
    ),
    (
        "%a: tensor<2xf32>",
        f"%0 = stablehlo.uniform_quantize %arg0 : (tensor<2xf32>) -> tensor<2x{Q_AXIS}>",
    ),
    (
        f"%a: tensor<2x{Q_AXIS}>",
        f"%0 = stablehlo.uniform_quantize %arg0 : (tensor<2x{Q_AXIS}>) -> tensor<2x{Q}>",
    ),
    (
        f"%a: tensor<2x{Q}>",
        f"%0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x{Q}>) -> tensor<2xf32>",
    ),
    (
        "%a: tensor<3x4xf32>",
        "%0 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<3x4xf32>",
    ),
    (
        "%a: tensor<2xf32>",
        "%0 = stablehlo.bitcast_convert %arg0 : (tensor<2xf32>) -> tensor<2xi32>",
    ),
    (
        "%a: tensor<2xf64>",
        "%0 = stablehlo.bitcast_convert %arg0 : (tensor<2xf64>) -> tensor<2x2xf32>",
    ),
    (
        "%a: tensor<2x4xi8>",
        "%0 = stablehlo.bitcast_convert %arg0 : (tensor<2x4xi8>) -> tensor<2xf32>",
    ),
    *[
        ("%a: tensor<2xf32>", f"%0 = stablehlo.{op} %arg0 : tensor<2xf32>")
        for op in UNARY_WITH_ACCURACY
    ],
    *[
        (
            "%a: tensor<2xf32>",
            f"%0 = stablehlo.{op} %arg0 {{result_accuracy = {ACC}}} : tensor<2xf32>",
        )
        for op in ("exponential", "tanh")
    ],
    ("%a: tensor<2xcomplex<f64>>", "%0 = stablehlo.sqrt %arg0 : tensor<2xcomplex<f64>>"),
    (f"%a: tensor<2x{Q}>", f"%0 = stablehlo.tanh %arg0 : tensor<2x{Q}>"),
]


def _pretty_id(line: str) -> str:
    return line.split(" = ", 1)[1].split(" ")[0].strip('"')


@pytest.mark.parametrize("args,line", PRETTY, ids=[_pretty_id(line) for _, line in PRETTY])
def test_pretty_roundtrip(args: str, line: str) -> None:
    assert _roundtrip(args, line) == line


# Ops without a pretty form: upstream prints them generically.
GENERIC_ONLY = [
    (
        "%a: tensor<4x4xf32>, %b: tensor<4x3xf32>",
        (
            '%0 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, '
            "transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> "
            ": (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>"
        ),
    ),
    (
        "%x: tensor<2x2x2x2xf32>, %s: tensor<2xf32>",
        (
            '%grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) <{epsilon = 1.000000e-03 : f32, '
            "feature_index = 0 : i64}> : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, "
            "tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)"
        ),
    ),
    (
        "%x: tensor<2x2x2x2xf32>, %s: tensor<2xf32>",
        (
            '%0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, '
            "feature_index = 3 : i64}> : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, "
            "tensor<2xf32>) -> tensor<2x2x2x2xf32>"
        ),
    ),
    (
        "%x: tensor<2x2x2x2xf32>, %s: tensor<2xf32>",
        (
            '%output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, '
            "feature_index = 3 : i64}> : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) "
            "-> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)"
        ),
    ),
    (
        "%a: tensor<1x8x8x207xf32>, %b: tensor<3x3x207x16xf32>, %p: tensor<2x2xi64>",
        (
            '%0 = "stablehlo.dynamic_conv"(%arg0, %arg1, %arg2) <{batch_group_count = 1 : i64, '
            "dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, "
            "lhs_dilation = array<i64: 1, 1>, precision_config = [#stablehlo<precision DEFAULT>, "
            "#stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, "
            "window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x207xf32>, tensor<3x3x207x16xf32>, tensor<2x2xi64>) "
            "-> tensor<1x?x?x16xf32>"
        ),
    ),
]


@pytest.mark.parametrize(
    "args,line", GENERIC_ONLY, ids=[_pretty_id(line) for _, line in GENERIC_ONLY]
)
def test_generic_only_roundtrip(args: str, line: str) -> None:
    assert _roundtrip(args, line) == line


def test_generic_only_ops_have_no_pretty_form() -> None:
    with pytest.raises(
        ParseError,
        match=r"-:2:\d+: error: 'stablehlo.triangular_solve' has no custom assembly form",
    ):
        parse(
            _func(
                "%a: tensor<4x4xf32>",
                "  %0 = stablehlo.triangular_solve %arg0, %arg0 : tensor<4x4xf32>",
            )
        )


# (function arguments, generic form accepted as input, expected pretty print)
GENERIC = [
    (
        "%a: tensor<100x26x26x32xi8>, %b: tensor<3x3x1x32xi8>",
        (
            '%0 = "stablehlo.convolution"(%arg0, %arg1) {batch_group_count = 1 : i64, dimension_numbers = '
            "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], "
            "kernel_input_feature_dimension = 3, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0, 1], "
            "output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, "
            "feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<2> : tensor<2x2xi64>, "
            "rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>, window_reversal = array<i1: true, true>} "
            ": (tensor<100x26x26x32xi8>, tensor<3x3x1x32xi8>) -> tensor<100x28x28x1xi32>"
        ),
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], "
            "window = {stride = [1, 1], pad = [[2, 2], [2, 2]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], "
            "reverse = [true, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
            ": (tensor<100x26x26x32xi8>, tensor<3x3x1x32xi8>) -> tensor<100x28x28x1xi32>"
        ),
    ),
    (
        "%a: tensor<2x2xi8>, %b: tensor<2x3xi8>",
        '%0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], '
        "lhs_contracting_dimensions = [1], rhs_batching_dimensions = [], rhs_contracting_dimensions = [0]>, "
        "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], algorithm = "
        "#stablehlo.dot_algorithm"
        + ALGORITHM
        + "} : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>",
        "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], "
        "algorithm = " + ALGORITHM + " : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>",
    ),
    (
        "%a: tensor<3x4xf32>",
        (
            '%0 = "stablehlo.reduce_precision"(%arg0) {exponent_bits = 8 : i32, mantissa_bits = 10 : i32} '
            ": (tensor<3x4xf32>) -> tensor<3x4xf32>"
        ),
        "%0 = stablehlo.reduce_precision %arg0, format = e8m10 : tensor<3x4xf32>",
    ),
    (
        "%a: tensor<2x2xf32>",
        '%0 = "stablehlo.cholesky"(%arg0) {lower = false} : (tensor<2x2xf32>) -> tensor<2x2xf32>',
        "%0 = stablehlo.cholesky %arg0 : tensor<2x2xf32>",
    ),
    (
        "%a: tensor<2xf32>",
        (
            '%0 = "stablehlo.exponential"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, '
            "rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} "
            ": (tensor<2xf32>) -> tensor<2xf32>"
        ),
        "%0 = stablehlo.exponential %arg0 : tensor<2xf32>",
    ),
    (
        "%a: tensor<f32>",
        (
            '%0:2 = "stablehlo.rng_bit_generator"(%arg0) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} '
            ": (tensor<f32>) -> (tensor<f32>, tensor<2x2xui32>)"
        ),
        (
            "%output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<f32>) "
            "-> (tensor<f32>, tensor<2x2xui32>)"
        ),
    ),
]


@pytest.mark.parametrize("args,generic,pretty", GENERIC, ids=[_pretty_id(p) for _, _, p in GENERIC])
def test_generic_input(args: str, generic: str, pretty: str) -> None:
    assert _roundtrip(args, generic) == pretty


def test_pretty_input_variants() -> None:
    # Window attributes in any order, `reverse` as integers (older printers), batching_dims written empty.
    conv = (
        "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], "
        "window = {reverse = [0], stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
        ": (tensor<1x3x5xf32>, tensor<2x3x2xf32>) -> tensor<1x2x4xf32>"
    )
    assert "window = {stride = [1], reverse = [false]}" in _roundtrip(
        "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>", conv
    )
    dot = (
        "%0 = stablehlo.dot_general %arg0, %arg0, batching_dims = [] x [], contracting_dims = [1] x [0] "
        ": (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>"
    )
    assert _roundtrip("%a: tensor<2x2xf32>", dot) == dot.replace("batching_dims = [] x [], ", "")


def test_generic_properties() -> None:
    m = parse(
        _func(
            "%a: tensor<2x2xf32>",
            "  %0 = stablehlo.cholesky %arg0, lower = true : tensor<2x2xf32>\n"
            "  %1 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0] "
            ": (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
        )
    )
    g = print_ir(m, generic=True)
    assert (
        '"stablehlo.cholesky"(%arg0) <{lower = true}> : (tensor<2x2xf32>) -> tensor<2x2xf32>' in g
    )
    assert (
        '"stablehlo.dot_general"(%arg0, %arg0) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions '
        "= [1], rhs_contracting_dimensions = [0]>}>"
    ) in g


# ------------------------------------------------------------------------------- attributes
def _attr(text: str):
    m = parse(f"func.func @f() attributes {{x = {text}}} {{\n  return\n}}")
    fn = next(o for o in m.walk() if o.name == "func.func")
    return fn.attributes["x"]


def test_dot_attr() -> None:
    a = _attr(
        "#stablehlo.dot<rhs_contracting_dimensions = [0], lhs_batching_dimensions = [], "
        "lhs_contracting_dimensions = [1],>"
    )
    assert isinstance(a, DotDimensionNumbersAttr)
    assert a.dims.lhs_contracting_dimensions == (1,) and a.dims.rhs_contracting_dimensions == (0,)
    assert (
        a.mlir_text()
        == "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>"
    )
    assert _attr("#stablehlo.dot<>").mlir_text() == "#stablehlo.dot<>"
    with pytest.raises(
        ParseError, match=r"-:1:\d+: error: duplicated `lhs_batching_dimensions` entry"
    ):
        _attr("#stablehlo.dot<lhs_batching_dimensions = [0], lhs_batching_dimensions = [0]>")


def test_conv_attr_forms() -> None:
    a = _attr("#stablehlo.conv<[0, 1, b, f]x[0, 1, o, i]->[f, 0, 1, b]>")
    assert isinstance(a, ConvDimensionNumbersAttr)
    d = a.dims
    assert (d.input_batch_dimension, d.input_feature_dimension, d.input_spatial_dimensions) == (
        2,
        3,
        (0, 1),
    )
    assert (d.output_batch_dimension, d.output_feature_dimension, d.output_spatial_dimensions) == (
        3,
        0,
        (1, 2),
    )
    assert a.mlir_text() == "#stablehlo.conv<[0, 1, b, f]x[0, 1, o, i]->[f, 0, 1, b]>"
    # Spatial dimensions may be listed out of order.
    assert _attr(
        "#stablehlo.conv<[b, 1, 0, f]x[1, 0, i, o]->[b, 1, 0, f]>"
    ).dims.input_spatial_dimensions == (2, 1)
    raw = (
        "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], "
        "kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], "
        "output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>"
    )
    assert _attr(raw).mlir_text() == "#stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>"
    # Numbers the compact form cannot show are printed in the raw form, which reads back.
    bad = raw.replace("input_batch_dimension = 0", "input_batch_dimension = 7")
    assert _attr(_attr(bad).mlir_text()) == _attr(bad)


@pytest.mark.parametrize(
    "text,message",
    [
        ("[b, 0, x]x[0, i, o]->[b, 0, f]", "Unexpected dimension x, expecting f"),
        ("[b, 0, b]x[0, i, o]->[b, 0, f]", "Unexpected dimension b, expecting f"),
        ("[b, 0, 0, f]x[0, i, o]->[b, 0, f]", "Duplicate entries for spatial dimension 0"),
        ("[b, 1, f]x[0, i, o]->[b, 0, f]", "Expected spatial dimensions 0 not specified"),
        ("[b, 0]x[0, i, o]->[b, 0, f]", "Expected dimensions f not specified"),
        ("[b, 0, f]x[0, i, o][b, 0, f]", "expected '->'"),
    ],
)
def test_conv_attr_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"-:1:\d+: error: " + re.escape(message)):
        _attr(f"#stablehlo.conv<{text}>")


def test_dot_algorithm_attr() -> None:
    fields = ALGORITHM[1:-1].split(", ")
    a = _attr("#stablehlo.dot_algorithm<" + ", ".join(reversed(fields)) + ">")
    assert isinstance(a, DotAlgorithmAttr)
    assert a.mlir_text() == "#stablehlo.dot_algorithm" + ALGORITHM
    with pytest.raises(
        ParseError, match="missing required parameter: allow_imprecise_accumulation"
    ):
        _attr("#stablehlo.dot_algorithm<" + ", ".join(fields[:-1]) + ">")


def test_result_accuracy_attr() -> None:
    a = _attr(
        "#stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 0, mode = "
        "#stablehlo.result_accuracy_mode<TOLERANCE>>"
    )
    assert isinstance(a, ResultAccuracyAttr)
    assert a.accuracy.atol == 1e-5 and a.accuracy.mode == "TOLERANCE"
    assert a.mlir_text() == (
        "#stablehlo.result_accuracy<atol = 1.000000e-05, "
        "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>"
    )
    assert (
        _attr("#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>")
        == ResultAccuracyAttr()
    )
    # As APFloat attributes, -0.0 is not the default 0.0.
    neg = _attr(
        "#stablehlo.result_accuracy<atol = -0.0, mode = #stablehlo.result_accuracy_mode<HIGHEST>>"
    )
    assert neg.mlir_text().startswith("#stablehlo.result_accuracy<atol = -0.000000e+00, ")
    with pytest.raises(ParseError, match="missing required parameter: mode"):
        _attr("#stablehlo.result_accuracy<ulps = 1>")
    with pytest.raises(
        ParseError,
        match=r"expected ::mlir::stablehlo::ResultAccuracyMode to be one of: DEFAULT, HIGHEST, TOLERANCE",
    ):
        _attr("#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<FAST>>")


def test_output_operand_alias_attr() -> None:
    text = "#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 1, operand_tuple_indices = []>"
    a = _attr(text.replace(", ", ",\n   "))
    assert isinstance(a, OutputOperandAliasAttr)
    assert (a.alias.output_tuple_indices, a.alias.operand_index, a.alias.operand_tuple_indices) == (
        (0,),
        1,
        (),
    )
    assert a.mlir_text() == text


@pytest.mark.parametrize(
    "t,message",
    [
        ("tensor<?x3xf32, #stablehlo.bounds<3, 4>>", "Static dimension 1 cannot have a bound"),
        (
            "tensor<?xf32, #stablehlo.bounds<3, ?>>",
            "Bounds length is 2, expected to be equal to rank(1) of the tensor",
        ),
    ],
)
def test_bounds_encoding_errors(t: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"-:1:\d+: error: " + re.escape(message)):
        parse(_func(f"%a: {t}", ""))


def test_bounds_encoding() -> None:
    t = "tensor<?x?xf32, #stablehlo.bounds<3, ?>>"
    m = parse(
        _func(
            f"%a: {t}, %b: tensor<f32, #stablehlo.bounds<>>, "
            "%c: tensor<?xf32, #stablehlo.type_extensions<bounds = [4]>>",
            "",
        )
    )
    text = print_ir(m)
    assert (
        f"%arg0: {t}, %arg1: tensor<f32, #stablehlo.bounds<>>, %arg2: tensor<?xf32, #stablehlo.bounds<4>>"
        in text
    )
    fn = next(o for o in m.walk() if o.name == "func.func")
    enc = fn.body.blocks[0].args[0].type.encoding
    assert isinstance(enc, TypeExtensionsAttr) and enc.bounds == (3, -1)


# --------------------------------------------------------------------------------- quant types
@pytest.mark.parametrize(
    "text,printed",
    [
        ("!quant.uniform<i8:f32, 34.0:16>", "!quant.uniform<i8:f32, 3.400000e+01:16>"),
        ("!quant.uniform<i8:f32, 2.0>", "!quant.uniform<i8:f32, 2.000000e+00>"),
        ("!quant.uniform<si8:f32, 2:0>", "!quant.uniform<i8:f32, 2.000000e+00>"),
        (
            "!quant.uniform<u8:bf16, 0.0078431372549019607:128>",
            "!quant.uniform<u8:bf16, 0.0078431372549019607:128>",
        ),
        ("!quant.uniform<ui16<0:1000>:f16, 1.5>", "!quant.uniform<ui16<0:1000>:f16, 1.500000e+00>"),
        (
            "!quant.uniform<i8<-127:127>:f32:1, {0.1:-30, 0.5}>",
            "!quant.uniform<i8<-127:127>:f32:1, {1.000000e-01:-30,5.000000e-01}>",
        ),
        ("!quant.uniform<i4:f32, 0.25:-8>", "!quant.uniform<i4:f32, 2.500000e-01:-8>"),
    ],
)
def test_quant_type_text(text: str, printed: str) -> None:
    m = parse(_func(f"%a: tensor<2x{text}>", ""))
    assert f"%arg0: tensor<2x{printed}>" in print_ir(m)
    fn = next(o for o in m.walk() if o.name == "func.func")
    assert isinstance(fn.body.blocks[0].args[0].type.element_type, UniformQuantizedType)


def test_quant_type_params() -> None:
    m = parse(_func("%a: tensor<2x!quant.uniform<u8<1:200>:f32:0, {0.1:-3,0.5:4}>>", ""))
    fn = next(o for o in m.walk() if o.name == "func.func")
    q = fn.body.blocks[0].args[0].type.element_type.params
    assert (q.signed, q.storage_min, q.storage_max, q.quantized_dimension) == (False, 1, 200, 0)
    assert q.scales == (0.1, 0.5) and q.zero_points == (-3, 4)


@pytest.mark.parametrize(
    "text,message",
    [
        ("!quant.uniform<f8:f32, 1.0>", "expected an integer storage type"),
        (
            "!quant.uniform<i8<-200:100>:f32, 1.0>",
            "illegal storage min and storage max: (-200:100)",
        ),
        ("!quant.uniform<i8:i32, 1.0>", "expressed type must be a floating-point type"),
        ("!quant.uniform<i8:f32, -1.0>", "quantization scale must be a positive finite number"),
        ("!quant.uniform<i8:f32:0, 1.0>", "expected '{' to open the per-axis scales"),
        ("!quant.uniform<i64:f32, 1.0>", "illegal storage type size: 64"),
        ("!quant.uniform<i8:f32:{0:1}, {{1.0}}>", "sub-channel quantization"),
    ],
)
def test_quant_type_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"-:1:\d+: error: " + re.escape(message)):
        parse(_func(f"%a: tensor<{text}>", ""))


# ----------------------------------------------------------------------------- verifiers
INVALID = [
    # (op, args, line, message fragment)
    (
        "dot",
        "%a: tensor<2x3xf32>, %b: tensor<2x4xf32>",
        "%0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>",
        "expected both lhs/rhs ranks to be either 1 or 2",
    ),
    (
        "dot_general_c1",
        "%a: tensor<2x2x2xf32>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [], contracting_dims = [2] x [1] "
            ": (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2x2xf32>"
        ),
        "lhs and rhs should have the same number of batching dimensions",
    ),
    (
        "dot_general_c6",
        "%a: tensor<2x3xf32>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [2] x [0] : (tensor<2x3xf32>, tensor<2x3xf32>) "
            "-> tensor<2x3xf32>"
        ),
        "lhs_contracting_dimensions value: 2 is out of range: [0, 2)",
    ),
    (
        "dot_general_c10",
        "%a: tensor<2x3xf32>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<2x3xf32>) "
            "-> tensor<2x3xf32>"
        ),
        "contracting dimension sizes must match for lhs/rhs",
    ),
    (
        "dot_general_c12",
        "%a: tensor<2x3xf32>, %b: tensor<3x4xf32>",
        (
            "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) "
            "-> tensor<2x5xf32>"
        ),
        "inferred shape '[2, 4]' is incompatible with return type of operation 'tensor<2x5xf32>'",
    ),
    (
        "dot_general_c21",
        "%a: tensor<2x2xf32>",
        "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], precision = [HIGH, DEFAULT], "
        "algorithm = " + ALGORITHM + " : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
        "must specify DEFAULT precision config when algorithm is set.",
    ),
    (
        "convolution_c25",
        "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>",
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} "
            "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x5xf32>, tensor<2x3x2xf32>) "
            "-> tensor<1x2x5xf32>"
        ),
        "inferred shape '[1, 2, 4]' is incompatible with return type of operation 'tensor<1x2x5xf32>'",
    ),
    (
        "convolution_c2",
        "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>",
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = "
            "{stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
            ": (tensor<1x3x5xf32>, tensor<2x3x2xf32>) -> tensor<1x2x4xf32>"
        ),
        "expects window-strides to have same dimension-size as size of window dimensions (1), but got: 2.",
    ),
    (
        "convolution_c23",
        "%a: tensor<2x4x5xf32>, %b: tensor<4x2x2xf32>",
        (
            "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} "
            "{batch_group_count = 2 : i64, feature_group_count = 2 : i64} : (tensor<2x4x5xf32>, tensor<4x2x2xf32>) "
            "-> tensor<1x4x4xf32>"
        ),
        "expects batch_group_count and feature_group_count not to be both greater than 1. Got 2 and 2 resp.",
    ),
    (
        "dynamic_conv",
        "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>, %p: tensor<2x2xi64>",
        (
            '%0 = "stablehlo.dynamic_conv"(%arg0, %arg1, %arg2) {batch_group_count = 1 : i64, dimension_numbers = '
            "#stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>, feature_group_count = 1 : i64} "
            ": (tensor<1x3x5xf32>, tensor<2x3x2xf32>, tensor<2x2xi64>) -> tensor<1x2x?xf32>"
        ),
        "expects padding to be of shape [1, 2], but got [2, 2]",
    ),
    (
        "fft_c2",
        "%a: tensor<16xf32>",
        "%0 = stablehlo.fft %arg0, type = FFT, length = [16] : (tensor<16xf32>) -> tensor<16xcomplex<f32>>",
        "FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<16xf32>'.",
    ),
    (
        "fft_c5",
        "%a: tensor<3x9xf32>",
        "%0 = stablehlo.fft %arg0, type = RFFT, length = [9] : (tensor<3x9xf32>) -> tensor<3x9xcomplex<f32>>",
        (
            "inferred type(s) 'tensor<3x5xcomplex<f32>>' are incompatible with return type(s) of "
            "operation 'tensor<3x9xcomplex<f32>>'"
        ),
    ),
    (
        "fft_c4",
        "%a: tensor<3x9xf32>",
        "%0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>>",
        "RFFT requires innermost dimensions to be compatible with fft_length. Got: 3, 9 but wanted 8.",
    ),
    (
        "triangular_solve_c3",
        "%a: tensor<4x4xf32>, %b: tensor<3x4xf32>",
        (
            '%0 = "stablehlo.triangular_solve"(%arg0, %arg1) {left_side = true, lower = true, unit_diagonal = false, '
            "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>"
        ),
        (
            "shared dimension of operands 'a' and 'b' must be compatible, but got "
            "'tensor<4x4xf32>' and 'tensor<3x4xf32>'"
        ),
    ),
    (
        "cholesky_c3",
        "%a: tensor<2x3xf32>",
        "%0 = stablehlo.cholesky %arg0 : tensor<2x3xf32>",
        "minor dimensions of 'a' must have equal size, got shape 2, 3.",
    ),
    (
        "batch_norm_grad_c1",
        "%x: tensor<2x2xf32>, %s: tensor<2xf32>",
        (
            '%0:3 = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) {epsilon = 1.0e-3 : f32, '
            "feature_index = 2 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>) "
            "-> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)"
        ),
        (
            "expects featureIndex to be smaller than the rank of multi-dimensional operands; got "
            "featureIndex 2, and rank 2."
        ),
    ),
    (
        "batch_norm_inference_c3",
        "%x: tensor<2x3xf32>, %s: tensor<2xf32>",
        (
            '%0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) {epsilon = 1.0e-3 : f32, '
            "feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) "
            "-> tensor<2x3xf32>"
        ),
        (
            "expects the size of single-dimensional operands to be compatible with feature count, but "
            "the size of single-dimensional operands is 2 and the feature count is 3."
        ),
    ),
    (
        "batch_norm_training_c2",
        "%x: tensor<2x2xf32>, %s: tensor<2xf64>",
        (
            '%0:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg1) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} '
            ": (tensor<2x2xf32>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2xf32>, tensor<2xf64>, tensor<2xf64>)"
        ),
        "requires compatible element types for all operands and results",
    ),
    (
        "rng_c2",
        "%a: tensor<i32>, %s: tensor<1xi64>",
        (
            "%0 = stablehlo.rng %arg0, %arg0, %arg1, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) "
            "-> tensor<4xi32>"
        ),
        "mu and sigma must be floats",
    ),
    (
        "rng_bit_generator_c1",
        "%a: tensor<2xui64>",
        (
            "%output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = THREE_FRY : (tensor<2xui64>) "
            "-> (tensor<3xui64>, tensor<4xui32>)"
        ),
        "output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and 'tensor<3xui64>'",
    ),
    (
        "uniform_quantize_c2",
        "%a: tensor<2xbf16>",
        f"%0 = stablehlo.uniform_quantize %arg0 : (tensor<2xbf16>) -> tensor<2x{Q}>",
        "Expressed type of result expected to be bf16, but got f32",
    ),
    (
        "uniform_dequantize_c2",
        f"%a: tensor<2x{Q}>",
        f"%0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x{Q}>) -> tensor<2xf64>",
        "inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf64>'",
    ),
    (
        "reduce_precision_c2",
        "%a: tensor<2xf32>",
        (
            '%0 = "stablehlo.reduce_precision"(%arg0) {exponent_bits = 0 : i32, mantissa_bits = 10 : i32} '
            ": (tensor<2xf32>) -> tensor<2xf32>"
        ),
        (
            "attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer attribute whose value "
            "is positive"
        ),
    ),
    (
        "bitcast_convert_c1",
        "%a: tensor<2xf32>",
        "%0 = stablehlo.bitcast_convert %arg0 : (tensor<2xf32>) -> tensor<2x3xi16>",
        "requires compatible bit widths. Got: 'tensor<2xf32>' and 'tensor<2x3xi16>', but 16 * 3 != 32.",
    ),
    (
        "bitcast_convert_c2",
        "%a: tensor<2xf64>",
        "%0 = stablehlo.bitcast_convert %arg0 : (tensor<2xf64>) -> tensor<2xcomplex<f32>>",
        "cannot convert between real and complex types, but got: 'tensor<2xf64>' and 'tensor<2xcomplex<f32>>'",
    ),
    (
        "sqrt_c1",
        "%a: tensor<2xf32>",
        "%0 = stablehlo.sqrt %arg0 : (tensor<2xf32>) -> tensor<2xf64>",
        "requires compatible types for all operands and results",
    ),
    (
        "exponential_result_accuracy",
        "%a: tensor<2xf32>",
        (
            "%0 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<ulps = 2, "
            "mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<2xf32>"
        ),
        "result_accuracy with mode HIGHEST must have zero tolerances",
    ),
    (
        "cosine_i1",
        f"%a: tensor<2x{Q_AXIS}>",
        f"%0 = stablehlo.cosine %arg0 : tensor<2x{Q_AXIS}>",
        "operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values",
    ),
]


@pytest.mark.parametrize("case,args,line,message", INVALID, ids=[c[0] for c in INVALID])
def test_verifier_rejects(case: str, args: str, line: str, message: str) -> None:
    m = parse(_func(args, "  " + line))
    with pytest.raises(VerifyError, match=re.escape(message)) as e:
        verify(m)
    op = re.sub(r"_(c\d+|i\d+|result_accuracy)$", "", case)
    # at the op's line: as the op's own error (`'stablehlo.<op>' op ...`, ODS, traits, verifiers) or,
    # for what upstream's rules emit at the op's location, the bare message
    text = str(e.value)
    assert f"error: 'stablehlo.{op}' op " in text or f"error: {message}" in text
    assert re.search(r"-:2:\d+", text)


def test_every_op_has_a_negative_test() -> None:
    from stablehlo_py.ir.ops import linalg, quantization

    tested = {re.sub(r"_(c\d+|i\d+|result_accuracy)$", "", c[0]) for c in INVALID}
    names = {op.name.split(".", 1)[1] for op in (*linalg.OPS, *quantization.OPS)}
    assert names - tested == set()


# ---------------------------------------------------------------------------- parse errors
@pytest.mark.parametrize(
    "args,line,message",
    [
        (
            "%a: tensor<2x2xf32>",
            (
                "%0 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0] : (tensor<2x2xf32>, tensor<2x2xf32>) "
                "-> tensor<2x2xf32>"
            ),
            "expected ',', found ':'",
        ),
        (
            "%a: tensor<2x2xf32>",
            (
                "%0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] [0] : (tensor<2x2xf32>, tensor<2x2xf32>) "
                "-> tensor<2x2xf32>"
            ),
            "custom op 'stablehlo.dot_general' expected 'x', found '[0]'",
        ),
        (
            "%a: tensor<3xi64>",
            "%0 = stablehlo.dot %arg0, %arg0, precision = [FAST] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>",
            "custom op 'stablehlo.dot' expected ::mlir::stablehlo::Precision to be one of: DEFAULT, HIGH, HIGHEST, found 'FAST'",
        ),
        (
            "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>",
            (
                "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], "
                "window = {stride = [1], size = [2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
                ": (tensor<1x3x5xf32>, tensor<2x3x2xf32>) -> tensor<1x2x4xf32>"
            ),
            "Unexpected keyword size",
        ),
        (
            "%a: tensor<1x3x5xf32>, %b: tensor<2x3x2xf32>",
            (
                "%0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], "
                "window = {pad = [[1, 1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} "
                ": (tensor<1x3x5xf32>, tensor<2x3x2xf32>) -> tensor<1x2x4xf32>"
            ),
            "Expected array with 2 elements, got 3 elements instead",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.reduce_precision %arg0, format = e5 : tensor<2xf32>",
            "custom op 'stablehlo.reduce_precision' expected exponent mantissa in format e#m#, saw e5",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.fft %arg0, type = DFT, length = [2] : (tensor<2xf32>) -> tensor<2xf32>",
            "custom op 'stablehlo.fft' expected ::mlir::stablehlo::FftType to be one of: FFT, IFFT, RFFT, IRFFT, found 'DFT'",
        ),
    ],
)
def test_parse_errors(args: str, line: str, message: str) -> None:
    with pytest.raises(ParseError, match=r"-:2:\d+: error: " + re.escape(message)):
        parse(_func(args, "  " + line))


# ------------------------------------------------ upstream's known dot algorithms (Base.cpp's table)
def _algorithm(
    lhs: str, rhs: str, acc: str, lc: int = 1, rc: int = 1, ops: int = 1, imp: bool = False
) -> str:
    return (
        f"#stablehlo.dot_algorithm<lhs_precision_type = {lhs}, rhs_precision_type = {rhs}, "
        f"accumulation_type = {acc}, lhs_component_count = {lc}, rhs_component_count = {rc}, "
        f"num_primitive_operations = {ops}, allow_imprecise_accumulation = {'true' if imp else 'false'}>"
    )


@pytest.mark.parametrize(
    "args",
    [
        ("f16", "f16", "f16"),
        ("bf16", "bf16", "f32", 1, 1, 9),
        ("tf32", "tf32", "f32", 1, 1, 3),
        ("f64", "f64", "f64"),
        ("f8E4M3FN", "f8E5M2", "f32"),
        ("f8E4M3FNUZ", "f8E4M3FNUZ", "f32", 1, 1, 1, True),
    ],
)
def test_known_dot_algorithms_parse(args: tuple) -> None:  # type: ignore[type-arg]
    assert isinstance(_attr(_algorithm(*args)), DotAlgorithmAttr)


@pytest.mark.parametrize(
    "args,message",
    [
        (("f32", "f32", "f32", 0), "lhs component count must be positive"),
        (("f32", "f32", "f32", 1, 0), "rhs component count must be positive"),
        (("f32", "f32", "f32", 1, 1, 0), "num primitive operations must be positive"),
        (
            ("f32", "f32", "f32", 3),
            (
                "dot algorithm not known to be supported on any hardware: {lhs:'f32', "
                "rhs:'f32', accum:'f32', lhs_components:3, rhs_components:1, primitive_ops:1, "
                "imprecise:0}"
            ),
        ),
        (
            ("bf16", "bf16", "f32", 1, 1, 1, True),
            (
                "dot algorithm not known to be supported on any hardware: {lhs:'bf16', "
                "rhs:'bf16', accum:'f32', lhs_components:1, rhs_components:1, primitive_ops:1, "
                "imprecise:1}"
            ),
        ),
        (("f8E8M0FNU", "f8E8M0FNU", "f32"), "lhs:'f8E8M0FNU'"),
        (("f8E4M3FN", "f8E4M3FN", "f16"), "accum:'f16'"),
        (("f16", "f16", "f64"), "accum:'f64'"),
    ],
)
def test_unknown_dot_algorithms_are_refused_at_the_attribute(args: tuple, message: str) -> None:  # type: ignore[type-arg]
    # upstream's verifyDotAlgorithmAttr runs when the attribute is built: at the attribute
    text = _func(
        "%a: tensor<2x2xf32>",
        f'  %0 = "stablehlo.dot_general"(%arg0, %arg0) <{{dot_dimension_numbers = #stablehlo.dot<'
        f"lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,\n"
        f"    algorithm = {_algorithm(*args)}}}> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
    )
    with pytest.raises(ParseError, match=r"-:3:41: error: .*" + re.escape(message)):
        parse(text)


def test_dot_algorithm_built_in_python_is_verified_by_the_op() -> None:
    from stablehlo_py.ir.op_attrs import DotAlgorithm

    m = parse(
        _func(
            "%a: tensor<2x2xf32>",
            "  %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], algorithm = "
            + _algorithm("f32", "f32", "f32")[len("#stablehlo.dot_algorithm") :]
            + " : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>",
        )
    )
    verify(m)
    op = next(o for o in m.walk() if o.name == "stablehlo.dot_general")
    a = op.properties["algorithm"].algorithm
    op.properties["algorithm"] = DotAlgorithmAttr(
        DotAlgorithm(**{**a.__dict__, "num_primitive_operations": 2})
    )
    with pytest.raises(VerifyError, match="primitive_ops:2, imprecise:0"):
        verify(m)


# ------------------------------------------------- convolution's attribute constraints, at MLIR's place
CONV_ARGS = "%a: tensor<1x8x8x207xf32>, %b: tensor<3x3x207x16xf32>"
CONV_HEAD = (
    "  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
    "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]}\n"
)
CONV_TYPE = " : (tensor<1x8x8x207xf32>, tensor<3x3x207x16xf32>) -> tensor<1x8x8x16xf32>"


@pytest.mark.parametrize("name", ["feature_group_count", "batch_group_count"])
def test_convolution_group_counts_are_checked_at_the_attribute_dictionary(name: str) -> None:
    other = "batch_group_count" if name == "feature_group_count" else "feature_group_count"
    text = _func(
        CONV_ARGS, CONV_HEAD + f"      {{{other} = 1 : i64, {name} = 0 : i64}}" + CONV_TYPE
    )
    message = (
        f"'stablehlo.convolution' op attribute '{name}' failed to satisfy constraint: 64-bit "
        "signless integer attribute whose value is positive"
    )
    # the pretty form: MLIR's verifyInherentAttrs, at the dictionary (line 3, column 7)
    with pytest.raises(ParseError, match=r"-:3:7: error: " + re.escape(message)):
        parse(text)
    # the generic form: the op's verifier, at the op
    generic = _func(
        CONV_ARGS,
        '  %0 = "stablehlo.convolution"(%arg0, %arg1) {dimension_numbers = '
        "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, "
        f"{other} = 1 : i64, {name} = -2 : i64}}" + CONV_TYPE,
    )
    with pytest.raises(VerifyError, match=r"-:2:8: error: " + re.escape(message)):
        verify(parse(generic))


def test_convolution_window_needs_integers() -> None:
    text = _func(
        CONV_ARGS,
        CONV_HEAD.replace("stride = [1, 1]", "stride = [1, b]")
        + "      {batch_group_count = 1 : i64, feature_group_count = 1 : i64}"
        + CONV_TYPE,
    )
    with pytest.raises(ParseError, match=r"-:2:\d+: error: expected integer value"):
        parse(text)


def test_dot_general_accepts_what_upstream_accepts() -> None:
    # upstream's verifyDotGeneralOp does not compare the operands' element types (jaxlib's
    # stablehlo verifies this program)
    _roundtrip(
        "%a: tensor<2x3xf32>, %b: tensor<3x4xf64>",
        "%0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : "
        "(tensor<2x3xf32>, tensor<3x4xf64>) -> tensor<2x4xf32>",
    )


@pytest.mark.parametrize(
    "args,types,message",
    [
        (
            f"%a: tensor<2x3x{Q}>, %b: tensor<3x4xf32>",
            f"(tensor<2x3x{Q}>, tensor<3x4xf32>) -> tensor<2x4x{Q}>",
            (
                "rhs should be quantized for quantized operations and "
                "is_quantized(lhs)=is_quantized(result) should hold"
            ),
        ),
        (
            f"%a: tensor<2x3xf32>, %b: tensor<3x4x{Q}>",
            f"(tensor<2x3xf32>, tensor<3x4x{Q}>) -> tensor<2x4xf32>",
            "Zero point of rhs should be 0",
        ),
        (
            "%a: tensor<2x3xf32>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>",
            "(tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4xf64>",
            "mismatched rhs quantization expressed type and lhs and result element type",
        ),
    ],
)
def test_dot_general_quantization_in_upstream_words(args: str, types: str, message: str) -> None:
    line = f"  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : {types}"
    m = parse(_func(args, line))
    # verifyDotGeneralOpQuantizationConstraints emits at the op's location (emitOptionalError)
    with pytest.raises(
        VerifyError, match=r"error: (?:'stablehlo.dot_general' op )?" + re.escape(message)
    ):
        verify(m)
