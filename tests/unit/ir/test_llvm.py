"""The LLVM dialect ops upstream's tests use (`llvm.add`): MLIR's syntax and verifier."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse, print_ir
from tests.unit.ir.test_control_flow import roundtrip, verify_error


def _func(body: str, t: str = "i32") -> str:
    return f"func.func @f(%arg0: {t}, %arg1: {t}) -> {t} {{\n{body}\n}}\n"


@pytest.mark.parametrize(
    "line,generic",
    [
        ("%0 = llvm.add %arg0, %arg1 : i32", "#llvm.overflow<none>"),
        ("%0 = llvm.add %arg0, %arg1 overflow<nsw> : i32", "#llvm.overflow<nsw>"),
        ("%0 = llvm.add %arg0, %arg1 overflow<nsw, nuw> : i32", "#llvm.overflow<nsw, nuw>"),
    ],
)
def test_add_syntax(line: str, generic: str) -> None:
    text = _func(f"  {line}\n  return %0 : i32")
    out = roundtrip(text)
    assert f"    {line}\n" in out
    g = print_ir(parse(text), generic=True)
    assert f'"llvm.add"(%arg0, %arg1) <{{overflowFlags = {generic}}}> : (i32, i32) -> i32' in g


def test_add_flags_in_any_order_print_in_mlir_order() -> None:
    text = _func("  %0 = llvm.add %arg0, %arg1 overflow<nuw, nsw> : i32\n  return %0 : i32")
    assert "overflow<nsw, nuw>" in print_ir(parse(text))


@pytest.mark.parametrize(
    "body,t,error",
    [
        (
            '  %0 = "llvm.add"(%arg0, %arg1) : (f32, f32) -> f32\n  return %0 : f32',
            "f32",
            (
                "'llvm.add' op operand #0 must be signless integer or LLVM dialect-compatible "
                "vector of signless integer, but got 'f32'"
            ),
        ),
        (
            '  %0 = "llvm.add"(%arg0, %arg1) : (ui32, ui32) -> ui32\n  return %0 : ui32',
            "ui32",
            "operand #0 must be signless integer",
        ),
        (
            '  %0 = "llvm.add"(%arg0, %arg1) : (i32, i32) -> i64\n  return %arg0 : i32',
            "i32",
            "failed to verify that all of {lhs, rhs, res} have same type",
        ),
    ],
)
def test_add_verifier(body: str, t: str, error: str) -> None:
    assert error in verify_error(_func(body, t))


@pytest.mark.parametrize(
    "line,error",
    [
        (
            "%0 = llvm.add %arg0, %arg1 : i64",
            "use of value '%arg0' expects different type than prior uses: 'i64' vs 'i32'",
        ),
        (
            "%0 = llvm.add %arg0, %arg1 overflow<wrap> : i32",
            "expected one of [none, nsw, nuw] for integer overflow flags",
        ),
    ],
)
def test_add_parse_errors(line: str, error: str) -> None:
    with pytest.raises(ParseError, match=r"t\.mlir:2:\d+: error: .*" + re.escape(error)):
        parse(_func(f"  {line}\n  return %0 : i32"), "t.mlir")
