"""Symmetric / Hermitian eigendecomposition (`jnp.linalg.eigh`): `lapack_{s,d}syevd_ffi`,
`lapack_{c,z}heevd_ffi` (divide and conquer).

Operand: the matrices (only the `uplo` triangle is read).  Results: the eigenvectors as columns (with
`mode` 'N', what `?syevd` leaves of the matrix), the eigenvalues in ascending order (real for complex
input), `info`.  Attributes: `mode` ('V' or 'N'), `uplo` ('L' or 'U')."""

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
    real_dtype,
    results,
    square_matrices,
    uplo_lower,
)


def syevd(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    compute_v = char_attr(ctx, "mode", "VN") == "V"
    lower = uplo_lower(ctx)
    fn = lapack_routine("heevd" if dtype.kind == "c" else "syevd", dtype)
    out = a.copy()
    w = np.zeros(a.shape[:-1], real_dtype(dtype))
    info = info_array(a)
    for idx in batch_indices(a):
        work = fortran(a[idx])  # ?syevd works in place: with mode 'N' the matrix is what it leaves
        w[idx], v, info[idx] = fn(work, compute_v=int(compute_v), lower=int(lower), overwrite_a=1)
        out[idx] = v if compute_v else work
    return results(ctx, [(out, MATRIX), (w, VECTOR), (info, VECTOR)])


TARGETS = bind_targets(syevd, "syevd", "heevd")
