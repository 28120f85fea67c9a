"""QR factorization (`jnp.linalg.qr`): `lapack_{s,d,c,z}geqrf_ffi` and `lapack_{s,d}orgqr_ffi` /
`lapack_{c,z}ungqr_ffi`; with column pivoting (`jax.scipy.linalg.qr(pivoting=True)`):
`lapack_{s,d,c,z}geqp3_ffi`; applying `Q` (`jax.lax.linalg.ormqr`): `lapack_{s,d}ormqr_ffi` /
`lapack_{c,z}unmqr_ffi`.

geqrf: operand the `m x n` matrices; results `R` above the diagonal with the Householder vectors below
it (as `?geqrf` leaves them) and `tau` (`min(m, n)` scalar factors).
orgqr/ungqr: operands the reflectors (`m x n`) and `tau` (`k` factors); result the first `n` columns of
`Q = H(1) ... H(k)`.
geqp3: operands the matrices and `jpvt` (int32, all zeros: every column free, as JAX passes it);
results the reflectors and `R` as geqrf's, the column permutation (1-based), `tau`.
ormqr/unmqr: operands the reflectors, `tau`, `C`; result `op(Q) C` (`left` true) or `C op(Q)`, with
`op(Q)` = `Q^T` / `Q^H` when `transpose` is true."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    bool_attr,
    lapack_routine,
    operand,
    results,
)

from stablehlo_py.errors import InterpreterError, NotSupportedError


def geqrf(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    m, n = a.shape[-2:]
    out = a.copy()
    tau = np.zeros((*a.shape[:-2], min(m, n)), dtype)
    fn = lapack_routine("geqrf", dtype)
    for idx in batch_indices(a):
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
    for idx in batch_indices(a):
        q, _work, _info = fn(a[idx], tau[idx])
        out[idx] = q
    return results(ctx, [(out, MATRIX)])


def geqp3(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    jpvt = operand(ctx, 1, VECTOR, np.dtype(np.int32))
    m, n = a.shape[-2:]
    if jpvt.shape != (*a.shape[:-2], n):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: jpvt must have shape {[*a.shape[:-2], n]}, got {list(jpvt.shape)}"
        )
    if jpvt.any():
        raise NotSupportedError(
            f"custom_call @{ctx.target_name}: columns fixed in front (non-zero jpvt entries) are not supported; "
            "JAX passes jpvt as zeros (every column free)"
        )
    out = a.copy()
    perm = jpvt.copy()
    tau = np.zeros((*a.shape[:-2], min(m, n)), dtype)
    fn = lapack_routine("geqp3", dtype)
    for idx in batch_indices(a):
        out[idx], perm[idx], tau[idx], _work, _info = fn(
            a[idx]
        )  # scipy keeps LAPACK's 1-based jpvt
    return results(ctx, [(out, MATRIX), (perm, VECTOR), (tau, VECTOR)])


def ormqr(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    tau = operand(ctx, 1, VECTOR, dtype)
    c = operand(ctx, 2, MATRIX, dtype)
    left = bool_attr(ctx, "left")
    transpose = bool_attr(ctx, "transpose")
    order = c.shape[-2] if left else c.shape[-1]
    k = tau.shape[-1]
    if (
        a.shape[-2] != order
        or k > min(a.shape[-2:])
        or a.shape[:-2] != c.shape[:-2]
        or tau.shape[:-1] != c.shape[:-2]
    ):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: reflectors {list(a.shape)} and tau {list(tau.shape)} do not "
            f"apply to C {list(c.shape)} from the {'left' if left else 'right'}"
        )
    side = "L" if left else "R"
    trans = ("C" if dtype.kind == "c" else "T") if transpose else "N"
    fn = lapack_routine("unmqr" if dtype.kind == "c" else "ormqr", dtype)
    out = c.copy()
    for idx in batch_indices(c) if k else ():
        reflectors = a[idx][:, :k]
        _, work, _ = fn(
            side, trans, reflectors, tau[idx], c[idx], -1
        )  # the optimal workspace, as JAX's kernel
        out[idx], _work, _info = fn(
            side, trans, reflectors, tau[idx], c[idx], max(1, int(work[0].real))
        )
    return results(ctx, [(out, MATRIX)])


TARGETS = {
    **bind_targets(geqrf, "geqrf"),
    **bind_targets(orgqr, "orgqr", "ungqr"),
    **bind_targets(geqp3, "geqp3"),
    **bind_targets(ormqr, "ormqr", "unmqr"),
}
