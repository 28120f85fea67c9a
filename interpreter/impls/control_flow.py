"""Control flow: while, if, case, optimization_barrier, composite (spec.md "Control flow").

Compiled: `while`, `if` and `case` receive their regions as compiled functions (which see the values
of the enclosing blocks) and call them directly."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.compiled import LOOP_STEPS
from stablehlo_py.interpreter.registry import Step, compiler

from stablehlo_py.errors import InterpreterError


def _truth(value: Any, what: str) -> bool:
    if type(value) is np.ndarray and value.size == 1:
        return bool(value)
    arr = np.asarray(value)
    if arr.size != 1:
        raise InterpreterError(
            f"{what} must be a tensor<i1> with one element, got shape {list(arr.shape)}"
        )
    return bool(arr.reshape(-1)[0])


_WHILE_CONDITION = "the condition of stablehlo.while"


_ND = np.ndarray


def _run_while(regions: tuple[Any, ...], *args: Any) -> list[Any]:
    cond, body = regions
    values = list(args)
    while True:
        c = cond(*values)[0]
        # a 0-d tensor<i1> (what compare gives) tested at once, anything else by `_truth`
        if not (bool(c) if type(c) is _ND and c.ndim == 0 else _truth(c, _WHILE_CONDITION)):
            return values
        values = body(*values)


def _condition_holds(c: Any) -> bool:
    """Whether a generated while loop goes on (compiled.LOOP_STEPS), as `_run_while` decides."""
    if type(c) is _ND and c.ndim == 0:
        return bool(c)
    return _truth(c, _WHILE_CONDITION)


LOOP_STEPS[_run_while] = _condition_holds


def _run_if(regions: tuple[Any, ...], pred: Any) -> list[Any]:
    branch = regions[0] if _truth(pred, "the predicate of stablehlo.if") else regions[1]
    return branch()


def _run_case(regions: tuple[Any, ...], index: Any) -> list[Any]:
    """`index` out of `[0, N)` selects the last branch (spec.md#case)."""
    i = int(np.asarray(index).reshape(-1)[0])
    if not 0 <= i < len(regions):
        i = len(regions) - 1
    return regions[i]()


_STEPS = {
    "stablehlo.while": Step(_run_while, regions=True, multi=True),
    "stablehlo.if": Step(_run_if, regions=True, multi=True),
    "stablehlo.case": Step(_run_case, regions=True, multi=True),
}


@compiler(*_STEPS)
def _control_flow(op: Any) -> Step:
    return _STEPS[op.name]


def _identity(*args: Any) -> list[Any]:
    return list(args)


@compiler("stablehlo.optimization_barrier")
def _optimization_barrier(op: Any) -> Step:
    return Step(_identity, multi=True)


@compiler("stablehlo.composite")
def _composite(op: Any) -> Step:
    """A composite is its `decomposition` function called on the inputs."""
    decomposition = A.sym_name(A.attr(op, "decomposition"))

    def run(ev: Any, *args: Any) -> list[Any]:
        return ev.call(decomposition, list(args))

    return Step(run, ev=True, multi=True)
