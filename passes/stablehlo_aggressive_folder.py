"""`stablehlo-aggressive-folder`: upstream's optimization/StablehloAggressiveFolder.cpp.

Partial evaluation: ops whose operands are constants become constants (the one fold table,
`patterns/shape_folder.py` FOLDS, which this pass extends with the aggressive folder's own entries
in `patterns/folds/`), plus the structural folds of `case` (a constant branch index inlines its
branch), `reduce`, and `while` (a loop whose condition is constant false, or that is dead and
presumed pure). The patterns run through the greedy driver (`drivers/greedy.py`) over the whole
module, as upstream's `applyPatternsGreedily(getOperation(), ...)` with the default config.

Options (upstream's, typed by the pass registry): `assume-no-undeclared-side-effects` (a dead `while`
whose body declares no side effects is erased), `fold-op-element-limit` (no fold creates a constant
of more elements), `optimize-float` (float and complex values are folded too).
"""

from __future__ import annotations

from stablehlo_py.passes.drivers.options import (
    ASSUME_NO_UNDECLARED_SIDE_EFFECTS,
    FOLD_OP_ELEMENT_LIMIT,
    OPTIMIZE_FLOAT,
)
from stablehlo_py.passes.patterns.folds.data import DATA_FOLDS
from stablehlo_py.passes.patterns.folds.elementwise import ELEMENTWISE_FOLDS
from stablehlo_py.passes.drivers.greedy import run_greedily
from stablehlo_py.passes.patterns.shape_folder import (
    FOLDS,
    FoldOptions,
    ShapeFolderPattern,
    register_folds,
)
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

__all__ = ["PASS_NAME", "fold_options", "populate_aggressive_folder_patterns", "run"]

PASS_NAME = "stablehlo-aggressive-folder"
SUMMARY = "Folds StableHLO operations"
OPTIONS = (ASSUME_NO_UNDECLARED_SIDE_EFFECTS, FOLD_OP_ELEMENT_LIMIT, OPTIMIZE_FLOAT)

if "stablehlo.xor" not in FOLDS:
    register_folds(ELEMENTWISE_FOLDS)
    register_folds(DATA_FOLDS)


def fold_options(options: dict[str, object]) -> FoldOptions:
    """The registry's typed options as FoldOptions."""
    return FoldOptions(
        optimize_float=bool(options["optimize-float"]),
        fold_op_element_limit=int(options["fold-op-element-limit"]),  # type: ignore[call-overload]
        assume_no_undeclared_side_effects=bool(options["assume-no-undeclared-side-effects"]),
    )


def populate_aggressive_folder_patterns(options: FoldOptions) -> list[RewritePattern]:
    """upstream's populateStablehloAggressiveFolderPatterns: the fold table's pattern and the
    structural patterns."""
    from stablehlo_py.passes.patterns.folds.structural import structural_patterns

    return [ShapeFolderPattern(options, FOLDS), *structural_patterns(options)]


def run(op: Operation, options: dict[str, object]) -> Operation:
    patterns = populate_aggressive_folder_patterns(fold_options(options))
    return run_greedily(op, patterns, PASS_NAME)
