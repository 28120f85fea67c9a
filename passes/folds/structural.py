"""Structural folds of the aggressive folder: case, reduce, while."""

from __future__ import annotations

from stablehlo_py.passes.shape_folder import FoldOptions
from xdsl.pattern_rewriter import RewritePattern


def structural_patterns(options: FoldOptions) -> list[RewritePattern]:
    return []
