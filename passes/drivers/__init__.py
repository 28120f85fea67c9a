"""The machinery that runs passes and patterns: the pass options and their text (`options`), the
pipeline text and the pass manager's loop (`pipeline`), the greedy pattern driver (`greedy`), MLIR's
partial dialect conversion (`conversion`), the bounded walker of the refinement passes
(`bounded_walker`), multi-diagnostic collection (`diagnostics`) and what the rebuild-style passes
share (`_common`).

Kept light: it imports none of its modules, so importing one never loads the others."""
