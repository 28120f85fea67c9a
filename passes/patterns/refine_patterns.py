"""upstream's per-op shape refinement patterns (`populateStablehloRefineShapesPatterns` in
StablehloRefineShapes.cpp), as one table: op name -> refinement function(op, rewriter) -> changed.

Each function computes what upstream's RefineXxxOpPattern computes -- from the one inference table
(`stablehlo_py.ir.infer`, with `infer.components` where upstream infers shapes only) or from constant
shape operands -- and hands it to `refine_types`.  Ops without an entry fall back to the generic
InferTypeOpInterface pattern (`refine_inferred`), for StableHLO and CHLO ops with an inference rule
that upstream declares InferTypeOpInterface.

`func.return` (UpdateFunctionTypePattern) and `stablehlo.return` in `if`/`case`
(UpdateRegionTypePattern) are in the table too; `func.call` is refined by `refine_calls` (it needs the
pass state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from stablehlo_py.passes.patterns.refine_types import (
    refine_return_components,
    refine_return_shape,
    refine_return_shape_from,
    refine_return_types,
    refine_values,
)
from stablehlo_py.passes.patterns.shape_folder import constant_ints, op_attr
from stablehlo_py.passes.patterns.simplify.common import added_constant
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.infer import InferError, has_rule, infer_op, infer_result_types
from stablehlo_py.ir.infer.components import SHAPE_ONLY_RULES, infer_components
from stablehlo_py.ir.infer.shapes import infer_most_specific_type
from stablehlo_py.ir.types import FLOAT_NAME, tensor_type

__all__ = ["NOT_INFER_TYPE_OP", "OPERAND_WRAPPER", "REFINERS", "RefineOpPattern", "refine_inferred"]

OPERAND_WRAPPER = "stablehlo.shape_refinement_operand_wrapper"
"""upstream's kCustomCallOperandBarrierTarget."""

Refiner = Callable[[Operation, PatternRewriter], bool]

_I64 = IntegerType(64)


def _i64_array(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(_I64, values)


def _int_attr(op: Operation, name: str) -> int:
    a = op_attr(op, name)
    assert isinstance(a, IntegerAttr)
    return a.value.data


# ------------------------------------------------------------------------------- collectives
def _shard_count(op: Operation) -> int | None:
    """Processes per replica group, or None when upstream does not refine: the
    cross_replica_and_partition strategy (a channel handle without use_global_device_ids) needs
    num_partitions, which the pass does not know."""
    if "channel_handle" in op.properties and "use_global_device_ids" not in op.properties:
        return None  # "unsupported strategy"
    groups = op.properties.get("replica_groups")
    if not isinstance(groups, DenseIntOrFPElementsAttr):
        return None  # mesh-axes replica groups: flattened by upstream; not modelled here
    shape = groups.type.get_shape()
    return shape[1] if len(shape) == 2 else None


def _refine_all_gather(op: Operation, rewriter: PatternRewriter) -> bool:
    count = _shard_count(op)
    if count is None:
        return False
    dim = _int_attr(op, "all_gather_dim")
    changed = False
    for operand in op.operands:
        t = operand.type
        if not isinstance(t, TensorType):
            return changed
        shape = list(t.get_shape())
        if shape[dim] >= 0:
            shape[dim] *= count
        # (upstream refines the op's single-result shape once per operand)
        changed |= refine_return_shape(rewriter, op, shape)
    return changed


def _refine_reduce_scatter(op: Operation, rewriter: PatternRewriter) -> bool:
    count = _shard_count(op)
    if not count:
        return False  # also "zero shard count"
    t = op.operands[0].type
    if not isinstance(t, TensorType):
        return False
    shape = list(t.get_shape())
    dim = _int_attr(op, "scatter_dimension")
    if shape[dim] >= 0:
        shape[dim] //= count
    return refine_return_shape(rewriter, op, shape)


# ------------------------------------------------------------------------------- conversions
def _bit_width(t: Attribute) -> int | None:
    from xdsl.dialects.builtin import ComplexType

    e = t.element_type if isinstance(t, TensorType) else getattr(t, "element_type", t)
    if isinstance(e, ComplexType):
        e = e.element_type
    if isinstance(e, IntegerType):
        return e.width.data
    name = FLOAT_NAME.get(type(e))
    if name is None:
        return None
    from stablehlo_py.ir.types import storage_dtype

    return getattr(e, "bitwidth", None) or storage_dtype(e).itemsize * 8


def _refine_bitcast_convert(op: Operation, rewriter: PatternRewriter) -> bool:
    ot, rt = op.operands[0].type, op.results[0].type
    w_in, w_out = _bit_width(ot), _bit_width(rt)
    if w_in is None or w_in != w_out or not isinstance(ot, TensorType):
        return False  # "unsupported bit width"
    return refine_return_shape(rewriter, op, ot.get_shape())


def _refine_by_components(op: Operation, rewriter: PatternRewriter) -> bool:
    """convert, uniform_quantize, dot, dot_general, convolution, dynamic_conv, chlo.ragged_dot:
    upstream's inferXxxOp shape components."""
    try:
        components = infer_components(op)
    except (InferError, KeyError):
        return False
    return refine_return_components(rewriter, op, components)


# ------------------------------------------------------------------------------- custom_call
def _refine_custom_call(op: Operation, rewriter: PatternRewriter) -> bool:
    """upstream's RefineCustomCallOpPattern: results shaped by `indices_of_shape_operands`; the
    operand wrapper of refine-arguments disappears once refined."""
    from stablehlo_py.ir.infer.components import Components

    indices = op_attr(op, "indices_of_shape_operands")
    if not isinstance(indices, DenseIntOrFPElementsAttr):
        return False
    from stablehlo_py.passes.patterns.refine_types import flatten_types

    from stablehlo_py.ir.text.dense import dense_values

    flat = flatten_types([r.type for r in op.results])
    idx = [int(i) for i in dense_values(indices).reshape(-1)]
    if (
        len(idx) != len(flat)
        or len(indices.type.get_shape()) != 1
        or indices.type.element_type != _I64
    ):
        return False
    refinements = []
    for i, result_type in zip(idx, flat):
        if not 0 <= i < len(op.operands):
            return False
        shape = constant_ints(op.operands[i])
        if shape is None:
            return False
        if isinstance(result_type, TensorType):
            rs = result_type.get_shape()
            if len(rs) != len(shape) or any(
                d >= 0 and s >= 0 and d != s for d, s in zip(rs, shape)
            ):
                return False
        refinements.append(Components(tuple(shape)))
    changed = refine_return_components(rewriter, op, refinements)
    if not changed:
        return False
    target = op_attr(op, "call_target_name")
    if getattr(target, "data", None) == OPERAND_WRAPPER:
        operand, result = op.operands[0], op.results[0]
        if operand.type == result.type:
            rewriter.replace_all_uses_with(result, operand)
        if all(r.first_use is None for r in op.results):
            rewriter.erase(op)
    return True


# ------------------------------------------------------------------------------- dynamic ops
def _refine_dynamic_broadcast_in_dim(op: Operation, rewriter: PatternRewriter) -> bool:
    return refine_return_shape_from(rewriter, op, op.operands[1])


def _refine_dynamic_iota(op: Operation, rewriter: PatternRewriter) -> bool:
    return refine_return_shape_from(rewriter, op, op.operands[0])


def _refine_dynamic_reshape(op: Operation, rewriter: PatternRewriter) -> bool:
    return refine_return_shape_from(rewriter, op, op.operands[1])


def _refine_rng(op: Operation, rewriter: PatternRewriter) -> bool:
    return refine_return_shape_from(rewriter, op, op.operands[2])


def _refine_as(
    rewriter: PatternRewriter,
    op: Operation,
    name: str,
    operand_types: list[Attribute],
    properties: dict[str, Attribute] | None,
) -> bool:
    """Refine ``op``'s result types to the ones the static op ``name`` infers from
    ``operand_types`` and ``properties`` (None: an operand was not constant); False when it
    cannot."""
    if properties is None:
        return False
    try:
        types = infer_result_types(name, operand_types, properties)
    except InferError:
        return False
    return refine_return_types(rewriter, op, types)


PAD_PROPERTIES = ("edge_padding_low", "edge_padding_high", "interior_padding")
SLICE_PROPERTIES = ("start_indices", "limit_indices", "strides")


def _constant_arrays(
    values: Sequence[SSAValue], names: Sequence[str]
) -> dict[str, Attribute] | None:
    """The constant ``values`` as i64 array properties ``names``, or None when one is not
    constant."""
    properties: dict[str, Attribute] = {}
    for name, value in zip(names, values):
        ints = constant_ints(value)
        if ints is None:
            return None
        properties[name] = _i64_array(list(ints))
    return properties


def _refine_dynamic_pad(op: Operation, rewriter: PatternRewriter) -> bool:
    pads = _constant_arrays(op.operands[2:5], PAD_PROPERTIES)
    return _refine_as(rewriter, op, "stablehlo.pad", [v.type for v in op.operands[:2]], pads)


def _refine_real_dynamic_slice(op: Operation, rewriter: PatternRewriter) -> bool:
    operand, start_v, limit_v, strides_v = op.operands
    props = _constant_arrays([start_v, limit_v, strides_v], SLICE_PROPERTIES)
    if props is not None:  # fully static attributes (SliceOp style)
        return _refine_as(rewriter, op, "stablehlo.slice", [operand.type], props)
    # static slice sizes (DynamicSliceOp style): limit = start + constant or constant + start
    sizes = added_constant(limit_v, start_v, constant_ints)
    if sizes is None:
        return False
    strides = constant_ints(strides_v)
    if strides is None or any(s != 1 for s in strides):
        return False  # "expected unit strides"
    st = start_v.type
    elem = st.element_type if isinstance(st, TensorType) else _I64
    types = [operand.type, *([tensor_type(elem, ())] * len(sizes))]
    sizes_prop: dict[str, Attribute] = {"slice_sizes": _i64_array(sizes)}
    return _refine_as(rewriter, op, "stablehlo.dynamic_slice", types, sizes_prop)


# ------------------------------------------------------------------------------- regions
def _refine_while(op: Operation, rewriter: PatternRewriter) -> bool:
    """Push the operand types into the cond and body arguments (the op's results follow through
    the generic pattern: while's rule gives its operand types)."""
    types = [v.type for v in op.operands]
    changed = False
    for region in op.regions:
        if region.blocks:
            changed |= refine_values(rewriter, op, list(region.blocks[0].args), types)
    return changed


def _update_function_type(op: Operation, rewriter: PatternRewriter) -> bool:
    """upstream's UpdateFunctionTypePattern: drop the casts refine_values put before `func.return`
    from a more specific type, and give the function the returned types."""
    parent = op.parent_op()
    if not isinstance(parent, FuncOp):
        return False
    updated = [v.type for v in op.operands]
    casts: list[Operation] = []
    for i, operand in enumerate(op.operands):
        cast = operand.owner
        if (
            not isinstance(cast, UnrealizedConversionCastOp)
            or len(cast.operands) != 1
            or len(cast.results) != 1
        ):
            continue
        source, dest = cast.operands[0].type, cast.results[0].type
        try:
            most = infer_most_specific_type([source, dest])
        except InferError:
            continue
        if dest == most:
            continue
        updated[i] = source
        if cast not in casts:
            casts.append(cast)
    if not casts:
        return False  # "doesn't need update"
    for cast in casts:
        rewriter.replace(cast, [], new_results=[cast.operands[0]])
    parent.function_type = FunctionType.from_lists(list(parent.function_type.inputs.data), updated)
    rewriter.handle_operation_modification(parent)
    rewriter.has_done_action = True
    return True


def _update_region_type(op: Operation, rewriter: PatternRewriter) -> bool:
    """upstream's UpdateRegionTypePattern: when an `if`/`case` branch returns more specific types
    than the op's results, revisit the op (whose rule then refines its results)."""
    parent = op.parent_op()
    if parent is None or parent.name not in ("stablehlo.if", "stablehlo.case"):
        return False
    needs_update = False
    for region_type, refined in zip(
        [r.type for r in parent.results], [v.type for v in op.operands]
    ):
        try:
            most = infer_most_specific_type([region_type, refined])
        except InferError:
            continue
        if region_type != most:
            needs_update = True
    if not needs_update:
        return False
    rewriter.handle_operation_modification(parent)
    rewriter.has_done_action = True
    return True


REFINERS: dict[str, Refiner] = {
    "stablehlo.all_gather": _refine_all_gather,
    "stablehlo.bitcast_convert": _refine_bitcast_convert,
    **{name: _refine_by_components for name in SHAPE_ONLY_RULES},
    "stablehlo.custom_call": _refine_custom_call,
    "stablehlo.dynamic_broadcast_in_dim": _refine_dynamic_broadcast_in_dim,
    "stablehlo.dynamic_iota": _refine_dynamic_iota,
    "stablehlo.dynamic_pad": _refine_dynamic_pad,
    "stablehlo.dynamic_reshape": _refine_dynamic_reshape,
    "stablehlo.real_dynamic_slice": _refine_real_dynamic_slice,
    "stablehlo.reduce_scatter": _refine_reduce_scatter,
    "stablehlo.rng": _refine_rng,
    "stablehlo.while": _refine_while,
    "func.return": _update_function_type,
    "stablehlo.return": _update_region_type,
}
"""upstream's RefineXxxOpPattern / UpdateFunctionTypePattern / UpdateRegionTypePattern by op name
(the shape-only ops -- convert, uniform_quantize, dot, dot_general, convolution, dynamic_conv,
chlo.ragged_dot -- share one entry over `infer.components`)."""

NOT_INFER_TYPE_OP = frozenset(SHAPE_ONLY_RULES) | {"stablehlo.rng"}
"""Ops with a rule that upstream refines by a dedicated pattern only (their result element type is
not inferred, or their rule reads constant operands the dedicated pattern reads itself)."""


def refine_inferred(op: Operation, rewriter: PatternRewriter) -> bool:
    """upstream's RefineInferTypeOpInterfacePattern (benefit 0): re-infer a StableHLO/CHLO op's result
    types from its (possibly refined) operands."""
    if op.name.split(".", 1)[0] not in ("stablehlo", "chlo") or op.name in NOT_INFER_TYPE_OP:
        return False
    if not has_rule(op.name):
        return False
    try:
        types = infer_op(op)
    except (InferError, KeyError):
        return False
    return refine_return_types(rewriter, op, types)


class RefineOpPattern(RewritePattern):
    """The table's refinement for the op (the dedicated patterns)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        refiner = REFINERS.get(op.name)
        if refiner is not None:
            refiner(op, rewriter)


class RefineInferredPattern(RewritePattern):
    """The generic InferTypeOpInterface refinement (tried after every other pattern)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        refine_inferred(op, rewriter)
