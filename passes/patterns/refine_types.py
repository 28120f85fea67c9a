"""upstream's refineValues / refineReturnTypes / refineReturnShape (StablehloRefineShapes.cpp): give
values a more specific type through a pattern rewriter, as every refinement pattern does.

A refinement is applied only when it adds information (the most specific type of the current type
and the refinement differs from the current type) and every user of a refined value accepts a new
operand type in place: StableHLO, CHLO and `sdy` ops, `func.return` (which is guarded by an
`unrealized_conversion_cast` back to the old type, until the function-type pattern updates the
signature) and `func.call`.  Each function returns True when it changed the IR, False where upstream
reports a match failure.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    TensorType,
    TupleType,
    UnrankedTensorType,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from stablehlo_py.ir.infer import InferError
from stablehlo_py.ir.infer.components import Components
from stablehlo_py.ir.infer.shapes import infer_most_specific_type, is_compatible
from stablehlo_py.ir.types import tensor_type

__all__ = [
    "flatten_types",
    "refine_return_components",
    "refine_return_shape",
    "refine_return_types",
    "refine_values",
    "unflatten_types",
]

_REFINABLE_USER_DIALECTS = frozenset({"stablehlo", "chlo", "sdy"})
_REFINABLE_USERS = frozenset({"func.return", "func.call"})


def _accepts_refined_operand(user: Operation) -> bool:
    return user.name.split(".", 1)[0] in _REFINABLE_USER_DIALECTS or user.name in _REFINABLE_USERS


def refine_values(
    rewriter: PatternRewriter, op: Operation, values: Sequence[SSAValue], types: Sequence[Attribute]
) -> bool:
    """upstream's refineValues: refine each value to the most specific type of its type and its
    refinement; `op` is where the guarding casts of `func.return` operands go (after it)."""
    if len(values) != len(types):
        return False
    refined: list[Attribute] = []
    for value, refinement in zip(values, types):
        try:
            refined.append(infer_most_specific_type([value.type, refinement]))
        except InferError:
            return False
    if all(v.type == r for v, r in zip(values, refined)):
        return False  # "doesn't need refinement"
    values = list(values)
    for value, new_type in zip(values, refined):
        if value.type == new_type:
            continue
        users = [use.operation for use in value.uses]
        if not all(_accepts_refined_operand(u) for u in users):
            return False  # "unsupported refinement: tried to refine ... for user ..."
        old_type = value.type
        value = rewriter.replace_value_with_new_type(value, new_type)
        for user in users:
            rewriter.handle_operation_modification(user)
        returns = [use for use in value.uses if use.operation.name == "func.return"]
        if not returns:
            continue
        cast = UnrealizedConversionCastOp.create(operands=[value], result_types=[old_type])
        rewriter.insert(cast, InsertPoint.after(op))
        for use in returns:
            use.operation.operands[use.index] = cast.results[0]
    return True


def refine_return_types(
    rewriter: PatternRewriter, op: Operation, types: Sequence[Attribute]
) -> bool:
    """upstream's refineReturnTypes(types): refine the op's results (its users are revisited)."""
    return refine_values(rewriter, op, list(op.results), types)


def flatten_types(types: Sequence[Attribute]) -> list[Attribute]:
    """upstream's hlo::flattenTupleTypes."""
    out: list[Attribute] = []
    for t in types:
        if isinstance(t, TupleType):
            out += flatten_types(list(t.types.data))
        else:
            out.append(t)
    return out


def unflatten_types(prototype: Sequence[Attribute], flat: Sequence[Attribute]) -> list[Attribute]:
    """upstream's hlo::unflattenTupleTypes: ``flat`` regrouped as the tuples of ``prototype``."""
    it = iter(flat)

    def rebuild(t: Attribute) -> Attribute:
        if isinstance(t, TupleType):
            return TupleType([rebuild(x) for x in t.types.data])
        return next(it)

    return [rebuild(t) for t in prototype]


def refine_return_components(
    rewriter: PatternRewriter, op: Operation, refinements: Sequence[Components]
) -> bool:
    """upstream's refineReturnTypes(ShapedTypeComponents): the refined shapes keep the results'
    element types; a refinement with another element type, or any encoding on either side, or a shape
    incompatible with the current one, is refused."""
    current_types = [r.type for r in op.results]
    flat = flatten_types(current_types)
    if len(flat) != len(refinements):
        return False
    refined: list[Attribute] = []
    for current, refinement in zip(flat, refinements):
        if not isinstance(current, (TensorType, UnrankedTensorType)):
            if (
                refinement.has_rank
                or refinement.element is not None
                or refinement.encoding is not None
            ):
                return False  # "unsupported refinement"
            refined.append(current)
            continue
        element = current.element_type
        if refinement.element is not None and refinement.element != element:
            return False  # "expected compatible element types"
        if not isinstance(current, TensorType) and not refinement.has_rank:
            refined.append(current)
            continue
        encoding = current.encoding if isinstance(current, TensorType) else None
        if (encoding is not None and _has_encoding(encoding)) or refinement.encoding is not None:
            return False  # "expected compatible encodings"
        shape = refinement.shape if refinement.shape is not None else tuple(current.get_shape())  # type: ignore[union-attr]
        new_type = tensor_type(element, tuple(shape))
        if not is_compatible(current, new_type):
            return False  # "expected compatible shapes"
        refined.append(new_type)
    return refine_return_types(rewriter, op, unflatten_types(current_types, refined))


def _has_encoding(encoding: Attribute) -> bool:
    from xdsl.dialects.builtin import NoneAttr

    return not isinstance(encoding, NoneAttr)


def refine_return_shape(rewriter: PatternRewriter, op: Operation, shape: Sequence[int]) -> bool:
    """upstream's refineReturnShape: one ranked refinement of the op's (single) result."""
    return refine_return_components(rewriter, op, [Components(tuple(shape))])


def refine_return_shape_from(
    rewriter: PatternRewriter, op: Operation, shape_value: SSAValue
) -> bool:
    """refineReturnShape(op, Value): the shape is the constant integers of ``shape_value``."""
    from stablehlo_py.passes.patterns.shape_folder import constant_ints

    shape = constant_ints(shape_value)
    if shape is None:
        return False  # "expected constant output shape"
    return refine_return_shape(rewriter, op, shape)
