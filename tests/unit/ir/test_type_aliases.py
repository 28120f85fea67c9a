"""Type and attribute aliases inside a tensor type mean what the file defining them says: a type
is interned by its text only where the text names no alias (two files may define `!t` otherwise)."""

from __future__ import annotations

import pytest

from stablehlo_py.ir import parse

PROGRAM = """!t = {elem}
func.func @main(%arg0: tensor<4x!t>) -> tensor<4x!t> {{
  return %arg0 : tensor<4x!t>
}}
"""

ENCODED = """#enc = #stablehlo.bounds<{bound}>
func.func @main(%arg0: tensor<?xf32, #enc>) -> tensor<?xf32, #enc> {{
  return %arg0 : tensor<?xf32, #enc>
}}
"""


@pytest.mark.parametrize("first, second", [("f32", "i32"), ("i8", "bf16")])
def test_one_alias_name_two_files(first: str, second: str) -> None:
    for elem in (first, second, first):
        text = str(parse(PROGRAM.format(elem=elem)))
        assert f"tensor<4x{elem}>" in text


def test_one_encoding_alias_two_files() -> None:
    for bound in (8, 16, 8):
        text = str(parse(ENCODED.format(bound=bound)))
        assert f"#stablehlo.bounds<{bound}>" in text


def test_dialect_types_are_still_interned() -> None:
    quant = "!quant.uniform<i8:f32, 0.5:3>"
    prog = f"func.func @main(%arg0: tensor<2x{quant}>) -> tensor<2x{quant}> {{\n  return %arg0 : tensor<2x{quant}>\n}}\n"
    a, b = parse(prog), parse(prog)
    ta = next(iter(a.walk())).regions[0].blocks[0].ops.first.function_type.inputs.data[0]
    tb = next(iter(b.walk())).regions[0].blocks[0].ops.first.function_type.inputs.data[0]
    assert ta is tb
