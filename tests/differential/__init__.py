"""Differential fuzzing: random JAX programs run by our interpreter and by XLA CPU, compared.

`generator.py` makes a case from (seed, index): a JAX function as Python source plus its inputs, with a
printable reproducer.  `compare.py` compares two results (bit-exact for integers and booleans, a per-op
ulp tolerance for floats, NaN payload-insensitive, the sign of zero checked).  `xla_deviations.py` is the
one place that lists XLA's known deviations from the spec and the spec's implementation-defined cases,
each with a predicate that recognises a mismatch of its class.  `runner.py` runs a case through both and
classifies a mismatch: (i) an XLA deviation, (ii) implementation-defined, (iii) a bug of ours.

Needs jax (the `oracle` extra); nothing here is imported by the package.
"""
