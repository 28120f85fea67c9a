"""Miscellaneous ops: constant, custom_call (spec.md "Miscellaneous ops")."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import result_def, var_operand_def, var_result_def

from stablehlo_py.ir.format import custom_directive, set_slot
from stablehlo_py.ir.op_attrs import OutputOperandAliasAttr
from stablehlo_py.ir.ops.base import (
    ANY_ATTR,
    BOOL_ATTR,
    ELEMENTS_ATTR,
    I1,
    I32,
    I32_ATTR,
    STR_ATTR,
    PureOp,
    StableHLOOp,
    array_of,
    op_def,
    parse_attr_dict_and_typed_value,
    prop,
)
from stablehlo_py.ir.verify.constraints import fail, t2s
from stablehlo_py.ir.verify.ods_traits import upstream
from stablehlo_py.ir.types import element_type

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


@op_def
class ConstantOp(PureOp):
    """Produces an `output` tensor from a constant `value` (spec.md#constant)."""

    name = "stablehlo.constant"
    value = prop(ELEMENTS_ATTR)
    output = result_def()
    INFER_CHECK: ClassVar[str | None] = None  # verify_ runs it, with the op's own compatibility
    FORMAT: ClassVar[str | None] = None

    def verify_(self) -> None:
        # constant_c1: upstream's InferTypeOpInterface check with ConstantOp's own
        # isCompatibleReturnTypes (equal types; a quantized result holds its storage values)
        from stablehlo_py.ir.infer import infer_op
        from stablehlo_py.ir.infer.misc import constant_types_compatible

        (inferred,) = upstream(infer_op, self)
        ot = self.output.type
        if not constant_types_compatible(inferred, ot):
            fail(
                f"inferred type(s) '{t2s(inferred)}' are incompatible with return type(s) of operation '{t2s(ot)}'"
            )

    def asm_result_names(self) -> str:
        return "c" if isinstance(element_type(self.results[0].type), IntegerType) else "cst"

    @classmethod
    def direct_parse(cls) -> Callable[[Parser], Operation | None] | None:
        """The parser's fast path (see `StableHLOOp.direct_parse`): a constant whose value is a
        short dense literal interned already (`Parser.try_interned_dense`), nothing before it."""
        build = cls.plain_builder()

        def direct(p: Parser) -> Operation | None:
            value = p.try_interned_dense()
            if value is None:
                return None
            return build([], [value.type], {"value": value})  # type: ignore[attr-defined]

        return direct

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
    pr.write(
        " : " + function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
    )


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
    called_computations = prop(array_of(SymbolRefAttr), default=ArrayAttr([]))
    operand_layouts = prop(array_of(DenseIntOrFPElementsAttr), optional=True)
    result_layouts = prop(array_of(DenseIntOrFPElementsAttr), optional=True)
    output_operand_aliases = prop(array_of(OutputOperandAliasAttr), default=ArrayAttr([]))
    # OptionalAttr<StableHLO_ArrayOfTilingAttr> (StableHLO 1.18.0): per result, an array of 1-D
    # index tensors
    result_tilings = prop(array_of(ArrayAttr), optional=True)
    results_ = var_result_def()
    FORMAT: ClassVar[str | None] = (
        "custom<CustomCallTarget>($call_target_name) `(` $inputs `)` attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        """upstream's CustomCallOp::verify: layouts, output_operand_aliases, backend_config (its words,
        its order).  Not checked: verifyKnownCustomCalls (CreateBuffer/Pin/Unpin take memref types,
        which stablehlo-py does not support)."""
        _verify_custom_call_layouts(self)
        _verify_output_operand_aliases(self)
        config = self.backend_config
        if config is not None:
            version = self.api_version.value.data  # type: ignore[union-attr]
            name = CUSTOM_CALL_API_VERSIONS.get(version, str(version))
            if version == 4 and not isinstance(config, DictionaryAttr):
                fail(f"backend_config for api_version {name} must be a dictionary attribute.")
            if version != 4 and not isinstance(config, StringAttr):
                fail(f"backend_config for api_version {name} must be a string attribute.")


CUSTOM_CALL_API_VERSIONS = {
    0: "API_VERSION_UNSPECIFIED",
    1: "API_VERSION_ORIGINAL",
    2: "API_VERSION_STATUS_RETURNING",
    3: "API_VERSION_STATUS_RETURNING_UNIFIED",
    4: "API_VERSION_TYPED_FFI",
}
"""upstream's CustomCallApiVersion enum (stringifyCustomCallApiVersion)."""


def _verify_custom_call_layouts(op: CustomCallOp) -> None:
    from stablehlo_py.ir.text.printer import attr_to_str

    ins, outs = op.operand_layouts, op.result_layouts
    if ins is None and outs is None:
        return
    if (ins is None) != (outs is None):
        fail("Layout attributes should be specified for either both operands and results or none.")
    result_types = [r.type for r in op.results]
    if len(result_types) == 1 and isinstance(result_types[0], TupleType):
        result_types = list(result_types[0].types.data)
    for what, types, layouts in (
        ("operand", [v.type for v in op.operands], ins),
        ("result", result_types, outs),
    ):
        layouts = list(layouts.data)  # type: ignore[union-attr]
        if len(types) != len(layouts):
            fail(
                f"Number of {what}s must match the number of {what} layouts, {len(types)} != {len(layouts)}"
            )
        for i, (t, layout) in enumerate(zip(types, layouts, strict=True)):
            values = [int(v) for v in layout.get_values()] if hasattr(layout, "get_values") else []
            if isinstance(t, TupleType):
                fail("Tuple types are not fully supported with layout constraints yet")
            if not isinstance(t, TensorType):
                if values:
                    fail(
                        f"Only tensor types can have non-empty layout: {what} #{i} of type '{t2s(t)}' has "
                        f"layout {attr_to_str(layout)}"
                    )
                continue
            rank = len(t.get_shape())
            if rank != len(values) or sorted(values) != list(range(rank)):
                fail(
                    f"incorrect layout {attr_to_str(layout)} for type '{t2s(t)}', layout must be a "
                    f"permutation of [0, {rank})"
                )


def _verify_output_operand_aliases(op: CustomCallOp) -> None:
    for attr in op.output_operand_aliases.data:  # type: ignore[union-attr]
        alias = attr.alias  # type: ignore[attr-defined]
        index = alias.operand_index
        if index < 0 or index >= len(op.operands):
            fail(
                "expects operandIndex in the output_operand_alias attribute to be in range "
                f"[0, {len(op.operands)}); got: {index}."
            )
        operand_part: Attribute = op.operands[index].type
        for i in alias.operand_tuple_indices:
            if not isinstance(operand_part, TupleType) or not 0 <= i < len(operand_part.types.data):
                fail("operand_tuple_indices in the output_operand_alias attribute out of bounds")
            operand_part = operand_part.types.data[i]
        if len(op.results) > 1:
            output_part: Attribute = TupleType([r.type for r in op.results])
        elif op.results:
            output_part = op.results[0].type
        else:
            output_part = TupleType([])
        for i in alias.output_tuple_indices:
            if not isinstance(output_part, TupleType) or not 0 <= i < len(output_part.types.data):
                fail("output_tuple_indices in the output_operand_alias attribute out of bounds")
            output_part = output_part.types.data[i]
        if operand_part != output_part:
            fail(
                "shapes mismatch in the output_operand_alias attribute: operand part has type "
                f"'{t2s(operand_part)}' and output part has type '{t2s(output_part)}'"
            )


OPS = (ConstantOp, CustomCallOp)
