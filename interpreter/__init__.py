"""The reference interpreter: numpy-vectorized semantics for every op.

`run(module_or_text, *numpy_args, entry="main")` and `eval_module(module, args)` evaluate a function;
`register_custom_call(name, fn)` adds a custom_call target.  Pure numpy semantics are in `semantics/`.
"""

from stablehlo_py.interpreter.api import eval_module, run
from stablehlo_py.interpreter.custom_call import register_custom_call

__all__ = ["run", "eval_module", "register_custom_call"]
