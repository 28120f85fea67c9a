"""`stablehlo-aggressive-simplification`: upstream's
optimization/StablehloAggressiveSimplification.cpp.

Canonicalization patterns of StableHLO ops (patterns/simplify/: algebraic identities, no-op removal,
constant operands to the right, static forms of dynamic ops, zero-extent tensors as empty constants,
unused reduce/sort operands, loop invariants of while as implicit captures, ...), applied by the
greedy driver (drivers/greedy.py) over the whole module as upstream's
`applyPatternsGreedily(getOperation(), ...)` with the default config: ops left dead are erased,
constants are uniqued and moved to the start of their function.

Option (upstream's, typed by the pass registry): `fold-op-element-limit` (a select of constant
operands becomes a constant only up to that many elements).

Where this differs from upstream (all cases where upstream would leave invalid IR or where the
difference cannot show in the printed IR):
* a pattern that replaces a result by a value of another (more static) type leaves the op when a
  user outside StableHLO/CHLO (func.return) needs the exact type; WhileOpImplicitCapture keeps such
  an operand in the loop; the reduce no-op patterns replace only by values of the result's type;
* rewrites upstream makes in place (compare's direction, concatenate's operands, custom_call's
  backend config, zero-extent operands of ops without regions) build an equal op at the same place,
  so no state derived from the old op survives (e.g. an interpreter's prepared step);
* PadOpBroadcastEmptyTensor and ReduceOpEmptyCanon with dynamically shaped results use the ops'
  reified result shapes (ir/infer/reify.py); an op without a reify rule is left as it is.
"""

from __future__ import annotations

from stablehlo_py.passes.drivers.greedy import run_greedily
from stablehlo_py.passes.drivers.options import FOLD_OP_ELEMENT_LIMIT
from stablehlo_py.passes.patterns.simplify import SimplifyOptions, populate_simplification_patterns
from xdsl.ir import Operation

__all__ = ["PASS_NAME", "run", "simplify_options"]

PASS_NAME = "stablehlo-aggressive-simplification"
SUMMARY = "Canonicalizes StableHLO operations"
OPTIONS = (FOLD_OP_ELEMENT_LIMIT,)


def simplify_options(options: dict[str, object]) -> SimplifyOptions:
    """The registry's typed options as SimplifyOptions."""
    return SimplifyOptions(fold_op_element_limit=int(options["fold-op-element-limit"]))  # type: ignore[call-overload]


def run(op: Operation, options: dict[str, object]) -> Operation:
    patterns = populate_simplification_patterns(simplify_options(options))
    return run_greedily(op, patterns, PASS_NAME)
