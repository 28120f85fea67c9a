"""CI text fuzzing: at least 5,000 mutated upstream programs (tests/fuzz/text_fuzzing.py: token
deletion, duplication and swap, number and type edits, truncation, random bytes, spliced lines, deep
nesting, huge dimensions and splats) through parse -> verify -> print -> round trip (the printed
text parses back and prints the same) -> interpret (small programs, CPU budget): only located
StableHLOErrors may escape, no step over 1 s of CPU time.
`bench/fuzz_text.py` runs >= 100,000.  Below: one regression test per finding fixed at its root."""

from __future__ import annotations

import os

import pytest

from stablehlo_py.errors import InterpreterError, ParseError
from stablehlo_py.ir import parse
from tests.fuzz import text_fuzzing
from tests.conftest import CONFORMANCE

CASES = int(os.environ.get("STABLEHLO_PY_TEXT_FUZZ_CASES", "5000"))


def test_mutated_texts_raise_only_located_toolkit_errors() -> None:
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is absent: no seeds")
    seeds = text_fuzzing.conformance_seeds(CONFORMANCE)
    assert len(seeds) > 1000
    result = text_fuzzing.run(seeds, CASES, seed=20261124)
    assert result.cases == CASES
    assert not result.findings, "\n".join(
        f"{why}\n  input: {text[:300]!r}" for text, why in result.findings[:5]
    )
    assert result.refused > CASES // 2  # most mutations are caught
    assert result.accepted > CASES // 20  # and some still verify
    assert result.interpreted > 0
    assert set(result.mix) == set(text_fuzzing.MUTATIONS)


def _func(body: str, args: str = "") -> str:
    return f"func.func @main({args}) {{\n{body}\n  return\n}}\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # nesting: a clear error instead of a RecursionError
        (
            "func.func @main(%a: " + "tuple<" * 500 + "tensor<f32>" + ">" * 500 + ") {\n return\n}",
            "types nested more than",
        ),
        (
            "func.func @main() attributes {x = " + "[" * 500 + "1" + "]" * 500 + "} {\n return\n}",
            "attributes nested more than",
        ),
        # integer widths and ranges
        (
            "func.func @main() attributes {x = array<i0: 1>} {\n return\n}",
            "integer constant out of range for type i0",
        ),
        (
            _func(
                "  %0 = stablehlo.transpose %a, dims = [99999999999999999999] : (tensor<2xf32>) -> tensor<2xf32>",
                "%a: tensor<2xf32>",
            ),
            "integer value too large",
        ),
        (
            "func.func @main() attributes {x = array<i64: 18446744073709551616>} {\n return\n}",
            "integer constant out of range for type i64",
        ),
        (
            "func.func @main() attributes {x = array<tuple<>: 1>} {\n return\n}",
            "expected integer or float type, got: tuple<>",
        ),
        (
            "func.func @main(%a: tensor<2xi99999999>) {\n return\n}",
            "integer bitwidth is limited to 16777215 bits",
        ),
        (
            "func.func @main() attributes {x = array<i7: 1>} {\n return\n}",
            "is not supported by stablehlo-py",
        ),
        # malformed hex floats and out-of-range bit patterns in dense literals
        (
            _func("  %0 = stablehlo.constant dense<0x7FC00000.> : tensor<f32>"),
            "expected a floating-point literal",
        ),
        (
            _func("  %0 = stablehlo.constant dense<0xFFFFFFFFFFFF> : tensor<f32>"),
            "hexadecimal float constant out of range for type f32",
        ),
        (
            _func("  %0 = stablehlo.constant dense<5.0> : tensor<index>"),
            "expected an integer for an index element",
        ),
        (
            "func.func @main(%a: tensor<!quant.uniform<i8:f32, 0xFFFFFFFFFFFFFFFFFFFF:1>>) {\n return\n}",
            "hexadecimal float constant out of range",
        ),
        # found by the 100,000-case run: dense literal structure, i0 elements, scalar hex floats
        (_func("  %0 = stablehlo.constant dense<0> : tensor<i0>"), "dense literals of i0 elements"),
        (
            _func(
                "  %0 = stablehlo.constant dense<[(4.0, -2.0), (, 6.0)]> : tensor<2xcomplex<f64>>"
            ),
            "expected a complex literal",
        ),
        (
            _func("  %0 = stablehlo.constant dense<[(1.5, 2.5), (3.5> : tensor<2xcomplex<f64>>"),
            "expected a complex literal",
        ),
        (
            _func("  %0 = stablehlo.constant dense<[1]]> : tensor<1xf32>"),
            "unbalanced brackets in dense literal",
        ),
        (
            "func.func @main() attributes {x = 0xFFFFFFFFFFFFFFFFFF : f32} {\n return\n}",
            "hexadecimal float constant out of range for type f32",
        ),
        (
            "func.func @main() attributes {x = -0x3F80 : f32} {\n return\n}",
            "should not have a leading minus",
        ),
        # element types xDSL's constructors refuse
        (
            "func.func @main(%a: tensor<complex<!stablehlo.token>>) {\n return\n}",
            "invalid element type for complex",
        ),
        (
            "func.func @main(%a: tensor<complex<complex<f32>>>) {\n return\n}",
            "invalid element type for complex",
        ),
        # a huge spatial dimension number in convolution's dim_numbers (was a hang)
        (
            _func(
                "  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0, 99999999999999999, f]x[0, 1, i, o]->[b, 0, 1, f], "
                "window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
                "(tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>",
                "%a: tensor<1x1x1x1xf32>",
            ),
            "Expected spatial dimensions 1, 2, 3",
        ),
        # an integer property out of its type's range
        (
            _func(
                "  %0 = stablehlo.concatenate %a, dim = 18446744073709551615 : (tensor<2xf32>) -> tensor<2xf32>",
                "%a: tensor<2xf32>",
            ),
            "integer value too large",
        ),
        # MLIR resolves a custom op's operands after its types: the type error comes first
        (
            _func("  %0 = stablehlo.tuple %a, %undefined : tensor<1xf64>", "%a: tensor<1xf64>"),
            "custom op 'stablehlo.tuple' expected tuple type",
        ),
        (
            _func("  %0 = stablehlo.abs %undefined : tensor<1xf64>"),
            "use of undeclared SSA value name '%undefined'",
        ),
        # round trip (third 100,000-case run): `{}` was read as an empty body, printed back as a
        # declaration; MLIR's parseFunctionOp refuses it
        (
            "func.func @main() -> tensor<i1> {\n  // no ops\n}\n",
            "custom op 'func.func' expected non-empty function body",
        ),
        # fourth 100,000-case run: a hex f64 of more than 64 bits was an OverflowError
        (
            _func(
                '  %0 = "stablehlo.exponential"(%a) {result_accuracy = #stablehlo.result_accuracy<'
                "atol = 1.0, rtol = 0xFFFFFFFFFFFFFFFFFFFF, ulps = 1, "
                "mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<f32>) -> tensor<f32>",
                "%a: tensor<f32>",
            ),
            "hexadecimal float constant out of range for type",
        ),
    ],
)
def test_fuzz_findings_are_located_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text, "f.mlir")
    assert message in info.value.message
    assert info.value.location and info.value.location.startswith("f.mlir:")


def test_endless_recursion_is_an_interpreter_error() -> None:
    from stablehlo_py.interpreter.api import run

    text = """func.func @main() -> tensor<i32> {
  %0 = stablehlo.constant dense<3> : tensor<i32>
  %1 = call @f(%0) : (tensor<i32>) -> tensor<i32>
  return %1 : tensor<i32>
}
func.func @f(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = call @f(%arg0) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}
"""
    with pytest.raises(InterpreterError, match="calls nested more than"):
        run(text)


def test_region_nesting_limit_is_below_the_recursion_limit() -> None:
    """The deepest nesting the parser accepts still verifies and prints (no RecursionError)."""
    from stablehlo_py.ir import print_ir
    from stablehlo_py.ir.text.parser import MAX_REGION_NESTING
    from stablehlo_py.ir.verify import verify

    module = parse(text_fuzzing.nested_ifs(MAX_REGION_NESTING - 1))
    verify(module)
    print_ir(module)
    with pytest.raises(ParseError, match="regions nested more than"):
        parse(text_fuzzing.nested_ifs(MAX_REGION_NESTING + 1))


def test_float_array_for_an_i64_array_property_is_a_verify_error() -> None:
    """Found by the second 100,000-case run: `dimensions = array<f8E4M3FN: ...>` in the generic form
    reached the verifiers' integer helpers (ValueError); the property is a DenseI64ArrayAttr."""
    from stablehlo_py.errors import VerifyError
    from stablehlo_py.ir.verify import verify

    text = """func.func @main(%a: tensor<4x4xf32>, %i: tensor<f32>) -> tensor<4xf32> {
  %0 = "stablehlo.reduce"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<f32: 1.0>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
    message = "attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute"
    with pytest.raises(VerifyError, match=message) as info:  # upstream's ODS message
        verify(parse(text, "f.mlir"))
    assert info.value.location
