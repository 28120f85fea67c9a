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

from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.patterns.compat_expansions.common import (
    build_op,
    located_like_value,
    op_class,
)
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


class _BatchingDimsExpander(RewritePattern):
    """A gather or scatter with batching dims -> one without: its dimension numbers' fields
    (named by the class attributes below) are rewritten the same way for both ops."""

    root: ClassVar[str]
    DIMENSION_NUMBERS: ClassVar[str]  # the property holding the dimension numbers
    ATTR: ClassVar[type[GatherDimensionNumbersAttr | ScatterDimensionNumbersAttr]]
    BATCHING: ClassVar[str]  # the operand's batching dims
    MERGED_INTO: ClassVar[str]  # the operand dims they become
    INDICES_BATCHING: ClassVar[str]  # the indices' batching dims
    INDEX_MAP: ClassVar[str]  # index vector entry -> operand dim

    @staticmethod
    def indices_position(op: Operation) -> int:
        raise NotImplementedError

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.root:
            return
        dn_attr = op.properties[self.DIMENSION_NUMBERS]
        assert isinstance(dn_attr, self.ATTR)
        dn = dn_attr.dims
        batching = getattr(dn, self.BATCHING)
        if not batching:
            return  # "<op> op has no batching dims"
        position = self.indices_position(op)
        indices = op.operands[position]
        if static_shape(indices.type) is None:
            return  # upstream: "gather op has start indices with dynamic shape, can't expand"
        indices_batching = getattr(dn, self.INDICES_BATCHING)
        index_map = (*batching, *getattr(dn, self.INDEX_MAP))
        operands = list(op.operands)
        operands[position] = concat_indices(
            indices, dn.index_vector_dim, indices_batching, rewriter
        )
        new_dn = replace(
            dn,
            **{
                self.MERGED_INTO: merge_sorted_dims(batching, getattr(dn, self.MERGED_INTO)),
                self.BATCHING: (),
                self.INDICES_BATCHING: (),
                self.INDEX_MAP: index_map,
            },
        )
        props = dict(op.properties)
        props[self.DIMENSION_NUMBERS] = self.ATTR(new_dn)
        props["indices_are_sorted"] = BoolAttr.from_bool(
            updated_indices_are_sorted(_bool(op, "indices_are_sorted"), indices_batching, index_map)
        )
        new = op_class(op.name).create(
            operands=operands,
            result_types=[r.type for r in op.results],
            properties=props,
            regions=[op.detach_region(r) for r in list(op.regions)],
        )
        carry_location(new, op)
        rewriter.replace(op, new)


class GatherWithBatchingDimsExpander(_BatchingDimsExpander):
    """A gather with batching dims -> a gather without (batching dims become collapsed slice
    dims, with their iotas concatenated to the start indices)."""

    root = "stablehlo.gather"
    DIMENSION_NUMBERS = "dimension_numbers"
    ATTR = GatherDimensionNumbersAttr
    BATCHING = "operand_batching_dims"
    MERGED_INTO = "collapsed_slice_dims"
    INDICES_BATCHING = "start_indices_batching_dims"
    INDEX_MAP = "start_index_map"

    @staticmethod
    def indices_position(op: Operation) -> int:
        return 1


class ScatterWithBatchingDimsExpander(_BatchingDimsExpander):
    """A scatter with batching dims -> a scatter without (batching dims become inserted window
    dims, with their iotas concatenated to the scatter indices); the update computation moves."""

    root = "stablehlo.scatter"
    DIMENSION_NUMBERS = "scatter_dimension_numbers"
    ATTR = ScatterDimensionNumbersAttr
    BATCHING = "input_batching_dims"
    MERGED_INTO = "inserted_window_dims"
    INDICES_BATCHING = "scatter_indices_batching_dims"
    INDEX_MAP = "scatter_dims_to_operand_dims"

    @staticmethod
    def indices_position(op: Operation) -> int:
        return (len(op.operands) - 1) // 2  # inputs..., scatter_indices, updates...
