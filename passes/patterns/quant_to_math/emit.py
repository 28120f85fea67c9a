"""What the quant-to-math patterns build with: quantized-type queries (upstream's getQuantType,
isPerTensorType, getQuantStorageType, ...) and an emitter that inserts ops before the op being
rewritten, with its location, in the order upstream's patterns create them."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stablehlo_py.passes.drivers._common import carry_location
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import (
    QuantParams,
    UniformQuantizedType,
    element_type,
    simple_type,
    tensor_type,
)

F32 = simple_type("f32")
I8 = IntegerType(8)
I32 = IntegerType(32)
I64 = IntegerType(64)
DYNAMIC = -1


# ------------------------------------------------------------------------------- quantized types
# is_quantized and expressed_type: stablehlo-legalize-quantized-op-to-qdq's (one definition).
def quant_of(t: Attribute) -> QuantParams | None:
    """getQuantType: the `!quant.uniform` parameters of a type or of its element type."""
    el = element_type(t)
    return el.params if isinstance(el, UniformQuantizedType) else None


def is_per_axis(q: QuantParams | None) -> bool:
    return q is not None and q.quantized_dimension is not None


def is_per_tensor(q: QuantParams | None) -> bool:
    return q is not None and q.quantized_dimension is None


def storage_type(t: Attribute) -> Attribute:
    """getQuantStorageType: a quantized element type (or a tensor of one) as its storage type;
    any other type unchanged."""
    if isinstance(t, TensorType):
        el = t.element_type
        if isinstance(el, UniformQuantizedType):
            return clone(t, el.params.storage_type)
        return t
    if isinstance(t, UniformQuantizedType):
        return t.params.storage_type
    return t


def clone(t: Attribute, element: Attribute) -> TensorType:
    """ShapedType::clone(element): the same shape and encoding (bounds) with another element."""
    assert isinstance(t, TensorType), t
    enc = t.encoding
    return tensor_type(element, t.get_shape(), None if isinstance(enc, NoneAttr) else enc)


def shape(v: SSAValue | Attribute) -> tuple[int, ...]:
    t = v.type if isinstance(v, SSAValue) else v
    assert isinstance(t, TensorType), t
    return t.get_shape()


def storage_width(q: QuantParams) -> int:
    return q.storage_type.width.data  # type: ignore[attr-defined]


def i64_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(I64, list(values))


# ------------------------------------------------------------------------------------- emitter
class Emitter:
    """Inserts ops before `anchor` (the op being rewritten), each with its location."""

    def __init__(self, anchor: Operation):
        self.anchor = anchor
        self.ops = default_registry().ops

    def build(
        self,
        name: str,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        properties: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
        attributes: dict[str, Attribute] | None = None,
    ) -> Operation:
        cls = self.ops[name]
        op = cls.build_generic(  # type: ignore[attr-defined]
            list(operands), list(result_types), properties or {}, attributes or {}, list(regions)
        )
        return carry_location(op, self.anchor)

    def op(self, *args: object, **kwargs: object) -> Operation:
        op = self.build(*args, **kwargs)  # type: ignore[arg-type]
        block = self.anchor.parent
        assert block is not None
        block.insert_op_before(op, self.anchor)
        return op

    def value(self, *args: object, **kwargs: object) -> SSAValue:
        return self.op(*args, **kwargs).results[0]

    # -- constants
    def constant(self, values: object, element: Attribute, dims: tuple[int, ...]) -> SSAValue:
        t = tensor_type(element, dims)
        dtype = (
            np.float32
            if element == F32
            else {8: np.int8, 32: np.int32, 64: np.int64}[
                element.width.data  # type: ignore[attr-defined]
            ]
        )
        arr = np.asarray(values, dtype=np.float64 if dtype is np.float32 else np.int64)
        bits = np.dtype(dtype).itemsize * 8
        if dtype is not np.float32 and bits < 64:  # as static_cast<intN_t>: two's complement wrap
            arr = ((arr + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))
        data = arr.astype(dtype).reshape(dims)
        return self.value("stablehlo.constant", [], [t], {"value": make_dense(t, data)})

    def f32(self, x: float) -> SSAValue:
        return self.constant(x, F32, ())

    def i32(self, x: int) -> SSAValue:
        return self.constant(x, I32, ())

    def f32_vector(self, xs: Sequence[float]) -> SSAValue:
        return self.constant(list(xs), F32, (len(xs),))

    def i32_vector(self, xs: Sequence[int]) -> SSAValue:
        return self.constant(list(xs), I32, (len(xs),))

    # -- ops
    def convert(self, x: SSAValue, to: Attribute) -> SSAValue:
        return self.value("stablehlo.convert", [x], [to])

    def chlo(
        self,
        kind: str,
        x: SSAValue,
        y: SSAValue,
        result: Attribute | None = None,
        dims: Sequence[int] | None = None,
    ) -> SSAValue:
        """`chlo.broadcast_<kind>`; without `result`, the type of the operand of higher rank."""
        if result is None:
            result = x.type if len(shape(x)) >= len(shape(y)) else y.type
        props = {} if dims is None else {"broadcast_dimensions": i64_array(dims)}
        return self.value(f"chlo.broadcast_{kind}", [x, y], [result], props)

    def binary(self, name: str, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.value(f"stablehlo.{name}", [x, y], [x.type])

    def clamp(self, lo: SSAValue, x: SSAValue, hi: SSAValue) -> SSAValue:
        return self.value("stablehlo.clamp", [lo, x, hi], [x.type])

    def round_even(self, x: SSAValue) -> SSAValue:
        return self.value("stablehlo.round_nearest_even", [x], [x.type])

    def sum_reduce(self, x: SSAValue, dims: Sequence[int]) -> SSAValue:
        """`stablehlo.reduce` of an i32 tensor over `dims` with an add body, init 0."""
        init = self.constant(0, I32, ())
        out = tuple(d for i, d in enumerate(shape(x)) if i not in dims)
        scalar = tensor_type(I32, ())
        block = Block(arg_types=[scalar, scalar])
        add = self.build("stablehlo.add", [block.args[0], block.args[1]], [scalar])
        block.add_op(add)
        block.add_op(self.build("stablehlo.return", [add.results[0]], []))
        return self.value(
            "stablehlo.reduce",
            [x, init],
            [tensor_type(I32, out)],
            {"dimensions": i64_array(dims)},
            [Region([block])],
        )

    def dimension_size(self, x: SSAValue, dim: int) -> SSAValue:
        return self.value(
            "stablehlo.get_dimension_size",
            [x],
            [tensor_type(I32, ())],
            {"dimension": IntegerAttr(dim, I64)},
        )
