"""`builtin.unrealized_conversion_cast` (xDSL's op) in MLIR's syntax,
`%0 = builtin.unrealized_conversion_cast %a : A to B`.  The legalization passes insert it around
ops of other dialects when ``allow-other-dialects`` is set, and shape legalization around index
values; it is builtin, so it is known whether or not VHLO is loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def _parse_cast(p: Parser) -> Operation:
    operands: list[SSAValue] = []
    types: list[Attribute] = []
    if not p.try_keyword("to"):
        operands = p.parse_operand_list()
        p.parse_literal(":")
        types = p.parse_comma_list(p.parse_type)
        p.parse_keyword("to")
    results = p.parse_comma_list(p.parse_type)
    attrs = p.try_attr_dict()
    if len(types) != len(operands):
        p.error("unrealized_conversion_cast lists a different number of operands and types")
    return UnrealizedConversionCastOp.create(
        operands=operands, result_types=results, attributes=attrs
    )


def _print_cast(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name))
    if op.operands:
        pr.write(" ")
        pr.operands(op.operands)
        pr.write(" : ")
        pr.types(v.type for v in op.operands)
    pr.write(" to ")
    pr.types(r.type for r in op.results)
    pr.attr_dict(dict(op.attributes))


FOREIGN_SYNTAX[UnrealizedConversionCastOp] = ForeignSyntax(_parse_cast, _print_cast)

OPS: tuple[type[Operation], ...] = (UnrealizedConversionCastOp,)
