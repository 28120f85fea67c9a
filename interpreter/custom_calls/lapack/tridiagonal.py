"""Tridiagonal matrices: the reduction of a symmetric / Hermitian matrix (`jax.lax.linalg.tridiagonal`):
`lapack_{s,d}sytrd_ffi`, `lapack_{c,z}hetrd_ffi`; and the tridiagonal solve
(`jax.lax.linalg.tridiagonal_solve`): `lapack_{s,d,c,z}gtsv_ffi`.

sytrd/hetrd: operand the matrices (the `uplo` triangle is read); results the matrix with the
reflectors (as `?sytrd` leaves it), the diagonal `d` (real), the off-diagonal `e` (real), `tau`,
`info`.  Attribute `uplo`.
gtsv: operands `dl`, `d`, `du` (each `n` long: `dl[0]` and `du[n-1]` are not part of the matrix, as JAX
passes them) and the right-hand sides `B` (`n x nrhs`); results the three diagonals as `?gtsv` leaves
them, the solution `X`, `info` (0, or the 1-based index of a zero pivot)."""

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
    real_dtype,
    results,
    square_matrices,
    uplo_lower,
)

from stablehlo_py.errors import InterpreterError


def sytrd(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    lower = uplo_lower(ctx)
    n = a.shape[-1]
    batch = a.shape[:-2]
    out = a.copy()
    d = np.zeros((*batch, n), real_dtype(dtype))
    e = np.zeros((*batch, max(n - 1, 0)), real_dtype(dtype))
    tau = np.zeros((*batch, max(n - 1, 0)), dtype)
    info = info_array(a)
    fn = lapack_routine("hetrd" if dtype.kind == "c" else "sytrd", dtype)
    for idx in batch_indices(a):
        out[idx], d[idx], e[idx], tau[idx], info[idx] = fn(a[idx], lower=int(lower))
    return results(ctx, [(out, MATRIX), (d, VECTOR), (e, VECTOR), (tau, VECTOR), (info, VECTOR)])


def tridiagonal_system(ctx: Any, dtype: np.dtype) -> tuple[np.ndarray, ...]:
    """Copies of the operands `dl`, `d`, `du`, `B` of a tridiagonal solve (as the kernel reads
    them), checked: the diagonals have `B`'s shape without its last dimension."""
    dl, d, du = (operand(ctx, i, VECTOR, dtype).copy() for i in range(3))
    b = operand(ctx, 3, MATRIX, dtype).copy()
    if not (dl.shape == d.shape == du.shape == b.shape[:-1]):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: the three diagonals must have shape {list(b.shape[:-1])} (the "
            f"right-hand sides' without their last dimension), got {list(dl.shape)}, {list(d.shape)}, "
            f"{list(du.shape)}"
        )
    return dl, d, du, b


def gtsv(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    dl, d, du, b = tridiagonal_system(ctx, dtype)
    info = info_array(b)
    fn = lapack_routine("gtsv", dtype)
    for idx in batch_indices(b):
        du2, d[idx], du_i, b[idx], info[idx] = fn(dl[idx][1:], d[idx], du[idx][:-1], b[idx])
        dl[idx][1:] = du2  # LAPACK leaves U's second superdiagonal in DL
        du[idx][:-1] = du_i
    return results(ctx, [(dl, VECTOR), (d, VECTOR), (du, VECTOR), (b, MATRIX), (info, VECTOR)])


TARGETS = {**bind_targets(sytrd, "sytrd", "hetrd"), **bind_targets(gtsv, "gtsv")}
