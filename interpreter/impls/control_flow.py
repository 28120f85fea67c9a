"""Control flow: while, if, case, optimization_barrier, composite (spec.md "Control flow")."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.registry import impl

from stablehlo_py.errors import InterpreterError


def _truth(value: Any, what: str) -> bool:
    arr = np.asarray(value)
    if arr.size != 1:
        raise InterpreterError(
            f"{what} must be a tensor<i1> with one element, got shape {list(arr.shape)}"
        )
    return bool(arr.reshape(-1)[0])


@impl("stablehlo.while")
def _while(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    cond, body = op.regions[0], op.regions[1]
    values = list(args)
    while _truth(ev.run_region(cond, values, env)[0], "the condition of stablehlo.while"):
        values = ev.run_region(body, values, env)
    return values


@impl("stablehlo.if")
def _if(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    branch = op.regions[0] if _truth(args[0], "the predicate of stablehlo.if") else op.regions[1]
    return ev.run_region(branch, [], env)


@impl("stablehlo.case")
def _case(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """`index` out of `[0, N)` selects the last branch (spec.md#case)."""
    index = int(np.asarray(args[0]).reshape(-1)[0])
    branches = list(op.regions)
    if not 0 <= index < len(branches):
        index = len(branches) - 1
    return ev.run_region(branches[index], [], env)


@impl("stablehlo.optimization_barrier")
def _optimization_barrier(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return list(args)


@impl("stablehlo.composite")
def _composite(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """A composite is its `decomposition` function called on the inputs."""
    return ev.call(A.sym_name(A.attr(op, "decomposition")), list(args))
