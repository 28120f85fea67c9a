"""`cu_cholesky_update_ffi` / `hip_cholesky_update_ffi`: rank-1 update of a Cholesky factor
(`jax.lax.linalg.cholesky_update`; JAX lowers it for CUDA only, jax >= 0.4.32, and jaxlib's ROCm
plugin registers the `hip_` name too).  Not in JAX's export stable list.

Operands: the upper-triangular factor R (n x n, f32 or f64; `R^T R = A`) and the vector w (n);
results R' with `R'^T R' = A + w w^T` and what is left of w (aliases of the operands; JAX keeps only
R').  No attribute.  JAX writes the default (row-major) layouts.  The kernel (jaxlib's
`linalg_kernels.cu.cc`) applies one Givens rotation per row k, from `drotg(R[k, k], w[k])`, to
row k of R (columns k..n-1) and to w; the strict lower triangle is not touched.  This is that
computation, in the element type.  JAX's cholesky_update is unbatched: a batch of matrices is
refused (the kernel would update its first matrix again for each one).

The pre-FFI form `cu_cholesky_update` (jax 0.4.29 to 0.4.33; CUDA only) is the same kernel with the
sizes in a packed `CholeskyUpdateDescriptor {LinalgType type (0 f32, 1 f64); int64 matrix_size}` in
`backend_config` (`gpu/legacy_descriptors.py` reads it), checked against the operands."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import NOT_STABLE, ffi_form, operand_dtype
from stablehlo_py.interpreter.custom_calls.gpu.legacy_descriptors import check_fields, descriptor
from stablehlo_py.interpreter.custom_calls.lapack.common import VECTOR, operand, results

from stablehlo_py.errors import InterpreterError


def _rotation(a: Any, b: Any) -> tuple[Any, Any]:
    """cos and sin of the Givens rotation zeroing b against a (the kernel's `drotg`)."""
    if b == 0:
        return a.dtype.type(1), a.dtype.type(0)
    scale = np.fmax(abs(a), abs(b))  # (CUDA's max: the number when one is NaN)
    a, b = a / scale, b / scale
    rh = a.dtype.type(1) / np.hypot(a, b)
    return a * rh, -(b * rh)


def cholesky_update(ctx: Any) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    if dtype.kind != "f" or len(ctx.operands) != 2:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes the factor R and the vector w, f32 or f64; got "
            f"{len(ctx.operands)} operands of element type {dtype}"
        )
    r = operand(ctx, 0, VECTOR, dtype).copy()
    w = operand(ctx, 1, VECTOR, dtype).copy()
    n = r.shape[-1] if r.ndim else 0
    if r.shape != (n, n) or w.shape != (n,):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: needs one square matrix R and a vector w of its "
            f"order (JAX's cholesky_update is unbatched), got shapes {list(r.shape)} and "
            f"{list(w.shape)}"
        )
    for k in range(n):
        c, s = _rotation(r[k, k], w[k])
        row = r[k, k:].copy()
        r[k, k:] = c * row - s * w[k:]
        w[k:] = s * row + c * w[k:]
    return results(ctx, [(r, VECTOR), (w, VECTOR)])


LINALG_TYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1}
"""Element type -> jaxlib's `LinalgType` in the pre-FFI descriptor."""


def cholesky_update_opaque(ctx: Any) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    fields = descriptor(ctx, "cholesky_update")
    order = np.asarray(ctx.operands[0]).shape[-1] if np.ndim(ctx.operands[0]) else 0
    check_fields(ctx, fields, {"type": LINALG_TYPES.get(dtype, -1), "matrix_size": order}, "the operands")
    return cholesky_update(ctx)


TARGETS = {
    "_cholesky_update_ffi": (
        cholesky_update,
        ffi_form("0.4.32") + "; R, w -> R, w; JAX writes only the CUDA name" + NOT_STABLE,
    ),
}
CUDA_TARGETS = {
    "cu_cholesky_update": (
        cholesky_update_opaque,
        "pre-FFI: packed CholeskyUpdateDescriptor {type, matrix_size} in backend_config "
        "(jax 0.4.29 - 0.4.33); R, w -> R, w",
    ),
}
