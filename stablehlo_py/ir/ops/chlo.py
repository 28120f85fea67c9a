"""CHLO ("client HLO") ops, as upstream's stablehlo/dialect/ChloOps.td defines them.

CHLO ops are not in the StableHLO spec: they model XlaBuilder helpers (implicitly broadcasting
binary ops, special functions, top_k, ragged_dot, scan) that `chlo-legalize-to-stablehlo`
decomposes.  Field names, formats and verifiers follow ChloOps.td / ChloOps.cpp; each check is
labelled with the ODS trait or C++ function it mirrors (there are no spec ids for CHLO).

Syntax:
  %r = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  %r = chlo.broadcast_add %a, %b : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %r = chlo.next_after %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %v, %i = chlo.top_k(%x, k = 2) : tensor<8xf32> -> (tensor<2xf32>, tensor<2xi32>)
  %v, %i = chlo.top_k(%x, k = 2, is_stable = false) : ...   (equal elements in any order)
  %o:2 = chlo.scan(%x) inits (%c) dimension=0  {...} : (...) -> (...)
  %r = "chlo.ragged_dot"(%l, %r, %g) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<...>}> : ...
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    irdl_attr_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove, Pure
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.enums import (
    ChloComparisonDirectionAttr,
    ChloComparisonTypeAttr,
    ChloPrecisionAttr,
)
from stablehlo_py.ir.infer.chlo import broadcasted_shape
from stablehlo_py.ir.infer.shapes import element_type_compatible, is_compatible
from stablehlo_py.ir.ops.base import (
    ANY_ATTR,
    ARRAY_ATTR,
    BOOL_ATTR,
    DENSE_I64_ARRAY,
    ELEMENTS_ATTR,
    I1,
    I32,
    I64,
    I64_ATTR,
    AttrSyntax,
    PureOp,
    StableHLOOp,
    check_written_types,
    define_op,
    enum_syntax,
    family_op,
    op_def,
    parse_attr_dict_and_typed_value,
    prop,
)
from stablehlo_py.ir.verify.constraints import (
    check_element_kind,
    fail,
    shape_str,
    t2s,
)
from stablehlo_py.ir.ops.linalg import verify_inferred_shape
from stablehlo_py.ir.types import ReprTextData, element_type, shape_of, tensor_type

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


# ------------------------------------------------------------------------------- shape helpers


def broadcast_shape(
    x: Attribute, y: Attribute, broadcast_dimensions: Sequence[int] | None
) -> tuple[int, ...] | None | bool:
    """ChloOps.cpp getBroadcastType: the result shape of broadcasting `x` with `y`.

    Returns None when an operand is unranked (shape unknown) and False when the shapes do not
    broadcast (upstream infers an unranked type there; we report it)."""
    sx, sy = shape_of(x), shape_of(y)
    if sx is None or sy is None:
        return None
    if len(sx) == len(sy) or broadcast_dimensions is None:
        out = broadcasted_shape(sx, sy)
        return False if out is None else out
    large, small = (sx, sy) if len(sx) > len(sy) else (sy, sx)
    if len(broadcast_dimensions) != len(small):
        return False
    if any(d < 0 or d >= len(large) for d in broadcast_dimensions):
        return False
    filtered = broadcasted_shape(small, [large[d] for d in broadcast_dimensions])
    if filtered is None:
        return False
    out_l = list(large)
    for i, d in enumerate(broadcast_dimensions):
        out_l[d] = filtered[i]
    return tuple(out_l)


# ------------------------------------------------------------------------ unary elementwise ops
class ChloUnaryElementwise(PureOp):
    """CHLO_UnaryElementwiseOp: `$operand attr-dict : type($operand) -> type($result)`."""

    operand = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = "$operand attr-dict `:` type($operand) `->` type($result)"
    OPERAND_KIND: ClassVar[str] = "fp_or_complex"
    RESULT_IS_PRED: ClassVar[bool] = False
    # INFER_CHECK (PureOp's "after"): HLO_CompatibleOperandsAndResultType / is_inf's
    # InferTypeOpInterface

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        # ArgTensorType / ResultTensorType
        check_element_kind("operand #0", ot, self.OPERAND_KIND)
        if self.RESULT_IS_PRED:
            check_element_kind("result #0", rt, "pred")


# Each op's class, named op_class_name(<op>) by define_op; the row is the op's one source.
UNARY: dict[str, tuple[str, str]] = {}
"""name -> (operand element kind, ChloOps.td summary)"""
UNARY_PRED: dict[str, str] = {}
"""Predicates: floating-point operand, i1 result of the same shape (name -> summary)."""
UNARY_OPS: dict[str, type] = {}
"""name -> class, UNARY's rows then UNARY_PRED's."""


def _unary(name: str, kind: str, doc: str) -> Any:
    return family_op(
        UNARY, UNARY_OPS, ChloUnaryElementwise, f"chlo.{name}", (kind, doc), doc, OPERAND_KIND=kind
    )


def _predicate(name: str, doc: str) -> Any:
    return family_op(
        UNARY_PRED,
        UNARY_OPS,
        ChloUnaryElementwise,
        f"chlo.{name}",
        doc,
        doc,
        OPERAND_KIND="fp",
        RESULT_IS_PRED=True,
    )


AcosOp = _unary("acos", "fp_or_complex", "Returns `Acos(operand)` element-wise.")
AcoshOp = _unary("acosh", "fp_or_complex", "Returns `Acosh(operand)` element-wise.")
AsinOp = _unary("asin", "fp_or_complex", "Returns `Asin(operand)` element-wise.")
AsinAcosKernelOp = _unary("_asin_acos_kernel", "complex", "Returns `AsinAcosKernel(operand)` element-wise (complex operands).")
AsinhOp = _unary("asinh", "fp_or_complex", "Returns `Asinh(operand)` element-wise.")
AtanOp = _unary("atan", "fp_or_complex", "Returns `Atan(operand)` element-wise.")
AtanhOp = _unary("atanh", "fp_or_complex", "Returns `Atanh(operand)` element-wise.")
BesselI1eOp = _unary("bessel_i1e", "fp_or_complex", "Returns `bessel_i1e(operand)` element-wise.")
ConjOp = _unary("conj", "fp_or_complex", "Returns `Conj(operand)` element-wise.")
CoshOp = _unary("cosh", "fp_or_complex", "Returns `Cosh(operand)` element-wise.")
SinhOp = _unary("sinh", "fp_or_complex", "Returns `Sinh(operand)` element-wise.")
SquareOp = _unary("square", "fp_or_complex", "Returns `Square(operand)` element-wise.")
TanOp = _unary("tan", "fp_or_complex", "Returns `Tan(operand)` element-wise.")
DigammaOp = _unary("digamma", "fp", "Returns `Digamma(operand)` element-wise.")
ErfOp = _unary("erf", "fp", "Computes the Gauss error function of `operand` element-wise.")
ErfInvOp = _unary("erf_inv", "fp", "Returns `ErfInv(operand)` element-wise.")
ErfcOp = _unary("erfc", "fp", "Computes the complementary error function (1 - erf(x)) element-wise.")
LgammaOp = _unary("lgamma", "fp", "Returns `Lgamma(operand)` element-wise.")
IsInfOp = _predicate("is_inf", "Returns if a value is +/-inf element-wise.")
IsNegInfOp = _predicate("is_neg_inf", "Returns if a value is -inf element-wise.")
IsPosInfOp = _predicate("is_pos_inf", "Returns if a value is +inf element-wise.")


# -------------------------------------------------------------- broadcasting binary elementwise ops
class ChloBroadcastBinary(PureOp):
    """CHLO_BroadcastBinaryElementwiseOp: implicit numpy broadcasting, or explicit rank broadcasting
    through `broadcast_dimensions`."""

    lhs = operand_def()
    rhs = operand_def()
    broadcast_dimensions = prop(DENSE_I64_ARRAY, optional=True)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type(results)"
    )
    OPERAND_KIND: ClassVar[str] = "any"
    RESULT_ELEMENT: ClassVar[str] = "same"  # "same" | "complex" | "pred"
    COMPATIBLE_ELEMENTS: ClassVar[bool] = False
    """HLO_CompatibleOperandsAndResultElementType (broadcast_add, _maximum, _minimum)."""
    SAME_ELEMENTS: ClassVar[bool] = False
    """MLIR's SameOperandsAndResultElementType (ChloOps.td: atan2, divide, multiply, ...)."""
    INFER_CHECK: ClassVar[str | None] = "after"  # InferBroadcastBinaryOpReturnTypeComponents

    def _bdims(self) -> tuple[int, ...] | None:
        b = self.properties.get("broadcast_dimensions")
        if not isinstance(b, DenseArrayBase):
            return None
        return tuple(b.get_values())  # type: ignore[arg-type]

    def verify_(self) -> None:
        lt, rt = self.lhs.type, self.rhs.type
        check_element_kind("operand #0", lt, self.OPERAND_KIND)
        check_element_kind("operand #1", rt, self.OPERAND_KIND)
        if self.RESULT_ELEMENT == "pred":  # broadcast_compare's HLO_AnyPredTensor
            check_element_kind("result #0", self.result.type, "pred")
        elif self.RESULT_ELEMENT == "same" and self.OPERAND_KIND == "fp":  # broadcast_zeta's
            check_element_kind("result #0", self.result.type, "fp")
        # the SameOperandsAndResultElementType / CompatibleOperandsAndResultElementType traits,
        # before the inference (trait order)
        if self.SAME_ELEMENTS and not all(
            element_type(t) == element_type(lt) for t in (rt, self.result.type)
        ):
            raise VerifyException("requires the same element type for all operands and results")
        if self.COMPATIBLE_ELEMENTS and not all(
            element_type_compatible(t, lt) for t in (rt, self.result.type)
        ):
            raise VerifyException("requires compatible element types for all operands and results")

    def verify_after_inference_(self) -> None:
        # Where upstream infers an unranked type for shapes that do not broadcast, we report it.
        lt, rt = self.lhs.type, self.rhs.type
        shape = broadcast_shape(lt, rt, self._bdims())
        if shape is False:
            b = self._bdims()
            raise VerifyException(
                f"lhs type {t2s(lt)} and rhs type {t2s(rt)} do not broadcast"
                + (f" with broadcast_dimensions = {list(b)}" if b is not None else "")
            )


_COMPATIBLE_ELEMENTS = frozenset({"broadcast_add", "broadcast_maximum", "broadcast_minimum"})
_SAME_ELEMENTS_NAMES = (
    "atan2 divide multiply next_after polygamma power remainder shift_left "
    "shift_right_arithmetic shift_right_logical subtract zeta"
)
_SAME_ELEMENTS = frozenset("broadcast_" + n for n in _SAME_ELEMENTS_NAMES.split())
BROADCAST_BINARY: dict[str, tuple[str, str]] = {}
"""name -> (operand element kind, summary)"""
BROADCAST_OPS: dict[str, type] = {}
"""name -> class: BROADCAST_BINARY's rows, then broadcast_complex and broadcast_compare."""


def _broadcast(name: str, kind: str, doc: str) -> Any:
    return family_op(
        BROADCAST_BINARY,
        BROADCAST_OPS,
        ChloBroadcastBinary,
        f"chlo.{name}",
        (kind, doc),
        doc,
        OPERAND_KIND=kind,
        COMPATIBLE_ELEMENTS=name in _COMPATIBLE_ELEMENTS,
        SAME_ELEMENTS=name in _SAME_ELEMENTS,
    )


BroadcastAddOp = _broadcast("broadcast_add", "any", "Returns `lhs + rhs` element-wise (with optional broadcasting).")
BroadcastAtan2Op = _broadcast("broadcast_atan2", "any", "Returns `atan2(lhs/rhs)` element-wise (with optional broadcasting).")
BroadcastDivideOp = _broadcast("broadcast_divide", "any", "Returns `lhs / rhs` element-wise (with optional broadcasting).")
BroadcastMaximumOp = _broadcast("broadcast_maximum", "any", "Returns `max(lhs, rhs)` element-wise (with optional broadcasting).")
BroadcastMinimumOp = _broadcast("broadcast_minimum", "any", "Returns `min(lhs, rhs)` element-wise (with optional broadcasting).")
BroadcastMultiplyOp = _broadcast("broadcast_multiply", "any", "Returns `lhs * rhs` element-wise (with optional broadcasting).")
BroadcastNextAfterOp = _broadcast("broadcast_next_after", "any", "Returns the next representable value of `lhs` towards `rhs`.")
BroadcastPolygammaOp = _broadcast("broadcast_polygamma", "any", "Returns `Polygamma(lhs, rhs)` element-wise (with broadcasting).")
BroadcastPowerOp = _broadcast("broadcast_power", "any", "Returns `lhs ^ rhs` element-wise (with optional broadcasting).")
BroadcastRemainderOp = _broadcast("broadcast_remainder", "any", "Returns `lhs % rhs` element-wise (with optional broadcasting).")
BroadcastShiftLeftOp = _broadcast("broadcast_shift_left", "any", "Returns `lhs << rhs` element-wise (with optional broadcasting).")
BroadcastShiftRightArithmeticOp = _broadcast("broadcast_shift_right_arithmetic", "any", "Returns `lhs >> rhs` (arithmetic), with broadcasting.")
BroadcastShiftRightLogicalOp = _broadcast("broadcast_shift_right_logical", "any", "Returns `lhs >> rhs` (logical), with broadcasting.")
BroadcastSubtractOp = _broadcast("broadcast_subtract", "any", "Returns `lhs - rhs` element-wise (with optional broadcasting).")
BroadcastZetaOp = _broadcast("broadcast_zeta", "fp", "Returns the Hurwitz zeta `Zeta(lhs, rhs)` element-wise (with broadcasting).")
BroadcastAndOp = _broadcast("broadcast_and", "pred_or_int", "Returns `logical_and(lhs, rhs)` element-wise (with broadcasting).")
BroadcastOrOp = _broadcast("broadcast_or", "pred_or_int", "Returns `logical_or(lhs, rhs)` element-wise (with broadcasting).")
BroadcastXorOp = _broadcast("broadcast_xor", "pred_or_int", "Returns `logical_xor(lhs, rhs)` element-wise (with broadcasting).")
BroadcastComplexOp = BROADCAST_OPS["broadcast_complex"] = define_op(
    ChloBroadcastBinary,
    "chlo.broadcast_complex",
    "Builds complex values from real (`lhs`) and imaginary (`rhs`) parts (with broadcasting).",
    OPERAND_KIND="fp",
    RESULT_ELEMENT="complex",
)


@op_def
class BroadcastCompareOp(ChloBroadcastBinary):
    """Compares `lhs` and `rhs` element-wise by `comparison_direction` and `compare_type` (with
    optional broadcasting)."""

    name = "chlo.broadcast_compare"
    comparison_direction = prop(enum_syntax(ChloComparisonDirectionAttr))
    compare_type = prop(enum_syntax(ChloComparisonTypeAttr), optional=True)
    RESULT_ELEMENT: ClassVar[str] = "pred"


BROADCAST_OPS["broadcast_compare"] = BroadcastCompareOp


@op_def
class BroadcastSelectOp(PureOp):
    """Selects from `on_true` or `on_false` by `pred`, with numpy-style broadcasting of all three."""

    name = "chlo.broadcast_select"
    pred = operand_def()
    on_true = operand_def()
    on_false = operand_def()
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$pred `,` $on_true `,` $on_false attr-dict `:` "
        "`(` type($pred) `,` type($on_true) `,` type($on_false) `)` `->` type(results)"
    )
    # BroadcastSelectOp::inferReturnTypeComponents; its isCompatibleReturnTypes compares the
    # shapes only (verifyCompatibleShapes)
    INFER_CHECK: ClassVar[str | None] = "after_by_shape"

    def verify_(self) -> None:
        # HLO_PredTensor:$pred
        check_element_kind("operand #0", self.pred.type, "pred", ranked=True)

    def verify_after_inference_(self) -> None:
        pt, tt, ft = self.pred.type, self.on_true.type, self.on_false.type
        # Where upstream infers an unranked type for shapes that do not broadcast, we report it.
        first = broadcast_shape(tt, ft, None)
        if first is False:
            raise VerifyException(
                f"on_true type {t2s(tt)} and on_false type {t2s(ft)} do not broadcast"
            )
        if first is None:
            return
        ps = shape_of(pt)
        if ps is None:
            return
        both = broadcasted_shape(first, ps)  # type: ignore[arg-type]
        if both is None:
            raise VerifyException(
                f"pred type {t2s(pt)} does not broadcast with the shape {shape_str(first)} "  # type: ignore[arg-type]
                "of the values"
            )


# ------------------------------------------------------------------ non-broadcasting binary ops
class ChloBinarySameType(PureOp):
    """Binary ops with HLO_CompatibleOperandsAndResultType (next_after, polygamma, zeta, mulhi)."""

    result = result_def()
    OPERAND_KIND: ClassVar[str] = "fp"
    OPERAND_NAMES: ClassVar[tuple[str, str]] = ("x", "y")
    ODS_TYPE: ClassVar[str | None] = None
    """The ODS description of the operand type, when its message is upstream's."""
    # INFER_CHECK (PureOp's "after"), HLO_CompatibleOperandsAndResultType: the inference, then
    # the trait's check (verify_after_inference_)

    def verify_(self) -> None:
        at, bt, rt = self.operands[0].type, self.operands[1].type, self.result.type
        if self.ODS_TYPE is not None:
            # ODS: `operand #i must be <description>, but got '<type>'`
            from stablehlo_py.ir.verify.constraints import ELEMENT_KINDS

            ok = ELEMENT_KINDS[self.OPERAND_KIND][1]
            for i, t in enumerate((at, bt)):
                if not ok(element_type(t)):
                    raise VerifyException(
                        f"operand #{i} must be {self.ODS_TYPE}, but got '{t2s(t)}'"
                    )
        check_element_kind("operand #0", at, self.OPERAND_KIND)
        check_element_kind("operand #1", bt, self.OPERAND_KIND)
        check_element_kind("result #0", rt, self.OPERAND_KIND)

    def verify_after_inference_(self) -> None:
        at, bt, rt = self.operands[0].type, self.operands[1].type, self.result.type
        if not all(is_compatible(t, at) for t in (bt, rt)):
            raise VerifyException("requires compatible types for all operands and results")


def _binary_same_type(
    name: str, operands: tuple[str, str], kind: str, doc: str, ods: str | None = None
) -> type:
    a, b = operands
    return define_op(
        ChloBinarySameType,
        name,
        doc,
        **{a: operand_def(), b: operand_def()},
        FORMAT=f"${a} `,` ${b} attr-dict `:` type(${a}) `,` type(${b}) `->` type(results)",
        OPERAND_NAMES=operands,
        OPERAND_KIND=kind,
        ODS_TYPE=ods,
    )


NextAfterOp = _binary_same_type(
    "chlo.next_after",
    ("x", "y"),
    "fp",
    "Returns the next representable value of `x` in the direction of `y`, element-wise.",
)
PolygammaOp = _binary_same_type(
    "chlo.polygamma", ("n", "x"), "fp", "Returns `Polygamma(n, x)` element-wise."
)
ZetaOp = _binary_same_type(
    "chlo.zeta", ("x", "q"), "fp", "Returns the Hurwitz zeta function `Zeta(x, q)` element-wise."
)
MulhiOp = _binary_same_type(
    "chlo.mulhi",
    ("lhs", "rhs"),
    "int",
    "Returns the most significant half of each element-wise product `lhs * rhs` (integers).",
    ods="ranked tensor of 2/4/8/16/32/64-bit integer values",  # HLO_IntTensor
)


# ---------------------------------------------------------------------------------- constants
@op_def
class ConstantOp(PureOp):
    """Represents a constant `value` (`chlo.constant dense<...> : tensor<...>`)."""

    name = "chlo.constant"
    value = prop(ELEMENTS_ATTR)
    output = result_def()
    FORMAT: ClassVar[str | None] = None
    INFER_CHECK: ClassVar[str | None] = "before"  # the result type is the value's type

    def asm_result_names(self) -> str:
        return "c" if isinstance(element_type(self.output.type), IntegerType) else "cst"

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        # "attr-dict $value": the result type is the value's type (InferTypeOpInterface).
        attrs, value, t, pos = parse_attr_dict_and_typed_value(p)
        props = {"value": value}
        if "value" in attrs:
            p.error("'value' is given twice", pos)
        return cls.build_generic([], [t], props, attrs, [])

    def print_custom(self, pr: Printer) -> None:
        pr.attr_dict(dict(self.attributes))
        pr.write(" ")
        pr.attr(self.properties["value"])

    def verify_(self) -> None:
        # HLO_StaticShapeTensor:$output
        shape = shape_of(self.output.type)
        if shape is None or any(d < 0 for d in shape):
            raise VerifyException(f"result type {t2s(self.output.type)} must have a static shape")


@op_def
class ConstantLikeOp(PureOp):
    """Returns a splat constant `value` with the shape of `operand` (generic syntax only)."""

    name = "chlo.constant_like"
    value = prop(ANY_ATTR)
    operand = operand_def()
    result = result_def()
    # INFER_CHECK (PureOp's "after"): InferTensorTypeWithReify

    def verify_(self) -> None:
        value = self.properties["value"]
        vt = getattr(value, "type", None)
        # ConstantLikeOp::verify
        if vt is None or vt != element_type(self.result.type):
            raise VerifyException("value's type doesn't match element return type")


# ------------------------------------------------------------------------------------- top_k
@op_def
class TopKOp(PureOp):
    """Values and indices of the `k` largest elements along the last dimension of `operand`."""

    name = "chlo.top_k"
    operand = operand_def()
    k = prop(I64_ATTR)
    # DefaultValuedOptionalAttr<BoolAttr, "true"> (StableHLO 1.19.0): false lets equal elements
    # come in any order; printed only when not the default
    is_stable = prop(BOOL_ATTR, default=IntegerAttr(1, I1))
    values = result_def()
    indices = result_def()
    FORMAT: ClassVar[str | None] = (
        "`(`$operand `,` `k` `=` $k (`,` `is_stable` `=` $is_stable^)? `)` attr-dict `:` "
        "type($operand) `->` `(`type($values)`,` type($indices)`)`"
    )
    # INFER_CHECK (PureOp's "after"): hlo::inferTopKOp

    def asm_result_names(self) -> list[str]:
        # getAsmResultNames: `%values, %indices = chlo.top_k(...)`
        return ["values", "indices"]

    def verify_(self) -> None:
        k = self.properties["k"].value.data  # type: ignore[attr-defined]
        if k < 0:
            raise VerifyException(f"k must be non-negative, got k = {k}")


# ------------------------------------------------------------------ minimum_broadcast_shapes
@op_def
class MinimumBroadcastShapesOp(PureOp):
    """Minimizes the rank of two or more shapes (1-D index tensors) to be broadcasted."""

    name = "chlo.minimum_broadcast_shapes"
    shapes = var_operand_def()
    results_ = var_result_def()
    INFER_CHECK: ClassVar[str | None] = None  # upstream has no InferTypeOpInterface check
    # Upstream's `$results`: xDSL reserves `results`, so the field is `results_` (same syntax).
    FORMAT: ClassVar[str | None] = "$shapes attr-dict `:` type($shapes) `->` type($results_)"

    def verify_(self) -> None:
        from xdsl.dialects.builtin import IndexType

        n, m = len(self.shapes), len(self.results)
        # MinimumBroadcastShapesOp::verify
        if n != m:
            raise VerifyException(
                f"number of operand shapes ({n}) does not match number of result shapes ({m})"
            )
        if n < 2:
            raise VerifyException(f"number of operand shapes ({n}) should be >= 2")
        for i, v in enumerate([*self.shapes, *self.results]):
            t = v.type
            s = shape_of(t)
            if not isinstance(element_type(t), IndexType) or s is None or len(s) != 1:
                raise VerifyException(
                    f"shape #{i} must be a 1-D tensor of index values, got {t2s(t)}"
                )


# --------------------------------------------------------------------------------- ragged_dot
@dataclass(frozen=True)
class RaggedDotDims:
    lhs_batching_dimensions: tuple[int, ...] = ()
    rhs_batching_dimensions: tuple[int, ...] = ()
    lhs_contracting_dimensions: tuple[int, ...] = ()
    rhs_contracting_dimensions: tuple[int, ...] = ()
    lhs_ragged_dimensions: tuple[int, ...] = ()
    rhs_group_dimensions: tuple[int, ...] = ()


_RAGGED_FIELDS = tuple(RaggedDotDims.__dataclass_fields__)


@irdl_attr_definition
class RaggedDotDimensionNumbersAttr(ReprTextData):
    """`#chlo.ragged_dot<lhs_batching_dimensions = [0], ...>` (empty lists are not printed)."""

    name = "chlo.ragged_dot"

    @property
    def dims(self) -> RaggedDotDims:
        return self.data  # type: ignore[return-value]

    def mlir_text(self) -> str:
        # ChloOps.cpp printStruct: fields with an empty list are omitted.
        parts = []
        for f in _RAGGED_FIELDS:
            v = getattr(self.dims, f)
            if v:
                parts.append(f"{f} = [{', '.join(str(x) for x in v)}]")
        return "#chlo.ragged_dot<" + ", ".join(parts) + ">"

    @staticmethod
    def parse_after_name(p: Parser) -> RaggedDotDimensionNumbersAttr:
        """ChloOps.cpp RaggedDotDimensionNumbersAttr::parse (parseStruct)."""
        p.parse_literal("<")
        seen: dict[str, tuple[int, ...]] = {}
        while not p.try_literal(">"):
            p.ws()
            pos = p.pos
            word = p.try_bare_id()
            if word not in _RAGGED_FIELDS:
                p.error("expected one of: " + ", ".join(f"`{f}`" for f in _RAGGED_FIELDS), pos)
            if word in seen:
                p.error(f"duplicated `{word}` entry", pos)
            p.parse_literal("=")
            seen[word] = tuple(p.parse_delimited("[", p.parse_integer, "]"))  # type: ignore[arg-type]
            if not p.try_literal(","):
                p.parse_literal(">", "to close #chlo.ragged_dot")
                break
        return RaggedDotDimensionNumbersAttr(RaggedDotDims(**seen))


_RAGGED_SYNTAX = AttrSyntax(
    RaggedDotDimensionNumbersAttr,
    lambda p: p.parse_attribute(),
    lambda p: p.peek(16) == "#chlo.ragged_dot",
)


@op_def
class RaggedDotOp(StableHLOOp):
    """A dot_general where one dimension of `lhs` is ragged: split into groups of `group_sizes`
    rows, each multiplied by its own slice of `rhs` (generic syntax only)."""

    name = "chlo.ragged_dot"
    lhs = operand_def()
    rhs = operand_def()
    group_sizes = operand_def()
    ragged_dot_dimension_numbers = prop(_RAGGED_SYNTAX)
    precision_config = prop(ARRAY_ATTR, optional=True)
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        # the ODS constraint of precision_config (CHLO_PrecisionConfigAttr), then RaggedDotOp::verify:
        # inferRaggedDotOp (stablehlo_py.ir.infer.chlo) and its shape against the result's
        pc = self.properties.get("precision_config")
        if isinstance(pc, ArrayAttr):
            for a in pc.data:
                if not isinstance(a, ChloPrecisionAttr):
                    raise VerifyException(
                        f"precision_config entries must be #chlo<precision ...>, got {a}"
                    )
        verify_inferred_shape(self, report=fail)


# --------------------------------------------------------------------------------------- scan
@op_def
class ScanOp(StableHLOOp):
    """Scans `inputs` along `dimension`, threading carries (initialised by `inits`) through `body`;
    returns the stacked per-step outputs and the final carries.

    `chlo.scan(%x) inits (%c) dimension=0  {^bb0(%input: T, %carry: C): ...} : (...) -> (...)`;
    extra attributes (`is_reverse`, `is_associative`) print as `attributes {...}` before the body."""

    name = "chlo.scan"
    inputs = var_operand_def()
    inits = var_operand_def()
    dimension = prop(I64_ATTR)
    scan_dim_size = prop(I64_ATTR, optional=True)
    is_reverse = prop(BOOL_ATTR, default=IntegerAttr(0, I1))  # DefaultValuedOptionalAttr "false"
    is_associative = prop(BOOL_ATTR, optional=True)
    outputs = var_result_def()
    carries = var_result_def()
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove())
    irdl_options = (
        AttrSizedOperandSegments(as_property=True),
        AttrSizedResultSegments(as_property=True),
    )
    FORMAT: ClassVar[str | None] = None
    ISOLATED: ClassVar[bool] = True
    _ELIDED: ClassVar[tuple[str, ...]] = ("dimension", "operandSegmentSizes", "resultSegmentSizes")
    # The segment sizes are inherent attributes too (an attr-dict of the generic form may hold them).
    INHERENT_EXTRA: ClassVar[tuple[str, ...]] = ("operandSegmentSizes", "resultSegmentSizes")

    def asm_block_arg_name(self, region: Region) -> list[str]:
        n_in = len(self.inputs)
        block = region.blocks.first
        n = len(block.args) if block is not None else 0
        return ["input" if i < n_in else "carry" for i in range(n)]

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        inputs = p.parse_delimited("(", p.parse_operand, ")")
        p.parse_keyword("inits")
        inits = p.parse_delimited("(", p.parse_operand, ")")
        p.parse_keyword("dimension")
        p.parse_literal("=")
        dim = p.parse_integer("the scan dimension")
        attrs: dict[str, Attribute] = {}
        if p.try_keyword("attributes"):
            attrs = p.parse_attr_dict_body()
        body = p.parse_region(default_dialect="", isolated=True)
        p.parse_literal(":")
        p.ws()
        pos = p.pos
        ft = p.parse_function_type()
        ins, outs = list(ft.inputs.data), list(ft.outputs.data)
        operands = [*inputs, *inits]
        check_written_types(p, pos, "'chlo.scan'", operands, ins, written="the signature says")
        if len(outs) < len(inits):
            p.error(f"'chlo.scan' has {len(inits)} inits but only {len(outs)} results", pos)
        for k in cls._ELIDED:
            if k in attrs:
                p.error(f"'{k}' is given by the syntax of chlo.scan, not in its attributes", pos)
        props: dict[str, Attribute] = {
            "dimension": IntegerAttr(dim, I64),
            "operandSegmentSizes": DenseArrayBase.from_list(I32, [len(inputs), len(inits)]),
            "resultSegmentSizes": DenseArrayBase.from_list(
                I32, [len(outs) - len(inits), len(inits)]
            ),
        }
        return cls.build_generic(operands, outs, props, attrs, [body])

    def print_custom(self, pr: Printer) -> None:
        from stablehlo_py.ir.text.printer import function_type_to_str

        pr.write("(")
        pr.operands(self.inputs)
        pr.write(") inits (")
        pr.operands(self.inits)
        pr.write(f") dimension={self.properties['dimension'].value.data} ")  # type: ignore[attr-defined]
        merged = {**self.properties, **self.attributes}
        pr.attr_dict(merged, elided=self._ELIDED, keyword=True)
        pr.write(" ")
        pr.region(self.body, print_entry_args=True, print_terminators=True, default_dialect="")
        pr.write(
            " : "
            + function_type_to_str([v.type for v in self.operands], [r.type for r in self.results])
        )

    # the InferTensorType check, by shape (ScanOp::isCompatibleReturnTypes is
    # verifyCompatibleShapes): stablehlo_py.ir.infer.chlo's rule
    INFER_CHECK: ClassVar[str | None] = "after_by_shape"

    def verify_(self) -> None:
        # ODS: `dimension` and `scan_dim_size` are non-negative
        for name in ("dimension", "scan_dim_size"):
            a = self.properties.get(name)
            if isinstance(a, IntegerAttr) and a.value.data < 0:
                raise VerifyException(
                    f"attribute '{name}' failed to satisfy constraint: 64-bit signless integer "
                    "attribute whose value is non-negative"
                )
        # ScanOp::verify
        if not self.inputs and not self.outputs:
            raise VerifyException("at least one of inputs or outputs must be present")
        dim = self.properties["dimension"].value.data  # type: ignore[attr-defined]
        size_attr = self.properties.get("scan_dim_size")
        size = size_attr.value.data if isinstance(size_attr, IntegerAttr) else None
        for i, v in enumerate(self.inputs):
            s = shape_of(v.type)
            if s is None:
                raise VerifyException(f"operand {i} is not ranked")
            if dim >= len(s):
                raise VerifyException(f"scan dimension of operand {i} is out of bounds")
            if s[dim] < 0:
                continue
            if size is not None and size != s[dim]:
                raise VerifyException(f"invalid scan dimension size of operand {i}")
            size = s[dim]
        block = self.body.blocks.first
        n_args = len(block.args) if block is not None else 0
        if n_args != len(self.operands):
            raise VerifyException(
                f"expects {len(self.operands)} arguments in the body, but got {n_args}"
            )
        assert block is not None
        for i, (v, a) in enumerate(zip(self.operands, block.args)):
            t = v.type
            if not isinstance(t, TensorType):
                raise VerifyException(f"operand {i} is not ranked")
            if i < len(self.inputs):
                shape = list(t.get_shape())
                del shape[dim]
                t = tensor_type(t.element_type, tuple(shape), t.encoding)
            if not is_compatible(t, a.type):
                raise VerifyException(f"operand and body argument {i} are incompatible")


# ------------------------------------------------------------------------------------ registry
OPS = (
    *UNARY_OPS.values(),
    *BROADCAST_OPS.values(),
    BroadcastSelectOp,
    NextAfterOp,
    PolygammaOp,
    ZetaOp,
    MulhiOp,
    ConstantOp,
    ConstantLikeOp,
    TopKOp,
    MinimumBroadcastShapesOp,
    RaggedDotOp,
    ScanOp,
)


def register(reg: Registry) -> None:
    reg.attr_parsers["chlo.ragged_dot"] = RaggedDotDimensionNumbersAttr.parse_after_name
