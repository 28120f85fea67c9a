"""What the simplification patterns share: upstream's DRR constraints and native calls of
StablehloAggressiveSimplificationPatterns.td (constant matchers, `mergeDiscardableAttributes`,
`getConstantLike`, ...), the pass options, and op creation with inferred result types.

A pattern here is an xDSL ``RewritePattern`` with a ``benefit`` (MLIR's PatternBenefit: for a DRR
pattern the number of ops its source pattern matches plus its `addBenefit`; 1 for the C++ ones)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.infer import infer_result_types
from stablehlo_py.ir.ops.base import i64_array_attr
from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import FLOAT_NAME, num_elements, storage_dtype, tensor_type

__all__ = [
    "OfInner",
    "SimplifyOptions",
    "SimplifyPattern",
    "added_constant",
    "build",
    "constant_dense",
    "constant_int_list",
    "constant_int_lists",
    "i64_array",
    "iota_broadcast",
    "iota_dimension_to_broadcast",
    "is_iota",
    "merge_discardable_attributes",
    "num_elems",
    "rebuild",
    "replace_by",
    "replace_merged",
    "replace_with_ops",
    "replace_with_values",
    "result_type",
    "slice_props",
    "splat_constant",
    "start_scalars",
    "static_shape",
]

INT64_MAX = (1 << 63) - 1


@dataclass(frozen=True)
class SimplifyOptions:
    """upstream's StablehloAggressiveSimplificationPassOptions."""

    fold_op_element_limit: int = 65536


class SimplifyPattern(RewritePattern):
    """A simplification pattern: upstream's ``SimplifyOpRewritePattern`` (it sees the options)."""

    benefit: ClassVar[int] = 1

    def __init__(self, options: SimplifyOptions | None = None) -> None:
        self.options = options or SimplifyOptions()


# ------------------------------------------------------------------------------------ types
def result_type(op: Operation) -> Attribute:
    """The type of ``op``'s (first) result."""
    return op.results[0].type


def static_shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked tensor type with no dynamic dimension, else None."""
    if isinstance(t, TensorType):
        shape = t.get_shape()
        if all(d >= 0 for d in shape):
            return shape
    return None


def num_elems(t: Attribute) -> int | None:
    """getNumElements of a statically shaped tensor type, else None."""
    shape = static_shape(t)
    return None if shape is None else num_elements(shape)


def rank(t: Attribute) -> int | None:
    return len(t.get_shape()) if isinstance(t, TensorType) else None


def is_int_element(t: Attribute) -> bool:
    e = t.element_type if isinstance(t, TensorType) else t
    return isinstance(e, (IntegerType, IndexType))


def is_float_element(t: Attribute) -> bool:
    e = t.element_type if isinstance(t, TensorType) else t
    return type(e) in FLOAT_NAME


def is_complex_element(t: Attribute) -> bool:
    from xdsl.dialects.builtin import ComplexType

    e = t.element_type if isinstance(t, TensorType) else t
    return isinstance(e, ComplexType)


def is_pred(t: Attribute) -> bool:
    """HLO_PredTensor: a tensor of i1."""
    return (
        isinstance(t, TensorType)
        and isinstance(t.element_type, IntegerType)
        and t.element_type.width.data == 1
    )


def ints(a: Attribute | None) -> tuple[int, ...]:
    """The values of a DenseArrayBase (an empty tuple when absent)."""
    if a is None:
        return ()
    assert isinstance(a, DenseArrayBase)
    return tuple(a.get_values())  # type: ignore[arg-type]


def slice_props(
    start: Sequence[int], limit: Sequence[int], strides: Sequence[int]
) -> dict[str, Attribute]:
    """`stablehlo.slice`'s properties."""
    return {
        "start_indices": i64_array(start),
        "limit_indices": i64_array(limit),
        "strides": i64_array(strides),
    }


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return i64_array_attr([int(v) for v in values])


def is_iota(values: Sequence[int]) -> bool:
    """upstream's isIotaRange: 0, 1, 2, ..."""
    return all(v == i for i, v in enumerate(values))


# ------------------------------------------------------------------------------------ constants
def _const_shape_values(op: Operation) -> DenseIntOrFPElementsAttr | None:
    """`shape.const_shape`'s folded value: its extents as a tensor of index (or its result type)."""
    for name in ("shape", "value"):
        a = op.properties.get(name)
        if a is None:
            a = op.attributes.get(name)
        if isinstance(a, DenseIntOrFPElementsAttr):
            return a
        if isinstance(a, DenseArrayBase) or (a is not None and hasattr(a, "data")):
            try:
                vals = [int(v) for v in a.get_values()]  # type: ignore[attr-defined]
            except (AttributeError, TypeError):
                continue
            t = op.results[0].type
            if not isinstance(t, TensorType):
                t = TensorType(IndexType(), (len(vals),))
            return make_dense(t, np.array(vals, dtype=storage_dtype(t.element_type)))
    return None


CONSTANT_LIKE = frozenset({"stablehlo.constant", "chlo.constant", "arith.constant"})
"""The ConstantLike ops whose value is their `value` attribute (upstream's m_Constant); also
`shape.const_shape` (below), whose folded value is its extents."""


def constant_dense(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    """upstream's ``matchPattern(value, m_Constant(&attr))`` for dense element values."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    if owner.name in CONSTANT_LIKE:
        a = owner.properties.get("value")
        if a is None:
            a = owner.attributes.get("value")
        return a if isinstance(a, DenseIntOrFPElementsAttr) else None
    if owner.name == "shape.const_shape":
        return _const_shape_values(owner)
    return None


def is_constant_op(value: SSAValue) -> bool:
    """The value is defined by a `stablehlo.constant` (DRR's `StableHLO_ConstantOp` match)."""
    return isinstance(value, OpResult) and value.owner.name == "stablehlo.constant"


def stablehlo_constant(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    if not is_constant_op(value):
        return None
    a = value.owner.properties.get("value")  # type: ignore[union-attr]
    return a if isinstance(a, DenseIntOrFPElementsAttr) else None


def constant_int_list(value: SSAValue) -> list[int] | None:
    """hlo::matchInts / DenseIntElementsAttr values (sign-extended) of a constant, else None."""
    a = constant_dense(value)
    if a is None or not is_int_element(a.type):
        return None
    return [int(v) for v in np.asarray(dense_values(a)).reshape(-1)]


def constant_int_lists(values: Sequence[SSAValue]) -> list[list[int]] | None:
    """`constant_int_list` of each value when every one is constant, else None."""
    lists = [constant_int_list(v) for v in values]
    return None if any(c is None for c in lists) else lists  # type: ignore[return-value]


def _splat(a: DenseIntOrFPElementsAttr) -> np.generic | None:
    """The splat value of a non-empty dense attribute whose elements are all equal, else None."""
    v = np.asarray(dense_values(a)).reshape(-1)
    if v.size == 0:
        return None
    first = v[0]
    if v.size > 1 and not bool(np.all(v == first)):
        return None
    return first


def _int_splat(a: DenseIntOrFPElementsAttr | None) -> np.generic | None:
    """The splat value of an integer (or index) constant, else None."""
    return _splat(a) if a is not None and is_int_element(a.type) else None


def _float_splat(a: DenseIntOrFPElementsAttr | None) -> np.generic | None:
    """The splat value of a float constant, else None."""
    return _splat(a) if a is not None and is_float_element(a.type) else None


def int_zero(a: DenseIntOrFPElementsAttr | None) -> bool:
    """m_Zero: an integer splat of 0."""
    s = _int_splat(a)
    return s is not None and int(s) == 0


def int_one(a: DenseIntOrFPElementsAttr | None) -> bool:
    """m_One: an integer splat of 1 (i1 true)."""
    s = _int_splat(a)
    return s is not None and int(bool(s) if isinstance(s, np.bool_) else s) == 1


def int_all_ones(a: DenseIntOrFPElementsAttr | None) -> bool:
    """An integer splat with all bits set (i1 true, -1, the unsigned maximum)."""
    s = _int_splat(a)
    if s is None:
        return False
    if isinstance(s, np.bool_):
        return bool(s)
    dt = np.asarray(s).dtype
    return int(s) == int(np.array(-1).astype(dt)) if dt.kind in "iu" else False


def float_zero(a: DenseIntOrFPElementsAttr | None) -> bool:
    """m_AnyZeroFloat: a float splat of +0 or -0."""
    s = _float_splat(a)
    return s is not None and float(s) == 0.0


def float_one(a: DenseIntOrFPElementsAttr | None) -> bool:
    """m_OneFloat: a float splat of 1.0."""
    s = _float_splat(a)
    return s is not None and float(s) == 1.0


def any_zero(a: DenseIntOrFPElementsAttr | None) -> bool:
    return int_zero(a) or float_zero(a)


def any_one(a: DenseIntOrFPElementsAttr | None) -> bool:
    return int_one(a) or float_one(a)


def is_splat_attr(a: DenseIntOrFPElementsAttr) -> bool:
    return _splat(a) is not None


def splat_constant(t: TensorType, value: int | bool) -> Operation:
    """upstream's getConstantLike / a splat `stablehlo.constant` of ``value`` and type ``t``."""
    from stablehlo_py.ir.ops.misc import ConstantOp

    dt = storage_dtype(t.element_type)
    arr = np.full(static_shape(t) or (), value).astype(dt)
    attr = make_dense(t, arr)
    return ConstantOp.create(properties={"value": attr}, result_types=[t])


def empty_constant(t: TensorType) -> Operation:
    """A `stablehlo.constant dense<>` of a zero-element tensor type."""
    from stablehlo_py.ir.ops.misc import ConstantOp

    arr = np.zeros(static_shape(t) or (0,), dtype=storage_dtype(t.element_type))
    return ConstantOp.create(properties={"value": make_dense(t, arr)}, result_types=[t])


# ------------------------------------------------------------------------------------ attributes
FRONTEND = "mhlo.frontend_attributes"
PAYLOAD = "xla_metadata_payload"


def discardable(op: Operation) -> dict[str, Attribute]:
    """The op's discardable attributes (its attribute dictionary; inherent ones are properties)."""
    return dict(op.attributes)


def merge_discardable_attributes(source: Operation | None, dest: Operation | None) -> None:
    """upstream's mergeDiscardableAttributes: ``source``'s discardable attributes onto ``dest``
    (source wins, except that `mhlo.frontend_attributes` dictionaries merge key by key, keeping
    the surviving op's own `xla_metadata_payload`).  Nothing when either is not an op."""
    if source is None or dest is None:
        return
    src = discardable(source)
    if not src:
        return
    merged = discardable(dest)
    for name, value in src.items():
        old = merged.get(name)
        if (
            name == FRONTEND
            and isinstance(old, DictionaryAttr)
            and isinstance(value, DictionaryAttr)
        ):
            fe = dict(old.data)
            for k, v in value.data.items():
                if k == PAYLOAD and PAYLOAD in fe:
                    continue
                fe[k] = v
            merged[name] = DictionaryAttr(dict(sorted(fe.items())))
        else:
            merged[name] = value
    dest.attributes.clear()
    dest.attributes.update(merged)


def defining_op(value: SSAValue) -> Operation | None:
    return value.owner if isinstance(value, OpResult) else None


def merge_into_value(source: Operation, value: SSAValue) -> None:
    merge_discardable_attributes(source, defining_op(value))


# ------------------------------------------------------------------------------------ building
def build(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    properties: Mapping[str, Attribute] | None = None,
    result_types: Sequence[Attribute] | None = None,
    attributes: Mapping[str, Attribute] | None = None,
    like: Operation | None = None,
) -> Operation:
    """An op of ``cls``; its result types inferred by the op's rule when not given (upstream's
    builders without result types).  ``like``: the op it replaces (location carried)."""
    props = dict(properties or {})
    if result_types is None:
        result_types = infer_result_types(
            cls.name,  # type: ignore[attr-defined]
            [v.type for v in operands],
            props,
            operands=list(operands),
        )
    op = cls.create(
        operands=list(operands),
        result_types=list(result_types),
        properties=props,
        attributes=dict(attributes or {}),
    )
    if like is not None:
        from stablehlo_py.passes.drivers._common import carry_location

        carry_location(op, like)
    return op


OWN_DIALECTS = ("stablehlo.", "chlo.")


def retypes_foreign_use(op: Operation, values: Sequence[SSAValue | None]) -> bool:
    """A value of another type than the result it replaces would reach a user outside StableHLO
    and CHLO (func.return, whose types must match the function's): upstream's DRR replacements
    do not check it and would leave invalid IR."""
    for r, v in zip(op.results, values):
        if v is None or v.type == r.type:
            continue
        if any(not u.operation.name.startswith(OWN_DIALECTS) for u in r.uses):
            return True
    return False


def replace_with_values(
    rewriter: PatternRewriter,
    op: Operation,
    values: Sequence[SSAValue | None],
    merge: bool = False,
) -> None:
    """Replace ``op``'s results by ``values`` (None: a result without uses) and erase it; with
    ``merge``, its discardable attributes go to the op defining the (first) value first.  Nothing
    happens when a value of another type would reach a user outside StableHLO."""
    if retypes_foreign_use(op, values):
        return
    if merge and values and values[0] is not None:
        merge_into_value(op, values[0])
    rewriter.replace(op, [], list(values))  # type: ignore[arg-type]


def replace_with_ops(
    rewriter: PatternRewriter,
    op: Operation,
    new_ops: Sequence[Operation],
    values: Sequence[SSAValue] | None = None,
) -> None:
    """Insert ``new_ops`` before ``op`` and replace its results by ``values`` (default: the last
    new op's results)."""
    rewriter.replace(op, list(new_ops), None if values is None else list(values))


def rebuild(
    rewriter: PatternRewriter,
    op: Operation,
    operands: Sequence[SSAValue],
    properties: Mapping[str, Attribute] | None = None,
    attributes: Mapping[str, Attribute] | None = None,
) -> None:
    """Replace ``op`` by an equal op of ``operands`` (and ``properties`` and ``attributes``,
    default its own): where upstream changes an op in place, a new op at its place prints the
    same and leaves no state derived from the old one (e.g. an interpreter's prepared step)."""
    new = build(
        type(op),
        operands,
        dict(op.properties if properties is None else properties),
        [r.type for r in op.results],
        dict(op.attributes if attributes is None else attributes),
        like=op,
    )
    replace_with_ops(rewriter, op, [new])


def replace_merged(rewriter: PatternRewriter, op: Operation, new_ops: Sequence[Operation]) -> None:
    """upstream's DRR replacement by new ops: ``op``'s discardable attributes merged onto the last
    of ``new_ops`` (mergeDiscardableAttributes), which then replace ``op``."""
    merge_discardable_attributes(op, new_ops[-1])
    replace_with_ops(rewriter, op, new_ops)


def replace_by(
    rewriter: PatternRewriter,
    op: Operation,
    cls: type[Operation] | str,
    operands: Sequence[SSAValue],
    properties: Mapping[str, Attribute] | None = None,
    merge: bool = True,
) -> None:
    """Replace ``op`` by one new op of ``cls`` (a class or an op name) with ``operands`` and
    ``properties``, of ``op``'s result type and at its location; with ``merge`` (a DRR
    replacement) ``op``'s discardable attributes go onto it (`replace_merged`)."""
    cls = op_cls(cls) if isinstance(cls, str) else cls
    new = build(cls, operands, properties, [result_type(op)], like=op)
    if merge:
        replace_merged(rewriter, op, [new])
    else:
        replace_with_ops(rewriter, op, [new])


def added_constant(
    limit: SSAValue, start: SSAValue, constant: Callable[[SSAValue], Sequence[int] | None]
) -> Sequence[int] | None:
    """The constant c (read by ``constant``) when ``limit`` is `stablehlo.add(start, c)` or
    `stablehlo.add(c, start)`, else None: a real_dynamic_slice's static slice sizes."""
    add = defined_by(limit, "stablehlo.add")
    if add is None:
        return None
    lhs, rhs = add.operands
    if lhs is start and (c := constant(rhs)) is not None:
        return c
    if rhs is start:
        return constant(lhs)
    return None


def start_scalars(
    start: SSAValue, count: int, like: Operation
) -> tuple[list[Operation], list[SSAValue]]:
    """The first ``count`` elements of the 1-D ``start`` as 0-d tensors, for a dynamic_slice's start
    indices (upstream's RealDynamicSliceOpToDynamicSlice): a slice and a reshape per element, at
    ``like``'s location.  Returns the new ops and the scalars."""
    elem = start.type.element_type  # type: ignore[attr-defined]
    ops: list[Operation] = []
    scalars: list[SSAValue] = []
    for i in range(count):
        one = build(
            op_cls("stablehlo.slice"),
            [start],
            slice_props([i], [i + 1], [1]),
            [tensor_type(elem, (1,))],
            like=like,
        )
        scalar = build(
            op_cls("stablehlo.reshape"), [one.results[0]], {}, [tensor_type(elem, ())], like=like
        )
        ops += [one, scalar]
        scalars.append(scalar.results[0])
    return ops, scalars


def iota_dimension_to_broadcast(op: Operation) -> int | None:
    """The iota dimension of an iota (or dynamic_iota) ``op`` of rank 2 or more, which
    `iota_broadcast` can replace; else None."""
    t = result_type(op)
    if not isinstance(t, TensorType) or len(t.get_shape()) < 2:
        return None
    return op.properties["iota_dimension"].value.data  # type: ignore[attr-defined]


def iota_broadcast(
    op: Operation, iota_operands: Sequence[SSAValue], dim: int, broadcast: str, shape=()
) -> list[Operation]:
    """upstream's IotaOpBroadcast and DynamicIotaOpToBroadcast: an iota of ``op``'s class and
    rank 1 (of ``iota_operands``) along ``op``'s dimension ``dim``, and its ``broadcast`` (an op
    name; ``shape``: its further operands) to ``op``'s type along ``dim``."""
    t = result_type(op)
    iota = build(
        type(op),
        list(iota_operands),
        {"iota_dimension": IntegerAttr(0, IntegerType(64))},
        [tensor_type(t.element_type, (t.get_shape()[dim],))],  # type: ignore[attr-defined]
        like=op,
    )
    new = build(
        op_cls(broadcast),
        [iota.results[0], *shape],
        {"broadcast_dimensions": i64_array([dim])},
        [t],
        like=op,
    )
    return [iota, new]


def parent_block(op: Operation) -> Block | None:
    return op.parent_block()


def op_cls(name: str) -> type[Operation]:
    """The op class registered under ``name`` (`stablehlo.maximum` -> MaximumOp)."""
    from stablehlo_py.ir.dialects import default_registry

    return default_registry().ops[name]


def modified(rewriter: PatternRewriter, op: Operation) -> None:
    """Tell the driver ``op`` was changed in place (MLIR's modifyOpInPlace)."""
    rewriter.notify_op_modified(op)


def build_constant(attr: DenseIntOrFPElementsAttr) -> Operation:
    """A `stablehlo.constant` of ``attr``."""
    from stablehlo_py.ir.ops.misc import ConstantOp

    return ConstantOp.create(properties={"value": attr}, result_types=[attr.type])


class RootPattern(SimplifyPattern):
    """A pattern rooted at ops named ``ROOT`` (None: any op)."""

    ROOT: ClassVar[str | None] = None

    @property
    def root(self) -> str | None:
        """The op name the greedy driver offers this pattern (None: every op)."""
        return self.ROOT

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.ROOT is None or op.name == self.ROOT:
            self.rewrite(op, rewriter)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        raise NotImplementedError


class OfInner(RootPattern):
    """A pattern of a ``ROOT`` op whose first operand an ``INNER`` op defines (default: another
    ``ROOT`` op, a composition); its benefit is DRR's for a source pattern of two ops."""

    INNER: ClassVar[str | None] = None
    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        inner = defined_by(op.operands[0], self.INNER or self.ROOT)  # type: ignore[arg-type]
        if inner is not None:
            self.rewrite_inner(op, inner, rewriter)

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        raise NotImplementedError


def defined_by(value: SSAValue, name: str) -> Operation | None:
    """The op named ``name`` defining ``value``, else None."""
    return value.owner if isinstance(value, OpResult) and value.owner.name == name else None
