"""JAX's cuSOLVER / hipSOLVER targets (interpreter/custom_calls/gpu/) in programs exported for CUDA
and ROCm on this CPU-only machine: our interpretation equals XLA CPU running the CPU export of the
same function -- within the dtype's tolerance, and for eigenvectors (unique only up to sign or phase)
by the defining identities."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
export = pytest.importorskip("jax.export")

from stablehlo_py.interpreter import run

from stablehlo_py.ir import parse
from tests.linalg_identities import check_eigh, check_svd

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOL = {np.float32: 2e-4, np.float64: 1e-10, np.complex64: 2e-4, np.complex128: 1e-10}


def _matrix(dtype: Any, n: int, kind: str, seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.normal(size=(n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * r.normal(size=(n, n))
    if kind == "spd":
        a = a @ a.conj().T + n * np.eye(n)
    elif kind == "hermitian":
        a = a + a.conj().T
    return a.astype(dtype)


# name -> (f, matrix kind, which outputs compare by value; the rest by identity)
FUNCTIONS: dict[str, tuple[Callable[..., Any], str]] = {
    "cholesky": (jnp.linalg.cholesky, "spd"),
    "lu": (jax.scipy.linalg.lu, "general"),
    "lu_factor": (jax.scipy.linalg.lu_factor, "general"),
    "qr": (jnp.linalg.qr, "general"),
    "solve": (lambda a: jnp.linalg.solve(a, jnp.ones(a.shape[:1], a.dtype)), "general"),
    "det": (jnp.linalg.det, "general"),
    "inv": (jnp.linalg.inv, "general"),
    "eigvalsh": (jnp.linalg.eigvalsh, "hermitian"),
    "eigh": (jnp.linalg.eigh, "hermitian"),
}

TARGETS = {"cuda": ("cusolver_", "cu_"), "rocm": ("hipsolver_", "hip_")}


pytestmark = pytest.mark.usefixtures("x64")  # tests/oracle/conftest.py


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gpu_export_equals_xla_cpu(name: str, platform: str, dtype: Any) -> None:
    fn, kind = FUNCTIONS[name]
    spec = jax.ShapeDtypeStruct((5, 5), dtype)
    text = export.export(jax.jit(fn), platforms=[platform])(spec).mlir_module()
    assert any(f"@{p}" in text for p in TARGETS[platform]), "the GPU target is what is checked"
    cpu = export.export(jax.jit(fn), platforms=["cpu"])(spec)
    a = _matrix(dtype, 5, kind, seed=len(name))
    got = run(parse(text), a)
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(cpu.call(a))]
    assert len(got) == len(want)
    tol = TOL[dtype]
    if name == "eigh":  # eigenvalues by value; eigenvectors by A V = V diag(w) and V^H V = I
        check_eigh(a, got[1], got[0], want[0])
        return
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind in "iub":
            assert np.array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * 10)


def test_lu_pivots_to_permutation_batched() -> None:
    """`cu_lu_pivots_to_permutation` on a batch, against JAX's CPU result (pure StableHLO there)."""
    fn = lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 6)  # noqa: E731
    spec = jax.ShapeDtypeStruct((3, 4), np.int32)
    text = export.export(jax.jit(fn), platforms=["cuda"])(spec).mlir_module()
    assert "@cu_lu_pivots_to_permutation" in text
    cpu = export.export(jax.jit(fn), platforms=["cpu"])(spec)
    pivots = np.array([[0, 1, 2, 3], [3, 3, 5, 4], [5, 0, 1, 2]], np.int32)
    (got,) = run(parse(text), pivots)
    assert np.array_equal(got, np.asarray(cpu.call(pivots)))


SVD_CASES = {
    # name -> (f, shape)
    "svd_default": (lambda a: jnp.linalg.svd(a), (5, 4)),
    "svd_econ": (lambda a: jnp.linalg.svd(a, full_matrices=False), (4, 6)),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), (5, 5)),
    "svd_qr_tall": (lambda a: jax.lax.linalg.svd(a, algorithm=jax.lax.linalg.SvdAlgorithm.QR), (6, 4)),
    "svd_qr_wide": (lambda a: jax.lax.linalg.svd(a, full_matrices=False, algorithm=jax.lax.linalg.SvdAlgorithm.QR), (3, 5)),
    "svd_polar": (lambda a: jax.lax.linalg.svd(a, algorithm=jax.lax.linalg.SvdAlgorithm.POLAR), (4, 4)),
    "svd_divide_and_conquer": (
        lambda a: jax.lax.linalg.svd(a, algorithm=jax.lax.linalg.SvdAlgorithm.DIVIDE_AND_CONQUER),
        (5, 4),
    ),
    "pinv": (jnp.linalg.pinv, (5, 3)),
    "norm2": (lambda a: jnp.linalg.norm(a, ord=2), (4, 5)),
}


UNSTABLE = [f"lapack_{p}gesvd_ffi" for p in "sdcz"] + ["cusolver_gesvdp_ffi", "hipsolver_gesvdp_ffi"]
"""Targets JAX does not promise to keep (its export refuses them unless told): QR-SVD on the CPU,
polar SVD on the GPU."""


def _svd_export(fn: Callable[..., Any], spec: Any, platform: str) -> Any:
    checks = [export.DisabledSafetyCheck.custom_call(t) for t in UNSTABLE]
    return export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(spec)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("name", sorted(SVD_CASES))
def test_gpu_svd_equals_xla_cpu(name: str, platform: str, dtype: Any) -> None:
    """Singular values by value; U, V^H by U diag(s) V^H = A and orthonormal columns/rows; pinv and
    the 2-norm by value."""
    fn, shape = SVD_CASES[name]
    if name == "svd_divide_and_conquer":
        if not hasattr(jax.lax.linalg.SvdAlgorithm, "DIVIDE_AND_CONQUER"):
            pytest.skip(f"jax {jax.__version__} has no SvdAlgorithm.DIVIDE_AND_CONQUER (jax >= 0.10)")
        if platform == "cuda":
            pytest.skip("JAX lowers DIVIDE_AND_CONQUER for ROCm only (hipsolver_gesdd_ffi)")
    spec = jax.ShapeDtypeStruct(shape, dtype)
    text = _svd_export(fn, spec, platform).mlir_module()
    assert any(f"@{p}" in text for p in TARGETS[platform]), "the GPU target is what is checked"
    a = _matrix(dtype, max(shape), "general", seed=7)[: shape[0], : shape[1]].copy()
    got = run(parse(text), a)
    # (XLA's CPU has no polar or ROCm-only SVD: the reference is the default one, the same decomposition)
    reference = (lambda a: jnp.linalg.svd(a)) if name in ("svd_polar", "svd_divide_and_conquer") else fn
    cpu = _svd_export(reference, spec, "cpu")
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(cpu.call(a))]
    tol = TOL[dtype] * 10
    if len(got) == 3:  # (U, s, V^H): s by value, U diag(s) V^H = A, orthonormal U and V^H
        check_svd(a, *got, want[1])
    else:
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


TRIDIAGONAL = {
    # name -> (f, its arguments from a matrix)
    "tridiagonal": (lambda a: jax.lax.linalg.tridiagonal(a, lower=True), lambda a: [a]),
    "tridiagonal_upper": (lambda a: jax.lax.linalg.tridiagonal(a, lower=False), lambda a: [a]),
    "tridiagonal_solve": (
        jax.lax.linalg.tridiagonal_solve,
        lambda a: [np.concatenate([[0], np.diag(a, -1)]).astype(a.dtype), np.diag(a).copy(),
                   np.concatenate([np.diag(a, 1), [0]]).astype(a.dtype), a[:, :2].copy()],
    ),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("platform", ["cuda", "rocm"])
@pytest.mark.parametrize("name", sorted(TRIDIAGONAL))
def test_gpu_tridiagonal_equals_xla_cpu(name: str, platform: str, dtype: Any) -> None:
    """sytrd (the reduction: by value, the same Householder convention) and gtsv2 (the solve)."""
    fn, args_of = TRIDIAGONAL[name]
    a = _matrix(dtype, 5, "general" if "solve" in name else "hermitian", seed=3)
    args = args_of(a + 5 * np.eye(5, dtype=dtype))
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in args]
    checks = [export.DisabledSafetyCheck.custom_call("hipsparse_gtsv2_ffi")]
    text = export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(*specs).mlir_module()
    assert any(f"@{p}" in text for p in (*TARGETS[platform], "cusparse_", "hipsparse_"))
    cpu = export.export(jax.jit(fn), platforms=["cpu"])(*specs)
    got = run(parse(text), *args)
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(cpu.call(*args))]
    tol = TOL[dtype] * 10
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


TPU_FUNCTIONS: dict[str, tuple[Callable[..., Any], str]] = {
    "qr": (jnp.linalg.qr, "general"),
    "qr_wide": (lambda a: jnp.linalg.qr(a[:3]), "general"),
    "lu": (jax.scipy.linalg.lu, "general"),
    "lu_factor": (jax.scipy.linalg.lu_factor, "general"),
    "solve": (lambda a: jnp.linalg.solve(a, jnp.ones(a.shape[:1], a.dtype)), "general"),
    "det": (jnp.linalg.det, "general"),
    "inv": (jnp.linalg.inv, "general"),
    "eigvalsh": (jnp.linalg.eigvalsh, "hermitian"),
    "eigh": (jnp.linalg.eigh, "hermitian"),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), "general"),
    "batched_qr": (lambda a: jnp.linalg.qr(jnp.stack([a, 2 * a])), "general"),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(TPU_FUNCTIONS))
def test_tpu_export_equals_xla_cpu(name: str, dtype: Any) -> None:
    """JAX's TPU targets (interpreter/custom_calls/tpu.py): `Qr`, `ProductOfElementaryHouseholder
    Reflectors`, `LuDecomposition`, `Eigh` (and the QDWH SVD built of them)."""
    fn, kind = TPU_FUNCTIONS[name]
    spec = jax.ShapeDtypeStruct((5, 5), dtype)
    text = export.export(jax.jit(fn), platforms=["tpu"])(spec).mlir_module()
    assert any(f"@{t}" in text for t in ("Qr", "LuDecomposition", "Eigh")), "a TPU target is checked"
    a = _matrix(dtype, 5, kind, seed=11)
    got = run(parse(text), a)
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(export.export(jax.jit(fn), platforms=["cpu"])(spec).call(a))]
    tol = TOL[dtype] * 10
    if name == "eigh":
        check_eigh(a, got[1], got[0], want[0])
        return
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind in "iub":
            assert np.array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * np.abs(a).max())
