"""Tridiagonal matrices on the GPU: `cusolver_sytrd_ffi` / `hipsolver_sytrd_ffi` (the reduction of
a symmetric / Hermitian matrix, `jax.lax.linalg.tridiagonal`) and `cusparse_gtsv2_ffi` /
`hipsparse_gtsv2_ffi` (`jax.lax.linalg.tridiagonal_solve` for m >= 3; smaller systems JAX lowers
to StableHLO).

sytrd: as LAPACK's (`lapack/tridiagonal.py`): operand the matrices; results the matrix with the
reflectors, `d`, `e` (real), `tau`, `info`.  Attribute `lower` (bool) where LAPACK's takes `uplo`.
gtsv2: operands `dl`, `d`, `du` (each m long: `dl[0]` and `du[m-1]` are outside the matrix) and the
right-hand sides `B` (m x n, column-major); one result, the solution (alias of `B`).  cuSPARSE's
`gtsv2` solves with partial pivoting, as LAPACK's `?gtsv`, which computes it here.  No `info`: a
singular system gives what the elimination gives (infinities or NaN).
cu_tridiagonal_solve_perturbed / hip_tridiagonal_solve_perturbed (`tridiagonal_solve(...,
perturb_singular=True)`, any m; jax >= 0.10.0; not in JAX's export stable list): operands as gtsv2's,
one result X (not an alias).  The kernel runs JAX's own elimination, the same code as the CPU's
`tridiagonal_solve_perturbed_ffi` (`lapack/tridiagonal.py` says what it does), one system per
thread; it is computed here as jaxlib's CPU build rounds it (the device compiler may fuse other
multiply-adds: the last bits can differ from a GPU's)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import (
    NOT_STABLE,
    ffi_form,
    flag,
    on_lapack,
    operand_dtype,
)
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    batch_indices,
    lapack_routine,
    results,
)
from stablehlo_py.interpreter.custom_calls.lapack.tridiagonal import (
    sytrd,
    tridiagonal_solve_perturbed,
    tridiagonal_system,
)

from stablehlo_py.errors import InterpreterError


def gpu_sytrd(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, sytrd, {"uplo": "L" if flag(ctx, "lower") else "U"})


def gtsv2(ctx: Any) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    if len(ctx.operands) != 4:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes dl, d, du and B; got {len(ctx.operands)} operands"
        )
    dl, d, du, b = tridiagonal_system(ctx, dtype)
    fn = lapack_routine("gtsv", dtype)
    with np.errstate(all="ignore"):
        for idx in batch_indices(b):
            _, _, _, b[idx], _ = fn(dl[idx][1:].copy(), d[idx].copy(), du[idx][:-1].copy(), b[idx])
    return results(ctx, [(b, MATRIX)])


TARGETS = {
    "solver_sytrd_ffi": (gpu_sytrd, ffi_form("0.5.0")),
    "_tridiagonal_solve_perturbed": (
        tridiagonal_solve_perturbed,
        ffi_form("0.10.0") + "; dl, d, du, B -> X" + NOT_STABLE,
    ),
}
SPARSE_TARGETS = {"sparse_gtsv2_ffi": (gtsv2, ffi_form("0.6.2") + "; dl, d, du, B -> X")}
