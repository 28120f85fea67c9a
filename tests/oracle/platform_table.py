"""Issue 25's Done-when table: JAX functions exported for every platform (`test_platform_table.py`).

One `Row` per JAX function (or per variant that reaches different custom calls): how to call it,
the arguments it gets (made by an argument maker from a dtype, a seed and a size), the dtypes it
allows, and how our interpretation of each platform's export is compared with XLA CPU running the
CPU export:

* ``"value"``: floats within a few machine epsilons (`linalg_identities.assert_close`), integers and
  booleans exactly;
* ``"bits"``: every output bit for bit (PRNG results and exact functions: sort, top_k, cummax);
* ``"shape"``: shapes and dtypes only (`jnp.empty`: its value is undefined);
* any other name: an identity checker of `linalg_identities.CHECKS` (decompositions unique only
  up to signs, phases or the basis of a repeated eigenspace).

Cells that do not run are data here, so the table notices when JAX changes:
``not_lowered`` (JAX's export raises for that platform: the test asserts it raises, then skips),
``pending`` (our interpreter fails: an expected failure, strict, with the reason), ``since`` (the
oldest jax whose API or lowering has the row).  Targets JAX does not promise to keep
(`UNSTABLE_TARGETS`) are exported with their safety check disabled, as an artifact can carry them.

Entry points left out (pure StableHLO, no decomposition and no custom call on any platform, covered
by `test_interpreter_vs_xla.py` and `test_jax_export_functions.py`):
- `jnp.linalg`: cross, diagonal, matmul, matrix_transpose, multi_dot, outer, tensordot, trace,
  vecdot, vector_norm (elementwise, dot_general, transpose, reduce).
- `jax.scipy.linalg`: block_diag, circulant, companion, convolution_matrix, dft, fiedler,
  fiedler_companion, hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie, pascal,
  toeplitz (constructors of special matrices from vectors or sizes: iota, gather, concatenate).
Every other entry point of `jnp.linalg` and `jax.scipy.linalg` (`dir()` of each, jax 0.10.2 and
0.12.0.1 have the same names) has a row; `test_every_entry_point_is_listed` checks it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jax import export as jax_export
from jax import lax

PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
GPUS = ("cuda", "rocm")
DTYPES: dict[str, Any] = {
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
    "u32": np.uint32,
    "u8": np.uint8,
    "i32": np.int32,
}
FLOATS = ("f32", "f64", "c64", "c128")
REAL = ("f32", "f64")

N = 4
"""The size of every matrix (the first symbolic dimension's value for the shape-polymorphic rows
is taken from `POLY_SIZES` instead)."""
POLY_SIZES = (2, 5)

LEFT_OUT = {
    "jnp.linalg": (
        "cross", "diagonal", "matmul", "matrix_transpose", "multi_dot", "outer", "tensordot",
        "trace", "vecdot", "vector_norm",
    ),
    "jax.scipy.linalg": (
        "block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler",
        "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "invhilbert",
        "invpascal", "leslie", "pascal", "toeplitz",
    ),
}

UNSTABLE_TARGETS = tuple(
    [f"lapack_{t}{r}_ffi" for t in "sdcz" for r in ("geqp3", "ormqr", "unmqr", "gesvd")]
    + [f"{p}solver_{r}_ffi" for p in ("cu", "hip") for r in ("ormqr", "gesvdp", "geev", "syrk")]
    + [f"{p}hybrid_{r}" for p in ("cu", "hip") for r in ("eig_real", "eig_comp", "geqp3")]
    + [f"{p}_{r}" for p in ("cu", "hip")
       for r in ("cholesky_update_ffi", "tridiagonal_solve_perturbed")]
    + ["tridiagonal_solve_perturbed_ffi", "hipsparse_gtsv2_ffi"]
)
"""Custom-call targets JAX's export refuses unless their safety check is disabled (not in
`_export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE`, plan 1.2 and 1.3)."""


# ---------------------------------------------------------------------------------------------
# argument makers: (dtype, numpy Generator, size) -> the function's arguments


Maker = Callable[[Any, np.random.Generator, int], tuple[np.ndarray, ...]]


def _normal(dtype: Any, r: np.random.Generator, *shape: int) -> np.ndarray:
    x = r.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.normal(size=shape)
    return x.astype(dtype)


def _matrix(dtype: Any, r: np.random.Generator, n: int, kind: str) -> np.ndarray:
    a = _normal(dtype, r, n, n).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    a = {
        "general": a + n * np.eye(n),  # well conditioned
        "spd": a @ a.conj().T + n * np.eye(n),
        "hermitian": a + a.conj().T,
        "upper": np.triu(a) + n * np.eye(n),
        "small": a / (2 * n),  # norm < 1: expm, sqrtm of I + small, funm
    }[kind]
    return a.astype(dtype)


def square(kind: str) -> Maker:
    return lambda dtype, r, n: (_matrix(dtype, r, n, kind),)


def with_rhs(kind: str, cols: int) -> Maker:
    """A square matrix of ``kind`` and a right-hand side with ``cols`` columns (0: a vector)."""
    return lambda dtype, r, n: (
        _matrix(dtype, r, n, kind),
        _normal(dtype, r, *((n, cols) if cols else (n,))),
    )


def rect(rows: int, cols: int) -> Maker:
    return lambda dtype, r, n: (_normal(dtype, r, rows, cols),)


def two_square(kind_a: str, kind_b: str) -> Maker:
    return lambda dtype, r, n: (_matrix(dtype, r, n, kind_a), _matrix(dtype, r, n, kind_b))


def tridiagonal_system(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """(dl, d, du, b) of a diagonally dominant tridiagonal system, LAPACK's gtsv convention
    (dl[0] = du[n-1] = 0)."""
    dl, du = _normal(dtype, r, n), _normal(dtype, r, n)
    dl[0] = du[-1] = 0
    d = (_normal(dtype, r, n) + 4).astype(dtype)
    return dl, d, du, _normal(dtype, r, n, 2)


def real_schur(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """(T, Z) of a real Schur form with one 2x2 block (rsf2csf's input)."""
    t = np.triu(_normal(dtype, r, n, n)) + np.diag(np.arange(1, n + 1)).astype(dtype)
    t[1, 0], t[0, 1] = -1.5, 2.0
    z, _ = np.linalg.qr(_normal(dtype, r, n, n))
    return t.astype(dtype), z.astype(dtype)


def batched(maker: Maker, batch: int = 2) -> Maker:
    """``batch`` draws of ``maker`` stacked (the GPU kernels' batch dimension, info i32[batch])."""
    return lambda dtype, r, n: tuple(
        np.stack(parts) for parts in zip(*(maker(dtype, r, n) for _ in range(batch)), strict=True)
    )


def vector(shape_of: Callable[[int], tuple[int, ...]]) -> Maker:
    return lambda dtype, r, n: (_normal(dtype, r, *shape_of(n)),)


def key_and_like(shape: tuple[int, ...]) -> Maker:
    """A threefry key's data (u32[2]) and a zero array whose shape and dtype the random function
    takes (so the dtype axis of the table is the output's)."""
    return lambda dtype, r, n: (
        r.integers(0, 2**32, size=2, dtype=np.uint64).astype(np.uint32),
        np.zeros(shape, dtype),
    )


def rbg_key_and_like(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """An RBG key's data (u32[4]) and a zero (n, 3) array (the symbolic output shape)."""
    return r.integers(0, 2**32, size=4, dtype=np.uint64).astype(np.uint32), np.zeros((n, 3), dtype)


def empty_like(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return (np.zeros((n, 3), dtype),)


# ---------------------------------------------------------------------------------------------
# the rows


def _frozen(**kw: str) -> Mapping[str, str]:
    return MappingProxyType(kw)


@dataclass(frozen=True)
class Row:
    name: str
    fn: Callable[..., Any]
    args: Maker
    dtypes: tuple[str, ...] = FLOATS
    compare: str = "value"
    platforms: tuple[str, ...] = PLATFORMS
    not_lowered: Mapping[str, str] = field(default_factory=_frozen)
    """platform -> why JAX's export raises for it (asserted, then skipped)."""
    pending: Mapping[str, str] = field(default_factory=_frozen)
    """platform (or "platform/dtype") -> why our interpretation fails today (xfail, strict)."""
    config: Mapping[str, Any] = field(default_factory=_frozen)
    """jax.config values set while exporting."""
    poly: tuple[str, ...] | None = None
    """Symbolic shapes of the arguments ("b, 5"; "" for a static argument): export once, run at
    each of `POLY_SIZES`."""
    since: tuple[int, ...] = (0,)
    """The oldest jax version with the row (an older one skips it, saying so)."""
    reference: Callable[..., Any] | None = None
    """What XLA CPU runs as the reference when JAX does not lower the row's own function for CPU
    (the same decomposition by another algorithm); None: the row's function."""


def _jax_version() -> tuple[int, ...]:
    return tuple(int(p) for p in jax.__version__.split(".")[:3])


JAX_VERSION = _jax_version()


def _solve(a: Any, b: Any) -> Any:
    return jnp.linalg.solve(a, b)


def _tensorinv_arg(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return (_matrix(dtype, r, n, "general").reshape(n, 2, n // 2),)  # ind=1: (4,) x (2, 2)


def _tensorsolve_args(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    return _matrix(dtype, r, n, "general").reshape(2, n // 2, n), _normal(dtype, r, 2, n // 2)


def _cholesky_update_args(dtype: Any, r: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """An upper Cholesky factor R and a vector w (R^T R + w w^T = R'^T R')."""
    a = _matrix(dtype, r, n, "spd")
    return np.linalg.cholesky(a).conj().T.astype(dtype), _normal(dtype, r, n)


def _threefry(
    name: str, fn: Callable[..., Any], dtypes: tuple[str, ...], compare: str
) -> list[Row]:
    """The default lowering (Threefry in StableHLO) and, on GPUs, JAX's kernel
    (`jax_threefry_gpu_kernel_lowering`: cu/hip_threefry2x32_ffi)."""
    args = key_and_like((3, 5))
    return [
        Row(name, fn, args, dtypes, compare),
        Row(f"{name}[gpu_kernel]", fn, args, dtypes, compare, platforms=GPUS,
            config=_frozen(jax_threefry_gpu_kernel_lowering=True)),  # type: ignore[arg-type]
    ]


def _key(k: Any) -> Any:
    return jax.random.wrap_key_data(k, impl="threefry2x32")


SVD, EIGH, EIG = (
    lax.linalg.SvdAlgorithm, lax.linalg.EighImplementation, lax.linalg.EigImplementation
)
TPU_SVD_POLAR_ONLY = "JAX: only the POLAR SVD algorithm (the default) is implemented on TPU"
CPU_SVD_NO_JACOBI_POLAR = "JAX: the SVD Jacobi and Polar algorithms are not implemented on CPU"
NO_TPU_EIG = "JAX has no TPU lowering of eig (MLIR translation rule for primitive 'eig' not found)"
NO_GPU_SCHUR = "JAX lowers schur on CPU only"
NO_HESSENBERG = "JAX lowers hessenberg on CPU only"
NO_TRIDIAGONAL = "JAX has no TPU lowering of tridiagonal"

ROWS: list[Row] = [
    # jnp.linalg
    Row("jnp.linalg.cholesky", jnp.linalg.cholesky, square("spd")),
    Row("jnp.linalg.cond", jnp.linalg.cond, square("general")),
    Row("jnp.linalg.det", jnp.linalg.det, square("general")),
    Row("jnp.linalg.eig", jnp.linalg.eig, square("general"), compare="eig",
        not_lowered=_frozen(tpu=NO_TPU_EIG)),
    Row("jnp.linalg.eigvals", jnp.linalg.eigvals, square("general"), compare="eigvals",
        not_lowered=_frozen(tpu=NO_TPU_EIG)),
    Row("jnp.linalg.eigh", jnp.linalg.eigh, square("hermitian"), compare="eigh"),
    Row("jnp.linalg.eigvalsh", jnp.linalg.eigvalsh, square("hermitian")),
    Row("jnp.linalg.inv", jnp.linalg.inv, square("general")),
    Row("jnp.linalg.lstsq", lambda a, b: jnp.linalg.lstsq(a, b)[0], lambda d, r, n: (
        _normal(d, r, n + 2, n), _normal(d, r, n + 2, 2))),
    Row("jnp.linalg.matrix_norm", lambda a: jnp.linalg.matrix_norm(a, ord="nuc"),
        square("general")),
    Row("jnp.linalg.matrix_power", lambda a: jnp.linalg.matrix_power(a, -2), square("general")),
    Row("jnp.linalg.matrix_rank", jnp.linalg.matrix_rank, rect(N + 1, N), compare="bits"),
    Row("jnp.linalg.norm", lambda a: jnp.linalg.norm(a, ord=2), square("general")),
    Row("jnp.linalg.pinv", jnp.linalg.pinv, rect(N + 1, N - 1)),
    Row("jnp.linalg.qr", jnp.linalg.qr, rect(N + 1, N), compare="qr"),
    Row("jnp.linalg.qr[complete]", lambda a: jnp.linalg.qr(a, mode="complete"), rect(N - 1, N),
        compare="qr"),
    Row("jnp.linalg.qr[r]", lambda a: jnp.linalg.qr(a, mode="r"), rect(N + 1, N)),
    Row("jnp.linalg.slogdet", jnp.linalg.slogdet, square("general")),
    Row("jnp.linalg.solve", _solve, with_rhs("general", 2)),
    Row("jnp.linalg.svd", jnp.linalg.svd, rect(N + 1, N), compare="svd"),
    Row("jnp.linalg.svd[reduced]", lambda a: jnp.linalg.svd(a, full_matrices=False), rect(N - 1, N),
        compare="svd"),
    Row("jnp.linalg.svdvals", jnp.linalg.svdvals, rect(N + 1, N)),
    Row("jnp.linalg.tensorinv", lambda a: jnp.linalg.tensorinv(a, ind=1), _tensorinv_arg),
    Row("jnp.linalg.tensorsolve", jnp.linalg.tensorsolve, _tensorsolve_args),
    # batched (a leading batch dimension: the kernels' batch count, info per matrix)
    Row("jnp.linalg.cholesky[batched]", jnp.linalg.cholesky, batched(square("spd"))),
    Row("jnp.linalg.eigh[batched]", jnp.linalg.eigh, batched(square("hermitian")), compare="eigh"),
    Row("jnp.linalg.qr[batched]", jnp.linalg.qr, batched(rect(N + 1, N)), compare="qr"),
    Row("jnp.linalg.solve[batched]", _solve, batched(with_rhs("general", 2))),
    Row("jnp.linalg.svd[batched]", jnp.linalg.svd, batched(rect(N, N - 1)), compare="svd"),
    # jax.scipy.linalg
    Row("jsl.cho_factor", lambda a: jsl.cho_factor(a)[0], square("spd")),
    Row("jsl.cho_solve", lambda c, b: jsl.cho_solve((c, False), b), lambda d, r, n: (
        np.linalg.cholesky(_matrix(d, r, n, "spd")).conj().T.astype(d), _normal(d, r, n, 2))),
    Row("jsl.cholesky", jsl.cholesky, square("spd")),
    Row("jsl.det", jsl.det, square("general")),
    Row("jsl.eigh", jsl.eigh, square("hermitian"), compare="eigh"),
    Row("jsl.eigh_tridiagonal", lambda d, e: jsl.eigh_tridiagonal(d, e, eigvals_only=True),
        lambda d, r, n: (_normal(d, r, n), _normal(d, r, n - 1)), dtypes=REAL),
    Row("jsl.expm", jsl.expm, square("small")),
    Row("jsl.expm_frechet", lambda a, e: jsl.expm_frechet(a, e), two_square("small", "small")),
    Row("jsl.funm", lambda a: jsl.funm(a, jnp.exp), square("small"),
        not_lowered=_frozen(cuda=NO_GPU_SCHUR, rocm=NO_GPU_SCHUR, tpu=NO_GPU_SCHUR)),
    Row("jsl.hessenberg", lambda a: jsl.hessenberg(a, calc_q=True), square("general"),
        compare="hessenberg",
        not_lowered=_frozen(cuda=NO_HESSENBERG, rocm=NO_HESSENBERG, tpu=NO_HESSENBERG)),
    Row("jsl.inv", jsl.inv, square("general")),
    Row("jsl.lu", jsl.lu, square("general")),
    Row("jsl.lu_factor", jsl.lu_factor, square("general")),
    Row("jsl.lu_solve", lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b), with_rhs("general", 2)),
    Row("jsl.polar", jsl.polar, square("general")),
    Row("jsl.qr", jsl.qr, rect(N + 1, N), compare="qr"),
    Row("jsl.qr[pivoting]", lambda a: jsl.qr(a, pivoting=True), rect(N + 1, N),
        compare="qr_pivoting", not_lowered=_frozen(tpu="JAX has no TPU lowering of geqp3")),
    Row("jsl.qr_multiply", lambda a, c: jsl.qr_multiply(a, c), lambda d, r, n: (
        _normal(d, r, n, n), _normal(d, r, 2, n))),
    Row("jsl.rsf2csf", jsl.rsf2csf, real_schur, dtypes=REAL, not_lowered=_frozen(tpu=NO_TPU_EIG)),
    Row("jsl.schur", jsl.schur, square("general"), compare="schur",
        not_lowered=_frozen(cuda=NO_GPU_SCHUR, rocm=NO_GPU_SCHUR, tpu=NO_GPU_SCHUR)),
    Row("jsl.solve", jsl.solve, with_rhs("general", 2)),
    Row("jsl.solve[pos]", lambda a, b: jsl.solve(a, b, assume_a="pos"), with_rhs("spd", 2)),
    Row("jsl.solve_sylvester", jsl.solve_sylvester, lambda d, r, n: (
        _matrix(d, r, n, "general"), _matrix(d, r, n, "general"), _normal(d, r, n, n)),
        not_lowered=_frozen(cuda=NO_GPU_SCHUR, rocm=NO_GPU_SCHUR, tpu=NO_GPU_SCHUR)),
    Row("jsl.solve_triangular", jsl.solve_triangular, lambda d, r, n: (
        _matrix(d, r, n, "upper"), _normal(d, r, n, 2))),
    Row("jsl.sqrtm", jsl.sqrtm, lambda d, r, n: (
        (_matrix(d, r, n, "small") + np.eye(n)).astype(d),),
        not_lowered=_frozen(cuda=NO_GPU_SCHUR, rocm=NO_GPU_SCHUR, tpu=NO_GPU_SCHUR)),
    Row("jsl.svd", jsl.svd, rect(N + 1, N), compare="svd"),
    # lax.linalg: the rest of the plan's targets
    Row("lax.linalg.cholesky_update", lax.linalg.cholesky_update, _cholesky_update_args,
        dtypes=REAL),
    Row("lax.linalg.symmetric_product",
        # (symmetrized: cuBLAS's syrk writes one triangle and leaves the other as C was)
        lambda a, c: lax.linalg.symmetric_product(
            a, c, alpha=2.0, beta=0.5, symmetrize_output=True),
        two_square("general", "hermitian"), dtypes=REAL),
    Row("lax.linalg.tridiagonal", lambda a: lax.linalg.tridiagonal(a, lower=True),
        square("hermitian"), not_lowered=_frozen(tpu=NO_TRIDIAGONAL)),
    Row("lax.linalg.tridiagonal_solve", lax.linalg.tridiagonal_solve, tridiagonal_system),
    Row("lax.linalg.tridiagonal_solve[perturbed]",
        lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True),
        tridiagonal_system,
        not_lowered=_frozen(tpu="JAX: perturb_singular=True is not supported on this platform")),
    Row("lax.linalg.lu_pivots_to_permutation",
        lambda p: lax.linalg.lu_pivots_to_permutation(p, N + 2),
        lambda d, r, n: (np.array([[0, 1, 2, 3], [3, 3, 5, 4], [5, 0, 1, 2]], np.int32),),
        dtypes=("i32",), compare="bits"),
    # lax.linalg's algorithm choices (each reaches another GPU or TPU target; cusolver_geev_ffi is
    # left out: JAX chooses it only when it knows cuSOLVER >= 11.7.1 at trace time, never on a
    # CPU-only machine, where `EigImplementation.CUSOLVER` raises for every platform)
    Row("lax.linalg.svd[qr]", lambda a: lax.linalg.svd(a, algorithm=SVD.QR), rect(N + 1, N),
        compare="svd", not_lowered=_frozen(tpu=TPU_SVD_POLAR_ONLY)),
    Row("lax.linalg.svd[qr,wide]",
        lambda a: lax.linalg.svd(a, full_matrices=False, algorithm=SVD.QR), rect(N - 1, N),
        compare="svd", not_lowered=_frozen(tpu=TPU_SVD_POLAR_ONLY)),
    Row("lax.linalg.svd[jacobi]", lambda a: lax.linalg.svd(a, algorithm=SVD.JACOBI),
        rect(N + 1, N), compare="svd", reference=jnp.linalg.svd,
        not_lowered=_frozen(cpu=CPU_SVD_NO_JACOBI_POLAR, tpu=TPU_SVD_POLAR_ONLY)),
    Row("lax.linalg.svd[polar]", lambda a: lax.linalg.svd(a, algorithm=SVD.POLAR),
        square("general"), compare="svd", reference=jnp.linalg.svd,
        not_lowered=_frozen(cpu=CPU_SVD_NO_JACOBI_POLAR)),
    Row("lax.linalg.svd[divide_and_conquer]",
        lambda a: lax.linalg.svd(a, algorithm=SVD.DIVIDE_AND_CONQUER), rect(N + 1, N),
        compare="svd", since=(0, 10),
        not_lowered=_frozen(cuda="JAX lowers SvdAlgorithm.DIVIDE_AND_CONQUER for ROCm only",
                            tpu=TPU_SVD_POLAR_ONLY)),
    Row("lax.linalg.eigh[qr]", lambda a: lax.linalg.eigh(a, implementation=EIGH.QR)[::-1],
        square("hermitian"), compare="eigh",
        not_lowered=_frozen(tpu="JAX: QR algorithm is not supported on TPU")),
    Row("lax.linalg.eigh[jacobi]",
        lambda a: lax.linalg.eigh(a, implementation=EIGH.JACOBI)[::-1],
        square("hermitian"), compare="eigh", reference=jnp.linalg.eigh,
        not_lowered=_frozen(cpu="JAX: Jacobi implementation is not supported on CPU")),
    Row("lax.linalg.eigh[qdwh]", lambda a: lax.linalg.eigh(a, implementation=EIGH.QDWH)[::-1],
        square("hermitian"), compare="eigh", reference=jnp.linalg.eigh,
        not_lowered=_frozen(**dict.fromkeys(("cpu", *GPUS), "JAX: QDWH is only supported on TPU"))),
    Row("lax.linalg.eig[magma]",
        lambda a: lax.linalg.eig(a, compute_left_eigenvectors=False, implementation=EIG.MAGMA),
        square("general"), compare="eig", reference=jnp.linalg.eig,
        not_lowered=_frozen(cpu="JAX: only the LAPACK implementation is supported on CPU",
                            tpu=NO_TPU_EIG)),
    # sorting and selection
    Row("jnp.sort", lambda x: jnp.sort(x, axis=-1), vector(lambda n: (3, 2 * n)), compare="bits"),
    Row("jnp.argsort", lambda x: jnp.argsort(x, axis=0), vector(lambda n: (2 * n, 3)),
        compare="bits"),
    Row("lax.top_k", lambda x: lax.top_k(x, 3), vector(lambda n: (3, 2 * n)), dtypes=REAL,
        compare="bits"),
    Row("lax.approx_max_k", lambda x: lax.approx_max_k(x, 3), vector(lambda n: (3, 4 * n)),
        dtypes=REAL, compare="bits"),
    Row("lax.approx_min_k", lambda x: lax.approx_min_k(x, 3, reduction_dimension=0),
        vector(lambda n: (4 * n, 3)), dtypes=REAL, compare="bits"),
    # random numbers under threefry
    *_threefry("jax.random.bits", lambda k, x: jax.random.bits(_key(k), x.shape, x.dtype),
               ("u32", "u8"), "bits"),
    *_threefry("jax.random.uniform", lambda k, x: jax.random.uniform(_key(k), x.shape, x.dtype),
               REAL, "bits"),
    *_threefry("jax.random.normal", lambda k, x: jax.random.normal(_key(k), x.shape, x.dtype),
               FLOATS, "value"),  # (erf_inv: numpy's transcendentals are not XLA's, by ulps)
    # cumulative ops
    Row("jnp.cumsum", lambda x: jnp.cumsum(x, axis=0), vector(lambda n: (2 * n, 3))),
    # (jax 0.12 writes a real GPU cumsum as a `chlo.scan` composite whose composite_attributes
    # hold builtin `array<i32: 1, 1>` values: test_chlo_scan_artifact.py)
    Row("jnp.cumprod", lambda x: jnp.cumprod(x, axis=1), vector(lambda n: (3, 2 * n))),
    Row("lax.cummax", lambda x: lax.cummax(x, axis=0), vector(lambda n: (2 * n, 3)), dtypes=REAL,
        compare="bits"),
    Row("lax.cumlogsumexp", lambda x: lax.cumlogsumexp(x, axis=0), vector(lambda n: (2 * n, 3)),
        dtypes=REAL),
    # shape-polymorphic
    Row("poly.top_k", lambda x: lax.top_k(x, x.shape[0]), vector(lambda n: (n, n + 2)),
        dtypes=REAL, compare="bits", poly=("b, b + 2",)),
    Row("poly.approx_max_k", lambda x: lax.approx_max_k(x, x.shape[0]),
        vector(lambda n: (n, n + 8)),
        dtypes=REAL, compare="bits", poly=("b, b + 8",)),
    Row("poly.cumsum", lambda x: jnp.cumsum(x, axis=0), vector(lambda n: (n, 3)), poly=("b, 3",)),
    Row("poly.reduce_window",
        lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 2), "SAME"),
        vector(lambda n: (n, n + 1)), dtypes=REAL, compare="bits", poly=("b, c",)),
    Row("poly.random_bits",
        lambda k, x: jax.random.bits(jax.random.wrap_key_data(k, impl="rbg"), x.shape, x.dtype),
        rbg_key_and_like, dtypes=("u32", "u8"), compare="bits", poly=("4", "b, 3")),
    # uninitialized memory
    Row("jnp.empty", lambda x: jnp.empty(x.shape, x.dtype), empty_like, compare="shape"),
]


ROW = {row.name: row for row in ROWS}
assert len(ROW) == len(ROWS), "row names are unique"


# ---------------------------------------------------------------------------------------------
# exporting a row


def arguments(row: Row, dtype: str, n: int = N) -> tuple[np.ndarray, ...]:
    """The row's arguments at ``dtype`` (and size ``n``), the same in every process."""
    seed = sum(map(ord, f"{row.name}/{dtype}/{n}"))
    return tuple(np.asarray(a) for a in row.args(DTYPES[dtype], np.random.default_rng(seed), n))


@contextlib.contextmanager
def jax_config(values: Mapping[str, Any]) -> Iterator[None]:
    old = {k: getattr(jax.config, k) for k in values}
    try:
        for k, v in values.items():
            jax.config.update(k, v)
        yield
    finally:
        for k, v in old.items():
            jax.config.update(k, v)


def flat(fn: Callable[..., Any]) -> Callable[..., tuple[Any, ...]]:
    """``fn`` returning the tuple of its result's leaves (JAX cannot serialize an `Exported` whose
    result is one of its named tuples, e.g. `SVDResult`)."""
    return lambda *args: tuple(jax.tree_util.tree_leaves(fn(*args)))


def specs(row: Row, dtype: str) -> list[Any]:
    """The `jax.ShapeDtypeStruct`s the row is exported for: the arguments' shapes, or the row's
    symbolic shapes (one scope for all arguments)."""
    example = arguments(row, dtype)
    if row.poly is None:
        return [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in example]
    scope = jax_export.SymbolicScope()
    return [
        jax.ShapeDtypeStruct(jax_export.symbolic_shape(s, scope=scope) if s else (), a.dtype)
        for s, a in zip(row.poly, example, strict=True)
    ]


def export_reference(row: Row, dtype: str) -> Any:
    """The CPU export XLA CPU runs as the row's reference (`Row.reference`)."""
    if row.reference is None:
        return export(row, "cpu", dtype)
    return export(replace(row, fn=row.reference, reference=None), "cpu", dtype)


def export(row: Row, platform: str, dtype: str) -> Any:
    """`jax.export.export` of the row for ``platform`` at ``dtype`` (its unstable custom calls
    allowed, its jax.config values set)."""
    checks = [jax_export.DisabledSafetyCheck.custom_call(t) for t in UNSTABLE_TARGETS]
    with jax_config(row.config):
        exporter = jax_export.export(
            jax.jit(flat(row.fn)), platforms=[platform], disabled_checks=checks
        )
        return exporter(*specs(row, dtype))
