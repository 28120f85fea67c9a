"""upstream's StableHLO simplification patterns (optimization/StablehloAggressiveSimplification.cpp
and StablehloAggressiveSimplificationPatterns.td), one module per op group:

* ``elementwise``: add, and, or, xor, multiply, subtract, maximum, minimum, compare, convert,
  complex/real/imag, select;
* ``data_movement``: broadcast_in_dim, reshape, transpose, reverse, pad, slice, concatenate,
  gather, iota, get_dimension_size, tuple/get_tuple_element;
* ``dynamism``: the dynamic_* ops, real_dynamic_slice, `shape.shape_of` of a dynamic_reshape;
* ``regions``: reduce, sort, while;
* ``generic``: zero-extent tensors of any StableHLO op, custom_call's backend config.

:func:`populate_simplification_patterns` lists them as upstream's
populateStablehloCanonicalizationPatterns registers them (the DRR patterns, by name, then the C++
ones) ordered as MLIR's PatternApplicator tries them: higher benefit first, ties in that order.
Upstream defines but does not register CompareSelectIntoMinMax and ReorderElementwiseAndShapeOp
(both disabled there); they are not registered here either.
"""

from __future__ import annotations

from stablehlo_py.passes.patterns.simplify import (
    data_movement,
    dynamism,
    elementwise,
    generic,
    regions,
)
from stablehlo_py.passes.patterns.simplify.common import SimplifyOptions, SimplifyPattern
from xdsl.pattern_rewriter import RewritePattern

__all__ = ["SimplifyOptions", "drr_patterns", "populate_simplification_patterns"]

_MODULES = (elementwise, data_movement, dynamism, regions, generic)


def drr_patterns() -> list[type[SimplifyPattern]]:
    """The patterns of StablehloAggressiveSimplificationPatterns.td, in TableGen's record order (by
    name)."""
    found: dict[str, type[SimplifyPattern]] = {}
    for mod in _MODULES:
        for name, obj in vars(mod).items():
            if (
                "Op_" in name
                and not name.startswith("_")
                and isinstance(obj, type)
                and issubclass(obj, SimplifyPattern)
                and obj.__module__ == mod.__name__
            ):
                found[name] = obj
    return [found[n] for n in sorted(found)]


CPP_PATTERNS: tuple[type[SimplifyPattern], ...] = (
    elementwise.CompareOpCanon,
    data_movement.ConcatenateOpFlatten,
    data_movement.ConcatenateOpNoop,
    data_movement.ConcatenateOpRemoveEmpty,
    generic.CustomCallUnregisteredBackendConfigToFfi,
    dynamism.DynamicIotaOpToBroadcast,
    dynamism.DynamicReshapeOpSameOperandAndResultShape,
    dynamism.DynamicSliceOpToSlice,
    data_movement.GatherOpCanon,
    data_movement.IotaOpBroadcast,
    data_movement.PadOpBroadcastEmptyTensor,
    dynamism.RealDynamicSliceOpToDynamicSlice,
    regions.ReduceOpEmptyCanon,
    regions.ReduceOpNoopVariableReturn,
    regions.ReduceOpUnusedResultCanon,
    elementwise.SelectOpCanon,
    data_movement.SliceOpConcatSimplify,
    regions.SortOpDropUnusedArgs,
    regions.SortOpSetDimension,
    data_movement.TransposeIsReshape,
    data_movement.TupleIsRepacking,
    regions.WhileOpImplicitCapture,
    generic.ZeroExtentToEmptyConstant,
    data_movement.GetDimensionSizeOpCanon,
    dynamism.DynamicBroadcastInDimOpNotActuallyDynamic,
    dynamism.DynamicReshapeOpIsStatic,
    dynamism.DynamicIotaIsStatic,
)
"""upstream's C++ patterns in the order populateStablehloCanonicalizationPatterns adds them."""


def populate_simplification_patterns(
    options: SimplifyOptions | None = None,
) -> list[RewritePattern]:
    """Every simplification pattern, in the order the greedy driver tries them on one op (each
    pattern also carries its ``benefit`` and ``root``, which drivers/greedy.py orders by)."""
    options = options or SimplifyOptions()
    classes = [*drr_patterns(), *CPP_PATTERNS]
    ordered = sorted(enumerate(classes), key=lambda ic: (-ic[1].benefit, ic[0]))
    return [cls(options) for _, cls in ordered]
