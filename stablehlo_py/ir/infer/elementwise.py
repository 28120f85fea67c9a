"""Result-type inference rules of the elementwise ops (upstream's TypeInference.cpp `infer*Op`).

* the ops with upstream's ``HLO_CompatibleOperandsAndResultType`` trait (every unary and binary
  elementwise op except abs/real/imag/is_finite/convert, and add with its own identical
  ``inferReturnTypes``): the most specific type of the operands (``inferMostSpecificType``: dynamic
  dimensions refined by the other operand, ``#stablehlo.bounds`` merged);
* abs, real, imag: the operand's type with a complex element type replaced by its part type
  (``inferAbsOp``, ``createRealType``), shape and encoding kept;
* is_finite: the operand's shape and encoding with i1 elements;
* compare: the lhs's shape and encoding with i1 elements (``inferCompareOp``).

convert has no rule: upstream infers only its shape (``inferConvertOp`` gives shape components
without an element type; the element type is the result's choice) and does not verify through
inference.

Helpers shared with ``quantization.py`` (reduce_precision) live here: :func:`most_specific_of`,
:func:`same_shape_with_element`, :func:`compatible_operands_and_result`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ComplexType, IntegerType, NoneAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute

from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import infer_most_specific_type, is_compatible
from stablehlo_py.ir.types import tensor_type

__all__ = [
    "COMPATIBLE_OPERANDS_AND_RESULT",
    "compatible_operands_and_result",
    "most_specific_of",
    "same_shape_with_element",
]

I1 = IntegerType(1)

COMPATIBLE_OPERANDS_AND_RESULT = (
    # unary
    "cbrt",
    "ceil",
    "cosine",
    "count_leading_zeros",
    "exponential",
    "exponential_minus_one",
    "floor",
    "log",
    "log_plus_one",
    "logistic",
    "negate",
    "not",
    "popcnt",
    "round_nearest_afz",
    "round_nearest_even",
    "rsqrt",
    "sign",
    "sine",
    "sqrt",
    "tan",
    "tanh",
    # binary
    "and",
    "atan2",
    "divide",
    "maximum",
    "minimum",
    "multiply",
    "or",
    "power",
    "remainder",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "subtract",
    "xor",
)
"""The elementwise ops whose result type upstream infers with the CompatibleOperandsAndResultType
trait (``inferMostSpecificType`` of the operands); add has the same rule with its own message."""


def most_specific_of(
    types: Sequence[Attribute],
    empty_message: str = "Expected non-empty operands for [CompatibleOperandsAndResultType]",
) -> list[Attribute]:
    """upstream's CompatibleOperandsAndResultType::inferReturnTypes: the operands' most specific
    type; ``empty_message`` when there are no operands (the trait's words unless the op's own
    inferReturnTypes says it, as add's does)."""
    if not types:
        raise InferError(empty_message)
    return [infer_most_specific_type(types)]


def same_shape_with_element(t: Attribute, element: Attribute) -> Attribute:
    """upstream's getSameShapeTensorType (ShapedType::clone(elementType)): ``t``'s shape and
    encoding (bounds) with ``element``; an unranked tensor stays unranked."""
    if isinstance(t, TensorType):
        enc = t.encoding
        return tensor_type(element, t.get_shape(), None if isinstance(enc, NoneAttr) else enc)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(element)
    raise InferError(f"expected a tensor type, but got {_t2s(t)}")


def compatible_operands_and_result(
    operand_types: Sequence[Attribute], result_types: Sequence[Attribute]
) -> bool:
    """upstream's CompatibleOperandsAndResultType::verifyTrait (without the message): every operand
    and result type is compatible (``isCompatibleForHloTypeInference``) with the first operand's."""
    if operand_types:
        expected = operand_types[0]
    elif result_types:
        expected = result_types[0]
    else:
        return False
    return all(is_compatible(t, expected) for t in (*operand_types, *result_types))


def _t2s(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    return type_to_str(t)


def _real_element(t: Attribute) -> Attribute:
    e = t.element_type if isinstance(t, (TensorType, UnrankedTensorType)) else t
    return e.element_type if isinstance(e, ComplexType) else e


def _only_operand(inp: InferInput) -> Attribute:
    if len(inp.operand_types) != 1:
        raise InferError(f"expected 1 operand, but got {len(inp.operand_types)}")
    return inp.operand_types[0]


# ----------------------------------------------------------------------------------------- rules
@rule(*(f"stablehlo.{n}" for n in COMPATIBLE_OPERANDS_AND_RESULT))
def _compatible_operands_and_result(inp: InferInput) -> list[Attribute]:
    return most_specific_of(inp.operand_types)


@rule("stablehlo.add")
def _add(inp: InferInput) -> list[Attribute]:
    return most_specific_of(
        inp.operand_types, "Expected non-empty operands for AddOp::inferReturnTypes"
    )


@rule("stablehlo.abs", "stablehlo.real", "stablehlo.imag")
def _real_part(inp: InferInput) -> list[Attribute]:
    # inferAbsOp (abs_c1, abs_c2), inferRealOp / inferImagOp (createRealType; real_c2, imag_c2)
    t = _only_operand(inp)
    return [same_shape_with_element(t, _real_element(t))]


@rule("stablehlo.is_finite")
def _is_finite(inp: InferInput) -> list[Attribute]:
    # inferIsFiniteOp
    return [same_shape_with_element(_only_operand(inp), I1)]


@rule("stablehlo.compare")
def _compare(inp: InferInput) -> list[Attribute]:
    # inferCompareOp (compare_c1, compare_c2): the lhs's shape and encoding, i1 elements
    if len(inp.operand_types) != 2:
        raise InferError(f"expected 2 operands, but got {len(inp.operand_types)}")
    return [same_shape_with_element(inp.operand_types[0], I1)]
