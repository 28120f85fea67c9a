"""Rewrite patterns, folds and the helpers several passes share: the simplification patterns
(`simplify/`), the folds (`shape_folder`, `folds/`, `mlir_folds`, `arith_float_folds`), shape
refinement (`refine_patterns`, `refine_types`, `refine_calls`) and the expansions
(`compat_expansions/`, `complex_math/`, `quant_to_math/`).

Kept light: it imports none of its modules, so importing one never loads the others."""
