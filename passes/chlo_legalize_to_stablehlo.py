"""`chlo-legalize-to-stablehlo`: every CHLO op becomes StableHLO ops (upstream's
``stablehlo/transforms/ChloLegalizeToStablehlo.cpp``); `chlo-pre-serialization-pipeline` is this pass
(upstream adds shape-legalize-to-stablehlo and reconcile-unrealized-casts, which have nothing to do
on the static-shape programs this toolkit lowers).

One source of truth for the math: the elementwise decompositions are the functions of
``stablehlo_py/semantics/chlo.py``.  The interpreter evaluates them on numpy arrays; here the same
functions run on :class:`Traced` values, whose every op (``add``, ``compare``, constants, ...)
emits the StableHLO op instead of computing it.  So the decomposed program computes exactly what the
interpreter computes for the CHLO op, op for op, in the order upstream's patterns create them.

Structural ops (broadcasting binaries, broadcast_select, constant, constant_like, top_k, scan,
ragged_dot) are rewritten here directly.  Static shapes only: upstream lowers dynamic broadcasting
through the shape dialect, which this toolkit does not have; such ops and
`chlo.minimum_broadcast_shapes` raise a "not supported" error naming the op and its location.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import stablehlo_py.semantics.dtypes as dt
import stablehlo_py.semantics.chlo as math
from stablehlo_py.semantics._common import const_like
from stablehlo_py.semantics.chlo import Traced
from stablehlo_py.semantics.ir_dtypes import dtype_of_type
from stablehlo_py.passes.drivers._common import carry_location, gc_paused, op_location
from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.enums import ComparisonDirectionAttr, ComparisonTypeAttr, PrecisionAttr
from stablehlo_py.ir.op_attrs import DotDimensionNumbersAttr
from stablehlo_py.ir.ops.chlo import UNARY_OPS as CHLO_UNARY_OPS
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import element_type, shape_of, simple_type, storage_dtype, tensor_type

PASS_NAME = "chlo-legalize-to-stablehlo"
SUMMARY = "Legalizes from CHLO ops flow to StableHLO and Shape ops"

I1 = IntegerType(1)
I32 = IntegerType(32)
I64 = IntegerType(64)

# ---------------------------------------------------------------------------------------------
# The IR backend of the decompositions
# ---------------------------------------------------------------------------------------------

# op (as the decompositions name it) -> how its result element type follows from the operands
_SAME = "same"  # the first operand's type
_PRED = "pred"  # i1
_PART = "part"  # complex<T> -> T (abs, real, imag)
_COMPLEX = "complex"  # T -> complex<T>
_RESULT_RULE: dict[str, str] = {
    **dict.fromkeys(
        (
            "add",
            "subtract",
            "multiply",
            "divide",
            "remainder",
            "power",
            "atan2",
            "maximum",
            "minimum",
            "and",
            "or",
            "xor",
            "shift_left",
            "shift_right_logical",
            "shift_right_arithmetic",
            "negate",
            "sign",
            "floor",
            "sqrt",
            "exponential",
            "exponential_minus_one",
            "log",
            "log_plus_one",
            "sine",
            "cosine",
            "tan",
            "not",
        ),
        _SAME,
    ),
    "abs": _PART,
    "real": _PART,
    "imag": _PART,
    "complex": _COMPLEX,
    "is_finite": _PRED,
    "compare": _PRED,
}


def _element_of(dtype: np.dtype[Any]) -> Attribute:
    """The MLIR element type of a numpy dtype of the interpreter (`f32`, `ui64`, `complex<f64>`)."""
    name = dt.name_of(dtype)
    if name.startswith("complex<"):
        inner = simple_type(name[len("complex<") : -1])
        assert inner is not None
        return ComplexType(inner)
    t = simple_type(name)
    assert t is not None, name
    return t


class Builder:
    """Emits StableHLO ops before `anchor` (the CHLO op being replaced), with its location."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor
        self.ops = default_registry().ops

    # -- values
    def wrap(self, value: SSAValue) -> Traced:
        t = value.type
        shape = shape_of(t)
        return Traced(value, self, dtype_of_type(t), shape if shape is not None else ())

    def _insert(self, op: Operation) -> Operation:
        block = self.anchor.parent
        assert block is not None
        block.insert_op_before(op, self.anchor)
        return op

    def build(
        self,
        name: str,
        operands: list[SSAValue],
        result_types: list[Attribute],
        properties: dict[str, Attribute] | None = None,
        regions: list[Region] | None = None,
    ) -> Operation:
        """A new op with the anchor's location, not inserted anywhere."""
        cls = self.ops[name]
        op = cls.build_generic(operands, result_types, properties or {}, {}, regions or [])  # type: ignore[attr-defined]
        return carry_location(op, self.anchor)

    def create(self, *args: Any, **kwargs: Any) -> Operation:
        """A new op (the arguments of `build`) inserted before the anchor."""
        return self._insert(self.build(*args, **kwargs))

    # -- what the decompositions call
    def emit(self, name: str, *args: Any) -> Traced:
        if name in ("convert", "bitcast_convert"):
            x, dtype = args
            rt = tensor_type(_element_of(np.dtype(dtype)), x.shape)
            return self._result(self.create(f"stablehlo.{name}", [self.value_of(x)], [rt]))
        if name == "compare":
            lhs, rhs, direction, *rest = args
            props: dict[str, Attribute] = {
                "comparison_direction": ComparisonDirectionAttr.get_case(direction)
            }
            if rest and rest[0] is not None:
                props["compare_type"] = ComparisonTypeAttr.get_case(rest[0])
            rt = tensor_type(I1, lhs.shape)
            return self._result(
                self.create("stablehlo.compare", [self.value_of(lhs), self.value_of(rhs)], [rt], props)
            )
        if name == "clamp":  # clamp(min, operand, max): the operand's type
            lo, x, hi = args
            values = [self.value_of(lo), self.value_of(x), self.value_of(hi)]
            return self._result(self.create("stablehlo.clamp", values, [self.value_of(x).type]))
        if name == "select":  # select(pred, on_true, on_false): on_true's type
            values = [self.value_of(a) for a in args]
            return self._result(self.create("stablehlo.select", values, [values[1].type]))
        rule = _RESULT_RULE.get(name)
        if rule is None:
            raise NotSupportedError(f"{PASS_NAME}: no StableHLO op for '{name}'")
        values = [self.value_of(a) for a in args]
        first = values[0].type
        assert isinstance(first, TensorType)
        if rule == _SAME:
            rt: Attribute = first
        elif rule == _PRED:
            rt = tensor_type(I1, args[0].shape)
        elif rule == _PART:
            el = element_type(first)
            rt = (
                tensor_type(el.element_type, args[0].shape)
                if isinstance(el, ComplexType)
                else first
            )
        else:
            rt = tensor_type(ComplexType(element_type(first)), args[0].shape)
        return self._result(self.create(f"stablehlo.{name}", values, [rt]))

    def constant(self, value: Any, like: Traced) -> Traced:
        """`getConstantLike`: a splat constant of like's element type and shape."""
        el = element_type(like.value.type) if like.value is not None else _element_of(like.dtype)
        return self.splat(value, el, like.dtype, like.shape)

    def splat(
        self, value: Any, el: Attribute, dtype: np.dtype[Any], shape: tuple[int, ...]
    ) -> Traced:
        return self._result(self._insert(self.splat_op(value, el, dtype, shape)))

    def splat_op(
        self, value: Any, el: Attribute, dtype: np.dtype[Any], shape: tuple[int, ...]
    ) -> Operation:
        """A `stablehlo.constant` holding `value` (rounded to `el`) in every element, not inserted."""
        v = const_like(value, np.zeros((), dtype)).astype(storage_dtype(el)).reshape(1)
        t = tensor_type(el, shape)
        return self.build("stablehlo.constant", [], [t], {"value": make_dense(t, v)})

    def broadcast(self, x: Traced, shape: tuple[int, ...], dims: list[int] | None) -> Traced:
        """`broadcast_in_dim` to `shape` (numpy's trailing alignment unless `dims` is given)."""
        if x.shape == shape:
            return x
        if dims is None:
            dims = list(range(len(shape) - len(x.shape), len(shape)))
        rt = tensor_type(element_type(self.value_of(x).type), shape)
        props = {"broadcast_dimensions": DenseArrayBase.from_list(I64, dims)}
        return self._result(
            self.create("stablehlo.broadcast_in_dim", [self.value_of(x)], [rt], props)
        )

    def value_of(self, x: Any) -> SSAValue:
        if not isinstance(x, Traced) or x.builder is not self:
            raise TypeError(f"{PASS_NAME}: internal error: {x!r} is not a value of this rewrite")
        return x.value

    def _result(self, op: Operation) -> Traced:
        return self.wrap(op.results[0])


# ---------------------------------------------------------------------------------------------
# Rewrites: op -> values replacing its results
# ---------------------------------------------------------------------------------------------

Rewrite = Callable[[Builder, Operation], list[Traced]]

_UNARY_FORMULAS: dict[str, Callable[[Any], Any]] = {
    "_asin_acos_kernel": lambda z: math._complex(*math._asin_acos_kernel(z)[2:]),
}
# every CHLO unary op (the dialect's table): its formula above, else the semantics function named
# after it
_UNARY: dict[str, Callable[[Any], Any]] = {
    name: _UNARY_FORMULAS[name] if name in _UNARY_FORMULAS else getattr(math, name)
    for name in CHLO_UNARY_OPS
}

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "next_after": math.next_after,
    "polygamma": math.polygamma,
    "zeta": math.zeta,
    "mulhi": math.mulhi,
}
_BROADCAST_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": math.add,
    "atan2": math.atan2,
    "divide": math.divide,
    "maximum": math.maximum,
    "minimum": math.minimum,
    "multiply": math.multiply,
    "power": math.power,
    "remainder": math.remainder,
    "shift_left": math.shift_left,
    "shift_right_arithmetic": math.shift_right_arithmetic,
    "shift_right_logical": math.shift_right_logical,
    "subtract": math.subtract,
    "and": math.and_,
    "or": math.or_,
    "xor": math.xor,
    "complex": math._complex,
    "next_after": math.next_after,
    "polygamma": math.polygamma,
    "zeta": math.zeta,
}


def _operands(b: Builder, op: Operation) -> list[Traced]:
    return [b.wrap(v) for v in op.operands]


def _elementwise(fn: Callable[..., Any]) -> Rewrite:
    """An op whose operands go straight into its decomposition function."""
    return lambda b, op: [fn(*_operands(b, op))]


def _broadcast_dims(op: Operation) -> list[int] | None:
    dims = op.properties.get("broadcast_dimensions")
    return list(dims.get_values()) if isinstance(dims, DenseArrayBase) else None  # type: ignore[arg-type]


def _broadcasted(b: Builder, op: Operation) -> list[Traced]:
    """The operands broadcast to the result's shape (`broadcast_dimensions` maps the lower-rank
    operand's dimensions, as upstream's `BroadcastBinaryOp` lowering)."""
    shape = shape_of(op.results[0].type)
    assert shape is not None
    dims = _broadcast_dims(op)
    out = []
    for x in _operands(b, op):
        use = dims if dims is not None and len(x.shape) < len(shape) else None
        out.append(b.broadcast(x, shape, use))
    return out


def _broadcast_binary(fn: Callable[[Any, Any], Any]) -> Rewrite:
    return lambda b, op: [fn(*_broadcasted(b, op))]


def _broadcast_compare(b: Builder, op: Operation) -> list[Traced]:
    lhs, rhs = _broadcasted(b, op)
    direction = op.properties["comparison_direction"].data  # type: ignore[attr-defined]
    ctype = op.properties.get("compare_type")
    return [math.compare(lhs, rhs, direction, ctype.data if ctype is not None else None)]  # type: ignore[attr-defined]


def _broadcast_select(b: Builder, op: Operation) -> list[Traced]:
    shape = shape_of(op.results[0].type)
    assert shape is not None
    pred, on_true, on_false = (b.broadcast(x, shape, None) for x in _operands(b, op))
    return [math.select(pred, on_true, on_false)]


def _constant(b: Builder, op: Operation) -> list[Traced]:
    value = op.properties["value"]
    res = b.create("stablehlo.constant", [], [op.results[0].type], {"value": value})
    return [b.wrap(res.results[0])]


def _constant_like(b: Builder, op: Operation) -> list[Traced]:
    t = op.results[0].type
    value = op.properties["value"]
    if isinstance(value, FloatAttr | IntegerAttr):
        scalar: Any = value.value.data
    else:
        raise NotSupportedError(
            f"{PASS_NAME}: 'chlo.constant_like' with value {value} (only integer and float "
            "scalars are supported)",
            location=op_location(op),
        )
    shape = shape_of(t)
    assert shape is not None
    return [b.splat(scalar, element_type(t), dtype_of_type(t), shape)]


def _top_k(b: Builder, op: Operation) -> list[Traced]:
    """iota along the last dimension, a sort by `GT` (`TOTALORDER` for floats) carrying the
    indices, stable as the op's `is_stable` says (default true), and two slices of the first k."""
    (x,) = _operands(b, op)
    k = op.properties["k"].value.data  # type: ignore[attr-defined]
    stable = op.properties.get("is_stable")
    is_stable = int(bool(stable.value.data)) if isinstance(stable, IntegerAttr) else 1
    last = len(x.shape) - 1
    value_type = b.value_of(x).type
    index_type = tensor_type(I32, x.shape)
    iota = b.create("stablehlo.iota", [], [index_type], {"iota_dimension": IntegerAttr(last, I64)})
    el = element_type(value_type)
    scalar, index_scalar = tensor_type(el, ()), tensor_type(I32, ())
    block = Block(arg_types=[scalar, scalar, index_scalar, index_scalar])
    props: dict[str, Attribute] = {"comparison_direction": ComparisonDirectionAttr.get_case("GT")}
    if dt.is_float(dtype_of_type(value_type)):
        props["compare_type"] = ComparisonTypeAttr.get_case("TOTALORDER")
    compare = b.build(
        "stablehlo.compare", [block.args[0], block.args[1]], [tensor_type(I1, ())], props
    )
    block.add_op(compare)
    block.add_op(b.build("stablehlo.return", [compare.results[0]], []))
    sort = b.create(
        "stablehlo.sort",
        [b.value_of(x), iota.results[0]],
        [value_type, index_type],
        {"dimension": IntegerAttr(last, I64), "is_stable": IntegerAttr(is_stable, I1)},
        [Region([block])],
    )
    out_shape = (*x.shape[:-1], k)
    slice_props = {
        "start_indices": DenseArrayBase.from_list(I64, [0] * len(x.shape)),
        "limit_indices": DenseArrayBase.from_list(I64, list(out_shape)),
        "strides": DenseArrayBase.from_list(I64, [1] * len(x.shape)),
    }
    results = []
    for r in sort.results:
        t = tensor_type(element_type(r.type), out_shape)
        results.append(b.wrap(b.create("stablehlo.slice", [r], [t], dict(slice_props)).results[0]))
    return results


def _scan(b: Builder, op: Operation) -> list[Traced]:
    """A `stablehlo.while` over the scanned dimension: step i slices every input at i (from the end
    with `is_reverse`), runs a copy of the body on the slices and the carries, and writes the step's
    outputs into accumulators at i.  Results: the accumulators, then the final carries."""
    inputs, inits = list(op.inputs), list(op.inits)  # type: ignore[attr-defined]
    outputs, carries = list(op.outputs), list(op.carries)  # type: ignore[attr-defined]
    dim = op.properties["dimension"].value.data  # type: ignore[attr-defined]
    rev = op.properties.get("is_reverse")
    reverse = bool(rev.value.data) if isinstance(rev, IntegerAttr) else False
    full = shape_of((inputs or outputs)[0].type)
    assert full is not None
    length = full[dim]
    i64 = tensor_type(I64, ())

    def const(block: Block | None, value: Any, t: Attribute) -> SSAValue:
        c = b.splat_op(value, element_type(t), dtype_of_type(t), shape_of(t) or ())
        if block is None:
            b._insert(c)
        else:
            block.add_op(c)
        return c.results[0]

    accumulators = [const(None, 0, r.type) for r in outputs]
    state = [const(None, 0, i64), *inits, *accumulators]
    types = [v.type for v in state]

    cond = Block(arg_types=types)
    limit = const(cond, length, i64)
    less = b.build(
        "stablehlo.compare",
        [cond.args[0], limit],
        [tensor_type(I1, ())],
        {"comparison_direction": ComparisonDirectionAttr.get_case("LT")},
    )
    cond.add_op(less)
    cond.add_op(b.build("stablehlo.return", [less.results[0]], []))

    body = Block(arg_types=types)
    n_carry = len(inits)
    counter = body.args[0]
    carry_args = list(body.args[1 : 1 + n_carry])
    acc_args = list(body.args[1 + n_carry :])

    def add_op(
        name: str, operands: list[SSAValue], rtype: Attribute, props: dict | None = None
    ) -> SSAValue:
        o = b.build(name, operands, [rtype], props or {})
        body.add_op(o)
        return o.results[0]

    index = counter
    if reverse:
        index = add_op("stablehlo.subtract", [const(body, length - 1, i64), counter], i64)
    zero = const(body, 0, i64)

    def starts(rank: int) -> list[SSAValue]:
        return [index if d == dim else zero for d in range(rank)]

    step_inputs = []
    for x in inputs:
        shape = shape_of(x.type)
        assert shape is not None
        sizes = [1 if d == dim else n for d, n in enumerate(shape)]
        el = element_type(x.type)
        piece = add_op(
            "stablehlo.dynamic_slice",
            [x, *starts(len(shape))],
            tensor_type(el, tuple(sizes)),
            {"slice_sizes": DenseArrayBase.from_list(I64, sizes)},
        )
        step_shape = tuple(n for d, n in enumerate(shape) if d != dim)
        step_inputs.append(add_op("stablehlo.reshape", [piece], tensor_type(el, step_shape)))

    source = op.regions[0].blocks.first
    assert source is not None
    mapper: dict[SSAValue, SSAValue] = dict(
        zip(source.args, [*step_inputs, *carry_args], strict=True)
    )
    returned: list[SSAValue] = []
    for o in source.ops:
        if o.name in ("stablehlo.return", "func.return"):
            returned = [mapper.get(v, v) for v in o.operands]
            break
        body.add_op(o.clone(mapper))
    step_outputs, new_carries = returned[: len(outputs)], returned[len(outputs) :]

    new_accs = []
    for acc, value, result in zip(acc_args, step_outputs, outputs, strict=True):
        shape = shape_of(result.type)
        assert shape is not None
        sizes = tuple(1 if d == dim else n for d, n in enumerate(shape))
        update = add_op("stablehlo.reshape", [value], tensor_type(element_type(result.type), sizes))
        new_accs.append(
            add_op("stablehlo.dynamic_update_slice", [acc, update, *starts(len(shape))], acc.type)
        )
    next_counter = add_op("stablehlo.add", [counter, const(body, 1, i64)], i64)
    body.add_op(b.build("stablehlo.return", [next_counter, *new_carries, *new_accs], []))

    loop = b.create("stablehlo.while", state, types, {}, [Region([cond]), Region([body])])
    results = list(loop.results)
    ordered = [*results[1 + n_carry :], *results[1 : 1 + n_carry]]
    assert len(ordered) == len(outputs) + len(carries)
    return [b.wrap(v) for v in ordered]


def _ragged_dot(b: Builder, op: Operation) -> list[Traced]:
    """chlo.ragged_dot as masked dot_generals, one per group (the interpreter's algorithm): the
    lhs ragged dimension is split into consecutive groups of `group_sizes` (running sums give each
    group's [start, end)); a ragged non-contracting dimension multiplies group g by `rhs`'s slice g
    and sums, a ragged contracting dimension stacks one result per group, a ragged batch dimension
    zeroes the rows past the last group."""
    lhs, rhs, sizes = _operands(b, op)
    d = op.properties["ragged_dot_dimension_numbers"].dims  # type: ignore[attr-defined]
    lb, rb = list(d.lhs_batching_dimensions), list(d.rhs_batching_dimensions)
    lc, rc = list(d.lhs_contracting_dimensions), list(d.rhs_contracting_dimensions)
    (ragged,) = d.lhs_ragged_dimensions
    groups = sizes.shape[-1]
    if groups == 0:
        raise _not_supported(op, "group_sizes has no groups")
    prefix = math.ragged_prefix(ragged, lb, lc)
    result_el = element_type(op.results[0].type)
    props: dict[str, Attribute] = {}
    pc = op.properties.get("precision_config")
    if isinstance(pc, ArrayAttr):
        props["precision_config"] = ArrayAttr([PrecisionAttr.get_case(a.data) for a in pc.data])  # type: ignore[attr-defined]

    def value(x: Traced) -> SSAValue:
        return b.value_of(x)

    def structural(
        name: str,
        operands: list[Traced],
        shape: tuple[int, ...],
        el: Attribute,
        properties: dict[str, Attribute],
    ) -> Traced:
        t = tensor_type(el, shape)
        return b.wrap(b.create(name, [value(x) for x in operands], [t], properties).results[0])

    def i64s(values: list[int]) -> DenseArrayBase:
        return DenseArrayBase.from_list(I64, values)

    sizes_el = element_type(value(sizes).type)
    pos = structural(
        "stablehlo.iota", [], lhs.shape, sizes_el, {"iota_dimension": IntegerAttr(ragged, I64)}
    )
    zero = b.constant(0, lhs)

    def take(x: Traced, dim: int, k: int) -> Traced:
        """x's slice k along dim, with dim dropped."""
        start = [0] * len(x.shape)
        limit = list(x.shape)
        start[dim], limit[dim] = k, k + 1
        el = element_type(value(x).type)
        piece = structural(
            "stablehlo.slice",
            [x],
            tuple(1 if i == dim else n for i, n in enumerate(x.shape)),
            el,
            {
                "start_indices": i64s(start),
                "limit_indices": i64s(limit),
                "strides": i64s([1] * len(limit)),
            },
        )
        dropped = tuple(n for i, n in enumerate(x.shape) if i != dim)
        return structural("stablehlo.reshape", [piece], dropped, el, {})

    def spread(x: Traced) -> Traced:
        dims = prefix if len(sizes.shape) > 1 else []
        return structural(
            "stablehlo.broadcast_in_dim",
            [x],
            lhs.shape,
            sizes_el,
            {"broadcast_dimensions": i64s(dims)},
        )

    masks = []
    end: Traced | None = None
    for k in range(groups):
        size = take(sizes, len(sizes.shape) - 1, k)
        end = size if end is None else math.add(end, size)
        start = math.subtract(end, size)
        masks.append(
            math.and_(math.compare(pos, spread(start), "GE"), math.compare(pos, spread(end), "LT"))
        )

    def dot(l: Traced, r: Traced, rbatch: list[int], rcontract: list[int]) -> Traced:
        lf = [i for i in range(len(l.shape)) if i not in lb and i not in lc]
        rf = [i for i in range(len(r.shape)) if i not in rbatch and i not in rcontract]
        shape = tuple(
            [l.shape[i] for i in lb] + [l.shape[i] for i in lf] + [r.shape[i] for i in rf]
        )
        dims = DotDimensionNumbersAttr(
            lhs_batching_dimensions=lb,
            rhs_batching_dimensions=rbatch,
            lhs_contracting_dimensions=lc,
            rhs_contracting_dimensions=rcontract,
        )
        return structural(
            "stablehlo.dot_general",
            [l, r],
            shape,
            result_el,
            {"dot_dimension_numbers": dims, **props},
        )

    if ragged in lc:
        parts = []
        for mask in masks:
            part = dot(math.select(mask, lhs, zero), rhs, rb, rc)
            parts.append(structural("stablehlo.reshape", [part], (1, *part.shape), result_el, {}))
        shape = (groups, *parts[0].shape[1:])
        return [
            structural(
                "stablehlo.concatenate", parts, shape, result_el, {"dimension": IntegerAttr(0, I64)}
            )
        ]
    if ragged in lb:
        inside = masks[0]
        for mask in masks[1:]:
            inside = math.or_(inside, mask)
        return [dot(math.select(inside, lhs, zero), rhs, rb, rc)]
    (gdim,) = d.rhs_group_dimensions

    def drop(dims: list[int]) -> list[int]:
        return [i - (1 if i > gdim else 0) for i in dims]

    out: Traced | None = None
    for k, mask in enumerate(masks):
        part = dot(math.select(mask, lhs, zero), take(rhs, gdim, k), drop(rb), drop(rc))
        out = part if out is None else math.add(out, part)
    assert out is not None
    return [out]


REWRITES: dict[str, Rewrite] = {
    **{f"chlo.{n}": _elementwise(f) for n, f in _UNARY.items()},
    **{f"chlo.{n}": _elementwise(f) for n, f in _BINARY.items()},
    **{f"chlo.broadcast_{n}": _broadcast_binary(f) for n, f in _BROADCAST_BINARY.items()},
    "chlo.broadcast_compare": _broadcast_compare,
    "chlo.broadcast_select": _broadcast_select,
    "chlo.constant": _constant,
    "chlo.constant_like": _constant_like,
    "chlo.top_k": _top_k,
    "chlo.scan": _scan,
    "chlo.ragged_dot": _ragged_dot,
}

_WHY_NOT: dict[str, str] = {
    "chlo.minimum_broadcast_shapes": "it operates on dynamic shapes (shape dialect)",
}


def _not_supported(op: Operation, why: str) -> NotSupportedError:
    return NotSupportedError(
        f"{PASS_NAME}: lowering '{op.name}' is not supported: {why}",
        location=op_location(op),
    )


def _check_static(op: Operation) -> None:
    for v in (*op.operands, *op.results):
        t = v.type
        shape = shape_of(t)
        if not isinstance(t, TensorType) or shape is None or any(d < 0 for d in shape):
            from stablehlo_py.ir.text.printer import type_to_str

            raise _not_supported(
                op,
                f"type {type_to_str(t)} is not a statically shaped tensor (dynamic shapes are "
                "lowered through the shape dialect upstream, which stablehlo-py does not implement)",
            )


def legalize(root: Operation) -> int:
    """Replace every CHLO op under `root`; returns how many were replaced."""
    chlo_ops = [o for o in root.walk() if o.name.startswith("chlo.")]
    for op in chlo_ops:
        rewrite = REWRITES.get(op.name)
        if rewrite is None:
            raise _not_supported(op, _WHY_NOT.get(op.name, "no decomposition for this op"))
        _check_static(op)
        b = Builder(op)
        new = rewrite(b, op)
        for old, value in zip(op.results, new, strict=True):
            if value.value.type != old.type:
                raise TypeError(
                    f"{PASS_NAME}: internal error: the decomposition of {op.name} produced "
                    f"{value.value.type}, expected {old.type}"
                )
            old.replace_all_uses_with(value.value)
        Rewriter.erase_op(op)
    return len(chlo_ops)


def run(op: Operation, options: dict[str, object]) -> Operation:
    with gc_paused():
        legalize(op)
    return op


__all__ = ["REWRITES", "Builder", "legalize", "run"]
