"""Result-type inference of the control flow ops (issue 11): if, case, while, optimization_barrier,
after_all, create_token -- static, dynamic and bounded cases, upstream's errors, and a differential
check against every such op of the conformance programs and infer_stablehlo.mlir."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerType

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_result_types
from stablehlo_py.ir.infer.shapes import ranked
from stablehlo_py.ir.types import TokenType
from tests.conftest import CONFORMANCE
from tests.unit.ir.infer.cases import Case, case, cases_test, check
from tests.unit.ir.infer.helpers import (
    agrees_with_declared,
    infer_check_chunks,
    infer_error,
    inferred,
)

OPS = (
    "stablehlo.if",
    "stablehlo.case",
    "stablehlo.while",
    "stablehlo.optimization_barrier",
    "stablehlo.after_all",
    "stablehlo.create_token",
)


def if_program(t_true: str, t_false: str, pred: str = "tensor<i1>", res: str | None = None) -> str:
    res = res or t_true
    return f"""func.func @f(%p: {pred}, %a: {t_true}, %b: {t_false}) {{
  %0 = "stablehlo.if"(%p) ({{
    "stablehlo.return"(%a) : ({t_true}) -> ()
  }}, {{
    "stablehlo.return"(%b) : ({t_false}) -> ()
  }}) : ({pred}) -> {res}
  return
}}
"""


# ----------------------------------------------------------------------------------- if / case
def test_if_static() -> None:
    assert inferred(if_program("tensor<2xf32>", "tensor<2xf32>"), "stablehlo.if") == [
        "tensor<2xf32>"
    ]


def test_if_dynamic_least_specific() -> None:
    text = if_program("tensor<2x?xf32>", "tensor<?x3xf32>", res="tensor<?x?xf32>")
    assert inferred(text, "stablehlo.if") == ["tensor<?x?xf32>"]


def test_if_bounds_as_upstream() -> None:
    # infer_stablehlo.mlir @if_bounds
    t = "tensor<2x3x4x?x?x?xf32, #stablehlo.bounds<?, ?, ?, ?, ?, 6>>"
    f = "tensor<2x?x?x?x?x?xf32, #stablehlo.bounds<?, ?, 4, ?, 5, 7>>"
    text = if_program(t, f, res="tensor<?x?x?x?x?x?xf32>")
    assert inferred(text, "stablehlo.if") == [
        "tensor<2x?x?x?x?x?xf32, #stablehlo.bounds<?, ?, 4, ?, ?, 7>>"
    ]


def test_if_unranked_branch() -> None:
    text = if_program("tensor<2xf32>", "tensor<*xf32>", res="tensor<*xf32>")
    assert inferred(text, "stablehlo.if") == ["tensor<*xf32>"]


def test_if_errors() -> None:
    msg = infer_error(if_program("tensor<2xf32>", "tensor<3xf32>"), "stablehlo.if")
    assert (
        msg
        == "branch 0 and branch 1 have mismatched return types: 'tensor<2xf32>' vs 'tensor<3xf32>'"
    )
    msg = infer_error(
        if_program("tensor<2xf32>", "tensor<2xf32>", pred="tensor<1xi1>"), "stablehlo.if"
    )
    assert msg == "operand should be rank 0 tensor but got rank 1"


def test_case_bounds_and_errors() -> None:
    text = """func.func @f(%i: tensor<i32>, %a: tensor<2xf32, #stablehlo.bounds<?>>, %b: tensor<?xf32, #stablehlo.bounds<3>>) {
  %0 = "stablehlo.case"(%i) ({
    "stablehlo.return"(%a) : (tensor<2xf32, #stablehlo.bounds<?>>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<?xf32, #stablehlo.bounds<3>>) -> ()
  }) : (tensor<i32>) -> tensor<?xf32>
  return
}
"""
    assert inferred(text, "stablehlo.case") == ["tensor<?xf32, #stablehlo.bounds<3>>"]
    with pytest.raises(InferError, match="expect at least one branch"):
        infer_result_types("stablehlo.case", [ranked((), IntegerType(32))], {}, ())
    args = """func.func @f(%i: tensor<i32>, %a: tensor<f32>) {
  %0 = "stablehlo.case"(%i) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) : (tensor<i32>) -> tensor<f32>
  return
}
"""
    assert infer_error(args, "stablehlo.case") == "branch 0 must have 0 arguments, but found 1"


def test_if_verifier_uses_the_rule() -> None:
    from stablehlo_py.errors import VerifyError
    from stablehlo_py.ir.verify import verify

    text = if_program("tensor<2xf32>", "tensor<2xf32>", res="tensor<3xf32>")
    with pytest.raises(VerifyError, match=r"inferred type\(s\) 'tensor<2xf32>' are incompatible"):
        verify(parse(text))
    ok = if_program("tensor<2xf32>", "tensor<?xf32>", res="tensor<?xf32>")
    verify(parse(ok))


# -------------------------------------------------------------- while / barrier / token ops
WHILE = """func.func @f(%a: tensor<2x?xi32, #stablehlo.bounds<?, 4>>, %b: tensor<3xf32>) {
  %0:2 = "stablehlo.while"(%a, %b) ({
  ^bb0(%x: tensor<2x?xi32, #stablehlo.bounds<?, 4>>, %y: tensor<3xf32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<2x?xi32, #stablehlo.bounds<?, 4>>, %y: tensor<3xf32>):
    "stablehlo.return"(%x, %y) : (tensor<2x?xi32, #stablehlo.bounds<?, 4>>, tensor<3xf32>) -> ()
  }) : (tensor<2x?xi32, #stablehlo.bounds<?, 4>>, tensor<3xf32>) -> (tensor<?x?xi32>, tensor<?xf32>)
  return
}
"""


def test_while_operand_types() -> None:
    assert inferred(WHILE, "stablehlo.while") == [
        "tensor<2x?xi32, #stablehlo.bounds<?, 4>>",
        "tensor<3xf32>",
    ]


@pytest.mark.parametrize(
    "types",
    [["tensor<f32>", "tensor<2xi8>"], ["tensor<?x3xf32>"], ["tensor<?xf32, #stablehlo.bounds<4>>"]],
)
def test_optimization_barrier(types: list[str]) -> None:
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    ops = ", ".join(f"%a{i}" for i in range(len(types)))
    sig = ", ".join(types)
    text = f"""func.func @f({args}) {{
  %0:{len(types)} = "stablehlo.optimization_barrier"({ops}) : ({sig}) -> ({sig})
  return
}}
"""
    assert inferred(text, "stablehlo.optimization_barrier") == types


def test_token_ops() -> None:
    assert infer_result_types("stablehlo.after_all", []) == [TokenType()]
    assert infer_result_types("stablehlo.after_all", [TokenType(), TokenType()]) == [TokenType()]
    assert infer_result_types("stablehlo.create_token", []) == [TokenType()]


# --------------------------------------------------------------------------- differential
def _declared_vs_inferred(text: str) -> int:
    n = 0
    for op in parse(text).walk():
        if op.name not in OPS:
            continue
        agrees_with_declared(op)
        n += 1
    return n


@pytest.mark.skipif(not (CONFORMANCE / "testdata").is_dir(), reason="no conformance data")
def test_conformance_programs_agree() -> None:
    pat = re.compile("|".join(re.escape(o) for o in OPS))
    n = 0
    for path in sorted((CONFORMANCE / "testdata").glob("*.mlir")):
        text = path.read_text()
        if pat.search(text):
            n += _declared_vs_inferred(text)
    assert n > 0


@pytest.mark.skipif(not (CONFORMANCE / "infer").is_dir(), reason="no conformance data")
def test_infer_stablehlo_check_lines() -> None:
    """infer_stablehlo.mlir's `types0 = ...` CHECK lines for the control flow ops."""
    text = Path(CONFORMANCE / "infer" / "infer_stablehlo.mlir").read_text()
    n = 0
    for name, prog, want in infer_check_chunks(
        text, r'"(stablehlo\.(?:if|case|while|optimization_barrier))"'
    ):
        try:
            got = inferred(prog, name)
        except ParseError:  # the chunk uses the test op's results further on
            continue
        first = want.split(", types1 = ")[0].strip()
        assert got[0] == first, (name, got, first)
        n += 1
    assert n >= 3


# ------------------------------------------------------------------------------ coverage cases
def _two_branches(op: str, selector: str, a: str, b: str, want: str) -> Case:
    """``op`` (stablehlo.if or stablehlo.case) on ``selector`` (``%name: type``) whose branches
    return %a and %b."""
    name, t = selector.split(": ")
    line = f"""%0 = "{op}"({name}) ({{
    "stablehlo.return"(%a) : ({a}) -> ()
  }}, {{
    "stablehlo.return"(%b) : ({b}) -> ()
  }}) : ({t}) -> {want}"""
    return case(op, f"{selector}, %a: {a}, %b: {b}", line, want)


def _if(a: str, b: str, want: str) -> Case:
    return _two_branches("stablehlo.if", "%p: tensor<i1>", a, b, want)


def _case(a: str, b: str, want: str) -> Case:
    return _two_branches("stablehlo.case", "%i: tensor<i32>", a, b, want)


def _while(t: str) -> Case:
    line = f"""%0 = "stablehlo.while"(%a) ({{
  ^bb0(%x: {t}):
    %c = stablehlo.constant dense<true> : tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }}, {{
  ^bb0(%x: {t}):
    "stablehlo.return"(%x) : ({t}) -> ()
  }}) : ({t}) -> {t}"""
    return case("stablehlo.while", f"%a: {t}", line, t)


def _barrier(t: str) -> Case:
    line = f'%0:2 = "stablehlo.optimization_barrier"(%a, %b) : ({t}, tensor<i32>) -> ({t}, tensor<i32>)'
    return case(
        "stablehlo.optimization_barrier", f"%a: {t}, %b: tensor<i32>", line, t, "tensor<i32>"
    )


T_S, T_D, T_B = "tensor<2x3xf32>", "tensor<?x3xf32>", "tensor<?x3xf32, #stablehlo.bounds<5, ?>>"
CASES = [
    # if/case: the least specific type of the branches' results
    _if(T_S, T_S, T_S),
    _if(T_S, T_D, T_D),
    _if(T_B, "tensor<4x3xf32>", T_B),
    _case(T_S, T_S, T_S),
    _case(T_D, T_S, T_D),
    # two bounds: the larger one
    _case(
        T_B,
        "tensor<?x3xf32, #stablehlo.bounds<7, ?>>",
        "tensor<?x3xf32, #stablehlo.bounds<7, ?>>",
    ),
    _while(T_S),
    _while(T_D),
    _while(T_B),
    _barrier(T_S),
    _barrier(T_D),
    _barrier(T_B),
    # tokens only (test_coverage exempts them from the three kinds)
    case(
        "stablehlo.create_token",
        "",
        '%0 = "stablehlo.create_token"() : () -> !stablehlo.token',
        "!stablehlo.token",
    ),
    case(
        "stablehlo.after_all",
        "%t: !stablehlo.token",
        '%0 = "stablehlo.after_all"(%t, %t) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token',
        "!stablehlo.token",
    ),
]


test_cases = cases_test(CASES)
