"""General eigendecomposition (`jnp.linalg.eig`, `eigvals`): `lapack_{s,d,c,z}geev_ffi`.

Operand: the square matrices.  Results for real input: the real and imaginary parts of the eigenvalues,
the left and right eigenvectors as complex columns (JAX's kernel unpacks LAPACK's packed conjugate
pairs: columns j, j+1 of a pair become `v_j +- i v_{j+1}`), `info`; for complex input: the eigenvalues,
left and right eigenvectors, `info`.  Vectors are unit-norm with the largest component real (LAPACK's
normalization).  Attributes `compute_left`, `compute_right`: 'V' or 'N' (vectors not asked for are zeros
here; XLA leaves them unwritten).  As in JAX's kernel, a matrix with a NaN or infinity is not handed to
LAPACK: its `info` is -4 (its outputs NaN here, unwritten in XLA; JAX replaces them by NaN)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    VECTOR,
    batch_indices,
    bind_targets,
    char_attr,
    complex_dtype,
    info_array,
    lapack_routine,
    results,
    square_matrices,
)


def unpack_eigenvectors(wi: np.ndarray, packed: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """LAPACK's real packing of complex eigenvector pairs, as complex columns."""
    out = packed.astype(dtype)
    j = 0
    n = wi.shape[0]
    while j < n:
        if wi[j] != 0 and j + 1 < n:
            re, im = packed[:, j], packed[:, j + 1]
            out[:, j] = re + 1j * im
            out[:, j + 1] = re - 1j * im
            j += 2
        else:
            j += 1
    return out


def eigen_batches(
    a: np.ndarray, dtype: np.dtype, left: bool, right: bool, *, packed: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`?geev` on each matrix of `a`: eigenvalues (complex), left and right eigenvectors, `info`.
    The vectors are complex columns, or for real input with `packed` LAPACK's real packing of
    conjugate pairs (as cuSOLVER's `geev` leaves them).  Vectors not asked for are zeros; a matrix
    with a NaN or infinity is not handed to LAPACK: `info` -4, every output NaN (JAX's kernels)."""
    cdtype = complex_dtype(dtype)
    real = dtype.kind == "f"
    vdtype = dtype if packed and real else cdtype
    w = np.zeros(a.shape[:-1], cdtype)
    vl = np.zeros(a.shape, vdtype)
    vr = np.zeros(a.shape, vdtype)
    info = info_array(a)
    fn = lapack_routine("geev", dtype)
    for idx in batch_indices(a):
        if not np.all(np.isfinite(a[idx])):
            info[idx] = -4
            w[idx] = vl[idx] = vr[idx] = np.nan
            continue
        if real:
            wr, wi, vl_i, vr_i, info[idx] = fn(a[idx], compute_vl=int(left), compute_vr=int(right))
            w[idx] = wr + 1j * wi
            if info[idx] == 0:
                if left:
                    vl[idx] = vl_i if packed else unpack_eigenvectors(wi, vl_i, cdtype)
                if right:
                    vr[idx] = vr_i if packed else unpack_eigenvectors(wi, vr_i, cdtype)
        else:
            w[idx], vl_i, vr_i, info[idx] = fn(a[idx], compute_vl=int(left), compute_vr=int(right))
            if left:
                vl[idx] = vl_i
            if right:
                vr[idx] = vr_i
    return w, vl, vr, info


def geev(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    left = char_attr(ctx, "compute_left", "VN") == "V"
    right = char_attr(ctx, "compute_right", "VN") == "V"
    w, vl, vr, info = eigen_batches(a, dtype, left, right)
    values = (
        [(w, VECTOR)]
        if dtype.kind == "c"
        else [(w.real.astype(dtype), VECTOR), (w.imag.astype(dtype), VECTOR)]
    )
    return results(ctx, [*values, (vl, MATRIX), (vr, MATRIX), (info, VECTOR)])


TARGETS = bind_targets(geev, "geev")
