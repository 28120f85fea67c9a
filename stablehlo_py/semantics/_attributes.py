"""Attribute-like arguments of the semantics functions, normalized once: integer lists, strides
and dilations that default to ones, and ``[low, high]`` padding pairs that default to zeros."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def ints(values: ArrayLike | Sequence[Any]) -> list[int]:
    """``values`` (any integer array or sequence, of any shape) as a flat list of python ints."""
    return [int(v) for v in np.asarray(values, dtype=np.int64).reshape(-1)]


def ints_or_ones(values: ArrayLike | Sequence[Any] | None, rank: int) -> list[int]:
    """Strides or dilations: ``values`` as ints, or ``rank`` ones when they are not given."""
    return ints(values) if values is not None else [1] * rank


def padding_pairs(padding: ArrayLike | None, rank: int) -> np.ndarray:
    """``padding`` as a ``(rank, 2)`` int64 array of ``[low, high]`` pairs; zeros when not given."""
    if padding is None:
        return np.zeros((rank, 2), dtype=np.int64)
    return np.asarray(padding, dtype=np.int64).reshape(rank, 2)
