"""JAX's pre-FFI GPU forms (interpreter/custom_calls/gpu/legacy*.py) on self-written artifacts: today's
jax exports each function for CUDA / ROCm, `gpu_old_forms.rewrite` turns its typed-FFI calls into the
old forms (opaque descriptors, workspace results, tuple results, the dict forms of
lu_pivots_to_permutation and gtsv2), and our run of that program must equal our run of the FFI
program bit for bit (the same kernels, given the descriptor's parameters) and XLA CPU running the
CPU export (by value; eigen- and singular vectors by their identities).  Old jax cannot write these
on a CPU-only machine (plan 4.4); the real 2023/2024 artifacts of the jax history were checked at
development time (see the helper's report)."""

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
from tests.oracle.gpu_old_forms import rewrite

TOL = {"float32": 2e-4, "float64": 1e-10, "complex64": 2e-4, "complex128": 1e-10}
UNSTABLE = ["hipsparse_gtsv2_ffi"] + [f"lapack_{p}gesvd_ffi" for p in "sdcz"]
"""Targets JAX's export refuses unless told (ROCm's gtsv2; QR-SVD on the CPU reference)."""

QR = jax.lax.linalg.SvdAlgorithm.QR


def _matrix(shape: tuple[int, ...], dtype: str, kind: str = "general", seed: int = 0) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * r.normal(size=shape)
    if kind == "hermitian":
        a = a + np.swapaxes(a, -1, -2).conj()
    return a.astype(dtype)


def _tridiagonal(dtype: str, batch: tuple[int, ...] = ()) -> list[np.ndarray]:
    r = np.random.default_rng(3)
    m = 6
    dl, d, du = (r.normal(size=(*batch, m)) for _ in range(3))
    dl[..., 0] = du[..., -1] = 0  # (outside the matrix)
    return [dl.astype(dtype), (d + 5).astype(dtype), du.astype(dtype),
            r.normal(size=(*batch, m, 2)).astype(dtype)]


def _pivots(dtype: str) -> list[np.ndarray]:
    return [np.array([[2, 2, 4], [0, 3, 2], [1, 1, 2]], np.int32)]


# name -> (function, its arguments (from a dtype), old-form options, platforms, the old targets
#          expected (after the vendor prefix), how XLA's results compare)
Case = tuple[Callable[..., Any], Callable[[str], list[np.ndarray]], dict[str, Any], tuple[str, ...],
             set[str], str]
BOTH = ("cuda", "rocm")
CASES: dict[str, Case] = {
    "lu": (jax.scipy.linalg.lu, lambda t: [_matrix((5, 5), t)], {}, BOTH,
           {"solver_getrf", "_lu_pivots_to_permutation"}, "value"),
    "lu_wide_tuple": (jax.scipy.linalg.lu, lambda t: [_matrix((3, 5), t)], {"tuple_results": True},
                      BOTH, {"solver_getrf", "_lu_pivots_to_permutation"}, "value"),
    "lu_batched": (jax.scipy.linalg.lu_factor, lambda t: [_matrix((3, 4, 4), t)], {"batched": True},
                   BOTH, {"blas_getrf_batched"}, "value"),
    "solve_pivots_dict": (lambda a: jnp.linalg.solve(a, jnp.ones(a.shape[:1], a.dtype)),
                          lambda t: [_matrix((4, 4), t)], {"pivots": "dict"}, BOTH,
                          {"solver_getrf", "_lu_pivots_to_permutation"}, "value"),
    "pivots_size": (lambda p: jax.lax.linalg.lu_pivots_to_permutation(p, 6), _pivots,
                    {"pivots": "size"}, BOTH, {"_lu_pivots_to_permutation"}, "value"),
    "qr": (jnp.linalg.qr, lambda t: [_matrix((5, 3), t)], {}, BOTH,
           {"solver_geqrf", "solver_orgqr"}, "value"),
    "qr_batched_tuple": (jnp.linalg.qr, lambda t: [_matrix((2, 4, 3), t)],
                         {"batched": True, "tuple_results": True}, BOTH,
                         {"blas_geqrf_batched", "solver_orgqr"}, "value"),
    "eigh": (jnp.linalg.eigh, lambda t: [_matrix((5, 5), t, "hermitian")], {}, BOTH,
             {"solver_syevj"}, "eigh"),
    "eigh_batched": (jnp.linalg.eigh, lambda t: [_matrix((3, 4, 4), t, "hermitian")], {}, BOTH,
                     {"solver_syevj"}, "eigh"),
    "eigh_upper_large": (lambda a: jax.lax.linalg.eigh(a, lower=False)[::-1],
                         lambda t: [_matrix((34, 34), t, "hermitian")], {"tuple_results": True},
                         BOTH, {"solver_syevd"}, "eigh"),
    "svd_jacobi": (jnp.linalg.svd, lambda t: [_matrix((5, 4), t)], {}, ("cuda",),
                   {"solver_gesvdj"}, "svd"),
    "svd_jacobi_econ": (lambda a: jnp.linalg.svd(a, full_matrices=False),
                        lambda t: [_matrix((40, 34), t)], {}, ("cuda",), {"solver_gesvdj"}, "svd"),
    "svd_jacobi_batched": (lambda a: jnp.linalg.svd(a, full_matrices=False),
                           lambda t: [_matrix((2, 5, 4), t)], {"tuple_results": True}, ("cuda",),
                           {"solver_gesvdj"}, "svd"),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), lambda t: [_matrix((4, 5), t)],
                   {}, ("cuda",), {"solver_gesvdj"}, "value"),
    "svd_qr_tall": (lambda a: jax.lax.linalg.svd(a, algorithm=QR), lambda t: [_matrix((6, 4), t)],
                    {}, BOTH, {"solver_gesvd"}, "svd"),
    "svd_qr_wide_econ": (lambda a: jax.lax.linalg.svd(a, full_matrices=False, algorithm=QR),
                         lambda t: [_matrix((3, 5), t)], {}, BOTH, {"solver_gesvd"}, "svd"),
    "svd_qr_wide_values": (lambda a: jax.lax.linalg.svd(a, compute_uv=False, algorithm=QR),
                           lambda t: [_matrix((3, 5), t)], {}, BOTH, {"solver_gesvd"}, "value"),
    "tridiagonal": (lambda a: jax.lax.linalg.tridiagonal(a, lower=True),
                    lambda t: [_matrix((5, 5), t, "hermitian")], {}, BOTH, {"solver_sytrd"},
                    "value"),
    "tridiagonal_upper": (lambda a: jax.lax.linalg.tridiagonal(a, lower=False),
                          lambda t: [_matrix((5, 5), t, "hermitian")], {}, BOTH, {"solver_sytrd"},
                          "value"),
    "tridiagonal_solve": (jax.lax.linalg.tridiagonal_solve, _tridiagonal, {}, BOTH,
                          {"sparse_gtsv2_{t}"}, "value"),
    "tridiagonal_solve_batched": (jax.lax.linalg.tridiagonal_solve,
                                  lambda t: _tridiagonal(t, (2,)),
                                  {}, BOTH, {"sparse_gtsv2_{t}"}, "value"),
    "tridiagonal_solve_ffi": (jax.lax.linalg.tridiagonal_solve, _tridiagonal, {"gtsv2": "ffi"},
                              BOTH, {"sparse_gtsv2_{t}_ffi"}, "value"),
}
DTYPES = {
    # (the old gtsv2 kernels were real only; the pivots are integers)
    "tridiagonal_solve": ("float32", "float64"),
    "tridiagonal_solve_batched": ("float64",),
    "tridiagonal_solve_ffi": ("float32", "float64"),
    "pivots_size": ("int32",),
}
DEFAULT_DTYPES = ("float32", "float64", "complex64", "complex128")
VENDORS = {"cuda": "cu", "rocm": "hip"}
SHORT = {"float32": "f32", "float64": "f64"}
LIBRARIES = {"cu": {"solver": "cusolver", "blas": "cublas", "sparse": "cusparse"},
             "hip": {"solver": "hipsolver", "blas": "hipblas", "sparse": "hipsparse"}}

PARAMS = [
    pytest.param(name, platform, dtype, id=f"{name}-{platform}-{dtype}")
    for name, case in CASES.items()
    for platform in case[3]
    for dtype in DTYPES.get(name, DEFAULT_DTYPES)
]


def _export(fn: Callable[..., Any], args: list[np.ndarray], platform: str) -> Any:
    specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in args]
    checks = [export.DisabledSafetyCheck.custom_call(t) for t in UNSTABLE]
    return export.export(jax.jit(fn), platforms=[platform], disabled_checks=checks)(*specs)


def _target(vendor: str, routine: str) -> str:
    library, _, rest = routine.partition("_")
    return f"{vendor}{routine}" if not library else f"{LIBRARIES[vendor][library]}_{rest}"


def _close(got: np.ndarray, want: np.ndarray, tol: float, what: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if got.dtype.kind in "iub":
        assert np.array_equal(got, want), what
    else:
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def _agree(
    kind: str, got: list[np.ndarray], want: list[np.ndarray], a: np.ndarray, tol: float
) -> None:
    """Our old-form results against XLA CPU's: by value, eigen- and singular vectors by their
    identities."""
    assert len(got) == len(want)
    if kind == "eigh":  # (w, v)
        check_eigh(a, got[1], got[0], want[0])
    elif kind == "svd":  # (U, s, V^H)
        check_svd(a, *got, want[1])
    else:
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, tol * 10, f"result {i}")


@pytest.mark.parametrize(("name", "platform", "dtype"), PARAMS)
def test_old_form_equals_ffi_form_and_xla_cpu(name: str, platform: str, dtype: str) -> None:
    with jax.enable_x64(True):
        _check(name, platform, dtype)


def _check(name: str, platform: str, dtype: str) -> None:
    fn, args_of, options, _, routines, kind = CASES[name]
    args = args_of(dtype)
    text = _export(fn, args, platform).mlir_module()
    old_text, targets = rewrite(text, **options)
    vendor = VENDORS[platform]
    assert set(targets) == {_target(vendor, r.format(t=SHORT.get(dtype))) for r in routines}
    assert ("tuple<" in old_text) == bool(options.get("tuple_results"))
    got = run(parse(old_text), *args)
    ffi = run(parse(text), *args)
    for i, (g, f) in enumerate(zip(got, ffi, strict=True)):
        same = g.dtype == f.dtype and np.array_equal(g, f, equal_nan=True)
        assert same, f"result {i}: the old form's differs from the FFI form's"
    cpu = _export(fn, args, "cpu")
    want = [np.asarray(w) for w in jax.tree_util.tree_leaves(cpu.call(*args))]
    _agree(kind, got, want, args[0], TOL.get(dtype, 0.0))
