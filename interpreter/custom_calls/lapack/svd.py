"""Singular value decomposition (`jnp.linalg.svd`, `pinv`, `lstsq`, `matrix_rank`, `norm(ord=2)`):
`lapack_{s,d,c,z}gesdd_ffi` (divide and conquer, JAX's default) and `lapack_{s,d,c,z}gesvd_ffi`
(`lax.linalg.svd(..., algorithm=SvdAlgorithm.QR)`), with the same operands, results and attribute.

Operand: the `m x n` matrices.  Results: the matrix as `?gesdd`/`?gesvd` leaves it, the singular values
(descending, real for complex input), `U` (`m x m` with `mode` 'A', `m x min(m,n)` with 'S'), `V^H`
(`n x n` or `min(m,n) x n`), `info`.  Attribute `mode`: 'A', 'S' or 'N' (no vectors: `U` and `V^H` are
zeros here; XLA leaves them unwritten and JAX does not read them).  'O' is refused as JAX's kernel
refuses it."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    char_attr,
    fortran,
    info_array,
    lapack_routine,
    operand,
    real_dtype,
    results,
)

from stablehlo_py.errors import NotSupportedError


def _vector_shapes(ctx: Any, a: np.ndarray, mode: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shapes of `U` and `V^H`: the result types' (JAX sizes them for 'N' as for 'A' or 'S')."""
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    k = min(m, n)
    full = ((*batch, m, m), (*batch, n, n))
    reduced = ((*batch, m, k), (*batch, k, n))
    if mode == "A":
        return full
    if mode == "S":
        return reduced
    declared = tuple(tuple(t.get_shape()) for t in ctx.result_types[2:4])
    return declared if declared in (full, reduced) else full


def gesdd(ctx: Any, *, dtype: np.dtype, routine: str = "gesdd") -> list[np.ndarray]:
    a = operand(ctx, 0, MATRIX, dtype)
    mode = char_attr(ctx, "mode", "ASNO")
    if mode == "O":
        raise NotSupportedError(
            f"custom_call @{ctx.target_name}: mode 'O' (overwrite the input with part of U) is not "
            "supported, as in JAX's CPU kernel"
        )
    m, n = a.shape[-2:]
    u_shape, vt_shape = _vector_shapes(ctx, a, mode)
    out = a.copy()
    s = np.zeros((*a.shape[:-2], min(m, n)), real_dtype(dtype))
    u = np.zeros(u_shape, dtype)
    vt = np.zeros(vt_shape, dtype)
    info = info_array(a)
    fn = lapack_routine(routine, dtype)
    compute_uv = mode != "N"
    for idx in batch_indices(a):
        work = fortran(a[idx])  # LAPACK destroys the matrix: the first result is what it leaves
        u_i, s[idx], vt_i, info[idx] = fn(
            work, compute_uv=int(compute_uv), full_matrices=int(mode == "A"), overwrite_a=1
        )
        out[idx] = work
        if compute_uv:
            u[idx], vt[idx] = u_i, vt_i
    return results(ctx, [(out, MATRIX), (s, VECTOR), (u, MATRIX), (vt, MATRIX), (info, VECTOR)])


def gesvd(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    return gesdd(ctx, dtype=dtype, routine="gesvd")


TARGETS = {**bind_targets(gesdd, "gesdd"), **bind_targets(gesvd, "gesvd")}
