"""Comparisons of a decomposition's outputs with XLA CPU's, shared by the oracle tests
(`test_platform_table.py`, `test_gpu_linalg_targets.py`).

Decompositions are unique only up to signs, phases, or the basis of a repeated eigenspace, and
different libraries (LAPACK, cuSOLVER, the TPU's Jacobi and QDWH) choose differently.  So the parts
that are unique (eigen- and singular values, magnitudes of triangular factors, pivots) are compared
with XLA CPU's by value, and the rest by the defining identities: residuals within
``TOL * eps * n * ||A||`` (Frobenius norm, per matrix of a batch), computed in double precision.

Each checker takes ``(a, got, want)``: the decomposed matrix, our outputs and XLA CPU's outputs (the
function's result leaves, in order), and raises AssertionError naming what failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

TOL = 64
"""Bounds are TOL machine epsilons (of the result's dtype) times the size and the scale."""

Outputs = Sequence[np.ndarray]


def eps(x: np.ndarray) -> float:
    return float(np.finfo(np.asarray(x).dtype).eps)


def wide(x: Any) -> np.ndarray:
    """In double precision, so numpy's own rounding does not count."""
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def h(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of (each matrix of) ``x``."""
    return np.conj(np.swapaxes(x, -1, -2))


def norm(a: np.ndarray) -> np.ndarray:
    return np.linalg.norm(wide(a), axis=(-2, -1))


def bounded(what: str, value: Any, bound: Any) -> None:
    assert np.all(np.asarray(value) <= bound), f"{what}: {value} > {bound}"


def small(what: str, residual: np.ndarray, scale: Any, e: float, n: int) -> None:
    """Each matrix of ``residual`` has Frobenius norm <= TOL * e * n * scale."""
    bounded(what, np.linalg.norm(residual, axis=(-2, -1)), TOL * e * n * np.asarray(scale))


def assert_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    )
    assert got.tobytes() == want.tobytes(), (
        f"{what}: not bit-identical: got {got!r}, expected {want!r}"
    )


def assert_close(got: np.ndarray, want: np.ndarray, what: str, n: int = 1) -> None:
    """Integers and booleans exactly; floats within TOL * eps * n of the largest expected magnitude
    (at least 1: results are of the inputs' scale), non-finite values identical."""
    assert got.dtype == want.dtype and got.shape == want.shape, (
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    )
    if want.dtype.kind not in "fc":
        assert np.array_equal(got, want), f"{what}: got {got!r}, expected {want!r}"
        return
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True), (
        f"{what}: non-finite values differ: got {got!r}, expected {want!r}"
    )
    g, w = wide(got[finite]), wide(want[finite])
    if not w.size:
        return
    err = float(np.max(np.abs(g - w)))
    bound = TOL * eps(want) * n * max(float(np.max(np.abs(w))), 1.0)
    assert err <= bound, (
        f"{what}: max |got - expected| = {err:.3g} > {bound:.3g}\ngot {got!r}\nexpected {want!r}"
    )


def same_set(what: str, got: np.ndarray, want: np.ndarray, bound: Any) -> None:
    """Every value of ``got`` is within ``bound`` of one of ``want`` and vice versa (eigenvalues
    in whatever order the library returns them)."""
    dist = np.abs(wide(got)[..., :, None] - wide(want)[..., None, :])
    bounded(f"distance of {what} to XLA CPU's", dist.min(axis=-1), bound)
    bounded(f"distance of XLA CPU's {what} to ours", dist.min(axis=-2), bound)


# ---------------------------------------------------------------------------------------------
# the identities


def check_eigh(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(w, V): w by value (ascending), A V = V diag(w), V^H V = I."""
    w, v = got
    n, e, scale = v.shape[-1], eps(w), norm(a)
    aa, vv, ww = wide(a), wide(v), wide(w)
    assert np.all(np.diff(w, axis=-1) >= 0), f"eigenvalues not ascending: {w}"
    bounded("|w - w_xla|", np.max(np.abs(ww - wide(want[0])), axis=-1), TOL * e * n * scale)
    small("V^H V - I", h(vv) @ vv - np.eye(n), 1.0, e, n)
    small("A V - V diag(w)", aa @ vv - vv * ww[..., None, :], scale, e, n)


def check_eigvals(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(w,): the same eigenvalues as XLA CPU's, in any order."""
    n, e = a.shape[-1], eps(got[0])
    same_set("eigenvalues", got[0], want[0], TOL * e * n * norm(a)[..., None])


def check_eig(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(w, V): the eigenvalues as a set, A V = V diag(w), unit columns (LAPACK's normalization)."""
    w, v = got
    check_eigvals(a, (w,), want)
    n, e, scale = a.shape[-1], eps(w), norm(a)
    vv, ww = wide(v), wide(w)
    bounded("| |V columns| - 1 |", np.abs(np.linalg.norm(vv, axis=-2) - 1), TOL * e * n)
    small("A V - V diag(w)", wide(a) @ vv - vv * ww[..., None, :], scale, e, n)


def check_svd(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(U, s, Vh): s by value (descending, >= 0), U diag(s) Vh = A, orthonormal U and Vh."""
    u, s, vh = (wide(x) for x in got)
    m, n = a.shape[-2:]
    k, e, scale = min(m, n), eps(got[1]), norm(a)
    assert np.all(s >= 0) and np.all(np.diff(s, axis=-1) <= 0), f"s not descending: {s}"
    bounded("|s - s_xla|", np.max(np.abs(s - wide(want[1])), axis=-1), TOL * e * max(m, n) * scale)
    small("U^H U - I", h(u) @ u - np.eye(u.shape[-1]), 1.0, e, m)
    small("Vh Vh^H - I", vh @ h(vh) - np.eye(vh.shape[-2]), 1.0, e, n)
    usv = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    small("U diag(s) Vh - A", usv - wide(a), scale, e, max(m, n))


def check_qr(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(Q, R): Q^H Q = I, Q R = A, R upper triangular with |R| = |R_xla| (unique up to the
    phases of its rows)."""
    q, r = got[0], got[1]
    m, e, scale = a.shape[-2], eps(q), norm(a)
    qq = wide(q)
    small("Q^H Q - I", h(qq) @ qq - np.eye(qq.shape[-1]), 1.0, e, m)
    small("Q R - A", qq @ wide(r) - wide(a), scale, e, m)
    assert np.all(np.tril(r, -1) == 0), f"R is not upper triangular: {r}"
    assert_close(np.abs(r), np.abs(want[1]), "|R|", m)


def check_qr_pivoting(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(Q, R, p): the pivots exactly, and `check_qr` of A[:, p]."""
    p = got[2]
    assert_bits(p, want[2], "column pivots")
    check_qr(np.take(a, p, axis=-1), got[:2], want[:2])


def check_schur(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(T, Z): Z T Z^H = A, Z unitary, T (quasi-)upper triangular, with XLA CPU's eigenvalues."""
    t, z = (wide(x) for x in got)
    n, e, scale = a.shape[-1], eps(got[0]), norm(a)
    small("Z^H Z - I", h(z) @ z - np.eye(n), 1.0, e, n)
    small("Z T Z^H - A", z @ t @ h(z) - wide(a), scale, e, n)
    real = not np.iscomplexobj(got[0])
    small("T below its (sub)diagonal", np.tril(t, -2 if real else -1), scale, e, n)
    same_set("eigenvalues of T", np.linalg.eigvals(t), np.linalg.eigvals(wide(want[0])),
             TOL * e * n * scale)


def check_hessenberg(a: np.ndarray, got: Outputs, want: Outputs) -> None:
    """(H, Q): Q H Q^H = A, Q unitary, H zero below its subdiagonal, |H| = |H_xla|."""
    hh, q = (wide(x) for x in got)
    n, e, scale = a.shape[-1], eps(got[0]), norm(a)
    small("Q^H Q - I", h(q) @ q - np.eye(n), 1.0, e, n)
    small("Q H Q^H - A", q @ hh @ h(q) - wide(a), scale, e, n)
    assert np.all(np.tril(got[0], -2) == 0), f"H is not upper Hessenberg: {got[0]}"
    assert_close(np.abs(got[0]), np.abs(want[0]), "|H|", n)


CHECKS: dict[str, Callable[[np.ndarray, Outputs, Outputs], None]] = {
    "eigh": check_eigh,
    "eig": check_eig,
    "eigvals": check_eigvals,
    "svd": check_svd,
    "qr": check_qr,
    "qr_pivoting": check_qr_pivoting,
    "schur": check_schur,
    "hessenberg": check_hessenberg,
}
