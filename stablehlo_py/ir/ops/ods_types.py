"""upstream's ODS tensor type constraints (Base.td `RankedTensorOf<[...]>` definitions) with the
message MLIR's generated verifier prints: `operand #0 must be <summary>, but got '<type>'`.

An element class is (ODS summary, predicate); a tensor constraint is a ranked tensor whose element
type is in one of its classes, and its summary is MLIR's: `ranked tensor of <a> or <b> values`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, Signedness, TensorType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.constraints import is_complex, is_float, t2s
from stablehlo_py.ir.types import UniformQuantizedType

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


class RankedTensorOf:
    """`RankedTensorOf<[classes]>`: its MLIR summary and its check."""

    def __init__(self, *classes: ElementClass):
        self.classes = classes
        self.summary = f"ranked tensor of {' or '.join(c[0] for c in classes)} values"

    def accepts(self, t: Attribute) -> bool:
        if not isinstance(t, TensorType):
            return False
        e = t.get_element_type()
        return any(pred(e) for _, pred in self.classes)


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


def check_values(kind: str, types: Sequence[Attribute], constraint: RankedTensorOf) -> None:
    """MLIR's ODS check of each operand (`kind` "operand") or result ("result") type, in order."""
    for i, t in enumerate(types):
        if not constraint.accepts(t):
            raise VerifyException(f"{kind} #{i} must be {constraint.summary}, but got '{t2s(t)}'")
