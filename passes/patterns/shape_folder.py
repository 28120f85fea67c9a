"""upstream's shape folder (`populateStablehloShapeFolderPatterns` in
optimization/StablehloAggressiveFolder.cpp): partial evaluation of shape computations, i.e. ops whose
operands are `stablehlo.constant`s become constants.

It is the part of the aggressive folder that `stablehlo-refine-shapes` runs (with `optimize-float`
off and no element limit): shape operands of `dynamic_iota`, `dynamic_reshape`, ... are small integer
tensors computed by add/multiply/concatenate/slice/get_dimension_size/convert/... and must fold to
constants before the shapes they describe can be read.

The folds are one table, `FOLDS` (op name -> fold function), which issue 13's aggressive folder extends
with its own entries.  A fold function takes the op and the `FoldOptions` and returns
* None: it does not apply (upstream's notifyMatchFailure),
* a `DenseIntOrFPElementsAttr`: the op is replaced by a `stablehlo.constant` of that value,
* a list of SSA values: the op's results are replaced by them (and the op erased),
* a list of operations ending with the replacement op: inserted before the op, whose results the last
  one replaces.

Integer values are computed with numpy on the constants' storage arrays, with upstream's integer
semantics (APInt): wrap-around arithmetic, division and remainder truncating toward zero, i1
arithmetic modulo 2, unsigned comparison for unsigned and i1 element types.  Float arithmetic is the
interpreter's (passes/patterns/folds/evaluate.py).  Folds of floating-point values run only when
`optimize_float` is set, as upstream's `validateShapeFoldDtype`, except the unary folds (`sign`),
which upstream's FoldUnaryOpPattern does for floats too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.text.dense import dense_values, is_splat, make_dense
from stablehlo_py.ir.types import FLOAT_NAME, num_elements, storage_dtype
from stablehlo_py.semantics.elementwise import COMPARISON_DIRECTIONS

__all__ = [
    "FOLDS",
    "FoldOptions",
    "ShapeFolderPattern",
    "UnaryFold",
    "constant_attr",
    "constant_ints",
    "constant_value",
    "make_constant",
    "op_attr",
    "populate_shape_folder_patterns",
    "register_folds",
]

CONSTANT_OPS = frozenset({"stablehlo.constant", "chlo.constant", "arith.constant"})
"""Ops upstream's `m_Constant` matches (the ConstantLike ops of the dialects we model)."""


@dataclass(frozen=True)
class FoldOptions:
    """upstream's StablehloAggressiveFolderPassOptions."""

    optimize_float: bool = False
    fold_op_element_limit: int = 1 << 62
    assume_no_undeclared_side_effects: bool = False


FoldResult = DenseIntOrFPElementsAttr | list[SSAValue] | list[Operation] | None
Fold = Callable[[Operation, FoldOptions], FoldResult]


# ------------------------------------------------------------------------------- constants
def op_attr(op: Operation, name: str) -> Attribute | None:
    """The op's property or attribute ``name`` (None when it has neither; an empty or zero value is
    still returned)."""
    a = op.properties.get(name)
    return a if a is not None else op.attributes.get(name)


def constant_attr(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    """The dense value of the constant op defining ``value`` (upstream's m_Constant), else None."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name not in CONSTANT_OPS:
        return None
    attr = op_attr(owner, "value")
    return attr if isinstance(attr, DenseIntOrFPElementsAttr) else None


def constant_value(value: SSAValue) -> np.ndarray | None:
    """The constant's elements as a numpy array of its storage dtype, else None."""
    attr = constant_attr(value)
    return None if attr is None else dense_values(attr)


def constant_ints(value: SSAValue) -> list[int] | None:
    """upstream's hlo::matchInts: the integers of a constant integer (or index) tensor, else None."""
    attr = constant_attr(value)
    if attr is None or not _is_int(attr.type.element_type):
        return None
    return [int(v) for v in dense_values(attr).reshape(-1)]


def make_constant(attr: DenseIntOrFPElementsAttr) -> Operation:
    from stablehlo_py.ir.ops.misc import ConstantOp

    return ConstantOp.create(properties={"value": attr}, result_types=[attr.type])


# ------------------------------------------------------------------------------- element types
def _is_int(t: Attribute) -> bool:
    from xdsl.dialects.builtin import IndexType

    return isinstance(t, (IntegerType, IndexType))


def _is_float(t: Attribute) -> bool:
    return type(t) in FLOAT_NAME


def _is_unsigned(t: Attribute) -> bool:
    """upstream's isUnsignedInteger || isSignlessInteger(1): compared and extended as unsigned."""
    return isinstance(t, IntegerType) and (
        t.signedness.data == Signedness.UNSIGNED or t.width.data == 1
    )


def static_unary_constant(op: Operation) -> np.ndarray | None:
    """The values of the constant operand of a one-operand ``op`` with a static result type (a
    unary fold's precondition), else None."""
    if not _static(op.results[0].type) or len(op.operands) != 1:
        return None
    return constant_value(op.operands[0])


@dataclass(frozen=True)
class UnaryFold:
    """A fold of a one-operand elementwise op on a constant operand (upstream's unary fold
    patterns): the values are ``compute(op, x, element type)``; integer elements fold when ``ints``
    accepts the element type and the values, float elements when ``floats`` accepts the values (as
    f64); None: that kind does not fold.  Complex elements never fold (upstream's unary folds take
    integers and floats only)."""

    compute: Callable[[Operation, np.ndarray, Attribute], np.ndarray]
    ints: Callable[[Attribute, np.ndarray], bool] | None = None
    floats: Callable[[np.ndarray], bool] | None = None

    def __call__(self, op: Operation, options: FoldOptions) -> FoldResult:
        rt = op.results[0].type
        x = static_unary_constant(op)
        if x is None:
            return None
        e = _element(rt)
        if _is_int(e):
            if self.ints is None or not self.ints(e, x):
                return None
        elif _is_float(e):
            if self.floats is None:
                return None
            with np.errstate(all="ignore"):
                if not self.floats(x.astype(np.float64)):
                    return None
        else:
            return None
        return make_dense(rt, np.broadcast_to(self.compute(op, x, e), rt.get_shape()))  # type: ignore[union-attr]


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def _static(t: Attribute) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _shape_dtype_ok(t: Attribute, options: FoldOptions) -> bool:
    """upstream's validateShapeFoldDtype (allowComplex=false)."""
    e = _element(t)
    return _is_int(e) or (options.optimize_float and _is_float(e))


def _within_limit(t: Attribute, options: FoldOptions) -> bool:
    return (
        isinstance(t, TensorType) and num_elements(t.get_shape()) <= options.fold_op_element_limit
    )


# ------------------------------------------------------------------------------- integer math
def _as_int(a: np.ndarray, elem: Attribute) -> np.ndarray:
    """Integers as a wide numpy array to compute with (i1 as 0/1)."""
    if a.dtype == np.bool_:
        return a.astype(np.uint8)
    return a


def _to_storage(a: np.ndarray, elem: Attribute) -> np.ndarray:
    """Back to the element type's storage dtype, wrapping as APInt does."""
    dt = storage_dtype(elem)
    if dt == np.bool_:
        return (np.asarray(a).astype(np.int64) & 1).astype(np.bool_)
    return np.asarray(a).astype(dt, copy=False)


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """APInt sdiv/udiv: the quotient truncated toward zero (no zero divisor: checked before)."""
    if a.dtype.kind == "u":
        return a // b
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return np.where((a < 0) != (b < 0), -q, q)


def _trunc_rem(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """APInt srem/urem: the remainder takes the dividend's sign."""
    if a.dtype.kind == "u":
        return a % b
    return np.fmod(a, b)


@dataclass(frozen=True)
class _Binary:
    """A binary elementwise fold: integer and (when allowed) float functions of numpy arrays."""

    int_fn: Callable[[np.ndarray, np.ndarray], np.ndarray] | None
    floats: bool  # folds float values too (computed with the interpreter's semantics)
    shape_op: bool = True  # dtype checked by validateShapeFoldDtype
    zero_divisor_fails: bool = False


def _binary_fold(spec: _Binary) -> Fold:
    def fold(op: Operation, options: FoldOptions) -> FoldResult:
        rt = op.results[0].type
        if not _static(rt):
            return None
        e = _element(rt)
        if spec.shape_op and not _shape_dtype_ok(rt, options):
            return None
        lhs, rhs = constant_value(op.operands[0]), constant_value(op.operands[1])
        if lhs is None or rhs is None:
            return None
        if _is_int(e):
            if spec.int_fn is None:
                return None
            a, b = _as_int(lhs, e), _as_int(rhs, e)
            if spec.zero_divisor_fails and bool((b == 0).any()):
                return None  # upstream: "integer division by zero" is not folded
            with np.errstate(all="ignore"):
                out = _to_storage(spec.int_fn(a, b), e)
        elif _is_float(e) and spec.floats:
            from stablehlo_py.passes.patterns.folds.evaluate import evaluate

            out = evaluate(op.name, lhs, rhs).astype(storage_dtype(e))  # the interpreter's math
        else:
            return None
        return make_dense(rt, np.broadcast_to(out, rt.get_shape()))  # type: ignore[union-attr]

    return fold


def _logical_or_bitwise(bitwise: Callable[..., np.ndarray]) -> _Binary:
    """and/or: logical on i1, bitwise on other integers (upstream's FoldLogical*/FoldBitwise*)."""
    return _Binary(lambda a, b: bitwise(a, b), floats=False, shape_op=False)


def _max_int(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(a, b)


# ------------------------------------------------------------------------------- per-op folds
def _fold_compare(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options):
        return None
    lhs, rhs = constant_value(op.operands[0]), constant_value(op.operands[1])
    if lhs is None or rhs is None:
        return None
    e = _element(op.operands[0].type)
    kind = getattr(op.properties.get("compare_type"), "data", None)
    if kind in (None, "NOTYPE"):
        if _is_unsigned(e):
            kind = "UNSIGNED"
        elif _is_int(e):
            kind = "SIGNED"
        elif _is_float(e):
            kind = "FLOAT"
        else:
            return None
    if _is_int(e):
        if kind not in ("SIGNED", "UNSIGNED"):
            return None
        a, b = _as_int(lhs, e).astype(np.int64), _as_int(rhs, e).astype(np.int64)
        if kind == "UNSIGNED" and not _is_unsigned(e):
            a, b = a.view(np.uint64), b.view(np.uint64)
        elif kind == "SIGNED" and _is_unsigned(e) and isinstance(e, IntegerType):
            w = e.width.data
            a, b = (
                np.where(a >= 1 << (w - 1), a - (1 << w), a),
                np.where(b >= 1 << (w - 1), b - (1 << w), b),
            )
    elif _is_float(e):
        if kind not in ("FLOAT", "TOTALORDER"):
            return None
        a, b = lhs, rhs
    else:
        return None
    direction = op.properties["comparison_direction"].data  # type: ignore[attr-defined]
    out = COMPARISON_DIRECTIONS[direction](a, b)
    return make_dense(rt, np.broadcast_to(out, rt.get_shape()).astype(np.bool_))  # type: ignore[union-attr]


def _fold_clamp(op: Operation, options: FoldOptions) -> FoldResult:
    """clamp = min(max, max(min, operand)), as upstream's FoldClampOpPattern."""
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options):
        return None
    lo, x, hi = (constant_value(v) for v in op.operands)
    if lo is None or x is None or hi is None:
        return None
    e = _element(rt)
    if _is_float(e):
        out = np.minimum(hi, np.maximum(lo, x))
    else:
        out = np.minimum(_as_int(hi, e), np.maximum(_as_int(lo, e), _as_int(x, e)))
    return make_dense(rt, np.broadcast_to(_to_storage(out, e), rt.get_shape()))  # type: ignore[union-attr]


def _signed_ints(e: Attribute, x: np.ndarray) -> bool:
    if _is_unsigned(e) and not (isinstance(e, IntegerType) and e.width.data == 1):
        return False
    return x.dtype != np.bool_  # i1 has no sign (an APSInt of width 1 is unsigned)


def _no_nan(x: np.ndarray) -> bool:
    return not bool(np.isnan(x).any())


_fold_sign = UnaryFold(
    lambda op, x, e: np.sign(x).astype(storage_dtype(e)), ints=_signed_ints, floats=_no_nan
)
"""upstream's FoldSignOpPattern (a unary fold: integers and floats; unsigned and NaN are not)."""


def _fold_broadcast_in_dim(op: Operation, options: FoldOptions) -> FoldResult:
    """broadcast_in_dim(splat) -> splat constant (FoldBroadcastInDimOpSplatPattern)."""
    rt = op.results[0].type
    if not _static(rt) or not (_shape_dtype_ok(rt, options) or _complex_ok(rt, options)):
        return None
    return _splat_as(op.operands[0], rt)


def _splat_as(value: SSAValue, rt: Attribute) -> FoldResult:
    """A constant of the static type ``rt`` repeating ``value``'s one value when ``value`` is a
    splat constant, else None."""
    attr = constant_attr(value)
    if attr is None or not _splat(attr):
        return None
    v = dense_values(attr).reshape(-1)[:1]
    return make_dense(rt, np.broadcast_to(v.reshape(()), rt.get_shape()))  # type: ignore[arg-type, attr-defined]


def _splat(attr: DenseIntOrFPElementsAttr) -> bool:
    return is_splat(attr) or num_elements(attr.type.get_shape()) == 1


def _fold_concatenate(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options) or not _within_limit(rt, options):
        return _fold_concatenate_adjacent_splats(op, options)
    values = [constant_value(v) for v in op.operands]
    if any(v is None for v in values):
        return _fold_concatenate_adjacent_splats(op, options)
    dim = _int_prop(op, "dimension")
    out = np.concatenate([np.asarray(v) for v in values], axis=dim)  # type: ignore[arg-type]
    return make_dense(rt, out)  # type: ignore[arg-type]


def _fold_concatenate_adjacent_splats(op: Operation, options: FoldOptions) -> FoldResult:
    """concat(splat_a, splat_a, x) -> concat(splat_a resized, x) (FoldConcatenateAdjacentSplats)."""
    dim = _int_prop(op, "dimension")
    operands = list(op.operands)
    new_ops: list[Operation] = []
    new_operands: list[SSAValue] = []
    i = 0
    while i < len(operands):
        attr = constant_attr(operands[i])
        if attr is None or not _splat(attr):
            new_operands.append(operands[i])
            i += 1
            continue
        j = i + 1
        while j < len(operands) and constant_attr(operands[j]) == attr:
            j += 1
        if j - i == 1:
            new_operands.append(operands[i])
        else:
            shape = list(attr.type.get_shape())
            shape[dim] *= j - i
            t = TensorType(attr.type.element_type, shape, attr.type.encoding)
            c = make_constant(make_dense(t, dense_values(attr).reshape(-1)[:1]))
            new_ops.append(c)
            new_operands.append(c.results[0])
        i = j
    if len(new_operands) == len(operands):
        return None
    concat = op.create(
        operands=new_operands,
        result_types=[r.type for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    return [*new_ops, concat]


def _fold_convert(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options) or not _within_limit(rt, options):
        return None
    src, dst = _element(op.operands[0].type), _element(rt)
    if not options.optimize_float and (_is_float(src) or _is_float(dst)):
        return None  # "skipping fold of float convert"
    x = constant_value(op.operands[0])
    if x is None:
        return None
    if _is_int(src) and _is_int(dst):
        if isinstance(dst, IntegerType) and dst.width.data == 1:
            out = (x != 0).astype(np.bool_)
        else:
            out = _as_int(x, src).astype(storage_dtype(dst))  # sign/zero extension or truncation
    elif _is_float(src) and _is_float(dst):
        out = x.astype(storage_dtype(dst))
    elif _is_int(src) and _is_float(dst):
        out = _as_int(x, src).astype(storage_dtype(dst))
    elif _is_float(src) and _is_int(dst):
        if isinstance(dst, IntegerType) and dst.width.data == 1:
            out = (x != 0).astype(np.bool_)
        else:
            f = x.astype(np.float64)
            if not bool(np.isfinite(f).all()) or bool((np.signbit(f) & (f == 0)).any()):
                return None  # upstream: infinities, NaN and -0.0 do not convert
            t = np.trunc(f)
            info = np.iinfo(storage_dtype(dst))
            if bool(((t < info.min) | (t > info.max)).any()):
                return None
            out = t.astype(storage_dtype(dst))
    else:
        return None
    return make_dense(rt, np.broadcast_to(out, rt.get_shape()))  # type: ignore[union-attr]


def _fold_get_dimension_size(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options):
        return None
    ot = op.operands[0].type
    dim = _int_prop(op, "dimension")
    if not isinstance(ot, TensorType) or ot.get_shape()[dim] < 0:
        return None  # "expected static dimension"
    return make_dense(rt, np.array(ot.get_shape()[dim], dtype=storage_dtype(_element(rt))))  # type: ignore[arg-type]


def _fold_set_dimension_size(op: Operation, options: FoldOptions) -> FoldResult:
    """set_dimension_size(x, c, dim) -> x when x's type is the result's and c is that dimension."""
    rt = op.results[0].type
    if op.operands[0].type != rt or not isinstance(rt, TensorType):
        return None
    attr = constant_attr(op.operands[1])
    if attr is None or not _splat(attr):
        return None
    size = int(dense_values(attr).reshape(-1)[0])
    if size != rt.get_shape()[_int_prop(op, "dimension")]:
        return None
    return [op.operands[0]]


def _fold_reshape(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not (_shape_dtype_ok(rt, options) or _complex_ok(rt, options)):
        return None
    x = constant_value(op.operands[0])
    if x is None:
        return None
    return make_dense(rt, np.ascontiguousarray(x).reshape(rt.get_shape()))  # type: ignore[union-attr]


def _complex_ok(t: Attribute, options: FoldOptions) -> bool:
    from xdsl.dialects.builtin import ComplexType

    return options.optimize_float and isinstance(_element(t), ComplexType)


def _fold_select(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options):
        return None
    pred_attr = constant_attr(op.operands[0])
    on_true, on_false = constant_attr(op.operands[1]), constant_attr(op.operands[2])
    if pred_attr is None or on_true is None or on_false is None:
        return None
    if not _is_int(pred_attr.type.element_type):
        return None
    pred = dense_values(pred_attr)
    if _splat(pred_attr):
        return on_true if bool(pred.reshape(-1)[0]) else on_false
    if _is_float(_element(rt)) or not _within_limit(rt, options):
        return None  # "float select not supported yet"
    out = np.where(pred, dense_values(on_true), dense_values(on_false))
    return make_dense(rt, out)  # type: ignore[arg-type]


def _fold_slice(op: Operation, options: FoldOptions) -> FoldResult:
    rt = op.results[0].type
    if not _static(rt) or not _shape_dtype_ok(rt, options) or not _static(op.operands[0].type):
        return None
    attr = constant_attr(op.operands[0])
    if attr is None:
        return None
    x = dense_values(attr)
    start, limit, strides = (
        _ints_prop(op, n) for n in ("start_indices", "limit_indices", "strides")
    )
    index = tuple(slice(s, lim, st) for s, lim, st in zip(start, limit, strides))
    return make_dense(rt, np.ascontiguousarray(x[index]).reshape(rt.get_shape()))  # type: ignore[union-attr]


def _fold_dynamic_slice(op: Operation, options: FoldOptions) -> FoldResult:
    """dynamic_slice(splat, ...) -> resized splat (FoldDynamicSliceOpPattern)."""
    rt = op.results[0].type
    return _splat_as(op.operands[0], rt) if _static(rt) else None


def _int_prop(op: Operation, name: str) -> int:
    a = op_attr(op, name)
    assert isinstance(a, IntegerAttr), f"{op.name} has no integer attribute {name}"
    return a.value.data


def _ints_prop(op: Operation, name: str) -> tuple[int, ...]:
    a = op_attr(op, name)
    assert isinstance(a, DenseArrayBase), f"{op.name} has no array attribute {name}"
    return tuple(int(v) for v in a.get_values())


FOLDS: dict[str, Fold] = {
    "stablehlo.add": _binary_fold(_Binary(np.add, floats=True)),
    "stablehlo.subtract": _binary_fold(_Binary(np.subtract, floats=True)),
    "stablehlo.multiply": _binary_fold(_Binary(np.multiply, floats=True)),
    "stablehlo.divide": _binary_fold(_Binary(_trunc_div, floats=True, zero_divisor_fails=True)),
    "stablehlo.remainder": _binary_fold(_Binary(_trunc_rem, floats=True, zero_divisor_fails=True)),
    "stablehlo.maximum": _binary_fold(_Binary(_max_int, floats=True)),
    "stablehlo.minimum": _binary_fold(_Binary(np.minimum, floats=True)),
    "stablehlo.and": _binary_fold(_logical_or_bitwise(np.bitwise_and)),
    "stablehlo.or": _binary_fold(_logical_or_bitwise(np.bitwise_or)),
    "stablehlo.broadcast_in_dim": _fold_broadcast_in_dim,
    "stablehlo.clamp": _fold_clamp,
    "stablehlo.compare": _fold_compare,
    "stablehlo.concatenate": _fold_concatenate,
    "stablehlo.convert": _fold_convert,
    "stablehlo.dynamic_slice": _fold_dynamic_slice,
    "stablehlo.get_dimension_size": _fold_get_dimension_size,
    "stablehlo.reshape": _fold_reshape,
    "stablehlo.select": _fold_select,
    "stablehlo.set_dimension_size": _fold_set_dimension_size,
    "stablehlo.sign": _fold_sign,
    "stablehlo.slice": _fold_slice,
}
"""The one fold table: op name -> fold.  Its first entries are upstream's
populateStablehloShapeFolderPatterns, one per op (concatenate's entry also does
FoldConcatenateAdjacentSplatsOpPattern when it cannot fold the whole op); the aggressive folder adds
its own (passes/patterns/folds/*.py) with `register_folds` when it is imported."""

SHAPE_FOLD_OPS = frozenset(FOLDS)
"""The ops of upstream's shape folder patterns (what `stablehlo-refine-shapes` folds)."""


def register_folds(extra: dict[str, Fold]) -> None:
    """Add entries to FOLDS (the aggressive folder's; a shape-folder entry is never replaced)."""
    for name, fold in extra.items():
        if name in SHAPE_FOLD_OPS:
            raise ValueError(f"{name} already has the shape folder's fold")
        FOLDS[name] = fold


# ------------------------------------------------------------------------------- the pattern
class ShapeFolderPattern(RewritePattern):
    """Apply the table's fold for the op, if any, through the rewriter."""

    def __init__(self, options: FoldOptions = FoldOptions(), folds: dict[str, Fold] | None = None):
        self.options = options
        self.folds = _shape_folds() if folds is None else folds

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        fold = self.folds.get(op.name)
        if fold is None:
            return
        result = fold(op, self.options)
        if result is None:
            return
        from stablehlo_py.passes.drivers._common import carry_location

        if isinstance(result, DenseIntOrFPElementsAttr):
            # upstream's replaceOpWithNewOp: the new ops take the folded op's location
            rewriter.replace(op, carry_location(make_constant(result), op))
        elif result and isinstance(result[0], Operation):
            ops: Sequence[Operation] = result  # type: ignore[assignment]
            for new in ops:
                carry_location(new, op)
            rewriter.replace(op, list(ops), new_results=list(ops[-1].results))
        else:
            rewriter.replace(op, [], new_results=list(result))  # type: ignore[arg-type]


def populate_shape_folder_patterns(options: FoldOptions = FoldOptions()) -> list[RewritePattern]:
    return [ShapeFolderPattern(options)]


def fold_op(op: Operation, options: FoldOptions = FoldOptions()) -> FoldResult:
    """The table's fold of one op (None when it does not apply): for tests and other passes."""
    fold = FOLDS.get(op.name) if op.name in SHAPE_FOLD_OPS else None
    return None if fold is None else fold(op, options)


def _shape_folds() -> dict[str, Fold]:
    return {name: FOLDS[name] for name in SHAPE_FOLD_OPS}
