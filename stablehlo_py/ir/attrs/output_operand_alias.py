"""`#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0,
operand_tuple_indices = [1]>`: which operand (part) a custom_call output (part) aliases
(spec.md#custom_call). Every field, in this order (its assembly format)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import DIM_SIZES, INT, DescribedAttr, FixedOrder, field


@dataclass(frozen=True)
class OutputOperandAlias:
    output_tuple_indices: tuple[int, ...] = field(DIM_SIZES, ())
    operand_index: int = field(INT, 0)
    operand_tuple_indices: tuple[int, ...] = field(DIM_SIZES, ())


@irdl_attr_definition
class OutputOperandAliasAttr(DescribedAttr):
    """Which operand (part) a custom_call output (part) aliases (spec.md#custom_call)."""

    name = "stablehlo.output_operand_alias"
    STRUCT = OutputOperandAlias
    SYNTAX = FixedOrder()
    BYTECODE = 14

    @property
    def alias(self) -> OutputOperandAlias:
        return self.data
