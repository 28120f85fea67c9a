"""The op builder of the complex math expansions: one method per op that upstream's DRR patterns
(StablehloComplexMathExpanderPatterns.td) create.

Each method creates its op right away, inserts it before the op being expanded (with that op's
location, as DRR's generated rewrites use the matched op's location) through the pattern rewriter
(so the greedy driver puts it on its worklist), and returns its result.  An expansion written as
nested Python calls therefore creates its ops in DRR's order: Python evaluates a call's arguments
left to right before the call, as DRR's generated C++ builds a result DAG's operands (left to right,
depth first) before the op.  A DRR-bound name (`(StableHLO_MulOp:$r ...)`) is a walrus binding
(`r := e.mul(...)`), created where it first appears and reused after.

Constants are upstream's `getConstantLike`: a splat `stablehlo.constant` of the like-value's
(float) type when its shape is static, else `chlo.constant_like` of the value and the like-value.
The value is a double (as the C++ literal) rounded to the element type (1e+308 is inf in f32).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stablehlo_py.passes.drivers._common import carry_location, op_location
from xdsl.dialects.builtin import Float32Type, Float64Type, FloatAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.enums import ComparisonDirectionAttr
from stablehlo_py.ir.infer import infer_result_types
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import element_type
from stablehlo_py.ir.xdsl_compat.construct import new_op

__all__ = ["Emitter"]

_NO_PROPS: dict[str, Attribute] = {}


_PART_DTYPES: dict[type[Attribute], type[np.floating]] = {
    Float32Type: np.float32,
    Float64Type: np.float64,
}
"""The real and imaginary part types of StableHLO's complex element types."""


def _op(name: str) -> Callable[..., SSAValue]:
    """The Emitter method that creates the op ``name`` on its operands (in order)."""

    def method(self: Emitter, *operands: SSAValue) -> SSAValue:
        return self.emit(name, list(operands))

    method.__name__ = method.__qualname__ = name.split(".", 1)[1]
    return method


class Emitter:
    """Builds the expansion of `root` (the matched op) before it."""

    def __init__(self, rewriter: PatternRewriter, root: Operation):
        self.rewriter = rewriter
        self.root = root
        self.ops = default_registry().ops

    # ----------------------------------------------------------------------------- the core
    def emit(
        self, name: str, operands: list[SSAValue], props: dict[str, Attribute] = _NO_PROPS
    ) -> SSAValue:
        """Create `name` on `operands` (result type inferred), insert it before the root."""
        types = infer_result_types(name, [v.type for v in operands], props, (), operands)
        op = new_op(self.ops[name], operands, types, props)
        carry_location(op, self.root)
        self.rewriter.insert(op, InsertPoint.before(self.root))
        return op.results[0]

    def const(self, value: float, like: SSAValue) -> SSAValue:
        """upstream's getConstantLike(b, loc, value, like) for a float `like`."""
        t = like.type
        el = element_type(t)
        dtype = _PART_DTYPES.get(type(el))
        if dtype is None:  # StableHLO's complex types have f32 or f64 parts
            raise NotSupportedError(
                f"stablehlo-complex-math-expander: the expansion of '{self.root.name}' on parts "
                f"of type {t} (only complex<f32> and complex<f64> elements are supported)",
                location=op_location(self.root),
            )
        with np.errstate(over="ignore"):
            scalar = np.array([value], dtype=np.float64).astype(dtype)
        if isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape()):
            return self.emit("stablehlo.constant", [], {"value": make_dense(t, scalar)})
        attr = FloatAttr(float(scalar[0]), el)  # type: ignore[arg-type]
        return self.emit("chlo.constant_like", [like], {"value": attr})

    def largest(self, like: SSAValue) -> SSAValue:
        """upstream's getConstantLikeMaxFiniteValue."""
        dtype = _PART_DTYPES.get(type(element_type(like.type)), np.float64)
        return self.const(float(np.finfo(dtype).max), like)

    def posinf(self, like: SSAValue) -> SSAValue:
        """upstream's getConstantLikeInfValue(..., negative=false)."""
        return self.const(float("inf"), like)

    # ----------------------------------------------------------------------------- the ops
    real = _op("stablehlo.real")
    imag = _op("stablehlo.imag")
    complex = _op("stablehlo.complex")
    abs = _op("stablehlo.abs")
    neg = _op("stablehlo.negate")
    sqrt = _op("stablehlo.sqrt")
    log = _op("stablehlo.log")
    log1p = _op("stablehlo.log_plus_one")
    exp = _op("stablehlo.exponential")
    cos = _op("stablehlo.cosine")
    sin = _op("stablehlo.sine")
    add = _op("stablehlo.add")
    sub = _op("stablehlo.subtract")
    mul = _op("stablehlo.multiply")
    div = _op("stablehlo.divide")
    max = _op("stablehlo.maximum")
    min = _op("stablehlo.minimum")
    atan2 = _op("stablehlo.atan2")
    and_ = _op("stablehlo.and")
    or_ = _op("stablehlo.or")
    select = _op("stablehlo.select")

    def compare(self, a: SSAValue, b: SSAValue, direction: str) -> SSAValue:
        """`stablehlo.compare` without a compare_type (DRR's STABLEHLO_DEFAULT_COMPARISON_TYPE)."""
        attr = ComparisonDirectionAttr.get_case(direction)  # type: ignore[attr-defined]
        return self.emit("stablehlo.compare", [a, b], {"comparison_direction": attr})
