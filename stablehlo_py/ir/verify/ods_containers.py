"""upstream's ODS type constraints that admit more than tensors (Base.td): tokens, buffers
(`memref`s) and nested tuples, with the summaries MLIR's generated verifiers print (`operand #0 must
be variadic of ranked tensor of ... values or token, but got 'tuple<...>'`).

Built from the tensor constraints of `ods_types`; used by the control-flow ops (if, case, while,
return, optimization_barrier, composite) and the tuple ops (tuple, get_tuple_element)."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType, TupleType
from xdsl.ir import Attribute

from stablehlo_py.ir.verify.ods_types import (
    COMPLEX,
    FLOAT,
    INT,
    PER_AXIS,
    PRED,
    QUANT,
    AnyTypeOf,
    HLO_Tensor,
    HLO_Token,
    RankedTensorOf,
    TypeConstraint,
)

_BUFFER_ELEMENTS = (FLOAT, PRED, INT, COMPLEX, QUANT)

HLO_PerAxisQuantizedIntTensor = RankedTensorOf(PER_AXIS)
HLO_ComplexTensor = RankedTensorOf(COMPLEX)
HLO_Buffer = TypeConstraint(
    f"memref of {' or '.join(summary for summary, _ in _BUFFER_ELEMENTS)} values",
    lambda t: isinstance(t, MemRefType) and any(ok(t.element_type) for _, ok in _BUFFER_ELEMENTS),
)
"""`MemRefOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>`."""


def _tuple_leaf(t: Attribute) -> bool:
    return (
        HLO_Tensor.accepts(t)
        or HLO_Buffer.accepts(t)
        or HLO_PerAxisQuantizedIntTensor.accepts(t)
        or HLO_Token.accepts(t)
    )


def _nested_tuple(t: Attribute) -> bool:
    return isinstance(t, TupleType) and all(
        _nested_tuple(e) or _tuple_leaf(e) for e in t.types.data
    )


HLO_Tuple = TypeConstraint(
    "nested tuple with any combination of "
    + " or ".join(
        c.summary for c in (HLO_Tensor, HLO_Buffer, HLO_PerAxisQuantizedIntTensor, HLO_Token)
    )
    + " values",
    _nested_tuple,
)
"""`NestedTupleOf<[HLO_Tensor, HLO_Buffer, HLO_PerAxisQuantizedIntTensor, HLO_Token]>`."""

HLO_TensorOrToken = AnyTypeOf(HLO_Tensor, HLO_Token)
HLO_TensorOrPerAxisQuantizedTensorOrToken = AnyTypeOf(
    HLO_Tensor, HLO_PerAxisQuantizedIntTensor, HLO_Token
)
HLO_TensorOrPerAxisQuantizedTensorOrTokenOrBuffer = AnyTypeOf(
    HLO_TensorOrPerAxisQuantizedTensorOrToken,  # type: ignore[arg-type]  # MLIR flattens summaries
    HLO_Buffer,
)
HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple = AnyTypeOf(
    HLO_Tensor, HLO_PerAxisQuantizedIntTensor, HLO_Token, HLO_Tuple
)
HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTupleOrBuffer = AnyTypeOf(
    HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple,  # type: ignore[arg-type]
    HLO_Buffer,
)
