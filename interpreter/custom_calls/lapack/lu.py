"""LU factorization with partial pivoting (`jax.scipy.linalg.lu`, `lu_factor`, `jnp.linalg.inv`,
`solve`, `det`, `slogdet`, `expm`): `lapack_{s,d,c,z}getrf_ffi`.

Operand: the `m x n` matrices.  Results: `L` (unit, below the diagonal) and `U` in one matrix, the
pivots (`min(m, n)` int32 row indices, 1-based as LAPACK returns them; JAX subtracts 1), `info` (0, or
the 1-based index of the first zero pivot: the factorization is complete but `U` is singular)."""

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
    operand,
    results,
)


def getrf(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    m, n = a.shape[-2:]
    out = a.copy()
    pivots = np.zeros((*a.shape[:-2], min(m, n)), np.int32)
    info = info_array(a)
    fn = lapack_routine("getrf", dtype)
    for idx in batch_indices(a):
        lu, piv, info[idx] = fn(a[idx])
        out[idx] = lu
        pivots[idx] = (
            piv + 1
        )  # scipy's wrapper makes LAPACK's 1-based pivots 0-based; the kernel does not
    return results(ctx, [(out, MATRIX), (pivots, VECTOR), (info, VECTOR)])


TARGETS = bind_targets(getrf, "getrf")
