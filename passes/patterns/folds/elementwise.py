"""The aggressive folder's elementwise folds beyond the shape folder's: upstream's FoldUnaryOpPattern
family (abs, cosine, erf, exponential, log, logistic, negate, not, round_nearest_afz,
round_nearest_even, rsqrt, sine, sqrt, tan, tanh) and FoldXorOpPattern.

Whether an op folds follows upstream: each unary fold has integer and/or float forms (an op without a
form for its element type, and complex element types, do not fold), a domain guard for some floats
(log and rsqrt of x <= 0, sqrt of x < 0 -- any element outside the domain leaves the op), and no
`optimize-float` or element-limit check.  The values are the interpreter's semantics
(passes/patterns/folds/evaluate.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from stablehlo_py.passes.patterns.folds.evaluate import evaluate
from stablehlo_py.passes.patterns.shape_folder import (
    Fold,
    FoldOptions,
    FoldResult,
    UnaryFold,
    _element,
    _is_int,
    _static,
    constant_value,
)
from xdsl.ir import Attribute, Operation

from stablehlo_py.ir.text.dense import make_dense

__all__ = ["ELEMENTWISE_FOLDS"]


@dataclass(frozen=True)
class _Unary:
    ints: bool
    floats: bool
    domain: Callable[[np.ndarray], np.ndarray] | None = None  # float elements (as f64) it folds


def _evaluated(op: Operation, x: np.ndarray, e: Attribute) -> np.ndarray:
    return evaluate(op.name, x)


def _every_int(e: Attribute, x: np.ndarray) -> bool:
    return True


def _every_float(x: np.ndarray) -> bool:
    return True


def _unary_fold(spec: _Unary) -> Fold:
    domain = spec.domain
    floats: Callable[[np.ndarray], bool] | None = None
    if spec.floats:
        floats = _every_float if domain is None else (lambda x: bool(domain(x).all()))
    return UnaryFold(_evaluated, ints=_every_int if spec.ints else None, floats=floats)


def _not_nonpositive(x: np.ndarray) -> np.ndarray:
    return ~(x <= 0.0)


def _not_negative(x: np.ndarray) -> np.ndarray:
    return ~(x < 0.0)


_FLOAT = _Unary(ints=False, floats=True)


def _fold_xor(op: Operation, options: FoldOptions) -> FoldResult:
    """FoldXorOpPattern: logical on i1, bitwise on other integers; floats do not fold."""
    rt = op.results[0].type
    if not _static(rt) or not _is_int(_element(rt)):
        return None
    lhs, rhs = constant_value(op.operands[0]), constant_value(op.operands[1])
    if lhs is None or rhs is None:
        return None
    out = evaluate(op.name, lhs, rhs)
    return make_dense(rt, np.broadcast_to(out, rt.get_shape()))  # type: ignore[union-attr]


ELEMENTWISE_FOLDS: dict[str, Fold] = {
    "stablehlo.abs": _unary_fold(_Unary(ints=True, floats=True)),
    "stablehlo.cosine": _unary_fold(_FLOAT),
    "chlo.erf": _unary_fold(_FLOAT),
    "stablehlo.exponential": _unary_fold(_FLOAT),
    "stablehlo.log": _unary_fold(_Unary(ints=False, floats=True, domain=_not_nonpositive)),
    "stablehlo.logistic": _unary_fold(_FLOAT),
    "stablehlo.negate": _unary_fold(_Unary(ints=True, floats=True)),
    "stablehlo.not": _unary_fold(_Unary(ints=True, floats=False)),
    "stablehlo.round_nearest_afz": _unary_fold(_FLOAT),
    "stablehlo.round_nearest_even": _unary_fold(_FLOAT),
    "stablehlo.rsqrt": _unary_fold(_Unary(ints=False, floats=True, domain=_not_nonpositive)),
    "stablehlo.sine": _unary_fold(_FLOAT),
    "stablehlo.sqrt": _unary_fold(_Unary(ints=False, floats=True, domain=_not_negative)),
    "stablehlo.tan": _unary_fold(_FLOAT),
    "stablehlo.tanh": _unary_fold(_FLOAT),
    "stablehlo.xor": _fold_xor,
}
"""Entries of the one fold table (shape_folder.FOLDS) that only the aggressive folder applies."""
