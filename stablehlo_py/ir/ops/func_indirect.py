"""`func.constant` and `func.call_indirect` (MLIR's FuncOps.td), which xDSL 0.74 lacks:

  %f = func.constant @callee : (tensor<f32>) -> tensor<f32>
  %0 = func.call_indirect %f(%arg0) : (tensor<f32>) -> tensor<f32>

(generic: `"func.constant"() <{value = @callee}> : () -> ((tensor<f32>) -> tensor<f32>)`,
`"func.call_indirect"(%f, %arg0) : ((tensor<f32>) -> tensor<f32>, tensor<f32>) -> tensor<f32>`).
The constant is pure; an indirect call has no effect model, so analyses treat it as having unknown
effects (as MLIR's, which cannot see through it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ArrayAttr, FunctionType, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import ConstantLike, Pure, SymbolTable
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.operand_syntax import (
    check_operand_types,
    parse_operand_at,
    parse_operands_with_positions,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


def _t(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


def _parse_function_type(p: Parser, before: str, wrong: str) -> FunctionType:
    """`: (T, ...) -> (R, ...)` after an op's operands; `wrong` (with `{}` for the type read) is the
    error when the type is not a function type."""
    ftype, tpos = p.parse_written_type(before)
    if not isinstance(ftype, FunctionType):
        p.error(wrong.format(_t(ftype)), tpos)
    return ftype


@irdl_op_definition
class FuncConstantOp(IRDLOperation):
    """A function symbol as an SSA value of function type (MLIR's func::ConstantOp)."""

    name = "func.constant"

    value = prop_def(SymbolRefAttr)
    result = result_def(FunctionType)

    traits = traits_def(ConstantLike(), Pure())  # MLIR's: uniqued and hoisted by the greedy driver

    def verify_(self) -> None:
        # SymbolUserOpInterface::verifySymbolUses, in MLIR's words
        if self.value.nested_references.data:
            raise VerifyException(
                f"'{self.value.root_reference.data}' must be a flat symbol reference"
            )
        name = self.value.root_reference.data
        fn = SymbolTable.lookup_symbol(self, self.value)
        if not isinstance(fn, FuncOp):
            raise VerifyException(f"reference to undefined function '{name}'")
        if fn.function_type != self.result.type:
            raise VerifyException("reference to function with mismatched type")

    def asm_result_names(self) -> str:
        return "f"

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        attrs = p.try_attr_dict()
        p.ws()
        pos = p.pos
        ref = p.parse_symbol_ref()
        if ref.nested_references.data:
            p.error("'func.constant' needs a flat symbol reference like @callee", pos)
        ftype = _parse_function_type(
            p,
            "before the function type of 'func.constant'",
            "'func.constant' has a function type like (tensor<f32>) -> (), got {}",
        )
        return cls.create(result_types=[ftype], properties={"value": ref}, attributes=attrs)

    def print_pretty(self, pr: Printer) -> None:
        from stablehlo_py.ir.text.printer import attr_to_str

        pr.write(pr.op_name(self.name))
        pr.attr_dict(dict(self.attributes))
        pr.write(" " + attr_to_str(self.value) + " : " + _t(self.result.type))


@irdl_op_definition
class CallIndirectOp(IRDLOperation):
    """A call of the function value `callee` (MLIR's func::CallIndirectOp)."""

    name = "func.call_indirect"

    callee = operand_def(FunctionType)
    callee_operands = var_operand_def()
    arg_attrs = opt_prop_def(ArrayAttr)
    res_attrs = opt_prop_def(ArrayAttr)
    results_ = var_result_def()

    def verify_(self) -> None:
        # TypesMatchWith<"callee input types match argument types"> and the results' one
        ftype = self.callee.type
        assert isinstance(ftype, FunctionType)
        if tuple(v.type for v in self.callee_operands) != tuple(ftype.inputs.data):
            raise VerifyException("failed to verify that callee input types match argument types")
        if tuple(r.type for r in self.results) != tuple(ftype.outputs.data):
            raise VerifyException("failed to verify that callee result types match result types")

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        callee, callee_pos = parse_operand_at(p)
        p.parse_literal("(", "to open the arguments of 'func.call_indirect'")
        operands, positions = parse_operands_with_positions(p) if p.peek() != ")" else ([], [])
        p.parse_literal(")", "to close the arguments of 'func.call_indirect'")
        attrs = p.try_attr_dict()
        ftype = _parse_function_type(
            p,
            "before the callee type of 'func.call_indirect'",
            "the callee of 'func.call_indirect' has a function type, got {}",
        )
        check_operand_types(p, [callee], [callee_pos], [ftype])
        if len(operands) != len(ftype.inputs.data):
            p.error(
                f"{len(operands)} operands present, but expected {len(ftype.inputs.data)}",
                callee_pos,
            )
        check_operand_types(p, operands, positions, ftype.inputs.data)
        return cls.create(
            operands=[callee, *operands], result_types=list(ftype.outputs.data), attributes=attrs
        )

    def print_pretty(self, pr: Printer) -> None:
        pr.write(pr.op_name(self.name) + " ")
        pr.operand(self.callee)
        pr.write("(")
        pr.operands(self.callee_operands)
        pr.write(")")
        extra = dict(self.attributes)
        extra.update(self.properties)
        pr.attr_dict(dict(sorted(extra.items())))
        pr.write(" : " + _t(self.callee.type))


OPS = (FuncConstantOp, CallIndirectOp)
