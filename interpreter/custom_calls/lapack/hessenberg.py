"""Hessenberg reduction (`jax.lax.linalg.hessenberg`, `jax.scipy.linalg.hessenberg`):
`lapack_{s,d,c,z}gehrd_ffi`.

Operand: the square matrices.  Results: the Hessenberg form on and above the first subdiagonal with the
Householder vectors below it (as `?gehrd` leaves them), `tau` (`n - 1` factors), `info`.  Attributes
`low`, `high`: LAPACK's 1-based `ilo`, `ihi` (JAX passes 1 and n)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    info_array,
    int_attr,
    lapack_routine,
    results,
    square_matrices,
)

from stablehlo_py.errors import InterpreterError


def gehrd(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    n = a.shape[-1]
    low, high = int_attr(ctx, "low"), int_attr(ctx, "high")
    if n and not 1 <= low <= high <= n:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: needs 1 <= low <= high <= {n}, got low={low}, high={high}"
        )
    out = a.copy()
    tau = np.zeros((*a.shape[:-2], max(n - 1, 0)), dtype)
    info = info_array(a)
    fn = lapack_routine("gehrd", dtype)
    for idx in batch_indices(a):
        out[idx], tau_i, info[idx] = fn(a[idx], lo=low - 1, hi=high - 1)  # scipy counts from 0
        tau[idx] = tau_i[: n - 1]
    return results(ctx, [(out, MATRIX), (tau, VECTOR), (info, VECTOR)])


TARGETS = bind_targets(gehrd, "gehrd")
