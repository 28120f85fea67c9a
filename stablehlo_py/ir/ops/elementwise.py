"""Elementwise ops (spec.md "Elementwise" ops): one class each, sharing family bases.

Syntax: `%r = stablehlo.add %a, %b : tensor<4xf32>` (custom<SameOperandsAndResultType>), falling back to
the functional type when operand and result types differ.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.enums import ComparisonDirectionAttr, ComparisonTypeAttr
from stablehlo_py.ir.infer.elementwise import compatible_operands_and_result
from stablehlo_py.ir.infer.shapes import element_type_compatible
from stablehlo_py.ir.op_attrs import DEFAULT_RESULT_ACCURACY, ResultAccuracyAttr
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import (
    PureOp,
    StableHLOOp,
    attribute_syntax,
    enum_syntax,
    family_op,
    op_def,
    prop,
)
from stablehlo_py.ir.verify.constraints import fail, shapes_compatible, t2s
from stablehlo_py.ir.types import UniformQuantizedType, element_type, shape_of

# Unary ops whose result type upstream infers with its own rule (InferTypeOpInterface without the
# CompatibleOperandsAndResultType trait): the element type may differ from the operand's.
_OWN_RULE = frozenset({"abs", "is_finite", "real", "imag"})
_NOT_INFERRED = frozenset({"convert"})
"""Ops without upstream's InferTypeOpInterface check."""


_FP_C_Q = ods.HLO_FpComplexOrQuantizedIntTensor
_FP_Q = ods.HLO_FpOrQuantizedIntTensor
_NUM = ods.HLO_IntFpOrComplexOrQuantizedIntTensor
ODS_TYPES: dict[str, tuple[ods.RankedTensorOf, ods.RankedTensorOf]] = {
    # and the transcendental ops with result_accuracy (UNARY_WITH_ACCURACY, added below)
    "atan2": (_FP_C_Q, _FP_C_Q),
    **dict.fromkeys(("ceil", "floor", "round_nearest_afz", "round_nearest_even"), (_FP_Q, _FP_Q)),
    **dict.fromkeys(("negate", "divide", "power", "remainder", "subtract"), (_NUM, _NUM)),
    **dict.fromkeys(
        ("count_leading_zeros", "popcnt", "shift_left"), (ods.HLO_IntTensor, ods.HLO_IntTensor)
    ),
    **dict.fromkeys(
        ("shift_right_arithmetic", "shift_right_logical"), (ods.HLO_IntTensor, ods.HLO_IntTensor)
    ),
    **dict.fromkeys(
        ("not", "and", "or", "xor"), (ods.HLO_PredOrIntTensor, ods.HLO_PredOrIntTensor)
    ),
    "abs": (ods.SIntFpComplexOrQuantizedIntTensor, ods.SIntFpOrQuantizedIntTensor),
    "sign": (ods.SIntFpComplexOrQuantizedIntTensor, ods.SIntFpComplexOrQuantizedIntTensor),
    "is_finite": (_FP_Q, ods.RankedTensorOf(ods.PRED)),
    "real": (ods.HLO_FpOrComplexTensor, ods.HLO_FpTensor),
    "imag": (ods.HLO_FpOrComplexTensor, ods.HLO_FpTensor),
    "convert": (ods.HLO_NonQuantizedTensor, ods.HLO_NonQuantizedTensor),
    "add": (ods.HLO_TensorOrPerAxisQuantizedTensor, ods.HLO_TensorOrPerAxisQuantizedTensor),
}
"""op -> (operand, result) ODS type constraints of StablehloOps.td; an op not listed takes HLO_Tensor
(maximum, minimum, multiply)."""


def verify_same_shape(op: StableHLOOp) -> None:
    """MLIR's SameOperandsAndResultShape trait (compatible shapes; unranked matches any)."""
    shapes = [shape_of(v.type) for v in (*op.operands, *op.results)]
    if not all(shapes_compatible(shapes[0], s) for s in shapes[1:]):
        fail("requires the same shape for all operands and results")


def verify_compatible_types(op: StableHLOOp) -> None:
    """upstream's CompatibleOperandsAndResultType trait."""
    if not compatible_operands_and_result(
        [v.type for v in op.operands], [r.type for r in op.results]
    ):
        fail("requires compatible types for all operands and results")


def _check_elementwise(op: StableHLOOp) -> None:
    """As upstream: the SameOperandsAndResultShape trait of every elementwise op first (upstream's
    `stablehlo.add` of tensor<3xf32> and tensor<4xf32> says "requires the same shape", not the
    inference's "Mismatched dimension sizes"), then the op's other traits and verifier:
    CompatibleOperandsAndResultType for most ops, add's verifyAddOp.  Then, as MLIR verifies
    InferTypeOpInterface last, the result type inferred (stablehlo_py.ir.infer.elementwise) must be
    compatible with the declared one: the families' INFER_CHECK (convert is not inferred)."""
    short = op.name.split(".", 1)[1]
    operands, results = ODS_TYPES.get(short, (ods.HLO_Tensor, ods.HLO_Tensor))
    ods.check_values("operand", [v.type for v in op.operands], operands)
    ods.check_values("result", [v.type for v in op.results], results)
    verify_same_shape(op)
    if short == "convert":
        return
    # MLIR checks the op's traits and its verify() before InferTypeOpInterface's refinement
    if short not in _OWN_RULE and short != "add":
        verify_compatible_types(op)
    if short == "add":
        _verify_add(op)


def _verify_add(op: StableHLOOp) -> None:
    """upstream's verifyAddOp (add_c1 .. add_c7)."""
    elems = [element_type(v.type) for v in (*op.operands, *op.results)]
    quantized = [e if isinstance(e, UniformQuantizedType) else None for e in elems]
    if not any(quantized):
        if elems[0] != elems[1] or elems[0] != elems[2]:
            fail("requires the same element type for all operands and results")
        return
    if not all(quantized):
        fail("expects  all operands and results to be either quantized or non-quantized")
    lq, rq, resq = quantized
    assert lq is not None and rq is not None and resq is not None
    if not (lq.params.storage_type == rq.params.storage_type == resq.params.storage_type):
        fail("mismatched operands and result quantization storage types")
    if not (lq.params.expressed_type == rq.params.expressed_type == resq.params.expressed_type):
        fail("mismatched operands and result quantization expressed types")
    if lq.is_per_axis or rq.is_per_axis:
        if not resq.is_per_axis:
            fail("result is not per_axis quantized but lhs or rhs are")
        for side, q in (("lhs", lq), ("rhs", rq)):
            if q.is_per_axis and q.params.quantized_dimension != resq.params.quantized_dimension:
                fail(
                    f"quantization_dimension of {side} and result are not same {t2s(q)} vs {t2s(resq)}"
                )
        return
    if resq.is_per_axis:
        fail("result per_axis quantized but none from rhs and lhs are per_axis quantized")


class _Elementwise(PureOp):
    """The elementwise families' shared part: pure, verified by `_check_elementwise`, then the
    inference check."""

    VERIFY_BY_TYPES: ClassVar[bool] = True  # its verification reads only types and attributes

    def verify_(self) -> None:
        _check_elementwise(self)


class UnaryElementwise(_Elementwise):
    operand = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand attr-dict `:` custom<SameOperandsAndResultType>(type($operand), type($result))"
    )


class BinaryElementwise(_Elementwise):
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs attr-dict `:` custom<SameOperandsAndResultType>(type($lhs), type($rhs), type($result))"
    )


class IsFiniteShape(_Elementwise):
    """is_finite: a unary elementwise op whose operand and result upstream names `x` and `y`
    (StablehloOps.td), with the format `operands attr-dict : functional-type(operands, results)`."""

    x = operand_def()
    y = result_def()
    FORMAT: ClassVar[str | None] = "operands attr-dict `:` functional-type(operands, results)"


# --------------------------------------------------------------- unary ops with result_accuracy
RESULT_ACCURACY = attribute_syntax(ResultAccuracyAttr)


class UnaryElementwiseWithAccuracy(UnaryElementwise):
    """Transcendental unary ops: a `result_accuracy` (`#stablehlo.result_accuracy<...>`) that the
    attr-dict shows only when it differs from the default (DefaultValuedOptionalAttr)."""

    result_accuracy = prop(RESULT_ACCURACY, default=DEFAULT_RESULT_ACCURACY)

    def verify_after_inference_(self) -> None:
        # after <op>_i1 (upstream's ODS operand constraint) and <op>_c1 (the inferred type and
        # CompatibleOperandsAndResultType): the result_accuracy
        acc = self.result_accuracy
        if acc is not None:
            a = acc.accuracy  # type: ignore[attr-defined]
            # upstream's ResultAccuracyAttr::verify
            if a.atol < 0 or a.rtol < 0 or a.ulps < 0:
                fail("result_accuracy tolerances (atol, rtol, ulps) must be non-negative")
            if a.mode != "TOLERANCE" and (a.atol_bits or a.rtol_bits or a.ulps):
                fail(
                    f"result_accuracy with mode {a.mode} must have zero tolerances (atol, rtol and ulps are "
                    "only meaningful with mode TOLERANCE)"
                )


# Each op's class, named op_class_name(<op>) by define_op (through family_op); the row is the op's
# one source: its name and the spec's one-line semantics (spec.md#<name>).  UNARY/BINARY/UNARY_WITH_ACCURACY map name ->
# semantics, UNARY_OPS/BINARY_OPS/UNARY_WITH_ACCURACY_OPS name -> class, in row order.
UNARY: dict[str, str] = {}
BINARY: dict[str, str] = {}
UNARY_WITH_ACCURACY: dict[str, str] = {}
UNARY_OPS: dict[str, type] = {}
BINARY_OPS: dict[str, type] = {}
UNARY_WITH_ACCURACY_OPS: dict[str, type] = {}


def _unary(name: str, doc: str) -> Any:
    base = IsFiniteShape if name == "is_finite" else UnaryElementwise
    infer = {"INFER_CHECK": None} if name in _NOT_INFERRED else {}
    return family_op(UNARY, UNARY_OPS, base, f"stablehlo.{name}", doc, doc, **infer)


def _binary(name: str, doc: str) -> Any:
    return family_op(BINARY, BINARY_OPS, BinaryElementwise, f"stablehlo.{name}", doc, doc)


def _with_accuracy(name: str, doc: str) -> Any:
    base = UnaryElementwiseWithAccuracy
    return family_op(UNARY_WITH_ACCURACY, UNARY_WITH_ACCURACY_OPS, base, f"stablehlo.{name}", doc, doc)


AbsOp = _unary("abs", "Element-wise absolute value.")
CeilOp = _unary("ceil", "Element-wise ceil.")
CountLeadingZerosOp = _unary("count_leading_zeros", "Element-wise number of leading zero bits.")
FloorOp = _unary("floor", "Element-wise floor.")
ImagOp = _unary("imag", "Element-wise imaginary part.")
IsFiniteOp = _unary("is_finite", "Element-wise check whether a value is finite.")
NegateOp = _unary("negate", "Element-wise negation.")
NotOp = _unary("not", "Element-wise NOT.")
PopcntOp = _unary("popcnt", "Element-wise number of set bits.")
RealOp = _unary("real", "Element-wise real part.")
RoundNearestAfzOp = _unary("round_nearest_afz", "Element-wise rounding towards the nearest integer, ties away from zero.")
RoundNearestEvenOp = _unary("round_nearest_even", "Element-wise rounding towards the nearest integer, ties to even.")
SignOp = _unary("sign", "Element-wise sign.")
ConvertOp = _unary("convert", "Element-wise conversion from one element type to another.")
AddOp = _binary("add", "Element-wise addition.")
AndOp = _binary("and", "Element-wise AND.")
Atan2Op = _binary("atan2", "Element-wise atan2.")
DivideOp = _binary("divide", "Element-wise division.")
MaximumOp = _binary("maximum", "Element-wise max.")
MinimumOp = _binary("minimum", "Element-wise min.")
MultiplyOp = _binary("multiply", "Element-wise product.")
OrOp = _binary("or", "Element-wise OR.")
PowerOp = _binary("power", "Element-wise exponentiation.")
RemainderOp = _binary("remainder", "Element-wise remainder.")
ShiftLeftOp = _binary("shift_left", "Element-wise left-shift.")
ShiftRightArithmeticOp = _binary("shift_right_arithmetic", "Element-wise arithmetic right-shift.")
ShiftRightLogicalOp = _binary("shift_right_logical", "Element-wise logical right-shift.")
SubtractOp = _binary("subtract", "Element-wise subtraction.")
XorOp = _binary("xor", "Element-wise XOR.")
CbrtOp = _with_accuracy("cbrt", "Element-wise cubic root (spec.md#cbrt).")
CosineOp = _with_accuracy("cosine", "Element-wise cosine (spec.md#cosine).")
ExponentialOp = _with_accuracy("exponential", "Element-wise exponential (spec.md#exponential).")
ExponentialMinusOneOp = _with_accuracy("exponential_minus_one", "Element-wise exponential minus one (spec.md#exponential_minus_one).")
LogOp = _with_accuracy("log", "Element-wise logarithm (spec.md#log).")
LogPlusOneOp = _with_accuracy("log_plus_one", "Element-wise logarithm plus one (spec.md#log_plus_one).")
LogisticOp = _with_accuracy("logistic", "Element-wise logistic (spec.md#logistic).")
RsqrtOp = _with_accuracy("rsqrt", "Element-wise reciprocal square root (spec.md#rsqrt).")
SineOp = _with_accuracy("sine", "Element-wise sine (spec.md#sine).")
SqrtOp = _with_accuracy("sqrt", "Element-wise square root (spec.md#sqrt).")
TanOp = _with_accuracy("tan", "Element-wise tangent (spec.md#tan).")
TanhOp = _with_accuracy("tanh", "Element-wise hyperbolic tangent (spec.md#tanh).")

ODS_TYPES.update(dict.fromkeys(UNARY_WITH_ACCURACY, (_FP_C_Q, _FP_C_Q)))

SAME_SHAPE_BASES = (UnaryElementwise, IsFiniteShape, BinaryElementwise)
"""The op families of upstream's StableHLO_Unary/BinaryElementwiseOp (SameOperandsAndResultShape)."""


# ------------------------------------------------------------------------------------- compare
@op_def
class CompareOp(StableHLOOp):
    """Element-wise comparison of `lhs` and `rhs` by `comparison_direction` and `compare_type`
    (spec.md#compare)."""

    name = "stablehlo.compare"
    VERIFY_BY_TYPES: ClassVar[bool] = True  # its verification reads only types and attributes
    lhs = operand_def()
    rhs = operand_def()
    comparison_direction = prop(enum_syntax(ComparisonDirectionAttr))
    compare_type = prop(enum_syntax(ComparisonTypeAttr), optional=True)
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = (
        "$comparison_direction `,` $lhs `,` $rhs (`,` $compare_type^)? attr-dict `:` functional-type(operands, results)"
    )
    # after verify_: the inferred type (lhs's shape and bounds, i1) against the declared one
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        # upstream's ODS constraints (HLO_Tensor operands, HLO_PredTensor result), before the traits
        ods.check_values("operand", [lt, rt], ods.HLO_Tensor)
        ods.check_values("result", [res], ods.RankedTensorOf(ods.PRED))
        # compare_c1 (CompatibleOperandsElementType)
        if not element_type_compatible(lt, rt):
            fail("requires compatible element types for all operands")
        # compare_c2 (SameOperandsAndResultShape)
        verify_same_shape(self)
        # compare_c3 is not enforced: upstream's verifier accepts any compare_type (its own test
        # print_stablehlo.mlir @compare_op compares i32 with TOTALORDER), and programs it accepts
        # must verify here too.

OPS = (
    *UNARY_OPS.values(),
    *BINARY_OPS.values(),
    CompareOp,
    *UNARY_WITH_ACCURACY_OPS.values(),
)
