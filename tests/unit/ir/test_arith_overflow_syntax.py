"""arith's integer ops with overflow flags (`arith.addi %a, %b overflow<nsw> : i64`, MLIR's syntax):
printed and parsed back the same, from the pretty and the generic form; a bad flag is a parse error."""

from __future__ import annotations

import pytest

from stablehlo_py.errors import ParseError
from stablehlo_py.ir import parse, print_ir

PRETTY = """func.func @f(%a: i64, %b: i64) -> i64 {
  %0 = arith.addi %a, %b overflow<nsw, nuw> : i64
  %1 = arith.muli %0, %b overflow<nuw> : i64
  %2 = arith.subi %1, %a : i64
  %3 = arith.divsi %2, %b : i64
  return %3 : i64
}
"""


def test_overflow_flags_round_trip() -> None:
    text = print_ir(parse(PRETTY))
    assert "arith.addi %arg0, %arg1 overflow<nsw, nuw> : i64" in text
    assert "overflow<nuw> : i64" in text
    assert "arith.subi %1, %arg0 : i64" in text
    assert print_ir(parse(text)) == text


def test_generic_form_with_flags_prints_parseable_text() -> None:
    generic = (
        "func.func @f(%a: i64, %b: i64) -> i64 {\n"
        '  %0 = "arith.addi"(%a, %b) <{overflowFlags = #arith.overflow<nsw>}> : (i64, i64) -> i64\n'
        "  return %0 : i64\n}\n"
    )
    text = print_ir(parse(generic))
    assert "overflow<nsw>" in text
    assert print_ir(parse(text)) == text


@pytest.mark.parametrize(
    "line",
    [
        "%0 = arith.addi %a, %b overflow<bad> : i64",
        "%0 = arith.divsi %a, %b overflow<nsw> : i64",  # divsi has no overflow flags
    ],
)
def test_bad_flags_are_parse_errors(line: str) -> None:
    with pytest.raises(ParseError):
        parse(f"func.func @f(%a: i64, %b: i64) -> i64 {{\n  {line}\n  return %0 : i64\n}}\n")
