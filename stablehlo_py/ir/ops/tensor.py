"""`tensor.cast` (xDSL's op), used by upstream's tests to erase static shapes:
`%1 = tensor.cast %0 : tensor<4xi32> to tensor<?xi32>`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.tensor import CastOp
from xdsl.ir import Operation

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def parse_cast(p: Parser) -> Operation:
    source = p.parse_operand()
    attrs = p.try_attr_dict()
    p.parse_literal(":")
    p.ws()
    pos = p.pos
    src_t = p.parse_type()
    if src_t != source.type:
        p.error("tensor.cast: the source type does not match the operand's type", pos)
    p.parse_keyword("to")
    dst_t = p.parse_type()
    return CastOp.create(operands=[source], result_types=[dst_t], attributes=attrs)


def print_cast(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name) + " ")
    pr.operand(op.operands[0])
    pr.attr_dict(dict(op.attributes))
    pr.write(" : ")
    pr.type(op.operands[0].type)
    pr.write(" to ")
    pr.type(op.results[0].type)


CastOp.asm_result_names = lambda self: "cast"  # type: ignore[attr-defined]
FOREIGN_SYNTAX[CastOp] = ForeignSyntax(parse_cast, print_cast)
OPS = (CastOp,)
