"""``string_literal`` (stablehlo_py/ir/text/name_stack.py): its no-escape shortcut and its escape
decoding give what MLIR's lexer reads."""

from __future__ import annotations

import pytest

from stablehlo_py.ir.text.name_stack import string_literal


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ('"jit(f)/blk/sin"(#loc3)', (16, "jit(f)/blk/sin")),
        ('""', (2, "")),
        ('"x":1:2', (3, "x")),
        ('"a\\"b"(x)', (6, 'a"b')),  # an escaped quote does not close the literal
        ('"a\\\\"', (5, "a\\")),
        ('"tab\\there"', (11, "tab\there")),
        ('"\\41\\42"', (8, "AB")),
        ('"caf\\C3\\A9"', (11, "café")),
        ('"p\\"q" "r"', (6, 'p"q')),
        ('"unclosed', (None, "")),
        ('"ends with escape\\"', (None, "")),
    ],
)
def test_string_literal(text: str, want: tuple[int | None, str]) -> None:
    assert string_literal(text) == want
