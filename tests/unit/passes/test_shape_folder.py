"""The shape folder (passes/patterns/shape_folder.py): each fold of the table on constant operands,
upstream's integer semantics (wrap-around, truncating division, i1 arithmetic, unsigned comparison),
and the cases upstream does not fold (floats without optimize_float, division by zero, dynamic
results)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.passes.patterns.shape_folder import FOLDS, SHAPE_FOLD_OPS, FoldOptions, fold_op
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation

from stablehlo_py.ir import parse
from stablehlo_py.ir.text.dense import dense_values


def _fold(body: str, result: str, options: FoldOptions | None = None) -> object:
    """Fold the op defining the returned value of `func @f() -> result { body }`."""
    m = parse(f"func.func @f() -> {result} {{\n{body}\n}}", "t.mlir")
    ret = next(o for o in m.walk() if o.name == "func.return")
    op = ret.operands[0].owner
    assert isinstance(op, Operation)
    return fold_op(op, options or FoldOptions())


def _values(result: object) -> list:
    assert isinstance(result, DenseIntOrFPElementsAttr), result
    return dense_values(result).tolist()


def _binary(op: str, a: str, b: str, t: str) -> str:
    return (
        f"%0 = stablehlo.constant dense<{a}> : {t}\n%1 = stablehlo.constant dense<{b}> : {t}\n"
        f"%2 = stablehlo.{op} %0, %1 : {t}\nfunc.return %2 : {t}"
    )


@pytest.mark.parametrize(
    ("op", "a", "b", "t", "expected"),
    [
        ("add", "[1, 2]", "[3, 4]", "tensor<2xi64>", [4, 6]),
        ("add", "127", "1", "tensor<i8>", -128),  # wraps as APInt
        ("add", "true", "true", "tensor<i1>", False),  # i1 adds modulo 2
        ("add", "255", "1", "tensor<ui8>", 0),
        ("subtract", "[5, -1]", "[7, 1]", "tensor<2xi32>", [-2, -2]),
        ("multiply", "[3, -4]", "[5, 6]", "tensor<2xi64>", [15, -24]),
        (
            "divide",
            "[7, -7, 7, -7]",
            "[2, 2, -2, -2]",
            "tensor<4xi64>",
            [3, -3, -3, 3],
        ),  # toward zero
        (
            "remainder",
            "[7, -7, 7, -7]",
            "[2, 2, -2, -2]",
            "tensor<4xi64>",
            [1, -1, 1, -1],
        ),  # dividend's sign
        ("divide", "[200]", "[3]", "tensor<1xui8>", [66]),
        ("maximum", "[1, -5]", "[4, -9]", "tensor<2xi64>", [4, -5]),
        ("minimum", "[1, -5]", "[4, -9]", "tensor<2xi64>", [1, -9]),
        ("and", "[12]", "[10]", "tensor<1xi32>", [8]),
        ("or", "[12]", "[10]", "tensor<1xi32>", [14]),
        ("and", "[true, false]", "[true, true]", "tensor<2xi1>", [True, False]),
        ("or", "[true, false]", "[false, false]", "tensor<2xi1>", [True, False]),
    ],
)
def test_binary_folds(op: str, a: str, b: str, t: str, expected: object) -> None:
    assert _values(_fold(_binary(op, a, b, t), t)) == expected


def test_integer_division_by_zero_is_not_folded() -> None:
    assert _fold(_binary("divide", "[4, 1]", "[2, 0]", "tensor<2xi64>"), "tensor<2xi64>") is None
    assert _fold(_binary("remainder", "1", "0", "tensor<i32>"), "tensor<i32>") is None


def test_floats_fold_only_with_optimize_float() -> None:
    body = _binary("add", "2.0", "2.5", "tensor<f32>")
    assert _fold(body, "tensor<f32>") is None
    assert _values(_fold(body, "tensor<f32>", FoldOptions(optimize_float=True))) == pytest.approx(
        4.5
    )


@pytest.mark.parametrize(
    ("direction", "a", "b", "t", "extra", "expected"),
    [
        ("LT", "[1, -1]", "[2, 2]", "tensor<2xi64>", "", [True, True]),
        ("GE", "[1, -1]", "[1, 2]", "tensor<2xi64>", "", [True, False]),
        ("LT", "[-1]", "[2]", "tensor<1xi64>", ", UNSIGNED", [False]),  # 0xFF..FF as unsigned
        ("GT", "[200]", "[100]", "tensor<1xui8>", "", [True]),
        ("EQ", "[true]", "[true]", "tensor<1xi1>", "", [True]),
        ("NE", "[3]", "[3]", "tensor<1xi32>", "", [False]),
    ],
)
def test_compare(direction: str, a: str, b: str, t: str, extra: str, expected: list) -> None:
    shape = t[len("tensor<") : t.rindex("x") + 1] if "x" in t else ""
    rt = f"tensor<{shape}i1>"
    body = (
        f"%0 = stablehlo.constant dense<{a}> : {t}\n%1 = stablehlo.constant dense<{b}> : {t}\n"
        f"%2 = stablehlo.compare {direction}, %0, %1{extra} : ({t}, {t}) -> {rt}\nfunc.return %2 : {rt}"
    )
    assert _values(_fold(body, rt)) == expected


def test_convert_integers_and_no_float_convert() -> None:
    body = (
        "%0 = stablehlo.constant dense<[-1, 300]> : tensor<2xi32>\n"
        "%1 = stablehlo.convert %0 : (tensor<2xi32>) -> tensor<2xi8>\nfunc.return %1 : tensor<2xi8>"
    )
    assert _values(_fold(body, "tensor<2xi8>")) == [-1, 44]  # truncation
    body = (
        "%0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>\n"
        "%1 = stablehlo.convert %0 : (tensor<2xi1>) -> tensor<2xi64>\nfunc.return %1 : tensor<2xi64>"
    )
    assert _values(_fold(body, "tensor<2xi64>")) == [1, 0]  # i1 is zero-extended
    body = (
        "%0 = stablehlo.constant dense<[1.5, -2.5]> : tensor<2xf32>\n"
        "%1 = stablehlo.convert %0 : (tensor<2xf32>) -> tensor<2xi64>\nfunc.return %1 : tensor<2xi64>"
    )
    assert _fold(body, "tensor<2xi64>") is None  # lossy: not a shape computation
    assert _values(_fold(body, "tensor<2xi64>", FoldOptions(optimize_float=True))) == [1, -2]


@pytest.mark.parametrize(
    ("body", "result", "expected"),
    [
        pytest.param(
            "%0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>\n"
            "%1 = stablehlo.slice %0 [0:2, 1:3:2] : (tensor<2x3xi64>) -> tensor<2x1xi64>\n"
            "func.return %1 : tensor<2x1xi64>",
            "tensor<2x1xi64>",
            [[2], [5]],
            id="slice",
        ),
        pytest.param(
            "%0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n%1 = stablehlo.constant dense<[3]> : tensor<1xi64>\n"
            "%2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<2xi64>, tensor<1xi64>) -> tensor<3xi64>\n"
            "func.return %2 : tensor<3xi64>",
            "tensor<3xi64>",
            [1, 2, 3],
            id="concatenate",
        ),
        pytest.param(
            "%0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>\n"
            "%1 = stablehlo.reshape %0 : (tensor<4xi64>) -> tensor<2x2xi64>\nfunc.return %1 : tensor<2x2xi64>",
            "tensor<2x2xi64>",
            [[1, 2], [3, 4]],
            id="reshape",
        ),
        pytest.param(
            "%0 = stablehlo.constant dense<7> : tensor<i32>\n"
            "%1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<2x3xi32>\n"
            "func.return %1 : tensor<2x3xi32>",
            "tensor<2x3xi32>",
            [[7] * 3] * 2,
            id="broadcast_in_dim",
        ),
        pytest.param(
            "%0 = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>\n"
            "%1 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi64>\n%2 = stablehlo.constant dense<[4, 5, 6]> : tensor<3xi64>\n"
            "%3 = stablehlo.select %0, %1, %2 : tensor<3xi1>, tensor<3xi64>\nfunc.return %3 : tensor<3xi64>",
            "tensor<3xi64>",
            [1, 5, 3],
            id="select",
        ),
    ],
)
def test_data_movement_folds(body: str, result: str, expected: list) -> None:
    assert _values(_fold(body, result)) == expected


def test_get_dimension_size_clamp_and_sign() -> None:
    m = parse(
        "func.func @f(%a: tensor<5x?xf32>) -> (tensor<i32>, tensor<i32>) {\n"
        "%0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<5x?xf32>) -> tensor<i32>\n"
        "%1 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<5x?xf32>) -> tensor<i32>\n"
        "func.return %0, %1 : tensor<i32>, tensor<i32>\n}",
        "t.mlir",
    )
    static, dynamic = [o for o in m.walk() if o.name == "stablehlo.get_dimension_size"]
    assert _values(fold_op(static)) == 5
    assert fold_op(dynamic) is None  # "expected static dimension"
    body = (
        "%0 = stablehlo.constant dense<[0, 0, 0]> : tensor<3xi64>\n%1 = stablehlo.constant dense<[-3, 1, 9]> : tensor<3xi64>\n"
        "%2 = stablehlo.constant dense<[5, 5, 5]> : tensor<3xi64>\n%3 = stablehlo.clamp %0, %1, %2 : tensor<3xi64>\n"
        "func.return %3 : tensor<3xi64>"
    )
    assert _values(_fold(body, "tensor<3xi64>")) == [0, 1, 5]
    body = (
        "%0 = stablehlo.constant dense<[-7, 0, 3]> : tensor<3xi32>\n"
        "%1 = stablehlo.sign %0 : tensor<3xi32>\nfunc.return %1 : tensor<3xi32>"
    )
    assert _values(_fold(body, "tensor<3xi32>")) == [-1, 0, 1]


def test_dynamic_result_and_non_constant_operands_are_not_folded() -> None:
    body = (
        "%0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
        "%1 = stablehlo.add %0, %0 : (tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>\nfunc.return %1 : tensor<?xi64>"
    )
    assert _fold(body, "tensor<?xi64>") is None
    m = parse(
        "func.func @f(%a: tensor<2xi64>) -> tensor<2xi64> {\n%0 = stablehlo.add %a, %a : tensor<2xi64>\n"
        "func.return %0 : tensor<2xi64>\n}",
        "t.mlir",
    )
    add = next(o for o in m.walk() if o.name == "stablehlo.add")
    assert fold_op(add) is None


def test_concatenate_merges_adjacent_equal_splats() -> None:
    body = (
        "%0 = stablehlo.constant dense<1> : tensor<2xi64>\n"
        "%1 = stablehlo.concatenate %0, %0, %0, dim = 0 : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>\n"
        "func.return %1 : tensor<?xi64>"
    )
    result = _fold(body, "tensor<?xi64>")
    assert isinstance(result, list) and [o.name for o in result] == [
        "stablehlo.constant",
        "stablehlo.concatenate",
    ]
    assert result[0].results[0].type.get_shape() == (6,)
    assert len(result[1].operands) == 1


def test_the_table_covers_upstreams_shape_folder() -> None:
    upstream = {
        "add", "and", "broadcast_in_dim", "clamp", "compare", "concatenate", "convert", "divide",
        "dynamic_slice", "get_dimension_size", "maximum", "minimum", "multiply", "or", "remainder",
        "reshape", "select", "set_dimension_size", "sign", "slice", "subtract",
    }  # fmt: skip
    # FOLDS also holds the aggressive folder's entries once it is imported; these are the shape folder's
    assert {f"stablehlo.{n}" for n in upstream} == SHAPE_FOLD_OPS
    assert SHAPE_FOLD_OPS <= set(FOLDS)


def test_folded_values_keep_the_result_type() -> None:
    result = _fold(_binary("add", "[1, 2]", "[3, 4]", "tensor<2xui16>"), "tensor<2xui16>")
    assert isinstance(result, DenseIntOrFPElementsAttr)
    assert dense_values(result).dtype == np.uint16
