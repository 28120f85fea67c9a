"""Result-type inference of the CHLO ops (issue 11): broadcasting binary ops (numpy, bounded and
broadcast_dimensions), broadcast_compare/complex/select, the CompatibleOperandsAndResultType ops,
is_inf, constant, constant_like and top_k; upstream's errors; a differential check against every
CHLO op of the conformance programs."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import TensorType

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op, rules
from stablehlo_py.ir.infer.shapes import types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from tests.conftest import CONFORMANCE


def op_of(text: str):
    for op in parse(text).walk():
        if op.name.startswith("chlo."):
            return op
    raise AssertionError("no chlo op")


def func(line: str, args: str) -> str:
    return f"func.func @f({args}) {{\n  {line}\n  return\n}}\n"


def binary(name: str, a: str, b: str, res: str = "tensor<*xf32>", attrs: str = "") -> list[str]:
    line = f"%0 = chlo.{name} %x, %y {attrs}: ({a}, {b}) -> {res}"
    return [type_to_str(t) for t in infer_op(op_of(func(line, f"%x: {a}, %y: {b}")))]


@pytest.mark.parametrize(
    "a,b,want",
    [
        ("tensor<2x3xf32>", "tensor<3xf32>", "tensor<2x3xf32>"),
        ("tensor<2x1xf32>", "tensor<1x4xf32>", "tensor<2x4xf32>"),
        ("tensor<?x3xf32>", "tensor<3xf32>", "tensor<?x3xf32>"),
        ("tensor<?x1xf32>", "tensor<1x4xf32>", "tensor<?x4xf32>"),
        ("tensor<*xf32>", "tensor<3xf32>", "tensor<*xf32>"),
        (
            "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
            "tensor<3xf32>",
            "tensor<?x3xf32, #stablehlo.bounds<5, ?>>",
        ),
    ],
)
def test_broadcast_add(a: str, b: str, want: str) -> None:
    assert binary("broadcast_add", a, b) == [want]


def test_broadcast_dimensions() -> None:
    got = binary(
        "broadcast_add",
        "tensor<2x3xf32>",
        "tensor<2xf32>",
        attrs="{broadcast_dimensions = array<i64: 0>} ",
    )
    assert got == ["tensor<2x3xf32>"]
    bad = binary(
        "broadcast_add",
        "tensor<2x3xf32>",
        "tensor<2xf32>",
        attrs="{broadcast_dimensions = array<i64: 5>} ",
    )
    assert bad == ["tensor<*xf32>"]  # upstream signals illegal broadcast_dimensions as unranked


def test_result_element_types() -> None:
    cmp = "%0 = chlo.broadcast_compare %x, %y {comparison_direction = #chlo<comparison_direction LT>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xi1>"
    assert [
        type_to_str(t) for t in infer_op(op_of(func(cmp, "%x: tensor<?xf32>, %y: tensor<f32>")))
    ] == ["tensor<?xi1>"]
    assert binary(
        "broadcast_complex", "tensor<2xf32>", "tensor<2xf32>", "tensor<2xcomplex<f32>>"
    ) == ["tensor<2xcomplex<f32>>"]


def test_broadcast_errors() -> None:
    with pytest.raises(InferError) as e:
        binary("broadcast_add", "tensor<2x3xf32>", "tensor<4xf32>")
    assert e.value.message == "incompatible shapes for broadcasting 3 and 4"
    with pytest.raises(InferError, match="mismatched operand types"):
        binary("broadcast_add", "tensor<2xf32>", "tensor<2xf64>")
    with pytest.raises(InferError, match="cannot mix bounded and static dimensions in broadcast"):
        binary("broadcast_add", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<4xf32>")


def test_broadcast_select() -> None:
    line = "%0 = chlo.broadcast_select %p, %x, %y : (tensor<i1>, tensor<2x?xf32>, tensor<3xf32>) -> tensor<2x3xf32>"
    op = op_of(func(line, "%p: tensor<i1>, %x: tensor<2x?xf32>, %y: tensor<3xf32>"))
    assert [type_to_str(t) for t in infer_op(op)] == ["tensor<2x3xf32>"]


@pytest.mark.parametrize(
    "name,t,want",
    [
        ("acos", "tensor<?x2xf32>", "tensor<?x2xf32>"),
        ("erf", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32, #stablehlo.bounds<4>>"),
        ("is_inf", "tensor<?x2xf32>", "tensor<?x2xi1>"),
        ("is_pos_inf", "tensor<*xf32>", "tensor<*xi1>"),
    ],
)
def test_unary(name: str, t: str, want: str) -> None:
    line = f"%0 = chlo.{name} %x : {t} -> {want}"
    assert [type_to_str(r) for r in infer_op(op_of(func(line, f"%x: {t}")))] == [want]


def test_constant_like_and_constant() -> None:
    t = "tensor<?x3xf32, #stablehlo.bounds<4, ?>>"
    line = f'%0 = "chlo.constant_like"(%x) {{value = 1.0 : f32}} : ({t}) -> {t}'
    assert [type_to_str(r) for r in infer_op(op_of(func(line, f"%x: {t}")))] == [t]
    c = "%0 = chlo.constant dense<1> : tensor<2xi32>"
    assert [type_to_str(r) for r in infer_op(op_of(func(c, "")))] == ["tensor<2xi32>"]


@pytest.mark.parametrize(
    "t,want",
    [
        ("tensor<16x16xf32>", ["tensor<16x8xf32>", "tensor<16x8xi32>"]),
        ("tensor<?x?xf32>", ["tensor<?x8xf32>", "tensor<?x8xi32>"]),
        (
            "tensor<?x?xf32, #stablehlo.bounds<4, 20>>",
            [
                "tensor<?x8xf32, #stablehlo.bounds<4, ?>>",
                "tensor<?x8xi32, #stablehlo.bounds<4, ?>>",
            ],
        ),
        ("tensor<*xf32>", ["tensor<*xf32>", "tensor<*xi32>"]),
    ],
)
def test_top_k(t: str, want: list[str]) -> None:
    line = f"%0:2 = chlo.top_k(%x, k = 8) : {t} -> (tensor<*xf32>, tensor<*xi32>)"
    assert [type_to_str(r) for r in infer_op(op_of(func(line, f"%x: {t}")))] == want


def test_top_k_errors() -> None:
    line = "%0:2 = chlo.top_k(%x, k = 8) : tensor<4xf32> -> (tensor<8xf32>, tensor<8xi32>)"
    with pytest.raises(InferError, match="operand's last dimension must be at least 8"):
        infer_op(op_of(func(line, "%x: tensor<4xf32>")))


@pytest.mark.skipif(not (CONFORMANCE / "testdata").is_dir(), reason="no conformance data")
def test_conformance_programs_agree() -> None:
    names = {n for n in rules() if n.startswith("chlo.")}
    n = 0
    for path in sorted((CONFORMANCE / "testdata").glob("*.mlir")):
        text = path.read_text()
        if not re.search(r"chlo\.", text):
            continue
        for op in parse(text).walk():
            if op.name not in names:
                continue
            got = infer_op(op)
            declared = [r.type for r in op.results]
            assert types_compatible(got, declared), (path.name, op.name, got, declared)
            for g, d in zip(got, declared):
                if isinstance(d, TensorType) and all(s >= 0 for s in d.get_shape()):
                    assert g == d, (path.name, op.name, g, d)
            n += 1
    assert n > 50
