"""Result shapes as IR, as upstream's `reifyReturnTypeShapes` (StablehloOps.cpp): for an op whose
result shapes depend on its operands' run-time sizes, the `tensor<Nxindex>` values that compute
them from those operands -- `shape.shape_of`, `tensor.dim`, `tensor.extract`, index arithmetic and
`tensor.from_elements` (stablehlo_py/ir/ops/shape_computation.py).

The IR is what upstream's test pass prints after MLIR's greedy rewrite driver has folded it: a
static dimension is an `arith.constant`, `x + 0`, `x - 0`, `x * 1`, `x / 1` and arithmetic on
constants fold, and constants are created once each, at the start of the function's body
(MLIR's OperationFolder).  Sizes that fold stay Python ints until an op needs them as values, so
no dead op is left behind.

    shapes = reify_result_shapes(op, ShapeBuilder.before(test_op))   # one value per result

Ops without a rule here raise NotSupportedError naming the op (upstream reifies only the ops that
implement InferShapedTypeOpInterface's reifyReturnTypeShapes; so do we, for those listed in
``REIFY``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.infer.reduction import int_attr, int_list
from stablehlo_py.ir.infer.registry import InferError

__all__ = ["REIFY", "ShapeBuilder", "has_reify", "reify_result_shapes"]

Size = int | SSAValue
"""A dimension size: a Python int when it is a constant, else the SSA value computing it."""

INDEX = IndexType()
SLT = 2  # arith.cmpi's `slt` predicate


class ShapeBuilder:
    """Builds index computations before an op, folding as MLIR's arith and tensor folders do;
    constants go, once each, to the start of ``constants_block``."""

    def __init__(self, before: Operation, constants_block: Block) -> None:
        self.before = before
        self.constants_block = constants_block
        self._constants: dict[tuple[int, Attribute], SSAValue] = {}
        self.created: list[Operation] = []
        # the block's integer constants are reused, moved to its start (MLIR's OperationFolder)
        self._existing: dict[tuple[int, Attribute], Operation] = {}
        for op in constants_block.ops:
            v = op.properties.get("value") if op.name == "arith.constant" else None
            if isinstance(v, IntegerAttr) and isinstance(v.type, (IndexType, IntegerType)):
                self._existing.setdefault((v.value.data, v.type), op)

    @classmethod
    def before_op(cls, op: Operation) -> ShapeBuilder:
        """Insert before ``op``; constants at the start of its function's body (the entry block
        of the outermost region below the module)."""
        block = op.parent_block()
        assert block is not None
        top = block
        parent = block.parent_op()
        while parent is not None and parent.name not in ("builtin.module",):
            if parent.name == "func.func":
                top = parent.regions[0].blocks.first  # type: ignore[assignment]
                break
            pb = parent.parent_block()
            if pb is None:
                break
            top = pb
            parent = pb.parent_op()
        return cls(op, top)

    # ------------------------------------------------------------------------------ creation
    def _insert(self, op: Operation) -> SSAValue:
        block = self.before.parent_block()
        assert block is not None
        block.insert_op_before(op, self.before)
        self.created.append(op)
        return op.results[0]

    def const(self, n: int, t: Attribute = INDEX) -> SSAValue:
        key = (n, t)
        v = self._constants.get(key)
        if v is None:
            op = self._existing.pop(key, None)
            if op is not None:
                op.detach()  # (it may follow the op being built before: it moves to the start)
            else:
                op = arith.ConstantOp(IntegerAttr(n, t))  # type: ignore[arg-type]
                self.created.append(op)
            self._at_start(op)
            v = self._constants[key] = op.results[0]
        return v

    def _at_start(self, op: Operation) -> None:
        first = self.constants_block.first_op
        if first is None:
            self.constants_block.add_op(op)
        else:
            self.constants_block.insert_op_before(op, first)

    def value(self, s: Size, t: Attribute = INDEX) -> SSAValue:
        return self.const(s, t) if isinstance(s, int) else s

    # ------------------------------------------------------------------------------ tensors
    def dim(self, v: SSAValue, i: int) -> Size:
        """tensor.dim (folded to its size when the dimension is static)."""
        t = v.type
        assert isinstance(t, TensorType)
        size = t.get_shape()[i]
        if size >= 0:
            return size
        return self._insert(tensor.DimOp(v, self.const(i)))

    def extract(self, v: SSAValue, i: int) -> Size:
        """tensor.extract (folded when the tensor is a constant, as its folder does)."""
        t = v.type
        assert isinstance(t, TensorType)
        known = constant_ints(v)
        if known is not None and i < len(known):
            return known[i]
        return self._insert(tensor.ExtractOp(v, [self.const(i)], t.element_type))

    def cast(self, s: Size, t: Attribute) -> Size:
        """arith.index_cast of a scalar to ``t`` (nothing when it has that type already; a
        constant folds)."""
        if isinstance(s, int) or s.type == t:
            return s
        return self._insert(arith.IndexCastOp(s, t))

    def cast_to_index_tensor(self, v: SSAValue) -> SSAValue:
        """upstream's castToIndexTensor: a 1-d integer tensor as tensor<Nxindex> (a constant
        folds to an index constant)."""
        t = v.type
        assert isinstance(t, TensorType)
        if isinstance(t.element_type, IndexType):
            return v
        target = TensorType(INDEX, t.get_shape())
        known = constant_ints(v)
        if known is not None:
            from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

            value = DenseIntOrFPElementsAttr.from_list(target, list(known))
            op = arith.ConstantOp(value, target)
            self._at_start(op)
            self.created.append(op)
            return op.results[0]
        return self._insert(arith.IndexCastOp(v, target))

    def from_elements(self, sizes: Sequence[Size], t: Attribute = INDEX) -> SSAValue:
        values = [self.value(s, t) for s in sizes]
        result = TensorType(t, [len(values)])
        return self._insert(tensor.FromElementsOp.create(operands=values, result_types=[result]))

    def shape_of(self, v: SSAValue) -> SSAValue:
        from stablehlo_py.ir.ops.shape_computation import ShapeOfOp

        t = v.type
        if not isinstance(t, TensorType):
            raise NotSupportedError(f"the shape of a value of type {t} has no tensor<Nxindex> form")
        return self._insert(
            ShapeOfOp.create(operands=[v], result_types=[TensorType(INDEX, [len(t.get_shape())])])
        )

    # ---------------------------------------------------------------------------- arithmetic
    def _binary(self, cls: type, a: Size, b: Size, t: Attribute) -> SSAValue:
        return self._insert(cls(self.value(a, t), self.value(b, t), t))

    def add(self, a: Size, b: Size, t: Attribute = INDEX) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        return self._binary(arith.AddiOp, a, b, t)

    def sub(self, a: Size, b: Size, t: Attribute = INDEX) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        return self._binary(arith.SubiOp, a, b, t)

    def mul(self, a: Size, b: Size, t: Attribute = INDEX) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 0 or b == 0:
            return 0
        if b == 1:
            return a
        if a == 1:
            return b
        return self._binary(arith.MuliOp, a, b, t)

    def divsi(self, a: Size, b: Size, t: Attribute = INDEX) -> Size:
        if isinstance(a, int) and isinstance(b, int) and b != 0:
            q = abs(a) // abs(b)
            return q if (a >= 0) == (b > 0) else -q
        if b == 1:
            return a
        return self._binary(arith.DivSIOp, a, b, t)

    def maxsi(self, a: Size, b: Size, t: Attribute = INDEX) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        return self._binary(arith.MaxSIOp, a, b, t)

    def less(self, a: Size, b: Size, t: Attribute = INDEX) -> bool | SSAValue:
        """`a < b` (arith.cmpi slt)."""
        if isinstance(a, int) and isinstance(b, int):
            return a < b
        return self._insert(arith.CmpiOp(self.value(a, t), self.value(b, t), SLT))

    def select(self, cond: bool | SSAValue, then: Size, other: Size, t: Attribute = INDEX) -> Size:
        """arith.select (folded on a constant condition)."""
        if isinstance(cond, bool):
            return then if cond else other
        return self._insert(arith.SelectOp(cond, self.value(then, t), self.value(other, t)))

    def drop_unused(self, keep: Sequence[SSAValue]) -> None:
        """Erase the ops built but not used (the greedy driver's removal of dead ops)."""
        kept = {id(v) for v in keep}
        for op in reversed(self.created):
            r = op.results[0]
            if not r.uses and id(r) not in kept:
                op.detach()
                op.erase()
        self.created = [op for op in self.created if op.parent is not None]


def constant_ints(v: SSAValue) -> tuple[int, ...] | None:
    """The integers of a value defined by a constant op (MLIR's m_Constant), else None."""
    owner = getattr(v, "owner", None)
    if not isinstance(owner, Operation) or owner.name not in (
        "stablehlo.constant",
        "arith.constant",
    ):
        return None
    value = owner.properties.get("value") or owner.attributes.get("value")
    if isinstance(value, IntegerAttr):
        return (value.value.data,)
    elem = getattr(getattr(value, "type", None), "element_type", None)
    if not isinstance(elem, IntegerType | IndexType):  # m_Constant of integers: a float or
        return None  # complex constant is no match (its values are not truncated)
    try:
        return int_list(value)
    except (TypeError, ValueError, InferError):
        return None


# ------------------------------------------------------------------------------------ rules
Reify = Callable[[Operation, ShapeBuilder], "list[SSAValue] | None"]
REIFY: dict[str, Reify] = {}


def _reify(*names: str) -> Callable[[Reify], Reify]:
    def register(fn: Reify) -> Reify:
        for n in names:
            REIFY[n] = fn
        return fn

    return register


def _attr(op: Operation, name: str) -> Attribute | None:
    return op.properties.get(name) or op.attributes.get(name)


def _ranked(v: SSAValue, what: str, op: Operation) -> TensorType:
    t = v.type
    if not isinstance(t, TensorType):
        raise NotSupportedError(f"reifying the result shape of {op.name}: its {what} is not ranked")
    return t


def _element(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type


@_reify("stablehlo.compare", "stablehlo.reverse", "stablehlo.map")
def _shape_of_first(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    """deriveShapeFromOperand(operands.front())."""
    return [b.shape_of(op.operands[0])]


@_reify("stablehlo.select", "stablehlo.clamp")
def _shape_of_second(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    """deriveShapeFromOperand(operands[1]): on_true / operand."""
    return [b.shape_of(op.operands[1])]


@_reify(
    "stablehlo.dynamic_iota",
    "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_broadcast_in_dim",
    "stablehlo.rng",
)
def _shape_operand(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    """castToIndexTensor(the shape operand)."""
    index = {
        "stablehlo.dynamic_broadcast_in_dim": 1,
        "stablehlo.dynamic_reshape": 1,
        "stablehlo.rng": 2,
    }
    return [b.cast_to_index_tensor(op.operands[index.get(op.name, 0)])]


@_reify("stablehlo.broadcast")
def _broadcast(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    operand = op.operands[0]
    t = _ranked(operand, "operand", op)
    sizes: list[Size] = list(int_list(_attr(op, "broadcast_sizes")) or ())
    sizes += [b.dim(operand, i) for i in range(len(t.get_shape()))]
    return [b.from_elements(sizes)]


@_reify("stablehlo.transpose")
def _transpose(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    operand = op.operands[0]
    t = _ranked(operand, "operand", op)
    perm = list(int_list(_attr(op, "permutation")) or ())
    sizes: list[Size] = [0] * len(perm)
    for i in range(len(t.get_shape())):
        sizes[perm.index(i)] = b.dim(operand, i)
    return [b.from_elements(sizes)]


@_reify("stablehlo.reduce")
def _reduce(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    n = len(op.operands) // 2
    first = op.operands[0]
    t = _ranked(first, "first input", op)
    dims = set(int_list(_attr(op, "dimensions")) or ())
    shape = b.from_elements([b.dim(first, i) for i in range(len(t.get_shape())) if i not in dims])
    return [shape] * n


@_reify("stablehlo.concatenate")
def _concatenate(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    axis = int_attr(_attr(op, "dimension"), 0)
    all_sizes = []
    for v in op.operands:
        t = _ranked(v, "input", op)
        all_sizes.append([b.dim(v, i) for i in range(len(t.get_shape()))])
    sizes = all_sizes[0]
    for other in all_sizes[1:]:
        if len(other) != len(sizes):
            raise NotSupportedError("Concatenate expects all operands must be of the same rank")
        sizes[axis] = b.add(sizes[axis], other[axis])
    return [b.from_elements(sizes)]


@_reify("stablehlo.dot_general")
def _dot_general(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    lhs, rhs = op.operands[0], op.operands[1]
    lt, rt = _ranked(lhs, "lhs", op), _ranked(rhs, "rhs", op)
    d = getattr(_attr(op, "dot_dimension_numbers"), "dims", None)
    lb = tuple(d.lhs_batching_dimensions) if d is not None else ()
    rb = tuple(d.rhs_batching_dimensions) if d is not None else ()
    lc = tuple(d.lhs_contracting_dimensions) if d is not None else ()
    rc = tuple(d.rhs_contracting_dimensions) if d is not None else ()
    sizes: list[Size] = [b.dim(lhs, i) for i in lb]
    sizes += [b.dim(lhs, i) for i in range(len(lt.get_shape())) if i not in lc and i not in lb]
    sizes += [b.dim(rhs, i) for i in range(len(rt.get_shape())) if i not in rc and i not in rb]
    return [b.from_elements(sizes)]


@_reify("stablehlo.gather", "stablehlo.dynamic_gather")
def _gather(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    """reifyGatherShape: the batch dimensions from start_indices, the offset dimensions from the
    slice sizes (gather's attribute; dynamic_gather's operand, extracted and cast to index)."""
    starts = op.operands[1]
    st = _ranked(starts, "start_indices", op)
    result = op.results[0].type
    if not isinstance(result, TensorType):
        raise NotSupportedError(f"reifying the result shape of {op.name}: its result is not ranked")
    g = getattr(_attr(op, "dimension_numbers"), "dims", None)
    assert g is not None
    if op.name == "stablehlo.dynamic_gather":
        sizes_v = op.operands[2]
        n = _ranked(sizes_v, "slice_sizes", op).get_shape()[0]
        slice_sizes: list[Size] = [b.cast(b.extract(sizes_v, i), INDEX) for i in range(n)]
    else:
        slice_sizes = list(int_list(_attr(op, "slice_sizes")) or ())
    offset = list(g.offset_dims)
    skipped = set(g.collapsed_slice_dims) | set(getattr(g, "operand_batching_dims", ()))
    ivd = g.index_vector_dim
    window = [s for i, s in enumerate(slice_sizes) if i not in skipped]
    sizes: list[Size] = []
    batch = [i for i in range(len(st.get_shape())) if i != ivd]
    k = w = 0
    for i in range(len(result.get_shape())):
        if i in offset:
            sizes.append(window[w])
            w += 1
        else:
            sizes.append(b.dim(starts, batch[k]))
            k += 1
    return [b.from_elements(sizes)]


@_reify("stablehlo.bitcast_convert")
def _bitcast_convert(op: Operation, b: ShapeBuilder) -> list[SSAValue] | None:
    """deriveShapeFromOperand when the element types have the same width; upstream does not
    reify a shape-changing bitcast (None: the op is left as it is)."""
    from stablehlo_py.ir.infer.reduction import bit_width

    operand, result = op.operands[0].type, op.results[0].type
    if not isinstance(operand, TensorType) or not isinstance(result, TensorType):
        return None
    if bit_width(operand.element_type) != bit_width(result.element_type):
        return None
    return [b.shape_of(op.operands[0])]


@_reify("stablehlo.pad")
def _pad(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    operand = op.operands[0]
    t = _ranked(operand, "operand", op)
    low = list(int_list(_attr(op, "edge_padding_low")) or ())
    high = list(int_list(_attr(op, "edge_padding_high")) or ())
    interior = list(int_list(_attr(op, "interior_padding")) or ())
    sizes: list[Size] = []
    for i in range(len(t.get_shape())):
        d = b.dim(operand, i)
        if interior[i] > 0:
            inner = b.mul(b.maxsi(b.sub(d, 1), 0), interior[i])
            d = b.add(d, inner)
        sizes.append(b.add(d, high[i] + low[i]))
    return [b.from_elements(sizes)]


@_reify("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    operand, start, limit, strides = op.operands[:4]
    t = _ranked(operand, "operand", op)
    e = _element(start)
    sizes: list[Size] = []
    for i in range(len(t.get_shape())):
        s, lim, st = b.extract(start, i), b.extract(limit, i), b.extract(strides, i)
        # size = (limit - start + stride - 1) / stride
        sizes.append(b.divsi(b.sub(b.add(st, b.sub(lim, s, e), e), 1, e), st, e))
    return [b.from_elements(sizes, e)]


@_reify("stablehlo.dynamic_pad")
def _dynamic_pad(op: Operation, b: ShapeBuilder) -> list[SSAValue]:
    operand, _, low, high, interior = op.operands[:5]
    t = _ranked(operand, "operand", op)
    e = _element(low)
    sizes: list[Size] = []
    for i in range(len(t.get_shape())):
        d = b.cast(b.dim(operand, i), e)
        lo, hi, inner = b.extract(low, i), b.extract(high, i), b.extract(interior, i)
        # output = input + low + high + interior * max(input - 1, 0)
        is_empty = b.less(d, 1, e)
        interior_size = b.mul(inner, b.select(is_empty, 0, b.sub(d, 1, e), e), e)
        sizes.append(b.add(b.add(b.add(interior_size, d, e), lo, e), hi, e))
    return [b.from_elements(sizes, e)]


# -------------------------------------------------------------------------------------- api
def has_reify(op_name: str) -> bool:
    return op_name in REIFY


def reify_result_shapes(op: Operation, builder: ShapeBuilder) -> list[SSAValue] | None:
    """One `tensor<Nxindex>` value per result of ``op``, computing its shape; None where upstream's
    reifyReturnTypeShapes fails (the caller leaves things as they are)."""
    fn = REIFY.get(op.name)
    if fn is None:
        raise NotSupportedError(f"reifying the result shapes of {op.name} is not supported")
    shapes = fn(op, builder)
    builder.drop_unused(shapes or [])
    return shapes
