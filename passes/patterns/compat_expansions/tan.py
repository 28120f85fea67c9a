"""`tan` (new in 1.4.0) in older ops: upstream's DRR patterns ``TanOp_CompatiblityExpander`` and
``TanOp_ComplexElementType_CompatiblityExpander`` (StablehloCompatibilityExpanderPatterns.td).

* ``tan(x)`` = ``sine(x) / cosine(x)`` for a real element type;
* ``tan(a + bi)`` = ``(tan(a) + i tanh(b)) / (1 - i tan(a) tanh(b))``, whose real ``tan`` the first
  pattern then expands.

Only a `tan` with the default result accuracy matches (as upstream's ConstDefaultResultAccuracyAttr):
the expansion cannot promise a requested tolerance.  The new ops carry the `tan`'s location (DRR's
fused location of the one matched op); the constant 1 is a `stablehlo.constant` for a static shape
and a `chlo.constant_like` otherwise (upstream's getConstantLike).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.patterns.compat_expansions.batching import static_shape
from stablehlo_py.passes.patterns.compat_expansions.common import build_op
from xdsl.dialects.builtin import ComplexType, FloatAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.op_attrs import DEFAULT_RESULT_ACCURACY
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import storage_dtype

__all__ = ["TanOpComplexExpander", "TanOpExpander", "has_default_accuracy", "is_complex_tensor"]


def is_complex_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.get_element_type(), ComplexType)


def has_default_accuracy(op: Operation) -> bool:
    acc = op.properties.get("result_accuracy")
    return acc is None or acc == DEFAULT_RESULT_ACCURACY


_ACCURACY = {"result_accuracy": DEFAULT_RESULT_ACCURACY}


class _Emitter:
    """Builds ops before the matched op, each at its location."""

    def __init__(self, op: Operation, rewriter: PatternRewriter):
        self.op = op
        self.rewriter = rewriter
        self.new: list[Operation] = []

    def __call__(
        self, name: str, operands: list[SSAValue], props: dict[str, Attribute] | None = None
    ) -> SSAValue:
        new = build_op(name, operands, props)
        carry_location(new, self.op)
        self.rewriter.insert(new)
        self.new.append(new)
        return new.results[0]

    def one_like(self, value: SSAValue) -> SSAValue:
        """getConstantLike(1.0, value)."""
        t = value.type
        assert isinstance(t, TensorType)
        element = t.get_element_type()
        shape = static_shape(t)
        if shape is not None:
            dense = make_dense(t, np.ones(1, dtype=storage_dtype(element)))
            return self("stablehlo.constant", [], {"value": dense})
        return self("chlo.constant_like", [value], {"value": FloatAttr(1.0, element)})


class _TanExpander(RewritePattern):
    """A `tan` of the default accuracy whose operand is complex (``COMPLEX``) or real -> the
    values ``expand`` emits before it."""

    root: ClassVar[str] = "stablehlo.tan"
    COMPLEX: ClassVar[bool]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != self.root or not has_default_accuracy(op):
            return
        x = op.operands[0]
        if is_complex_tensor(x.type) != self.COMPLEX:
            return
        rewriter.replace(op, [], [self.expand(_Emitter(op, rewriter), x)])

    @staticmethod
    def expand(emit: _Emitter, x: SSAValue) -> SSAValue:
        raise NotImplementedError


class TanOpExpander(_TanExpander):
    """tan(x) -> sine(x) / cosine(x) (real element types)."""

    COMPLEX = False

    @staticmethod
    def expand(emit: _Emitter, x: SSAValue) -> SSAValue:
        sine = emit("stablehlo.sine", [x], _ACCURACY)
        cosine = emit("stablehlo.cosine", [x], _ACCURACY)
        return emit("stablehlo.divide", [sine, cosine])


class TanOpComplexExpander(_TanExpander):
    """tan(a + bi) -> (tan(a) + i tanh(b)) / (1 - i tan(a) tanh(b))."""

    COMPLEX = True

    @staticmethod
    def expand(emit: _Emitter, x: SSAValue) -> SSAValue:
        tan = emit("stablehlo.tan", [emit("stablehlo.real", [x])], _ACCURACY)
        tanh = emit("stablehlo.tanh", [emit("stablehlo.imag", [x])], _ACCURACY)
        numerator = emit("stablehlo.complex", [tan, tanh])
        one = emit.one_like(tan)
        minus = emit("stablehlo.negate", [emit("stablehlo.multiply", [tan, tanh])])
        denominator = emit("stablehlo.complex", [one, minus])
        return emit("stablehlo.divide", [numerator, denominator])
