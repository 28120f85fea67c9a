"""The coverage cases of the inference tests: each family test module lists ``CASES`` (one op,
its program, the result types its rule must give) and runs them with :func:`check`;
``test_coverage`` requires a static, a dynamic and a bounded case of every op with a rule.

A case's kinds are read from its types, never declared: ``static`` when every operand type and
inferred type is ranked and static, ``dynamic`` when one has a `?` dimension, ``bounded`` when one carries
`#stablehlo.bounds` -- so a case cannot claim a kind it does not exercise."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from xdsl.dialects.builtin import TensorType, TupleType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from stablehlo_py.ir import parse
from stablehlo_py.ir.infer import infer_op
from stablehlo_py.ir.ops.collectives import FutureType
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import TypeExtensionsAttr

KINDS = ("static", "dynamic", "bounded")


@dataclass(frozen=True)
class Case:
    """``line`` (one or more lines of a function body) holds an ``op`` whose rule, with the
    function's arguments ``args``, must give the types ``want`` (as text)."""

    op: str
    args: str
    line: str
    want: tuple[str, ...]

    @property
    def program(self) -> str:
        return f"func.func @f({self.args}) {{\n  {self.line}\n  return\n}}\n"

    @property
    def id(self) -> str:
        return f"{self.op}:{'+'.join(sorted(kinds(self))) or 'unranked'}"


def case(op: str, args: str, line: str, *want: str) -> Case:
    return Case(op, args, line, tuple(want))


def op_case(op: str, operands: Sequence[tuple[str, str]], *want: str, attrs: str = "") -> Case:
    """A case of one op in the generic form, ``%0 = "op"(operands) attrs : (their types) -> want``
    (``%0:N = ...`` for N results), in a function whose arguments are the distinct operands
    (``(name, type)`` pairs, in their order)."""
    names = ", ".join(name for name, _ in operands)
    types = ", ".join(t for _, t in operands)
    args = ", ".join(f"{name}: {t}" for name, t in dict(operands).items())
    lhs, results = "%0", want[0]
    if len(want) > 1:
        lhs, results = f"%0:{len(want)}", f"({', '.join(want)})"
    attrs = f" {attrs}" if attrs else ""
    return case(op, args, f'{lhs} = "{op}"({names}){attrs} : ({types}) -> {results}', *want)


def the_op(c: Case) -> Operation:
    for op in parse(c.program).walk():
        if op.name == c.op:
            return op
    raise AssertionError(f"the program of a {c.op} case has no {c.op}:\n{c.program}")


def _leaves(t: Attribute) -> list[Attribute]:
    if isinstance(t, TupleType):
        return [x for e in t.types.data for x in _leaves(e)]
    if isinstance(t, FutureType):
        return [x for e in t.types for x in _leaves(e)]
    return [t]


def type_kinds(types: list[Attribute]) -> set[str]:
    """The kinds a list of types exercises (see the module's docstring)."""
    leaves = [x for t in types for x in _leaves(t)]
    shaped = [t for t in leaves if isinstance(t, (TensorType, UnrankedTensorType))]
    out: set[str] = set()
    if any(isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()) for t in shaped):
        out.add("dynamic")
    if any(
        isinstance(t, TensorType) and isinstance(t.encoding, TypeExtensionsAttr) for t in shaped
    ):
        out.add("bounded")
    if shaped and all(
        isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()) for t in shaped
    ):
        out.add("static")
    return out


def kinds(c: Case) -> set[str]:
    """The kinds of the op's operand types and of the types its rule gives."""
    op = the_op(c)
    return type_kinds([v.type for v in op.operands] + list(infer_op(op)))


def check(c: Case) -> None:
    """The op's rule gives exactly ``want``."""
    got = [type_to_str(t) for t in infer_op(the_op(c))]
    assert got == list(c.want), f"{c.op}: inferred {got}, expected {list(c.want)}\n{c.program}"


def cases_test(cases: list[Case]):  # type: ignore[no-untyped-def]
    """The test that checks each of a family module's ``cases`` (the module's ``test_cases``)."""

    @pytest.mark.parametrize("c", cases, ids=lambda c: c.id)
    def test_cases(c: Case) -> None:
        check(c)

    return test_cases
