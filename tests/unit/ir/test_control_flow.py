"""Control-flow ops: while (hand-written syntax, %iterArg names), if, case, return,
optimization_barrier, after_all, create_token, composite; their verifiers and parse errors."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError, VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from tests.unit.ir.helpers import roundtrip


def verify_error(text: str) -> str:
    m = parse(text, "t.mlir")
    with pytest.raises(VerifyError) as e:
        verify(m)
    return str(e.value)


WHILE_GENERIC = """func.func @f(%init: tensor<i64>, %acc: tensor<f32>) -> (tensor<i64>, tensor<f32>) {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %0:2 = "stablehlo.while"(%init, %acc) ({
  ^bb0(%i: tensor<i64>, %a: tensor<f32>):
    %c = stablehlo.compare LT, %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i64>, %a: tensor<f32>):
    %n = stablehlo.add %i, %one : tensor<i64>
    "stablehlo.return"(%n, %a) : (tensor<i64>, tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<f32>) -> (tensor<i64>, tensor<f32>)
  func.return %0#0, %0#1 : tensor<i64>, tensor<f32>
}
"""

WHILE_PRETTY = """module {
  func.func @f(%arg0: tensor<i64>, %arg1: tensor<f32>) -> (tensor<i64>, tensor<f32>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<i64>, tensor<f32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.add %iterArg, %c : tensor<i64>
      stablehlo.return %1, %iterArg_0 : tensor<i64>, tensor<f32>
    }
    return %0#0, %0#1 : tensor<i64>, tensor<f32>
  }
}
"""


def test_while_prints_upstream_syntax() -> None:
    # printWhileOp: newline, then "cond " at the op's indentation (as upstream >= 1.17 prints it;
    # the older JAX-generated testdata has one more space).
    assert roundtrip(WHILE_GENERIC) == WHILE_PRETTY
    assert roundtrip(WHILE_PRETTY) == WHILE_PRETTY


def test_while_no_operands_and_attributes() -> None:
    text = """func.func @f() {
  stablehlo.while() attributes {foo = "bar"}
  cond {
    %0 = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %0 : tensor<i1>
  } do {
    stablehlo.return
  }
  return
}
"""
    out = roundtrip(text)
    assert '    stablehlo.while() attributes {foo = "bar"}\n    cond {\n' in out
    assert "      stablehlo.return \n    }\n" in out


def test_while_generic_form() -> None:
    g = print_ir(parse(WHILE_PRETTY), generic=True)
    # Generic form: no %iterArg names, entry blocks printed with their arguments.
    assert "iterArg" not in g
    assert re.search(
        r'"stablehlo.while"\(%arg0, %arg1\) \(\{\n    \^bb0\(%arg\d+: tensor<i64>, %arg\d+: tensor<f32>\):',
        g,
    )


def test_while_verifier() -> None:
    bad = WHILE_GENERIC.replace('"stablehlo.return"(%n, %a)', '"stablehlo.return"(%a, %a)').replace(
        "(tensor<i64>, tensor<f32>) -> ()", "(tensor<f32>, tensor<f32>) -> ()"
    )
    assert (
        "expect operands to be compatible with body block return types but got "
        "'tensor<i64>', 'tensor<f32>' vs 'tensor<f32>', 'tensor<f32>'"
    ) in verify_error(bad)
    bad_cond = WHILE_GENERIC.replace(
        '"stablehlo.return"(%c) : (tensor<i1>)', '"stablehlo.return"(%i) : (tensor<i64>)'
    )
    assert (
        "expect condition block return a zero-ranked tensor of i1 but got 'tensor<i64>'"
        in verify_error(bad_cond)
    )
    two = WHILE_GENERIC.replace(
        '"stablehlo.return"(%c) : (tensor<i1>)',
        '"stablehlo.return"(%c, %c) : (tensor<i1>, tensor<i1>)',
    )
    assert "expect condition body returns a single value but got 2" in verify_error(two)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "func.func @f(%a: tensor<i64>) {\n  stablehlo.while(%x, %a) : tensor<i64>\n}\n",
            r"t\.mlir:2:\d+: error: .*'='",
            id="while_operand_without_init",
        ),
        pytest.param(
            "func.func @f(%a: tensor<i64>) {\n  stablehlo.while(%x = %a) : tensor<f32> cond {\n"
            "  } do {\n  }\n  return\n}\n",
            r"t\.mlir:2:\d+: error: .*has type tensor<i64> but is written as tensor<f32>",
            id="while_operand_type",
        ),
        pytest.param(
            "func.func @f(%a: tensor<f32>) {\n  %0 = stablehlo.composite %a {decomposition = @g} : (tensor<f32>) -> tensor<f32>\n}\n",
            r"t\.mlir:2:\d+: error: expected the composite's name",
            id="composite_without_name",
        ),
    ],
)
def test_while_and_composite_parse_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse(text, "t.mlir")


IF_CASE = """func.func @f(%pred: tensor<i1>, %index: tensor<i32>, %x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%x) : (tensor<2xi64>) -> ()
  }, {
    %n = stablehlo.negate %x : tensor<2xi64>
    "stablehlo.return"(%n) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  %1 = "stablehlo.case"(%index) ({
    stablehlo.return %x : tensor<2xi64>
  }, {
    stablehlo.return %0 : tensor<2xi64>
  }) : (tensor<i32>) -> tensor<2xi64>
  func.return %0, %1 : tensor<2xi64>, tensor<2xi64>
}
"""


def test_if_case_print_generically() -> None:
    out = roundtrip(IF_CASE)
    assert (
        '    %0 = "stablehlo.if"(%arg0) ({\n      stablehlo.return %arg2 : tensor<2xi64>\n    }, {\n'
        in out
    )
    assert '    }) : (tensor<i1>) -> tensor<2xi64>\n    %1 = "stablehlo.case"(%arg1) ({\n' in out


def test_if_case_have_no_pretty_form() -> None:
    with pytest.raises(
        ParseError, match=r"t\.mlir:2:\d+: error: 'stablehlo.if' has no pretty syntax"
    ):
        parse("func.func @f(%p: tensor<i1>) {\n  stablehlo.if %p\n}\n", "t.mlir")


def test_if_verifier() -> None:
    bad = IF_CASE.replace(
        '"stablehlo.return"(%x) : (tensor<2xi64>) -> ()\n  }, {\n    %n',
        '"stablehlo.return"(%pred) : (tensor<i1>) -> ()\n  }, {\n    %n',
    )
    assert (
        "branch 0 and branch 1 have mismatched return types: 'tensor<i1>' vs 'tensor<2xi64>'"
        in verify_error(bad)
    )


def test_case_verifier() -> None:
    bad = IF_CASE.replace(
        "stablehlo.return %0 : tensor<2xi64>", "stablehlo.return %index : tensor<i32>"
    )
    assert "branch 0 and branch 1 have mismatched return types" in verify_error(bad)
    bad_index = IF_CASE.replace('"stablehlo.case"(%index)', '"stablehlo.case"(%pred)').replace(
        ": (tensor<i32>) -> tensor<2xi64>", ": (tensor<i1>) -> tensor<2xi64>"
    )
    assert (
        "operand #0 must be ranked tensor of 32-bit signless integer values, but got"
        in verify_error(bad_index)
    )


@pytest.mark.parametrize(
    "line,printed",
    [
        ('"stablehlo.return"() : () -> ()', "stablehlo.return "),
        (
            '"stablehlo.return"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> ()',
            "stablehlo.return %arg0, %arg0 : tensor<4xf32>, tensor<4xf32>",
        ),
        ('"stablehlo.optimization_barrier"() : () -> ()', "stablehlo.optimization_barrier()"),
        (
            '%0 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>',
            "%0 = stablehlo.optimization_barrier %arg0 : tensor<4xf32>",
        ),
        (
            "%0:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4xf32>, !stablehlo.token",
            None,
        ),
        (
            '%0 = "stablehlo.after_all"(%arg1, %arg1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token',
            "%0 = stablehlo.after_all %arg1, %arg1 : !stablehlo.token",
        ),
        (
            "%0 = stablehlo.after_all : !stablehlo.token",
            "%0 = stablehlo.after_all  : !stablehlo.token",
        ),
        (
            '%0 = "stablehlo.create_token"() : () -> !stablehlo.token',
            "%0 = stablehlo.create_token : !stablehlo.token",
        ),
    ],
)
def test_simple_ops(line: str, printed: str | None) -> None:
    tail = "" if "return" in line else '\n  "stablehlo.return"() : () -> ()'
    text = f"func.func @f(%arg0: tensor<4xf32>, %arg1: !stablehlo.token) {{\n  {line}{tail}\n}}\n"
    out = roundtrip(text)
    assert f"    {printed or line}\n" in out


def test_optimization_barrier_verifier() -> None:
    text = 'func.func @f(%arg0: tensor<4xf32>) {\n  %0 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xi32>\n  return\n}\n'
    assert "requires the same type for operand and result at index 0" in verify_error(text)


def test_after_all_verifier() -> None:
    text = 'func.func @f(%arg0: tensor<4xf32>) {\n  %0 = "stablehlo.after_all"(%arg0) : (tensor<4xf32>) -> !stablehlo.token\n  return\n}\n'
    assert "operand #0 must be variadic of token, but got 'tensor<4xf32>'" in verify_error(text)


def test_create_token_verifier() -> None:
    text = 'func.func @f() {\n  %0 = "stablehlo.create_token"() : () -> tensor<f32>\n  return\n}\n'
    # upstream's ODS result constraint comes before the inference check
    assert "'stablehlo.create_token' op result #0 must be token, but got 'tensor<f32>'" in (
        verify_error(text)
    )


COMPOSITE = """func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.composite"(%arg0) {name = "my.op", decomposition = @impl, composite_attributes = {n = 2 : i64}, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.composite "my.op" %0 {decomposition = @impl, version = 0 : i32} : (tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.composite"(%1) ({
  ^bb0(%a: tensor<f32>):
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) {name = "my.op", decomposition = @impl} : (tensor<f32>) -> tensor<f32>
  return %2 : tensor<f32>
}
func.func private @impl(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
"""


def test_composite_syntax() -> None:
    out = roundtrip(COMPOSITE)
    assert (
        '    %0 = stablehlo.composite "my.op" %arg0 {composite_attributes = {n = 2 : i64}, decomposition = @impl, '
        "version = 1 : i32} : (tensor<f32>) -> tensor<f32>\n" in out
    )
    # default-valued version is elided in the pretty form (kept in the generic one)
    assert (
        '    %1 = stablehlo.composite "my.op" %0 {decomposition = @impl} : (tensor<f32>) -> tensor<f32>\n'
        in out
    )
    assert (
        '    %2 = stablehlo.composite "my.op" %1 ({\n    ^bb0(%arg1: tensor<f32>):\n      stablehlo.return %arg1 : tensor<f32>\n'
        "    }) {decomposition = @impl} : (tensor<f32>) -> tensor<f32>\n" in out
    )
    assert re.search(
        r'"stablehlo.composite"\(%\d+\) <\{decomposition = @impl, name = "my.op", version = 0 : i32\}>',
        print_ir(parse(COMPOSITE), generic=True),
    )


def test_composite_verifier() -> None:
    assert (
        "name must be a valid namespaced op name, i.e. it must match the following regular "
        'expression: ^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$ e.g. "my_namespace.my_op"'
    ) in verify_error(
        COMPOSITE.replace(
            'name = "my.op", decomposition = @impl, composite',
            'name = "myop", decomposition = @impl, composite',
        )
    )
    assert "'missing' does not reference a valid function" in verify_error(
        COMPOSITE.replace("@impl, composite", "@missing, composite")
    )
    wrong = COMPOSITE.replace(
        "func.func private @impl(%arg0: tensor<f32>) -> tensor<f32> {\n  return %arg0 : tensor<f32>",
        "func.func private @impl(%arg0: tensor<i32>) -> tensor<i32> {\n  return %arg0 : tensor<i32>",
    )
    assert (
        "operand at index 0 has type 'tensor<f32>', but decomposition has type 'tensor<i32>'"
        in verify_error(wrong)
    )
    extra = COMPOSITE.replace(
        "func.func private @impl(%arg0: tensor<f32>) -> tensor<f32> {",
        "func.func private @impl(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {",
    )
    assert "has 1 operand(s), but decomposition has 2" in verify_error(extra)


def test_if_pred_type() -> None:
    bad = IF_CASE.replace('"stablehlo.if"(%pred)', '"stablehlo.if"(%index)').replace(
        "}) : (tensor<i1>) -> tensor<2xi64>", "}) : (tensor<i32>) -> tensor<2xi64>"
    )
    assert "operand #0 must be ranked tensor of bool values, but got 'tensor<i32>'" in (
        verify_error(bad)
    )


def test_while_whose_region_types_differ_from_its_operands_prints_generically() -> None:
    # the pretty form states only the operand types (upstream loses the others, its issue #871)
    text = """func.func @f(%arg0: tensor<4xf32>) -> tensor<?xf32> {
  %0 = "stablehlo.while"(%arg0) ({
  ^bb0(%arg1: tensor<?xf32>):
    %1 = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }, {
  ^bb0(%arg1: tensor<?xf32>):
    stablehlo.return %arg1 : tensor<?xf32>
  }) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    module = parse(text)
    verify(module)
    printed = print_ir(module)
    assert '"stablehlo.while"(%arg0)' in printed
    assert ": (tensor<4xf32>) -> tensor<?xf32>" in printed
    assert print_ir(parse(printed)) == printed
