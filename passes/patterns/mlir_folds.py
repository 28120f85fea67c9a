"""MLIR's fold hooks (`Operation::fold`) of the shape, tensor and arith ops stablehlo-py reads, for
the dialect conversion (`drivers/conversion.py`), which tries an op's fold before its pattern.

    fold(op) -> None                 does not fold
              | Rewrite(...)         folds in place (new operands / properties)
              | [value | attribute]  one per result: an existing value, or a constant to materialize
    materialize(value, type, op)     the op's dialect's materializeConstant (unlinked op or None)

As MLIR's: a constant-like op does not fold; an op's own fold runs first (its first applicable rule
decides, even when it gives a constant the caller then cannot use); when it gives nothing, the
Commutative trait moves constant operands last in place (`COMMUTATIVE`); `arith.cmpi` with a
constant left operand swaps its operands and predicate in place.  Operand constants are the values
of constant-like defining ops (`arith.constant`, `stablehlo.constant`, `chlo.constant`,
`shape.const_shape`, `shape.const_size`, `shape.const_witness`).

Modelled folds (mlir/lib/Dialect/{Shape,Tensor,Arith}/IR): shape.shape_of (a static shape),
shape.broadcast (one operand of the result's type; constant shapes), shape.num_elements (a constant
shape), shape.to_extent_tensor and shape.size_to_index (a constant; an operand of the result's
type), shape.concat (constant shapes), shape.any (a constant last operand), tensor.dim (a static dimension), tensor.extract (of tensor.from_elements, of a constant),
tensor.from_elements (constant elements), arith.index_cast (a constant), arith.addi/subi/muli/divsi
(neutral and absorbing operands, add/sub pairs, constants), arith.maxsi (equal operands, extreme
constants, constants), arith.select (constant or equal choices, `select %x, true, false`, a cmpi
eq/ne of the two choices), arith.cmpi (constant operands, operand order), and the float binary ops
(`passes/patterns/arith_float_folds.py`, shared with canonicalize).  Any other op: no fold but the
Commutative trait's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import tensor_type
from stablehlo_py.passes.patterns.arith_float_folds import fold_float_binary

__all__ = ["COMMUTATIVE", "FOLDS", "Rewrite", "constant_of", "fold", "materialize"]

INDEX = IndexType()


@dataclass
class Rewrite:
    """An in-place fold: the op's new operands (and properties to set)."""

    operands: list[SSAValue]
    properties: dict[str, Attribute] = field(default_factory=dict)


FoldResult = None | Rewrite | list[SSAValue | Attribute]

# ------------------------------------------------------------------------------------ constants
_CONSTANT_PROPERTY = {
    "arith.constant": "value",
    "stablehlo.constant": "value",
    "chlo.constant": "value",
    "shape.const_shape": "shape",
    "shape.const_size": "value",
    "shape.const_witness": "passing",
}
"""Constant-like ops -> the property holding their value."""


def is_constant_op(op: Operation) -> bool:
    return op.name in _CONSTANT_PROPERTY


def constant_of(value: SSAValue) -> Attribute | None:
    """m_Constant: the value of a constant-like op defining ``value``."""
    if not isinstance(value, OpResult):
        return None
    key = _CONSTANT_PROPERTY.get(value.owner.name)
    if key is None:
        return None
    found = value.owner.properties.get(key)
    return found if found is not None else value.owner.attributes.get(key)


def _int_values(attr: Attribute | None) -> np.ndarray | None:
    """An integer constant's values (a scalar as a 0-d array); None for other constants."""
    if isinstance(attr, IntegerAttr):
        return np.array(attr.value.data, dtype=object)
    if isinstance(attr, DenseIntOrFPElementsAttr) and isinstance(
        attr.get_element_type(), (IntegerType, IndexType)
    ):
        return np.asarray(dense_values(attr)).astype(object)
    return None


def _splat_int(attr: Attribute | None) -> int | None:
    """The value of an integer scalar or splat constant (m_ConstantInt / m_Zero / m_One)."""
    values = _int_values(attr)
    if values is None or values.size == 0:
        return None
    first = values.reshape(-1)[0]
    if np.all(values == first):
        return int(first)
    return None


def _width(t: Attribute) -> int:
    el = t.element_type if isinstance(t, TensorType) else t
    return el.width.data if isinstance(el, IntegerType) else 64


def _wrap(v: int, width: int) -> int:
    """Two's complement wrap to ``width`` bits, read as signed."""
    v &= (1 << width) - 1
    return v - (1 << width) if v >> (width - 1) else v


def _int_attr(values: np.ndarray, t: Attribute) -> Attribute:
    """An integer constant of type ``t`` (scalar IntegerAttr, or dense for a tensor)."""
    width = _width(t)
    wrapped = np.vectorize(lambda v: _wrap(int(v), width), otypes=[object])(values)
    if isinstance(t, TensorType):
        from stablehlo_py.ir.types import storage_dtype

        arr = np.broadcast_to(wrapped, t.get_shape()).astype(storage_dtype(t.element_type))
        return make_dense(t, arr)
    return IntegerAttr(int(wrapped.reshape(-1)[0]), t)  # type: ignore[arg-type]


def _index_tensor(extents: Sequence[int]) -> DenseIntOrFPElementsAttr:
    t = tensor_type(INDEX, (len(extents),))
    return make_dense(t, np.array(list(extents), dtype=np.int64))


def _const_fold_binary(op: Operation, fn: Callable[[int, int], int | None]) -> FoldResult:
    """constFoldBinaryOp on integers: both operands constant (scalars, or tensors elementwise)."""
    a, b = (_int_values(constant_of(v)) for v in op.operands)
    if a is None or b is None:
        return None
    width = _width(op.results[0].type)
    try:
        out = np.vectorize(
            lambda x, y: fn(_wrap(int(x), width), _wrap(int(y), width)), otypes=[object]
        )(a, b)
    except _NoFold:
        return None
    t = op.results[0].type
    if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
        return None
    return [_int_attr(out, t)]


class _NoFold(Exception):
    """Raised inside a constant fold that MLIR does not do (e.g. a division by zero)."""


# ------------------------------------------------------------------------------------- shape
def _fold_shape_of(op: Operation) -> FoldResult:
    t = op.operands[0].type
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        return None
    return [_index_tensor(t.get_shape())]


def _broadcast_shapes(a: list[int], b: list[int]) -> list[int] | None:
    """OpTrait::util::getBroadcastedShape on static extents (None: not broadcastable)."""
    out: list[int] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return out[::-1]


def _fold_broadcast(op: Operation) -> FoldResult:
    shapes = op.operands
    if len(shapes) == 1:
        return [shapes[0]] if shapes[0].type == op.results[0].type else None
    if not shapes:
        return None
    result: list[int] | None = None
    for v in shapes:
        values = _int_values(constant_of(v))
        if values is None:
            return None
        extents = [int(x) for x in values.reshape(-1)]
        result = extents if result is None else _broadcast_shapes(result, extents)
        if result is None:
            return None
    assert result is not None
    return [_index_tensor(result)]


def _fold_num_elements(op: Operation) -> FoldResult:
    values = _int_values(constant_of(op.operands[0]))
    if values is None:
        return None
    return [IntegerAttr(int(np.prod([int(x) for x in values.reshape(-1)], dtype=object)), INDEX)]


def _extents(value: SSAValue) -> list[int] | None:
    values = _int_values(constant_of(value))
    return None if values is None else [int(x) for x in values.reshape(-1)]


def _fold_to_extent_tensor(op: Operation) -> FoldResult:
    """ToExtentTensorOp::fold (a constant shape), then CastOpInterface's (the same type)."""
    extents = _extents(op.operands[0])
    if extents is not None:
        return [_index_tensor(extents)]
    if op.operands[0].type == op.results[0].type:
        return [op.operands[0]]
    return None


def _fold_concat(op: Operation) -> FoldResult:
    lhs, rhs = (_extents(v) for v in op.operands)
    if lhs is None or rhs is None:
        return None
    return [_index_tensor(lhs + rhs)]


def _fold_any(op: Operation) -> FoldResult:
    """AnyOp::fold: the last operand when it is constant (the op is commutative)."""
    if not op.operands:
        return None
    last = _extents(op.operands[-1])
    return None if last is None else [_index_tensor(last)]


def _fold_size_to_index(op: Operation) -> FoldResult:
    """SizeToIndexOp::fold (a constant), then CastOpInterface's (an index operand)."""
    c = constant_of(op.operands[0])
    if isinstance(c, IntegerAttr):
        return [IntegerAttr(c.value.data, INDEX)]
    if op.operands[0].type == op.results[0].type:
        return [op.operands[0]]
    return None


# ------------------------------------------------------------------------------------ tensor
def _fold_dim(op: Operation) -> FoldResult:
    source, index = op.operands
    i = _splat_int(constant_of(index))
    t = source.type
    if i is None or not isinstance(t, TensorType):
        return None
    shape = t.get_shape()
    if i < 0 or i >= len(shape) or shape[i] < 0:
        return None  # (MLIR also folds through tensor.generate/extract_slice/cast: not read here)
    return [IntegerAttr(shape[i], INDEX)]


def _fold_extract(op: Operation) -> FoldResult:
    source = op.operands[0]
    whole = constant_of(source)
    if isinstance(whole, DenseIntOrFPElementsAttr):
        values = np.asarray(dense_values(whole))
        if values.size and np.all(values == values.reshape(-1)[0]):
            return [_element_attr(values.reshape(-1)[0], op.results[0].type)]
    indices: list[int] = []
    for v in op.operands[1:]:
        i = constant_of(v)
        if not isinstance(i, IntegerAttr):
            return None
        indices.append(i.value.data)
    owner = source.owner if isinstance(source, OpResult) else None
    if owner is not None and owner.name == "tensor.from_elements":
        shape = owner.results[0].type.get_shape()  # type: ignore[attr-defined]
        flat, stride = 0, 1
        for i in range(len(shape) - 1, -1, -1):
            flat += indices[i] * stride
            stride *= shape[i]
        if 0 <= flat < len(owner.operands):
            return [owner.operands[flat]]
        return None
    if isinstance(whole, DenseIntOrFPElementsAttr):
        values = np.asarray(dense_values(whole))
        if len(indices) == values.ndim and all(0 <= i < n for i, n in zip(indices, values.shape)):
            return [_element_attr(values[tuple(indices)], op.results[0].type)]
    return None


def _element_attr(value: object, t: Attribute) -> Attribute:
    if isinstance(t, (IntegerType, IndexType)):
        return IntegerAttr(int(value), t)  # type: ignore[call-overload]
    return FloatAttr(float(value), t)  # type: ignore[arg-type]


def _fold_from_elements(op: Operation) -> FoldResult:
    t = op.results[0].type
    consts = [constant_of(v) for v in op.operands]
    if not isinstance(t, TensorType) or any(c is None for c in consts):
        return None
    values = [c.value.data for c in consts if isinstance(c, (IntegerAttr, FloatAttr))]
    if len(values) != len(consts):
        return None
    from stablehlo_py.ir.types import storage_dtype

    arr = np.array(values).astype(storage_dtype(t.element_type)).reshape(t.get_shape())
    return [make_dense(t, arr)]


# ------------------------------------------------------------------------------------- arith
def _fold_index_cast(op: Operation) -> FoldResult:
    values = _int_values(constant_of(op.operands[0]))
    if values is None:
        return None
    return [_int_attr(values, op.results[0].type)]


def _fold_addi(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    if _splat_int(constant_of(rhs)) == 0:
        return [lhs]
    for sub, other in ((lhs, rhs), (rhs, lhs)):
        # addi(subi(a, b), b) -> a ; addi(b, subi(a, b)) -> a
        if (
            isinstance(sub, OpResult)
            and sub.owner.name == "arith.subi"
            and other == sub.owner.operands[1]
        ):
            return [sub.owner.operands[0]]
    return _const_fold_binary(op, lambda a, b: a + b)


def _fold_subi(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    if lhs == rhs:
        return [_int_attr(np.array(0, dtype=object), op.results[0].type)]
    if _splat_int(constant_of(rhs)) == 0:
        return [lhs]
    if isinstance(lhs, OpResult) and lhs.owner.name == "arith.addi":
        a, b = lhs.owner.operands
        if rhs == b:
            return [a]
        if rhs == a:
            return [b]
    return _const_fold_binary(op, lambda a, b: a - b)


def _fold_muli(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    c = _splat_int(constant_of(rhs))
    if c == 0:
        return [rhs]
    if c == 1:
        return [lhs]
    return _const_fold_binary(op, lambda a, b: a * b)


def _divsi(a: int, b: int) -> int:
    if b == 0:
        raise _NoFold
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _fold_divsi(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    if _splat_int(constant_of(rhs)) == 1:
        return [lhs]
    width = _width(op.results[0].type)

    def div(a: int, b: int) -> int:
        if b == -1 and a == -(1 << (width - 1)):
            raise _NoFold  # overflow: MLIR does not fold
        return _divsi(a, b)

    return _const_fold_binary(op, div)


def _fold_maxsi(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    if lhs == rhs:
        return [rhs]
    c = _splat_int(constant_of(rhs))
    if c is not None:
        width = _width(op.results[0].type)
        if c == (1 << (width - 1)) - 1:
            return [rhs]
        if c == -(1 << (width - 1)):
            return [lhs]
    return _const_fold_binary(op, max)


def _fold_select(op: Operation) -> FoldResult:
    cond, a, b = op.operands
    if a == b:
        return [a]
    c = _splat_int(constant_of(cond))
    if c is not None and c != 0:
        return [a]
    if c == 0:
        return [b]
    t = op.results[0].type
    if (
        isinstance(t, IntegerType)
        and t.width.data == 1
        and _splat_int(constant_of(a)) not in (None, 0)
        and _splat_int(constant_of(b)) == 0
    ):
        return [cond]
    if isinstance(cond, OpResult) and cond.owner.name == "arith.cmpi":
        pred = _PREDICATES[cond.owner.properties["predicate"].value.data]  # type: ignore[attr-defined]
        x, y = cond.owner.operands
        if (
            pred in ("eq", "ne")
            and {x, y} == {a, b}
            and ((x == a and y == b) or (y == a and x == b))
        ):
            return [a if pred == "ne" else b]
    return None


_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle",
            "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}  # fmt: skip
_COMPARE: dict[str, Callable[[int, int, int], bool]] = {
    "eq": lambda a, b, w: a == b,
    "ne": lambda a, b, w: a != b,
    "slt": lambda a, b, w: a < b,
    "sle": lambda a, b, w: a <= b,
    "sgt": lambda a, b, w: a > b,
    "sge": lambda a, b, w: a >= b,
    "ult": lambda a, b, w: a % (1 << w) < b % (1 << w),
    "ule": lambda a, b, w: a % (1 << w) <= b % (1 << w),
    "ugt": lambda a, b, w: a % (1 << w) > b % (1 << w),
    "uge": lambda a, b, w: a % (1 << w) >= b % (1 << w),
}


def _fold_cmpi(op: Operation) -> FoldResult:
    lhs, rhs = op.operands
    pred = _PREDICATES[op.properties["predicate"].value.data]  # type: ignore[attr-defined]
    result_type = op.results[0].type
    if lhs == rhs and not isinstance(result_type, TensorType):
        return [IntegerAttr(int(pred in ("eq", "sle", "sge", "ule", "uge")), IntegerType(1))]
    a, b = _int_values(constant_of(lhs)), _int_values(constant_of(rhs))
    if a is not None and b is None:
        swapped = _PREDICATES.index(_SWAPPED[pred])
        return Rewrite([rhs, lhs], {"predicate": IntegerAttr(swapped, IntegerType(64))})
    if a is None or b is None or isinstance(result_type, TensorType):
        return None
    width = _width(lhs.type)
    out = _COMPARE[pred](_wrap(int(a), width), _wrap(int(b), width), width)
    return [IntegerAttr(int(out), IntegerType(1))]


def _float_folder(op: Operation) -> FoldResult:
    """The float binary ops fold as canonicalize folds them (one implementation)."""
    return fold_float_binary(op)  # type: ignore[return-value]


FOLDS: dict[str, Callable[[Operation], FoldResult]] = {
    "shape.shape_of": _fold_shape_of,
    "shape.broadcast": _fold_broadcast,
    "shape.num_elements": _fold_num_elements,
    "shape.to_extent_tensor": _fold_to_extent_tensor,
    "shape.concat": _fold_concat,
    "shape.any": _fold_any,
    "shape.size_to_index": _fold_size_to_index,
    "tensor.dim": _fold_dim,
    "tensor.extract": _fold_extract,
    "tensor.from_elements": _fold_from_elements,
    "arith.index_cast": _fold_index_cast,
    "arith.addi": _fold_addi,
    "arith.subi": _fold_subi,
    "arith.muli": _fold_muli,
    "arith.divsi": _fold_divsi,
    "arith.maxsi": _fold_maxsi,
    "arith.select": _fold_select,
    "arith.cmpi": _fold_cmpi,
    "arith.addf": _float_folder,
    "arith.subf": _float_folder,
    "arith.mulf": _float_folder,
    "arith.divf": _float_folder,
}
"""Op name -> its fold hook (the modelled ones; see the module docstring)."""

COMMUTATIVE = frozenset(
    {
        *(f"arith.{n}" for n in ("addi", "muli", "maxsi", "minsi", "maxui", "minui", "andi")),
        *(f"arith.{n}" for n in ("ori", "xori", "addf", "mulf", "maximumf", "minimumf")),
        *(f"arith.{n}" for n in ("maxnumf", "minnumf")),
        *(f"chlo.broadcast_{n}" for n in ("add", "maximum", "minimum", "multiply")),
        *(f"chlo.broadcast_{n}" for n in ("and", "or", "xor")),
        "chlo.mulhi",
        *(f"shape.{n}" for n in ("broadcast", "cstr_broadcastable", "cstr_eq", "shape_eq")),
        *(f"shape.{n}" for n in ("is_broadcastable", "any", "assuming_all", "add", "mul")),
        *(f"shape.{n}" for n in ("max", "min", "meet")),
    }
)
"""Ops with MLIR's Commutative trait (its fold moves constant operands last)."""


def _fold_commutative(op: Operation) -> FoldResult:
    """OpTrait::impl::foldCommutative: a stable partition, non-constant operands first."""
    operands = list(op.operands)
    if len(operands) < 2:
        return None
    constant = [constant_of(v) is not None for v in operands]
    reordered = [v for v, c in zip(operands, constant) if not c] + [
        v for v, c in zip(operands, constant) if c
    ]
    if reordered == operands:
        return None
    return Rewrite(reordered)


def fold(op: Operation) -> FoldResult:
    """``op``'s fold: None, an in-place Rewrite, or one value or constant per result."""
    if is_constant_op(op):
        return None
    own = FOLDS.get(op.name)
    result = own(op) if own is not None else None
    if result is None and op.name in COMMUTATIVE:
        return _fold_commutative(op)
    return result


# ------------------------------------------------------------------------------ materializing
def materialize(value: Attribute, type: Attribute, op: Operation) -> Operation | None:
    """The materializeConstant of ``op``'s dialect (an unlinked constant op, or None)."""
    dialect = op.name.partition(".")[0]
    if dialect == "shape":
        from stablehlo_py.ir.ops.shape_dialect import (
            ConstShapeOp,
            ConstSizeOp,
            ConstWitnessOp,
            ShapeType,
            SizeType,
            WitnessType,
            is_extent_tensor,
        )

        if isinstance(type, ShapeType) or is_extent_tensor(type):
            if not isinstance(value, DenseIntOrFPElementsAttr):
                return None
            return ConstShapeOp.create(properties={"shape": value}, result_types=[type])
        if isinstance(type, SizeType) and isinstance(value, IntegerAttr):
            return ConstSizeOp.create(
                properties={"value": IntegerAttr(value.value.data, INDEX)}, result_types=[type]
            )
        if isinstance(type, WitnessType) and isinstance(value, IntegerAttr):
            return ConstWitnessOp.create(
                properties={"passing": IntegerAttr(value.value.data, IntegerType(1))},
                result_types=[type],
            )
    if dialect in ("stablehlo", "chlo"):
        if not isinstance(value, DenseIntOrFPElementsAttr) or value.type != type:
            return None
        from stablehlo_py.ir.dialects import default_registry

        cls = default_registry().ops[f"{dialect}.constant"]
        return cls.create(properties={"value": value}, result_types=[type])
    from xdsl.dialects.arith import ConstantOp

    if isinstance(value, (IntegerAttr, FloatAttr)) and value.type == type:
        return ConstantOp.create(properties={"value": value}, result_types=[type])
    if isinstance(value, DenseIntOrFPElementsAttr) and value.type == type:
        return ConstantOp.create(properties={"value": value}, result_types=[type])
    return None
