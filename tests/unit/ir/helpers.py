"""Shared by the op tests of tests/unit/ir: the round trips every op's syntax goes through."""

from __future__ import annotations

import re

import pytest

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify


def roundtrip(text: str) -> str:
    """Parse, verify, print; the printed text and the generic form both read back identically (the
    generic form prints again as itself)."""
    m = parse(text, "t.mlir")
    verify(m)
    s = print_ir(m)
    assert print_ir(parse(s, "printed.mlir")) == s
    g = print_ir(m, generic=True)
    m2 = parse(g, "generic.mlir")
    verify(m2)
    assert print_ir(m2) == s
    assert print_ir(m2, generic=True) == g
    return s


def func_renamed(args: str, body: str) -> str:
    """A function around `body`; its arguments (`%a: T, %b: U`) are renamed %arg0, %arg1, ... as
    the printer names them."""
    n = iter(range(100))
    args = re.sub(r"%\w+:", lambda _: f"%arg{next(n)}:", args)
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


def roundtrip_line(args: str, line: str) -> str:
    """Parse one op line, check pretty and generic round trips and verification; return its print."""
    m = parse(func_renamed(args, "  " + line))
    verify(m)
    text = print_ir(m)
    assert print_ir(parse(text)) == text
    generic = print_ir(m, generic=True)
    assert print_ir(parse(generic)) == text
    return next(x.strip() for x in text.splitlines() if "stablehlo." in x)


def verify_error(args: str, line: str) -> str:
    """The verifier's message for the op ``line`` in a function of ``args`` (renamed %arg0, ...)."""
    with pytest.raises(VerifyError) as e:
        verify(parse(func_renamed(args, "  " + line)))
    return str(e.value)
