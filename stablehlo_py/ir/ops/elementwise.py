"""Elementwise ops (spec.md "Elementwise" ops): one class each, sharing family bases.

Syntax: `%r = stablehlo.add %a, %b : tensor<4xf32>` (custom<SameOperandsAndResultType>), falling back to
the functional type when operand and result types differ.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.enums import ComparisonDirectionAttr, ComparisonTypeAttr
from stablehlo_py.ir.op_attrs import DEFAULT_RESULT_ACCURACY, ResultAccuracyAttr
from stablehlo_py.ir.ops.base import (
    I1,
    AttrSyntax,
    StableHLOOp,
    define_op,
    enum_syntax,
    op_def,
    prop,
)
from stablehlo_py.ir.ops.constraints import (
    baseline_element,
    fail,
    same_baseline_type,
    shapes_compatible,
    t2s,
)
from stablehlo_py.ir.types import UniformQuantizedType, element_type, shape_of

# Unary ops whose result element type may differ from the operand's (spec constraints on shapes only;
# element-type rules of these ops are checked by the interpreter's semantics).
_SHAPE_ONLY = frozenset({"convert", "abs", "is_finite", "real", "imag"})


def _verify_elementwise(op: StableHLOOp, values: list) -> None:  # type: ignore[type-arg]
    """<op>_c1 of the spec's elementwise ops: operands and result have the same shape, and (except
    for the ops in _SHAPE_ONLY) the same baseline type."""
    short = op.name.split(".", 1)[1]
    result = op.results[0].type
    shape_only = short in _SHAPE_ONLY
    for i, v in enumerate(values):
        t = v.type
        ok = shapes_compatible(shape_of(t), shape_of(result)) if shape_only else same_baseline_type(t, result)
        if not ok:
            fail(
                f"operand #{i} has type {t2s(t)} but the result has type {t2s(result)}; "
                f"they must have the same {'shape' if shape_only else 'type'} ({short}_c1)"
            )


class UnaryElementwise(StableHLOOp):
    operand = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = "$operand attr-dict `:` custom<SameOperandsAndResultType>(type($operand), type($result))"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_elementwise(self, [self.operand])


class BinaryElementwise(StableHLOOp):
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs attr-dict `:` custom<SameOperandsAndResultType>(type($lhs), type($rhs), type($result))"
    )
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_elementwise(self, [self.lhs, self.rhs])


# name -> the spec's one-line semantics (spec.md#<name>)
UNARY: dict[str, str] = {
    "abs": "Element-wise absolute value.",
    "ceil": "Element-wise ceil.",
    "count_leading_zeros": "Element-wise number of leading zero bits.",
    "floor": "Element-wise floor.",
    "imag": "Element-wise imaginary part.",
    "is_finite": "Element-wise check whether a value is finite.",
    "negate": "Element-wise negation.",
    "not": "Element-wise NOT.",
    "popcnt": "Element-wise number of set bits.",
    "real": "Element-wise real part.",
    "round_nearest_afz": "Element-wise rounding towards the nearest integer, ties away from zero.",
    "round_nearest_even": "Element-wise rounding towards the nearest integer, ties to even.",
    "sign": "Element-wise sign.",
    "convert": "Element-wise conversion from one element type to another.",
}
BINARY: dict[str, str] = {
    "add": "Element-wise addition.",
    "and": "Element-wise AND.",
    "atan2": "Element-wise atan2.",
    "divide": "Element-wise division.",
    "maximum": "Element-wise max.",
    "minimum": "Element-wise min.",
    "multiply": "Element-wise product.",
    "or": "Element-wise OR.",
    "power": "Element-wise exponentiation.",
    "remainder": "Element-wise remainder.",
    "shift_left": "Element-wise left-shift.",
    "shift_right_arithmetic": "Element-wise arithmetic right-shift.",
    "shift_right_logical": "Element-wise logical right-shift.",
    "subtract": "Element-wise subtraction.",
    "xor": "Element-wise XOR.",
}

UNARY_OPS = {n: define_op(UnaryElementwise, f"stablehlo.{n}", d) for n, d in UNARY.items()}
BINARY_OPS = {n: define_op(BinaryElementwise, f"stablehlo.{n}", d) for n, d in BINARY.items()}

OPS = (*UNARY_OPS.values(), *BINARY_OPS.values())


# ------------------------------------------------------------------------------------- compare
@op_def
class CompareOp(StableHLOOp):
    """Element-wise comparison of `lhs` and `rhs` by `comparison_direction` and `compare_type`
    (spec.md#compare)."""

    name = "stablehlo.compare"
    lhs = operand_def()
    rhs = operand_def()
    comparison_direction = prop(enum_syntax(ComparisonDirectionAttr))
    compare_type = prop(enum_syntax(ComparisonTypeAttr), optional=True)
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = (
        "$comparison_direction `,` $lhs `,` $rhs (`,` $compare_type^)? attr-dict `:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        lt, rt, res = self.lhs.type, self.rhs.type, self.result.type
        # compare_c1
        if baseline_element(lt) != baseline_element(rt):
            fail(f"lhs type {t2s(lt)} and rhs type {t2s(rt)} must have the same element type")
        # compare_c2
        if not (
            shapes_compatible(shape_of(lt), shape_of(rt))
            and shapes_compatible(shape_of(lt), shape_of(res))
        ):
            fail(f"lhs {t2s(lt)}, rhs {t2s(rt)} and result {t2s(res)} must have the same shape")
        if element_type(res) != I1:
            fail(f"result type {t2s(res)} must be a tensor of i1")
        # compare_c3 is not enforced: upstream's verifier accepts any compare_type (its own test
        # print_stablehlo.mlir @compare_op compares i32 with TOTALORDER), and programs it accepts
        # must verify here too.


OPS = (*OPS, CompareOp)


# --------------------------------------------------------------- unary ops with result_accuracy
RESULT_ACCURACY = AttrSyntax(ResultAccuracyAttr, lambda p: p.parse_attribute(), lambda p: p.peek() == "#")


class UnaryElementwiseWithAccuracy(UnaryElementwise):
    """Transcendental unary ops: a `result_accuracy` (`#stablehlo.result_accuracy<...>`) that the
    attr-dict shows only when it differs from the default (DefaultValuedOptionalAttr)."""

    result_accuracy = prop(RESULT_ACCURACY, default=DEFAULT_RESULT_ACCURACY)

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        op = self.name.split(".", 1)[1]
        # <op>_c1: baseline_type(operand) = baseline_type(result)
        if not same_baseline_type(ot, rt):
            fail(
                f"operand type {t2s(ot)} and result type {t2s(rt)} must be the same ({op}_c1)"
            )
        e = element_type(ot)
        # <op>_i1: floating-point or complex, or per-tensor quantized
        if isinstance(e, UniformQuantizedType) and e.is_per_axis:
            fail(f"operand type {t2s(ot)} must not be per-axis quantized ({op}_i1)")
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


UNARY_WITH_ACCURACY: dict[str, str] = {
    "cbrt": "Element-wise cubic root (spec.md#cbrt).",
    "cosine": "Element-wise cosine (spec.md#cosine).",
    "exponential": "Element-wise exponential (spec.md#exponential).",
    "exponential_minus_one": "Element-wise exponential minus one (spec.md#exponential_minus_one).",
    "log": "Element-wise logarithm (spec.md#log).",
    "log_plus_one": "Element-wise logarithm plus one (spec.md#log_plus_one).",
    "logistic": "Element-wise logistic (spec.md#logistic).",
    "rsqrt": "Element-wise reciprocal square root (spec.md#rsqrt).",
    "sine": "Element-wise sine (spec.md#sine).",
    "sqrt": "Element-wise square root (spec.md#sqrt).",
    "tan": "Element-wise tangent (spec.md#tan).",
    "tanh": "Element-wise hyperbolic tangent (spec.md#tanh).",
}
UNARY_WITH_ACCURACY_OPS = {
    n: define_op(UnaryElementwiseWithAccuracy, f"stablehlo.{n}", d) for n, d in UNARY_WITH_ACCURACY.items()
}

OPS = (*OPS, *UNARY_WITH_ACCURACY_OPS.values())
