"""upstream's ODS tensor type constraints (Base.td `RankedTensorOf<[...]>` definitions) with the
message MLIR's generated verifier prints: `operand #0 must be <summary>, but got '<type>'`.

An element class is (ODS summary, predicate); a tensor constraint is a ranked tensor whose element
type is in one of its classes, and its summary is MLIR's: `ranked tensor of <a> or <b> values`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.constraints import is_complex, is_float, t2s
from stablehlo_py.ir.types import TokenType, UniformQuantizedType

_INT_WIDTHS = (2, 4, 8, 16, 32, 64)


def _signless(e: Attribute) -> bool:
    return (
        isinstance(e, IntegerType)
        and e.signedness.data == Signedness.SIGNLESS
        and e.width.data in _INT_WIDTHS
    )


def _unsigned(e: Attribute) -> bool:
    return (
        isinstance(e, IntegerType)
        and e.signedness.data == Signedness.UNSIGNED
        and e.width.data in _INT_WIDTHS
    )


def _complex32or64(e: Attribute) -> bool:
    return is_complex(e) and isinstance(e.element_type, (Float32Type, Float64Type))  # type: ignore[attr-defined]


def _per_tensor(e: Attribute) -> bool:
    return isinstance(e, UniformQuantizedType) and not e.is_per_axis


def _per_axis(e: Attribute) -> bool:
    return isinstance(e, UniformQuantizedType) and e.is_per_axis


ElementClass = tuple[str, Callable[[Attribute], bool]]

FLOAT: ElementClass = ("4/6/8/16/32/64-bit float", is_float)  # HLO_Float
PRED: ElementClass = (
    "bool",
    lambda e: (
        isinstance(e, IntegerType)
        and e.width.data == 1
        and e.signedness.data == Signedness.SIGNLESS
    ),
)  # HLO_Pred
INT: ElementClass = (
    "2/4/8/16/32/64-bit integer",
    lambda e: _signless(e) or _unsigned(e),
)  # HLO_Int
SINT: ElementClass = ("2/4/8/16/32/64-bit signless integer", _signless)  # HLO_SInt
COMPLEX: ElementClass = (
    "complex type with 32/64-bit float elements",
    _complex32or64,
)  # HLO_Complex
QUANT: ElementClass = ("per-tensor integer quantized", _per_tensor)  # HLO_QuantizedInt
PER_AXIS: ElementClass = ("per-axis integer quantized", _per_axis)  # HLO_PerAxisQuantizedInt
INDEX: ElementClass = ("index", lambda e: isinstance(e, IndexType))  # MLIR's Index


class RankedTensorOf:
    """`RankedTensorOf<[classes]>` (or, with `static`, `StaticShapeTensorOf<[classes]>` and
    RankedTensorOf with HasStaticShapePred): its MLIR summary and its check."""

    def __init__(
        self,
        *classes: ElementClass,
        static: bool = False,
        rank: int | None = None,
        kind: str | None = None,
    ):
        self.classes = classes
        self.static = static
        self.rank = rank
        kind = kind or ("statically shaped tensor" if static else "ranked tensor")
        self.summary = f"{kind} of {' or '.join(c[0] for c in classes)} values"

    def accepts(self, t: Attribute) -> bool:
        if not isinstance(t, TensorType):
            return False
        if self.static and any(d < 0 for d in t.get_shape()):
            return False
        if self.rank is not None and len(t.get_shape()) != self.rank:
            return False
        e = t.get_element_type()
        return any(pred(e) for _, pred in self.classes)


class TypeConstraint:
    """A named ODS type constraint that is not a tensor of element classes (`HLO_Token`)."""

    def __init__(self, summary: str, accepts: Callable[[Attribute], bool]):
        self.summary = summary
        self.accepts = accepts


class AnyTypeOf:
    """`AnyTypeOf<[constraints]>`: accepts what any of them accepts; MLIR joins their summaries."""

    def __init__(self, *options: RankedTensorOf | TypeConstraint):
        self.options = options
        self.summary = " or ".join(o.summary for o in options)

    def accepts(self, t: Attribute) -> bool:
        return any(o.accepts(t) for o in self.options)


HLO_Tensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT)
HLO_TensorOrPerAxisQuantizedTensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, PER_AXIS)
HLO_NonQuantizedTensor = RankedTensorOf(FLOAT, PRED, INT, COMPLEX)
HLO_IntTensor = RankedTensorOf(INT)
HLO_FpTensor = RankedTensorOf(FLOAT)
HLO_PredOrIntTensor = RankedTensorOf(PRED, INT)
HLO_FpOrComplexTensor = RankedTensorOf(FLOAT, COMPLEX)
HLO_FpOrQuantizedIntTensor = RankedTensorOf(FLOAT, QUANT)
HLO_FpComplexOrQuantizedIntTensor = RankedTensorOf(FLOAT, COMPLEX, QUANT)
HLO_IntFpOrComplexOrQuantizedIntTensor = RankedTensorOf(INT, FLOAT, COMPLEX, QUANT)
HLO_QuantizedIntOrPerAxisQuantizedIntTensor = RankedTensorOf(QUANT, PER_AXIS)
HLO_FloatOrQuantizedIntOrPerAxisQuantizedIntTensor = RankedTensorOf(FLOAT, QUANT, PER_AXIS)
SIntFpComplexOrQuantizedIntTensor = RankedTensorOf(
    SINT, FLOAT, COMPLEX, QUANT
)  # abs, sign operands
SIntFpOrQuantizedIntTensor = RankedTensorOf(SINT, FLOAT, QUANT)  # abs result
HLO_IntOrFpTensor = RankedTensorOf(INT, FLOAT)
HLO_StaticShapeIntOrFpTensor = RankedTensorOf(INT, FLOAT, static=True)
HLO_PredIntOrFpTensor = RankedTensorOf(PRED, INT, FLOAT)
HLO_FpOrQuantizedInt1DTensor = RankedTensorOf(FLOAT, QUANT, rank=1, kind="1D tensor")  # batch_norm
HLO_PredIntOrFp0DTensor = RankedTensorOf(PRED, INT, FLOAT, rank=0, kind="0D tensor")  # rng's a, b
HLO_StaticDimensionTensor = RankedTensorOf(
    INDEX, INT, static=True, rank=1, kind="statically shaped 1-dimensional tensor"
)
HLO_Static2DIntTensor = RankedTensorOf(
    INT, static=True, rank=2, kind="statically shaped 2-dimensional integer tensor"
)
HLO_Token = TypeConstraint("token", lambda t: isinstance(t, TokenType))
HLO_Future = TypeConstraint("future", lambda t: getattr(t, "name", None) == "stablehlo.future")
HLO_StaticShapeTensorOrPerAxisQuantizedTensorOrToken = AnyTypeOf(
    RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, static=True),  # HLO_StaticShapeTensor
    RankedTensorOf(FLOAT, PRED, INT, COMPLEX, QUANT, PER_AXIS, static=True),
    HLO_Token,
)
UI32: ElementClass = (
    "32-bit unsigned integer",
    lambda e: _unsigned(e) and e.width.data == 32,  # type: ignore[attr-defined]
)  # UI32
UI32RankedTensor = RankedTensorOf(UI32)  # replica_id, partition_id results
Constraint = RankedTensorOf | TypeConstraint | AnyTypeOf


def check_values(
    kind: str,
    types: Sequence[Attribute],
    constraint: Constraint,
    first: int = 0,
    variadic: bool = False,
) -> None:
    """MLIR's ODS check of each operand (`kind` "operand") or result ("result") type, in order;
    `first` is the index of the first of `types` among the op's operands (results), `variadic`
    whether they are one `Variadic<...>` group (MLIR then says "must be variadic of ...")."""
    summary = f"variadic of {constraint.summary}" if variadic else constraint.summary
    for i, t in enumerate(types, first):
        if not constraint.accepts(t):
            raise VerifyException(f"{kind} #{i} must be {summary}, but got '{t2s(t)}'")
