"""`stablehlo-target-independent-optimization`: upstream's
optimization/StablehloTargetIndependentOptimization.cpp.

One greedy rewrite (drivers/greedy.py, upstream's default config) with the aggressive folder's
patterns (passes/stablehlo_aggressive_folder.py, at benefit 2) and the simplification patterns
(patterns/simplify/) together, tried as MLIR's PatternApplicator orders them: higher benefit first,
on a tie the folder's (registered first) before the simplification's.

Options (upstream's, typed by the pass registry): `assume-no-undeclared-side-effects`,
`fold-op-element-limit` (both pattern sets), `optimize-float` (the folder's).
"""

from __future__ import annotations

from stablehlo_py.passes.drivers.greedy import run_greedily
from stablehlo_py.passes.patterns.simplify import populate_simplification_patterns
from stablehlo_py.passes.stablehlo_aggressive_simplification import simplify_options
from stablehlo_py.passes.stablehlo_aggressive_folder import (
    OPTIONS as FOLDER_OPTIONS,
    fold_options,
    populate_aggressive_folder_patterns,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

__all__ = ["FOLDER_BENEFIT", "PASS_NAME", "optimization_patterns", "run"]

PASS_NAME = "stablehlo-target-independent-optimization"
SUMMARY = "Runs canonicalizers, folders, and other target-independent optimizations."
OPTIONS = FOLDER_OPTIONS
"""upstream's options are the folder's: assume-no-undeclared-side-effects, fold-op-element-limit,
optimize-float."""

FOLDER_BENEFIT = 2
"""The benefit upstream registers the aggressive folder's patterns with in this pass."""


def optimization_patterns(options: dict[str, object]) -> list[RewritePattern]:
    """The folder's and the simplification's patterns in the order the driver tries them."""
    folder = populate_aggressive_folder_patterns(fold_options(options))
    simplify = populate_simplification_patterns(simplify_options(options))
    for p in folder:
        p.benefit = FOLDER_BENEFIT  # type: ignore[attr-defined]
    ranked = [(FOLDER_BENEFIT, 0, i, p) for i, p in enumerate(folder)]
    ranked += [(int(getattr(p, "benefit", 1)), 1, i, p) for i, p in enumerate(simplify)]
    ranked.sort(key=lambda r: (-r[0], r[1], r[2]))
    return [r[3] for r in ranked]


def run(op: Operation, options: dict[str, object]) -> Operation:
    return run_greedily(op, optimization_patterns(options), PASS_NAME)
