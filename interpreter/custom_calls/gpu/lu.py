"""`cusolver_getrf_ffi` / `hipsolver_getrf_ffi` (LU with partial pivoting: `jax.scipy.linalg.lu`,
`lu_factor`, `jnp.linalg.solve`, `det`, `inv`, ...) and `cu_lu_pivots_to_permutation` /
`hip_lu_pivots_to_permutation`.

getrf: operand the matrices; results the packed factors (alias), the pivots (1-based, as LAPACK's
and cuSOLVER's; JAX subtracts 1 after the call), `info`.  No attribute.

lu_pivots_to_permutation: operand the pivots `i32[..., k]` (0-based row swaps, applied in order);
result the permutation `i32[..., m]` they make of `0..m-1` (m from the result type: JAX drops its
`permutation_size` parameter from the call, `linalg.py` `_lu_pivots_to_permutation_gpu_lowering`).
No attribute in the current form (jax >= 0.4.32: an empty dictionary)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import ffi_form, on_lapack
from stablehlo_py.interpreter.custom_calls.lapack.lu import getrf

from stablehlo_py.errors import InterpreterError


PIVOTS_FORM = "typed FFI, an empty mhlo.backend_config (jax >= 0.4.32)"


def gpu_getrf(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, getrf)


def lu_pivots_to_permutation(ctx: Any) -> list[np.ndarray]:
    if len(ctx.operands) != 1 or len(ctx.result_types) != 1:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes the pivots and gives the permutation: one operand "
            f"and one result, got {len(ctx.operands)} and {len(ctx.result_types)}"
        )
    pivots = np.asarray(ctx.operands[0])
    shape = [int(d) for d in ctx.result_types[0].get_shape()]
    if pivots.dtype != np.int32 or pivots.ndim < 1 or list(pivots.shape[:-1]) != shape[:-1]:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: pivots must be i32[..., k] with the permutation's "
            f"batch dimensions, got {pivots.dtype}{list(pivots.shape)} for a result of shape {shape}"
        )
    return [permutation_of(pivots, shape[-1])]


def permutation_of(pivots: np.ndarray, m: int) -> np.ndarray:
    """The permutation of `0..m-1` that the 0-based row swaps `pivots` (`[..., k]`, applied in
    order) make, per batch.  A pivot out of range is skipped (the kernel does not write one)."""
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), (*pivots.shape[:-1], m)).copy()
    for idx in np.ndindex(*pivots.shape[:-1]):
        row = perm[idx]
        for i, p in enumerate(pivots[idx][: min(m, pivots.shape[-1])]):
            if 0 <= p < m:
                row[i], row[p] = row[p], row[i]
    return perm


TARGETS = {"solver_getrf_ffi": (gpu_getrf, ffi_form("0.4.34"))}
"""(`cu/hip_lu_pivots_to_permutation` is registered by `legacy_pivots.py`, with its older forms.)"""
