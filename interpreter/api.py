"""Python API of the interpreter: `run` and upstream's `eval_module`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Operation

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.evaluator import Evaluator


def _as_module(module_or_text: Operation | str) -> Operation:
    if isinstance(module_or_text, str):
        from stablehlo_py.ir import parse
        from stablehlo_py.ir.verify import verify

        module = parse(module_or_text)
        verify(module)
        return module
    return module_or_text


def _coerce_args(ev: Evaluator, entry: str, args: Sequence[Any]) -> list[Any]:
    from stablehlo_py.interpreter.values import dtype_of_type

    func = ev.funcs.get(entry)
    if func is None:
        raise InterpreterError(f"no function @{entry} to run (have: {', '.join('@' + f for f in ev.funcs)})")
    types = func.function_type.inputs.data
    if len(types) != len(args):
        raise InterpreterError(f"@{entry} takes {len(types)} arguments, {len(args)} were given")
    out = []
    for i, (t, a) in enumerate(zip(types, args)):
        arr = np.asarray(a)
        want = dtype_of_type(t)
        shape = tuple(t.get_shape()) if hasattr(t, "get_shape") else None
        if shape is not None and arr.shape != shape:
            raise InterpreterError(f"argument {i} of @{entry} has shape {list(arr.shape)}, expected {list(shape)}")
        if arr.dtype != want:
            arr = arr.astype(want)
        out.append(arr)
    return out


def run(module_or_text: Operation | str, *args: Any, entry: str = "main") -> list[np.ndarray]:
    """Run `entry` on numpy arguments; returns its results.  Check ops that fail raise InterpreterError."""
    module = _as_module(module_or_text)
    ev = Evaluator(module)
    results = ev.call(entry, _coerce_args(ev, entry, args))
    if ev.failures:
        raise InterpreterError("; ".join(str(f) for f in ev.failures))
    return results


def eval_module(module: Operation | str, args: Sequence[Any] = (), entry: str = "main") -> list[np.ndarray]:
    """Upstream's name (`stablehlo.eval_module(module, args)`): evaluate `main` with `args`."""
    return run(module, *args, entry=entry)
