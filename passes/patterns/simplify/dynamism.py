"""Simplification patterns of dynamically shaped ops: dynamic_broadcast_in_dim, dynamic_reshape,
dynamic_iota, dynamic_pad, dynamic_gather, dynamic_slice, real_dynamic_slice, dynamic_update_slice
and `shape.shape_of` of a dynamic_reshape (upstream's DRR patterns of these ops and its C++
patterns DynamicBroadcastInDimOpNotActuallyDynamic, DynamicIotaIsStatic, DynamicIotaOpToBroadcast,
DynamicReshapeOpIsStatic, DynamicReshapeOpSameOperandAndResultShape, DynamicSliceOpToSlice,
RealDynamicSliceOpToDynamicSlice)."""

from __future__ import annotations

from stablehlo_py.passes.patterns.simplify.common import (
    OfInner,
    RootPattern,
    added_constant,
    build,
    constant_dense,
    constant_int_list,
    constant_int_lists,
    defined_by,
    i64_array,
    int_zero,
    ints,
    iota_broadcast,
    iota_dimension_to_broadcast,
    is_iota,
    num_elems,
    op_cls,
    rank,
    replace_by,
    replace_merged,
    replace_with_ops,
    replace_with_values,
    result_type,
    slice_props,
    stablehlo_constant,
    start_scalars,
    static_shape,
)
from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from stablehlo_py.ir.types import tensor_type

I64 = IntegerType(64)


def reified_shape(op: Operation) -> SSAValue | None:
    """upstream's reifyReturnTypeShapes for ``op``'s first result (None when it cannot)."""
    from stablehlo_py.errors import NotSupportedError
    from stablehlo_py.ir.infer import InferError
    from stablehlo_py.ir.infer.reify import ShapeBuilder, has_reify, reify_result_shapes

    if not has_reify(op.name):
        return None
    try:
        shapes = reify_result_shapes(op, ShapeBuilder.before_op(op))
    except (NotSupportedError, InferError):
        return None
    return None if not shapes else shapes[0]


# ------------------------------------------------------------------------ dynamic_broadcast_in_dim
class DynamicBroadcastInDimOp_MergeComposition(OfInner):
    """dynamic_broadcast_in_dim(dynamic_broadcast_in_dim(X, _, A), shape, B)
    -> dynamic_broadcast_in_dim(X, shape, B[A]) (no known (non)expanding dimensions)."""

    ROOT = "stablehlo.dynamic_broadcast_in_dim"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        outer_dims = ints(op.properties["broadcast_dimensions"])
        merged = [outer_dims[d] for d in ints(inner.properties["broadcast_dimensions"])]
        props = {
            "broadcast_dimensions": i64_array(merged),
            "known_expanding_dimensions": i64_array([]),
            "known_nonexpanding_dimensions": i64_array([]),
        }
        replace_by(rewriter, op, type(op), [inner.operands[0], op.operands[1]], props)


class DynamicBroadcastInDimOp_ReplaceNoopWithConvert(RootPattern):
    """dynamic_broadcast_in_dim(X, _, [iota], all dimensions known non-expanding) -> convert(X)
    (keeps the dynamic result type)."""

    ROOT = "stablehlo.dynamic_broadcast_in_dim"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not is_iota(ints(op.properties["broadcast_dimensions"])):
            return
        nonexpanding = op.properties.get("known_nonexpanding_dimensions")
        if nonexpanding is None or len(ints(nonexpanding)) != rank(result_type(op)):
            return
        replace_by(rewriter, op, "stablehlo.convert", [op.operands[0]])


class DynamicBroadcastInDimOp_FoldToDynamicReshape(OfInner):
    """dynamic_broadcast_in_dim(dynamic_reshape(X, shape), shape, [iota]) -> dynamic_reshape(X,
    shape)."""

    ROOT = "stablehlo.dynamic_broadcast_in_dim"
    INNER = "stablehlo.dynamic_reshape"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        if inner.operands[1] is not op.operands[1]:
            return
        if not is_iota(ints(op.properties["broadcast_dimensions"])):
            return
        replace_by(rewriter, op, type(inner), list(inner.operands))


class DynamicBroadcastInDimOp_RemoveNoop(RootPattern):
    """dynamic_broadcast_in_dim(X, shape_of(X), [iota]) -> X."""

    ROOT = "stablehlo.dynamic_broadcast_in_dim"
    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand, shape = op.operands
        shape_of = defined_by(shape, "shape.shape_of")
        if shape_of is None or shape_of.operands[0] is not operand:
            return
        if not is_iota(ints(op.properties["broadcast_dimensions"])):
            return
        replace_with_values(rewriter, op, [operand], merge=True)


def _users_outside_dialect(op: Operation) -> bool:
    dialect = op.name.split(".", 1)[0]
    return any(use.operation.name.split(".", 1)[0] != dialect for use in op.results[0].uses)


class DynamicBroadcastInDimOpNotActuallyDynamic(RootPattern):
    """dynamic_broadcast_in_dim of a static operand -> broadcast_in_dim when the result is static
    or the output dimensions are constant (then a convert back to the dynamic type for users
    outside StableHLO)."""

    ROOT = "stablehlo.dynamic_broadcast_in_dim"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand = op.operands[0]
        if static_shape(operand.type) is None:
            return
        t = result_type(op)
        dims = {"broadcast_dimensions": op.properties["broadcast_dimensions"]}
        bcast = op_cls("stablehlo.broadcast_in_dim")
        if static_shape(t) is not None:
            replace_with_ops(rewriter, op, [build(bcast, [operand], dims, [t], like=op)])
            return
        shape = constant_int_list(op.operands[1])
        if shape is None:
            return
        new = build(bcast, [operand], dims, [tensor_type(t.element_type, tuple(shape))], like=op)
        ops = [new]
        if _users_outside_dialect(op):
            ops.append(build(op_cls("stablehlo.convert"), [new.results[0]], {}, [t], like=op))
        replace_with_ops(rewriter, op, ops)


# ------------------------------------------------------------------------ dynamic_reshape
class DynamicReshapeOp_MergeComposition(OfInner):
    """dynamic_reshape(dynamic_reshape(X, _), shape) -> dynamic_reshape(X, shape)."""

    ROOT = "stablehlo.dynamic_reshape"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        replace_by(rewriter, op, type(op), [inner.operands[0], op.operands[1]])


class DynamicReshapeOp_FoldComposedOpsToShapeOperand(OfInner):
    """shape_of(dynamic_reshape(X, shape)) -> shape (when the types are equal)."""

    ROOT = "shape.shape_of"
    INNER = "stablehlo.dynamic_reshape"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        shape = inner.operands[1]
        if shape.type == result_type(op):
            replace_with_values(rewriter, op, [shape], merge=True)


class DynamicReshapeOpIsStatic(RootPattern):
    """dynamic_reshape(X, _) : static -> reshape(X)."""

    ROOT = "stablehlo.dynamic_reshape"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if static_shape(result_type(op)) is not None:
            replace_by(rewriter, op, "stablehlo.reshape", [op.operands[0]], merge=False)


def same_shape_ops() -> frozenset[str]:
    """The ops with MLIR's SameOperandsAndResultShape trait (upstream's elementwise ops)."""
    from stablehlo_py.ir.ops import elementwise

    names = {
        c.name
        for c in elementwise.OPS
        if issubclass(c, elementwise.SAME_SHAPE_BASES)
    }
    names.add("stablehlo.compare")
    return frozenset(names)


_SAME_SHAPE: frozenset[str] | None = None


class DynamicReshapeOpSameOperandAndResultShape(RootPattern):
    """dynamic_reshape(op(dynamic_reshape(X, shape)), shape) -> op(dynamic_reshape(X, shape)) for
    an op whose operands and result have the same shape."""

    ROOT = "stablehlo.dynamic_reshape"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        global _SAME_SHAPE
        if _SAME_SHAPE is None:
            _SAME_SHAPE = same_shape_ops()
        d = op.operands[0]
        if not isinstance(d, OpResult) or d.owner.name not in _SAME_SHAPE:
            return
        inner = defined_by(d.owner.operands[0], "stablehlo.dynamic_reshape")
        if inner is not None and inner.operands[1] is op.operands[1]:
            replace_with_values(rewriter, op, [d.owner.results[0]])


# ------------------------------------------------------------------------ dynamic_iota
class DynamicIotaIsStatic(RootPattern):
    """dynamic_iota(_) : static -> iota."""

    ROOT = "stablehlo.dynamic_iota"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if static_shape(result_type(op)) is not None:
            dim = {"iota_dimension": op.properties["iota_dimension"]}
            replace_by(rewriter, op, "stablehlo.iota", [], dim, merge=False)


class DynamicIotaOpToBroadcast(RootPattern):
    """dynamic_iota(shape, d) of rank >= 2 -> dynamic_broadcast_in_dim(dynamic_iota(shape[d]), shape,
    [d])."""

    ROOT = "stablehlo.dynamic_iota"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dim = iota_dimension_to_broadcast(op)
        if dim is None:
            return
        shape = op.operands[0]
        st = shape.type
        assert isinstance(st, TensorType)
        i64_shape = tensor_type(I64, st.get_shape())
        if isinstance(st.element_type, IndexType):
            cast = op_cls("arith.index_cast").create(operands=[shape], result_types=[i64_shape])
        else:
            cast = build(op_cls("stablehlo.convert"), [shape], {}, [i64_shape], like=op)
        size = build(
            op_cls("stablehlo.slice"),
            [cast.results[0]],
            slice_props([dim], [dim + 1], [1]),
            [tensor_type(I64, (1,))],
            like=op,
        )
        bcast = "stablehlo.dynamic_broadcast_in_dim"
        new = iota_broadcast(op, [size.results[0]], dim, bcast, [shape])
        replace_with_ops(rewriter, op, [cast, size, *new])


# ------------------------------------------------------------------------ dynamic_pad, gather
class DynamicPadOp_ReplaceWithPad(RootPattern):
    """dynamic_pad(X, v, low, high, interior) with constant paddings -> pad."""

    ROOT = "stablehlo.dynamic_pad"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        pads = constant_int_lists(op.operands[2:5])
        if pads is None:
            return
        low, high, interior = (i64_array(p) for p in pads)
        props = {"edge_padding_low": low, "edge_padding_high": high, "interior_padding": interior}
        replace_by(rewriter, op, "stablehlo.pad", list(op.operands[:2]), props)


class DynamicGatherOp_ReplaceWithGather(RootPattern):
    """dynamic_gather(X, i, constant slice sizes) -> gather(X, i, slice_sizes)."""

    ROOT = "stablehlo.dynamic_gather"
    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        attr = stablehlo_constant(op.operands[2])
        sizes = constant_int_list(op.operands[2]) if attr is not None else None
        if sizes is None:
            return
        props = {
            "dimension_numbers": op.properties["dimension_numbers"],
            "slice_sizes": i64_array(sizes),
        }
        if "indices_are_sorted" in op.properties:
            props["indices_are_sorted"] = op.properties["indices_are_sorted"]
        replace_by(rewriter, op, "stablehlo.gather", list(op.operands[:2]), props)


# ------------------------------------------------------------------------ slices
class DynamicSliceOpToSlice(RootPattern):
    """dynamic_slice(X, constant starts) -> slice(X) (starts clamped as dynamic_slice does)."""

    ROOT = "stablehlo.dynamic_slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand = op.operands[0]
        shape = static_shape(operand.type)
        if shape is None:
            return
        sizes = ints(op.properties["slice_sizes"])
        starts = []
        for i, v in enumerate(op.operands[1:]):
            c = constant_int_list(v)
            if c is None or len(c) != 1:
                return
            starts.append(min(max(c[0], 0), shape[i] - sizes[i]))
        limits = [s + n for s, n in zip(starts, sizes)]
        props = slice_props(starts, limits, [1] * len(shape))
        replace_by(rewriter, op, "stablehlo.slice", [operand], props)


class RealDynamicSliceOp_ReplaceWithSlice(RootPattern):
    """real_dynamic_slice(X, constant start, limit, strides) -> slice."""

    ROOT = "stablehlo.real_dynamic_slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        parts = constant_int_lists(op.operands[1:4])
        if parts is not None:
            replace_by(rewriter, op, "stablehlo.slice", [op.operands[0]], slice_props(*parts))


class RealDynamicSliceOpToDynamicSlice(RootPattern):
    """real_dynamic_slice(X, start, start + constant, unit strides) -> dynamic_slice(X, start[i]...,
    sizes = constant)."""

    ROOT = "stablehlo.real_dynamic_slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand, start, limit, strides = op.operands
        s = constant_int_list(strides)
        if s is None or any(x != 1 for x in s):
            return
        sizes = added_constant(limit, start, constant_int_list)
        if sizes is None:
            return
        new_ops, scalars = start_scalars(start, len(sizes), op)
        ds = build(
            op_cls("stablehlo.dynamic_slice"),
            [operand, *scalars],
            {"slice_sizes": i64_array(sizes)},
            [result_type(op)],
            like=op,
        )
        replace_merged(rewriter, op, [*new_ops, ds])


class DynamicUpdateSliceOp_RemoveNoop(RootPattern):
    """dynamic_update_slice(X, constant update with no elements, _) -> X."""

    ROOT = "stablehlo.dynamic_update_slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        update = constant_dense(op.operands[1])
        if update is None or num_elems(update.type) != 0:
            return
        replace_with_values(rewriter, op, [op.operands[0]], merge=True)


class DynamicUpdateSliceOp_FoldToUpdateOperand(RootPattern):
    """dynamic_update_slice(X, U, zeros) -> U when X and U have the same static type."""

    ROOT = "stablehlo.dynamic_update_slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand, update = op.operands[:2]
        if static_shape(operand.type) is None or static_shape(update.type) is None:
            return
        if operand.type != update.type:
            return
        if not all(int_zero(constant_dense(v)) for v in op.operands[2:]):
            return
        replace_with_values(rewriter, op, [update], merge=True)
