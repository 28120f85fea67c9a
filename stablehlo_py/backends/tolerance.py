"""How close a backend's results must be to the interpreter's, per dtype."""

from __future__ import annotations

import ml_dtypes
import numpy as np


def tolerance(dtype: np.dtype) -> tuple[float, float]:
    """(rtol, atol) for results of ``dtype``: exact for integers and booleans."""
    dtype = np.dtype(dtype)
    if dtype in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)):
        return 2e-2, 2e-2
    if dtype in (np.dtype(np.float64), np.dtype(np.complex128)):
        return 1e-10, 1e-12
    if np.issubdtype(dtype, np.inexact):
        return 2e-4, 2e-5
    return 0.0, 0.0
