"""The aggressive folder's folds beyond the shape folder's (passes/stablehlo_aggressive_folder.py),
one file per group of ops: `elementwise.py` (unary math, xor, ...), `data.py` (iota, reverse,
transpose), `structural.py` (case, reduce, while)."""
