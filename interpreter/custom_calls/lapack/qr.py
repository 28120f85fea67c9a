"""QR factorization (`jnp.linalg.qr`): `lapack_{s,d,c,z}geqrf_ffi` and `lapack_{s,d}orgqr_ffi` /
`lapack_{c,z}ungqr_ffi`.

geqrf: operand the `m x n` matrices; results `R` above the diagonal with the Householder vectors below
it (as `?geqrf` leaves them) and `tau` (`min(m, n)` scalar factors).
orgqr/ungqr: operands the reflectors (`m x n`) and `tau` (`k` factors); result the first `n` columns of
`Q = H(1) ... H(k)`."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    lapack_routine,
    operand,
    results,
)

from stablehlo_py.errors import InterpreterError


def geqrf(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    m, n = a.shape[-2:]
    out = a.copy()
    tau = np.zeros((*a.shape[:-2], min(m, n)), dtype)
    fn = lapack_routine("geqrf", dtype)
    for idx in batch_indices(a) if m and n else ():
        qr, tau[idx], _work, _info = fn(a[idx])
        out[idx] = qr
    return results(ctx, [(out, MATRIX), (tau, VECTOR)])


def orgqr(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    tau = operand(ctx, 1, VECTOR, dtype)
    m, n = a.shape[-2:]
    k = tau.shape[-1]
    if tau.shape[:-1] != a.shape[:-2] or k > min(m, n) or m < n:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: needs m x n reflectors with m >= n and at most n factors per "
            f"batch, got operand shapes {list(a.shape)} and {list(tau.shape)}"
        )
    out = a.copy()
    fn = lapack_routine("ungqr" if dtype.kind == "c" else "orgqr", dtype)
    for idx in batch_indices(a) if n else ():
        q, _work, _info = fn(a[idx], tau[idx])
        out[idx] = q
    return results(ctx, [(out, MATRIX)])


TARGETS = {**bind_targets(geqrf, "geqrf"), **bind_targets(orgqr, "orgqr", "ungqr")}
