"""The reference interpreter: numpy-vectorized semantics for every op.

`run(module_or_text, *numpy_args, entry="main")` and `eval_module(module, args)` evaluate a function;
`register_custom_call(name, fn)` adds a custom_call target.  Pure numpy semantics are in
`stablehlo_py/semantics/`.

Results that may differ by CPU in the last bit: the transcendental ops computed through numpy's
float64 functions (cbrt, exponential, exponential_minus_one, log, log_plus_one, logistic, sine,
cosine, tan, tanh, atan2, power) may take SIMD code paths that depend on the CPU's instruction set
(numpy's dispatch: AVX-512 vs X86_V3 / AVX2), so a float64 result may differ by one ulp between
machines (e.g. cbrt(27.0) is 3.0 with AVX-512 and 3.0000000000000004 without); float32 and narrower
results, rounded from float64, almost always agree.  Arithmetic, comparisons, integer ops,
conversions and data movement are exact and CPU-independent.
"""

from stablehlo_py.interpreter import impls, registry
from stablehlo_py.interpreter.api import eval_module, run
from stablehlo_py.interpreter.custom_calls import register_custom_call

# the impl modules import the registry, so the registry is told how to load them from here (above both)
registry.install_loader(impls.load)

__all__ = ["run", "eval_module", "register_custom_call"]
