"""JAX's CPU LAPACK custom-call targets (`lapack_{s,d,c,z}<routine>_ffi`), with the operand/result
conventions of JAX's kernels (`jaxlib/cpu/lapack_kernels.cc`) and lowering rules
(`jax/_src/lax/linalg.py`), computed by the same LAPACK routines through scipy (`stablehlo-py[linalg]`).

`LAPACK_TARGETS` maps each target name to `fn(ctx) -> list of result arrays`, where `ctx` is the
custom-call context record (`operands`, `result_types`, `backend_config`, `attributes`,
`operand_layouts`, `result_layouts`, `target_name`, ...).  `LAPACK_LEGACY_FAMILIES` holds the pre-FFI
forms of the same kernels (`lapack_<p><routine>`, `blas_<p>trsm`: `legacy.py`) as (targets, platforms,
forms) for `builtins.load`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack import (
    cholesky,
    eig,
    eigh,
    hessenberg,
    lu,
    qr,
    schur,
    svd,
    triangular,
    tridiagonal,
)

from stablehlo_py.interpreter.custom_calls.lapack.legacy import FAMILIES as LAPACK_LEGACY_FAMILIES

LAPACK_TARGETS: dict[str, Callable[[Any], list[np.ndarray]]] = {
    name: fn
    for module in (cholesky, qr, eigh, svd, lu, triangular, eig, schur, hessenberg, tridiagonal)
    for name, fn in module.TARGETS.items()
}

__all__ = ["LAPACK_LEGACY_FAMILIES", "LAPACK_TARGETS"]
