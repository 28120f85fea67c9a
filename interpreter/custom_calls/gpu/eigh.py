"""`cusolver_syevd_ffi` / `hipsolver_syevd_ffi`: symmetric / Hermitian eigendecomposition
(`jnp.linalg.eigh`).

Operand: the matrices (the `lower` triangle read).  Results: the eigenvectors as columns (alias),
the eigenvalues in ascending order (real for complex input), `info`.  Attributes: `lower` (bool),
`algorithm` (ui8: 0 JAX's default, 1 QR, 2 Jacobi -- jax 0.4.35 folded the old `syevj` target
into it).  Every algorithm computes the same decomposition; eigenvectors are unique only up to
sign (phase) and rotations within a repeated eigenvalue's space, so LAPACK's divide and conquer
(`?syevd` / `?heevd`) gives a valid result for each."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import ffi_form, flag, on_lapack
from stablehlo_py.interpreter.custom_calls.lapack.common import ffi_attributes
from stablehlo_py.interpreter.custom_calls.lapack.eigh import syevd

from stablehlo_py.errors import InterpreterError

ALGORITHMS = {0: "default", 1: "QR", 2: "Jacobi"}


def gpu_syevd(ctx: Any) -> list[np.ndarray]:
    algorithm = int(ffi_attributes(ctx).get("algorithm", 0))
    if algorithm not in ALGORITHMS:
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: algorithm = {algorithm} is not one of JAX's "
            f"{', '.join(f'{k} ({v})' for k, v in ALGORITHMS.items())}"
        )
    return on_lapack(ctx, syevd, {"mode": "V", "uplo": "L" if flag(ctx, "lower") else "U"})


TARGETS = {"solver_syevd_ffi": (gpu_syevd, ffi_form("0.4.35"))}
