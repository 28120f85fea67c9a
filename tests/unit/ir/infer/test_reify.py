"""Result shapes as IR (stablehlo_py/ir/infer/reify.py, upstream's reifyReturnTypeShapes) through
`--hlo-test-infer`'s `reify_return_type_shapes`: the folded computations, MLIR's syntax for them
(a printed result parses back to itself), and what is left as it is."""

from __future__ import annotations

from stablehlo_py.passes.hlo_test_infer import run

from stablehlo_py.ir import parse, print_ir


def reify(args: str, line: str, result: str, shape: str) -> str:
    """The function body after the pass, without the module and function lines."""
    text = (
        f"func.func @f({args}) -> {shape} {{\n  {line}\n"
        f'  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : ({result}) -> {shape}\n'
        f"  return %1 : {shape}\n}}\n"
    )
    m = run(parse(text, allow_unregistered=True), {})
    out = print_ir(m)
    assert print_ir(parse(out, allow_unregistered=True)) == out  # MLIR's syntax, read back
    return "\n".join(ln.strip() for ln in out.splitlines()[2:-2])


def test_elementwise_ops_take_the_shape_of_their_operand() -> None:
    got = reify(
        "%a: tensor<2x?xf32>, %b: tensor<2x?xf32>",
        '%0 = "stablehlo.clamp"(%a, %b, %a) : (tensor<2x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>',
        "tensor<2x?xf32>",
        "tensor<2xindex>",
    )
    assert "shape.shape_of %arg1 : tensor<2x?xf32> -> tensor<2xindex>" in got  # operand 1


def test_static_dimensions_and_zero_padding_fold() -> None:
    got = reify(
        "%a: tensor<?x4xf32>, %p: tensor<f32>",
        '%0 = "stablehlo.pad"(%a, %p) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = '
        "array<i64: 0, 2>, interior_padding = array<i64: 0, 1>} : (tensor<?x4xf32>, tensor<f32>) -> "
        "tensor<?x9xf32>",
        "tensor<?x9xf32>",
        "tensor<2xindex>",
    )
    # dimension 1: 4 + max(4 - 1, 0) * 1 + 2 = 9, folded; dimension 0: dim + 1
    assert {"%c1 = arith.constant 1 : index", "%c9 = arith.constant 9 : index"} <= set(
        got.splitlines()
    )
    assert "%1 = arith.addi %dim, %c1 : index" in got
    assert "tensor.from_elements %1, %c9 : tensor<2xindex>" in got


def test_constants_are_created_once_and_existing_ones_reused() -> None:
    got = reify(
        "%a: tensor<?x?xf32>",
        '%c0 = arith.constant 0 : index\n  %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} '
        ": (tensor<?x?xf32>) -> tensor<?x?xf32>",
        "tensor<?x?xf32>",
        "tensor<2xindex>",
    )
    assert got.count("arith.constant 0 : index") == 1
    assert "tensor.from_elements %dim_0, %dim : tensor<2xindex>" in got


def test_a_shape_operand_is_the_shape() -> None:
    got = reify(
        "%s: tensor<2xindex>",
        '%0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<2xindex>) -> tensor<?x?xf32>',
        "tensor<?x?xf32>",
        "tensor<2xindex>",
    )
    assert got.splitlines()[-1] == "return %arg0 : tensor<2xindex>"


def test_an_integer_shape_operand_is_cast_to_index() -> None:
    got = reify(
        "%s: tensor<2xi64>",
        '%0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<2xi64>) -> tensor<?x?xf32>',
        "tensor<?x?xf32>",
        "tensor<2xindex>",
    )
    assert "arith.index_cast %arg0 : tensor<2xi64> to tensor<2xindex>" in got
    # a constant shape folds to an index constant
    got = reify(
        "",
        "%s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>\n"
        '  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<2xi64>) -> tensor<?x?xf32>',
        "tensor<?x?xf32>",
        "tensor<2xindex>",
    )
    assert "arith.constant dense<[2, 3]> : tensor<2xindex>" in got


def test_integer_paddings_are_computed_in_their_type() -> None:
    t = "tensor<1xi64>"
    got = reify(
        f"%a: tensor<?xf32>, %p: tensor<f32>, %l: {t}, %h: {t}, %i: {t}",
        f'%0 = "stablehlo.dynamic_pad"(%a, %p, %l, %h, %i) : (tensor<?xf32>, tensor<f32>, {t}, {t}, {t}) '
        "-> tensor<?xf32>",
        "tensor<?xf32>",
        "tensor<1xi64>",
    )
    assert "arith.index_cast %dim : index to i64" in got
    assert "arith.constant 1 : i64" in got
    assert got.splitlines()[-2].endswith(": tensor<1xi64>")


def test_dynamic_gather_slice_sizes_fold_when_constant() -> None:
    got = reify(
        "%a: tensor<5x3xf32>, %i: tensor<?x1xi32>",
        "%s = stablehlo.constant dense<[1, 3]> : tensor<2xi64>\n"
        '  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<'
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} "
        ": (tensor<5x3xf32>, tensor<?x1xi32>, tensor<2xi64>) -> tensor<?x3xf32>",
        "tensor<?x3xf32>",
        "tensor<2xindex>",
    )
    assert "tensor.from_elements %dim, %c3 : tensor<2xindex>" in got
    assert "tensor.extract" not in got


def test_bitcast_convert_of_the_same_width_takes_the_operand_shape() -> None:
    got = reify(
        "%a: tensor<?xf32>",
        '%0 = "stablehlo.bitcast_convert"(%a) : (tensor<?xf32>) -> tensor<?xi32>',
        "tensor<?xi32>",
        "tensor<1xindex>",
    )
    assert "shape.shape_of %arg0 : tensor<?xf32> -> tensor<1xindex>" in got
    # a shape-changing bitcast is not reified upstream: the test op stays
    got = reify(
        "%a: tensor<?xf32>",
        '%0 = "stablehlo.bitcast_convert"(%a) : (tensor<?xf32>) -> tensor<?x2xi16>',
        "tensor<?x2xi16>",
        "tensor<2xindex>",
    )
    assert '"hlo_test_infer.reify_return_type_shapes"(%0)' in got


def test_ops_upstream_cannot_reify_are_left_as_they_are() -> None:
    got = reify(
        "%a: tensor<?xf32>",
        '%0 = "stablehlo.sine"(%a) : (tensor<?xf32>) -> tensor<?xf32>',
        "tensor<?xf32>",
        "tensor<1xindex>",
    )
    assert '"hlo_test_infer.reify_return_type_shapes"(%0)' in got


def test_a_reused_constant_defined_later_moves_to_the_start() -> None:
    got = reify(
        "%a: tensor<?x?xf32>",
        '%0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> '
        "tensor<?x?xf32>\n  %c1 = arith.constant 1 : index\n  %d = tensor.dim %a, %c1 : tensor<?x?xf32>",
        "tensor<?x?xf32>",
        "tensor<2xindex>",
    )
    lines = got.splitlines()
    assert lines.count("%c1 = arith.constant 1 : index") == 1
    first_use = next(i for i, ln in enumerate(lines) if "tensor.dim %arg0, %c1" in ln)
    assert lines.index("%c1 = arith.constant 1 : index") < first_use
