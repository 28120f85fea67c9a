"""Differential tests (`oracle` extra): `jnp.linalg` / `jax.scipy.linalg` functions lower on CPU to JAX's
LAPACK FFI custom calls (`lapack_<p><routine>_ffi`); our interpreter runs the lowered program with the
built-in LAPACK targets and must give XLA's results.

Factorizations are checked by their defining identities on our results (`Q R = A`, `L L^H = A`,
`A v = v w`, `U S V^H = A`, `P L U = A`, `Z T Z^H = A`) and against XLA's results by value where LAPACK
fixes them (values, factors with a fixed sign convention, pivots); eigen- and singular vectors are
compared with XLA's up to each column's phase.  float32, float64 (x64 mode), complex64, complex128,
unbatched and batched."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jsl = pytest.importorskip("jax.scipy.linalg")
pytest.importorskip("scipy")

from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse
from tests.oracle.lapack_context import register_lapack_if_missing

DTYPES = ("float32", "float64", "complex64", "complex128")
BATCH = {"unbatched": (), "batched": (2, 3)}


def _tol(dtype: np.dtype) -> float:
    return 2e-4 if np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64)) else 1e-10


def _random(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


def _general(rng, batch, n, dtype):
    """Well-conditioned square matrices."""
    return (_random(rng, (*batch, n, n), dtype) + 2 * n * np.eye(n)).astype(dtype)


def _hpd(rng, batch, n, dtype):
    """Hermitian positive definite matrices."""
    a = _random(rng, (*batch, n, n), dtype)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _h(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _close(got, want, tol, what):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def _same_columns_up_to_phase(got, want, tol, what):
    """Unit columns equal up to a phase: |<got_j, want_j>| == 1."""
    inner = np.abs(np.sum(np.conj(got) * want, axis=-2))
    norms = np.linalg.norm(got, axis=-2) * np.linalg.norm(want, axis=-2)
    np.testing.assert_allclose(inner, norms, rtol=50 * tol, atol=50 * tol, err_msg=what)


# name -> (function, inputs(rng, batch, dtype), check(args, ours, xla, tol))
def _check_values(args, ours, xla, tol):
    for i, (g, w) in enumerate(zip(ours, xla)):
        _close(g, w, tol, f"result #{i}")


def _check_cholesky(args, ours, xla, tol):
    (a,), (lo,) = args, ours
    _close(lo @ _h(lo), a, tol, "L L^H == A")
    _check_values(args, ours, xla, tol)


def _check_qr(args, ours, xla, tol):
    (a,), (q, r) = args, ours
    _close(q @ r, a, tol, "Q R == A")
    _close(
        _h(q) @ q,
        np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2),
        tol,
        "Q^H Q == I",
    )
    _close(np.triu(r), r, tol, "R upper triangular")
    _check_values(args, ours, xla, tol)


def _check_eigh(args, ours, xla, tol):
    (a,), (w, v) = args, ours
    _close(a @ v, v * w[..., None, :], tol, "A v == v w")
    _close(w, xla[0], tol, "eigenvalues")
    _same_columns_up_to_phase(v, xla[1], tol, "eigenvectors")


def _check_svd(args, ours, xla, tol):
    (a,), (u, s, vh) = args, ours
    _close((u * s[..., None, :]) @ vh, a, tol, "U S V^H == A")
    _close(s, xla[1], tol, "singular values")
    _same_columns_up_to_phase(u, xla[0], tol, "U")
    _same_columns_up_to_phase(_h(vh), _h(xla[2]), tol, "V")


def _check_eig(args, ours, xla, tol):
    (a,), (w, v) = args, ours
    _close(a.astype(v.dtype) @ v, v * w[..., None, :], 10 * tol, "A v == v w")
    _close(w, xla[0], tol, "eigenvalues")
    _same_columns_up_to_phase(v, xla[1], tol, "eigenvectors")


def _check_lu(args, ours, xla, tol):
    (a,), (p, lo, u) = args, ours
    _close(p @ lo @ u, a, tol, "P L U == A")
    _close(np.tril(lo), lo, tol, "L lower triangular")
    _close(np.triu(u), u, tol, "U upper triangular")
    _check_values(args, ours, xla, tol)


def _check_lu_factor(args, ours, xla, tol):
    (a,), (lu, piv) = args, ours
    np.testing.assert_array_equal(piv, xla[1])
    _close(lu, xla[0], tol, "packed L\\U")
    n = a.shape[-1]
    lo = np.tril(lu, -1) + np.eye(n)
    perm = np.broadcast_to(np.arange(n), piv.shape).copy()
    for i in range(
        n
    ):  # LAPACK's row interchanges, 0-based (JAX subtracts 1 from the kernel's pivots)
        j = piv[..., i]
        pi, pj = (
            np.take_along_axis(perm, np.full_like(j, i)[..., None], -1),
            np.take_along_axis(perm, j[..., None], -1),
        )
        np.put_along_axis(perm, np.full_like(j, i)[..., None], pj, -1)
        np.put_along_axis(perm, j[..., None], pi, -1)
    _close(
        lo @ np.triu(lu),
        np.take_along_axis(a, perm[..., None], -2),
        tol,
        "L U == rows of A permuted",
    )


def _check_schur(args, ours, xla, tol):
    (a,), (t, z) = args, ours
    _close(z @ t @ _h(z), a, 10 * tol, "Z T Z^H == A")
    _close(_h(z) @ z, np.broadcast_to(np.eye(z.shape[-1]), z.shape), tol, "Z^H Z == I")
    _close(
        np.diagonal(t, axis1=-2, axis2=-1),
        np.diagonal(xla[0], axis1=-2, axis2=-1),
        10 * tol,
        "diag(T)",
    )


def _check_solve_like(args, ours, xla, tol):
    _check_values(args, ours, xla, 10 * tol)


def _sq(fn):
    return lambda rng, batch, dtype: (fn(rng, batch, 4, dtype),)


CASES = {
    "linalg.cholesky": (jnp.linalg.cholesky, _sq(_hpd), _check_cholesky),
    "linalg.qr": (jnp.linalg.qr, lambda r, b, d: (_random(r, (*b, 5, 3), d),), _check_qr),
    "linalg.eigh": (jnp.linalg.eigh, _sq(_hpd), _check_eigh),
    "linalg.svd": (
        lambda a: jnp.linalg.svd(a, full_matrices=False),
        lambda r, b, d: (_random(r, (*b, 5, 3), d),),
        _check_svd,
    ),
    "linalg.inv": (jnp.linalg.inv, _sq(_general), _check_solve_like),
    "linalg.solve": (
        jnp.linalg.solve,
        lambda r, b, d: (_general(r, b, 4, d), _random(r, (*b, 4, 2), d)),
        _check_solve_like,
    ),
    "linalg.det": (jnp.linalg.det, lambda r, b, d: (_random(r, (*b, 5, 5), d),), _check_solve_like),
    "linalg.slogdet": (
        lambda a: tuple(jnp.linalg.slogdet(a)),
        lambda r, b, d: (_random(r, (*b, 5, 5), d),),
        _check_solve_like,
    ),
    "linalg.eig": (jnp.linalg.eig, _sq(lambda r, b, n, d: _random(r, (*b, n, n), d)), _check_eig),
    "linalg.pinv": (
        jnp.linalg.pinv,
        lambda r, b, d: (_random(r, (*b, 5, 3), d),),
        _check_solve_like,
    ),
    "linalg.lstsq": (
        lambda a, y: jnp.linalg.lstsq(a, y)[0],
        lambda r, b, d: (_random(r, (5, 3), d), _random(r, (5, 2), d)),
        _check_solve_like,
    ),
    "scipy.lu": (jsl.lu, _sq(lambda r, b, n, d: _random(r, (*b, n, n), d)), _check_lu),
    "scipy.lu_factor": (
        jsl.lu_factor,
        _sq(lambda r, b, n, d: _random(r, (*b, n, n), d)),
        _check_lu_factor,
    ),
    "scipy.schur": (jsl.schur, _sq(lambda r, b, n, d: _random(r, (*b, n, n), d)), _check_schur),
    "scipy.expm": (
        jsl.expm,
        _sq(lambda r, b, n, d: (_random(r, (*b, n, n), d) * 0.5).astype(d)),
        _check_solve_like,
    ),
    "scipy.cho_solve": (
        lambda c, y: jsl.cho_solve((c, True), y),
        lambda r, b, d: (np.linalg.cholesky(_hpd(r, b, 4, d)).astype(d), _random(r, (*b, 4, 3), d)),
        _check_solve_like,
    ),
    "scipy.solve_triangular": (
        lambda a, y: (
            jsl.solve_triangular(a, y, lower=True),
            jsl.solve_triangular(a, y, trans="C", unit_diagonal=True),
        ),
        lambda r, b, d: (np.tril(_general(r, b, 4, d)).astype(d), _random(r, (*b, 4, 3), d)),
        _check_solve_like,
    ),
}


def _check_hessenberg(args, ours, xla, tol):
    (a,), (h, q) = args, ours
    _close(q @ h @ _h(q), a, 10 * tol, "Q H Q^H == A")
    _close(np.triu(h, -1), h, tol, "H upper Hessenberg")
    _check_values(args, ours, xla, 10 * tol)


def _check_pivoted_qr(args, ours, xla, tol):
    (a,), (q, r, p) = args, ours
    np.testing.assert_array_equal(p, xla[2])
    _close(q @ r, a[..., p], tol, "Q R == A P")
    _check_values(args, ours, xla, tol)


def _check_tridiagonal_solve(args, ours, xla, tol):
    (dl, d, du, b), (x,) = args, ours
    product = d[..., None] * x
    product[..., 1:, :] += dl[..., 1:, None] * x[..., :-1, :]
    product[..., :-1, :] += du[..., :-1, None] * x[..., 1:, :]
    _close(product, b, 10 * tol, "T X == B")
    _check_values(args, ours, xla, 10 * tol)


def _tridiagonal_system(r, b, d):
    dl, diag, du = (_random(r, (*b, 5), d) for _ in range(3))
    dl[..., 0] = 0
    du[..., -1] = 0
    return dl, (diag + 4).astype(d), du, _random(r, (*b, 5, 2), d)


def _geqrf_then_ormqr(left, transpose):
    from jax._src.lax import linalg as lax_linalg  # geqrf/ormqr are not exported by jax.lax.linalg

    def fn(a, c):
        return lax_linalg.ormqr(*lax_linalg.geqrf(a), c, left=left, transpose=transpose)

    return fn


# JAX's other CPU LAPACK targets: gesvd (SvdAlgorithm.QR), gehrd, sytrd/hetrd, geqp3, ormqr/unmqr, gtsv.
CASES.update(
    {
        "lax.svd_qr_algorithm": (
            lambda a: jax.lax.linalg.svd(
                a, full_matrices=False, algorithm=jax.lax.linalg.SvdAlgorithm.QR
            ),
            lambda r, b, d: (_random(r, (*b, 5, 3), d),),
            _check_svd,
        ),
        "lax.hessenberg": (jax.lax.linalg.hessenberg, _sq(_general), _check_values),
        "scipy.hessenberg": (
            lambda a: jsl.hessenberg(a, calc_q=True),
            _sq(_general),
            _check_hessenberg,
        ),
        "lax.tridiagonal": (
            lambda a: jax.lax.linalg.tridiagonal(a, lower=False),
            _sq(_hpd),
            _check_values,
        ),
        "scipy.qr_pivoting": (
            lambda a: jsl.qr(a, pivoting=True, mode="economic"),
            lambda r, b, d: (_random(r, (5, 3), d),),
            _check_pivoted_qr,
        ),
        "lax.ormqr_left": (
            _geqrf_then_ormqr(True, False),
            lambda r, b, d: (_random(r, (*b, 5, 3), d), _random(r, (*b, 5, 2), d)),
            _check_solve_like,
        ),
        "lax.ormqr_right_adjoint": (
            _geqrf_then_ormqr(False, True),
            lambda r, b, d: (_random(r, (*b, 5, 3), d), _random(r, (*b, 2, 5), d)),
            _check_solve_like,
        ),
        "lax.tridiagonal_solve": (
            jax.lax.linalg.tridiagonal_solve,
            _tridiagonal_system,
            _check_tridiagonal_solve,
        ),
    }
)

# jax.scipy.linalg.schur, lu, hessenberg, qr(pivoting) and lstsq take a single matrix (no batch dimensions).
UNBATCHED_ONLY = {
    "scipy.schur",
    "scipy.lu",
    "linalg.lstsq",
    "scipy.hessenberg",
    "scipy.qr_pivoting",
}

PARAMS = [
    pytest.param(name, dtype, batch, id=f"{name}-{dtype}-{batch}")
    for name in CASES
    for dtype in DTYPES
    for batch in BATCH
    if not (batch == "batched" and name in UNBATCHED_ONLY)
]


@pytest.fixture(scope="module", autouse=True)
def _lapack_targets() -> None:
    register_lapack_if_missing()


@pytest.mark.parametrize(("name", "dtype", "batch"), PARAMS)
def test_lapack_target_matches_xla(name: str, dtype: str, batch: str) -> None:
    fn, inputs, check = CASES[name]
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype}-{batch}".encode()))
    args = inputs(rng, BATCH[batch], dtype)
    with jax.enable_x64(dtype in ("float64", "complex128")):
        lowered = jax.jit(fn).lower(*args)
        text = lowered.as_text()
        xla = [np.asarray(x) for x in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    assert "lapack_" in text, "the function no longer lowers to a LAPACK custom call"
    ours = run(parse(text), *args)
    assert len(ours) == len(xla)
    for got, want in zip(ours, xla):
        assert got.shape == want.shape and got.dtype == want.dtype, (
            got.shape,
            got.dtype,
            want.shape,
            want.dtype,
        )
    check(args, [np.asarray(x) for x in ours], xla, _tol(np.dtype(dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lapack_targets_from_a_jax_export_artifact(dtype: str) -> None:
    """The serialized `jax.export` artifact (VHLO bytecode): the typed-FFI dictionary and the layouts come
    through deserialization.  (Shardy's `sdy.sharding_rule` attribute is switched off: portable artifacts
    carry VHLO and builtin attributes only.)"""
    pytest.importorskip("flatbuffers")
    from jax import export
    from jax._src import config as jax_config
    from stablehlo_py.serialization import deserialize_portable_artifact
    from stablehlo_py.serialization.jax_export import read_jax_exported

    rng = np.random.default_rng(7)
    a = _general(rng, (2,), 4, dtype)

    def fn(x):
        w, v = jnp.linalg.eigh(x @ jnp.conj(jnp.swapaxes(x, -1, -2)))
        return jnp.linalg.inv(x), jnp.linalg.svd(x, compute_uv=False), w, v

    with (
        jax.enable_x64(dtype in ("float64", "complex128")),
        jax_config.use_shardy_partitioner(False),
    ):
        exported = export.export(jax.jit(fn))(a)
        data = exported.serialize()
        xla = [np.asarray(x) for x in jax.tree_util.tree_leaves(exported.call(a))]
    module = deserialize_portable_artifact(read_jax_exported(data).mlir_module_serialized)
    ours = run(module, a)
    tol = _tol(np.dtype(dtype))
    _close(ours[0], xla[0], 10 * tol, "inv")
    _close(ours[1], xla[1], 10 * tol, "singular values")
    _close(ours[2], xla[2], 10 * tol, "eigenvalues")
    _same_columns_up_to_phase(ours[3], xla[3], 10 * tol, "eigenvectors")
