"""Data-movement and shape ops (spec.md: broadcast_in_dim, concatenate, dynamic_slice,
dynamic_update_slice, gather, get_dimension_size, get_tuple_element, iota, pad, reshape, reverse,
scatter, select, slice, transpose, tuple, clamp, complex) and upstream's dynamic-shape variants
(dynamic_broadcast_in_dim, dynamic_gather, dynamic_iota, dynamic_pad, dynamic_reshape,
real_dynamic_slice, set_dimension_size) and legacy ops (broadcast, torch_index_select).

Syntax is upstream's assembly format (StablehloOps.td) with the custom directives of
AssemblyFormat.cpp; gather, dynamic_gather, scatter and torch_index_select have no pretty form and
print generically, as upstream does (`"stablehlo.scatter"(...) <{...}> ({ ... }) : ...`).

Verifiers check the spec's constraints (ids in comments); dynamic dimensions (`?`) and unranked
tensors are accepted wherever the constraint cannot be decided from the types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    FunctionType,
    IntegerAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    SameVariadicOperandSize,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect

from stablehlo_py.ir.directives import assign_from_function_type
from stablehlo_py.ir.format import custom_directive, set_slot
from stablehlo_py.ir.gather_scatter_attrs import (
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
)
from stablehlo_py.ir.infer.data_movement import (
    constant_ints,
    verify_broadcast_in_dim,
    verify_dynamic_broadcast_in_dim,
    verify_dynamic_iota,
    verify_dynamic_pad,
    verify_dynamic_reshape,
    verify_iota,
    verify_real_dynamic_slice,
    verify_reshape,
    verify_reverse,
    verify_scatter,
    verify_transpose,
)
from stablehlo_py.ir.ops.base import (
    BOOL_ATTR,
    I1,
    I32_ATTR,
    I64_ATTR,
    AttrSyntax,
    NoAssemblyFormatOp,
    PureOp,
    StableHLOOp,
    _dense_i64_array_parse,
    attribute_syntax,
    op_def,
    prop,
)
from stablehlo_py.ir.verify.constraints import (
    fail,
    int_values,
    shapes_compatible,
    t2s,
)
from stablehlo_py.ir.ops.data_movement_types import check_ods_types
from stablehlo_py.ir.verify.ods_traits import (
    all_element_types_match,
    all_ranks_match,
    all_sizes_match,
    all_types_match,
    compatible_element_types,
    confined_attribute,
    same_element_type,
    upstream,
)
from stablehlo_py.ir.types import (
    element_type,
    shape_of,
    tensor_type,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

# `array<i64: ...>` properties (DenseI64ArrayAttr), written `[1, 2]` where a format names them.
I64_ARRAY = AttrSyntax(
    DenseArrayBase.constr(i64), _dense_i64_array_parse, lambda p: p.peek() == "["
)
GATHER_DIMS = attribute_syntax(GatherDimensionNumbersAttr)
SCATTER_DIMS = attribute_syntax(ScatterDimensionNumbersAttr)
FALSE = IntegerAttr(0, I1)


# ------------------------------------------------------------------------- custom directives
@custom_directive("SliceRanges")
class SliceRanges:
    """`[start:limit:stride, ...]`, the stride omitted when it is 1 (print/parseSliceRanges)."""

    @staticmethod
    def print(pr: Printer, op: Any, start: Any, limit: Any, strides: Any) -> None:
        s, l, k = int_values(start), int_values(limit), int_values(strides)
        if not (len(s) == len(l) == len(k)):
            # As upstream: readable, but not parseable, text for invalid IR.
            pr.write(
                f"[start_indices: {', '.join(map(str, s))}, limit_indices: {', '.join(map(str, l))}, "
                f"strides: {', '.join(map(str, k))}]"
            )
            return
        parts = [f"{a}:{b}" + (f":{c}" if c != 1 else "") for a, b, c in zip(s, l, k)]
        pr.write("[" + ", ".join(parts) + "]")

    @staticmethod
    def parse(p: Parser, st: Any, start: Any, limit: Any, strides: Any) -> None:
        p.parse_literal("[")
        s: list[int] = []
        l: list[int] = []
        k: list[int] = []
        if not p.try_literal("]"):
            while True:
                s.append(p.parse_integer())
                p.parse_literal(":")
                l.append(p.parse_integer())
                k.append(p.parse_integer() if p.try_literal(":") else 1)
                if p.try_literal("]"):
                    break
                p.parse_literal(",")
        set_slot(st, start, DenseArrayBase.from_list(i64, s))
        set_slot(st, limit, DenseArrayBase.from_list(i64, l))
        set_slot(st, strides, DenseArrayBase.from_list(i64, k))


@custom_directive("SelectOpType")
class SelectOpType:
    """`pred_type, result_type` when both branches have the result type, else the functional type."""

    @staticmethod
    def print(pr: Printer, op: Any, pred: Any, on_true: Any, on_false: Any, result: Any) -> None:
        from stablehlo_py.ir.text.printer import function_type_to_str

        if on_true != result or on_false != result:
            pr.write(
                function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
            )
            return
        pr.write(f"{t2s(pred)}, {t2s(result)}")

    @staticmethod
    def parse(p: Parser, st: Any, pred: Any, on_true: Any, on_false: Any, result: Any) -> None:
        p.ws()
        pos = p.pos
        first = p.parse_type()
        if isinstance(first, FunctionType):
            if p.peek() == ",":
                p.op_error("expected functional type or list of two types", pos)
            assign_from_function_type(p, st, [pred, on_true, on_false], result, first, pos)
            return
        if not p.try_literal(","):
            p.op_error("expected functional type or list of two types", pos)
        second = p.parse_type()
        if p.peek() == ",":
            p.op_error("expected functional type or list of two types", pos)
        set_slot(st, pred, first)
        for a in (on_true, on_false, result):
            set_slot(st, a, second)


def _real_type(t: Attribute) -> Attribute | None:
    """The tensor type with the complex element type replaced by its component type."""
    e = element_type(t)
    if not isinstance(e, ComplexType):
        return None
    if isinstance(t, TensorType):
        enc = t.encoding
        from xdsl.dialects.builtin import NoneAttr

        return tensor_type(
            e.element_type, t.get_shape(), None if isinstance(enc, NoneAttr) else enc
        )
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(e.element_type)
    return None


@custom_directive("ComplexOpType")
class ComplexOpType:
    """The result type alone when both operands have its real counterpart type, else the
    functional type."""

    @staticmethod
    def print(pr: Printer, op: Any, lhs: Any, rhs: Any, result: Any) -> None:
        from stablehlo_py.ir.text.printer import function_type_to_str

        real = _real_type(result)
        if lhs != real or rhs != real:
            pr.write(
                function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
            )
            return
        pr.write(t2s(result))

    @staticmethod
    def parse(p: Parser, st: Any, lhs: Any, rhs: Any, result: Any) -> None:
        p.ws()
        pos = p.pos
        t = p.parse_type()
        if isinstance(t, FunctionType):
            assign_from_function_type(p, st, [lhs, rhs], result, t, pos)
            return
        real = _real_type(t)
        if real is None:
            p.op_error("expected tensor with complex element type", pos)
        set_slot(st, lhs, real)
        set_slot(st, rhs, real)
        set_slot(st, result, t)


@custom_directive("TupleOpType")
class TupleOpType:
    """The tuple result type; the operand types are its element types."""

    @staticmethod
    def print(pr: Printer, op: Any, operands: Any, result: Any) -> None:
        pr.write(t2s(result))

    @staticmethod
    def parse(p: Parser, st: Any, operands: Any, result: Any) -> None:
        p.ws()
        pos = p.pos
        t = p.parse_type()
        if not isinstance(t, TupleType):
            p.op_error("expected tuple type", pos)
        elems = list(t.types.data)  # their count is checked when the operands are resolved
        set_slot(st, operands, elems)
        set_slot(st, result, t)


# ----------------------------------------------------------------------------------------- ops
def _ods_checks(op: Operation) -> None:
    """MLIR's ODS checks of a data-movement op, in MLIR's order: its attributes confined to
    non-negative values (the class's `CONFINED`), then its operand and result types
    (`check_ods_types`)."""
    for name in type(op).CONFINED:  # type: ignore[attr-defined]
        confined_attribute(op, name)
    check_ods_types(op)


class _DataMovementOp(PureOp):
    """A pure data-movement op whose verification starts with MLIR's ODS checks (`_ods_checks`,
    the driver's `ODS_CHECK`); the inference check (`INFER_CHECK`) follows the op's `verify_`.
    Its verification reads only types and attributes (`VERIFY_BY_TYPES`), unless it reads
    constant operands (`_ShapeOperandsOp`, dynamic_gather, set_dimension_size).  Its syntax is
    upstream's `operands attr-dict : functional-type(operands, results)` unless it declares its
    own `FORMAT` (or has none: `NoAssemblyFormatOp`)."""

    FORMAT: ClassVar[str | None] = "operands attr-dict `:` functional-type(operands, results)"
    CONFINED: ClassVar[tuple[str, ...]] = ()
    """The op's `ConfinedAttr<..., [IntNonNegative]>` attributes, in MLIR's order."""
    ODS_CHECK = _ods_checks
    VERIFY_BY_TYPES: ClassVar[bool] = True


class _ShapeOperandsOp(_DataMovementOp):
    """upstream's dynamic-shape variant of an op, its shapes given by operands
    (dynamic_broadcast_in_dim, dynamic_iota, dynamic_pad, dynamic_reshape, real_dynamic_slice):
    not verified by types (most read those operands where they are constants, `constant_ints`);
    upstream has no InferTypeOpInterface check."""

    VERIFY_BY_TYPES: ClassVar[bool] = False
    INFER_CHECK: ClassVar[str | None] = None


@op_def
class BroadcastOp(_DataMovementOp):
    """Legacy broadcast: prepends `broadcast_sizes` dimensions to `operand` (XLA's Broadcast)."""

    name = "stablehlo.broadcast"
    operand = operand_def()
    broadcast_sizes = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `sizes` `=` custom<DenseI64Array>($broadcast_sizes) attr-dict `:` functional-type(operands, results)"
    )


@op_def
class BroadcastInDimOp(_DataMovementOp):
    """Expands the dimensions and/or rank of `operand` by duplicating its data
    (spec.md#broadcast_in_dim)."""

    name = "stablehlo.broadcast_in_dim"
    operand = operand_def()
    broadcast_dimensions = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `dims` `=` custom<DenseI64Array>($broadcast_dimensions) "
        "attr-dict `:` functional-type(operands, results)"
    )
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        compatible_element_types(ot, rt)  # broadcast_in_dim_c1 (upstream's trait)
        upstream(verify_broadcast_in_dim, ot, int_values(self.broadcast_dimensions), rt)


@op_def
class DynamicBroadcastInDimOp(_ShapeOperandsOp):
    """broadcast_in_dim whose result shape is given by the `output_dimensions` operand."""

    name = "stablehlo.dynamic_broadcast_in_dim"
    operand = operand_def()
    output_dimensions = operand_def()
    broadcast_dimensions = prop(I64_ARRAY)
    known_expanding_dimensions = prop(I64_ARRAY, optional=True)
    known_nonexpanding_dimensions = prop(I64_ARRAY, optional=True)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` $output_dimensions `,` `dims` `=` custom<DenseI64Array>($broadcast_dimensions) "
        "attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        exp, nonexp = self.known_expanding_dimensions, self.known_nonexpanding_dimensions
        upstream(
            verify_dynamic_broadcast_in_dim,
            self.operand.type,
            constant_ints(self.output_dimensions),
            int_values(self.broadcast_dimensions),
            None if exp is None else int_values(exp),
            None if nonexp is None else int_values(nonexp),
            self.result.type,
        )


@op_def
class ConcatenateOp(_DataMovementOp):
    """Concatenates `inputs` along `dimension` (spec.md#concatenate)."""

    name = "stablehlo.concatenate"
    inputs = var_operand_def()
    dimension = prop(I64_ATTR)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "custom<VariadicOperandWithAttribute>($inputs) `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"
    )
    CONFINED: ClassVar[tuple[str, ...]] = ("dimension",)  # ODS (concatenate_c4)

    def verify_(self) -> None:
        # concatenate_c1, concatenate_c5: upstream's SameOperandsAndResultElementType trait, then
        # the inference check
        same_element_type(*self.operand_types, self.result.type)


@op_def
class DynamicSliceOp(_DataMovementOp):
    """Extracts a slice of `operand` at dynamically computed `start_indices` (spec.md#dynamic_slice)."""

    name = "stablehlo.dynamic_slice"
    operand = operand_def()
    start_indices = var_operand_def()
    slice_sizes = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` custom<VariadicOperandWithAttribute>($start_indices) "
        "`sizes` `=` custom<DenseI64Array>($slice_sizes) attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        # dynamic_slice_c1: upstream's AllElementTypesMatch trait
        all_element_types_match(self, "operand", "result")


@op_def
class DynamicUpdateSliceOp(_DataMovementOp):
    """Overwrites the slice of `operand` at `start_indices` with `update`
    (spec.md#dynamic_update_slice)."""

    name = "stablehlo.dynamic_update_slice"
    operand = operand_def()
    update = operand_def()
    start_indices = var_operand_def()
    result = result_def()

    def verify_(self) -> None:
        # dynamic_update_slice_c1, dynamic_update_slice_c2: upstream's AllElementTypesMatch trait
        all_element_types_match(self, "operand", "update", "result")


@op_def
class GatherOp(NoAssemblyFormatOp, _DataMovementOp):
    """Gathers slices of `operand` at offsets given by `start_indices` (spec.md#gather)."""

    name = "stablehlo.gather"
    operand = operand_def()
    start_indices = operand_def()
    dimension_numbers = prop(GATHER_DIMS)
    slice_sizes = prop(I64_ARRAY)
    indices_are_sorted = prop(BOOL_ATTR, default=FALSE)
    result = result_def()

    def verify_(self) -> None:
        # gather_c23: upstream's AllElementTypesMatch<["operand", "result"]> (an ODS predicate)
        all_element_types_match(self, "operand", "result")


@op_def
class DynamicGatherOp(NoAssemblyFormatOp, _DataMovementOp):
    """gather whose `slice_sizes` are an operand."""

    name = "stablehlo.dynamic_gather"
    operand = operand_def()
    start_indices = operand_def()
    slice_sizes = operand_def()
    dimension_numbers = prop(GATHER_DIMS)
    indices_are_sorted = prop(BOOL_ATTR, default=FALSE)
    result = result_def()
    # its inference reads the constant `slice_sizes` operand
    VERIFY_BY_TYPES: ClassVar[bool] = False


@op_def
class ScatterOp(NoAssemblyFormatOp):
    """Produces `inputs` with the slices at `scatter_indices` updated from `updates` by
    `update_computation` (spec.md#scatter)."""

    name = "stablehlo.scatter"
    inputs = var_operand_def()
    scatter_indices = operand_def()
    updates = var_operand_def()
    scatter_dimension_numbers = prop(SCATTER_DIMS)
    indices_are_sorted = prop(BOOL_ATTR, default=FALSE)
    unique_indices = prop(BOOL_ATTR, default=FALSE)
    update_computation = region_def()
    results_ = var_result_def()
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())
    ODS_CHECK = check_ods_types  # upstream's ODS operand and result types
    # upstream's InferTypeOpInterface check (scatter_c24, scatter_c25), which MLIR runs after the
    # op's verifier and its regions
    INFER_CHECK: ClassVar[str | None] = "after_regions"

    def verify_(self) -> None:
        # scatter_c5: SameVariadicOperandSize gives as many updates as inputs; upstream lets no
        # inputs through to verifyScatterOp, whose reducer check then refuses the region
        ins, ups = list(self.inputs), list(self.updates)
        it = self.scatter_indices.type
        if len(self.update_computation.blocks) != 1:  # ODS SizedRegion<1>
            fail(
                "region #0 ('update_computation') failed to verify constraint: region with 1 blocks"
            )
        upstream(
            verify_scatter,
            [v.type for v in ins],
            it,
            [v.type for v in ups],
            self.scatter_dimension_numbers.dims,
            self.update_computation,
        )


@op_def
class GetDimensionSizeOp(_DataMovementOp):
    """Produces the size of `dimension` of `operand` (spec.md#get_dimension_size)."""

    name = "stablehlo.get_dimension_size"
    operand = operand_def()
    dimension = prop(I64_ATTR)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"
    )
    CONFINED: ClassVar[tuple[str, ...]] = ("dimension",)  # get_dimension_size_c1


@op_def
class SetDimensionSizeOp(_DataMovementOp):
    """Sets the dynamic size of `dimension` of `operand` to `size` (XLA's SetDimensionSize)."""

    name = "stablehlo.set_dimension_size"
    operand = operand_def()
    size = operand_def()
    dimension = prop(I64_ATTR)
    result = result_def()
    # its inference reads the constant `size` operand (the result's bound)
    VERIFY_BY_TYPES: ClassVar[bool] = False
    FORMAT: ClassVar[str | None] = (
        "$operand `,` $size  `,` `dim` `=` $dimension attr-dict `:` functional-type(operands, results)"
    )
    CONFINED: ClassVar[tuple[str, ...]] = ("dimension",)


@op_def
class GetTupleElementOp(_DataMovementOp):
    """Extracts the element at `index` of the `operand` tuple (spec.md#get_tuple_element)."""

    name = "stablehlo.get_tuple_element"
    operand = operand_def()
    index = prop(I32_ATTR)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `[` $index `]` attr-dict `:` functional-type(operands, results)"
    )
    CONFINED: ClassVar[tuple[str, ...]] = ("index",)


@op_def
class TupleOp(_DataMovementOp):
    """Produces a tuple from the values `val` (spec.md#tuple)."""

    name = "stablehlo.tuple"
    val = var_operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$val attr-dict `:` custom<TupleOpType>(type($val), type($result))"
    )


@op_def
class IotaOp(_DataMovementOp):
    """Fills `output` with 0, 1, 2, ... along `iota_dimension` (spec.md#iota)."""

    name = "stablehlo.iota"
    iota_dimension = prop(I64_ATTR)
    output = result_def()
    FORMAT: ClassVar[str | None] = "`dim` `=` $iota_dimension attr-dict `:` type($output)"
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check
    CONFINED: ClassVar[tuple[str, ...]] = ("iota_dimension",)  # iota_c1

    def verify_(self) -> None:
        upstream(verify_iota, self.iota_dimension.value.data, self.output.type)


@op_def
class DynamicIotaOp(_ShapeOperandsOp):
    """iota whose result shape is given by the `output_shape` operand."""

    name = "stablehlo.dynamic_iota"
    output_shape = operand_def()
    iota_dimension = prop(I64_ATTR)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$output_shape `,` `dim` `=` $iota_dimension attr-dict `:` functional-type(operands, results)"
    )
    CONFINED: ClassVar[tuple[str, ...]] = ("iota_dimension",)  # dynamic_iota_c1

    def verify_(self) -> None:
        upstream(
            verify_dynamic_iota,
            constant_ints(self.output_shape),
            self.iota_dimension.value.data,
            self.result.type,
        )


@op_def
class PadOp(_DataMovementOp):
    """Pads `operand` around and between its elements with `padding_value` (spec.md#pad)."""

    name = "stablehlo.pad"
    operand = operand_def()
    padding_value = operand_def()
    edge_padding_low = prop(I64_ARRAY)
    edge_padding_high = prop(I64_ARRAY)
    interior_padding = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` $padding_value `,` `low` `=` custom<DenseI64Array>($edge_padding_low) `,` "
        "`high` `=` custom<DenseI64Array>($edge_padding_high) `,` "
        "`interior` `=` custom<DenseI64Array>($interior_padding) attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        ot, pt, rt = self.operand.type, self.padding_value.type, self.result.type
        # pad_c1: upstream's SameOperandsAndResultElementType trait
        same_element_type(ot, pt, rt)
        # pad_c2: upstream's AllMatchSameOperatorTrait on the three padding attributes
        all_sizes_match(self, "edge_padding_low", "edge_padding_high", "interior_padding")


@op_def
class DynamicPadOp(_ShapeOperandsOp):
    """pad whose paddings are operands."""

    name = "stablehlo.dynamic_pad"
    operand = operand_def()
    padding_value = operand_def()
    edge_padding_low = operand_def()
    edge_padding_high = operand_def()
    interior_padding = operand_def()
    result = result_def()

    def verify_(self) -> None:
        low, high, interior = self.edge_padding_low, self.edge_padding_high, self.interior_padding
        # upstream's ODS traits, in their order (dynamic_pad_c1, dynamic_pad_c2, dynamic_pad_c4)
        all_element_types_match(self, "operand", "padding_value", "result")
        all_types_match(self, "edge_padding_low", "edge_padding_high", "interior_padding")
        all_ranks_match(self, "operand", "result")
        upstream(
            verify_dynamic_pad,
            self.operand.type,
            low.type,
            constant_ints(low),
            constant_ints(high),
            constant_ints(interior),
            self.result.type,
        )


@op_def
class ReshapeOp(_DataMovementOp):
    """Reshapes `operand` to the result type (spec.md#reshape)."""

    name = "stablehlo.reshape"
    operand = operand_def()
    result = result_def()
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        compatible_element_types(ot, rt)  # reshape_c1 (upstream's trait)
        upstream(verify_reshape, ot, rt)


@op_def
class DynamicReshapeOp(_ShapeOperandsOp):
    """reshape whose result shape is given by the `output_shape` operand."""

    name = "stablehlo.dynamic_reshape"
    operand = operand_def()
    output_shape = operand_def()
    result = result_def()

    def verify_(self) -> None:
        upstream(
            verify_dynamic_reshape,
            self.operand.type,
            self.output_shape.type,
            constant_ints(self.output_shape),
            self.result.type,
        )


@op_def
class ReverseOp(_DataMovementOp):
    """Reverses the order of elements of `operand` along `dimensions` (spec.md#reverse)."""

    name = "stablehlo.reverse"
    operand = operand_def()
    dimensions = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `dims` `=` custom<DenseI64Array>($dimensions) "
        "attr-dict `:` custom<SameOperandsAndResultType>(type($operand), type($result))"
    )

    def verify_(self) -> None:
        # reverse_c1: upstream's SameOperandsAndResultElementType trait
        same_element_type(self.operand.type, self.result.type)
        upstream(verify_reverse, self.operand.type, int_values(self.dimensions))
        # then upstream's InferTypeOpInterface check, after verify()


@op_def
class SliceOp(_DataMovementOp):
    """Extracts a slice of `operand` given by static start, limit and stride (spec.md#slice)."""

    name = "stablehlo.slice"
    operand = operand_def()
    start_indices = prop(I64_ARRAY)
    limit_indices = prop(I64_ARRAY)
    strides = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand custom<SliceRanges>($start_indices, $limit_indices, $strides) "
        "attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        # slice_c2: upstream's AllMatchSameOperatorTrait (an ODS predicate), then slice_c1: its
        # SameOperandsAndResultElementType trait, then the inference check
        all_sizes_match(self, "start_indices", "limit_indices", "strides")
        same_element_type(self.operand.type, self.result.type)


@op_def
class RealDynamicSliceOp(_ShapeOperandsOp):
    """slice whose start, limit and stride are operands."""

    name = "stablehlo.real_dynamic_slice"
    operand = operand_def()
    start_indices = operand_def()
    limit_indices = operand_def()
    strides = operand_def()
    result = result_def()

    def verify_(self) -> None:
        # upstream's ODS traits, in their order
        all_element_types_match(self, "operand", "result")
        indices = ("start_indices", "limit_indices", "strides")
        all_types_match(self, *indices)
        upstream(
            verify_real_dynamic_slice, self.operand.type, *(getattr(self, n).type for n in indices)
        )


@op_def
class TransposeOp(_DataMovementOp):
    """Permutes the dimensions of `operand` by `permutation` (spec.md#transpose)."""

    name = "stablehlo.transpose"
    operand = operand_def()
    permutation = prop(I64_ARRAY)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `dims` `=` custom<DenseI64Array>($permutation) attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        # transpose_c1: upstream's CompatibleOperandsAndResultElementType trait
        compatible_element_types(ot, rt)
        # then upstream's InferTypeOpInterface check (transpose_c2, transpose_c3)

    def verify_after_inference_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        perm = int_values(self.permutation)
        # transpose_c2 of an unranked operand (the rule cannot check it)
        if shape_of(ot) is None and sorted(perm) != list(range(len(perm))):
            fail(f"permutation {list(perm)} must be a permutation of [0, {len(perm)})")
        upstream(verify_transpose, ot, perm, rt)


@op_def
class SelectOp(_DataMovementOp):
    """Selects each element from `on_true` or `on_false` by `pred` (spec.md#select)."""

    name = "stablehlo.select"
    pred = operand_def()
    on_true = operand_def()
    on_false = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "operands attr-dict `:` custom<SelectOpType>(type($pred), type($on_true), type($on_false), type($result))"
    )


@op_def
class ClampOp(_DataMovementOp):
    """Clamps each element of `operand` between `min` and `max` (spec.md#clamp)."""

    name = "stablehlo.clamp"
    min = operand_def()
    operand = operand_def()
    max = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$min `,` $operand `,` $max attr-dict "
        "`:` custom<SameOperandsAndResultType>(type($min), type($operand), type($max), type($result))"
    )

    def verify_(self) -> None:
        # clamp_c3: upstream's CompatibleOperandsAndResultElementType trait, then the inference
        compatible_element_types(*(v.type for v in self.operands), self.result.type)


@op_def
class ComplexOp(_DataMovementOp):
    """Builds complex values from real parts `lhs` and imaginary parts `rhs` (spec.md#complex)."""

    name = "stablehlo.complex"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "operands attr-dict `:` custom<ComplexOpType>(type($lhs), type($rhs), type($result))"
    )

    def verify_(self) -> None:
        lt, rt_, res = self.lhs.type, self.rhs.type, self.result.type
        # complex_c1: SameOperandsElementType
        same_element_type(lt, rt_, what="operands")
        # complex_c2: SameOperandsAndResultShape
        if not (
            shapes_compatible(shape_of(lt), shape_of(rt_))
            and shapes_compatible(shape_of(lt), shape_of(res))
        ):
            fail("requires the same shape for all operands and results")
        # then upstream's InferTypeOpInterface check, before verify()


@op_def
class TorchIndexSelectOp(NoAssemblyFormatOp, _DataMovementOp):
    """Legacy index_select with `batch_dims` leading batch dimensions (PyTorch's index_select)."""

    name = "stablehlo.torch_index_select"
    operand = operand_def()
    index = operand_def()
    dim = prop(I64_ATTR)
    batch_dims = prop(I64_ATTR)
    result = result_def()
    # Upstream verifies nothing more than its ODS constraints (the op has no verifier): a
    # negative `dim` or `batch_dims` counts from the end, as XLA's lowering reads them.
    INFER_CHECK: ClassVar[str | None] = None


OPS = (
    BroadcastOp,
    BroadcastInDimOp,
    DynamicBroadcastInDimOp,
    ConcatenateOp,
    DynamicSliceOp,
    DynamicUpdateSliceOp,
    GatherOp,
    DynamicGatherOp,
    ScatterOp,
    GetDimensionSizeOp,
    SetDimensionSizeOp,
    GetTupleElementOp,
    TupleOp,
    IotaOp,
    DynamicIotaOp,
    PadOp,
    DynamicPadOp,
    ReshapeOp,
    DynamicReshapeOp,
    ReverseOp,
    SliceOp,
    RealDynamicSliceOp,
    TransposeOp,
    SelectOp,
    ClampOp,
    ComplexOp,
    TorchIndexSelectOp,
)


def register(reg: Any) -> None:
    from stablehlo_py.ir import gather_scatter_attrs

    gather_scatter_attrs.register(reg)


__all__ = [c.__name__ for c in OPS] + ["OPS", "register"]
