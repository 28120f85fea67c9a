"""JAX's CUDA and ROCm linear-algebra targets (cuSOLVER / hipSOLVER), run on the LAPACK kernels
(`common.py` says why that is exact): one module per decomposition."""

from __future__ import annotations

from stablehlo_py.interpreter.custom_calls.gpu import (
    cholesky,
    cholesky_update,
    eig,
    eigh,
    legacy,
    lu,
    qr,
    svd,
    syrk,
    tridiagonal,
)
from stablehlo_py.interpreter.custom_calls.gpu.common import family

GPU_FAMILIES = family(
    {
        **cholesky.TARGETS, **lu.TARGETS, **qr.TARGETS, **eigh.TARGETS, **svd.TARGETS,
        **tridiagonal.TARGETS, **tridiagonal.SPARSE_TARGETS,
        **eig.TARGETS, **syrk.TARGETS, **cholesky_update.TARGETS,
    }
) + tuple(({name: fn}, frozenset({"rocm"}), (form,)) for name, (fn, form) in svd.ROCM_TARGETS.items())
GPU_FAMILIES += tuple(
    ({name: fn}, frozenset({"cuda"}), (form,))
    for name, (fn, form) in {**eig.CUDA_TARGETS, **cholesky_update.CUDA_TARGETS}.items()
)
GPU_FAMILIES += legacy.LEGACY_FAMILIES
"""(targets, platforms, forms) for `builtins.load`: `cusolver_*` and `cu_*` for CUDA, `hipsolver_*`
and `hip_*` for ROCm; the pre-FFI forms from `legacy.py`."""

__all__ = ["GPU_FAMILIES"]
