"""`stablehlo-legalize-quantized-op-to-qdq`: upstream's StablehloLegalizeQuantizedOpToQDQ.cpp.

Each op of `QDQ_OPS` (elementwise math, compare/select/clamp, dot/dot_general/convolution, the batch
norms, cholesky, triangular_solve, reduce_precision) that has a quantized operand or result becomes
the same op on floats, between `stablehlo.uniform_dequantize` of each quantized operand and
`stablehlo.uniform_quantize` of each result whose type was quantized:

    %r = stablehlo.add %a, %b : tensor<4x!quant.uniform<i8:f32, 1.0:17>>
    ->
    %0 = stablehlo.uniform_dequantize %a : (...) -> tensor<4xf32>
    %1 = stablehlo.uniform_dequantize %b : (...) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    %r = stablehlo.uniform_quantize %2 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0:17>>

The float op keeps the original's attributes and location; a quantized result type becomes its
expressed type with the same shape (and bounds); other operands and results are left as they are.
Ops outside the table (data movement, collectives, region-bodied ops, ...) are untouched, but ops
inside their regions (a sort comparator's `compare`, a reduce body's `add`) are rewritten.  As
upstream, the patterns run on each function through MLIR's greedy driver (`drivers/greedy.py`:
bottom-up, ops left dead erased, constants uniqued at the front of the function); not converging
within 10 iterations is upstream's error "Failed to converge StablehloLegalizeQuantizedOpToQDQ in 10
iterations".  Ops' `fold` hooks are not run (no folder table is passed to the driver).
"""

from __future__ import annotations

from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.drivers.diagnostics import raise_collected
from stablehlo_py.passes.drivers.greedy import GreedyConfig, apply_patterns_greedily
from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.types import UniformQuantizedType, element_type, tensor_type

__all__ = [
    "QDQ_OPS",
    "QuantizedOpToQDQPattern",
    "expressed_type",
    "is_quantized",
    "legalize_quantized_op_to_qdq",
    "run",
]

PASS_NAME = "stablehlo-legalize-quantized-op-to-qdq"
SUMMARY = (
    "Decompose quantized StableHLO operation to (de-quantize, floating-point operation and "
    "quantize) pattern."
)

QDQ_OPS = frozenset(
    "stablehlo." + n
    for n in [
        "abs",
        "add",
        "atan2",
        "batch_norm_grad",
        "batch_norm_inference",
        "batch_norm_training",
        "cbrt",
        "ceil",
        "cholesky",
        "clamp",
        "compare",
        "convolution",
        "cosine",
        "divide",
        "dot_general",
        "dot",
        "exponential_minus_one",
        "exponential",
        "floor",
        "log_plus_one",
        "logistic",
        "log",
        "maximum",
        "minimum",
        "multiply",
        "negate",
        "power",
        "reduce_precision",
        "remainder",
        "round_nearest_afz",
        "round_nearest_even",
        "rsqrt",
        "select",
        "sign",
        "sine",
        "sqrt",
        "subtract",
        "tanh",
        "tan",
        "triangular_solve",
    ]
)
"""The ops upstream's populateStablehloLegalizeQuantizedOpToQDQPatterns lists (40)."""

CONFIG = GreedyConfig()
"""upstream's pass uses a default GreedyRewriteConfig (bottom-up, 10 iterations)."""


def run(op: Operation, options: dict[str, object]) -> Operation:
    return legalize_quantized_op_to_qdq(op)


def is_quantized(t: Attribute) -> bool:
    """upstream's `isa<quant::QuantizedType>(getElementTypeOrSelf(t))`."""
    return isinstance(element_type(t), UniformQuantizedType)


def expressed_type(t: Attribute) -> Attribute:
    """upstream's getQuantExpressedType: a tensor of quantized elements becomes the same tensor (shape
    and encoding kept) of their expressed type; any other type is returned as it is."""
    if isinstance(t, TensorType):
        e = t.element_type
        if isinstance(e, UniformQuantizedType):
            enc = t.encoding if isinstance(t.encoding, Attribute) else None
            return tensor_type(e.params.expressed_type, t.get_shape(), enc)
        return t
    if isinstance(t, UnrankedTensorType):
        e = t.element_type
        if isinstance(e, UniformQuantizedType):
            return UnrankedTensorType(e.params.expressed_type)
        return t
    if isinstance(t, UniformQuantizedType):
        return t.params.expressed_type
    return t


def dequantize(value: SSAValue) -> Operation:
    """`stablehlo.uniform_dequantize value` with its inferred result type (unlinked)."""
    from stablehlo_py.ir.infer import infer_result_types
    from stablehlo_py.ir.ops.quantization import UniformDequantizeOp

    (result,) = infer_result_types("stablehlo.uniform_dequantize", [value.type], {}, [])
    return UniformDequantizeOp.create(operands=[value], result_types=[result])


def quantize(value: SSAValue, result_type: Attribute) -> Operation:
    """`stablehlo.uniform_quantize value` to `result_type` (unlinked)."""
    from stablehlo_py.ir.ops.quantization import UniformQuantizeOp

    return UniformQuantizeOp.create(operands=[value], result_types=[result_type])


class QuantizedOpToQDQPattern(RewritePattern):
    """upstream's QuantizedStablehloOpConversion, for every op of `QDQ_OPS`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name not in QDQ_OPS:
            return
        if not any(is_quantized(v.type) for v in op.operands) and not any(
            is_quantized(r.type) for r in op.results
        ):
            return
        new_ops: list[Operation] = []
        operands: list[SSAValue] = []
        for v in op.operands:
            if is_quantized(v.type):
                dq = carry_location(dequantize(v), op)
                new_ops.append(dq)
                operands.append(dq.results[0])
            else:
                operands.append(v)
        float_op = type(op).create(
            operands=operands,
            result_types=[expressed_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        carry_location(float_op, op)
        new_ops.append(float_op)
        results: list[SSAValue] = []
        for old, new in zip(op.results, float_op.results):
            if is_quantized(old.type):
                q = carry_location(quantize(new, old.type), op)
                new_ops.append(q)
                results.append(q.results[0])
            else:
                results.append(new)
        rewriter.replace(op, new_ops, new_results=results)


def legalize_quantized_op_to_qdq(op: Operation) -> Operation:
    """Rewrite every function nested in `op` in place (the pass runs on func.func); returns `op`.
    Raises VerifyError (upstream's message, at the function) when a function does not converge."""
    diagnostics: list[VerifyError] = []
    for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
        if not apply_patterns_greedily(func, [QuantizedOpToQDQPattern()], config=CONFIG):
            diagnostics.append(_not_converged(func, "StablehloLegalizeQuantizedOpToQDQ"))
    if diagnostics:
        raise_collected(diagnostics)
    return op


def _not_converged(func: FuncOp, what: str) -> VerifyError:
    from stablehlo_py.ir.verify import op_location

    return VerifyError(
        f"Failed to converge {what} in {CONFIG.max_iterations} iterations",
        location=op_location(func),
    )
