"""Simplification patterns of statically shaped data-movement ops: broadcast_in_dim, reshape,
transpose, reverse, pad, slice, concatenate, gather, iota, get_dimension_size, tuple and
get_tuple_element (upstream's DRR patterns of these ops and their C++ patterns)."""

from __future__ import annotations

from itertools import pairwise

from stablehlo_py.passes.patterns.simplify.common import (
    OfInner,
    RootPattern,
    build,
    constant_int_list,
    defined_by,
    i64_array,
    ints,
    is_complex_element,
    is_float_element,
    is_int_element,
    is_iota,
    iota_broadcast,
    iota_dimension_to_broadcast,
    is_splat_attr,
    num_elems,
    op_cls,
    rank,
    rebuild,
    replace_by,
    replace_with_ops,
    replace_with_values,
    result_type,
    slice_props,
    splat_constant,
    stablehlo_constant,
    static_shape,
)
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from stablehlo_py.ir.gather_scatter_attrs import GatherDimensionNumbersAttr
from stablehlo_py.ir.types import tensor_type


# ------------------------------------------------------------------------ broadcast_in_dim
class BroadcastInDimOp_RemoveNoop(RootPattern):
    """broadcast_in_dim(X, [iota...]) -> X when the types are equal."""

    ROOT = "stablehlo.broadcast_in_dim"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        (operand,) = op.operands
        if not is_iota(ints(op.properties["broadcast_dimensions"])):
            return
        if result_type(op) != operand.type:
            return
        replace_with_values(rewriter, op, [operand], merge=True)


def _not_reducible_to_reshape(inner: Operation, operand_type) -> bool:
    """BroadcastNotReducibleToReshape: the inner broadcast cannot become a reshape."""
    t = result_type(inner)
    if static_shape(t) is None:
        return True
    dims = ints(inner.properties["broadcast_dimensions"])
    reducible = list(dims) == sorted(dims) and num_elems(t) == num_elems(operand_type)
    return not reducible


class BroadcastInDimOp_MergeComposition(OfInner):
    """broadcast_in_dim(broadcast_in_dim(X, A), B) -> broadcast_in_dim(X, B[A]) unless the inner
    broadcast can become a reshape."""

    ROOT = "stablehlo.broadcast_in_dim"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        operand = inner.operands[0]
        if not _not_reducible_to_reshape(inner, operand.type):
            return
        outer_dims = ints(op.properties["broadcast_dimensions"])
        inner_dims = ints(inner.properties["broadcast_dimensions"])
        merged = i64_array([outer_dims[d] for d in inner_dims])
        replace_by(rewriter, op, type(op), [operand], {"broadcast_dimensions": merged})


class BroadcastInDimOp_ReplaceWithReshape(RootPattern):
    """broadcast_in_dim(X, [sorted...]) -> reshape(X) when the element counts are equal."""

    ROOT = "stablehlo.broadcast_in_dim"
    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        (operand,) = op.operands
        if static_shape(operand.type) is None:
            return
        dims = ints(op.properties["broadcast_dimensions"])
        if list(dims) != sorted(dims):
            return
        if num_elems(result_type(op)) != num_elems(operand.type):
            return
        replace_by(rewriter, op, "stablehlo.reshape", [operand])


class BroadcastInDimOp_ReplaceWithTranspose(RootPattern):
    """broadcast_in_dim(X, dims) -> transpose(X, inverse(dims)) when element counts and ranks
    are equal."""

    ROOT = "stablehlo.broadcast_in_dim"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        (operand,) = op.operands
        if static_shape(operand.type) is None:
            return
        t = result_type(op)
        if num_elems(t) != num_elems(operand.type) or rank(t) != rank(operand.type):
            return
        dims = ints(op.properties["broadcast_dimensions"])
        perm = [0] * len(dims)
        for i, d in enumerate(dims):
            perm[d] = i
        replace_by(rewriter, op, "stablehlo.transpose", [operand], {"permutation": i64_array(perm)})


# ------------------------------------------------------------------------ reshape, transpose
class ReshapeOp_MergeComposition(OfInner):
    """reshape(reshape(X)) -> reshape(X)."""

    ROOT = "stablehlo.reshape"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        replace_by(rewriter, op, type(op), [inner.operands[0]])


class _SameTypeNoop(RootPattern):
    """op(X) -> X when the result type is X's (and, if STATIC, X is statically shaped)."""

    STATIC = False
    MERGE = True

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand = op.operands[0]
        if self.STATIC and static_shape(operand.type) is None:
            return
        if result_type(op) != operand.type:
            return
        replace_with_values(rewriter, op, [operand], merge=self.MERGE)


class ReshapeOp_RemoveNoop(_SameTypeNoop):
    ROOT = "stablehlo.reshape"


class SliceOp_RemoveNoop(_SameTypeNoop):
    ROOT = "stablehlo.slice"
    STATIC = True


class TransposeOp_RemoveNoop(RootPattern):
    """transpose(X, [iota...]) -> X."""

    ROOT = "stablehlo.transpose"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not is_iota(ints(op.properties["permutation"])):
            return
        replace_with_values(rewriter, op, [op.operands[0]], merge=True)


class TransposeOp_TransposeOfTranspose(OfInner):
    """transpose(transpose(X, A), B) -> transpose(X, A[B])."""

    ROOT = "stablehlo.transpose"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        child = ints(inner.properties["permutation"])
        merged = [child[p] for p in ints(op.properties["permutation"])]
        replace_by(rewriter, op, type(op), [inner.operands[0]], {"permutation": i64_array(merged)})


class TransposeIsReshape(RootPattern):
    """transpose(X) -> reshape(X) when it moves only dimensions of size 1."""

    ROOT = "stablehlo.transpose"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand = op.operands[0]
        shape = static_shape(operand.type)
        if shape is None or static_shape(result_type(op)) is None:
            return
        moved = [p for p in ints(op.properties["permutation"]) if shape[p] != 1]
        if any(a > b for a, b in pairwise(moved)):
            return
        replace_by(rewriter, op, "stablehlo.reshape", [operand], merge=False)


# ------------------------------------------------------------------------ reverse, pad
class ReverseOp_EmptyDim(RootPattern):
    ROOT = "stablehlo.reverse"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not ints(op.properties["dimensions"]):
            replace_with_values(rewriter, op, [op.operands[0]])


class ReverseOp_ZeroElements(RootPattern):
    ROOT = "stablehlo.reverse"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if num_elems(op.operands[0].type) == 0:
            replace_with_values(rewriter, op, [op.operands[0]])


class ReverseOp_AllDimsEqualOne(RootPattern):
    ROOT = "stablehlo.reverse"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        shape = static_shape(op.operands[0].type)
        if shape is not None and all(shape[d] == 1 for d in ints(op.properties["dimensions"])):
            replace_with_values(rewriter, op, [op.operands[0]])


class ReverseOp_SplatToNoop(RootPattern):
    ROOT = "stablehlo.reverse"
    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        attr = stablehlo_constant(op.operands[0])
        if attr is not None and is_splat_attr(attr):
            replace_with_values(rewriter, op, [op.operands[0]])


class PadOp_RemoveNoop(RootPattern):
    """pad(X, no padding) -> X."""

    ROOT = "stablehlo.pad"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        for name in ("edge_padding_low", "edge_padding_high", "interior_padding"):
            if any(ints(op.properties[name])):
                return
        if result_type(op) == op.operands[0].type:
            replace_with_values(rewriter, op, [op.operands[0]])


class PadOpBroadcastEmptyTensor(RootPattern):
    """pad(empty, v) -> broadcast_in_dim(v) (dynamic_broadcast_in_dim of the reified result shape
    when the result is dynamic)."""

    ROOT = "stablehlo.pad"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand, pad_value = op.operands
        if num_elems(operand.type) != 0:
            return
        empty = {"broadcast_dimensions": i64_array([])}
        if static_shape(result_type(op)) is not None:
            replace_by(rewriter, op, "stablehlo.broadcast_in_dim", [pad_value], empty, merge=False)
            return
        from stablehlo_py.passes.patterns.simplify.dynamism import reified_shape

        shape = reified_shape(op)
        if shape is None:
            return
        bcast = "stablehlo.dynamic_broadcast_in_dim"
        replace_by(rewriter, op, bcast, [pad_value, shape], empty, merge=False)


# ------------------------------------------------------------------------ slice, concatenate
class SliceOpConcatSimplify(RootPattern):
    """slice(concatenate(X, Y, Z)) -> slice(concatenate(the inputs the slice reads))."""

    ROOT = "stablehlo.slice"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if static_shape(result_type(op)) is None:
            return
        concat = defined_by(op.operands[0], "stablehlo.concatenate")
        if concat is None:
            return
        dim = concat.properties["dimension"].value.data  # type: ignore[attr-defined]
        start = list(ints(op.properties["start_indices"]))
        limit = list(ints(op.properties["limit_indices"]))
        lo, hi = start[dim], limit[dim]
        inputs = list(concat.operands)
        running = 0
        front = concat.results[0].type.get_shape()[dim]  # type: ignore[attr-defined]
        first: int | None = None
        end = len(inputs)
        for i, v in enumerate(inputs):
            shape = v.type.get_shape()  # type: ignore[attr-defined]
            size = shape[dim]
            if size < 0:
                return
            if running + size > lo and first is None:
                first = i
                front = running
            if running < hi:
                end = i + 1
            running += size
        if first is None:
            first = len(inputs)
        count = end - first
        if count == len(inputs) or count <= 0:
            return
        if count > 1 and not concat.results[0].has_one_use():
            return
        new_concat = build(
            type(concat),
            inputs[first:end],
            {"dimension": concat.properties["dimension"]},
            like=concat,
        )
        start[dim] -= front
        limit[dim] -= front
        new = build(
            type(op),
            [new_concat.results[0]],
            {
                "start_indices": i64_array(start),
                "limit_indices": i64_array(limit),
                "strides": op.properties["strides"],
            },
            like=op,
        )
        replace_with_ops(rewriter, op, [new_concat, new])


class ConcatenateOpNoop(RootPattern):
    """concatenate(X) -> X."""

    ROOT = "stablehlo.concatenate"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if len(op.operands) == 1 and op.operands[0].type == result_type(op):
            replace_with_values(rewriter, op, [op.operands[0]])


class ConcatenateOpRemoveEmpty(RootPattern):
    """concatenate(X, Y, []) -> concatenate(X, Y)."""

    ROOT = "stablehlo.concatenate"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dim = op.properties["dimension"].value.data  # type: ignore[attr-defined]
        kept = [v for v in op.operands if v.type.get_shape()[dim] != 0]  # type: ignore[attr-defined]
        if kept and len(kept) < len(op.operands):
            rebuild(rewriter, op, kept)


class ConcatenateOpFlatten(RootPattern):
    """concatenate(concatenate(X, Y), Z) -> concatenate(X, Y, Z) (the inner one used once)."""

    ROOT = "stablehlo.concatenate"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dim = op.properties["dimension"].value.data  # type: ignore[attr-defined]
        flat = []
        changed = False
        for v in op.operands:
            inner = defined_by(v, "stablehlo.concatenate")
            if (
                inner is not None
                and inner.results[0].has_one_use()
                and inner.properties["dimension"].value.data == dim  # type: ignore[attr-defined]
            ):
                flat.extend(inner.operands)
                changed = True
            else:
                flat.append(v)
        if changed:
            rebuild(rewriter, op, flat)


# ------------------------------------------------------------------------ gather
class GatherOpCanon(RootPattern):
    """gather(X, constant index vector) -> slice(X) (+ reshape of the collapsed dims)."""

    ROOT = "stablehlo.gather"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        operand, indices = op.operands
        index = constant_int_list(indices)
        if index is None:
            return
        dn = op.properties["dimension_numbers"]
        assert isinstance(dn, GatherDimensionNumbersAttr)
        d = dn.dims
        if d.index_vector_dim != 0 or len(indices.type.get_shape()) > 1:  # type: ignore[attr-defined]
            return
        if len(index) != len(d.start_index_map):
            return
        shape = static_shape(operand.type)
        if shape is None:
            return
        end = list(ints(op.properties["slice_sizes"]))
        start = [0] * len(end)
        for m, v in zip(d.start_index_map, index):
            offset = min(max(v, 0), shape[m] - end[m])
            start[m] += offset
            end[m] += offset
        slice_shape = tuple(e - s for s, e in zip(start, end))
        elem = result_type(op).element_type  # type: ignore[attr-defined]
        collapse = bool(d.collapsed_slice_dims)
        # the last op takes the gather's type (upstream: result.setType(gather.getType()))
        slice_type = tensor_type(elem, slice_shape) if collapse else result_type(op)
        props = slice_props(start, end, [1] * len(end))
        new_ops = [build(op_cls("stablehlo.slice"), [operand], props, [slice_type], like=op)]
        if collapse:
            new_ops.append(
                build(
                    op_cls("stablehlo.reshape"),
                    [new_ops[0].results[0]],
                    {},
                    [result_type(op)],
                    like=op,
                )
            )
        replace_with_ops(rewriter, op, new_ops)


# ------------------------------------------------------------------------ iota
class IotaOp_FoldScalarToZero(RootPattern):
    """iota(dim) -> 0 when the iota dimension has size 1."""

    ROOT = "stablehlo.iota"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        t = result_type(op)
        dim = op.properties["iota_dimension"].value.data  # type: ignore[attr-defined]
        shape = static_shape(t)
        if (
            shape is not None
            and shape[dim] == 1
            and (is_int_element(t) or is_float_element(t) or is_complex_element(t))
        ):
            replace_with_ops(rewriter, op, [splat_constant(t, 0)])


class IotaOpBroadcast(RootPattern):
    """iota(dim) of rank >= 2 -> broadcast_in_dim(iota(0) of rank 1, [dim])."""

    ROOT = "stablehlo.iota"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dim = iota_dimension_to_broadcast(op)
        if dim is not None:
            new = iota_broadcast(op, [], dim, "stablehlo.broadcast_in_dim")
            replace_with_ops(rewriter, op, new)


# ------------------------------------------------------------------------ get_dimension_size
class GetDimensionSizeOpCanon(RootPattern):
    """get_dimension_size(X, i) -> X.shape[i] when static."""

    ROOT = "stablehlo.get_dimension_size"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        t = op.operands[0].type
        if not isinstance(t, TensorType):
            return
        size = t.get_shape()[op.properties["dimension"].value.data]  # type: ignore[attr-defined]
        if size < 0:
            return
        replace_with_ops(rewriter, op, [splat_constant(result_type(op), size)])  # type: ignore[arg-type]


# ------------------------------------------------------------------------ tuples
class GetTupleElementOp_UnpackTuple(OfInner):
    """get_tuple_element(tuple(X0, X1, ...), i) -> Xi."""

    ROOT = "stablehlo.get_tuple_element"
    INNER = "stablehlo.tuple"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        i = op.properties["index"].value.data  # type: ignore[attr-defined]
        replace_with_values(rewriter, op, [inner.operands[i]])


class TupleIsRepacking(RootPattern):
    """tuple(get_tuple_element(X, 0), get_tuple_element(X, 1), ...) -> X."""

    ROOT = "stablehlo.tuple"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.operands:
            return
        first = defined_by(op.operands[0], "stablehlo.get_tuple_element")
        if first is None:
            return
        source = first.operands[0]
        if source.type != result_type(op):
            return
        for i, v in enumerate(op.operands):
            g = defined_by(v, "stablehlo.get_tuple_element")
            if (
                g is None
                or g.properties["index"].value.data != i  # type: ignore[attr-defined]
                or g.operands[0] is not source
            ):
                return
        replace_with_values(rewriter, op, [source])
