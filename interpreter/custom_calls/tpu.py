"""JAX's TPU linear-algebra targets: `Qr`, `ProductOfElementaryHouseholderReflectors`,
`LuDecomposition`, `Eigh` (`jnp.linalg.qr`, `lu`, `solve`, `det`, `inv`, `eigh`, and the QDWH SVD
built of them, for TPU; `jax/_src/lax/linalg.py`, `jax/_src/tpu/linalg/eigh.py`).

The TPU's custom calls take and give logical tensors (no layouts, no `info`): each is the
decomposition's definition, computed here with LAPACK (scipy) on the logical matrices, batched
over the leading dimensions:
- `Qr(a) -> (a', tau)`: the Householder form of `?geqrf` (R on and above the diagonal, the
  reflectors below, their scales `tau`);
- `ProductOfElementaryHouseholderReflectors(a, tau) -> q`: the product of the reflectors
  (`?orgqr` / `?ungqr`);
- `LuDecomposition(a) -> (lu, pivots, permutation)` (api_version 2): `?getrf`'s packed L and U,
  the 0-based row swaps, and the permutation they make of `0..m-1`;
- `Eigh(a) {backend_config = "<lower>,<sort>,<max_iter>,<tol>"} -> (v, w)`: the eigenvectors as
  columns and the (real) eigenvalues, ascending when `sort` is 1 (`?syevd` / `?heevd` on the
  `lower` triangle).  The TPU computes them by Jacobi rotations to `tol`; eigenvectors are unique
  only up to sign (phase) and rotations within a repeated eigenvalue's space, so LAPACK's are one
  valid result, and its eigenvalues agree within the platform's tolerance.

Operands JAX adds for results of dynamic shape (`indices_of_shape_operands`) are dropped first."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import operand_dtype
from stablehlo_py.interpreter.custom_calls.gpu.lu import permutation_of
from stablehlo_py.interpreter.custom_calls.jax_targets import split_shape_operands
from stablehlo_py.interpreter.custom_calls.lapack.common import lapack_routine

from stablehlo_py.errors import InterpreterError


def _operands(ctx: Any, n: int) -> list[np.ndarray]:
    operands, _ = split_shape_operands(ctx.operands, ctx.attributes.get("indices_of_shape_operands"))
    if len(operands) != n:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes {n} operand{'s' if n > 1 else ''}, got {len(operands)}"
        )
    operand_dtype(ctx, operands[0], matrix=True)
    return [np.asarray(x) for x in operands]


def _batches(a: np.ndarray) -> Any:
    return np.ndindex(*a.shape[:-2])


def qr(ctx: Any) -> list[np.ndarray]:
    (a,) = _operands(ctx, 1)
    m, n = a.shape[-2:]
    out = a.copy()
    tau = np.zeros((*a.shape[:-2], min(m, n)), a.dtype)
    fn = lapack_routine("geqrf", a.dtype)
    for idx in _batches(a):
        if m and n:
            out[idx], tau[idx], _, _ = fn(a[idx])
    return [out, tau]


def householder_product(ctx: Any) -> list[np.ndarray]:
    a, tau = _operands(ctx, 2)
    out = a.copy()
    fn = lapack_routine("ungqr" if a.dtype.kind == "c" else "orgqr", a.dtype)
    for idx in _batches(a):
        if a.shape[-1]:
            out[idx], _, _ = fn(a[idx], tau[idx])
    return [out]


def lu_decomposition(ctx: Any) -> list[np.ndarray]:
    (a,) = _operands(ctx, 1)
    m, n = a.shape[-2:]
    lu = a.copy()
    pivots = np.zeros((*a.shape[:-2], min(m, n)), np.int32)
    fn = lapack_routine("getrf", a.dtype)
    for idx in _batches(a):
        if m and n:
            lu[idx], pivots[idx], _ = fn(a[idx])
    return [lu, pivots, permutation_of(pivots, m)]


def eigh(ctx: Any) -> list[np.ndarray]:
    (a,) = _operands(ctx, 1)
    config = ctx.backend_config if isinstance(ctx.backend_config, str) else ""
    fields = config.split(",")
    if len(fields) != 4 or fields[0] not in ("0", "1") or fields[1] not in ("0", "1"):
        raise InterpreterError(
            f"custom_call @Eigh: backend_config {config!r} is not JAX's \"<lower>,<sort>,<max_iter>,"
            "<tol>\" (e.g. \"1,1,100,1e-6\")"
        )
    lower = fields[0] == "1"
    n = a.shape[-1]
    v = a.copy()
    w = np.zeros(a.shape[:-1], np.finfo(a.dtype).dtype)
    fn = lapack_routine("heevd" if a.dtype.kind == "c" else "syevd", a.dtype)
    for idx in _batches(a):
        if n:
            w[idx], v[idx], _ = fn(a[idx], compute_v=1, lower=int(lower))
    return [v, w]  # (ascending: LAPACK's order, which also serves sort = 0)



TPU_FAMILY: dict[str, Any] = {
    "Qr": qr,
    "ProductOfElementaryHouseholderReflectors": householder_product,
    "LuDecomposition": lu_decomposition,
    "Eigh": eigh,
}
TPU_FORMS = (
    "logical tensors, no layouts (jax 0.12)",
    "one tuple-typed result with an xla_shape (2023 artifacts)",
)

__all__ = ["TPU_FAMILY", "TPU_FORMS"]
