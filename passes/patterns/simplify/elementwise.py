"""Simplification patterns of elementwise ops: add, and, or, xor, multiply, subtract, maximum,
minimum, compare, convert, complex/real/imag, select (upstream's AddOp_*, AndOp_*, ... DRR patterns
and CompareOpCanon, SelectOpCanon)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from stablehlo_py.passes.patterns.simplify.common import (
    OfInner,
    RootPattern,
    any_one,
    any_zero,
    build,
    constant_dense,
    defined_by,
    int_all_ones,
    int_one,
    int_zero,
    is_constant_op,
    is_pred,
    num_elems,
    op_cls,
    rebuild,
    replace_by,
    replace_with_ops,
    result_type,
    replace_with_values,
    splat_constant,
    stablehlo_constant,
    static_shape,
)
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from stablehlo_py.ir.enums import ComparisonDirectionAttr
from stablehlo_py.ir.text.dense import dense_values, make_dense


# ------------------------------------------------------------------------ constant to the right
class CanonicalizeConstantToRhs(RootPattern):
    """op(cst, X) -> op(X, cst) for a commutative op (upstream's CanonicalizeConstantToRhs)."""

    benefit = 2

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.operands
        if not is_constant_op(lhs) or is_constant_op(rhs):
            return
        rebuild(rewriter, op, [rhs, lhs])


def _commutative(upstream: str, short: str) -> type[CanonicalizeConstantToRhs]:
    """upstream's `<upstream>Op_CanonicalizeConstantToRhs` for `stablehlo.<short>`."""
    return type(
        f"{upstream}Op_CanonicalizeConstantToRhs",
        (CanonicalizeConstantToRhs,),
        {"ROOT": f"stablehlo.{short}", "__module__": __name__},
    )


AddOp_CanonicalizeConstantToRhs = _commutative("Add", "add")
AndOp_CanonicalizeConstantToRhs = _commutative("And", "and")
MaxOp_CanonicalizeConstantToRhs = _commutative("Max", "maximum")
MinOp_CanonicalizeConstantToRhs = _commutative("Min", "minimum")
MulOp_CanonicalizeConstantToRhs = _commutative("Mul", "multiply")
OrOp_CanonicalizeConstantToRhs = _commutative("Or", "or")
XorOp_CanonicalizeConstantToRhs = _commutative("Xor", "xor")


# ------------------------------------------------------------------------ identities
class _RhsConstant(RootPattern):
    """op(X, cst) -> X or -> cst, by a predicate on cst (DRR `replaceWithValue`)."""

    ANY_CONSTANT_LIKE: ClassVar[bool] = False  # ConstantLikeMatcher vs StableHLO_ConstantOp
    TO_CONSTANT: ClassVar[bool] = False  # the result is the constant (else the lhs)
    MERGE: ClassVar[bool] = True

    @staticmethod
    def holds(attr) -> bool:
        raise NotImplementedError

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.operands
        attr = constant_dense(rhs) if self.ANY_CONSTANT_LIKE else stablehlo_constant(rhs)
        if attr is None or not self.holds(attr):
            return
        target = rhs if self.TO_CONSTANT else lhs
        replace_with_values(rewriter, op, [target], merge=self.MERGE)


def _rhs_constant(
    name: str,
    short: str,
    holds: Callable[[DenseIntOrFPElementsAttr], bool],
    benefit: int,
    any_constant_like: bool = False,
    to_constant: bool = False,
    merge: bool = True,
) -> type[_RhsConstant]:
    """upstream's DRR pattern ``name`` of `stablehlo.<short>`: a row of the table below."""
    return type(
        name,
        (_RhsConstant,),
        {
            "ROOT": f"stablehlo.{short}",
            "benefit": benefit,
            "ANY_CONSTANT_LIKE": any_constant_like,
            "TO_CONSTANT": to_constant,
            "MERGE": merge,
            "holds": staticmethod(holds),
            "__module__": __name__,
        },
    )


AddOp_RemoveNoop = _rhs_constant("AddOp_RemoveNoop", "add", any_zero, 1, any_constant_like=True)
AndOp_FoldToZero = _rhs_constant(
    "AndOp_FoldToZero", "and", int_zero, 2, to_constant=True, merge=False
)
AndOp_RemoveNoop = _rhs_constant("AndOp_RemoveNoop", "and", int_all_ones, 2)
MulOp_FoldToZero = _rhs_constant("MulOp_FoldToZero", "multiply", int_zero, 2, to_constant=True)
MulOp_RemoveNoop = _rhs_constant("MulOp_RemoveNoop", "multiply", any_one, 2)
OrOp_FoldToOne = _rhs_constant("OrOp_FoldToOne", "or", int_all_ones, 2, to_constant=True)
OrOp_RemoveNoop = _rhs_constant("OrOp_RemoveNoop", "or", int_zero, 2)
SubtractOp_RemoveNoop = _rhs_constant("SubtractOp_RemoveNoop", "subtract", any_zero, 2)
XorOp_RemoveNoop = _rhs_constant(
    "XorOp_RemoveNoop", "xor", int_zero, 1, any_constant_like=True, merge=False
)


class _SameOperandsToZero(RootPattern):
    """op(X, X) -> 0 for a statically shaped X (getConstantLike(0))."""

    INT_ONLY: ClassVar[bool] = False

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.operands
        t = lhs.type
        if lhs is not rhs or not isinstance(t, TensorType) or static_shape(t) is None:
            return
        from stablehlo_py.passes.patterns.simplify.common import is_int_element

        if self.INT_ONLY and not is_int_element(t):
            return
        replace_with_ops(rewriter, op, [splat_constant(t, 0)])


class SubtractOp_FoldToZero(_SameOperandsToZero):
    ROOT = "stablehlo.subtract"
    INT_ONLY = True


class XorOp_FoldToZero(_SameOperandsToZero):
    ROOT = "stablehlo.xor"


# ------------------------------------------------------------------------ compare
class _CompareBoolean(RootPattern):
    """compare(DIR, X, cst) : i1 -> X (NE false, EQ true)."""

    benefit = 2
    DIRECTION: ClassVar[str] = ""

    @staticmethod
    def holds(attr) -> bool:
        raise NotImplementedError

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.operands
        attr = stablehlo_constant(rhs)
        if attr is None or not self.holds(attr) or not is_pred(rhs.type):
            return
        if op.properties["comparison_direction"].data != self.DIRECTION:  # type: ignore[attr-defined]
            return
        replace_with_values(rewriter, op, [lhs])


class CompareOp_EqBooleanTrue(_CompareBoolean):
    ROOT = "stablehlo.compare"
    DIRECTION = "EQ"
    holds = staticmethod(int_one)


class CompareOp_NeBooleanFalse(_CompareBoolean):
    ROOT = "stablehlo.compare"
    DIRECTION = "NE"
    holds = staticmethod(int_zero)


INVERTED = {"EQ": "EQ", "NE": "NE", "GE": "LE", "GT": "LT", "LE": "GE", "LT": "GT"}
"""upstream's invertDirection: the direction of compare(rhs, lhs) equal to compare(lhs, rhs)."""


class CompareOpCanon(RootPattern):
    """compare(X, X) of integers -> splat true/false; compare(cst, X, d) -> compare(X, cst, inv d)."""

    ROOT = "stablehlo.compare"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctype = op.properties.get("compare_type")
        if ctype is None or ctype.data not in ("SIGNED", "UNSIGNED"):  # type: ignore[attr-defined]
            return
        direction = op.properties["comparison_direction"].data  # type: ignore[attr-defined]
        lhs, rhs = op.operands
        t = op.results[0].type
        if lhs is rhs:
            if not isinstance(t, TensorType) or static_shape(t) is None:
                return  # upstream builds a splat of the (static) result type
            value = direction in ("EQ", "GE", "LE")
            replace_with_ops(rewriter, op, [splat_constant(t, value)])
            return
        if constant_dense(lhs) is not None and constant_dense(rhs) is None:
            # upstream modifies the op in place; a new op at its place prints the same and leaves
            # no state derived from the old direction (e.g. an interpreter's prepared step)
            props = dict(op.properties)
            props["comparison_direction"] = ComparisonDirectionAttr.get_case(  # type: ignore[attr-defined]
                INVERTED[direction]
            )
            rebuild(rewriter, op, [rhs, lhs], props)


# ------------------------------------------------------------------------ convert, complex
class ConvertOp_RemoveNoop(RootPattern):
    ROOT = "stablehlo.convert"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        (operand,) = op.operands
        if op.results[0].type != operand.type:
            return
        replace_with_values(rewriter, op, [operand], merge=True)


class ComplexOp_CancelOutComposedOps(RootPattern):
    """complex(real(X), imag(X)) -> X."""

    ROOT = "stablehlo.complex"
    benefit = 3

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        re = defined_by(op.operands[0], "stablehlo.real")
        im = defined_by(op.operands[1], "stablehlo.imag")
        if re is None or im is None or re.operands[0] is not im.operands[0]:
            return
        replace_with_values(rewriter, op, [re.operands[0]])


class _PartOfComplex(OfInner):
    INNER = "stablehlo.complex"
    INDEX: ClassVar[int] = 0

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        replace_with_values(rewriter, op, [inner.operands[self.INDEX]])


class ImagOp_CancelOutComposedOps(_PartOfComplex):
    """imag(complex(R, I)) -> I."""

    ROOT = "stablehlo.imag"
    INDEX = 1


class RealOp_CancelOutComposedOps(_PartOfComplex):
    """real(complex(R, I)) -> R."""

    ROOT = "stablehlo.real"
    INDEX = 0


# ------------------------------------------------------------------------ select
class SelectOp_InvertPredicateAndSwap(OfInner):
    """select(not(p), t, f) -> select(p, f, t)."""

    ROOT = "stablehlo.select"
    INNER = "stablehlo.not"

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        _, on_true, on_false = op.operands
        replace_by(rewriter, op, type(op), [inner.operands[0], on_false, on_true])


class SelectOp_InvertBroadcastPredicateAndSwap(OfInner):
    """select(broadcast_in_dim(not(p)), t, f) -> select(broadcast_in_dim(p), f, t)."""

    ROOT = "stablehlo.select"
    INNER = "stablehlo.broadcast_in_dim"
    benefit = 3

    def rewrite_inner(self, op: Operation, inner: Operation, rewriter: PatternRewriter) -> None:
        not_op = defined_by(inner.operands[0], "stablehlo.not")
        if not_op is None or not inner.results[0].has_one_use():
            return
        new_b = build(
            type(inner),
            [not_op.operands[0]],
            {"broadcast_dimensions": inner.properties["broadcast_dimensions"]},
            [inner.results[0].type],
            like=op,
        )
        _, on_true, on_false = op.operands
        new = build(type(op), [new_b.results[0], on_false, on_true], {}, [result_type(op)], like=op)
        replace_with_ops(rewriter, op, [new_b, new])


class SelectOpCanon(RootPattern):
    """select(p, X, X) -> X; select(splat cst, t, f) -> t or f; all-constant select -> constant
    (at most fold-op-element-limit elements)."""

    ROOT = "stablehlo.select"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        pred, on_true, on_false = op.operands
        if on_true is on_false:
            replace_with_values(rewriter, op, [on_true])
            return
        cond = constant_dense(pred)
        if cond is None:
            return
        c = np.asarray(dense_values(cond)).astype(bool)
        if c.size >= 1 and (c.size == 1 or bool(np.all(c == c.reshape(-1)[0]))):
            replace_with_values(rewriter, op, [on_true if bool(c.reshape(-1)[0]) else on_false])
            return
        if c.size > self.options.fold_op_element_limit:
            return
        t_attr = constant_dense(on_true)
        f_attr = constant_dense(on_false)
        rt = op.results[0].type
        if t_attr is None or f_attr is None or not isinstance(rt, TensorType):
            return
        if num_elems(rt) != c.size:
            return
        values = np.where(c, dense_values(t_attr), dense_values(f_attr))
        from stablehlo_py.passes.patterns.simplify.common import build_constant

        replace_with_ops(rewriter, op, [build_constant(make_dense(rt, values))])


class CompareSelectIntoMinMax(RootPattern):
    """select(compare(a, b, GE/GT), a, b) -> max(a, b) (LE/LT: min).  Upstream defines it but
    leaves it out of its pattern list (a legalization issue); so does this pass."""

    ROOT = "stablehlo.select"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        pred, on_true, on_false = op.operands
        cmp = defined_by(pred, "stablehlo.compare")
        if cmp is None:
            return
        direction = cmp.properties["comparison_direction"].data  # type: ignore[attr-defined]
        lhs, rhs = cmp.operands
        if lhs is on_false and rhs is on_true:
            direction = INVERTED[direction]
        elif not (lhs is on_true and rhs is on_false):
            return
        name = {"GE": "maximum", "GT": "maximum", "LE": "minimum", "LT": "minimum"}.get(direction)
        if name is None:
            return
        new = build(op_cls(f"stablehlo.{name}"), [on_true, on_false], like=op)
        replace_with_ops(rewriter, op, [new])
