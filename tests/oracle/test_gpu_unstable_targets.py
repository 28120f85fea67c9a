"""JAX's not-stable GPU targets (`interpreter/custom_calls/gpu/`: eig.py, qr.py, syrk.py,
cholesky_update.py, tridiagonal.py) and the CPU `tridiagonal_solve_perturbed_ffi`, in programs JAX
exports for CUDA and ROCm with their safety check disabled (as an artifact can carry them): our
interpretation agrees with XLA CPU running the CPU export -- eigenvectors by their identities and
LAPACK's normalization, pivoted QR by `A P = Q R` with the pivots equal, the rest by value; the CPU
perturbed solve bit for bit (jaxlib >= 0.12, see `EXACT_PERTURBED`).

`cusolver_geev_ffi` is written by JAX only when it knows at trace time that cuSOLVER is 11.7.1 or
newer, which an export on a machine without a GPU never does: `_cusolver_geev` pretends it does
(JAX's own lowering then writes the call, as on a GPU machine)."""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
export = pytest.importorskip("jax.export")
jsl = pytest.importorskip("jax.scipy.linalg")

from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse

from tests.linalg_identities import check_eig, check_eigvals, check_qr_pivoting
from tests.oracle.test_gpu_linalg_targets import DTYPES, TOL

pytestmark = pytest.mark.usefixtures("x64")  # tests/oracle/conftest.py

REAL = [np.float32, np.float64]
GPUS = ["cuda", "rocm"]

UNSTABLE = [f"{v}hybrid_{r}" for v in ("cu", "hip") for r in ("eig_real", "eig_comp", "geqp3")]
UNSTABLE += [f"{v}solver_{r}_ffi" for v in ("cu", "hip") for r in ("ormqr", "syrk", "geev")]
UNSTABLE += [f"{v}_{r}" for v in ("cu", "hip") for r in ("cholesky_update_ffi", "tridiagonal_solve_perturbed")]
UNSTABLE += ["tridiagonal_solve_perturbed_ffi"]
UNSTABLE += [f"lapack_{p}{r}_ffi" for p in "sdcz" for r in ("geqp3", "ormqr", "unmqr")]
"""Targets JAX's export refuses unless told (`_export.py`'s stable lists do not have them)."""


def _jaxlib_version() -> tuple[int, ...]:
    import jaxlib

    return tuple(int(p) for p in jaxlib.__version__.split(".")[:2])


EXACT_PERTURBED = _jaxlib_version() >= (0, 12)
"""jaxlib 0.12's x86-64 build of the perturbed tridiagonal kernel fuses two multiply-adds of its
real types (what `lapack/tridiagonal.py` computes); jaxlib 0.10's build does not, so there the
real results may differ in the last bit."""


def _export(fn: Callable[..., Any], platform: str, *args: np.ndarray) -> Any:
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in args]
    checks = [export.DisabledSafetyCheck.custom_call(t) for t in UNSTABLE]
    return export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(*specs)


def _ours_and_xla(fn: Callable[..., Any], platform: str, target: str, *args: np.ndarray) -> tuple[list, list]:
    """Our run of `fn`'s export for `platform` (which must call `target`) and XLA CPU's outputs."""
    text = _export(fn, platform, *args).mlir_module()
    assert f"@{target}(" in text, f"the export for {platform} calls {target}"
    got = run(parse(text), *args)
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(_export(fn, "cpu", *args).call(*args))]
    assert len(got) == len(want)
    return got, want


def _normal(dtype: Any, r: np.random.Generator, *shape: int) -> np.ndarray:
    x = r.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.normal(size=shape)
    return x.astype(dtype)


def _vendor(platform: str) -> str:
    return {"cuda": "cu", "rocm": "hip"}[platform]


def _check_eig(name: str, a: np.ndarray, got: list, want: list) -> None:
    """By `tests/linalg_identities.py`'s identities; eigenvectors also by the rest of LAPACK's geev
    normalization (the largest component of each column real)."""
    if name == "eigvals":
        check_eigvals(a, got[0], want[0])
        return
    check_eig(a, got[0], None, got[1], want[0])
    v = got[1]
    largest = np.take_along_axis(v, np.abs(v).argmax(axis=-2)[..., None, :], axis=-2)
    np.testing.assert_allclose(largest.imag, 0, atol=float(np.finfo(v.real.dtype).eps) * 10)


EIG = {"eig": jnp.linalg.eig, "eigvals": jnp.linalg.eigvals}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", GPUS)
@pytest.mark.parametrize("name", sorted(EIG))
def test_hybrid_eig(name: str, platform: str, dtype: Any) -> None:
    """cu/hiphybrid_eig_real / _comp (JAX's default GPU eig), batched."""
    a = _normal(dtype, np.random.default_rng(11), 2, 4, 4)
    kind = "comp" if np.dtype(dtype).kind == "c" else "real"
    got, want = _ours_and_xla(EIG[name], platform, f"{_vendor(platform)}hybrid_eig_{kind}", a)
    _check_eig(name, a, got, want)


@contextlib.contextmanager
def _cusolver_geev() -> Iterator[None]:
    """JAX's GPU eig lowering as on a machine whose cuSOLVER it knows to be 11.7.1."""
    from jax._src.lax import linalg

    class Versions:
        @staticmethod
        def cusolver_get_version() -> int:
            return 11701

    old = linalg.cuda_versions
    linalg.cuda_versions = Versions
    try:
        yield
    finally:
        linalg.cuda_versions = old


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(EIG))
def test_cusolver_geev(name: str, dtype: Any) -> None:
    """cusolver_geev_ffi: real input's vectors come packed; JAX unpacks them in StableHLO."""
    a = _normal(dtype, np.random.default_rng(12), 5, 5)
    with _cusolver_geev():
        got, want = _ours_and_xla(EIG[name], "cuda", "cusolver_geev_ffi", a)
    _check_eig(name, a, got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", GPUS)
def test_hybrid_geqp3(platform: str, dtype: Any) -> None:
    """jsl.qr(pivoting=True): cu/hiphybrid_geqp3 (+ orgqr); the pivots equal XLA's (no ties),
    `A[:, P] = Q R` with Q orthonormal, R upper triangular, |R| = |R_xla|."""
    a = _normal(dtype, np.random.default_rng(13), 5, 4)
    fn = lambda a: jsl.qr(a, pivoting=True)  # noqa: E731
    got, want = _ours_and_xla(fn, platform, f"{_vendor(platform)}hybrid_geqp3", a)
    check_qr_pivoting(a, *got, want[1], want[2])


ORMQR = {
    # name -> (fn, second argument's shape)
    "qr_multiply_right": (lambda a, c: jsl.qr_multiply(a, c), (2, 5)),
    "qr_multiply_left": (lambda a, c: jsl.qr_multiply(a, c, mode="left"), (4, 2)),
    "ormqr_transpose": (lambda a, c: _ormqr(a, c, left=True), (5, 3)),
    "ormqr_right_transpose": (lambda a, c: _ormqr(a, c, left=False), (3, 5)),
}


def _ormqr(a: Any, c: Any, left: bool) -> Any:
    """Q^T C or C Q^T (Q^H for complex) from the raw QR (as `jax.lax.linalg.ormqr`'s example)."""
    h, taus = jnp.linalg.qr(a, mode="raw")
    return jax.lax.linalg.ormqr(h.mT, taus, c, left=left, transpose=True)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", GPUS)
@pytest.mark.parametrize("name", sorted(ORMQR))
def test_ormqr(name: str, platform: str, dtype: Any) -> None:
    """cu/hipsolver_ormqr_ffi (after geqrf) applies Q or Q^H from either side, by value."""
    fn, shape = ORMQR[name]
    r = np.random.default_rng(14)
    a, c = _normal(dtype, r, 5, 4), _normal(dtype, r, *shape)
    got, want = _ours_and_xla(fn, platform, f"{_vendor(platform)}solver_ormqr_ffi", a, c)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=TOL[dtype] * 10, atol=TOL[dtype] * 10)


@pytest.mark.parametrize("dtype", REAL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("symmetrize", [False, True])
def test_syrk(symmetrize: bool, dtype: Any) -> None:
    """cusolver_syrk_ffi: JAX promises only the lower triangle (the upper keeps C's values on the
    GPU), or the whole matrix with `symmetrize_output`; batched."""
    r = np.random.default_rng(15)
    a, c = _normal(dtype, r, 2, 3, 4), _normal(dtype, r, 2, 3, 3)
    fn = lambda a, c: jax.lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=symmetrize)  # noqa: E731
    (got,), (want,) = _ours_and_xla(fn, "cuda", "cusolver_syrk_ffi", a, c)
    tol = TOL[dtype] * 10
    if symmetrize:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_allclose(np.tril(got), np.tril(want), rtol=tol, atol=tol)
        np.testing.assert_array_equal(np.triu(got, 1), np.triu(c, 1))


@pytest.mark.parametrize("dtype", REAL, ids=lambda d: np.dtype(d).name)
def test_cholesky_update(dtype: Any) -> None:
    """cu_cholesky_update_ffi: the updated factor, by value and by `R'^T R' = R^T R + w w^T`."""
    rng = np.random.default_rng(16)
    m = rng.normal(size=(5, 5))
    r = np.linalg.cholesky(m @ m.T + 5 * np.eye(5)).T.astype(dtype)
    w = rng.normal(size=5).astype(dtype)
    (got,), (want,) = _ours_and_xla(jax.lax.linalg.cholesky_update, "cuda", "cu_cholesky_update_ffi", r, w)
    tol = TOL[dtype] * 10
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    r64, w64 = r.astype(np.float64), w.astype(np.float64)
    np.testing.assert_allclose(got.T @ got, r64.T @ r64 + np.outer(w64, w64), rtol=tol, atol=tol * 10)
    # the pre-FFI form (jax 0.4.29-0.4.33), written from this export: the same call with the
    # packed CholeskyUpdateDescriptor {type, matrix_size} in backend_config
    text = _export(jax.lax.linalg.cholesky_update, "cuda", r, w).mlir_module()
    desc = struct.pack("<i4xq", 0 if dtype == np.float32 else 1, 5)
    config = "".join(f"\\{b:02X}" for b in desc)
    old = text.replace("@cu_cholesky_update_ffi(", "@cu_cholesky_update(").replace(
        "mhlo.backend_config = {}", f'api_version = 2 : i32, backend_config = "{config}"'
    )
    assert "@cu_cholesky_update(" in old and "backend_config = \"" in old
    np.testing.assert_array_equal(run(parse(old), r, w)[0], got)


def _tridiagonal_system(dtype: Any, singular: bool) -> tuple[np.ndarray, ...]:
    """A batch of two 6 x 6 systems with three right-hand sides; `singular`: T - lambda I for an
    eigenvalue lambda of T (inverse iteration's step) and an exactly singular one (zero rows)."""
    r = np.random.default_rng(17)
    dl, d, du = (_normal(dtype, r, 2, 6) for _ in range(3))
    dl[:, 0] = du[:, -1] = 0
    if singular:
        t = np.diag(d[0]) + np.diag(dl[0, 1:], -1) + np.diag(du[0, :-1], 1)
        d[0] -= np.linalg.eigvals(t.astype(np.complex128))[0].astype(dtype) if np.dtype(dtype).kind == "c" else 0
        if np.dtype(dtype).kind == "f":  # a real eigenvalue: symmetric T
            du[0, :-1] = dl[0, 1:]
            t = np.diag(d[0]) + np.diag(dl[0, 1:], -1) + np.diag(du[0, :-1], 1)
            d[0] -= np.linalg.eigvalsh(t.astype(np.float64))[2].astype(dtype)
        d[1, 2:4] = dl[1, 2:4] = du[1, 2:4] = 0
    return dl, d, du, _normal(dtype, r, 2, 6, 3)


PERTURBED = lambda dl, d, du, b: jax.lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True)  # noqa: E731
PERTURBED_TARGETS = {
    "cpu": "tridiagonal_solve_perturbed_ffi",
    "cuda": "cu_tridiagonal_solve_perturbed",
    "rocm": "hip_tridiagonal_solve_perturbed",
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", sorted(PERTURBED_TARGETS))
@pytest.mark.parametrize("singular", [False, True], ids=["regular", "singular"])
def test_tridiagonal_solve_perturbed(singular: bool, platform: str, dtype: Any) -> None:
    """JAX's perturbed elimination (CPU and GPU run the same code): bit for bit with XLA CPU's
    kernel (jaxlib >= 0.12), finite on singular systems; the regular systems solved."""
    args = _tridiagonal_system(dtype, singular)
    (got,), (want,) = _ours_and_xla(PERTURBED, platform, PERTURBED_TARGETS[platform], *args)
    assert got.dtype == want.dtype and np.isfinite(got).all()
    if EXACT_PERTURBED or np.dtype(dtype).kind == "c":
        np.testing.assert_array_equal(got, want)
    else:  # jaxlib 0.10's build rounds two multiply-adds twice (see EXACT_PERTURBED): on a
        # (nearly) singular system that changes the size of the solution, not its direction
        cosine = np.abs((got * want).sum(-2)) / (np.linalg.norm(got, axis=-2) * np.linalg.norm(want, axis=-2))
        np.testing.assert_allclose(cosine, 1, atol=TOL[dtype])
        if not singular:
            np.testing.assert_allclose(got, want, rtol=TOL[dtype], atol=TOL[dtype])
    if not singular:
        dl, d, du, b = (x.astype(np.complex128) for x in args)
        t = [np.diag(d[i]) + np.diag(dl[i, 1:], -1) + np.diag(du[i, :-1], 1) for i in range(2)]
        np.testing.assert_allclose(np.stack([t[i] @ got[i] for i in range(2)]), b, atol=TOL[dtype] * 100)
