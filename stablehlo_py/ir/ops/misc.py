"""Miscellaneous ops: constant, custom_call (spec.md "Miscellaneous ops")."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import result_def, traits_def, var_operand_def, var_result_def
from xdsl.traits import Pure

from stablehlo_py.ir.format import custom_directive, set_slot
from stablehlo_py.ir.ops.base import (
    ANY_ATTR,
    ARRAY_ATTR,
    BOOL_ATTR,
    ELEMENTS_ATTR,
    I1,
    I32,
    I32_ATTR,
    STR_ATTR,
    StableHLOOp,
    op_def,
    parse_attr_dict_and_typed_value,
    prop,
)
from stablehlo_py.ir.ops.constraints import fail, t2s

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


@op_def
class ConstantOp(StableHLOOp):
    """Produces an `output` tensor from a constant `value` (spec.md#constant)."""

    name = "stablehlo.constant"
    value = prop(ELEMENTS_ATTR)
    output = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = None

    def verify_(self) -> None:
        # constant_c1: upstream's InferTypeOpInterface check with ConstantOp's own
        # isCompatibleReturnTypes (equal types; a quantized result holds its storage values)
        from stablehlo_py.ir.infer import InferError, infer_op
        from stablehlo_py.ir.infer.misc import constant_types_compatible

        try:
            (inferred,) = infer_op(self)
        except InferError as e:
            fail(e.message)
        ot = self.output.type
        if not constant_types_compatible(inferred, ot):
            fail(
                f"inferred type(s) '{t2s(inferred)}' are incompatible with return type(s) of operation '{t2s(ot)}'"
            )

    def asm_result_names(self) -> str:
        from xdsl.dialects.builtin import IntegerType

        from stablehlo_py.ir.types import element_type

        return "c" if isinstance(element_type(self.output.type), IntegerType) else "cst"

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        if p.try_literal("("):
            p.parse_literal(")")
            props: dict[str, Attribute] = {}
            if p.try_literal("<"):
                props = p.parse_attr_dict_body()
                p.parse_literal(">")
            attrs = p.try_attr_dict()
            if "value" in attrs:
                props["value"] = attrs.pop("value")
            p.parse_literal(":")
            p.parse_literal("(")
            p.parse_literal(")")
            p.parse_literal("->")
            rt = p.parse_type()
            if "value" not in props:
                p.error("stablehlo.constant needs a 'value' attribute")
            return cls.build_generic([], [rt], props, attrs, [])
        attrs, value, t, _ = parse_attr_dict_and_typed_value(p)
        return cls.build_generic([], [t], {"value": value}, attrs, [])

    def print_custom(self, pr: Printer) -> None:
        value = self.properties["value"]
        if getattr(value, "type", None) != self.output.type:
            _print_generic_tail(self, pr)
            return
        pr.attr_dict(dict(self.attributes))
        pr.write(" ")
        pr.attr(value)


def _print_generic_tail(op: Operation, pr: Printer) -> None:
    """printGenericOp(op, printOpName=false): `(operands) <{props}> {attrs} : type`."""
    from stablehlo_py.ir.text.printer import dict_to_str, function_type_to_str

    pr.write("(")
    pr.operands(op.operands)
    pr.write(")")
    if op.properties:
        pr.write(" <" + dict_to_str(op.properties) + ">")
    if op.attributes:
        pr.write(" " + dict_to_str(op.attributes))
    pr.write(" : " + function_type_to_str([v.type for v in op.operands], [r.type for r in op.results]))


@custom_directive("CustomCallTarget")
class CustomCallTarget:
    """`@target` (printSymbolName of the call_target_name string)."""

    @staticmethod
    def print(pr: Printer, op: Operation, target: StringAttr) -> None:
        from stablehlo_py.ir.text.printer import symbol_text

        pr.write(symbol_text(target.data))

    @staticmethod
    def parse(p: Parser, st, arg) -> None:  # type: ignore[no-untyped-def]
        set_slot(st, arg, StringAttr(p.parse_symbol_name()))


@op_def
class CustomCallOp(StableHLOOp):
    """Encapsulates an implementation-defined operation `call_target_name` (spec.md#custom_call)."""

    name = "stablehlo.custom_call"
    inputs = var_operand_def()
    call_target_name = prop(STR_ATTR)
    has_side_effect = prop(BOOL_ATTR, default=IntegerAttr(0, I1))
    backend_config = prop(ANY_ATTR, optional=True)
    api_version = prop(I32_ATTR, default=IntegerAttr(1, I32))
    called_computations = prop(ARRAY_ATTR, default=ArrayAttr([]))
    operand_layouts = prop(ARRAY_ATTR, optional=True)
    result_layouts = prop(ARRAY_ATTR, optional=True)
    output_operand_aliases = prop(ARRAY_ATTR, default=ArrayAttr([]))
    results_ = var_result_def()
    FORMAT: ClassVar[str | None] = (
        "custom<CustomCallTarget>($call_target_name) `(` $inputs `)` attr-dict `:` functional-type(operands, results)"
    )


OPS = (ConstantOp, CustomCallOp)
