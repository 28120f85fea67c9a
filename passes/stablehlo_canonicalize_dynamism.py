"""`stablehlo-canonicalize-dynamism`: upstream's StablehloCanonicalizeDynamism.cpp.

Dynamic ops whose shape operands are constants become their static counterparts, through xDSL's
greedy pattern rewriter configured as upstream's applyPatternsGreedily (ops left dead are erased;
constants are uniqued and moved to the front of their function, as MLIR's OperationFolder does):

| op                          | when                                                 | becomes          |
|-----------------------------|------------------------------------------------------|------------------|
| custom_call with            | every shape operand constant and compatible with its | custom_call      |
| `indices_of_shape_operands` | result, every such result static                     | without them     |
| dynamic_broadcast_in_dim    | static operand and result, constant output_dimensions| broadcast_in_dim |
| dynamic_conv                | constant padding                                     | convolution      |
| dynamic_gather              | constant slice_sizes                                 | gather           |
| dynamic_iota                | constant output_shape, static result                 | iota             |
| dynamic_pad                 | constant low, high and interior paddings             | pad              |
| dynamic_reshape             | constant output_shape, static result                 | reshape          |
| real_dynamic_slice          | unit constant strides, limit = start + constant      | dynamic_slice    |
| real_dynamic_slice          | constant start, limit and strides                    | slice            |

The result types are the dynamic op's (as upstream: the verifiers check the shape operands against
them).  A malformed `indices_of_shape_operands` is reported with upstream's message (hlo::
getShapeRefinements) at the custom call, e.g. "indices_of_shape_operands: must have rank = 1".

Not modelled: MLIR's driver keeps a constant that is unused from the start (only ops that become
dead are erased); here every dead op, constants included, is erased.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.drivers.diagnostics import raise_collected
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerType,
    Signedness,
    TensorType,
    TupleType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.infer.data_movement import constant_ints
from stablehlo_py.ir.infer.shapes import is_compatible
from stablehlo_py.ir.ops.data_movement import (
    BroadcastInDimOp,
    DynamicBroadcastInDimOp,
    DynamicGatherOp,
    DynamicIotaOp,
    DynamicPadOp,
    DynamicReshapeOp,
    DynamicSliceOp,
    GatherOp,
    IotaOp,
    PadOp,
    RealDynamicSliceOp,
    ReshapeOp,
    SliceOp,
)
from stablehlo_py.ir.ops.linalg import ConvolutionOp, DynamicConvOp
from stablehlo_py.ir.ops.misc import CustomCallOp
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import tensor_type
from stablehlo_py.ir.verify import op_location
from stablehlo_py.passes.patterns.simplify.common import added_constant, start_scalars

__all__ = ["PATTERNS", "canonicalize_dynamism", "run", "shape_refinements"]

PASS_NAME = "stablehlo-canonicalize-dynamism"
SUMMARY = "Canonicalizes dynamic StableHLO ops into static ops."

INDICES_OF_SHAPE_OPERANDS = "indices_of_shape_operands"
_I64 = IntegerType(64)
MAX_ITERATIONS = 2  # upstream's GreedyRewriteConfig for this pass


def run(op: Operation, options: dict[str, object]) -> Operation:
    return canonicalize_dynamism(op)


def canonicalize_dynamism(op: Operation) -> Operation:
    """Apply the patterns to every function nested in `op` (the pass runs on func.func), as upstream's
    greedy driver configures it: constants uniqued and moved to the front of the function
    (`ConstantUniquer`, shared with stablehlo-refine-shapes), dead ops erased, at most
    MAX_ITERATIONS sweeps.  Returns `op`.  Raises VerifyError (upstream's message, at the op) for
    each malformed `indices_of_shape_operands` (the last one raised, the others in its `preceding`
    list)."""
    from stablehlo_py.passes.stablehlo_refine_shapes import BoundedRewriteWalker, ConstantUniquer

    diagnostics: list[VerifyError] = []
    funcs = [f for f in op.walk() if isinstance(f, FuncOp)]
    for func in funcs:
        patterns: list[RewritePattern] = [
            ConstantUniquer(),
            *(cls(diagnostics) for cls in PATTERNS),
        ]
        walker = BoundedRewriteWalker(
            GreedyRewritePatternApplier(patterns, dce_enabled=True), max_iterations=MAX_ITERATIONS
        )
        walker.rewrite_region(func.body)
        if not walker.converged:
            diagnostics.append(
                VerifyError(
                    f"Failed to converge StablehloCanonicalizeDynamism in {MAX_ITERATIONS} iterations",
                    location=op_location(func),
                )
            )
    if diagnostics:
        raise_collected(diagnostics)
    return op


# --------------------------------------------------------------------------------- helpers
class ShapeRefinementError(Exception):
    """A malformed `indices_of_shape_operands` (upstream's getShapeRefinements diagnostics)."""


def _flatten(types: Sequence[Attribute]) -> list[Attribute]:
    out: list[Attribute] = []
    for t in types:
        if isinstance(t, TupleType):
            out.extend(_flatten(list(t.types.data)))
        else:
            out.append(t)
    return out


def shape_refinements(op: Operation) -> list[tuple[int, ...]] | None:
    """upstream's hlo::getShapeRefinements: the result shapes `op`'s `indices_of_shape_operands`
    operands give, one per (tuple-flattened) result; None when the attribute is absent or a shape
    operand is not a constant; raises ShapeRefinementError (upstream's message) when the attribute
    is malformed or a refinement is incompatible with its result."""
    attr = op.attributes.get(INDICES_OF_SHAPE_OPERANDS) or op.properties.get(
        INDICES_OF_SHAPE_OPERANDS
    )
    if not isinstance(attr, DenseIntOrFPElementsAttr) or not isinstance(
        attr.get_element_type(), IntegerType
    ):
        return None
    flat = _flatten([r.type for r in op.results])
    suffix = ", with tuples flattened" if len(flat) != len(op.results) else ""
    shape = tuple(attr.type.get_shape())
    indices = _ints(attr)
    if len(indices) != len(flat):
        raise ShapeRefinementError(
            f"indices_of_shape_operands: number of elements ({len(indices)}) must be equal to the number "
            f"of operation results ({len(flat)}){suffix}"
        )
    if len(shape) != 1:
        raise ShapeRefinementError("indices_of_shape_operands: must have rank = 1")
    elem = attr.get_element_type()
    if not (
        isinstance(elem, IntegerType)
        and elem.width.data == 64
        and elem.signedness.data == Signedness.SIGNLESS
    ):
        raise ShapeRefinementError("indices_of_shape_operands: must have i64 element type")
    refinements: list[tuple[int, ...]] = []
    for result_index, (operand_index, result_type) in enumerate(zip(indices, flat)):
        if not 0 <= operand_index < len(op.operands):
            raise ShapeRefinementError(
                f"indices_of_shape_operands: index #{result_index} ({operand_index}) must be within bounds "
                f"for operation operands (from 0 to {len(op.operands)})"
            )
        refinement = constant_ints(op.operands[operand_index])
        if refinement is None:
            return None
        if not _compatible(refinement, result_type):
            raise ShapeRefinementError(
                f"indices_of_shape_operands: refinement #{result_index} ([{', '.join(map(str, refinement))}]) "
                f"must be compatible with operation result #{result_index} ('{type_to_str(result_type)}')"
                f"{suffix}"
            )
        refinements.append(refinement)
    return refinements


def _compatible(shape: tuple[int, ...], t: Attribute) -> bool:
    """upstream's isCompatibleForHloTypeInference(ArrayRef<int64_t>, Type)."""
    if any(d < 0 for d in shape) or not hasattr(t, "element_type"):
        return False
    return is_compatible(tensor_type(t.element_type, shape), t)  # type: ignore[attr-defined]


def _ints(attr: DenseIntOrFPElementsAttr) -> tuple[int, ...]:
    from stablehlo_py.ir.text.dense import dense_values

    return tuple(int(v) for v in np.asarray(dense_values(attr)).reshape(-1).tolist())


def _static(t: Attribute) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(_I64, list(values))


def _replace(rewriter: PatternRewriter, old: Operation, new: Operation | list[Operation]) -> None:
    ops = new if isinstance(new, list) else [new]
    for o in ops:
        carry_location(o, old)
    rewriter.replace(old, ops)


def _replace_by(
    rewriter: PatternRewriter,
    op: Operation,
    cls: type[Operation],
    operands: Sequence[SSAValue],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute] | None = None,
) -> None:
    """Replace ``op`` by a ``cls`` op of ``operands``, ``properties`` (and ``attributes``) and
    ``op``'s result type."""
    new = cls.create(
        operands=list(operands),
        result_types=[op.result.type],  # type: ignore[attr-defined]
        properties=properties,
        attributes=attributes or {},
    )
    _replace(rewriter, op, new)


def _constant_arrays(op: Operation, names: Sequence[str]) -> dict[str, Attribute] | None:
    """The operands ``names`` of ``op`` as i64 array properties of the same names (the static op's),
    or None when one of them is not a constant."""
    properties: dict[str, Attribute] = {}
    for name in names:
        values = constant_ints(getattr(op, name))
        if values is None:
            return None
        properties[name] = _i64_array(values)
    return properties


def _static_with_constant_shape(op: Operation) -> bool:
    """The op's `output_shape` operand is a constant and its result type static."""
    shape, result = op.output_shape, op.result  # type: ignore[attr-defined]
    return constant_ints(shape) is not None and _static(result.type)


class _Pattern(RewritePattern):
    def __init__(self, diagnostics: list[VerifyError]):
        self.diagnostics = diagnostics
        self.diagnosed: set[Operation] = set()


# --------------------------------------------------------------------------------- patterns
class CanonicalizeCustomCall(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomCallOp, rewriter: PatternRewriter) -> None:
        try:
            refinements = shape_refinements(op)
        except ShapeRefinementError as e:
            if op not in self.diagnosed:  # the greedy walker may visit the op again
                self.diagnosed.add(op)
                self.diagnostics.append(VerifyError(str(e), location=op_location(op)))
            return
        if refinements is None:
            return
        indices = set(
            _ints(
                op.attributes.get(INDICES_OF_SHAPE_OPERANDS)
                or op.properties[INDICES_OF_SHAPE_OPERANDS]
            )
        )  # type: ignore[arg-type]
        operands: list[SSAValue] = []
        result_index = 0
        for i, v in enumerate(op.operands):
            if i in indices:
                if not _static(op.results[result_index].type):
                    return  # upstream: "expected static result types"
                result_index += 1
                continue
            operands.append(v)
        properties = dict(op.properties)
        attributes = dict(op.attributes)
        properties.pop(INDICES_OF_SHAPE_OPERANDS, None)
        attributes.pop(INDICES_OF_SHAPE_OPERANDS, None)
        layouts = properties.get("operand_layouts")
        if isinstance(layouts, ArrayAttr):
            properties["operand_layouts"] = ArrayAttr(
                [a for i, a in enumerate(layouts.data) if i not in indices]
            )
        new = CustomCallOp.create(
            operands=operands,
            result_types=[r.type for r in op.results],
            properties=properties,
            attributes=attributes,
        )
        _replace(rewriter, op, new)


class CanonicalizeDynamicBroadcastInDim(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicBroadcastInDimOp, rewriter: PatternRewriter) -> None:
        if not _static(op.operand.type) or constant_ints(op.output_dimensions) is None:
            return
        if not _static(op.result.type):
            return
        dims = {"broadcast_dimensions": op.broadcast_dimensions}
        _replace_by(rewriter, op, BroadcastInDimOp, [op.operand], dims)


class CanonicalizeDynamicConv(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicConvOp, rewriter: PatternRewriter) -> None:
        padding = constant_ints(op.padding)
        if padding is None:
            return
        padding_type = tensor_type(_I64, (len(padding) // 2, 2))
        properties = {
            **op.properties,
            "padding": make_dense(padding_type, np.asarray(padding, dtype=np.int64)),
        }
        _replace_by(rewriter, op, ConvolutionOp, [op.lhs, op.rhs], properties)


class CanonicalizeDynamicGather(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicGatherOp, rewriter: PatternRewriter) -> None:
        sizes = _constant_arrays(op, ("slice_sizes",))
        if sizes is not None:
            operands = [op.operand, op.start_indices]
            _replace_by(rewriter, op, GatherOp, operands, {**op.properties, **sizes})


class CanonicalizeDynamicIota(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicIotaOp, rewriter: PatternRewriter) -> None:
        if _static_with_constant_shape(op):
            _replace_by(rewriter, op, IotaOp, [], {"iota_dimension": op.iota_dimension})


class CanonicalizeDynamicPad(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicPadOp, rewriter: PatternRewriter) -> None:
        pads = _constant_arrays(op, ("edge_padding_low", "edge_padding_high", "interior_padding"))
        if pads is not None:
            _replace_by(rewriter, op, PadOp, [op.operand, op.padding_value], pads)


class CanonicalizeDynamicReshape(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicReshapeOp, rewriter: PatternRewriter) -> None:
        if _static_with_constant_shape(op):
            _replace_by(rewriter, op, ReshapeOp, [op.operand], {})


class CanonicalizeRealDynamicSliceToDynamicSlice(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RealDynamicSliceOp, rewriter: PatternRewriter) -> None:
        strides = constant_ints(op.strides)
        if strides is None or any(s != 1 for s in strides):
            return
        slice_sizes = added_constant(op.limit_indices, op.start_indices, constant_ints)
        if slice_sizes is None:
            return
        new_ops, start_indices = start_scalars(op.start_indices, len(slice_sizes), op)
        dynamic_slice = DynamicSliceOp.create(
            operands=[op.operand, *start_indices],
            result_types=[op.result.type],
            properties={"slice_sizes": _i64_array(slice_sizes)},
            attributes=dict(op.attributes),  # upstream: setDiscardableAttrs
        )
        _replace(rewriter, op, [*new_ops, dynamic_slice])


class CanonicalizeRealDynamicSliceToSlice(_Pattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RealDynamicSliceOp, rewriter: PatternRewriter) -> None:
        props = _constant_arrays(op, ("start_indices", "limit_indices", "strides"))
        if props is not None:  # upstream: setDiscardableAttrs
            _replace_by(rewriter, op, SliceOp, [op.operand], props, dict(op.attributes))


PATTERNS: tuple[type[_Pattern], ...] = (
    CanonicalizeCustomCall,
    CanonicalizeDynamicBroadcastInDim,
    CanonicalizeDynamicConv,
    CanonicalizeDynamicGather,
    CanonicalizeDynamicIota,
    CanonicalizeDynamicPad,
    CanonicalizeDynamicReshape,
    CanonicalizeRealDynamicSliceToDynamicSlice,
    CanonicalizeRealDynamicSliceToSlice,
)
"""upstream's populateStablehloCanonicalizeDynamismPatterns, in its order."""
