"""What the inference tests share: the first op of a name in a parsed program, its inferred types
as text, and the InferError message of its rule; the verifier's verdict on one op line; the
`types0 = ...` CHECK chunks of upstream's infer_stablehlo.mlir."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

import pytest
from xdsl.dialects.builtin import TensorType
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import InferError, infer_op
from stablehlo_py.ir.infer.shapes import types_compatible
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.verify import verify


def first_op(  # type: ignore[no-untyped-def]
    text: str, name: str, allow_unregistered: bool = False
):
    for op in parse(text, allow_unregistered=allow_unregistered).walk():
        if op.name == name:
            return op
    raise AssertionError(f"no {name}")


def inferred(text: str, name: str, allow_unregistered: bool = False) -> list[str]:
    return [type_to_str(t) for t in infer_op(first_op(text, name, allow_unregistered))]


def infer_error(text: str, name: str, allow_unregistered: bool = False) -> str:
    with pytest.raises(InferError) as e:
        infer_op(first_op(text, name, allow_unregistered))
    return e.value.message


# the same three for programs that may hold unregistered ops (upstream's test ops)
first_op_any = functools.partial(first_op, allow_unregistered=True)
inferred_any = functools.partial(inferred, allow_unregistered=True)
infer_error_any = functools.partial(infer_error, allow_unregistered=True)


def op_verify_message(text: str, name: str, error: type[Exception] = VerifyException) -> str:
    """The message of the first op `name`'s own verifier (``op.verify()``, raising `error`), in a
    program that may hold unregistered ops."""
    with pytest.raises(error) as e:
        first_op_any(text, name).verify()
    return str(e.value)


def agrees_with_declared(op) -> None:  # type: ignore[no-untyped-def]
    """The op's inferred types are compatible with its declared result types, and equal to each
    static tensor one."""
    got = infer_op(op)
    declared = [r.type for r in op.results]
    assert types_compatible(got, declared), (op.name, got, declared)
    for g, d in zip(got, declared):
        if isinstance(d, TensorType) and all(s >= 0 for s in d.get_shape()):
            assert g == d, (op.name, g, d)


def line_verify_error(args: str, line: str) -> str:
    """The verifier's message for a function of arguments ``args`` around the op ``line``."""
    m = parse(f"func.func @f({args}) {{\n  {line}\n  return\n}}")
    with pytest.raises(VerifyError) as e:
        verify(m)
    return str(e.value)


def line_verifies(args: str, line: str) -> None:
    verify(parse(f"func.func @f({args}) {{\n  {line}\n  return\n}}"))


def infer_check_chunks(text: str, op_pattern: str) -> Iterator[tuple[str, str, str]]:
    """The chunks of infer_stablehlo.mlir (``text``) that probe an op matching ``op_pattern`` (its
    name in group 1) with a ``// CHECK: types0 = ...`` line: (op name, the chunk as a program
    without the probe, the CHECK line's text after ``types0 = ``)."""
    for chunk in text.split("// -----"):
        m = re.search(op_pattern, chunk)
        want = re.search(r"// CHECK: types0 = (.*)", chunk)
        if not m or not want or "hlo_test_infer" not in chunk:
            continue
        prog = re.sub(r".*hlo_test_infer.*\n", "", chunk)
        prog = re.sub(r"func\.return %1.*\n", "func.return\n", prog)
        prog = re.sub(r"\)\s*->[^{]*\{", ") {", prog, count=1)
        yield m.group(1), prog, want.group(1)


def ty(text: str):  # type: ignore[no-untyped-def]
    """A type from its MLIR text (the argument type of a parsed function)."""
    m = parse(f"func.func @f(%a: {text}) {{\n  return\n}}")
    for op in m.walk():
        if op.name == "func.func":
            return op.regions[0].blocks.first.args[0].type
    raise AssertionError(text)
