"""The folds of arith's float binary ops (`arith.addf`/`subf`/`mulf`/`divf`): MLIR's AddFOp/SubFOp/
MulFOp/DivFOp::fold, a neutral right operand (`addf(x, -0)`, `subf(x, +0)`, `mulf(x, 1)`,
`divf(x, 1)` fold to `x`), then constant operands folded with the interpreter's IEEE math
(`passes/patterns/folds/evaluate.py`).

A leaf shared by `canonicalize` (its `FOLDERS`) and `mlir_folds` (the dialect conversion's fold
hooks), so that neither imports the other for it.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import FLOAT_NAME, storage_dtype
from stablehlo_py.passes.drivers.greedy import FoldOutcome, constant_value_of

__all__ = ["NEUTRAL_RIGHT", "fold_float_binary"]


def _float_operand(value: SSAValue) -> Attribute | None:
    owner = value.owner
    if not isinstance(owner, Operation):
        return None
    return constant_value_of(owner)


def _splat_float(attr: Attribute | None) -> float | None:
    if isinstance(attr, FloatAttr):
        return float(attr.value.data)
    if isinstance(attr, DenseIntOrFPElementsAttr) and type(attr.get_element_type()) in FLOAT_NAME:
        v = np.ascontiguousarray(dense_values(attr)).reshape(-1)
        raw = v.view(np.uint8).reshape(v.size, -1)
        if v.size and bool(np.all(raw == raw[:1])):
            return float(v[0])
    return None


_FLOAT_BINARY: dict[str, tuple[float, str]] = {
    "arith.addf": (-0.0, "stablehlo.add"),  # addf(x, -0) -> x
    "arith.subf": (0.0, "stablehlo.subtract"),  # subf(x, +0) -> x
    "arith.mulf": (1.0, "stablehlo.multiply"),  # mulf(x, 1) -> x
    "arith.divf": (1.0, "stablehlo.divide"),  # divf(x, 1) -> x
}
"""arith's float binary ops: their neutral right operand, and the StableHLO op of the same IEEE
math (the one implementation)."""

NEUTRAL_RIGHT: dict[str, float] = {name: n for name, (n, _) in _FLOAT_BINARY.items()}
_ARITH_MATH: dict[str, str] = {name: math for name, (_, math) in _FLOAT_BINARY.items()}


def fold_float_binary(op: Operation) -> FoldOutcome:
    """AddFOp/SubFOp/MulFOp/DivFOp::fold: the neutral right operand, then constFoldBinaryOp."""
    lhs, rhs = op.operands
    rc = _float_operand(rhs)
    neutral = NEUTRAL_RIGHT[op.name]
    splat = _splat_float(rc)
    if splat is not None and splat == neutral and np.signbit(splat) == np.signbit(neutral):
        return [lhs]
    lc = _float_operand(lhs)
    if lc is None or rc is None:
        return None
    from stablehlo_py.passes.patterns.folds.evaluate import evaluate

    t = op.results[0].type
    if isinstance(lc, FloatAttr) and isinstance(rc, FloatAttr):
        dt = storage_dtype(t)
        out = evaluate(
            _ARITH_MATH[op.name], np.array(lc.value.data, dt), np.array(rc.value.data, dt)
        )
        return [FloatAttr(float(out), t)]  # type: ignore[arg-type]
    if (
        isinstance(lc, DenseIntOrFPElementsAttr)
        and isinstance(rc, DenseIntOrFPElementsAttr)
        and isinstance(t, TensorType)
        and all(d >= 0 for d in t.get_shape())
    ):
        out = evaluate(_ARITH_MATH[op.name], dense_values(lc), dense_values(rc))
        return [make_dense(t, np.asarray(out).astype(storage_dtype(t.element_type)))]
    return None
