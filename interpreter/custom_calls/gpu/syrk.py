"""`cusolver_syrk_ffi` / `hipsolver_syrk_ffi`: symmetric rank-k update
(`jax.lax.linalg.symmetric_product`, computing `alpha A A^T + beta C`; JAX lowers it for CUDA only,
jax >= 0.4.32; jaxlib's ROCm plugin registers the `hipsolver_` name too).  Not in JAX's export
stable list.

Operands: `A` (n x k, or k x n with `transpose = true`), `C` (n x n), `alpha`, `beta` (scalars of the
element type); result C updated (alias of operand #1).  Attribute `transpose` (bool).  JAX writes
the default (row-major) layouts, and the kernel hands the buffers to cuBLAS's column-major `?syrk`
with the upper triangle: so in the logical (row-major) matrices only the **lower** triangle, the
diagonal included, becomes `alpha A A^T + beta C` (`alpha A^T A + beta C` with `transpose`); the
strict upper triangle keeps C's values.  As in BLAS, `beta = 0` ignores C's values in the updated
triangle (no NaN from C), and A without columns (k = 0) gives `beta C` there.  Complex matrices are
transposed, not conjugated (syrk, not herk)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import NOT_STABLE, ffi_form, flag, operand_dtype
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    VECTOR,
    blas_routine,
    operand,
    results,
)

from stablehlo_py.errors import InterpreterError


def syrk(ctx: Any) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    if len(ctx.operands) != 4:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes A, C, alpha and beta; got "
            f"{len(ctx.operands)} operands"
        )
    transpose = flag(ctx, "transpose")
    # the buffers as the kernel reads them (row-major), then as cuBLAS sees them (column-major)
    a, c, alpha, beta = (operand(ctx, i, VECTOR, dtype) for i in range(4))
    if a.ndim < 2 or alpha.size != 1 or beta.size != 1:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: A must be a (batch of) matrices and alpha, beta "
            f"scalars, got shapes {list(a.shape)}, {list(alpha.shape)}, {list(beta.shape)}"
        )
    size = a.shape[-1] if transpose else a.shape[-2]
    if c.shape != (*a.shape[:-2], size, size):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: C must have shape {[*a.shape[:-2], size, size]} for "
            f"A of shape {list(a.shape)} (transpose = {str(transpose).lower()}), got {list(c.shape)}"
        )
    fn = blas_routine("syrk", dtype)
    scale, shift = alpha.reshape(()), beta.reshape(())
    out = c.copy()
    for idx in np.ndindex(*a.shape[:-2]):
        if out[idx].size == 0:
            continue
        if a[idx].size == 0:  # k = 0: BLAS's definition, beta C (cuBLAS would refuse its lda = 0)
            updated = shift * c[idx] if shift != 0 else np.zeros_like(c[idx])
            out[idx] = np.where(np.tri(size, dtype=bool), updated, c[idx])
            continue
        # cuBLAS's op: A^T (transpose = false) or A of the column-major view, upper triangle
        c_cm = fn(scale, a[idx].T, beta=shift, c=c[idx].T, trans=0 if transpose else 1, lower=0)
        out[idx] = c_cm.T
    return results(ctx, [(out, VECTOR)])


TARGETS = {
    "solver_syrk_ffi": (
        syrk,
        ffi_form("0.4.32")
        + "; A, C, alpha, beta -> C; transpose; JAX writes only the CUDA name"
        + NOT_STABLE,
    ),
}
