"""What the inference rules share: upstream's ``hlo::`` helpers of ``Base.cpp`` (type compatibility
for inference, bounds, the most/least specific type of several) on xDSL types.

Shapes are tuples with ``DYN`` (-1) for `?`; bounds are the `#stablehlo.bounds<...>` encoding of a
ranked tensor (``DYN`` where a dimension has none).  Every failure raises ``InferError`` with
upstream's message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    MemRefType,
    NoneAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.ir.infer.registry import InferError
from stablehlo_py.ir.types import TypeExtensionsAttr, UniformQuantizedType, tensor_type

__all__ = [
    "DYN",
    "bounds_of",
    "bounds_to_encoding",
    "compatible_shape_with_bounds",
    "element_type_compatible",
    "infer_least_specific_type",
    "infer_most_specific_type",
    "is_compatible",
    "is_dynamic",
    "most_specific_dim",
    "ranked",
    "types_compatible",
]

DYN = -1
"""A dynamic dimension size or a missing bound (MLIR's ShapedType::kDynamic)."""


def is_dynamic(size: int) -> bool:
    return size < 0


def bounds_of(t: Attribute) -> tuple[int, ...]:
    """The bounds of a ranked tensor's encoding; () when it has none (upstream's encodingToBounds)."""
    if isinstance(t, TensorType):
        enc = t.encoding
        if isinstance(enc, TypeExtensionsAttr):
            return tuple(enc.bounds)
    return ()


def bounds_to_encoding(bounds: Sequence[int]) -> Attribute | None:
    """The encoding for ``bounds``: None when every dimension is unbounded (upstream's
    boundsToEncoding)."""
    if not bounds or all(is_dynamic(b) for b in bounds):
        return None
    return TypeExtensionsAttr(tuple(bounds))


def ranked(shape: Sequence[int], element: Attribute, bounds: Sequence[int] = ()) -> TensorType:
    """``tensor<shape x element>`` with ``#stablehlo.bounds`` when any bound is given."""
    return tensor_type(element, tuple(shape), bounds_to_encoding(bounds))


def _encoding(t: Attribute) -> Attribute | None:
    enc = getattr(t, "encoding", None)
    return None if enc is None or isinstance(enc, NoneAttr) else enc


# ------------------------------------------------------------------------------- compatibility
_RANKED = (TensorType, MemRefType)
_SHAPED = (TensorType, UnrankedTensorType, MemRefType)
"""MLIR's ShapedType here: tensors and (upstream's HLO_Buffer) memrefs."""


def compatible_shape_with_bounds(a: Attribute, b: Attribute) -> bool:
    """upstream's verifyCompatibleShapeWithBounds: compatible shapes (unranked matches anything,
    else same rank and equal-or-dynamic dimensions), and neither static size above the other's
    bound."""
    if isinstance(a, _RANKED) and isinstance(b, _RANKED):
        sa, sb = a.get_shape(), b.get_shape()
        if len(sa) != len(sb):
            return False
        if any(x != y and not is_dynamic(x) and not is_dynamic(y) for x, y in zip(sa, sb)):
            return False
        for shape, bounds in ((sa, bounds_of(b)), (sb, bounds_of(a))):
            if shape and any(not is_dynamic(bd) and bd < size for size, bd in zip(shape, bounds)):
                return False
        return True
    return True


def element_type_compatible(a: Attribute, b: Attribute) -> bool:
    """upstream's isCompatibleElementTypeForHloTypeInference: equal element types; quantized ones
    need only the same storage type, storage range, expressed type and granularity."""
    ea = a.element_type if isinstance(a, _SHAPED) else a
    eb = b.element_type if isinstance(b, _SHAPED) else b
    qa = isinstance(ea, UniformQuantizedType)
    qb = isinstance(eb, UniformQuantizedType)
    if qa and qb:
        pa, pb = ea.params, eb.params  # type: ignore[union-attr]
        return (
            pa.storage_type == pb.storage_type
            and pa.signed == pb.signed
            and pa.storage_min == pb.storage_min
            and pa.storage_max == pb.storage_max
            and pa.expressed_type == pb.expressed_type
            and (pa.quantized_dimension is None) == (pb.quantized_dimension is None)
        )
    if qa or qb:
        return False
    return ea == eb


def is_compatible(a: Attribute, b: Attribute) -> bool:
    """upstream's isCompatibleForHloTypeInference for two types."""
    if a is b or a == b:
        return True  # (a valid type is compatible with itself: the common case, checked first)
    if isinstance(a, _SHAPED) and isinstance(b, _SHAPED):
        return compatible_shape_with_bounds(a, b) and element_type_compatible(a, b)
    # a tuple is no ShapedType: upstream compares it as an element type, i.e. it must be equal
    return element_type_compatible(a, b)


def types_compatible(a: Sequence[Attribute], b: Sequence[Attribute]) -> bool:
    """upstream's isCompatibleForHloTypeInference for two type ranges."""
    return len(a) == len(b) and all(is_compatible(x, y) for x, y in zip(a, b))


# ------------------------------------------------------------------- most / least specific type
DimFn = Callable[[int, int, int, int, int], tuple[int, int]]


def most_specific_dim(dim: int, ls: int, rs: int, lb: int, rb: int) -> tuple[int, int]:
    """upstream's inferMostSpecificDimAndBound."""
    if not is_dynamic(ls) or not is_dynamic(rs):
        if not is_dynamic(ls) and not is_dynamic(rs) and ls != rs:
            raise InferError(f"Mismatched dimension sizes {ls} and {rs} in dimension {dim}")
        size = rs if is_dynamic(ls) else ls
        if not is_dynamic(lb) or not is_dynamic(rb):
            check = lb if not is_dynamic(lb) else rb
            if size > check:
                raise InferError(
                    f"Mismatched dimension size {size} and bound {check} in dimension {dim}"
                )
        return size, DYN
    if not is_dynamic(lb) and not is_dynamic(rb):
        return DYN, min(lb, rb)
    return DYN, lb if not is_dynamic(lb) else rb


def _least_specific_dim(dim: int, ls: int, rs: int, lb: int, rb: int) -> tuple[int, int]:
    """upstream's inferLeastSpecificDimAndBound."""
    if not is_dynamic(ls) or not is_dynamic(rs):
        if not is_dynamic(ls) and not is_dynamic(rs):
            if ls != rs:
                raise InferError(f"Mismatched dimension sizes {ls} and {rs} in dimension {dim}")
            return ls, DYN
        if not is_dynamic(lb) or not is_dynamic(rb):
            return DYN, max(ls, rb) if not is_dynamic(ls) else max(rs, lb)
        return DYN, DYN
    if not is_dynamic(lb) and not is_dynamic(rb):
        return DYN, max(lb, rb)
    return DYN, DYN


def _with_dim_fn(types: Sequence[TensorType], fn: DimFn) -> TensorType:
    """upstream's inferTypeWithCustomFn over ranked tensor types."""
    first = types[0]
    rank = len(first.get_shape())
    for t in types:
        if len(t.get_shape()) != rank:
            raise InferError(f"Mismatched ranks of types{rank} vs {len(t.get_shape())}")
    sizes = list(first.get_shape())
    b0 = bounds_of(first)
    bounds = list(b0) if b0 else [DYN] * rank
    any_bounds = bool(b0)
    for t in types[1:]:
        tb = bounds_of(t)
        shape = t.get_shape()
        for d in range(rank):
            sizes[d], bounds[d] = fn(d, sizes[d], shape[d], bounds[d], tb[d] if tb else DYN)
    if any_bounds:
        return ranked(sizes, first.element_type, bounds)
    # boundsToEncoding(prototype, {}): no bounds in the first type, its encoding as it is (another
    # dialect's, or the `#stablehlo.bounds<>` of a rank-0 tensor)
    enc = _encoding(first)
    if enc is not None:
        return tensor_type(first.element_type, tuple(sizes), enc)
    return tensor_type(first.element_type, tuple(sizes))


def _map_tuples(
    types: Sequence[Attribute], fn: Callable[[Sequence[Attribute]], Attribute]
) -> Attribute:
    """upstream's mapOverTupleElements."""
    tuples = [t for t in types if isinstance(t, TupleType)]
    if not tuples:
        return fn(types)
    if len(tuples) != len(types):
        raise InferError(
            "Mismatched type kinds: either all types must be tuples, or no types must be tuples"
        )
    n = len(tuples[0].types.data)
    if any(len(t.types.data) != n for t in tuples):
        raise InferError("Mismatched tuple sizes: all tuple sizes must be the same")
    return TupleType(
        ArrayAttr(tuple(_map_tuples([t.types.data[i] for t in tuples], fn) for i in range(n)))
    )


def _most_specific_shaped(types: Sequence[Attribute]) -> Attribute:
    ranked_types = [t for t in types if isinstance(t, TensorType)]
    if not ranked_types:
        return types[0]
    return _with_dim_fn(ranked_types, most_specific_dim)


def _least_specific_shaped(types: Sequence[Attribute]) -> Attribute:
    for t in types:
        if not isinstance(t, TensorType):
            return t
    return _with_dim_fn(list(types), _least_specific_dim)  # type: ignore[arg-type]


def _equal_and_unbounded(types: Sequence[Attribute]) -> bool:
    """Equal ranked tensor types with no `#stablehlo.bounds`: the most and the least specific type
    of these is the first, as given.  (Upstream rebuilds the type even then, which drops a
    `#stablehlo.bounds` that bounds no dimension, `<?>`: such types take the general way.)"""
    first = types[0]
    return (
        isinstance(first, TensorType)
        and not isinstance(first.encoding, TypeExtensionsAttr)
        and all(t is first or t == first for t in types)
    )


def infer_most_specific_type(types: Sequence[Attribute]) -> Attribute:
    """upstream's inferMostSpecificType: the type every one of ``types`` refines to (select,
    clamp, the elementwise ops with dynamic operands)."""
    if _equal_and_unbounded(types):
        return types[0]  # (what the rule gives, without walking dimensions)
    return _map_tuples(types, _most_specific_shaped)


def infer_least_specific_type(types: Sequence[Attribute]) -> Attribute:
    """upstream's inferLeastSpecificType: a type all of ``types`` fit (if/case results)."""
    if _equal_and_unbounded(types):
        return types[0]
    return _map_tuples(types, _least_specific_shaped)
