"""Operands written with their positions and checked against the written types, as MLIR's
OpAsmParser resolves them (`use of value '%a' expects different type than prior uses: ...` at the
operand), and the `%a, %b [<word><flags>] {attrs} : T` form of MLIR's binary ops with flags
(`arith.addf ... fastmath<fast>`, `llvm.add ... overflow<nsw>`).  Shared by the foreign-dialect
op modules (cf, func_indirect, arith, llvm)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

_VALUE_NAME = re.compile(r"%[A-Za-z0-9_$.\-]+(?:#[0-9]+)?")


def parse_operand_at(p: Parser) -> tuple[SSAValue, int]:
    """`%a`: the value and where it is written."""
    p.ws()
    pos = p.pos
    return p.parse_operand(), pos


def parse_operands_with_positions(p: Parser) -> tuple[list[SSAValue], list[int]]:
    """`%a, %b#1` -> the values and where each is written."""
    operands: list[SSAValue] = []
    positions: list[int] = []

    def one() -> None:
        v, pos = parse_operand_at(p)
        positions.append(pos)
        operands.append(v)

    p.parse_comma_list(one)
    return operands, positions


def check_operand_types(
    p: Parser, operands: Sequence[SSAValue], positions: Sequence[int], types: Sequence[Attribute]
) -> None:
    """The written types of `operands` are their types (MLIR's resolveOperands wording)."""
    from stablehlo_py.ir.text.printer import type_to_str

    if len(operands) != len(types):
        p.error(
            f"{len(operands)} operands present, but expected {len(types)}",
            positions[0] if positions else None,
        )
    for v, pos, t in zip(operands, positions, types):
        if v.type != t:
            m = _VALUE_NAME.match(p.text, pos)
            name = m.group(0) if m else "%?"
            p.error(
                f"use of value '{name}' expects different type than prior uses: "
                f"'{type_to_str(t)}' vs '{type_to_str(v.type)}'",
                pos,
            )


def parse_flagged_binary(
    p: Parser, word: str, prop: str, parse_flags: Callable[[Parser], Attribute]
) -> tuple[list[SSAValue], list[int], dict[str, Attribute], dict[str, Attribute]]:
    """`%a, %b [<word><flags>] {attrs}` up to the `:`: the two operands, where each is written, the
    properties (`prop`: the flags when written) and the attribute dictionary."""
    lhs, lpos = parse_operand_at(p)
    p.parse_literal(",")
    rhs, rpos = parse_operand_at(p)
    props: dict[str, Attribute] = {}
    if p.try_keyword(word):
        props[prop] = parse_flags(p)
    return [lhs, rhs], [lpos, rpos], props, p.try_attr_dict()


def print_flagged_binary(pr: Printer, op: Operation, flags: str | None) -> None:
    """`%a, %b [flags] {attrs} : T`; `flags` (e.g. `overflow<nsw>`) is None when not printed."""
    pr.operands(op.operands)
    if flags:
        pr.write(" " + flags)
    pr.attr_dict(dict(op.attributes))
    pr.write(" : ")
    pr.type(op.results[0].type)


def parse_entry_arg(p: Parser) -> tuple[str, Attribute, object]:
    """`%a: T` or `%a: T loc(...)`: a region's entry argument as an op's syntax writes it (its
    name, type and location, or None)."""
    name = p.parse_value_def_name()
    p.parse_literal(":")
    t = p.parse_type()
    return name, t, p.try_location()


def parse_entry_args(p: Parser) -> list[tuple[str, Attribute, object]]:
    """`(%a: T, %b: U loc(...))`: the entry arguments of the region that follows."""
    return p.parse_delimited("(", lambda: parse_entry_arg(p), ")")
