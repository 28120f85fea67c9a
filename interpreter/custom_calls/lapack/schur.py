"""Schur decomposition (`jax.scipy.linalg.schur`): `lapack_{s,d,c,z}gees_ffi`.

Operand: the square matrices.  Results for real input: the (quasi-triangular) Schur form `T`, the Schur
vectors `Z` (`A = Z T Z^T`), the real and imaginary parts of the eigenvalues, the number of selected
eigenvalues (always 0: JAX passes no selection), `info`; for complex input the eigenvalues are one
complex result.  Attributes: `mode` ('V': compute `Z`; 'N': `Z` is zeros here, unwritten in XLA), `sort`
('N'; 'S' is refused as JAX's kernel refuses it: JAX has no way to pass the selection function)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    char_attr,
    info_array,
    lapack_routine,
    results,
    square_matrices,
)

from stablehlo_py.errors import NotSupportedError


def _no_selection(*_args: Any) -> int:
    return 0


def gees(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    compute_v = char_attr(ctx, "mode", "VN") == "V"
    if char_attr(ctx, "sort", "NS") != "N":
        raise NotSupportedError(
            f"custom_call @{ctx.target_name}: sort 'S' (ordering eigenvalues on the diagonal) is not "
            "supported, as in JAX's CPU kernel (no selection function reaches the kernel)"
        )
    real = dtype.kind == "f"
    t = a.copy()
    vs = np.zeros_like(a)
    w = np.zeros(a.shape[:-1], dtype)
    wi = np.zeros(a.shape[:-1], dtype)
    sdim = info_array(a)
    info = info_array(a)
    fn = lapack_routine("gees", dtype)
    for idx in batch_indices(a):
        if real:
            t[idx], sdim[idx], w[idx], wi[idx], vs_i, _work, info[idx] = fn(
                _no_selection, a[idx], compute_v=int(compute_v), sort_t=0
            )
        else:
            t[idx], sdim[idx], w[idx], vs_i, _work, info[idx] = fn(
                _no_selection, a[idx], compute_v=int(compute_v), sort_t=0
            )
        if compute_v:
            vs[idx] = vs_i
    values = [(w, VECTOR), (wi, VECTOR)] if real else [(w, VECTOR)]
    return results(ctx, [(t, MATRIX), (vs, MATRIX), *values, (sdim, VECTOR), (info, VECTOR)])


TARGETS = bind_targets(gees, "gees")
