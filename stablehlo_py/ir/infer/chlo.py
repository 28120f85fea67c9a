"""Result-type inference rules of the chlo ops (upstream's ChloOps.cpp and TypeInference.cpp):
the broadcasting binary ops (numpy-style, bounds-aware when every operand is static or bounded, or
through `broadcast_dimensions`), broadcast_compare/complex/select, the unary and binary ops with
CompatibleOperandsAndResultType, is_inf/is_neg_inf/is_pos_inf, constant, constant_like and top_k."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ComplexType,
    DenseArrayBase,
    IntegerType,
    NoneAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.ir.infer import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import (
    DYN,
    bounds_of,
    element_type_compatible,
    infer_most_specific_type,
    ranked,
)
from stablehlo_py.ir.types import TypeExtensionsAttr, element_type, tensor_type

I1 = IntegerType(1)
I32 = IntegerType(32)


# ------------------------------------------------------------------------------ broadcasting
def broadcasted_shape(x: Sequence[int], y: Sequence[int]) -> tuple[int, ...] | None:
    """mlir::OpTrait::util::getBroadcastedShape: numpy rules, -1 for a dynamic dimension (a
    dimension > 1 wins over a dynamic one); None when the shapes do not broadcast."""
    n = max(len(x), len(y))
    xs = [1] * (n - len(x)) + list(x)
    ys = [1] * (n - len(y)) + list(y)
    out: list[int] = []
    for a, b in zip(xs, ys):
        if a < 0 or b < 0:
            if a > 1:
                out.append(a)
            elif b > 1 or a == 1:
                out.append(b)
            elif b == 1:
                out.append(a)
            else:
                out.append(DYN)
        elif a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            return None
    return tuple(out)


def _static_or_bounded(t: TensorType) -> bool:
    return all(d >= 0 for d in t.get_shape()) or isinstance(t.encoding, TypeExtensionsAttr)


def _dims(t: TensorType) -> list[tuple[int, bool]]:
    """StablehloBroadcastLowering's getDimensions: (size or bound, bounded?) per dimension."""
    b = bounds_of(t)
    return [(s, False) if s >= 0 or not b else (b[i], True) for i, s in enumerate(t.get_shape())]


def _bounded_broadcast(
    a: list[tuple[int, bool]], b: list[tuple[int, bool]]
) -> list[tuple[int, bool]]:
    """getNumpyBroadcastShapeWithBounds."""
    n = max(len(a), len(b))
    a = [(1, False)] * (n - len(a)) + a
    b = [(1, False)] * (n - len(b)) + b
    out = []
    for da, db in zip(a, b):
        if da[0] == 1:
            out.append(db)
        elif db[0] == 1:
            out.append(da)
        elif da[0] != db[0]:
            raise InferError(f"incompatible shapes for broadcasting {da[0]} and {db[0]}")
        elif da[1] != db[1]:
            raise InferError("cannot mix bounded and static dimensions in broadcast")
        else:
            out.append(da)
    return out


def numpy_broadcast_type(types: Sequence[Attribute], elem: Attribute) -> Attribute:
    """ChloOps.cpp getNumpyBroadcastType: unranked when an operand is (or the shapes do not
    broadcast on the dynamic path); bounds-aware when every operand is static or bounded."""
    if not all(isinstance(t, TensorType) for t in types):
        return UnrankedTensorType(elem)
    tensors: list[TensorType] = list(types)  # type: ignore[arg-type]
    if all(_static_or_bounded(t) for t in tensors):
        dims = _dims(tensors[0])
        for t in tensors[1:]:
            dims = _bounded_broadcast(dims, _dims(t))
        shape = [DYN if bounded else s for s, bounded in dims]
        bounds = [s if bounded else DYN for s, bounded in dims]
        return ranked(shape, elem, bounds)
    out: tuple[int, ...] | None = tuple(tensors[0].get_shape())
    for t in tensors:
        out = broadcasted_shape(out, t.get_shape())  # type: ignore[arg-type]
        if out is None:
            return UnrankedTensorType(elem)
    return tensor_type(elem, out)  # type: ignore[arg-type]


def broadcast_type(
    x: Attribute, y: Attribute, elem: Attribute, broadcast_dimensions: Sequence[int] | None
) -> Attribute:
    """ChloOps.cpp getBroadcastTypeWithBroadcastDimensions."""
    if broadcast_dimensions is None:
        return numpy_broadcast_type([x, y], elem)
    if not isinstance(x, TensorType) or not isinstance(y, TensorType):
        return UnrankedTensorType(elem)
    sx, sy = x.get_shape(), y.get_shape()
    large, small = (sx, sy) if len(sx) > len(sy) else (sy, sx)
    if len(broadcast_dimensions) != len(small):
        return UnrankedTensorType(elem)
    if any(d >= len(large) for d in broadcast_dimensions):
        return UnrankedTensorType(elem)
    filtered = broadcasted_shape(small, [large[d] for d in broadcast_dimensions])
    if filtered is None:
        return UnrankedTensorType(elem)
    out = list(large)
    for i, d in enumerate(broadcast_dimensions):
        out[d] = filtered[i]
    return tensor_type(elem, tuple(out))


def _bdims(inp: InferInput) -> tuple[int, ...] | None:
    b = inp.attr("broadcast_dimensions")
    if isinstance(b, DenseArrayBase):
        return tuple(int(v) for v in b.get_values())  # type: ignore[arg-type]
    return None


def _broadcast_binary(inp: InferInput, elem: Attribute | None) -> list[Attribute]:
    """InferBroadcastBinaryOpReturnTypeComponents."""
    lhs, rhs = inp.operand_types[0], inp.operand_types[1]
    if not element_type_compatible(element_type(lhs), element_type(rhs)):
        raise InferError("mismatched operand types")
    return [broadcast_type(lhs, rhs, elem or element_type(lhs), _bdims(inp))]


BROADCAST_BINARY = (
    "add",
    "and",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "next_after",
    "or",
    "polygamma",
    "power",
    "remainder",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "subtract",
    "xor",
    "zeta",
)


@rule(*(f"chlo.broadcast_{n}" for n in BROADCAST_BINARY))
def infer_broadcast_binary(inp: InferInput) -> list[Attribute]:
    return _broadcast_binary(inp, None)


@rule("chlo.broadcast_complex")
def infer_broadcast_complex(inp: InferInput) -> list[Attribute]:
    return _broadcast_binary(inp, ComplexType(element_type(inp.operand_types[0])))  # type: ignore[arg-type]


@rule("chlo.broadcast_compare")
def infer_broadcast_compare(inp: InferInput) -> list[Attribute]:
    return _broadcast_binary(inp, I1)


@rule("chlo.broadcast_select")
def infer_broadcast_select(inp: InferInput) -> list[Attribute]:
    """BroadcastSelectOp::inferReturnTypeComponents: on_true's element type, the numpy broadcast
    of all three shapes."""
    _pred, on_true, on_false = inp.operand_types
    if element_type(on_true) != element_type(on_false):
        raise InferError("mismatched operand types")
    return [numpy_broadcast_type(list(inp.operand_types), element_type(on_true))]


# --------------------------------------------------------------------------- elementwise ops
COMPATIBLE_OPERANDS_AND_RESULT = (
    "_asin_acos_kernel",
    "asin_acos_kernel",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "bessel_i1e",
    "conj",
    "cosh",
    "digamma",
    "erf",
    "erfc",
    "erf_inv",
    "lgamma",
    "mulhi",
    "next_after",
    "polygamma",
    "sinh",
    "square",
    "tan",
    "zeta",
)


@rule(*(f"chlo.{n}" for n in COMPATIBLE_OPERANDS_AND_RESULT))
def infer_compatible_operands(inp: InferInput) -> list[Attribute]:
    """HLO_CompatibleOperandsAndResultType: the most specific type of the operands."""
    if not inp.operand_types:
        raise InferError("Expected non-empty operands for [CompatibleOperandsAndResultType]")
    return [infer_most_specific_type(list(inp.operand_types))]


def same_shape_with(t: Attribute, elem: Attribute) -> Attribute:
    """getSameShapeTensorType: ``t``'s shape and encoding with another element type."""
    if isinstance(t, TensorType):
        enc = t.encoding
        return tensor_type(elem, tuple(t.get_shape()), None if isinstance(enc, NoneAttr) else enc)
    return UnrankedTensorType(elem)


@rule("chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")
def infer_is_inf(inp: InferInput) -> list[Attribute]:
    return [same_shape_with(inp.operand_types[0], I1)]


# ---------------------------------------------------------------------------------- constants
@rule("chlo.constant")
def infer_constant(inp: InferInput) -> list[Attribute]:
    value = inp.attr("value")
    t = getattr(value, "type", None)
    if t is None:
        raise InferError("value must be a typed attribute")
    return [t]


@rule("chlo.constant_like")
def infer_constant_like(inp: InferInput) -> list[Attribute]:
    """ConstantLikeOp::inferReturnTypeComponents: the operand's shape and encoding, the value's
    type as element type."""
    value = inp.attr("value")
    elem = getattr(value, "type", None)
    if elem is None:
        raise InferError("value's type doesn't match element return type")
    return [same_shape_with(inp.operand_types[0], elem)]


# -------------------------------------------------------------------------------------- top_k
@rule("chlo.top_k")
def infer_top_k(inp: InferInput) -> list[Attribute]:
    """upstream's inferTopKOp: the operand with its last dimension k (unbounded), and i32 indices."""
    t = inp.operand_types[0]
    k_attr = inp.attr("k")
    k = int(k_attr.value.data) if k_attr is not None else 0  # type: ignore[attr-defined]
    if not isinstance(t, TensorType):
        return [UnrankedTensorType(element_type(t)), UnrankedTensorType(I32)]
    shape = list(t.get_shape())
    if len(shape) < 1:
        raise InferError("operand's rank must be at least 1")
    last = len(shape) - 1
    if shape[last] != DYN and shape[last] < k:
        raise InferError(f"operand's last dimension must be at least {k}")
    shape[last] = k
    bounds = list(bounds_of(t))
    if bounds:
        bounds[last] = DYN
    return [ranked(shape, t.element_type, bounds), ranked(shape, I32, bounds)]
