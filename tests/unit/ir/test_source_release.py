"""A parsed module does not keep a large text alive: its ops' locations come from the line starts."""

from __future__ import annotations

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.parser import _RELEASE_TEXT_ABOVE, op_source_location


def _program(n: int) -> str:
    body = "\n".join(f"  %v{i} = stablehlo.add %arg0, %arg0 : tensor<4xf32>" for i in range(n))
    return (
        "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
        + body
        + "\n  return %arg0 : tensor<4xf32>\n}\n"
    )


def test_large_text_is_released_and_locations_stay() -> None:
    n = _RELEASE_TEXT_ABOVE // 50 + 10
    text = _program(n)
    assert len(text) > _RELEASE_TEXT_ABOVE
    module = parse(text, "big.mlir")
    ops = list(list(module.body.ops)[0].body.block.ops)
    assert ops[0]._src[0].text is None  # type: ignore[attr-defined]
    assert op_source_location(ops[0]) == "big.mlir:2:9"
    col = len(f"  %v{n - 1} = ") + 1  # the op name's column on the last line
    assert op_source_location(ops[n - 1]) == f"big.mlir:{n + 1}:{col}"
    assert (
        print_ir(module, debuginfo=True).splitlines()[n + 1].endswith(f'loc("big.mlir":{n + 1}:{col})')
    )


def test_small_text_is_kept() -> None:
    module = parse(_program(3), "small.mlir")
    op = list(list(module.body.ops)[0].body.block.ops)[0]
    assert op._src[0].text is not None  # type: ignore[attr-defined]
    assert op_source_location(op) == "small.mlir:2:9"
