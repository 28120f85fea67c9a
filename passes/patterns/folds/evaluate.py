"""The op math of the aggressive folder's folds: the op math the interpreter runs too (one
implementation of each op's math, the neutral `stablehlo_py/semantics`), by op name.

This is the one module of `passes/` the folds evaluate through: a fold decides *whether* upstream
folds an op (element types, domains, limits) and this module computes *what* the op gives on
constant arrays of the element type's storage dtype.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import stablehlo_py.semantics as sem
from stablehlo_py.semantics import data_movement

__all__ = ["ELEMENTWISE", "evaluate", "iota", "reverse", "transpose"]

ELEMENTWISE: dict[str, Callable[..., np.ndarray]] = {
    "stablehlo.abs": sem.abs,
    "stablehlo.cosine": sem.cosine,
    "chlo.erf": sem.chlo.erf,
    "stablehlo.exponential": sem.exponential,
    "stablehlo.log": sem.log,
    "stablehlo.logistic": sem.logistic,
    "stablehlo.negate": sem.negate,
    "stablehlo.not": sem.not_,
    "stablehlo.round_nearest_afz": sem.round_nearest_afz,
    "stablehlo.round_nearest_even": sem.round_nearest_even,
    "stablehlo.rsqrt": sem.rsqrt,
    "stablehlo.sine": sem.sine,
    "stablehlo.sqrt": sem.sqrt,
    "stablehlo.tan": sem.tan,
    "stablehlo.tanh": sem.tanh,
    "stablehlo.xor": sem.xor,
    "stablehlo.add": sem.add,
    "stablehlo.subtract": sem.subtract,
    "stablehlo.multiply": sem.multiply,
    "stablehlo.divide": sem.divide,
    "stablehlo.remainder": sem.remainder,
    "stablehlo.maximum": sem.maximum,
    "stablehlo.minimum": sem.minimum,
}
"""Elementwise ops by name: their semantics on numpy arrays (of the element type's storage dtype)."""


def evaluate(name: str, *operands: np.ndarray) -> np.ndarray:
    """The elementwise op ``name`` on constant operands (broadcast to a common shape)."""
    return np.asarray(ELEMENTWISE[name](*operands))


def iota(dimension: int, shape: Sequence[int], dtype: np.dtype) -> np.ndarray:
    return data_movement.iota(dimension, shape, dtype)


def reverse(operand: np.ndarray, dimensions: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(data_movement.reverse(operand, dimensions))


def transpose(operand: np.ndarray, permutation: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(data_movement.transpose(operand, permutation))
