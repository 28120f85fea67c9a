"""Tridiagonal matrices: the reduction of a symmetric / Hermitian matrix (`jax.lax.linalg.tridiagonal`):
`lapack_{s,d}sytrd_ffi`, `lapack_{c,z}hetrd_ffi`; and the tridiagonal solve
(`jax.lax.linalg.tridiagonal_solve`): `lapack_{s,d,c,z}gtsv_ffi`.

sytrd/hetrd: operand the matrices (the `uplo` triangle is read); results the matrix with the
reflectors (as `?sytrd` leaves it), the diagonal `d` (real), the off-diagonal `e` (real), `tau`,
`info`.  Attribute `uplo`.
gtsv: operands `dl`, `d`, `du` (each `n` long: `dl[0]` and `du[n-1]` are not part of the matrix, as JAX
passes them) and the right-hand sides `B` (`n x nrhs`); results the three diagonals as `?gtsv` leaves
them, the solution `X`, `info` (0, or the 1-based index of a zero pivot).
tridiagonal_solve_perturbed_ffi (`tridiagonal_solve(..., perturb_singular=True)`, jax >= 0.10.0; not
in JAX's export stable list): operands as gtsv's, one result `X` (B's layout).  Not LAPACK: JAX's own
kernel (`jaxlib/tridiagonal_solve_perturbed.h`, shared by the CPU and the GPU targets), Gaussian
elimination with partial pivoting after LAPACK's `?lagtf`/`?lagts` that, instead of failing on a
(numerically) singular matrix, perturbs each tiny pivot of U by `eps * max|U(i, j)|` (doubling the
perturbation until neither `1 / pivot` nor `rhs / pivot` can overflow): useful for inverse iteration.
`perturbed_solve` is that computation, operation for operation in the element type, rounded as
jaxlib 0.12's x86-64 build rounds it (bit for bit): its compiler fuses the two multiply-adds that
update U for the real types, divides complex scalars with the C runtime's `__divsc3`/`__divdc3`,
multiplies complex rows with the plain formula and takes `cabs` of scalars.  jaxlib 0.10's build
does not fuse those multiply-adds (its real results can differ in the last bits, and much more on a
nearly singular system, where only the solution's direction is well determined); the GPU's build
(nvcc) may fuse more."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.lapack.common import (
    MATRIX,
    PREFIX_DTYPES,
    VECTOR,
    batch_indices,
    bind_targets,
    info_array,
    lapack_routine,
    operand,
    real_dtype,
    results,
    square_matrices,
    uplo_lower,
)
from stablehlo_py.semantics.fused import fma

from stablehlo_py.errors import InterpreterError


def sytrd(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    a = square_matrices(ctx, dtype)
    lower = uplo_lower(ctx)
    n = a.shape[-1]
    batch = a.shape[:-2]
    out = a.copy()
    d = np.zeros((*batch, n), real_dtype(dtype))
    e = np.zeros((*batch, max(n - 1, 0)), real_dtype(dtype))
    tau = np.zeros((*batch, max(n - 1, 0)), dtype)
    info = info_array(a)
    fn = lapack_routine("hetrd" if dtype.kind == "c" else "sytrd", dtype)
    for idx in batch_indices(a):
        out[idx], d[idx], e[idx], tau[idx], info[idx] = fn(a[idx], lower=int(lower))
    return results(ctx, [(out, MATRIX), (d, VECTOR), (e, VECTOR), (tau, VECTOR), (info, VECTOR)])


def tridiagonal_system(ctx: Any, dtype: np.dtype) -> tuple[np.ndarray, ...]:
    """Copies of the operands `dl`, `d`, `du`, `B` of a tridiagonal solve (as the kernel reads
    them), checked: the diagonals have `B`'s shape without its last dimension."""
    dl, d, du = (operand(ctx, i, VECTOR, dtype).copy() for i in range(3))
    b = operand(ctx, 3, MATRIX, dtype).copy()
    if not (dl.shape == d.shape == du.shape == b.shape[:-1]):
        raise InterpreterError(
            f"custom_call @{ctx.target_name}: the three diagonals must have shape {list(b.shape[:-1])} (the "
            f"right-hand sides' without their last dimension), got {list(dl.shape)}, {list(d.shape)}, "
            f"{list(du.shape)}"
        )
    return dl, d, du, b


def gtsv(ctx: Any, *, dtype: np.dtype) -> list[np.ndarray]:
    dl, d, du, b = tridiagonal_system(ctx, dtype)
    info = info_array(b)
    fn = lapack_routine("gtsv", dtype)
    for idx in batch_indices(b):
        du2, d[idx], du_i, b[idx], info[idx] = fn(dl[idx][1:], d[idx], du[idx][:-1], b[idx])
        dl[idx][1:] = du2  # LAPACK leaves U's second superdiagonal in DL
        du[idx][:-1] = du_i
    return results(ctx, [(dl, VECTOR), (d, VECTOR), (du, VECTOR), (b, MATRIX), (info, VECTOR)])


def _perturb_pivot(perturb: Any, pivot: Any, rhs_row: np.ndarray) -> Any:
    """The kernel's `MaybePerturbPivot` (after LAPACK's `?lagts`): `pivot` moved away from zero
    (or `pivot` and `rhs_row` scaled up, in place) so that neither `1 / pivot` nor `rhs_row / pivot`
    overflows; returns the pivot."""
    real = np.finfo(pivot.dtype).dtype.type
    info = np.finfo(real)
    one = real(1)
    small = one / info.max
    safemin = info.tiny if small < info.tiny else small * (one + info.eps)
    bignum = one / safemin
    abs_pivot = abs(pivot)
    if abs_pivot >= one:
        return pivot
    perturb = np.copysign(max(abs(perturb), safemin), np.real(pivot))
    max_factor = max(abs(v) for v in rhs_row)  # (scalar abs: numpy's vectorized one may differ)
    while abs_pivot < one:
        if abs_pivot < safemin:
            if abs_pivot == 0 or max_factor * safemin > abs_pivot:
                pivot = pivot + perturb
                perturb = perturb * real(2)
            else:
                rhs_row *= bignum
                return pivot * bignum
        elif max_factor > abs_pivot * bignum:
            pivot = pivot + perturb
            perturb = perturb * real(2)
        else:
            return pivot
        abs_pivot = abs(pivot)
    return pivot


def _fused(a: Any, b: Any, c: Any) -> Any:
    """`a * b + c` as jaxlib's compiled kernel computes these two updates of U: one rounding for
    real types (the compiler contracts them into a fused multiply-add), plain for complex ones."""
    if np.iscomplexobj(a):
        return a * b + c
    return fma(a, b, c)[()]


def _divide(a: Any, b: Any) -> Any:
    """`a / b` as the compiled kernel divides scalars: for complex types the C runtime's
    `__divsc3` / `__divdc3` (Smith's algorithm, dividing by the scaled denominator; numpy's `/`
    multiplies by its reciprocal, which rounds differently)."""
    if not np.iscomplexobj(b):
        return a / b
    a, b = b.dtype.type(a), b
    ar, ai, br, bi = a.real, a.imag, b.real, b.imag
    if abs(br) < abs(bi):
        ratio = br / bi
        denom = br * ratio + bi
        return b.dtype.type(complex((ar * ratio + ai) / denom, (ai * ratio - ar) / denom))
    ratio = bi / br
    denom = bi * ratio + br
    return b.dtype.type(complex((ai * ratio + ar) / denom, (ai - ar * ratio) / denom))


def _times(a: Any, v: np.ndarray) -> np.ndarray:
    """`a * v` for a scalar `a` and a row `v`, a complex product as the plain formula (the kernel's
    `re = ac - bd`, `im = ad + bc`, each product rounded; numpy's vectorized complex product may
    fuse them)."""
    if not np.iscomplexobj(v):
        return a * v
    out = np.empty_like(v)
    out.real = a.real * v.real - a.imag * v.imag
    out.imag = a.real * v.imag + a.imag * v.real
    return out


def perturbed_solve(dl: np.ndarray, d: np.ndarray, du: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """X with T X = rhs for the tridiagonal T (`dl[0]`, `du[n-1]` unused), tiny pivots perturbed:
    JAX's `SolveWithGaussianEliminationWithPivotingAndPerturbSingular`, operation for operation."""
    n = d.shape[0]
    t = d.dtype.type
    eps = np.finfo(d.dtype).eps
    x = np.empty_like(rhs)
    if n == 1:
        p = d[0]
        row = rhs[0].copy()
        p = _perturb_pivot(eps * abs(p), p, row)
        x[0] = [_divide(v, p) for v in row]
        return x
    u = np.zeros((n, 3), d.dtype)  # U's diagonal, superdiagonal, second superdiagonal
    u[0, 0], u[0, 1] = d[0], du[0]
    max_u = max(abs(u[0, 0]), abs(u[0, 1]))
    scale1 = abs(u[0, 0]) + abs(u[0, 1])
    x[0] = rhs[0]
    for k in range(n - 1):
        u[k + 1, 0] = d[k + 1]
        scale2 = abs(dl[k + 1]) + abs(u[k + 1, 0])
        if k < n - 2:
            scale2 += abs(du[k + 1])
        if dl[k + 1] == 0:
            scale1 = scale2
            u[k + 1, 1] = du[k + 1]
            u[k, 2] = 0
            x[k + 1] = rhs[k + 1]
        else:
            piv1 = 0 if u[k, 0] == 0 else abs(u[k, 0]) / scale1
            piv2 = abs(dl[k + 1]) / scale2
            if piv2 <= piv1:  # no row interchange
                scale1 = scale2
                factor = _divide(dl[k + 1], u[k, 0])
                u[k + 1, 0] = _fused(-factor, u[k, 1], u[k + 1, 0])
                u[k + 1, 1] = du[k + 1]
                u[k, 2] = 0
                x[k + 1] = rhs[k + 1] - _times(factor, x[k])
            else:  # rows k and k+1 interchanged
                factor = _divide(u[k, 0], dl[k + 1])
                utmp = u[k, 1]
                u[k, 0] = dl[k + 1]
                u[k + 1, 0] = _fused(-factor, d[k + 1], utmp)
                u[k, 1] = d[k + 1]
                if k < n - 2:
                    u[k, 2] = du[k + 1]
                    u[k + 1, 1] = -factor * du[k + 1]
                x[k + 1] = x[k] - _times(factor, rhs[k + 1])
                x[k] = rhs[k + 1]
                scale1 = abs(u[k + 1, 0]) + abs(u[k + 1, 1])
        if k < n - 2:
            max_u = max(max_u, *(abs(v) for v in u[k]))  # (scalar abs: C's cabs, as the kernel)
    max_u = max(max_u, abs(u[n - 1, 0]))
    perturb = eps * max_u
    one = t(1)
    for k in range(n - 1, -1, -1):  # back substitution, perturbing tiny pivots
        p = u[k, 0]
        row = x[k].copy()
        if k <= n - 2:
            row = row - _times(u[k, 1], x[k + 1])
        if k <= n - 3:
            row = row - _times(u[k, 2], x[k + 2])
        p = _perturb_pivot(perturb if k == n - 1 else np.copysign(perturb, np.real(p)), p, row)
        x[k] = _times(_divide(one, p), row)
    return x


def tridiagonal_solve_perturbed(ctx: Any) -> list[np.ndarray]:
    b = operand(ctx, 3, MATRIX)
    if b.dtype not in PREFIX_DTYPES.values():
        raise InterpreterError(
            f"custom_call @{ctx.target_name} works on f32, f64, complex64 or complex128 systems, got "
            f"element type {b.dtype}"
        )
    if len(ctx.operands) != 4:
        raise InterpreterError(
            f"custom_call @{ctx.target_name} takes dl, d, du and B; got {len(ctx.operands)} operands"
        )
    dl, d, du, b = tridiagonal_system(ctx, b.dtype)
    x = np.zeros_like(b)
    with np.errstate(all="ignore"):
        for idx in batch_indices(b):
            x[idx] = perturbed_solve(dl[idx], d[idx], du[idx], b[idx])
    return results(ctx, [(x, MATRIX)])


TARGETS = {**bind_targets(sytrd, "sytrd", "hetrd"), **bind_targets(gtsv, "gtsv")}
PERTURBED_TARGETS = {"tridiagonal_solve_perturbed_ffi": tridiagonal_solve_perturbed}
PERTURBED_FORM = (
    "typed FFI, one name for the four element types (jax >= 0.10.0); dl, d, du, B -> X; not in JAX's "
    "export stable list (an export needs DisabledSafetyCheck.custom_call)"
)
