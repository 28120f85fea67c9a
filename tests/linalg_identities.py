"""Defining identities of the decompositions whose outputs are unique only up to signs, phases or a
basis of a repeated eigenspace (JAX's check_*_results in tests/export_back_compat_test.py, stated
as residual bounds), for any test that has the operand `a`: `A V = V diag(w)` with `V^H V = I`,
`A VR = VR diag(w)`, `S T S^H = A` with `S` unitary and `T` (quasi-)triangular, `U diag(s) Vh = A`
with orthonormal `U`, `Vh`; values that are unique (eigen- and singular values) compare with a
reference.  numpy only (used by tests/oracle/test_jax_back_compat.py and
tests/unit/interpreter/test_cpu_old_forms.py).

Bounds: TOL machine epsilons (of the result's dtype) times n times the operand's Frobenius norm,
per matrix of a batch; identities are computed in double precision (`wide`)."""

from __future__ import annotations

from typing import Any

import numpy as np

TOL = 64


def eps(x: np.ndarray) -> float:
    return float(np.finfo(x.dtype).eps)


def wide(x: np.ndarray) -> np.ndarray:
    """Identities computed in double precision, so numpy's own rounding does not count."""
    return np.asarray(x).astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def bounded(what: str, value: np.ndarray, bound: Any) -> None:
    assert np.all(value <= bound), f"{what}: {value} > {bound}"


def small(what: str, residual: np.ndarray, scale: Any, eps: float, n: int) -> None:
    """Each matrix of `residual` (a batch) has Frobenius norm <= TOL * eps * n * scale."""
    bounded(what, np.linalg.norm(residual, axis=(-2, -1)), TOL * eps * n * np.asarray(scale))


def h(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def norm(a: np.ndarray) -> np.ndarray:
    return np.linalg.norm(a, axis=(-2, -1))


def check_eigh(a: np.ndarray, v: np.ndarray, w: np.ndarray, w_ref: np.ndarray) -> None:
    """Hermitian `a`: eigenvectors `v` (columns), ascending eigenvalues `w` close to `w_ref`."""
    a = wide(a)
    n, e, scale = v.shape[-1], eps(w), norm(a)
    vv, ww = wide(v), wide(w)
    small("V^H V - I", h(vv) @ vv - np.eye(n), 1.0, e, n)
    small("A V - V diag(w)", a @ vv - vv * ww[..., None, :], scale, e, n)
    assert np.all(np.diff(w, axis=-1) >= 0), f"eigenvalues not ascending: {w}"
    bounded("|w - w_ref|", np.max(np.abs(ww - wide(w_ref)), axis=-1), TOL * e * n * scale)


def check_eig(
    a: np.ndarray, w: np.ndarray, vl: np.ndarray | None, vr: np.ndarray, w_ref: np.ndarray
) -> None:
    """General `a`: eigenvalues `w` (the same set as `w_ref`), unit-norm right eigenvectors `vr`
    and (when given) left eigenvectors `vl`."""
    e = eps(w)
    w, vr, a, w_ref = wide(w), wide(vr), wide(a), wide(w_ref)
    n, scale = vr.shape[-1], norm(a)
    vectors = {"VR": vr} if vl is None else {"VL": wide(vl), "VR": vr}
    for name, v in vectors.items():  # LAPACK: each eigenvector has unit 2-norm
        bounded(f"| |{name} columns| - 1 |", np.abs(np.linalg.norm(v, axis=-2) - 1), TOL * e * n)
    small("A VR - VR diag(w)", a @ vr - vr * w[..., None, :], scale, e, n)
    if vl is not None:
        vl = vectors["VL"]
        small("A^H VL - VL diag(conj w)", h(a) @ vl - vl * np.conj(w)[..., None, :], scale, e, n)
    dist = np.abs(w[..., :, None] - w_ref[..., None, :])  # each eigenvalue in the other list
    bound = TOL * e * n * scale[..., None]
    bounded("distance of w to the reference eigenvalues", dist.min(axis=-1), bound)
    bounded("distance of the reference eigenvalues to w", dist.min(axis=-2), bound)


def check_schur(a: np.ndarray, t: np.ndarray, s: np.ndarray) -> None:
    """`S T S^H = A`, `S` unitary, `T` upper triangular (complex) or quasi-triangular (real: 2x2
    blocks for complex pairs)."""
    e, real = eps(t), not np.iscomplexobj(t)
    t, s, a = wide(t), wide(s), wide(a)
    n, scale = a.shape[-1], norm(a)
    small("S^H S - I", h(s) @ s - np.eye(n), 1.0, e, n)
    small("S T S^H - A", s @ t @ h(s) - a, scale, e, n)
    small("T below its (sub)diagonal", np.tril(t, -2 if real else -1), scale, e, n)
    if real:
        sub = np.abs(np.diagonal(t, -1, -2, -1)) > TOL * e * n * scale[..., None]
        assert not np.any(sub[..., 1:] & sub[..., :-1]), f"adjacent subdiagonal entries in T: {t}"


def check_svd(a: np.ndarray, u: np.ndarray, s: np.ndarray, vh: np.ndarray, s_ref: np.ndarray) -> None:
    """`U diag(s) Vh = A` (first min(m, n) columns/rows), orthonormal `U` and `Vh`, `s` descending,
    non-negative and close to `s_ref`."""
    e = eps(s)
    u, s, vh, a, s_ref = wide(u), wide(s), wide(vh), wide(a), wide(s_ref)
    m, n = a.shape[-2:]
    k, scale = min(m, n), norm(a)
    assert np.all(s >= 0) and np.all(np.diff(s, axis=-1) <= 0), f"s not descending: {s}"
    bounded("|s - s_ref|", np.max(np.abs(s - s_ref), axis=-1), TOL * e * max(m, n) * scale)
    small("U^H U - I", h(u) @ u - np.eye(u.shape[-1]), 1.0, e, m)
    small("Vh Vh^H - I", vh @ h(vh) - np.eye(vh.shape[-2]), 1.0, e, n)
    usv = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    small("U diag(s) Vh - A", usv - a, scale, e, max(m, n))
