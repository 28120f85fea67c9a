"""Gather and scatter with batching dimensions (new in 1.1.0) as gather and scatter without them:
upstream's ``GatherWithBatchingDimsExpander`` and ``ScatterWithBatchingDimsExpander``
(StablehloCompatibilityExpander.cpp).

Each batching dimension becomes a collapsed slice dimension (gather) or an inserted window dimension
(scatter) of the operand, and an ``iota`` along the matching indices dimension is concatenated in
front of the start indices, so every index vector names its own batch explicitly.  The index
element type is promoted (to i32, else i64) when a batching dimension's size does not fit in it;
`index_vector_dim == rank` indices get a trailing dimension of size 1 first.  Indices of dynamic
shape cannot be expanded (the op is left as it is, as upstream does).  As upstream's builders, the
new gather/scatter has the original's properties but not its discardable attributes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import ClassVar

from stablehlo_py.passes._common import carry_location
from stablehlo_py.passes.compat_expansions.common import build_op, located_like_value, op_class
from xdsl.dialects.builtin import (
    BoolAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.gather_scatter_attrs import (
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
)

__all__ = ["GatherWithBatchingDimsExpander", "ScatterWithBatchingDimsExpander", "static_shape"]


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type with no dynamic dimension, else None."""
    if not isinstance(t, TensorType):
        return None
    shape = tuple(t.get_shape())
    return None if any(d < 0 for d in shape) else shape


def merge_sorted_dims(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """std::merge of two sorted lists."""
    return tuple(sorted((*a, *b)))


def _fits(size: int, t: IntegerType) -> bool:
    width = t.width.data
    if t.signedness.data == Signedness.UNSIGNED:
        return 0 <= size < (1 << width)
    return -(1 << (width - 1)) <= size < (1 << (width - 1))


def promote_type_for_size(t: Attribute, size: int) -> Attribute:
    """upstream's promoteTypeForSize: an integer type too narrow for ``size`` becomes i32 or i64."""
    if not isinstance(t, IntegerType) or _fits(size, t):
        return t
    return i32 if _fits(size, i32) else i64


def updated_indices_are_sorted(
    sorted_: bool, indices_batching_dims: Sequence[int], updated_index_map: Sequence[int]
) -> bool:
    """Sorted indices stay sorted when both the batching dims and the new index map are sorted."""
    return (
        sorted_
        and list(indices_batching_dims) == sorted(indices_batching_dims)
        and list(updated_index_map) == sorted(updated_index_map)
    )


def concat_indices(
    indices: SSAValue,
    index_vector_dim: int,
    batching_dims: Sequence[int],
    rewriter: PatternRewriter,
) -> SSAValue:
    """upstream's createConcatIndices: ``iota``s along ``batching_dims`` concatenated in front of
    the indices along ``index_vector_dim`` (each new op at the indices' location)."""
    itype = indices.type
    assert isinstance(itype, TensorType)
    shape = list(itype.get_shape())
    element: Attribute = itype.get_element_type()
    for d in batching_dims:
        element = promote_type_for_size(element, shape[d])

    def emit(op: Operation) -> SSAValue:
        located_like_value(op, indices)
        rewriter.insert(op)
        return op.results[0]

    if element != itype.get_element_type():
        indices = emit(
            build_op("stablehlo.convert", [indices], result_types=[TensorType(element, shape)])
        )
    on_last = index_vector_dim == len(shape)
    iota_shape = (
        [*shape, 1] if on_last else [1 if i == index_vector_dim else s for i, s in enumerate(shape)]
    )
    iota_type = TensorType(element, iota_shape)
    if on_last:
        indices = emit(build_op("stablehlo.reshape", [indices], result_types=[iota_type]))
    parts = [
        emit(
            build_op(
                "stablehlo.iota",
                [],
                {"iota_dimension": IntegerAttr(d, 64)},
                result_types=[iota_type],
            )
        )
        for d in batching_dims
    ]
    concat = build_op(
        "stablehlo.concatenate", [*parts, indices], {"dimension": IntegerAttr(index_vector_dim, 64)}
    )
    return emit(concat)


def _bool(op: Operation, name: str) -> bool:
    a = op.properties.get(name)
    return isinstance(a, IntegerAttr) and bool(a.value.data)


class GatherWithBatchingDimsExpander(RewritePattern):
    """A gather with batching dims -> a gather without (batching dims become collapsed slice
    dims, with their iotas concatenated to the start indices)."""

    root: ClassVar[str] = "stablehlo.gather"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.root:
            return
        dn_attr = op.properties["dimension_numbers"]
        assert isinstance(dn_attr, GatherDimensionNumbersAttr)
        dn = dn_attr.dims
        if not dn.operand_batching_dims:
            return  # "gather op has no batching dims"
        start_indices = op.operands[1]
        if static_shape(start_indices.type) is None:
            return  # "gather op has start indices with dynamic shape, can't expand"
        collapsed = merge_sorted_dims(dn.operand_batching_dims, dn.collapsed_slice_dims)
        index_map = (*dn.operand_batching_dims, *dn.start_index_map)
        new_indices = concat_indices(
            start_indices, dn.index_vector_dim, dn.start_indices_batching_dims, rewriter
        )
        new_dn = replace(
            dn,
            collapsed_slice_dims=collapsed,
            operand_batching_dims=(),
            start_indices_batching_dims=(),
            start_index_map=index_map,
        )
        props = dict(op.properties)
        props["dimension_numbers"] = GatherDimensionNumbersAttr(new_dn)
        props["indices_are_sorted"] = BoolAttr.from_bool(
            updated_indices_are_sorted(
                _bool(op, "indices_are_sorted"), dn.start_indices_batching_dims, index_map
            )
        )
        new = op_class("stablehlo.gather").create(
            operands=[op.operands[0], new_indices],
            result_types=[r.type for r in op.results],
            properties=props,
        )
        carry_location(new, op)
        rewriter.replace(op, new)


class ScatterWithBatchingDimsExpander(RewritePattern):
    """A scatter with batching dims -> a scatter without (batching dims become inserted window
    dims, with their iotas concatenated to the scatter indices); the update computation moves."""

    root: ClassVar[str] = "stablehlo.scatter"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.root:
            return
        dn_attr = op.properties["scatter_dimension_numbers"]
        assert isinstance(dn_attr, ScatterDimensionNumbersAttr)
        dn = dn_attr.dims
        if not dn.input_batching_dims:
            return  # "scatter op has no batching dims"
        n = (len(op.operands) - 1) // 2
        inputs, scatter_indices, updates = op.operands[:n], op.operands[n], op.operands[n + 1 :]
        if static_shape(scatter_indices.type) is None:
            return  # upstream: "gather op has start indices with dynamic shape, can't expand"
        inserted = merge_sorted_dims(dn.input_batching_dims, dn.inserted_window_dims)
        to_operand = (*dn.input_batching_dims, *dn.scatter_dims_to_operand_dims)
        new_indices = concat_indices(
            scatter_indices, dn.index_vector_dim, dn.scatter_indices_batching_dims, rewriter
        )
        new_dn = replace(
            dn,
            inserted_window_dims=inserted,
            input_batching_dims=(),
            scatter_indices_batching_dims=(),
            scatter_dims_to_operand_dims=to_operand,
        )
        props = dict(op.properties)
        props["scatter_dimension_numbers"] = ScatterDimensionNumbersAttr(new_dn)
        props["indices_are_sorted"] = BoolAttr.from_bool(
            updated_indices_are_sorted(
                _bool(op, "indices_are_sorted"), dn.scatter_indices_batching_dims, to_operand
            )
        )
        region = op.regions[0]
        body = op.detach_region(region)
        new = op_class("stablehlo.scatter").create(
            operands=[*inputs, new_indices, *updates],
            result_types=[r.type for r in op.results],
            properties=props,
            regions=[body],
        )
        carry_location(new, op)
        rewriter.replace(op, new)
