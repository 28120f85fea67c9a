"""chlo.top_k as a vectorized numpy function.

Upstream decomposes ``chlo.top_k`` into an iota, a stable ``sort`` along the last dimension with a
``GT`` comparator (``TOTALORDER`` for floats) and two slices.  Here: order-preserving integer keys
(IEEE totalOrder for floats), a stable ``argsort`` of their bitwise complement (which reverses the
order without overflow), and ``take_along_axis``.  Ties keep their original order; NaNs sort above
+inf (and -NaN below -inf), as with TOTALORDER.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes as dt
from ._common import arr, compute_int, totalorder_key, unsupported


def _descending_key(x: np.ndarray) -> np.ndarray:
    kind = dt.element_type(x.dtype).kind
    if kind == "float":
        return ~totalorder_key(x)
    if kind == "bool":
        return ~x.astype(np.int8)
    if kind in ("sint", "uint"):
        return ~compute_int(x)
    raise unsupported("chlo.top_k", x.dtype)


def top_k(operand: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    """chlo.top_k: the ``k`` largest entries along the last dimension and their i32 indices.

    Returns ``(values, indices)``; ``k`` larger than the last dimension is clamped to it.
    """
    x = arr(operand)
    if x.ndim == 0:
        raise unsupported("chlo.top_k of a rank-0 tensor", x.dtype)
    k = min(int(k), x.shape[-1])
    order = np.argsort(_descending_key(x), axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(x, order, axis=-1)
    return np.asarray(values), np.asarray(order.astype(np.int32))


__all__ = ["top_k"]
