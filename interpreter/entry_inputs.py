"""What `run` and `run_spmd` do to their inputs before evaluating: parse and verify a module given
as text, and bind numpy arguments to the entry function's parameters.

A leaf both `interpreter/api.py` and `interpreter/custom_calls/spmd.py` import, so that neither
imports the other back (`api.run` calls into spmd for partitioned programs).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from xdsl.ir import Operation

from stablehlo_py.errors import InterpreterError

if TYPE_CHECKING:
    from stablehlo_py.interpreter.evaluator import Evaluator

__all__ = ["as_module", "coerce_args"]


def as_module(module_or_text: Operation | str) -> Operation:
    """The module itself, or the text parsed and verified."""
    if isinstance(module_or_text, str):
        from stablehlo_py.ir import parse
        from stablehlo_py.ir.verify import verify

        module = parse(module_or_text)
        verify(module)
        return module
    return module_or_text


def coerce_args(ev: Evaluator, entry: str, args: Sequence[Any]) -> list[Any]:
    """`args` bound to the parameters of function `entry` of the evaluator's module (an
    InterpreterError naming the functions there when it has none of that name)."""
    from stablehlo_py.interpreter.shapes import bind_arguments

    func = ev.funcs.get(entry)
    if func is None:
        raise InterpreterError(
            f"no function @{entry} to run (have: {', '.join('@' + f for f in ev.funcs)})"
        )
    return bind_arguments(func, args, entry)
