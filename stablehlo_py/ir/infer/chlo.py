"""Result-type inference rules of the chlo ops (upstream's ChloOps.cpp and TypeInference.cpp):
the broadcasting binary ops (numpy-style, bounds-aware when every operand is static or bounded, or
through `broadcast_dimensions`), broadcast_compare/complex/select, the unary and binary ops with
CompatibleOperandsAndResultType, is_inf/is_neg_inf/is_pos_inf, constant, constant_like, top_k,
ragged_dot (inferRaggedDotOp) and scan (ScanOp::inferReturnTypeComponents)."""

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

from stablehlo_py.ir.infer.elementwise import most_specific_of
from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import (
    DYN,
    bounds_of,
    element_type_compatible,
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
            # upstream emits this at operand 0's location and infers an unranked result (which
            # verifies); here the op is refused, at its own location
            raise InferError(
                f"incompatible shapes for broadcasting {da[0]} and {db[0]}", standalone=True
            )
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
    if any(not 0 <= d < len(large) for d in broadcast_dimensions):  # upstream: d >= rank (a
        return UnrankedTensorType(elem)  # negative d indexes out of bounds there: illegal too)
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
    return most_specific_of(inp.operand_types)


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


# --------------------------------------------------------------------------------- ragged_dot
def _ragged_dims(inp: InferInput) -> tuple[tuple[int, ...], ...]:
    """The six lists of `#chlo.ragged_dot<...>`: lhs/rhs batching, lhs/rhs contracting, lhs
    ragged, rhs group dimensions."""
    a = inp.attr("ragged_dot_dimension_numbers")
    d = getattr(a, "dims", None)
    if d is None:
        raise InferError("requires attribute 'ragged_dot_dimension_numbers'")
    return (
        tuple(d.lhs_batching_dimensions),
        tuple(d.rhs_batching_dimensions),
        tuple(d.lhs_contracting_dimensions),
        tuple(d.rhs_contracting_dimensions),
        tuple(d.lhs_ragged_dimensions),
        tuple(d.rhs_group_dimensions),
    )


def _dim_in_bounds(dim: int, bound: int, name: str, bound_name: str) -> None:
    """upstream's hlo::checkDimInBounds (exclusive upper bound)."""
    if dim < 0 or dim >= bound:
        raise InferError(
            f"Expects {name} to be in range [0, {bound_name}) i.e. [0, {bound}). got: {dim}."
        )


def ragged_dot_shape(
    ls: Sequence[int],
    rs: Sequence[int],
    gs: Sequence[int],
    dims: tuple[tuple[int, ...], ...],
) -> list[int]:
    """ChloOps.cpp checkRaggedDotConstraints and inferRaggedDotOutputDimensions (after
    checkDotGeneralConstraints): the result sizes.  Modes by the kind of the lhs ragged
    dimension: non-contracting ([b,m,k], [g,b,k,n], [b,g] -> [b,m,n]), contracting
    ([b,m,k], [b,k,n], [b,g] -> [g,b,m,n]) and batch ([b,m,k], [b,k,n], [g] -> [b,m,n])."""
    from stablehlo_py.ir.infer.linalg import dims_distinct
    from stablehlo_py.ir.infer.reduction import dims_compatible, ints

    lb, rb, lc, rc, lr, rg = dims
    if len(lr) != 1:
        raise InferError("There must be exactly one ragged dimension in the lhs.")
    ragged = lr[0]
    _dim_in_bounds(ragged, len(ls), "lhs_ragged_dim", "lhs_rank")
    if ragged in lb:
        mode, prefix = "batch", list(lb[: lb.index(ragged)])
    elif ragged in lc:
        mode, prefix = "contracting", [*lb, *lc[: lc.index(ragged)]]
    else:
        mode = "non-contracting"
        prefix = [*lb, *(i for i in range(ragged) if i not in lb and i not in lc)]
    expected = [ls[i] for i in prefix]
    if len(gs) != 1:
        if len(gs) != len(expected) + 1:
            raise InferError(
                f"expected group_sizes to have rank {len(expected) + 1}, got {len(gs)}"
            )
        if list(gs[: len(expected)]) != expected:
            raise InferError(
                f"group_sizes is expected to have shape [{ints(expected, dyn=True)}, "
                f"{ints(gs[-1:], dyn=True)}], got [{ints(gs, dyn=True)}]"
            )
    groups = gs[-1]
    for d in rg:
        _dim_in_bounds(d, len(rs), "rhs_group_dim", "rhs_rank")
    dims_distinct(rg, rb, "rhs_group_dimensions", "rhs_batching_dimensions")
    dims_distinct(rg, rc, "rhs_group_dimensions", "rhs_contracting_dimensions")
    if mode != "non-contracting":
        if rg:
            raise InferError(
                "There must be zero group dimensions in the rhs when the ragged dimension is "
                "batch or contracting."
            )
    else:
        if len(rg) != 1:
            raise InferError(
                "There must be exactly one group dimension in the rhs when the lhs ragged "
                "dimension is non-contracting."
            )
        if not dims_compatible(groups, rs[rg[0]]):
            raise InferError(
                f"rhs group dimension is expected to have size={ints([groups], dyn=True)}, got "
                f"{ints([rs[rg[0]]], dyn=True)}"
            )
    out = [groups] if mode == "contracting" else []
    out += [ls[i] for i in lb]
    out += [s for i, s in enumerate(ls) if i not in lb and i not in lc]
    out += [s for i, s in enumerate(rs) if i not in rb and i not in rc and i not in rg]
    return out


@rule("chlo.ragged_dot")
def infer_ragged_dot(inp: InferInput) -> list[Attribute]:
    """ChloOps.cpp inferRaggedDotOp.  Upstream infers the shape only (the element type is left
    null, as dot_general's: a result may be wider than the operands); this rule gives the lhs's
    element type, and the op's verifier compares shapes only, as RaggedDotOp::verify does.  No
    bounds: upstream's ShapedTypeComponents carry none."""
    from stablehlo_py.ir.infer.linalg import check_dot_general_constraints, precision_config

    lt, rt, gt = inp.operand_types[:3]
    precision_config(inp.attr("precision_config"))
    dims = _ragged_dims(inp)
    elem = element_type(lt)
    if not all(isinstance(t, TensorType) for t in (lt, rt, gt)):
        return [UnrankedTensorType(elem)]
    assert isinstance(lt, TensorType) and isinstance(rt, TensorType) and isinstance(gt, TensorType)
    ls, rs, gs = lt.get_shape(), rt.get_shape(), gt.get_shape()
    check_dot_general_constraints(ls, rs, *dims[:4])
    if not gs:
        raise InferError("expected group_sizes to have rank 1, got 0")
    return [tensor_type(elem, tuple(ragged_dot_shape(ls, rs, gs, dims)))]


# --------------------------------------------------------------------------------------- scan
@rule("chlo.scan")
def infer_scan(inp: InferInput) -> list[Attribute]:
    """ScanOp::inferReturnTypeComponents: one result per value the body returns -- the outputs
    (the body's first results) with the scan dimension inserted at `dimension` (its size
    `scan_dim_size`, else the first input's), then the carries as returned.  Shapes and element
    types only (no bounds); upstream compares them with the declared types by shape
    (isCompatibleReturnTypes: verifyCompatibleShapes)."""
    from stablehlo_py.ir.infer.reduction import int_attr, int_list

    seg = int_list(inp.attr("operandSegmentSizes"))
    if seg is None or len(seg) != 2:
        raise InferError("requires attribute 'operandSegmentSizes' with 2 elements (inputs, inits)")
    n_inputs, n_carries = seg
    if not inp.regions or inp.regions[0].blocks.first is None:
        raise InferError("ScanOp region is empty")
    term = inp.regions[0].blocks.first.last_op
    returned = [v.type for v in term.operands] if term is not None else []
    if len(returned) < n_carries:
        raise InferError(f"ScanOp body must return at least {n_carries} values (carries)")
    n_outputs = len(returned) - n_carries
    dim = int_attr(inp.attr("dimension"), 0)
    size = int_attr(inp.attr("scan_dim_size"), DYN)
    for i, t in enumerate(inp.operand_types[:n_inputs]):
        if not isinstance(t, TensorType):
            raise InferError(f"operand {i} is not ranked")
        if dim >= len(t.get_shape()):
            raise InferError(f"scan dimension of operand {i} is out of bounds")
        if size == DYN:
            size = t.get_shape()[dim]
    out: list[Attribute] = []
    for i, t in enumerate(returned):
        if not isinstance(t, TensorType):
            raise InferError(f"terminator operand {i} is not ranked")
        shape = list(t.get_shape())
        if i < n_outputs:
            shape.insert(dim, size)
        out.append(tensor_type(t.element_type, tuple(shape)))
    return out
