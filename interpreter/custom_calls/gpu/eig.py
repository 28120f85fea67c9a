"""General (non-symmetric) eigendecomposition on the GPU (`jnp.linalg.eig`, `eigvals`):
`cuhybrid_eig_real` / `cuhybrid_eig_comp` and `hiphybrid_eig_real` / `hiphybrid_eig_comp` (JAX's
default), and `cusolver_geev_ffi` (CUDA, chosen by JAX only when it knows at trace time that
cuSOLVER is 11.7.1 or newer, which an export on a machine without a GPU never does).  None is in
JAX's export stable list.

hybrid_eig_real / _comp: JAX's "hybrid" kernel copies the matrices to the host and runs LAPACK's
`?geev` (MAGMA's for 2048 columns or more with `magma` = "on"/"auto"), exactly as the CPU kernel
`lapack_?geev_ffi`: results for real input `wr`, `wi`, the left and right eigenvectors as complex
columns (LAPACK's packed conjugate pairs unpacked), `info`; for complex input `w`, `vl`, `vr`,
`info`.  A matrix with a NaN or infinity is not handed to LAPACK (`info` = -4).  Attributes
`magma` (string), `left`, `right` (bools; vectors not asked for are zeros here, unwritten on the
device).
geev: results the destroyed input (returned unchanged: JAX discards it), the eigenvalues `w`
(complex), `vl`, `vr`, `info`; for real input the vectors are real, in LAPACK's packing (columns
j, j+1 of a conjugate pair hold the real and imaginary parts; JAX unpacks them after the call).
cuSOLVER computes no left eigenvectors (`left = true` is refused, as JAX refuses it).

cuSOLVER's `Xgeev` normalizes as LAPACK does (unit 2-norm, largest component real), so LAPACK's
`?geev` gives its eigenvectors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import (
    NOT_STABLE,
    ffi_form,
    flag,
    magma,
    on_lapack,
    operand_dtype,
)
from stablehlo_py.interpreter.custom_calls.lapack.common import MATRIX, VECTOR, results, square_matrices
from stablehlo_py.interpreter.custom_calls.lapack.eig import eigen_batches, geev

from stablehlo_py.errors import InterpreterError


SIDES = {"compute_left": "left", "compute_right": "right"}
"""LAPACK kernel's attribute -> the GPU kernel's."""


def _hybrid_eig(kind: str) -> Callable[[Any], list[np.ndarray]]:
    def hybrid_eig(ctx: Any) -> list[np.ndarray]:
        dtype = operand_dtype(ctx)
        if (dtype.kind == "c") != (kind == "comp"):
            raise InterpreterError(
                f"custom_call @{ctx.target_name} works on "
                f"{'complex64 or complex128' if kind == 'comp' else 'f32 or f64'} matrices, got "
                f"{dtype} (JAX calls hybrid_eig_{'real' if kind == 'comp' else 'comp'} for those)"
            )
        magma(ctx)
        chars = {side: "V" if flag(ctx, name) else "N" for side, name in SIDES.items()}
        return on_lapack(ctx, geev, chars)

    return hybrid_eig


def cusolver_geev(ctx: Any) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    if flag(ctx, "left"):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: left = true, but cuSOLVER's geev computes no left "
            "eigenvectors (JAX refuses to ask for them; its hybrid_eig targets compute them)"
        )
    a = square_matrices(ctx, dtype)
    w, vl, vr, info = eigen_batches(a, dtype, False, flag(ctx, "right"), packed=True)
    return results(ctx, [(a.copy(), MATRIX), (w, VECTOR), (vl, MATRIX), (vr, MATRIX), (info, VECTOR)])


HYBRID_FORM = ffi_form("0.4.36") + "; magma, left, right"
TARGETS = {
    "hybrid_eig_real": (_hybrid_eig("real"), HYBRID_FORM + "; a -> wr, wi, vl, vr, info" + NOT_STABLE),
    "hybrid_eig_comp": (_hybrid_eig("comp"), HYBRID_FORM + "; a -> w, vl, vr, info" + NOT_STABLE),
}
CUDA_TARGETS = {
    "cusolver_geev_ffi": (
        cusolver_geev,
        ffi_form("0.8.0") + "; a -> a, w, vl, vr (packed when real), info; left, right" + NOT_STABLE,
    ),
}
