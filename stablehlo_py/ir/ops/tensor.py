"""`tensor.cast` (xDSL's op), used by upstream's tests to erase static shapes:
`%1 = tensor.cast %0 : tensor<4xi32> to tensor<?xi32>`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.tensor import CastOp
from xdsl.ir import Operation

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.xdsl_compat.class_attrs import give_result_names

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def cast_syntax(cls: type[Operation], separator: str, mismatch: str) -> ForeignSyntax:
    """MLIR's syntax of a one-operand cast-like op, `%r = name %x {attrs} : T <separator> R`
    (`tensor.cast ... to`, `shape.shape_of ... ->`); ``mismatch``: the error when `T` is not the
    operand's type."""

    def parse(p: Parser) -> Operation:
        source = p.parse_operand()
        attrs = p.try_attr_dict()
        written, pos = p.parse_written_type()
        if written != source.type:
            p.error(mismatch, pos)
        if separator.isalpha():
            p.parse_keyword(separator)
        else:
            p.parse_literal(separator)
        result = p.parse_type()
        return cls.create(operands=[source], result_types=[result], attributes=attrs)

    def print_(op: Operation, pr: Printer) -> None:
        pr.write(pr.op_name(op.name) + " ")
        pr.operand(op.operands[0])
        pr.attr_dict(dict(op.attributes))
        pr.write(" : ")
        pr.type(op.operands[0].type)
        pr.write(f" {separator} ")
        pr.type(op.results[0].type)

    return ForeignSyntax(parse, print_)


give_result_names(CastOp, "cast")
FOREIGN_SYNTAX[CastOp] = cast_syntax(
    CastOp, "to", "tensor.cast: the source type does not match the operand's type"
)
OPS = (CastOp,)
