"""The values a program computes, for stand-ins that keep the failure's data (plan decision 12).

:func:`record` runs the interpreter once on a clone whose entry function also returns every value
its top-level ops compute, and gives each op's results by its index (walk order).  Values inside
regions and other functions are not recorded (their stand-ins are zeros); a program the interpreter
cannot run (the failure being reduced may be the interpreter's own), or not within its budget, has
no recorded values.

:func:`default_inputs`: inputs for a program given without any, made from the entry function's
parameter types with a fixed seed (so a reduction is repeatable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import FuncOp

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import TOKEN
from stablehlo_py.ir.types import TokenType
from stablehlo_py.reduce.budget import OutOfTime, cpu_budget
from stablehlo_py.reduce.edit import Edit, Recorded, is_terminator
from stablehlo_py.reduce.program import Program, ReduceError
from stablehlo_py.semantics import dtypes
from stablehlo_py.semantics.ir_dtypes import dtype_of_type

__all__ = ["default_inputs", "record"]


def record(program: Program, budget: float | None = None) -> Recorded | None:
    """op index -> its results' values on the program's inputs, for the ops at the top level of the
    entry function; None when the interpreter cannot run the program, or not within ``budget``
    seconds of CPU time (:func:`.budget.cpu_budget`: a loop that no longer ends)."""
    edit = Edit(program)
    block = edit.entry.body.block
    exposed: list[tuple[int, int]] = []
    values = []
    for i, op in enumerate(edit.ops):
        if op.parent is not block or is_terminator(op):
            continue
        for k, r in enumerate(op.results):
            if isinstance(r.type, TensorType):
                exposed.append((i, k))
                values.append(r)
    if not exposed:
        return {}
    ret = edit.entry.get_return_op()
    if ret is None:
        return None
    n = len(ret.operands)
    edit.set_results([*ret.operands, *values])
    try:
        with cpu_budget(budget):
            results = run(edit.module, *program.inputs, entry=program.entry)
    except (Exception, OutOfTime):  # the program may be a failure of the interpreter itself
        return None
    out: dict[int, list[np.ndarray]] = {}
    for (i, k), v in zip(exposed, results[n:]):
        slots = out.setdefault(i, [np.empty(0)] * len(edit.ops[i].results))
        slots[k] = np.asarray(v)
    return out


def default_inputs(func: FuncOp, seed: int = 0) -> list[Any]:
    """Inputs for ``func``'s parameters: small random numbers of each parameter's element type
    (integers in [-4, 4], or [0, 4] when unsigned; booleans; floats from a normal distribution),
    tokens for tokens.  A dynamically shaped parameter needs inputs given."""
    rng = np.random.default_rng(seed)
    out: list[Any] = []
    for i, t in enumerate(func.function_type.inputs.data):
        if isinstance(t, TokenType):
            out.append(TOKEN)
            continue
        if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
            raise ReduceError(
                f"argument {i} of @{func.sym_name.data} has type {t}: inputs cannot be made up "
                "for it; give the inputs (inputs=, --inputs=FILE.npz)"
            )
        out.append(_random(rng, dtype_of_type(t), tuple(t.get_shape())))
    return out


def _random(rng: np.random.Generator, dt: np.dtype, shape: Sequence[int]) -> np.ndarray:
    kind = dtypes.element_type(dt).kind
    if kind == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    if kind == "uint":
        return rng.integers(0, 5, shape).astype(dt)
    if kind == "sint":
        return rng.integers(-4, 5, shape).astype(dt)
    if kind == "complex":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    return rng.standard_normal(shape).astype(dt)
