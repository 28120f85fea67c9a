"""The expansions of `stablehlo-complex-math-expander` (upstream's
StablehloComplexMathExpanderPatterns.td), one module per expanded op; `EXPANSIONS` maps the op to
the function that builds its expansion (`fn(emitter, z) -> value replacing the op's result`)."""

from __future__ import annotations

from collections.abc import Callable

from stablehlo_py.passes.patterns.complex_math.emitter import Emitter
from stablehlo_py.passes.patterns.complex_math.exponential import expand_exponential
from stablehlo_py.passes.patterns.complex_math.log import expand_log
from stablehlo_py.passes.patterns.complex_math.log_plus_one import expand_log_plus_one
from stablehlo_py.passes.patterns.complex_math.sqrt import expand_sqrt
from xdsl.ir import SSAValue

__all__ = ["EXPANSIONS", "Emitter", "Expansion"]

Expansion = Callable[[Emitter, SSAValue], SSAValue]

EXPANSIONS: dict[str, Expansion] = {
    "stablehlo.log_plus_one": expand_log_plus_one,
    "stablehlo.sqrt": expand_sqrt,
    "stablehlo.log": expand_log,
    "stablehlo.exponential": expand_exponential,
}
"""Expanded op -> its expansion, in upstream's pattern order (Log1p, Sqrt, Log, Exp)."""
