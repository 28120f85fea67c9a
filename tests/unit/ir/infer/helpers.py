"""What the inference tests share: the first op of a name in a parsed program, its inferred types
as text, and the InferError message of its rule."""

from __future__ import annotations

import pytest

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op
from stablehlo_py.ir.text.printer import type_to_str


def first_op(text: str, name: str):  # type: ignore[no-untyped-def]
    for op in parse(text).walk():
        if op.name == name:
            return op
    raise AssertionError(f"no {name}")


def inferred(text: str, name: str) -> list[str]:
    return [type_to_str(t) for t in infer_op(first_op(text, name))]


def infer_error(text: str, name: str) -> str:
    with pytest.raises(InferError) as e:
        infer_op(first_op(text, name))
    return e.value.message


def ty(text: str):  # type: ignore[no-untyped-def]
    """A type from its MLIR text (the argument type of a parsed function)."""
    m = parse(f"func.func @f(%a: {text}) {{\n  return\n}}")
    for op in m.walk():
        if op.name == "func.func":
            return op.regions[0].blocks.first.args[0].type
    raise AssertionError(text)
