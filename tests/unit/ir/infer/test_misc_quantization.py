"""Result-type inference of constant (stablehlo_py/ir/infer/misc.py) and of the quantization ops
(stablehlo_py/ir/infer/quantization.py): static, dynamic and bounded cases, the verifiers going
through the rules with upstream's messages, the ops upstream does not infer, and the types declared
in the conformance test data."""

from __future__ import annotations

import glob
import os

import pytest
from xdsl.dialects.builtin import UnrankedTensorType, f32, i8

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, has_rule, infer_op, infer_result_types
from stablehlo_py.ir.infer.misc import constant_types_compatible
from stablehlo_py.ir.infer.shapes import DYN, ranked, types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.verify import verify
from tests.unit.ir.infer.cases import Case, case, cases_test, op_case
from tests.unit.ir.infer.helpers import line_verifies as verifies
from tests.unit.ir.infer.helpers import line_verify_error as verify_error
from tests.conftest import CONFORMANCE

Q = "!quant.uniform<i8:f32, 5.000000e-01:-20>"
QA = "!quant.uniform<i8:f32:1, {1.000000e-01:-30,5.000000e-01:-20}>"


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def s(t) -> str:  # type: ignore[no-untyped-def]
    return type_to_str(t)


def _op(args: str, line: str, name: str):  # type: ignore[no-untyped-def]
    m = parse(f"func.func @f({args}) {{\n  {line}\n  return\n}}")
    return next(o for o in m.walk() if o.name == name)


def infer_line(args: str, line: str, name: str) -> list[str]:
    return [s(t) for t in infer_op(_op(args, line, name))]


def test_rules_as_upstream() -> None:
    for name in ("constant", "reduce_precision", "uniform_dequantize"):
        assert has_rule(f"stablehlo.{name}")
    # upstream infers nothing for these (no InferTypeOpInterface / no inferReturnTypeComponents)
    for name in ("custom_call", "uniform_quantize", "bitcast_convert", "einsum", "unary_einsum"):
        assert not has_rule(f"stablehlo.{name}")


# ------------------------------------------------------------------------------------ constant
def test_constant() -> None:
    assert infer_line(
        "", "%0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>", "stablehlo.constant"
    ) == ["tensor<2xi64>"]
    assert infer_line(
        "", "%0 = stablehlo.constant dense<1.0> : tensor<f32>", "stablehlo.constant"
    ) == ["tensor<f32>"]
    with pytest.raises(InferError, match="requires attribute 'value'"):
        infer_result_types("stablehlo.constant", [], {})


def test_constant_compatibility_is_upstreams() -> None:
    # equality, a quantized result standing for its storage type; no dynamic refinement
    assert constant_types_compatible(ranked((2,), i8), ranked((2,), i8))
    assert not constant_types_compatible(ranked((2,), i8), ranked((DYN,), i8))
    m = parse(
        f"func.func @f() {{\n  %0 = stablehlo.constant() {{value = dense<[1, 2]> : tensor<2xi8>}} : () -> tensor<2x{Q}>\n  return\n}}"
    )
    verify(m)
    op = next(o for o in m.walk() if o.name == "stablehlo.constant")
    assert constant_types_compatible(infer_op(op)[0], op.results[0].type)


@pytest.mark.parametrize(
    "line,message",
    [
        (
            '%0 = "stablehlo.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>',
            (
                "'stablehlo.constant' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of "
                "operation 'tensor<2xf32>'"
            ),
        ),
        (
            '%0 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<?xf32>',
            "inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<?xf32>'",
        ),
        (
            f'%0 = "stablehlo.constant"() {{value = dense<1> : tensor<2xi16>}} : () -> tensor<2x{Q}>',
            f"inferred type(s) 'tensor<2xi16>' are incompatible with return type(s) of operation 'tensor<2x{Q}>'",
        ),
    ],
)
def test_constant_verifier(line: str, message: str) -> None:
    assert message in verify_error("", line)


# ---------------------------------------------------------------------------- reduce_precision
def test_reduce_precision() -> None:
    name = "stablehlo.reduce_precision"
    assert [s(t) for t in infer_result_types(name, [ranked((2, 4), f32)])] == ["tensor<2x4xf32>"]
    assert [s(t) for t in infer_result_types(name, [ranked((DYN, 4), f32)])] == ["tensor<?x4xf32>"]
    assert [s(t) for t in infer_result_types(name, [ranked((DYN,), f32, (9,))])] == [
        "tensor<?xf32, #stablehlo.bounds<9>>"
    ]
    assert [s(t) for t in infer_result_types(name, [UnrankedTensorType(f32)])] == ["tensor<*xf32>"]
    verifies(
        "%a: tensor<?xf32>",
        "%0 = stablehlo.reduce_precision %a, format = e5m10 : (tensor<?xf32>) -> tensor<3xf32>",
    )
    e = verify_error(
        "%a: tensor<2x4xf32>",
        "%0 = stablehlo.reduce_precision %a, format = e5m10 : (tensor<2x4xf32>) -> tensor<2x4xf64>",
    )
    assert (
        "'stablehlo.reduce_precision' op requires compatible types for all operands and results"
        in e
    )
    e = verify_error(
        "%a: tensor<2xf32>",
        '%0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 1 : i32, mantissa_bits = -1 : i32} : (tensor<2xf32>) -> tensor<2xf32>',
    )
    assert (
        "op attribute 'mantissa_bits' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative"
        in e
    )


# -------------------------------------------------------------------------- uniform_dequantize
def test_uniform_dequantize() -> None:
    name = "stablehlo.uniform_dequantize"
    assert infer_line(
        f"%a: tensor<2x{Q}>",
        f"%0 = stablehlo.uniform_dequantize %a : (tensor<2x{Q}>) -> tensor<2xf32>",
        name,
    ) == ["tensor<2xf32>"]
    assert infer_line(
        f"%a: tensor<?x2x{QA}>",
        f"%0 = stablehlo.uniform_dequantize %a : (tensor<?x2x{QA}>) -> tensor<?x2xf32>",
        name,
    ) == ["tensor<?x2xf32>"]
    # the shape components carry no encoding: bounds are dropped, as upstream's
    bounded = f"tensor<?x{Q}, #stablehlo.bounds<4>>"
    assert infer_line(
        f"%a: {bounded}",
        f"%0 = stablehlo.uniform_dequantize %a : ({bounded}) -> tensor<?xf32>",
        name,
    ) == ["tensor<?xf32>"]
    with pytest.raises(InferError, match="must be a tensor of quantized type"):
        infer_result_types(name, [ranked((2,), f32)])
    verifies(
        f"%a: tensor<?x{Q}>",
        f"%0 = stablehlo.uniform_dequantize %a : (tensor<?x{Q}>) -> tensor<5xf32>",
    )
    e = verify_error(
        f"%a: tensor<2x{Q}>",
        f"%0 = stablehlo.uniform_dequantize %a : (tensor<2x{Q}>) -> tensor<3xf32>",
    )
    assert (
        "inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'"
        in e
    )


# ---------------------------------------------------------------------------- uniform_quantize
def test_uniform_quantize_verifier() -> None:
    verifies(
        "%a: tensor<?xf32>",
        f"%0 = stablehlo.uniform_quantize %a : (tensor<?xf32>) -> tensor<2x{Q}>",
    )
    e = verify_error(
        "%a: tensor<2xf32>",
        f"%0 = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<3x{Q}>",
    )
    assert (
        "'stablehlo.uniform_quantize' op requires the same shape for all operands and results" in e
    )
    e = verify_error(
        "%a: tensor<2xf64>",
        f"%0 = stablehlo.uniform_quantize %a : (tensor<2xf64>) -> tensor<2x{Q}>",
    )
    assert "Expressed type of result expected to be f64, but got f32" in e


# -------------------------------------------------------------------- differential: test data
_FILES = sorted(
    f
    for f in glob.glob(f"{CONFORMANCE}/testdata/*.mlir")
    if os.path.getsize(f) < 12000
    and any(
        os.path.basename(f).startswith(p)
        for p in ("uniform_", "reduce_precision", "quantized", "dequant")
    )
)


def test_conformance_testdata_types() -> None:
    """constant, reduce_precision and uniform_dequantize in (a selection of) the conformance test
    data: the inferred type is compatible with the declared one (equal where that is static)."""
    if not (CONFORMANCE / "interpret" / "quantized_ops.mlir").is_file() or not _FILES:
        pytest.skip("../shared/conformance is absent (user clone): conformance test data not checked")
    seen: set[str] = set()
    names = {"stablehlo.constant", "stablehlo.reduce_precision", "stablehlo.uniform_dequantize"}
    modules = [parse(_read(f)) for f in _FILES]
    modules += [
        parse(c)
        for c in _read(f"{CONFORMANCE}/interpret/quantized_ops.mlir").split("// -----")
        if c.strip()
    ]
    for m in modules:
        for op in m.walk():
            if op.name not in names:
                continue
            seen.add(op.name)
            inferred = infer_op(op)
            declared = [r.type for r in op.results]
            if op.name == "stablehlo.constant":
                assert constant_types_compatible(inferred[0], declared[0]), (
                    s(inferred[0]),
                    s(declared[0]),
                )
                continue
            assert types_compatible(inferred, declared), (s(inferred[0]), s(declared[0]))
            if all(-1 not in t.get_shape() for t in declared):
                assert inferred == declared, (s(inferred[0]), s(declared[0]))
    assert seen == names


# ------------------------------------------------------------------------------ coverage cases
_Q = "!quant.uniform<i8:f32, 1.000000e+00>"
_RP = "{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}"


def _reduce_precision(t: str) -> Case:
    return op_case("stablehlo.reduce_precision", [("%a", t)], t, attrs=_RP)


def _dequantize(shape: str, enc: str, want: str) -> Case:
    return op_case("stablehlo.uniform_dequantize", [("%a", f"tensor<{shape}x{_Q}{enc}>")], want)


B = ", #stablehlo.bounds<5, ?>"
CASES = [
    _reduce_precision("tensor<2x3xf32>"),
    _reduce_precision("tensor<?x3xf32>"),
    _reduce_precision(f"tensor<?x3xf32{B}>"),
    _dequantize("2x3", "", "tensor<2x3xf32>"),
    _dequantize("?x3", "", "tensor<?x3xf32>"),
    # inferUniformDequantizeOp gives the shape and the expressed type: no bounds
    _dequantize("?x3", B, "tensor<?x3xf32>"),
    case(
        "stablehlo.constant",
        "",
        "%0 = stablehlo.constant dense<1.0> : tensor<2x3xf32>",
        "tensor<2x3xf32>",
    ),
]


test_cases = cases_test(CASES)
