"""`cusolver_geqrf_ffi` / `hipsolver_geqrf_ffi` (Householder QR: `jnp.linalg.qr`),
`cusolver_orgqr_ffi` / `hipsolver_orgqr_ffi` (Q from the reflectors), `cusolver_ormqr_ffi` /
`hipsolver_ormqr_ffi` (applying Q: `jax.scipy.linalg.qr_multiply`, `jax.lax.linalg.ormqr`) and
`cuhybrid_geqp3` / `hiphybrid_geqp3` (QR with column pivoting: `jax.scipy.linalg.qr(pivoting=True)`).

geqrf: operand the matrices; results the packed R and reflectors (alias), `tau`.  No `info`.
orgqr: operands the reflectors and `tau`; result Q (alias of operand #0).  No attribute.
ormqr: operands the reflectors, `tau` (k factors: the first k columns are the reflectors) and C;
result `op(Q) C` (`left = true`) or `C op(Q)` (alias of C), `op(Q)` = Q^T (real) / Q^H (complex)
when `transpose = true` (cuSOLVER's `CUBLAS_OP_T` / `CUBLAS_OP_C`), as LAPACK's `?ormqr` / `?unmqr`.
hybrid_geqp3: JAX's "hybrid" kernel copies the matrices to the host and runs LAPACK's `?geqp3`
(MAGMA's for large matrices with `magma` = "on"/"auto"): operands the matrices and `jpvt` (i32,
zeros: every column free); results the reflectors and R, the pivots (1-based), `tau`.  Attribute
`magma` (string).

ormqr and the hybrid geqp3 are not in JAX's export stable list (an export needs
`DisabledSafetyCheck.custom_call(...)`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import (
    NOT_STABLE,
    ffi_form,
    flag,
    magma,
    on_lapack,
)
from stablehlo_py.interpreter.custom_calls.lapack.qr import geqp3, geqrf, ormqr, orgqr

def gpu_geqrf(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, geqrf)


def gpu_orgqr(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, orgqr)


def gpu_ormqr(ctx: Any) -> list[np.ndarray]:
    values = {"left": flag(ctx, "left"), "transpose": flag(ctx, "transpose")}
    return on_lapack(ctx, ormqr, values=values)


def hybrid_geqp3(ctx: Any) -> list[np.ndarray]:
    magma(ctx)
    return on_lapack(ctx, geqp3)


TARGETS = {
    "solver_geqrf_ffi": (gpu_geqrf, ffi_form("0.4.35")),
    "solver_orgqr_ffi": (gpu_orgqr, ffi_form("0.4.35")),
    "solver_ormqr_ffi": (gpu_ormqr, ffi_form("0.10.0") + "; a, tau, C -> C; left, transpose" + NOT_STABLE),
    "hybrid_geqp3": (hybrid_geqp3, ffi_form("0.5.1") + "; a, jpvt -> a, jpvt, tau; magma" + NOT_STABLE),
}
