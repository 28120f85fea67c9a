"""The `check` dialect: test assertions of upstream's interpreter tests (stablehlo/tests/CheckOps.td).

Syntax (upstream's assembly formats):
  check.expect_eq %a, %b : tensor<2xi32>
  check.expect_eq_const %a, dense<[1, 2]> : tensor<2xi32>
  check.expect_almost_eq %a, %b, tolerance = 1.000000e-03 : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>, tolerance = 1.000000e-03
  check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  check.expect_serialized_eq %a, probe_id = "probe0", iter = 1 : tensor<2xi32>

`tolerance` defaults to 1e-4, `max_ulp_difference` to 1, `min_ulp_difference` and `iter` to 0; a
default-valued optional clause is not printed.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.base import (
    ELEMENTS_ATTR,
    STR_ATTR,
    AttrSyntax,
    StableHLOOp,
    float_attr,
    op_def,
    prop,
)
from stablehlo_py.ir.verify.constraints import is_float_or_complex, t2s
from stablehlo_py.ir.types import FLOAT_TYPES, element_type, integer_type, is_tensor

F64 = FLOAT_TYPES["f64"]
UI64 = integer_type("ui64")
UI32 = integer_type("ui32")
assert UI64 is not None and UI32 is not None


def _uint_syntax(t: IntegerType) -> AttrSyntax:
    """UI64Attr / UI32Attr written as a bare integer inside the format."""

    def parse(p):  # type: ignore[no-untyped-def]
        p.ws()
        pos = p.pos
        v = p.parse_integer("an unsigned integer")
        if v < 0 or v >= 1 << t.width.data:
            p.error(f"{v} does not fit in ui{t.width.data}", pos)
        return IntegerAttr(v, t)

    return AttrSyntax(IntegerAttr, parse, lambda p: p.peek().isdigit())


UI64_ATTR = _uint_syntax(UI64)
UI32_ATTR = _uint_syntax(UI32)
F64_ATTR = float_attr(F64)
DEFAULT_TOLERANCE = FloatAttr(1e-4, F64)  # type: ignore[arg-type]


def _check_tensor(what: str, t: Attribute, float_or_complex: bool = False) -> None:
    if not is_tensor(t):
        raise VerifyException(f"{what} must be a tensor, got {t2s(t)}")
    if float_or_complex:
        if not is_float_or_complex(element_type(t)):
            raise VerifyException(
                f"{what} must be a tensor of floating-point or complex values, got {t2s(t)}"
            )


def _check_value_type(lhs: SSAValue, value: Attribute) -> None:
    # AllTypesMatch<["lhs", "value"]>
    vt = getattr(value, "type", None)
    if vt != lhs.type:
        raise VerifyException(
            f"lhs type {t2s(lhs.type)} and value type {t2s(vt) if vt is not None else '(untyped)'} must match"
        )


class CheckOp(StableHLOOp):
    """Base of the check ops: side-effecting assertions without results."""


class _ExpectPair(CheckOp):
    """expect_eq and expect_almost_eq: `lhs` and `rhs` of one tensor type."""

    lhs = operand_def()
    rhs = operand_def()
    FLOAT_OR_COMPLEX: ClassVar[bool] = False

    def verify_(self) -> None:
        _check_tensor("lhs", self.lhs.type, float_or_complex=self.FLOAT_OR_COMPLEX)
        # SameTypeOperands
        if self.lhs.type != self.rhs.type:
            raise VerifyException(
                f"lhs type {t2s(self.lhs.type)} and rhs type {t2s(self.rhs.type)} must match"
            )


class _ExpectConst(CheckOp):
    """expect_eq_const and expect_almost_eq_const: a tensor `lhs` and a `value` of its type."""

    lhs = operand_def()
    value = prop(ELEMENTS_ATTR)
    FLOAT_OR_COMPLEX: ClassVar[bool] = False

    def verify_(self) -> None:
        _check_tensor("lhs", self.lhs.type, float_or_complex=self.FLOAT_OR_COMPLEX)
        _check_value_type(self.lhs, self.properties["value"])


@op_def
class ExpectEqOp(_ExpectPair):
    """Checks that the tensor operands `lhs` and `rhs` are exactly equal."""

    name = "check.expect_eq"
    FORMAT: ClassVar[str | None] = "$lhs `,` $rhs attr-dict `:` type($lhs)"


@op_def
class ExpectEqConstOp(_ExpectConst):
    """Checks that the tensor operand `lhs` is exactly equal to the constant `value`."""

    name = "check.expect_eq_const"
    FORMAT: ClassVar[str | None] = "$lhs `,` $value attr-dict"


@op_def
class ExpectAlmostEqOp(_ExpectPair):
    """Checks that the floating-point or complex operands are equal within `tolerance`."""

    name = "check.expect_almost_eq"
    tolerance = prop(F64_ATTR, default=DEFAULT_TOLERANCE)
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs (`,` `tolerance` `=` $tolerance^)? attr-dict `:` type($lhs)"
    )
    FLOAT_OR_COMPLEX: ClassVar[bool] = True


@op_def
class ExpectAlmostEqConstOp(_ExpectConst):
    """Checks that the floating-point or complex operand is equal to `value` within `tolerance`."""

    name = "check.expect_almost_eq_const"
    tolerance = prop(F64_ATTR, default=DEFAULT_TOLERANCE)
    FORMAT: ClassVar[str | None] = "$lhs `,` $value (`,` `tolerance` `=` $tolerance^)? attr-dict"
    FLOAT_OR_COMPLEX: ClassVar[bool] = True


@op_def
class ExpectCloseOp(CheckOp):
    """Checks that `min_ulp_difference <= ulp_difference(actual, expected) <= max_ulp_difference`."""

    name = "check.expect_close"
    actual = operand_def()
    expected = operand_def()
    max_ulp_difference = prop(UI64_ATTR, default=IntegerAttr(1, UI64))
    # DefaultValuedAttr: always present once built (the format prints it unconditionally).
    POPULATED_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "max_ulp_difference": IntegerAttr(1, UI64)
    }
    min_ulp_difference = prop(UI64_ATTR, default=IntegerAttr(0, UI64))
    FORMAT: ClassVar[str | None] = (
        "$actual `,` $expected `,` `max_ulp_difference` `=` $max_ulp_difference "
        "(`,` `min_ulp_difference` `=` $min_ulp_difference^)? `:` attr-dict type($actual) `,` type($expected)"
    )

    def verify_(self) -> None:
        at, et = self.actual.type, self.expected.type
        _check_tensor("actual", at, float_or_complex=True)
        _check_tensor("expected", et, float_or_complex=True)
        # AllTypesMatch<["actual", "expected"]>
        if at != et:
            raise VerifyException(f"actual type {t2s(at)} and expected type {t2s(et)} must match")
        lo = self.properties.get("min_ulp_difference")
        hi = self.properties.get("max_ulp_difference")
        if (
            isinstance(lo, IntegerAttr)
            and isinstance(hi, IntegerAttr)
            and lo.value.data > hi.value.data
        ):
            raise VerifyException(
                f"min_ulp_difference ({lo.value.data}) must not exceed max_ulp_difference ({hi.value.data})"
            )


@op_def
class ExpectSerializedEqOp(CheckOp):
    """Checks the tensor serialized by `interpreter.probe` as `probe_id` (at `iteration`) equals
    `expected`."""

    name = "check.expect_serialized_eq"
    expected = operand_def()
    probe_id = prop(STR_ATTR)
    iteration = prop(UI32_ATTR, default=IntegerAttr(0, UI32))
    FORMAT: ClassVar[str | None] = (
        "$expected `,` `probe_id` `=` $probe_id (`,` `iter` `=` $iteration^)? attr-dict `:` type($expected)"
    )

    def verify_(self) -> None:
        _check_tensor("expected", self.expected.type)


OPS = (
    ExpectEqOp,
    ExpectEqConstOp,
    ExpectAlmostEqOp,
    ExpectAlmostEqConstOp,
    ExpectCloseOp,
    ExpectSerializedEqOp,
)
