"""JAX's GPU singular value decompositions (`jnp.linalg.svd`, `pinv`, `matrix_rank`, `norm(ord=2)`,
`lstsq` for CUDA and ROCm; `jax/_src/lax/linalg.py` `_svd_gpu_sub_lowering`, jax >= 0.4.35):

- `cusolver_gesvdj_ffi` / `hipsolver_gesvdj_ffi` (Jacobi: JAX's default when m, n <= 1024) and
  `cusolver_gesvdp_ffi` / `hipsolver_gesvdp_ffi` (polar, `algorithm=POLAR`): results
  `(a, s, U, V, info)` with **V**, not V^H (JAX transposes and conjugates it after the call).  U and V
  are always there, even with `compute_uv = false` (then JAX does not read them: zeros here); their
  columns are `min(m, n)` with `full_matrices = false`, else `m` and `n` (JAX passes
  `full_matrices = true` unless m, n > 32, and slices after).
- `cusolver_gesvd_ffi` / `hipsolver_gesvd_ffi` (QR: `algorithm=QR`, or m or n > 1024) and
  `hipsolver_gesdd_ffi` (ROCm, `algorithm=DIVIDE_AND_CONQUER`): results `(a, s, U, V^H, info)`;
  with `transposed = true` (gesvd when m < n) JAX hands the kernel the row-major buffer, i.e. the
  transposed matrix, and reads the results in the order `(a, s, V^H, U, info)` (row-major).

The results are given as JAX reads them (its layouts); the first one is the operand's buffer,
which the kernel destroys and JAX discards: it is returned unchanged.  Singular vectors are unique
only up to sign (phase) and rotations within a repeated singular value, so LAPACK's `?gesdd` /
`?gesvd` give a valid result of every algorithm; `info` is LAPACK's (0, or > 0 when it did not
converge).  Attributes: `full_matrices`, `compute_uv` (bools), `transposed` (bool, gesvd/gesdd)."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.gpu.common import ffi_form, flag, operand_dtype
from stablehlo_py.interpreter.custom_calls.lapack.common import fortran, lapack_routine, real_dtype

from stablehlo_py.errors import InterpreterError


def _declared(ctx: Any) -> list[tuple[int, ...]]:
    if len(ctx.result_types) != 5:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} gives five results (a, s, two vector matrices, info), "
            f"the op declares {len(ctx.result_types)}"
        )
    return [tuple(int(d) for d in t.get_shape()) for t in ctx.result_types]


def _svd(ctx: Any, routine: str, v_columns: bool) -> list[np.ndarray]:
    dtype = operand_dtype(ctx)
    a = np.asarray(ctx.operands[0])
    full = flag(ctx, "full_matrices")
    compute_uv = flag(ctx, "compute_uv")
    transposed = flag(ctx, "transposed", False)
    shapes = _declared(ctx)
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    k = min(m, n)
    first, second = (shapes[3], shapes[2]) if transposed else (shapes[2], shapes[3])  # U's, V's
    s = np.zeros((*batch, k), real_dtype(dtype))
    u = np.zeros(first, dtype)
    v = np.zeros(second, dtype)
    info = np.zeros(batch, np.int32)
    fn = lapack_routine(routine, dtype)
    for idx in np.ndindex(*batch):
        if m == 0 or n == 0:
            continue
        u_i, s[idx], vt_i, info[idx] = fn(
            fortran(a[idx]), compute_uv=int(compute_uv), full_matrices=int(full), overwrite_a=1
        )
        if compute_uv:
            u[idx] = u_i[:, : first[-1]]
            v[idx] = (vt_i.conj().T if v_columns else vt_i)[: second[-2], : second[-1]]
    vectors = [v, u] if transposed else [u, v]
    out = [a.copy(), s, *vectors, info]
    for i, (value, shape) in enumerate(zip(out, shapes)):
        if value.shape != shape:
            raise InterpreterError(
                f"custom_call @{ctx.target_name}: result #{i} is declared {list(shape)}, the "
                f"kernel gives {list(value.shape)} for a {m}x{n} matrix (full_matrices = "
                f"{str(full).lower()}, transposed = {str(transposed).lower()})"
            )
    return out


def gesvdj(ctx: Any) -> list[np.ndarray]:
    return _svd(ctx, "gesdd", v_columns=True)


def gesvd(ctx: Any) -> list[np.ndarray]:
    return _svd(ctx, "gesvd", v_columns=False)


def gesdd(ctx: Any) -> list[np.ndarray]:
    return _svd(ctx, "gesdd", v_columns=False)


TARGETS = {
    "solver_gesvdj_ffi": (gesvdj, ffi_form("0.4.35") + "; results (a, s, U, V, info)"),
    "solver_gesvdp_ffi": (gesvdj, "typed FFI as gesvdj (jax 0.12's form); results (a, s, U, V, info)"),
    "solver_gesvd_ffi": (gesvd, ffi_form("0.4.35") + "; results (a, s, U, V^H, info), transposed"),
}
ROCM_TARGETS = {
    "hipsolver_gesdd_ffi": (gesdd, ffi_form("0.10.0") + "; results (a, s, U, V^H, info)"),
}
