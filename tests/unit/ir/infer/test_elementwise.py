"""Result-type inference of the elementwise ops and compare (stablehlo_py/ir/infer/elementwise.py):
static, dynamic and bounded cases, upstream's messages, the verifiers going through the rules, and
differential checks against upstream's expectations (infer_stablehlo.mlir's `types0 = ...` lines)
and the types declared in the conformance test data."""

from __future__ import annotations

import glob
import os
import re

import pytest
from xdsl.dialects.builtin import ComplexType, TupleType, UnrankedTensorType, f32, f64, i1, i32

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, has_rule, infer_op, infer_result_types
from stablehlo_py.ir.infer.elementwise import COMPATIBLE_OPERANDS_AND_RESULT
from stablehlo_py.ir.infer.shapes import DYN, ranked, types_compatible
from stablehlo_py.ir.ops.elementwise import BINARY, UNARY, UNARY_WITH_ACCURACY
from stablehlo_py.ir.text.printer import type_to_str
from tests.unit.ir.infer.cases import Case, case, cases_test, check, op_case
from tests.unit.ir.infer.helpers import line_verifies as verifies
from tests.unit.ir.infer.helpers import line_verify_error as verify_error
from tests.conftest import CONFORMANCE

FAMILY = {f"stablehlo.{n}" for n in (*UNARY, *BINARY, *UNARY_WITH_ACCURACY)} | {"stablehlo.compare"}


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def s(t) -> str:  # type: ignore[no-untyped-def]
    return type_to_str(t)


def infer(name: str, *types) -> list[str]:  # type: ignore[no-untyped-def]
    return [s(t) for t in infer_result_types(name, list(types))]


# ----------------------------------------------------------------------------- rule coverage
def test_every_elementwise_op_but_convert_has_a_rule() -> None:
    assert {n for n in FAMILY if not has_rule(n)} == {"stablehlo.convert"}
    assert set(COMPATIBLE_OPERANDS_AND_RESULT) | {
        "add",
        "abs",
        "real",
        "imag",
        "is_finite",
        "convert",
    } == set(UNARY) | set(BINARY) | set(UNARY_WITH_ACCURACY)


# -------------------------------------------------------------- CompatibleOperandsAndResultType
@pytest.mark.parametrize("op", ["add", "multiply", "atan2", "xor", "shift_left", "power"])
def test_binary_static_dynamic_bounded(op: str) -> None:
    name = f"stablehlo.{op}"
    t = ranked((2, 3), f32)
    assert infer(name, t, t) == ["tensor<2x3xf32>"]
    # dynamic dimensions are refined by the other operand
    assert infer(name, ranked((DYN, 3), f32), ranked((2, DYN), f32)) == ["tensor<2x3xf32>"]
    assert infer(name, ranked((DYN, 3), f32), ranked((DYN, 3), f32)) == ["tensor<?x3xf32>"]
    # bounds: the tighter one is kept; a static size drops the bound
    a = ranked((DYN, 3), f32, (8, DYN))
    b = ranked((DYN, 3), f32, (5, DYN))
    assert infer(name, a, b) == ["tensor<?x3xf32, #stablehlo.bounds<5, ?>>"]
    assert infer(name, a, ranked((4, 3), f32)) == ["tensor<4x3xf32>"]
    assert infer(name, a, ranked((DYN, 3), f32)) == ["tensor<?x3xf32, #stablehlo.bounds<8, ?>>"]
    # unranked operands: the ranked one wins, else the first
    assert infer(name, UnrankedTensorType(f32), ranked((2,), f32)) == ["tensor<2xf32>"]
    assert infer(name, UnrankedTensorType(f32), UnrankedTensorType(f32)) == ["tensor<*xf32>"]


@pytest.mark.parametrize(
    "op", ["negate", "sqrt", "exponential", "not", "round_nearest_even", "tanh"]
)
def test_unary_static_dynamic_bounded(op: str) -> None:
    name = f"stablehlo.{op}"
    assert infer(name, ranked((2, 3), f32)) == ["tensor<2x3xf32>"]
    assert infer(name, ranked((DYN, 3), i32)) == ["tensor<?x3xi32>"]
    assert infer(name, ranked((DYN,), f32, (4,))) == ["tensor<?xf32, #stablehlo.bounds<4>>"]
    assert infer(name, ranked((2,), ComplexType(f32))) == ["tensor<2xcomplex<f32>>"]


def test_binary_errors_are_upstreams() -> None:
    with pytest.raises(InferError, match=r"^Mismatched dimension sizes 2 and 3 in dimension 0$"):
        infer_result_types("stablehlo.add", [ranked((2,), f32), ranked((3,), f32)])
    with pytest.raises(InferError, match=r"^Mismatched ranks of types1 vs 2$"):
        infer_result_types("stablehlo.subtract", [ranked((2,), f32), ranked((2, 2), f32)])
    with pytest.raises(
        InferError, match=r"^Mismatched dimension size 9 and bound 8 in dimension 0$"
    ):
        infer_result_types("stablehlo.maximum", [ranked((DYN,), f32, (8,)), ranked((9,), f32)])
    with pytest.raises(
        InferError, match=r"^Expected non-empty operands for AddOp::inferReturnTypes$"
    ):
        infer_result_types("stablehlo.add", [])
    with pytest.raises(
        InferError, match=r"^Expected non-empty operands for \[CompatibleOperandsAndResultType\]$"
    ):
        infer_result_types("stablehlo.and", [])


def test_tuples_map_over_elements() -> None:
    a = TupleType((ranked((DYN,), f32), ranked((2,), i32)))
    b = TupleType((ranked((3,), f32), ranked((DYN,), i32)))
    (t,) = infer_result_types("stablehlo.add", [a, b])
    assert isinstance(t, TupleType)
    assert [s(e) for e in t.types.data] == ["tensor<3xf32>", "tensor<2xi32>"]


# -------------------------------------------------------------------- abs, real, imag, is_finite
def test_abs_real_imag() -> None:
    c = ranked((2, DYN), ComplexType(f64), (DYN, 7))
    for op in ("abs", "real", "imag"):
        assert infer(f"stablehlo.{op}", c) == ["tensor<2x?xf64, #stablehlo.bounds<?, 7>>"]
        assert infer(f"stablehlo.{op}", ranked((4,), f32)) == ["tensor<4xf32>"]
        assert infer(f"stablehlo.{op}", UnrankedTensorType(ComplexType(f32))) == ["tensor<*xf32>"]
    assert infer("stablehlo.abs", ranked((3,), i32)) == ["tensor<3xi32>"]


def test_is_finite() -> None:
    assert infer("stablehlo.is_finite", ranked((2, 3), f32)) == ["tensor<2x3xi1>"]
    assert infer("stablehlo.is_finite", ranked((DYN,), f32)) == ["tensor<?xi1>"]
    assert infer("stablehlo.is_finite", ranked((DYN,), f32, (5,))) == [
        "tensor<?xi1, #stablehlo.bounds<5>>"
    ]


# ------------------------------------------------------------------------------------- compare
def test_compare() -> None:
    assert infer("stablehlo.compare", ranked((2, 2), f32), ranked((2, 2), f32)) == [
        "tensor<2x2xi1>"
    ]
    # the lhs's shape and encoding, as upstream (not refined by the rhs)
    assert infer("stablehlo.compare", ranked((2, DYN), f32), ranked((2, 3), f32)) == [
        "tensor<2x?xi1>"
    ]
    assert infer("stablehlo.compare", ranked((DYN,), i32, (4,)), ranked((DYN,), i32)) == [
        "tensor<?xi1, #stablehlo.bounds<4>>"
    ]
    m = parse(
        "func.func @f(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) {\n"
        "  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xi1>\n"
        "  return\n}"
    )
    (op,) = [o for o in m.walk() if o.name == "stablehlo.compare"]
    assert infer_op(op) == [ranked((DYN, 2), i1)]


# ------------------------------------------------------------------------------------ verifiers
def test_verifiers_accept_refinable_results() -> None:
    verifies(
        "%a: tensor<?x3xf32>, %b: tensor<2x?xf32>",
        "%0 = stablehlo.add %a, %b : (tensor<?x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>",
    )
    verifies("%a: tensor<?xf32>", "%0 = stablehlo.sqrt %a : (tensor<?xf32>) -> tensor<4xf32>")
    verifies(
        "%a: tensor<4xcomplex<f32>>",
        "%0 = stablehlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>",
    )
    verifies("%a: tensor<4xi32>", "%0 = stablehlo.convert %a : (tensor<4xi32>) -> tensor<?xf64>")
    verifies(
        "%a: tensor<?xf32, #stablehlo.bounds<4>>",
        "%0 = stablehlo.negate %a : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xf32, #stablehlo.bounds<4>>",
    )


@pytest.mark.parametrize(
    "args,line,message",
    [
        (
            "%a: tensor<2xf32>, %b: tensor<3xf32>",
            "%0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>",
            # SameOperandsAndResultShape is verified before inference, as upstream
            "'stablehlo.add' op requires the same shape for all operands and results",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.multiply %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>",
            (
                # upstream checks CompatibleOperandsAndResultType before the inferred types
                "'stablehlo.multiply' op requires compatible types for all operands and results"
            ),
        ),
        (
            "%a: tensor<1x2xi32>",
            '%0 = "stablehlo.abs"(%a) {} : (tensor<1x2xi32>) -> tensor<1x2xi64>',
            (
                "'stablehlo.abs' op inferred type(s) 'tensor<1x2xi32>' are incompatible with return type(s) of "
                "operation 'tensor<1x2xi64>'"
            ),
        ),
        (
            "%a: tensor<?xf32, #stablehlo.bounds<4>>",
            "%0 = stablehlo.exponential %a : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<5xf32>",
            "'stablehlo.exponential' op requires compatible types for all operands and results",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.sqrt %a : (tensor<2xf32>) -> tensor<2xf64>",
            (
                "'stablehlo.sqrt' op requires compatible types for all operands and results"
            ),
        ),
        (
            "%a: tensor<?x?xf64>, %b: tensor<?x?xf32>",
            "%0 = stablehlo.subtract %a, %b : (tensor<?x?xf64>, tensor<?x?xf32>) -> tensor<?x?xf64>",
            "'stablehlo.subtract' op requires compatible types for all operands and results",
        ),
        (
            "%a: tensor<?x?xf64>, %b: tensor<?x?xf32>",
            "%0 = stablehlo.add %a, %b : (tensor<?x?xf64>, tensor<?x?xf32>) -> tensor<?x?xf64>",
            "'stablehlo.add' op requires the same element type for all operands and results",
        ),
        (
            "%a: tensor<2x3xf32>",
            "%0 = stablehlo.convert %a : (tensor<2x3xf32>) -> tensor<3x2xf64>",
            "'stablehlo.convert' op requires the same shape for all operands and results",
        ),
        (
            "%a: tensor<2xf32>, %b: tensor<2xi32>",
            "%0 = stablehlo.compare LT, %a, %b : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xi1>",
            "'stablehlo.compare' op requires compatible element types for all operands",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xi1>",
            "'stablehlo.compare' op requires the same shape for all operands and results",
        ),
        (
            "%a: tensor<?xf32, #stablehlo.bounds<3>>",
            (
                "%0 = stablehlo.compare LT, %a, %a : (tensor<?xf32, #stablehlo.bounds<3>>, "
                "tensor<?xf32, #stablehlo.bounds<3>>) -> tensor<4xi1>"
            ),
            "'stablehlo.compare' op inferred type(s) 'tensor<?xi1, #stablehlo.bounds<3>>' are incompatible",
        ),
        (
            "%a: tensor<2xf32>",
            "%0 = stablehlo.is_finite %a : (tensor<2xf32>) -> tensor<2xi32>",
            # upstream's ODS result constraint (HLO_PredTensor) comes before the inference check
            "'stablehlo.is_finite' op result #0 must be ranked tensor of bool values, but got 'tensor<2xi32>'",
        ),
    ],
)
def test_verifier_messages(args: str, line: str, message: str) -> None:
    assert message in verify_error(args, line)


def test_add_quantization_constraints() -> None:
    q = "!quant.uniform<i8:f32, 1.0:0>"
    q2 = "!quant.uniform<i8:f32, 2.0:1>"
    verifies(
        f"%a: tensor<2x{q}>, %b: tensor<2x{q2}>",
        f"%0 = stablehlo.add %a, %b : (tensor<2x{q}>, tensor<2x{q2}>) -> tensor<2x{q}>",
    )
    qa = "!quant.uniform<i8:f32:0, {1.0:0, 2.0:0}>"
    e = verify_error(
        f"%a: tensor<2x{qa}>, %b: tensor<2x{qa}>",
        f"%0 = stablehlo.add %a, %b : (tensor<2x{qa}>, tensor<2x{qa}>) -> tensor<2x{q}>",
    )
    # verifyAddOp (the op's verify()) runs before the inferred-type check, as in MLIR
    assert "result is not per_axis quantized but lhs or rhs are" in e


# ---------------------------------------------------------------------- differential: upstream
def _chunks_with_expected_types() -> list[tuple[str, str, str]]:
    """(op name, chunk rewritten without the test ops, expected `types0`) for infer_stablehlo.mlir's
    get_return_types checks of this family's ops (none in a clone without ../shared)."""
    path = CONFORMANCE / "infer" / "infer_stablehlo.mlir"
    if not path.is_file():
        return []
    text = _read(str(path))
    out = []
    for chunk in text.split("// -----"):
        for m in re.finditer(
            r'// CHECK: types0 = (.*)\n\s*%\S+ = "hlo_test_infer.get_return_types"\((%\w+)\)', chunk
        ):
            expected, value = m.group(1).strip(), m.group(2)
            d = re.search(rf"^\s*{re.escape(value)} = \"?(stablehlo\.\w+)", chunk, re.MULTILINE)
            if not d or d.group(1) not in FAMILY | {
                "stablehlo.constant",
                "stablehlo.reduce_precision",
            }:
                continue
            if "#sparse_tensor" in chunk or "{{" in expected:
                continue  # sparse encodings are not supported by our types
            body = "\n".join(ln for ln in chunk.splitlines() if "hlo_test_infer" not in ln)
            body = re.sub(r"func\.return %\w+\s*:.*", "func.return", body)
            body = re.sub(r"(func\.func @\w+\(.*\))\s*->\s*[^{]*\{", r"\1 {", body)
            out.append((d.group(1), body, expected))
    return out


CHUNKS = _chunks_with_expected_types()


def test_differential_cases_found() -> None:
    if not (CONFORMANCE / "infer" / "infer_stablehlo.mlir").is_file():
        pytest.skip("../shared/conformance/infer/infer_stablehlo.mlir is absent (user clone)")
    assert {c[0] for c in CHUNKS} >= {"stablehlo.compare", "stablehlo.abs"}


@pytest.mark.parametrize(
    "name,body,expected", CHUNKS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CHUNKS)]
)
def test_matches_upstream_expectations(name: str, body: str, expected: str) -> None:
    m = parse(body)
    ops = [o for o in m.walk() if o.name == name]
    assert any([s(t) for t in infer_op(op)] == [expected] for op in ops)


# -------------------------------------------------------------------- differential: test data
_PREFIXES = sorted(
    {n for n in (*UNARY, *BINARY, *UNARY_WITH_ACCURACY, "compare")}, key=len, reverse=True
)
_FILES = sorted(
    f
    for f in glob.glob(f"{CONFORMANCE}/testdata/*.mlir")
    if os.path.getsize(f) < 5000 and any(os.path.basename(f).startswith(p + "_") for p in _PREFIXES)
)


def test_conformance_testdata_types() -> None:
    """Every op of this family in (a size-capped selection of) the conformance test data: the
    inferred type is compatible with the declared one, and equal to it where that is static."""
    if not (CONFORMANCE / "testdata").is_dir():
        pytest.skip("../shared/conformance/testdata is absent (user clone)")
    assert len(_FILES) > 40
    seen: set[str] = set()
    for f in _FILES:
        m = parse(_read(f))
        for op in m.walk():
            if op.name not in FAMILY or op.name == "stablehlo.convert":
                continue
            seen.add(op.name)
            inferred = infer_op(op)
            declared = [r.type for r in op.results]
            assert types_compatible(inferred, declared), (f, s(inferred[0]), s(declared[0]))
            if all(-1 not in getattr(t, "get_shape", lambda: (-1,))() for t in declared):
                assert inferred == declared, (f, s(inferred[0]), s(declared[0]))
    assert len(seen) > 18


# --------------------------------------------------------------------- coverage cases
_INTEGER_OPS = {
    "count_leading_zeros",
    "popcnt",
    "not",
    "and",
    "or",
    "xor",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
}
_SHAPES = {
    "static": ("2x3", ""),
    "dynamic": ("?x3", ""),
    "bounded": ("?x3", ", #stablehlo.bounds<5, ?>"),
}
"""The three kinds of a coverage case: a shape and its encoding."""
_RESULT_ELEMENT = {"abs": "f32", "real": "f32", "imag": "f32", "is_finite": "i1", "compare": "i1"}
"""Ops whose result element type is not the operand's (complex -> real, float -> i1)."""


def _operand_element(op: str) -> str:
    if op in ("abs", "real", "imag"):
        return "complex<f32>"
    return "i32" if op in _INTEGER_OPS else "f32"


def _elementwise_cases() -> list[Case]:
    out: list[Case] = []
    unary = [n for n in (*UNARY, *UNARY_WITH_ACCURACY) if n != "convert"]
    for op in (*unary, *BINARY, "compare"):
        n = 1 if op in unary else 2
        elem = _operand_element(op)
        for shape, enc in _SHAPES.values():
            t = f"tensor<{shape}x{elem}{enc}>"
            want = f"tensor<{shape}x{_RESULT_ELEMENT.get(op, elem)}{enc}>"
            attrs = "{comparison_direction = #stablehlo<comparison_direction LT>}"
            operands = [(f"%a{i}", t) for i in range(n)]
            out.append(
                op_case(f"stablehlo.{op}", operands, want, attrs=attrs if op == "compare" else "")
            )
    return out


CASES = [
    *_elementwise_cases(),
    # a bounded operand and a static one: the static sizes win, the bound goes
    case(
        "stablehlo.add",
        "%a: tensor<?x3xf32, #stablehlo.bounds<5, ?>>, %b: tensor<2x3xf32>",
        "%0 = stablehlo.add %a, %b : (tensor<?x3xf32, #stablehlo.bounds<5, ?>>, tensor<2x3xf32>) -> tensor<2x3xf32>",
        "tensor<2x3xf32>",
    ),
]


test_cases = cases_test(CASES)
