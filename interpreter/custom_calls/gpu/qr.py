"""`cusolver_geqrf_ffi` / `hipsolver_geqrf_ffi` (Householder QR: `jnp.linalg.qr`) and
`cusolver_orgqr_ffi` / `hipsolver_orgqr_ffi` (Q from the reflectors).

geqrf: operand the matrices; results the packed R and reflectors (alias), `tau`.  No `info`.
orgqr: operands the reflectors and `tau`; result Q (alias of operand #0).  No attribute."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import ffi_form, on_lapack
from stablehlo_py.interpreter.custom_calls.lapack.qr import geqrf, orgqr


def gpu_geqrf(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, geqrf)


def gpu_orgqr(ctx: Any) -> list[np.ndarray]:
    return on_lapack(ctx, orgqr)


TARGETS = {
    "solver_geqrf_ffi": (gpu_geqrf, ffi_form("0.4.35")),
    "solver_orgqr_ffi": (gpu_orgqr, ffi_form("0.4.35")),
}
