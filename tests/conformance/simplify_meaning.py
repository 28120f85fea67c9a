"""Run a testdata program before and after `stablehlo-aggressive-simplification` (shared by
tests/conformance/test_simplification_preserves_meaning.py and bench/simplification_shrink.py).

A program is read as upstream's RUN line does (`stablehlo-opt -inline`, CHLO programs through
`--chlo-pre-serialization-pipeline` first), interpreted, simplified, verified and interpreted again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.conformance.runlines import run_lines

CHLO_PIPELINE = "chlo-pre-serialization-pipeline"


def count_ops(module) -> int:
    """Ops in the module, nested ones included, less the module and function ops themselves and
    their terminators' `func.return`s (the program's computation)."""
    skip = {"builtin.module", "func.func", "func.return"}
    return sum(1 for op in module.walk() if op.name not in skip)


def _same(a: object, b: object) -> bool:
    """Equal results: the same bits, except that float and complex elements may differ in their
    last bits (up to 8 epsilons relative): moving a constant operand of a commutative op to the
    right (upstream's CanonicalizeConstantToRhs) changes `c * x` into `x * c`, which numpy's
    vectorized complex multiply (fused multiply-adds) may round differently."""
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.tobytes() == y.tobytes():
        return True
    try:
        if x.dtype.kind == "c":
            wide_x, wide_y = x.astype(np.complex128), y.astype(np.complex128)
            eps = float(np.finfo(x.real.dtype).eps)
        else:
            wide_x, wide_y = x.astype(np.float64), y.astype(np.float64)
            eps = float(np.finfo(x.dtype).eps) if x.dtype.kind == "f" else 0.0
    except (TypeError, ValueError):
        return False
    if eps == 0.0:  # integers, booleans, ml_dtypes without finfo: bits only
        try:
            import ml_dtypes

            eps = float(ml_dtypes.finfo(x.dtype).eps)
        except (ImportError, TypeError, ValueError):
            return False
    return bool(np.allclose(wide_x, wide_y, rtol=8 * eps, atol=0.0, equal_nan=True))


@dataclass
class Outcome:
    ops_before: int
    ops_after: int
    problems: list[str] = field(default_factory=list)


def load(path: Path):
    from stablehlo_py.passes import run_pipeline

    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    module = parse(path.read_text(), str(path))
    verify(module)
    pipeline: list[tuple[str, dict[str, str]]] = [("inline", {})]
    if any(CHLO_PIPELINE in r for r in run_lines(path)):
        pipeline.insert(0, (CHLO_PIPELINE, {}))
    return run_pipeline(module, pipeline)


def _interpret(module) -> tuple[list[object], list[str]]:
    from stablehlo_py.interpreter.evaluator import Evaluator

    ev = Evaluator(module)
    results = ev.call("main", [])
    return list(results), [str(f) for f in ev.failures]


def check_program(path: Path, interpret: bool = True) -> Outcome:
    """Simplify ``path``'s program; with ``interpret``, compare its results and checks."""
    from stablehlo_py.passes import run_pipeline

    module = load(path)
    before = count_ops(module)
    if interpret:  # a module of its own: the interpreter keeps prepared state on the ops it ran
        expected, failures_before = _interpret(load(path))
    module = run_pipeline(module, [("stablehlo-aggressive-simplification", {})])
    out = Outcome(before, count_ops(module))
    if not interpret:
        return out
    got, failures_after = _interpret(module)
    if len(got) != len(expected):
        out.problems.append(f"{len(expected)} results before, {len(got)} after")
    for i, (a, b) in enumerate(zip(expected, got)):
        if not _same(a, b):
            out.problems.append(f"result #{i} differs after simplification")
    new_failures = [f for f in failures_after if f not in failures_before]
    out.problems += [f"check failed after simplification: {f}" for f in new_failures]
    return out
