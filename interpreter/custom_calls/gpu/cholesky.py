"""`cusolver_potrf_ffi` / `hipsolver_potrf_ffi`: Cholesky factorization (`jnp.linalg.cholesky` for
CUDA and ROCm, jax >= 0.8; before, the GPU lowering was `stablehlo.cholesky`).

Operand: the matrices.  Results: the factor (alias of the operand; the `lower` triangle written, the
other left as the input had it), `info` (0, or the order of the leading minor that is not positive
definite; JAX puts NaN where it is not 0).  Attribute: `lower` (bool)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import ffi_form, flag, on_lapack
from stablehlo_py.interpreter.custom_calls.lapack.cholesky import potrf


def gpu_potrf(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, potrf, {"uplo": "L" if flag(ctx, "lower") else "U"})


TARGETS = {"solver_potrf_ffi": (gpu_potrf, ffi_form("0.8.0"))}
