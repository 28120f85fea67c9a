"""Comparisons of results with a reference, and the defining identities of the decompositions whose
outputs are unique only up to signs, phases or a basis of a repeated eigenspace (JAX's
check_*_results in tests/export_back_compat_test.py, stated as residual bounds).  numpy only (no
jax), so the CPU old-form test runs without it.  Used by
tests/unit/interpreter/test_cpu_old_forms.py and, in tests/oracle, test_jax_back_compat.py,
test_gpu_old_forms.py, test_platform_table.py, test_gpu_linalg_targets.py and
test_gpu_unstable_targets.py.

Different libraries (LAPACK, cuSOLVER, the TPU's Jacobi and QDWH) choose the free parts
differently.  So the parts that are unique (eigen- and singular values, magnitudes of triangular
factors, pivots) compare with a reference (the artifact's expected outputs, or XLA CPU's) by value,
and the rest by the identities: `A V = V diag(w)` with `V^H V = I`, `A VR = VR diag(w)`,
`S T S^H = A` with `S` unitary and `T` (quasi-)triangular, `U diag(s) Vh = A` with orthonormal `U`,
`Vh`, `Q R = A`, `Q H Q^H = A`.  Each raises AssertionError naming what failed.

Bounds: TOL machine epsilons (of the result's dtype) times n times the operand's Frobenius norm,
per matrix of a batch; identities are computed in double precision (`wide`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

TOL = 64
"""Bounds are TOL machine epsilons (of the result's dtype) times the size and the scale."""

Outputs = Sequence[np.ndarray]


def eps(x: Any) -> float:
    return float(np.finfo(np.asarray(x).dtype).eps)


def wide(x: Any) -> np.ndarray:
    """In double precision, so numpy's own rounding does not count."""
    x = np.asarray(x)
    return x.astype(np.complex128 if np.iscomplexobj(x) else np.float64)


def h(x: np.ndarray) -> np.ndarray:
    """The conjugate transpose of (each matrix of) ``x``."""
    return np.conj(np.swapaxes(x, -1, -2))


def norm(a: np.ndarray) -> np.ndarray:
    """The Frobenius norm of each matrix of ``a``."""
    return np.linalg.norm(wide(a), axis=(-2, -1))


def bounded(what: str, value: Any, bound: Any) -> None:
    assert np.all(np.asarray(value) <= bound), f"{what}: {value} > {bound}"


def small(what: str, residual: np.ndarray, scale: Any, e: float, n: int) -> None:
    """Each matrix of ``residual`` (a batch) has Frobenius norm <= TOL * e * n * scale."""
    bounded(what, np.linalg.norm(residual, axis=(-2, -1)), TOL * e * n * np.asarray(scale))


def _same_type(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (
        f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    )


def assert_bits(got: np.ndarray, want: np.ndarray, what: str) -> None:
    _same_type(got, want, what)
    assert got.tobytes() == want.tobytes(), (
        f"{what}: not bit-identical: got {got!r}, expected {want!r}"
    )


def assert_close(
    got: np.ndarray, want: np.ndarray, what: str, n: int = 1, relative: bool = False
) -> None:
    """Integers and booleans exactly; floats within TOL * eps * n of the largest expected magnitude
    (at least 1, results being of the inputs' scale; or, `relative`, at least the dtype's smallest
    normal number), non-finite values identical."""
    _same_type(got, want, what)
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
    scale = float(np.max(np.abs(w)))
    floor = float(np.finfo(want.dtype).tiny) if relative else 1.0
    bound = TOL * eps(want) * n * max(scale, floor)
    assert err <= bound, (
        f"{what}: max |got - expected| = {err:.3g} > {bound:.3g} ({TOL} eps x {n} x max(max "
        f"|expected| {scale:.3g}, {floor:.3g}))\ngot {got!r}\nexpected {want!r}"
    )


def same_set(what: str, got: np.ndarray, want: np.ndarray, bound: Any) -> None:
    """Every value of ``got`` is within ``bound`` of one of ``want`` and vice versa (eigenvalues
    in whatever order the library returns them)."""
    dist = np.abs(wide(got)[..., :, None] - wide(want)[..., None, :])
    bounded(f"distance of {what} to the reference's", dist.min(axis=-1), bound)
    bounded(f"distance of the reference's {what} to ours", dist.min(axis=-2), bound)


# ---------------------------------------------------------------------------------------------
# the identities


def check_eigh(a: np.ndarray, v: np.ndarray, w: np.ndarray, w_ref: np.ndarray) -> None:
    """Hermitian `a`: eigenvectors `v` (columns), ascending eigenvalues `w` close to `w_ref`."""
    n, e, scale = v.shape[-1], eps(w), norm(a)
    aa, vv, ww = wide(a), wide(v), wide(w)
    assert np.all(np.diff(w, axis=-1) >= 0), f"eigenvalues not ascending: {w}"
    bounded("|w - w_ref|", np.max(np.abs(ww - wide(w_ref)), axis=-1), TOL * e * n * scale)
    small("V^H V - I", h(vv) @ vv - np.eye(n), 1.0, e, n)
    small("A V - V diag(w)", aa @ vv - vv * ww[..., None, :], scale, e, n)


def check_eigvals(a: np.ndarray, w: np.ndarray, w_ref: np.ndarray) -> None:
    """The eigenvalues `w` of general `a`: the same set as `w_ref`, in any order."""
    n, e = a.shape[-1], eps(w)
    same_set("eigenvalues", w, w_ref, TOL * e * n * norm(a)[..., None])


def check_eig(
    a: np.ndarray, w: np.ndarray, vl: np.ndarray | None, vr: np.ndarray, w_ref: np.ndarray
) -> None:
    """General `a`: eigenvalues `w` (`check_eigvals`), unit-norm right eigenvectors `vr` and (when
    given) left eigenvectors `vl`."""
    check_eigvals(a, w, w_ref)
    n, e, scale = a.shape[-1], eps(w), norm(a)
    aa, ww = wide(a), wide(w)
    vectors = {"VR": wide(vr)} if vl is None else {"VL": wide(vl), "VR": wide(vr)}
    for name, v in vectors.items():  # LAPACK: each eigenvector has unit 2-norm
        bounded(f"| |{name} columns| - 1 |", np.abs(np.linalg.norm(v, axis=-2) - 1), TOL * e * n)
    vv = vectors["VR"]
    small("A VR - VR diag(w)", aa @ vv - vv * ww[..., None, :], scale, e, n)
    if vl is not None:
        vv = vectors["VL"]
        small("A^H VL - VL diag(conj w)", h(aa) @ vv - vv * np.conj(ww)[..., None, :], scale, e, n)


def check_svd(
    a: np.ndarray, u: np.ndarray, s: np.ndarray, vh: np.ndarray, s_ref: np.ndarray
) -> None:
    """`U diag(s) Vh = A` (first min(m, n) columns/rows), orthonormal `U` and `Vh`, `s` descending,
    non-negative and close to `s_ref`."""
    e = eps(s)
    u, s, vh, aa = wide(u), wide(s), wide(vh), wide(a)
    m, n = a.shape[-2:]
    k, scale = min(m, n), norm(a)
    assert np.all(s >= 0) and np.all(np.diff(s, axis=-1) <= 0), f"s not descending: {s}"
    bounded("|s - s_ref|", np.max(np.abs(s - wide(s_ref)), axis=-1), TOL * e * max(m, n) * scale)
    small("U^H U - I", h(u) @ u - np.eye(u.shape[-1]), 1.0, e, m)
    small("Vh Vh^H - I", vh @ h(vh) - np.eye(vh.shape[-2]), 1.0, e, n)
    usv = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    small("U diag(s) Vh - A", usv - aa, scale, e, max(m, n))


def check_qr(a: np.ndarray, q: np.ndarray, r: np.ndarray, r_ref: np.ndarray | None = None) -> None:
    """`Q^H Q = I`, `Q R = A`, `R` upper triangular, and (when given) `|R| = |R_ref|` (unique up to
    the phases of its rows)."""
    k, e, scale = q.shape[-1], eps(q), norm(a)
    qq = wide(q)
    small("Q^H Q - I", h(qq) @ qq - np.eye(k), 1.0, e, k)
    small("Q R - A", qq @ wide(r) - wide(a), scale, e, k)
    assert np.all(np.tril(r, -1) == 0), f"R is not upper triangular: {r}"
    if r_ref is not None:
        assert_close(np.abs(r), np.abs(r_ref), "|R|", k)


def check_qr_pivoting(
    a: np.ndarray, q: np.ndarray, r: np.ndarray, p: np.ndarray, r_ref: np.ndarray, p_ref: np.ndarray
) -> None:
    """The column pivots `p` exactly, and `check_qr` of `A[:, p]`."""
    assert_bits(p, p_ref, "column pivots")
    check_qr(np.take(a, p, axis=-1), q, r, r_ref)


def check_schur(
    a: np.ndarray, t: np.ndarray, s: np.ndarray, t_ref: np.ndarray | None = None
) -> None:
    """`S T S^H = A`, `S` unitary, `T` upper triangular (complex) or quasi-triangular (real: 2x2
    blocks for complex pairs), and (when given) the eigenvalues of `t_ref`."""
    e, real = eps(t), not np.iscomplexobj(t)
    tt, ss, aa = wide(t), wide(s), wide(a)
    n, scale = a.shape[-1], norm(a)
    small("S^H S - I", h(ss) @ ss - np.eye(n), 1.0, e, n)
    small("S T S^H - A", ss @ tt @ h(ss) - aa, scale, e, n)
    small("T below its (sub)diagonal", np.tril(tt, -2 if real else -1), scale, e, n)
    if real:
        sub = np.abs(np.diagonal(tt, -1, -2, -1)) > TOL * e * n * scale[..., None]
        assert not np.any(sub[..., 1:] & sub[..., :-1]), f"adjacent subdiagonal entries in T: {t}"
    if t_ref is not None:
        same_set("eigenvalues of T", np.linalg.eigvals(tt), np.linalg.eigvals(wide(t_ref)),
                 TOL * e * n * scale[..., None])


def check_hessenberg(a: np.ndarray, hh: np.ndarray, q: np.ndarray, h_ref: np.ndarray) -> None:
    """`Q H Q^H = A`, `Q` unitary, `H` zero below its subdiagonal, `|H| = |H_ref|`."""
    n, e, scale = a.shape[-1], eps(hh), norm(a)
    hw, qq = wide(hh), wide(q)
    small("Q^H Q - I", h(qq) @ qq - np.eye(n), 1.0, e, n)
    small("Q H Q^H - A", qq @ hw @ h(qq) - wide(a), scale, e, n)
    assert np.all(np.tril(hh, -2) == 0), f"H is not upper Hessenberg: {hh}"
    assert_close(np.abs(hh), np.abs(h_ref), "|H|", n)


CHECKS: dict[str, Callable[[np.ndarray, Outputs, Outputs], None]] = {
    "eigh": lambda a, got, want: check_eigh(a, got[1], got[0], want[0]),  # (w, V)
    "eig": lambda a, got, want: check_eig(a, got[0], None, got[1], want[0]),  # (w, VR)
    "eigvals": lambda a, got, want: check_eigvals(a, got[0], want[0]),  # (w,)
    "svd": lambda a, got, want: check_svd(a, *got, want[1]),  # (U, s, Vh)
    "qr": lambda a, got, want: check_qr(a, got[0], got[1], want[1]),  # (Q, R)
    "qr_pivoting": lambda a, got, want: check_qr_pivoting(a, *got, want[1], want[2]),  # (Q, R, p)
    "schur": lambda a, got, want: check_schur(a, got[0], got[1], want[0]),  # (T, Z)
    "hessenberg": lambda a, got, want: check_hessenberg(a, got[0], got[1], want[0]),  # (H, Q)
}
"""Comparison name -> its check of ``(a, got, want)``: the decomposed matrix, our outputs and the
reference's (a JAX function's result leaves, in the order the comments give)."""
