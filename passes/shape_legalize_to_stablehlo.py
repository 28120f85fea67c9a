"""`shape-legalize-to-stablehlo`: upstream's ShapeLegalizeToStablehlo.cpp.

MLIR-style shape computations (`shape.*`, `tensor.dim/extract/from_elements`, `arith.index_cast`,
`arith.muli` on `index`) become StableHLO shape computations on `tensor<i32>` / `tensor<Nxi32>`.
The two representations are bridged with `builtin.unrealized_conversion_cast` (index <->
tensor<i32>, tensor<Nxindex> <-> tensor<Nxi32>), which are expected to annihilate later
(upstream's canonicalization), exactly as upstream leaves them.

It is a partial conversion, as upstream's (applyPartialConversion with its ConversionTarget; the
driver is `drivers/conversion.py`, MLIR's, folds included):

- illegal: every op of the `shape` and `tensor` dialects but `tensor.cast`, `arith.index_cast`,
  `arith.muli`, and a `stablehlo` op with an operand of type index or a shaped type of index;
- legal: `tensor.cast`, `builtin.unrealized_conversion_cast`, the other `stablehlo` ops;
- any other op is not mentioned: it is left as it is (after its fold, as MLIR's conversion
  folds every op that is not legal: `arith.addi %x, %c0` becomes `%x`).

Ops are visited in pre-order.  An op that is not legal is folded first (`patterns/mlir_folds.py`:
a `shape.shape_of` of a static shape becomes a `shape.const_shape`, which legalizes to a constant;
constant operands of a Commutative op go last), then rewritten by its pattern (the PATTERNS
table, one per op as upstream's populateShapeToStablehloPatterns); the new ops are inserted
before it, at its location (a constant made for an `arith.constant` operand, and a cast of an
operand, at the operand's location, as upstream).  A pattern that does not apply, or that would
create an op that cannot be legalized (e.g. `stablehlo.get_dimension_size` of a tensor of index),
undoes what it built; an illegal op then fails with upstream's "failed to legalize operation
'<name>' that was explicitly marked illegal" (followed by the reason) and its function is left as
it was before the pass.  The pass runs on each function (upstream's is anchored on func.func): the
other functions are converted, and every failing function reports its error.

Where upstream would build invalid IR or crash (a dynamically shaped extent tensor to cast, a
`tensor.extract` of a tensor that is neither index nor 32-bit integer, a `tensor.dim` index out of
range, an `arith.index_cast` with a dynamic shape), the pattern does not apply and the op fails to
legalize with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stablehlo_py.passes.drivers._common import LegalizationError
from stablehlo_py.passes.drivers.conversion import Conversion, Legality, NoMatch, Pattern, Where
from stablehlo_py.passes.drivers.diagnostics import raise_collected
from stablehlo_py.passes.patterns.mlir_folds import fold, materialize
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import tensor_type
from stablehlo_py.ir.xdsl_compat.construct import new_op

__all__ = ["PATTERNS", "is_legal", "legality", "run", "shape_legalize_to_stablehlo"]

PASS_NAME = "shape-legalize-to-stablehlo"
SUMMARY = "Legalize shape-related ops to StableHLO."

I32 = IntegerType(32)
I64 = IntegerType(64)
INDEX = IndexType()
SCALAR_I32 = tensor_type(I32, ())


def run(op: Operation, options: dict[str, object]) -> Operation:
    return shape_legalize_to_stablehlo(op)


# ------------------------------------------------------------------------------------ legality
def _is_index_like(t: Attribute) -> bool:
    """upstream's isIndexOrShapedOfIndex."""
    if isinstance(t, IndexType):
        return True
    return isinstance(t, (TensorType, UnrankedTensorType)) and isinstance(t.element_type, IndexType)


def _is_i32(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 32


def _is_shaped_i32(t: Attribute) -> bool:
    """upstream's isShapedOfI32 (any signedness, as MLIR's Type::isInteger(32))."""
    return isinstance(t, (TensorType, UnrankedTensorType)) and _is_i32(t.element_type)


_ALWAYS_LEGAL = frozenset({"tensor.cast", "builtin.unrealized_conversion_cast"})
_ILLEGAL_DIALECTS = frozenset({"shape", "tensor"})
_ILLEGAL_OPS = frozenset({"arith.index_cast", "arith.muli"})


def is_legal(op: Operation) -> bool:
    """Whether upstream's ConversionTarget for this pass accepts ``op`` as it is (an op it does not
    mention is accepted)."""
    return legality(op) is not Legality.ILLEGAL


def _constant(
    cv: Conversion, values: Sequence[int], shape: tuple[int, ...], where: Where
) -> SSAValue:
    """`stablehlo.constant dense<values> : tensor<shape x i32>` (values wrap to 32 bits, as
    upstream's static_cast<int32_t>)."""
    t = tensor_type(I32, shape)
    data = np.array(values, dtype=np.int64).astype(np.int32).reshape(shape)
    return cv.create("stablehlo.constant", [], where, {"value": make_dense(t, data)}, result_type=t)


# ------------------------------------------------------------------------------------- helpers
def _static_shape(t: Attribute) -> tuple[int, ...] | None:
    if isinstance(t, TensorType):
        shape = tuple(t.get_shape())
        if all(d >= 0 for d in shape):
            return shape
    return None


def cast_to_i32(cv: Conversion, where: Where, value: SSAValue) -> SSAValue | None:
    """upstream's castToI32: index -> tensor<i32>, tensor<Nxindex> -> tensor<Nxi32>, 32-bit integer
    tensors as they are; None for anything else (a dynamic shape, another element type)."""
    t = value.type
    if isinstance(t, IndexType):
        return cv.cast(value, SCALAR_I32, where)
    if isinstance(t, (TensorType, UnrankedTensorType)):
        shape = _static_shape(t)
        if shape is None:
            return None
        if _is_i32(t.element_type):
            return value
        if isinstance(t.element_type, IndexType):
            return cv.cast(value, tensor_type(I32, shape), where)
    return None


def cast_to_index(cv: Conversion, where: Where, value: SSAValue) -> SSAValue | None:
    """upstream's castToIndex: tensor<i32> -> index, tensor<Nxi32> -> tensor<Nxindex>, index-based
    values as they are; None for anything else."""
    t = value.type
    if isinstance(t, IndexType):
        return value
    if isinstance(t, (TensorType, UnrankedTensorType)):
        shape = _static_shape(t)
        if shape is None:
            return None
        if isinstance(t.element_type, IndexType):
            return value
        if _is_i32(t.element_type):
            return cv.cast(value, INDEX if not shape else tensor_type(INDEX, shape), where)
    return None


def _constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` of type index defining ``value`` (arith::ConstantIndexOp)."""
    if not isinstance(value, OpResult) or value.owner.name != "arith.constant":
        return None
    if not isinstance(value.type, IndexType):
        return None
    attr = value.owner.properties.get("value")
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def _constant_or_i32_cast(cv: Conversion, value: SSAValue) -> SSAValue | None:
    """upstream's convertToConstantOrI32Cast (at the value's location)."""
    c = _constant_index(value)
    if c is not None:
        return _constant(cv, [c], (), value)
    return cast_to_i32(cv, value, value)


def _i64s(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(I64, list(values))


def _slice(cv: Conversion, op: Operation, x: SSAValue, start: Sequence[int]) -> SSAValue:
    limit = [s + 1 for s in start]
    props = {
        "start_indices": _i64s(start),
        "limit_indices": _i64s(limit),
        "strides": _i64s([1] * len(start)),
    }
    return cv.create("stablehlo.slice", [x], op, props)


def _reshape(cv: Conversion, op: Operation, x: SSAValue, shape: tuple[int, ...]) -> SSAValue:
    return cv.create("stablehlo.reshape", [x], op, result_type=tensor_type(I32, shape))


def _concatenate(cv: Conversion, op: Operation, parts: Sequence[SSAValue]) -> SSAValue:
    return cv.create("stablehlo.concatenate", parts, op, {"dimension": IntegerAttr(0, I64)})


def _dim_size(cv: Conversion, op: Operation, x: SSAValue, dim: int) -> SSAValue:
    return cv.create("stablehlo.get_dimension_size", [x], op, {"dimension": IntegerAttr(dim, I64)})


def _same_type(value: SSAValue | None, result: SSAValue, what: str) -> SSAValue:
    if value is None or value.type != result.type:
        raise NoMatch(what)
    return value


def _type_text(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


# ------------------------------------------------------------------------------------ patterns
def _num_elements(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertNumElementsOpPattern: the product of the extents, one slice at a time."""
    shape = cast_to_i32(cv, op, op.operands[0])
    if shape is None:
        raise NoMatch("cast to i32 failed: the shape must be a statically shaped tensor of index")
    rank = _static_shape(shape.type)[0]  # type: ignore[index]
    result = _constant(cv, [1], (), op)
    for i in range(rank):
        size = _reshape(cv, op, _slice(cv, op, shape, [i]), ())
        result = cv.create("stablehlo.multiply", [result, size], op)
    index = cast_to_index(cv, op, result)
    return [_same_type(index, op.results[0], "cast to index failed: the result must be an index")]


def _shape_of(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertShapeOfOpPattern: get_dimension_size of each dimension, concatenated."""
    arg = op.operands[0]
    if not isinstance(arg.type, TensorType):
        raise NoMatch("expected ranked operand")
    rank = len(arg.type.get_shape())
    if rank > 0:
        sizes = [_reshape(cv, op, _dim_size(cv, op, arg, i), (1,)) for i in range(rank)]
        shape = _concatenate(cv, op, sizes)
    else:
        shape = _constant(cv, [], (0,), op)
    index = cast_to_index(cv, op, shape)
    return [
        _same_type(
            index, op.results[0], "cast to index failed: the result must be a tensor<Nxindex>"
        )
    ]


def _const_shape(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertConstShapeOpPattern."""
    from stablehlo_py.ir.ops.shape_dialect import ConstShapeOp

    assert isinstance(op, ConstShapeOp)
    t = op.results[0].type
    if not isinstance(t, TensorType):
        raise NoMatch("expected ranked operand")
    if _static_shape(t) is None:
        raise NoMatch(f"the result type '{_type_text(t)}' must have a static shape")
    extents = op.extents()
    index = cast_to_index(cv, op, _constant(cv, extents, (len(extents),), op))
    assert index is not None
    return [index]


def _index_cast(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertIndexCastOpPattern."""
    x, out = op.operands[0], op.results[0]
    shaped_in = isinstance(x.type, (TensorType, UnrankedTensorType))
    if isinstance(x.type, IndexType):
        # index -> iN: index -> tensor<i32> (-> stablehlo.convert -> tensor<iN>) -> iN
        value = cast_to_i32(cv, op, x)
        assert value is not None
        if not _is_i32(out.type):
            value = cv.create(
                "stablehlo.convert", [value], op, result_type=tensor_type(out.type, ())
            )
        return [cv.cast(value, out.type, op)]
    if not shaped_in and _is_index_like(out.type):
        # iN -> index: iN -> tensor<iN> -> index
        value = cv.cast(x, tensor_type(x.type, ()), op)
        return [cv.cast(value, out.type, op)]
    if _is_index_like(x.type):
        value = cast_to_i32(cv, op, x)
        if value is None:
            raise NoMatch("cast to i32 failed: the operand must have a static shape")
    elif _is_shaped_i32(x.type):
        value = x
    else:
        raise NoMatch("expected input with index/i32 style")
    if _is_index_like(out.type):
        value = cast_to_index(cv, op, value)
        if value is None:
            raise NoMatch("cast to index failed: the result must have a static shape")
    elif not _is_shaped_i32(out.type):
        raise NoMatch("expected output with index/i32 style")
    return [_same_type(value, out, "the operand and the result must have a static shape")]


def _muli(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertMulIOpPattern: index multiplication as stablehlo.multiply on tensor<i32>."""
    lhs, rhs = op.operands
    if not all(_is_index_like(v.type) for v in (lhs, rhs, op.results[0])):
        raise NoMatch("expected index type")
    a = _constant_or_i32_cast(cv, lhs)
    b = _constant_or_i32_cast(cv, rhs)
    if a is None or b is None:
        raise NoMatch("cast to i32 failed: the operands must have a static shape")
    product = cv.create("stablehlo.multiply", [a, b], op)
    index = cast_to_index(cv, op, product)
    return [_same_type(index, op.results[0], "cast to index failed")]


def _pad_from_left(cv: Conversion, op: Operation, x: SSAValue, pad: int) -> SSAValue:
    """`pad` ones, then x (upstream's padFromLeft)."""
    return _concatenate(cv, op, [_constant(cv, [1] * pad, (pad,), op), x])


def _broadcast(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertShapeBroadcastOpPattern: two extent tensors, the shorter padded with ones, their
    elementwise maximum (the shapes are assumed broadcastable, as upstream)."""
    if len(op.operands) != 2:
        raise NoMatch("only two operand shapes are supported")
    a = cast_to_i32(cv, op, op.operands[0])
    b = cast_to_i32(cv, op, op.operands[1])
    if a is None or b is None:
        raise NoMatch("the operands must be statically shaped extent tensors")
    na, nb = _static_shape(a.type)[0], _static_shape(b.type)[0]  # type: ignore[index]
    if na < nb:
        a = _pad_from_left(cv, op, a, nb - na)
    elif na > nb:
        b = _pad_from_left(cv, op, b, na - nb)
    broadcast = cv.create("stablehlo.maximum", [a, b], op)
    index = cast_to_index(cv, op, broadcast)
    return [_same_type(index, op.results[0], "cast to index failed: the result must be a tensor")]


def _tensor_dim(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertTensorDimPattern: a constant dimension's get_dimension_size."""
    source, index = op.operands
    dim = _constant_index(index)
    if dim is None:
        raise NoMatch("expected constant index op")
    size = _dim_size(cv, op, source, dim)
    value = cast_to_index(cv, op, size)
    assert value is not None
    return [value]


def _tensor_extract(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertTensorExtractPattern: a slice at constant indices, reshaped to a scalar."""
    source = op.operands[0]
    t = source.type
    assert isinstance(t, TensorType)
    dims = t.get_shape()
    indices: list[int] = []
    for i, v in enumerate(op.operands[1:]):
        c = _constant_index(v)
        if c is None:
            raise NoMatch("expected constant index op")
        if dims[i] < 0 or c >= dims[i] or c < 0:
            raise NoMatch("index out of range")
        indices.append(c)
    x = cast_to_i32(cv, op, source)
    if x is None:
        raise NoMatch(f"the tensor '{_type_text(t)}' must hold index or 32-bit integer elements")
    scalar = _reshape(cv, op, _slice(cv, op, x, indices), ())
    if isinstance(op.results[0].type, IndexType):
        value = cast_to_index(cv, op, scalar)
        assert value is not None
        return [value]
    return [cv.cast(scalar, op.results[0].type, op)]


def _tensor_from_elements(op: Operation, cv: Conversion) -> list[SSAValue]:
    """ConvertTensorFromElementsPattern: a 0-d tensor is a cast of its element; a 1-D tensor of
    index concatenates its elements (constants as constants)."""
    t = op.results[0].type
    if not isinstance(t, TensorType):
        raise NoMatch("expected a ranked tensor result")
    rank = len(t.get_shape())
    if rank == 0:
        return [cv.cast(op.operands[0], t, op)]
    if rank != 1:
        raise NoMatch("only a 1-D result is supported")
    if not _is_index_like(t):
        raise NoMatch("only a tensor of index is supported")
    parts: list[SSAValue] = []
    for v in op.operands:
        c = _constant_index(v)
        if c is not None:
            parts.append(_constant(cv, [c], (1,), op))
        else:
            x = cast_to_i32(cv, op, v)
            assert x is not None  # the elements of a tensor of index are index values
            parts.append(_reshape(cv, op, x, (1,)))
    value = cast_to_index(cv, op, _concatenate(cv, op, parts))
    return [_same_type(value, op.results[0], "cast to index failed")]


def _cast_operands(op: Operation, cv: Conversion) -> list[SSAValue]:
    """CastOperandsPattern: the same op with its index-based operands cast to i32."""
    operands: list[SSAValue] = []
    for v in op.operands:
        if _is_index_like(v.type):
            x = cast_to_i32(cv, op, v)
            if x is None:
                raise NoMatch(
                    f"cast to i32 failed: the operand '{_type_text(v.type)}' must have a static "
                    "shape"
                )
            operands.append(x)
        else:
            operands.append(v)
    new = new_op(
        type(op),
        operands,
        [r.type for r in op.results],
        dict(op.properties),
        attributes=dict(op.attributes),
    )
    cv.insert(new, op)
    try:
        new.verify()
    except VerifyException as e:
        raise NoMatch(f"with its index operands cast to i32, {e}") from None
    return list(new.results)


PATTERNS: dict[str, Pattern] = {
    "shape.const_shape": _const_shape,
    "arith.muli": _muli,
    "arith.index_cast": _index_cast,
    "shape.num_elements": _num_elements,
    "shape.shape_of": _shape_of,
    "shape.broadcast": _broadcast,
    "stablehlo.dynamic_broadcast_in_dim": _cast_operands,
    "stablehlo.dynamic_reshape": _cast_operands,
    "tensor.dim": _tensor_dim,
    "tensor.extract": _tensor_extract,
    "tensor.from_elements": _tensor_from_elements,
}
"""upstream's populateShapeToStablehloPatterns: op name -> its pattern."""


# -------------------------------------------------------------------------------------- driver
def _no_pattern_reason(op: Operation) -> str:
    if op.name.startswith("stablehlo."):
        return (
            f"this pass (as upstream's) has no pattern for '{op.name}' with index-based operands; "
            "give it i32 shape operands (e.g. through arith.index_cast)"
        )
    supported = ", ".join(sorted(n for n in PATTERNS if not n.startswith("stablehlo.")))
    return f"this pass (as upstream's) has no pattern for it; it converts {supported}"


def legality(op: Operation) -> Legality:
    """upstream's ConversionTarget for this pass."""
    name = op.name
    if name in _ALWAYS_LEGAL:
        return Legality.LEGAL
    dialect = name.partition(".")[0]
    if dialect in _ILLEGAL_DIALECTS or name in _ILLEGAL_OPS:
        return Legality.ILLEGAL
    if dialect == "stablehlo":
        if any(_is_index_like(v.type) for v in op.operands):
            return Legality.ILLEGAL
        return Legality.LEGAL
    return Legality.UNKNOWN


def _functions(root: Operation) -> list[Operation]:
    """The functions the pass runs on: it is anchored on func.func, so on a module MLIR's pass
    manager runs it on each function directly in the module."""
    if root.name == "func.func":
        return [root]
    return [o for r in root.regions for b in r.blocks for o in b.ops if o.name == "func.func"]


def shape_legalize_to_stablehlo(root: Operation) -> Operation:
    """Legalize the shape computations of each function of ``root`` (in place).  A function with an
    op that cannot be legalized is left as it was and gives a LegalizationError at that op; the
    other functions are converted; the errors, in function order, are raised together."""
    errors: list[StableHLOError] = []
    for func in _functions(root):
        conversion = Conversion(
            legality, PATTERNS, fold=fold, materialize=materialize, no_pattern=_no_pattern_reason
        )
        try:
            conversion.run(func)
        except LegalizationError as e:
            errors.append(e)
    if errors:
        raise_collected(errors)
    return root
