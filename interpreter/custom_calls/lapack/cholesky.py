"""`lapack_{s,d,c,z}potrf_ffi`: Cholesky factorization (`jnp.linalg.cholesky`, `cho_factor`).

Operand: the matrices.  Results: the factor (the `uplo` triangle written by `?potrf`, the other triangle
left as the input had it, as LAPACK leaves it), `info` (0, or the order of the leading minor that is not
positive definite).  Attribute: `uplo` ('L' or 'U')."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    info_array,
    lapack_routine,
    results,
    square_matrices,
    uplo_lower,
)


def potrf(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    lower = uplo_lower(ctx)
    fn = lapack_routine("potrf", dtype)
    out = a.copy()
    info = info_array(a)
    for idx in batch_indices(a):
        out[idx], info[idx] = fn(a[idx], lower=int(lower), clean=0)
    return results(ctx, [(out, MATRIX), (info, VECTOR)])


TARGETS = bind_targets(potrf, "potrf")
