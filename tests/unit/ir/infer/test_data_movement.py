"""Result-type inference of the data movement ops (stablehlo_py/ir/infer/data_movement.py): static,
dynamic and bounded cases, upstream's error messages, and differential checks against upstream's
expectations (infer_stablehlo.mlir's `types0 = ...` lines) and the conformance test data."""

from __future__ import annotations

import glob
import re

import pytest
from xdsl.dialects.builtin import ArrayAttr, TupleType, UnrankedTensorType, f32, i32
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op, infer_result_types
from stablehlo_py.ir.infer.shapes import DYN, ranked, types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from tests.unit.ir.infer.cases import Case, case, cases_test, op_case
from tests.conftest import CONFORMANCE

FAMILY = {
    "stablehlo.broadcast",
    "stablehlo.concatenate",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.gather",
    "stablehlo.dynamic_gather",
    "stablehlo.scatter",
    "stablehlo.get_dimension_size",
    "stablehlo.set_dimension_size",
    "stablehlo.get_tuple_element",
    "stablehlo.tuple",
    "stablehlo.pad",
    "stablehlo.reverse",
    "stablehlo.slice",
    "stablehlo.transpose",
    "stablehlo.select",
    "stablehlo.clamp",
    "stablehlo.complex",
}


def _ops(text: str) -> list:
    m = parse(text, allow_unregistered=True)
    return [op for op in m.walk() if op.name in FAMILY]


def infer_text(body: str, args: str) -> list[str]:
    """The inferred types (as text) of the last family op of a function with `args`."""
    text = f"func.func @f({args}) {{\n{body}\n  return\n}}"
    op = _ops(text)[-1]
    return [type_to_str(t) for t in infer_op(op)]


def infer_error(body: str, args: str) -> str:
    text = f"func.func @f({args}) {{\n{body}\n  return\n}}"
    op = _ops(text)[-1]
    with pytest.raises(InferError) as e:
        infer_op(op)
    return e.value.message


# ----------------------------------------------------------------------------------- broadcast
def test_broadcast():
    assert infer_text(
        '%0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 1, 2>} : (tensor<3x?xi32>) -> tensor<1x2x3x?xi32>',
        "%a: tensor<3x?xi32>",
    ) == ["tensor<1x2x3x?xi32>"]
    assert (
        infer_error(
            '%0 = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 1, -2>} : (tensor<3xi32>) -> tensor<1x2x3xi32>',
            "%a: tensor<3xi32>",
        )
        == "Broadcast with negative dimension size -2"
    )


# --------------------------------------------------------------------------------- concatenate
CONCAT = (
    '%0 = "stablehlo.concatenate"(%a, %b) {{dimension = {d} : i64}} : ({ta}, {tb}) -> tensor<*xf32>'
)


def concat(ta: str, tb: str, d: int = 0) -> list[str]:
    return infer_text(CONCAT.format(d=d, ta=ta, tb=tb), f"%a: {ta}, %b: {tb}")


@pytest.mark.parametrize(
    ("ta", "tb", "expected"),
    [
        ("tensor<1x2xf32>", "tensor<3x2xf32>", "tensor<4x2xf32>"),
        ("tensor<?x2xf32>", "tensor<3x?xf32>", "tensor<?x2xf32>"),
        # upstream's bounds table (c2, c4, c5)
        (
            "tensor<2x3xf32>",
            "tensor<?x3xf32, #stablehlo.bounds<4, ?>>",
            "tensor<?x3xf32, #stablehlo.bounds<6, ?>>",
        ),
        ("tensor<?x3xf32>", "tensor<?x3xf32, #stablehlo.bounds<4, ?>>", "tensor<?x3xf32>"),
        (
            "tensor<?x3xf32, #stablehlo.bounds<2, ?>>",
            "tensor<?x?xf32, #stablehlo.bounds<4, 5>>",
            "tensor<?x3xf32, #stablehlo.bounds<6, ?>>",
        ),
        (
            "tensor<1x?xf32, #stablehlo.bounds<?, 3>>",
            "tensor<1x?xf32, #stablehlo.bounds<?, 5>>",
            "tensor<2x?xf32, #stablehlo.bounds<?, 3>>",
        ),
    ],
)
def test_concatenate(ta, tb, expected):
    assert concat(ta, tb) == [expected]


def test_concatenate_errors():
    assert concat_err("tensor<f32>", "tensor<f32>") == "rank-0 values cannot be concatenated"
    assert (
        concat_err("tensor<2xf32>", "tensor<2xf32>", 1)
        == "dimension 1 is out-of-bounds for input rank 1"
    )
    assert (
        concat_err("tensor<2xf32>", "tensor<2x2xf32>") == "operands (0) and (1) do not match rank"
    )
    assert (
        concat_err("tensor<2x3xf32>", "tensor<2x4xf32>")
        == "shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)"
    )
    assert (
        concat_err("tensor<2x5xf32>", "tensor<2x?xf32, #stablehlo.bounds<?, 4>>")
        == "Mismatched dimension size 5 and bound 4 in dimension 1"
    )


def concat_err(ta: str, tb: str, d: int = 0) -> str:
    return infer_error(CONCAT.format(d=d, ta=ta, tb=tb), f"%a: {ta}, %b: {tb}")


# ------------------------------------------------------------------ dynamic_slice / update slice
def test_dynamic_slice():
    body = '%0 = "stablehlo.dynamic_slice"(%a, %i, %i) {{slice_sizes = array<i64: {s}>}} : ({t}, tensor<i64>, tensor<i64>) -> tensor<*xi32>'
    args = "%a: {t}, %i: tensor<i64>"
    for t in ("tensor<3x4xi32>", "tensor<?x4xi32>", "tensor<?x4xi32, #stablehlo.bounds<3, ?>>"):
        assert infer_text(body.format(s="1, 4", t=t), args.format(t=t)) == ["tensor<1x4xi32>"]
    t = "tensor<3x4xi32>"
    assert infer_error(body.format(s="1, 5", t=t), args.format(t=t)) == (
        "has slice size 5 greater than dimension size 4 in dimension 1 of operand"
    )
    assert infer_error(body.format(s="1, -1", t=t), args.format(t=t)) == (
        "has negative size index to dynamic slice: -1"
    )
    assert infer_error(body.format(s="1", t=t), args.format(t=t)) == (
        "has mismatched number of slice sizes (1) and number of start indices (2)"
    )


def test_dynamic_update_slice():
    body = '%0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : ({t}, {u}, tensor<i64>, tensor<i64>) -> tensor<*xi32>'
    args = "%a: {t}, %u: {u}, %i: tensor<i64>"
    for t, u in (
        ("tensor<3x4xi32>", "tensor<1x4xi32>"),
        ("tensor<?x4xi32>", "tensor<5x?xi32>"),
        ("tensor<?x4xi32, #stablehlo.bounds<3, ?>>", "tensor<1x4xi32>"),
    ):
        assert infer_text(body.format(t=t, u=u), args.format(t=t, u=u)) == [t]
    t, u = "tensor<3x4xi32>", "tensor<1x5xi32>"
    assert infer_error(body.format(t=t, u=u), args.format(t=t, u=u)) == (
        "expects size at dimension 1 of update to be in range [0, 4]. Got: 5."
    )
    t, u = "tensor<3x4xi32>", "tensor<1xi32>"
    assert infer_error(body.format(t=t, u=u), args.format(t=t, u=u)) == (
        "update rank does not match operand rank: 1 vs 2."
    )


# -------------------------------------------------------------------------------------- gather
GATHER = (
    '%0 = "stablehlo.gather"(%a, %i) {{dimension_numbers = #stablehlo.gather<offset_dims = [{off}], '
    "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = {ivd}>, "
    "slice_sizes = array<i64: {ss}>}} : ({t}, {it}) -> tensor<*xf32>"
)


def gather(t, it, ss="1, 3", off="1", ivd=1):  # type: ignore[no-untyped-def]
    return infer_text(GATHER.format(t=t, it=it, ss=ss, off=off, ivd=ivd), f"%a: {t}, %i: {it}")


def gather_err(t, it, ss="1, 3", off="1", ivd=1):  # type: ignore[no-untyped-def]
    return infer_error(GATHER.format(t=t, it=it, ss=ss, off=off, ivd=ivd), f"%a: {t}, %i: {it}")


def test_gather():
    assert gather("tensor<5x3xf32>", "tensor<4x1xi32>") == ["tensor<4x3xf32>"]
    assert gather("tensor<?x3xf32>", "tensor<?x1xi32>") == ["tensor<?x3xf32>"]
    assert gather("tensor<?x3xf32>", "tensor<?x1xi32, #stablehlo.bounds<8, ?>>") == [
        "tensor<?x3xf32, #stablehlo.bounds<8, ?>>"
    ]
    assert gather("tensor<5x3xf32>", "tensor<4xi32>", ivd=1, off="1") == ["tensor<4x3xf32>"]


def test_gather_errors():
    assert gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", ss="2, 3") == (
        "Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should be <= 1, but got 2"
    )
    assert gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", ss="1, 4") == (
        "slice size (4) is out of bounds for operand dimension (3) at index 1"
    )
    assert gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", ss="1") == (
        "slice_sizes size (1) not equal to operand rank (2)"
    )
    assert gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", ivd=3) == (
        "Expects index_vector_dim to be in range [0, rank-of('start_indices')] i.e. [0, 2]. got: 3."
    )
    assert gather_err("tensor<5x3xf32>", "tensor<4x1xi32>", off="2") == (
        "Expects each element of offset_dims to be in range [0, implied-result-rank) i.e. [0, 2). got: 2."
    )
    assert gather_err("tensor<5x3x2xf32>", "tensor<4x1xi32>") == (
        "offset_dims size (1) plus collapse_slice_dims size (1) plus operand_batching_dims size (0) "
        "is not equal to operand rank (3)"
    )


def test_dynamic_gather():
    body = (
        "%s = stablehlo.constant dense<[1, 3]> : tensor<2xi32>\n"
        '%0 = "stablehlo.dynamic_gather"(%a, %i, {s}) {{dimension_numbers = #stablehlo.gather<'
        "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>}} "
        ": ({t}, tensor<?x1xi32>, tensor<2xi32>) -> tensor<*xf32>"
    )
    t = "tensor<5x3xf32>"
    args = f"%a: {t}, %i: tensor<?x1xi32>, %z: tensor<2xi32>"
    assert infer_text(body.format(s="%s", t=t), args) == ["tensor<?x3xf32>"]
    assert infer_text(body.format(s="%z", t=t), args) == ["tensor<?x?xf32>"]
    bad = body.replace("[1, 3]", "[1, 4]")
    assert infer_error(bad.format(s="%s", t=t), args) == (
        "slice size (4) is out of bounds for operand dimension (3) at index 1"
    )


# ------------------------------------------------------------------------------------- scatter
def test_scatter():
    text = """func.func @f(%a: tensor<?x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  %0 = "stablehlo.scatter"(%a, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) : (tensor<?x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return
}"""
    (op,) = _ops(text)
    assert [type_to_str(t) for t in infer_op(op)] == ["tensor<?x3xf32>"]


# ------------------------------------------------------------------- dimension sizes and tuples
def test_get_dimension_size():
    assert infer_result_types("stablehlo.get_dimension_size", [ranked((2, DYN), f32)], _dim(1)) == [
        ranked((), i32)
    ]
    with pytest.raises(
        InferError, match=r"requires dimension attribute in range \[0, 2\); found \(2\)"
    ):
        infer_result_types("stablehlo.get_dimension_size", [ranked((2, DYN), f32)], _dim(2))
    with pytest.raises(
        InferError, match=r"requires non-negative dimension attribute; found \(-1\)"
    ):
        infer_result_types("stablehlo.get_dimension_size", [ranked((2, DYN), f32)], _dim(-1))


def _dim(d: int) -> dict:
    from xdsl.dialects.builtin import IntegerAttr, i64

    return {"dimension": IntegerAttr(d, i64)}


def test_set_dimension_size():
    body = "%c = stablehlo.constant dense<{v}> : tensor<i32>\n%0 = stablehlo.set_dimension_size %a, {s}, dim = 1 : ({t}, tensor<i32>) -> tensor<*xf32>"
    t = "tensor<4x2xf32>"
    args = f"%a: {t}, %n: tensor<i32>"
    assert infer_text(body.format(v=2, s="%n", t=t), args) == [
        "tensor<4x?xf32, #stablehlo.bounds<?, 2>>"
    ]
    assert infer_text(body.format(v=2, s="%c", t=t), args) == ["tensor<4x2xf32>"]
    assert infer_text(body.format(v=1, s="%c", t=t), args) == [
        "tensor<4x?xf32, #stablehlo.bounds<?, 2>>"
    ]
    t = "tensor<4x?xf32, #stablehlo.bounds<?, 8>>"
    args = f"%a: {t}, %n: tensor<i32>"
    assert infer_text(body.format(v=8, s="%c", t=t), args) == ["tensor<4x8xf32>"]
    t = "tensor<4x?xf32>"
    args = f"%a: {t}, %n: tensor<i32>"
    assert infer_text(body.format(v=8, s="%n", t=t), args) == ["tensor<4x?xf32>"]
    with pytest.raises(InferError, match="size operand should be of rank-0"):
        infer_result_types(
            "stablehlo.set_dimension_size", [ranked((4,), f32), ranked((1,), i32)], _dim(0)
        )


def test_tuples():
    t = TupleType(ArrayAttr((ranked((2,), f32), ranked((), i32))))
    assert infer_result_types("stablehlo.tuple", list(t.types.data)) == [t]
    from xdsl.dialects.builtin import IntegerAttr

    assert infer_result_types(
        "stablehlo.get_tuple_element", [t], {"index": IntegerAttr(1, i32)}
    ) == [ranked((), i32)]
    with pytest.raises(InferError, match="index 2 is out of bounds of operand with size 2"):
        infer_result_types("stablehlo.get_tuple_element", [t], {"index": IntegerAttr(2, i32)})


# ---------------------------------------------------------------------------- pad, slice, ...
PAD = "%0 = stablehlo.pad %a, %p, low = [{lo}], high = [{hi}], interior = [{it}] : ({t}, tensor<f32>) -> tensor<*xf32>"


def pad(t, lo="0, 1", hi="1, 1", it="0, 1"):  # type: ignore[no-untyped-def]
    return infer_text(PAD.format(t=t, lo=lo, hi=hi, it=it), f"%a: {t}, %p: tensor<f32>")


def pad_err(t, lo="0, 1", hi="1, 1", it="0, 1"):  # type: ignore[no-untyped-def]
    return infer_error(PAD.format(t=t, lo=lo, hi=hi, it=it), f"%a: {t}, %p: tensor<f32>")


def test_pad():
    assert pad("tensor<1x3xf32>") == ["tensor<2x7xf32>"]
    assert pad("tensor<?x3xf32>") == ["tensor<?x7xf32>"]
    assert pad("tensor<?x3xf32, #stablehlo.bounds<4, ?>>") == [
        "tensor<?x7xf32, #stablehlo.bounds<5, ?>>"
    ]
    assert pad_err("tensor<1x3xf32>", it="0, -1") == "Interior padding cannot be negative: -1"
    assert (
        pad_err("tensor<1x3xf32>", lo="-3, 0") == "Padding result in negative size for dimension 0"
    )
    assert pad_err("tensor<?x3xf32, #stablehlo.bounds<1, ?>>", lo="-3, 0") == (
        "Padding result in negative bound for dimension 0"
    )
    assert pad_err("tensor<1x3xf32>", lo="0", hi="0", it="0") == (
        "edge_padding_low length (1) must match operand rank (2)"
    )


SLICE = "%0 = stablehlo.slice %a [{r}] : ({t}) -> tensor<*xf32>"


def test_slice():
    def sl(t, r):  # type: ignore[no-untyped-def]
        return infer_text(SLICE.format(t=t, r=r), f"%a: {t}")

    def err(t, r):  # type: ignore[no-untyped-def]
        return infer_error(SLICE.format(t=t, r=r), f"%a: {t}")

    assert sl("tensor<8x4xf32>", "1:7:2, 0:4") == ["tensor<3x4xf32>"]
    assert sl("tensor<?x4xf32>", "1:7:2, 0:4") == ["tensor<3x4xf32>"]
    assert sl("tensor<?x4xf32, #stablehlo.bounds<8, ?>>", "1:7:2, 0:4") == ["tensor<3x4xf32>"]
    assert err("tensor<?x4xf32, #stablehlo.bounds<6, ?>>", "1:7:2, 0:4") == (
        "limit index 7 is larger than dimension bound 6 in dimension 0"
    )
    assert (
        err("tensor<8x4xf32>", "1:9, 0:4")
        == "limit index 9 is larger than dimension size 8 in dimension 0"
    )
    assert (
        err("tensor<8x4xf32>", "3:2, 0:4")
        == "start index 3 is larger than limit index 2 in dimension 0"
    )
    assert (
        err("tensor<8x4xf32>", "1:2:0, 0:4") == "stride must be positive but got 0 in dimension 0"
    )
    assert err("tensor<8x4xf32>", "1:2") == (
        "the number of elements in start_indices (1) does not match the rank of the operand (2)"
    )


def test_transpose_and_reverse():
    body = "%0 = stablehlo.transpose %a, dims = [{p}] : ({t}) -> tensor<*xf32>"
    t = "tensor<2x?x4xf32, #stablehlo.bounds<?, 3, ?>>"
    assert infer_text(body.format(p="2, 0, 1", t=t), f"%a: {t}") == [
        "tensor<4x2x?xf32, #stablehlo.bounds<?, ?, 3>>"
    ]
    t = "tensor<2x3xf32>"
    assert infer_text(body.format(p="1, 0", t=t), f"%a: {t}") == ["tensor<3x2xf32>"]
    assert infer_error(body.format(p="1, 1", t=t), f"%a: {t}") == (
        "attribute permutation must be a permutation of [0, 1] but got 1, 1"
    )
    assert infer_error(body.format(p="1", t=t), f"%a: {t}") == (
        "TransposeOp operand rank 2 does not match permutation size 1"
    )
    t = "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
    assert infer_text(f"%0 = stablehlo.reverse %a, dims = [0] : {t}", f"%a: {t}") == [t]


# --------------------------------------------------------------------- select, clamp, complex
def test_select():
    body = "%0 = stablehlo.select %p, %a, %b : ({pt}, {at}, {bt}) -> tensor<*xf32>"

    def sel(pt, at, bt):  # type: ignore[no-untyped-def]
        return infer_text(body.format(pt=pt, at=at, bt=bt), f"%p: {pt}, %a: {at}, %b: {bt}")

    def err(pt, at, bt):  # type: ignore[no-untyped-def]
        return infer_error(body.format(pt=pt, at=at, bt=bt), f"%p: {pt}, %a: {at}, %b: {bt}")

    assert sel("tensor<i1>", "tensor<2x?xf32>", "tensor<?x3xf32>") == ["tensor<2x3xf32>"]
    assert sel("tensor<2x3xi1>", "tensor<2x3xf32>", "tensor<2x3xf32>") == ["tensor<2x3xf32>"]
    assert sel(
        "tensor<i1>", "tensor<?xf32, #stablehlo.bounds<4>>", "tensor<?xf32, #stablehlo.bounds<3>>"
    ) == ["tensor<?xf32, #stablehlo.bounds<3>>"]
    assert err("tensor<i1>", "tensor<2xf32>", "tensor<3xf32>") == (
        "requires compatible types for non-predicate operands"
    )
    assert err("tensor<i1>", "tensor<2xf32>", "tensor<2xf16>") == (
        "requires compatible types for non-predicate operands"
    )
    assert (
        err("tensor<3xi1>", "tensor<2xf32>", "tensor<2xf32>")
        == "requires the same shape for all operands"
    )


def test_clamp():
    body = "%0 = stablehlo.clamp %a, %b, %c : ({at}, {bt}, {ct}) -> tensor<*xf32>"

    def cl(at, bt, ct):  # type: ignore[no-untyped-def]
        return infer_text(body.format(at=at, bt=bt, ct=ct), f"%a: {at}, %b: {bt}, %c: {ct}")

    assert cl("tensor<f32>", "tensor<2x3xf32>", "tensor<f32>") == ["tensor<2x3xf32>"]
    assert cl("tensor<2x?xf32>", "tensor<?x3xf32>", "tensor<f32>") == ["tensor<?x3xf32>"]
    assert cl("tensor<f32>", "tensor<?x3xf32, #stablehlo.bounds<4, ?>>", "tensor<f32>") == [
        "tensor<?x3xf32>"
    ]
    with pytest.raises(InferError) as e:
        cl("tensor<2xf32>", "tensor<3xf32>", "tensor<f32>")
    assert (
        e.value.message == "min shape [2] is not scalar and is not compatible to operand shape [3]"
    )
    with pytest.raises(InferError) as e:
        cl("tensor<f32>", "tensor<3xf32>", "tensor<2x3xf32>")
    assert (
        e.value.message
        == "max shape [2, 3] is not scalar and is not compatible to operand shape [3]"
    )


def test_complex():
    body = "%0 = stablehlo.complex %a, %a : ({t}, {t}) -> tensor<*xcomplex<f32>>"
    for t, r in (
        ("tensor<2xf32>", "tensor<2xcomplex<f32>>"),
        ("tensor<?xf64>", "tensor<?xcomplex<f64>>"),
        ("tensor<?xf32, #stablehlo.bounds<3>>", "tensor<?xcomplex<f32>, #stablehlo.bounds<3>>"),
    ):
        assert infer_text(body.format(t=t), f"%a: {t}") == [r]


def test_unranked_operand():
    assert infer_result_types("stablehlo.complex", [UnrankedTensorType(f32)] * 2)[
        0
    ] == UnrankedTensorType(
        __import__("xdsl.dialects.builtin", fromlist=["ComplexType"]).ComplexType(f32)
    )


# ---------------------------------------------------------------------- verification goes through
def test_verifier_reports_the_rule_error():
    text = """func.func @f(%a: tensor<8x4xf32>) -> tensor<3x4xf32> {
  %0 = stablehlo.slice %a [1:9, 0:4] : (tensor<8x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}"""
    with pytest.raises(
        VerifyException, match="limit index 9 is larger than dimension size 8 in dimension 0"
    ):
        parse(text).verify()
    text = """func.func @f(%a: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %0 = stablehlo.slice %a [1:7:2, 0:4] : (tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}"""
    with pytest.raises(
        VerifyException,
        match=re.escape(
            "inferred type(s) 'tensor<3x4xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'"
        ),
    ):
        parse(text).verify()


# -------------------------------------------------------------------------- differential tests
def _filecheck(pattern: str, text: str) -> bool:
    """FileCheck's match of one CHECK pattern (literal text with `{{regex}}` parts) in a line; a
    pattern whose regex part we do not read as FileCheck does must match up to that part."""
    parts = re.split(r"\{\{(.*?)\}\}", pattern)
    rx = "".join(p if i % 2 else re.escape(p) for i, p in enumerate(parts))
    if re.search(rx, text) is not None:
        return True
    return "{{" in pattern and text.startswith(pattern.split("{{")[0])


def _infer_expectations() -> list[tuple[str, str, str]]:
    """(chunk, op name, expected text) for each `types0 = ...` of infer_stablehlo.mlir whose
    get_return_types operand a family op defines."""
    with open(f"{CONFORMANCE}/infer/infer_stablehlo.mlir") as f:
        text = f.read()
    out = []
    for chunk in text.split("// -----"):
        if "expected-error" in chunk:
            continue
        checks = re.findall(r"CHECK: types0 = (.*)", chunk)
        if not checks or not any(n.split(".")[1] in chunk for n in FAMILY):
            continue
        out.append((chunk, checks))
    return out  # type: ignore[return-value]


@pytest.mark.skipif(
    not glob.glob(f"{CONFORMANCE}/infer/infer_stablehlo.mlir"),
    reason="no conformance data",
)
def test_upstream_infer_expectations():
    seen = 0
    for chunk, checks in _infer_expectations():
        m = parse(chunk, allow_unregistered=True)
        probes = [op for op in m.walk() if op.name == "hlo_test_infer.get_return_types"]
        for probe, expected in zip(probes, checks):
            owner = probe.operands[0].owner
            if getattr(owner, "name", None) not in FAMILY:
                continue
            got = [type_to_str(t) for t in infer_op(owner)]
            assert len(got) == 1 and _filecheck(expected.strip(), got[0]), (
                owner.name,
                got,
                expected,
            )
            seen += 1
    assert seen >= 20


def _testdata_ops():
    files = sorted(glob.glob(f"{CONFORMANCE}/testdata/*.mlir"))
    for path in files:
        with open(path) as f:
            text = f.read()
        if not any(f"{n} " in text or f'"{n}"' in text for n in FAMILY):
            continue
        yield path, text


@pytest.mark.skipif(
    not glob.glob(f"{CONFORMANCE}/testdata/*.mlir"), reason="no conformance data"
)
def test_conformance_testdata():
    """Every family op of the conformance programs: the inferred types are compatible with the
    declared ones, and equal where the declared ones are static."""
    from xdsl.dialects.builtin import TensorType

    seen = 0
    for path, text in _testdata_ops():
        m = parse(text, allow_unregistered=True)
        for op in m.walk():
            if op.name not in FAMILY:
                continue
            inferred = infer_op(op)
            declared = [r.type for r in op.results]
            assert types_compatible(inferred, declared), (path, op.name)
            if all(
                isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()) for t in declared
            ):
                assert inferred == declared, (path, op.name)
            seen += 1
    assert seen > 100


# ------------------------------------------------------------------------------ coverage cases
B53 = "#stablehlo.bounds<5, ?>"
"""The bounds of the bounded cases' first dimension (`tensor<?x3xf32, #stablehlo.bounds<5, ?>>`)."""
T_S, T_D, T_B = "tensor<2x3xf32>", "tensor<?x3xf32>", f"tensor<?x3xf32, {B53}>"


def _unary(op: str, attrs: str, t: str, want: str) -> Case:
    return op_case(f"stablehlo.{op}", [("%a", t)], want, attrs=attrs)


def _concat(a: str, b: str, want: str) -> Case:
    operands = [("%a", a), ("%b", b)]
    return op_case("stablehlo.concatenate", operands, want, attrs="{dimension = 0 : i64}")


def _dynamic_slice(t: str, want: str) -> Case:
    operands = [("%a", t), ("%i", "tensor<i64>"), ("%i", "tensor<i64>")]
    attrs = "{slice_sizes = array<i64: 1, 2>}"
    return op_case("stablehlo.dynamic_slice", operands, want, attrs=attrs)


def _dynamic_update_slice(t: str, want: str) -> Case:
    operands = [("%a", t), ("%u", "tensor<1x2xf32>"), ("%i", "tensor<i64>"), ("%i", "tensor<i64>")]
    return op_case("stablehlo.dynamic_update_slice", operands, want)


_GATHER_DIMS = (
    "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
    "index_vector_dim = 1>"
)


def _gather(t: str, it: str, want: str) -> Case:
    attrs = f"{{dimension_numbers = {_GATHER_DIMS}, slice_sizes = array<i64: 1, 3>}}"
    return op_case("stablehlo.gather", [("%a", t), ("%i", it)], want, attrs=attrs)


def _dynamic_gather(t: str, it: str, want: str) -> Case:
    line = (
        "%s = stablehlo.constant dense<[1, 3]> : tensor<2xi32>\n"
        f'  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {{dimension_numbers = {_GATHER_DIMS}}} '
        f": ({t}, {it}, tensor<2xi32>) -> {want}"
    )
    return case("stablehlo.dynamic_gather", f"%a: {t}, %i: {it}", line, want)


_GATHER_BOUNDED_INDICES = (
    "tensor<5x3xf32>",
    "tensor<?x1xi32, #stablehlo.bounds<8, ?>>",
    "tensor<?x3xf32, #stablehlo.bounds<8, ?>>",
)
"""(operand, indices, result) of gather's and dynamic_gather's bounded case: the indices' bound
becomes the result's."""


def _scatter(t: str, want: str) -> Case:
    line = f"""%0 = "stablehlo.scatter"(%a, %i, %u) <{{scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0],
      index_vector_dim = 1>}}> ({{
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) : ({t}, tensor<2x1xi32>, tensor<2x3xf32>) -> {want}"""
    return case(
        "stablehlo.scatter", f"%a: {t}, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>", line, want
    )


def _set_dimension_size(t: str, want: str) -> Case:
    operands = [("%a", t), ("%n", "tensor<i32>")]
    return op_case("stablehlo.set_dimension_size", operands, want, attrs="{dimension = 0 : i64}")


def _tuple_cases(t: str) -> list[Case]:
    tup = f"tuple<{t}, tensor<i32>>"
    return [
        op_case("stablehlo.tuple", [("%a", t), ("%b", "tensor<i32>")], tup),
        op_case("stablehlo.get_tuple_element", [("%a", tup)], t, attrs="{index = 0 : i32}"),
    ]


def _pad(t: str, want: str) -> Case:
    attrs = (
        "{edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 2, 1>, "
        "interior_padding = array<i64: 1, 0>}"
    )
    return op_case("stablehlo.pad", [("%a", t), ("%p", "tensor<f32>")], want, attrs=attrs)


def _select(pred: str, t: str, want: str) -> Case:
    return op_case("stablehlo.select", [("%p", pred), ("%a", t), ("%a", t)], want)


def _clamp(t: str, want: str) -> Case:
    m = ("%m", "tensor<f32>")
    return op_case("stablehlo.clamp", [m, ("%a", t), m], want)


def _complex(t: str, want: str) -> Case:
    return op_case("stablehlo.complex", [("%a", t), ("%a", t)], want)


CASES = [
    _unary("broadcast", "{broadcast_sizes = array<i64: 4>}", T_S, "tensor<4x2x3xf32>"),
    _unary("broadcast", "{broadcast_sizes = array<i64: 4>}", T_D, "tensor<4x?x3xf32>"),
    # upstream's inferBroadcastOp gives a shape and element type only: the bounds go
    _unary("broadcast", "{broadcast_sizes = array<i64: 4>}", T_B, "tensor<4x?x3xf32>"),
    _concat(T_S, "tensor<4x3xf32>", "tensor<6x3xf32>"),
    _concat(T_D, "tensor<4x3xf32>", "tensor<?x3xf32>"),
    _concat(T_B, "tensor<4x3xf32>", "tensor<?x3xf32, #stablehlo.bounds<9, ?>>"),
    _dynamic_slice(T_S, "tensor<1x2xf32>"),
    _dynamic_slice(T_D, "tensor<1x2xf32>"),
    _dynamic_slice(T_B, "tensor<1x2xf32>"),
    _dynamic_update_slice(T_S, T_S),
    _dynamic_update_slice(T_D, T_D),
    _dynamic_update_slice(T_B, T_B),
    _gather("tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>"),
    _gather("tensor<5x3xf32>", "tensor<?x1xi32>", "tensor<?x3xf32>"),
    _gather(*_GATHER_BOUNDED_INDICES),
    _dynamic_gather("tensor<5x3xf32>", "tensor<4x1xi32>", "tensor<4x3xf32>"),
    _dynamic_gather("tensor<?x3xf32>", "tensor<?x1xi32>", "tensor<?x3xf32>"),
    _dynamic_gather(*_GATHER_BOUNDED_INDICES),
    _scatter("tensor<4x3xf32>", "tensor<4x3xf32>"),
    _scatter(T_D, T_D),
    _scatter(T_B, T_B),
    _unary("get_dimension_size", "{dimension = 0 : i64}", T_S, "tensor<i32>"),
    _unary("get_dimension_size", "{dimension = 0 : i64}", T_D, "tensor<i32>"),
    _unary("get_dimension_size", "{dimension = 0 : i64}", T_B, "tensor<i32>"),
    # a size that is not a constant: the dimension becomes dynamic, bounded by its static size
    _set_dimension_size(T_S, "tensor<?x3xf32, #stablehlo.bounds<2, ?>>"),
    _set_dimension_size(T_D, T_D),
    # a constant size: the dimension takes it
    case(
        "stablehlo.set_dimension_size",
        f"%a: {T_S}",
        "%n = stablehlo.constant dense<2> : tensor<i32>\n"
        f'  %0 = "stablehlo.set_dimension_size"(%a, %n) {{dimension = 0 : i64}} : ({T_S}, tensor<i32>) -> {T_S}',
        T_S,
    ),
    _set_dimension_size(T_B, T_B),
    *_tuple_cases(T_S),
    *_tuple_cases(T_D),
    *_tuple_cases(T_B),
    # padded size: low + high + size + (size - 1) * interior
    _pad(T_S, "tensor<6x4xf32>"),
    _pad(T_D, "tensor<?x4xf32>"),
    _pad(T_B, "tensor<?x4xf32, #stablehlo.bounds<12, ?>>"),
    _unary("reverse", "{dimensions = array<i64: 0>}", T_S, T_S),
    _unary("reverse", "{dimensions = array<i64: 0>}", T_D, T_D),
    _unary("reverse", "{dimensions = array<i64: 0>}", T_B, T_B),
    _unary(
        "slice",
        "{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}",
        T_S,
        "tensor<2x2xf32>",
    ),
    _unary(
        "slice",
        "{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}",
        T_D,
        "tensor<2x2xf32>",
    ),
    _unary(
        "slice",
        "{start_indices = array<i64: 0, 1>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>}",
        T_B,
        "tensor<2x2xf32>",
    ),
    _unary("transpose", "{permutation = array<i64: 1, 0>}", T_S, "tensor<3x2xf32>"),
    _unary("transpose", "{permutation = array<i64: 1, 0>}", T_D, "tensor<3x?xf32>"),
    _unary(
        "transpose",
        "{permutation = array<i64: 1, 0>}",
        T_B,
        "tensor<3x?xf32, #stablehlo.bounds<?, 5>>",
    ),
    _select("tensor<i1>", T_S, T_S),
    _select("tensor<?x3xi1>", T_D, T_D),
    _select("tensor<i1>", T_B, T_B),
    _clamp(T_S, T_S),
    _clamp(T_D, T_D),
    # inferClampOp: ShapedTypeComponents of the operand's type, which carry no encoding
    _clamp(T_B, T_D),
    _complex(T_S, "tensor<2x3xcomplex<f32>>"),
    _complex(T_D, "tensor<?x3xcomplex<f32>>"),
    _complex(T_B, f"tensor<?x3xcomplex<f32>, {B53}>"),
]


test_cases = cases_test(CASES)
