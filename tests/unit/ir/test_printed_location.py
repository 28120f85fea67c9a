"""Locations are kept as written and printed in MLIR's canonical form (`printed_location`)."""

from __future__ import annotations

import pytest

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.location_print import printed_location


@pytest.mark.parametrize(
    "written,printed",
    [
        ('"f":8', '"f":8:0'),
        ('"f":8:0', '"f":8:0'),
        ('"f":8:2 to :2', '"f":8:2'),
        ('"f":8:2 to 8:2', '"f":8:2'),
        ('"f":8:2 to 8:7', '"f":8:2 to :7'),
        ('"f":8:2 to 9:7', '"f":8:2 to 9:7'),
        ('"n"("f":3)', '"n"("f":3:0)'),
        ('callsite("a":1 at "b":2:2 to :2)', 'callsite("a":1:0 at "b":2:2)'),
        ('fused<"m">["a":1, "b":2:0 to 2:0]', 'fused<"m">["a":1:0, "b":2:0]'),
        ('"a:1"', '"a:1"'),
        ('"x\\"y"', '"x\\22y"'),
        ("unknown", "unknown"),
    ],
)
def test_printed_location(written: str, printed: str) -> None:
    assert printed_location(written) == printed


def test_kept_as_written_printed_canonical() -> None:
    module = parse('func.func @f() {\n  return loc("f":8)\n} loc("g":1:2 to :2)\n')
    text = print_ir(module, debuginfo=True)
    assert 'return loc("f":8:0)' in text and '} loc("g":1:2)' in text
    assert print_ir(parse(text), debuginfo=True) == text
