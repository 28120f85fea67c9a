"""`arith.constant` (xDSL's op), which upstream's tests use next to StableHLO ops:
`%cst = arith.constant dense<-1> : tensor<i32>`, `%c0_i32 = arith.constant 0 : i32`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation

from stablehlo_py.ir.ops.base import parse_attr_dict_and_typed_value
from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def parse_constant(p: Parser) -> Operation:
    attrs, value, t, _ = parse_attr_dict_and_typed_value(
        p, "arith.constant needs a typed value (e.g. `0 : i32` or `dense<0> : tensor<i32>`)"
    )
    return ConstantOp.create(result_types=[t], properties={"value": value}, attributes=attrs)


def print_constant(op: Operation, pr: Printer) -> None:
    pr.write(pr.op_name(op.name))
    pr.attr_dict(dict(op.attributes))
    pr.write(" ")
    pr.attr(op.properties["value"])


def asm_name(op: Operation) -> str:
    """MLIR's arith.constant result names: %true/%false, %c0 (index), %c42_i32, else %cst."""
    v = op.properties["value"]
    if isinstance(v, IntegerAttr):
        t = v.type
        n = v.value.data
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if n else "false"
        if isinstance(t, IndexType):
            return f"c{n}"
        from stablehlo_py.ir.types import element_type_name

        return f"c{n}_{element_type_name(t)}".replace("-", "m")
    return "cst"


ConstantOp.asm_result_names = asm_name  # type: ignore[attr-defined]
FOREIGN_SYNTAX[ConstantOp] = ForeignSyntax(parse_constant, print_constant)
OPS = (ConstantOp,)
