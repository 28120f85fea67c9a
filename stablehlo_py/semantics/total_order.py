"""The spec's total order on element values as integer keys (sort's and compare's TOTALORDER).

Below `regions` and `reduction`, which both use it."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._common import totalorder_key
from ._element_kinds import is_bool, is_float, is_integer


def total_order_key(x: ArrayLike) -> np.ndarray:
    """Integer keys whose natural order is the spec's total order on ``x``'s elements.

    Floats: ``-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN`` (``_common.totalorder_key``, the
    one rule, which elementwise ``compare`` TOTALORDER also uses); integers and booleans: their
    value. Keys are int64 (uint64 for ``ui64``). Complex numbers have no such key.
    """
    arr = np.asarray(x)
    dt = arr.dtype
    if is_bool(dt):
        return arr.astype(np.int64)
    if is_integer(dt):
        return arr if dt == np.uint64 else arr.astype(np.int64)
    if is_float(dt):
        return totalorder_key(arr)  # the one rule (elementwise compare TOTALORDER uses it too)
    raise TypeError(f"no total-order key for element type {dt}")
