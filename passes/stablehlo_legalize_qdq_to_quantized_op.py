"""`stablehlo-legalize-qdq-to-quantized-op`: upstream's StablehloLegalizeQDQToQuantizedOp.cpp.

Fuses `uniform_dequantize -> float op -> uniform_quantize` into the op on quantized tensors:

    %0 = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<...>>) -> tensor<4xf32>
    %1 = stablehlo.abs %0 : tensor<4xf32>
    %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<...>>
    ->
    %2 = stablehlo.abs %q : tensor<4x!quant.uniform<...>>

The match starts at a `uniform_quantize`; its operand's defining op (the compute op) must have no
regions, at most one result, at least one operand, no quantized operand, and every operand must be
the result of a `uniform_dequantize`.  The fused op is a copy of the compute op (same name,
attributes and location) on the dequantize ops' operands with the quantize op's result type,
inserted right after the compute op; the quantize op's uses switch to it.  The pass itself erases
nothing: the quantize, compute and dequantize ops are erased by the greedy driver
(`drivers/greedy.py`, upstream's default configuration) once they are dead.  Not converging within
10 iterations is upstream's error "Failed to converge StablehloLegalizeQDQToQuantizedOpPass in 10
iterations".  The reasons a match fails are upstream's `notifyMatchFailure` texts
(`match_failure(op)` returns them for a `uniform_quantize`, for tests and debugging).
"""

from __future__ import annotations

from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.drivers.diagnostics import raise_collected
from stablehlo_py.passes.drivers.greedy import GreedyConfig, apply_patterns_greedily
from stablehlo_py.passes.stablehlo_legalize_quantized_op_to_qdq import is_quantized
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from stablehlo_py.errors import VerifyError

__all__ = ["QDQToQuantizedOpPattern", "legalize_qdq_to_quantized_op", "match_failure", "run"]

PASS_NAME = "stablehlo-legalize-qdq-to-quantized-op"
SUMMARY = (
    "Fuse (de-quantize, floating-point operation and quantize) pattern into StableHLO quantized "
    "operation"
)

CONFIG = GreedyConfig()
"""upstream's pass uses a default GreedyRewriteConfig (bottom-up, 10 iterations)."""

QUANTIZE = "stablehlo.uniform_quantize"
DEQUANTIZE = "stablehlo.uniform_dequantize"


def run(op: Operation, options: dict[str, object]) -> Operation:
    return legalize_qdq_to_quantized_op(op)


def match_failure(quant_op: Operation) -> str | None:
    """Why the pattern does not apply to the `uniform_quantize` ``quant_op`` (upstream's
    notifyMatchFailure text), or None when it applies."""
    compute = quant_op.operands[0].owner
    if not isinstance(compute, Operation):
        return "requires operand to be defined by an op"
    if compute.regions:
        return "ops with regions are not supported"
    if len(compute.results) > 1:
        return "ops with variadic results are not supported"
    if any(is_quantized(v.type) for v in compute.operands):
        return "requires non quantized operands"
    if not compute.operands:
        return "requires non empty operands"
    for v in compute.operands:
        producer = v.owner
        if not isinstance(producer, Operation):
            return "requires operand to be defined by an op"
        if producer.name != DEQUANTIZE:
            return "requires operand to be defined by an stablehlo.uniform_dequantize op"
    return None


class QDQToQuantizedOpPattern(RewritePattern):
    """upstream's QuantizedStablehloQDQToQuantizedOpConversion."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != QUANTIZE or match_failure(op) is not None:
            return
        compute = op.operands[0].owner
        assert isinstance(compute, Operation)
        operands: list[SSAValue] = []
        for v in compute.operands:
            dequant = v.owner
            assert isinstance(dequant, Operation)
            operands.append(dequant.operands[0])
        fused = type(compute).create(
            operands=operands,
            result_types=[r.type for r in op.results],
            properties=dict(compute.properties),
            attributes=dict(compute.attributes),
        )
        carry_location(fused, compute)
        rewriter.insert(fused, InsertPoint.after(compute))
        # upstream replaces the uses directly (not through the rewriter): the quantize op is left
        # dead for the driver's next iteration
        op.results[0].replace_all_uses_with(fused.results[0])


def legalize_qdq_to_quantized_op(op: Operation) -> Operation:
    """Rewrite every function nested in `op` in place (the pass runs on func.func); returns `op`.
    Raises VerifyError (upstream's message, at the function) when a function does not converge."""
    diagnostics: list[VerifyError] = []
    for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
        if not apply_patterns_greedily(func, [QDQToQuantizedOpPattern()], config=CONFIG):
            diagnostics.append(_not_converged(func))
    if diagnostics:
        raise_collected(diagnostics)
    return op


def _not_converged(func: FuncOp) -> VerifyError:
    from stablehlo_py.ir.verify import op_location

    return VerifyError(
        "Failed to converge StablehloLegalizeQDQToQuantizedOpPass in "
        f"{CONFIG.max_iterations} iterations",
        location=op_location(func),
    )
