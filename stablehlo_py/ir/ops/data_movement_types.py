"""upstream's ODS operand and result type constraints of the data-movement ops (StablehloOps.td),
as one table, checked in MLIR's order and words by `check_ods_types`:

    'stablehlo.slice' op operand #0 must be ranked tensor of ... values, but got 'tuple<...>'

MLIR's generated verifier checks each operand group in order (a variadic group says "variadic
of", and the operand index runs on across groups), then each result group; an op's verifier calls
`check_ods_types` after its ODS attribute checks and before its traits and its own checks."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.infer.shapes import bounds_of
from stablehlo_py.ir.verify.ods_containers import (
    HLO_ComplexTensor,
    HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTupleOrBuffer,
    HLO_Tuple,
)
from stablehlo_py.ir.verify.ods_types import (
    COMPLEX,
    FLOAT,
    INDEX,
    INT,
    PER_AXIS,
    PRED,
    QUANT,
    Constraint,
    HLO_IntTensor,
    HLO_StaticDimensionTensor,
    HLO_Tensor,
    HLO_TensorOrPerAxisQuantizedTensor,
    RankedTensorOf,
    TypeConstraint,
    check_values,
)
from stablehlo_py.ir.types import shape_of

HLO_PredTensor = RankedTensorOf(PRED)
I32RankedTensor = RankedTensorOf(("32-bit signless integer", lambda e: e == IntegerType(32)))
HLO_Fp32Or64Tensor = RankedTensorOf(
    ("32/64-bit float", lambda e: isinstance(e, (Float32Type, Float64Type)))
)
HLO_ScalarTensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, rank=0, kind="0D tensor")
HLO_ScalarIntTensor = RankedTensorOf(INT, rank=0, kind="0D tensor")
HLO_Static1DIntTensor = RankedTensorOf(
    INT, static=True, rank=1, kind="statically shaped 1-dimensional integer tensor"
)
HLO_StaticShapeIntFpComplexOrQuantizedTensor = RankedTensorOf(
    INT, FLOAT, COMPLEX, QUANT, static=True
)
HLO_DimensionTensor = RankedTensorOf(INDEX, INT, rank=1, kind="1D tensor")
ScatterIndices = RankedTensorOf(("integer", lambda e: isinstance(e, IntegerType)), INDEX)
"""`RankedTensorOf<[AnyInteger, Index]>` (scatter's scatter_indices)."""


def _static_or_single_bounded(t: Attribute) -> bool:
    """A static shape, or exactly one dynamic dimension, which has a bound (and no other bound)."""
    if not HLO_TensorOrPerAxisQuantizedTensor.accepts(t):
        return False
    s = shape_of(t) or ()
    if all(d >= 0 for d in s):
        return True
    dynamic = sum(1 for d in s if d < 0)
    bounded = sum(1 for b in bounds_of(t) if b >= 0)
    return dynamic == 1 and bounded == 1


HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor = TypeConstraint(
    "statically shaped or single bounded dimension tensor of "
    + " or ".join(c for c, _ in (FLOAT, PRED, INT, COMPLEX, QUANT, PER_AXIS))
    + " values",
    _static_or_single_bounded,
)

Signature = tuple[tuple[Constraint, ...], tuple[Constraint, ...]]
"""The constraints of an op's operand groups and of its result groups, in definition order."""

_T = HLO_Tensor
_TQ = HLO_TensorOrPerAxisQuantizedTensor
_DIM = HLO_StaticDimensionTensor

ODS_TYPES: dict[str, Signature] = {
    "stablehlo.broadcast": ((_T,), (_TQ,)),
    "stablehlo.broadcast_in_dim": (
        (_TQ,),
        (HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor,),
    ),
    "stablehlo.dynamic_broadcast_in_dim": ((_TQ, _DIM), (_TQ,)),
    "stablehlo.concatenate": ((_T,), (_T,)),
    "stablehlo.dynamic_slice": ((_T, HLO_ScalarIntTensor), (_T,)),
    "stablehlo.dynamic_update_slice": ((_T, _T, HLO_ScalarIntTensor), (_T,)),
    "stablehlo.gather": ((_T, HLO_IntTensor), (_T,)),
    "stablehlo.dynamic_gather": ((_T, HLO_IntTensor, HLO_Static1DIntTensor), (_T,)),
    "stablehlo.scatter": ((_T, ScatterIndices, _T), (_T,)),
    "stablehlo.get_dimension_size": ((_TQ,), (I32RankedTensor,)),
    "stablehlo.set_dimension_size": ((_T, I32RankedTensor), (_T,)),
    "stablehlo.get_tuple_element": (
        (HLO_Tuple,),
        (HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTupleOrBuffer,),
    ),
    "stablehlo.tuple": ((HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTupleOrBuffer,), (HLO_Tuple,)),
    "stablehlo.iota": ((), (HLO_StaticShapeIntFpComplexOrQuantizedTensor,)),
    "stablehlo.dynamic_iota": ((_DIM,), (_T,)),
    "stablehlo.pad": ((_T, HLO_ScalarTensor), (_T,)),
    "stablehlo.dynamic_pad": ((_T, HLO_ScalarTensor, _DIM, _DIM, _DIM), (_T,)),
    "stablehlo.reshape": ((_TQ,), (HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor,)),
    "stablehlo.dynamic_reshape": ((_TQ, _DIM), (_TQ,)),
    "stablehlo.reverse": ((_T,), (_T,)),
    "stablehlo.slice": ((_T,), (_T,)),
    "stablehlo.real_dynamic_slice": (
        (_T, HLO_DimensionTensor, HLO_DimensionTensor, HLO_DimensionTensor),
        (_T,),
    ),
    "stablehlo.transpose": ((_TQ,), (_TQ,)),
    "stablehlo.select": ((HLO_PredTensor, _T, _T), (_T,)),
    "stablehlo.clamp": ((_T, _T, _T), (_T,)),
    "stablehlo.complex": ((HLO_Fp32Or64Tensor, HLO_Fp32Or64Tensor), (HLO_ComplexTensor,)),
    "stablehlo.torch_index_select": ((_T, _T), (_T,)),
}
"""op name -> ODS type constraints of its operand and result groups (every data-movement op)."""


def _groups(op: Operation, kind: str) -> list[tuple[list[SSAValue], bool]]:
    """The op's operand (or result) groups in definition order: (values, is it variadic)."""
    from xdsl.irdl import VarOperandDef, VarResultDef

    definition = type(op).get_irdl_definition()  # type: ignore[attr-defined]
    defs = definition.operands if kind == "operand" else definition.results
    out: list[tuple[list[SSAValue], bool]] = []
    for name, d in defs:
        value = getattr(op, name)
        variadic = isinstance(d, (VarOperandDef, VarResultDef))
        out.append((list(value) if variadic else [value], variadic))
    return out


def check_ods_types(op: Operation) -> None:
    """MLIR's ODS operand, then result, type checks of `op` (from `ODS_TYPES`); raises
    VerifyException with MLIR's message for the first value that breaks its constraint."""
    operands, results = ODS_TYPES[op.name]
    for kind, constraints in (("operand", operands), ("result", results)):
        groups = _groups(op, kind)
        if len(groups) != len(constraints):
            raise AssertionError(f"ODS_TYPES[{op.name!r}] does not match the op's {kind} groups")
        index = 0
        for (values, variadic), constraint in zip(groups, constraints):
            types: Sequence[Attribute] = [v.type for v in values]
            check_values(kind, types, constraint, index, variadic)
            index += len(values)
