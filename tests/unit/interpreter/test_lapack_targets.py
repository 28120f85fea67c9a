"""JAX's CPU LAPACK targets on small hand-checked inputs: info outputs, 1-based pivots, batching, the
operand/result layouts, the typed-FFI attributes and the errors (runs without JAX; scipy is in the
`test` extra)."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import numpy as np
import pytest
from xdsl.dialects.builtin import ComplexType, Float32Type, Float64Type, IntegerType, TensorType

pytest.importorskip("scipy")

from stablehlo_py.interpreter.custom_calls.lapack import LAPACK_TARGETS

from stablehlo_py.errors import InterpreterError, NotSupportedError

ELEMENT = {
    np.dtype(np.float32): Float32Type(),
    np.dtype(np.float64): Float64Type(),
    np.dtype(np.complex64): ComplexType(Float32Type()),
    np.dtype(np.complex128): ComplexType(Float64Type()),
    np.dtype(np.int32): IntegerType(32),
}
PREFIX = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}


def T(shape, dtype):
    return TensorType(ELEMENT[np.dtype(dtype)], list(shape))


def _jax_layout(rank: int, max_rank: int) -> tuple[int, ...]:
    """JAX's layouts: column-major matrices for the largest-rank buffers, row-major for the others."""
    if rank == max_rank and rank >= 2:
        return (rank - 2, rank - 1, *range(rank - 3, -1, -1))
    return tuple(range(rank - 1, -1, -1))


def call(target, operands, results, attrs=None, operand_layouts="jax", result_layouts="jax"):
    operands = tuple(np.asarray(x) for x in operands)
    max_rank = max(x.ndim for x in operands)
    if operand_layouts == "jax":
        operand_layouts = tuple(_jax_layout(x.ndim, max_rank) for x in operands)
    if result_layouts == "jax":
        result_layouts = tuple(_jax_layout(len(t.get_shape()), max_rank) for t in results)
    ctx = SimpleNamespace(
        struct_size=16,
        api_version=(1, 0),
        target_name=target,
        operands=operands,
        operand_types=tuple(T(x.shape, x.dtype) for x in operands),
        result_types=tuple(results),
        backend_config=dict(attrs or {}),
        attributes={},
        operand_layouts=operand_layouts,
        result_layouts=result_layouts,
        api_version_attr=4,
        has_side_effect=False,
        process_id=0,
        num_processes=1,
        replica_id=0,
        partition_id=0,
    )
    return LAPACK_TARGETS[target](ctx)


def c(ch: str) -> int:
    """JAX passes LAPACK's character options as ui8 character codes."""
    return ord(ch)


def svd_types(a: np.ndarray, real: type | None = None) -> list[TensorType]:
    """The result types of gesdd/gesvd in mode 'A' for the m x n matrix `a`: the matrix, its
    min(m, n) singular values (of `real`, the real type of a complex `a`), U (m x m), V^T (n x n)
    and info."""
    m, n = a.shape
    dt, rt = a.dtype, real or a.dtype
    return [T((m, n), dt), T((min(m, n),), rt), T((m, m), dt), T((n, n), dt), T((), np.int32)]


def sytrd_types(a: np.ndarray, real: type | None = None) -> list[TensorType]:
    """The result types of sytrd/hetrd for the n x n matrix `a`: the matrix, the n diagonal and
    n - 1 off-diagonal elements (of `real`, the real type of a complex `a`), the n - 1 taus, info."""
    n = a.shape[0]
    dt, rt = a.dtype, real or a.dtype
    return [T((n, n), dt), T((n,), rt), T((n - 1,), rt), T((n - 1,), dt), T((), np.int32)]


def test_every_routine_and_type_is_registered() -> None:
    routines = [
        "potrf",
        "geqrf",
        "getrf",
        "gesdd",
        "gesvd",
        "trsm",
        "geev",
        "gees",
        "gehrd",
        "geqp3",
        "gtsv",
    ]
    names = {f"lapack_{p}{r}_ffi" for p in "sdcz" for r in routines}
    for real, cplx in (
        ("orgqr", "ungqr"),
        ("syevd", "heevd"),
        ("ormqr", "unmqr"),
        ("sytrd", "hetrd"),
    ):
        names |= {f"lapack_{p}{real}_ffi" for p in "sd"} | {f"lapack_{p}{cplx}_ffi" for p in "cz"}
    assert names == set(LAPACK_TARGETS)


# --- potrf -------------------------------------------------------------------------------------------


def test_potrf_lower_and_upper_leave_the_other_triangle() -> None:
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    out, info = call(
        "lapack_dpotrf_ffi", [a], [T((2, 2), np.float64), T((), np.int32)], {"uplo": c("L")}
    )
    np.testing.assert_allclose(
        out, [[2.0, 2.0], [1.0, np.sqrt(2.0)]]
    )  # [0, 1] is the input's, untouched
    assert info.dtype == np.int32 and info == 0
    out, info = call(
        "lapack_dpotrf_ffi", [a], [T((2, 2), np.float64), T((), np.int32)], {"uplo": c("U")}
    )
    np.testing.assert_allclose(out, [[2.0, 1.0], [2.0, np.sqrt(2.0)]])


def test_potrf_batched_info_names_the_failing_minor() -> None:
    a = np.array([[[4.0, 2.0], [2.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]]], np.float32)
    out, info = call(
        "lapack_spotrf_ffi", [a], [T((2, 2, 2), np.float32), T((2,), np.int32)], {"uplo": c("L")}
    )
    np.testing.assert_array_equal(info, [0, 2])
    np.testing.assert_allclose(out[0], [[2.0, 2.0], [1.0, np.sqrt(2.0)]], rtol=1e-6)


def test_potrf_complex() -> None:
    a = np.array([[4, 2j], [-2j, 2]], np.complex64)
    out, info = call(
        "lapack_cpotrf_ffi", [a], [T((2, 2), np.complex64), T((), np.int32)], {"uplo": c("L")}
    )
    lo = np.tril(out)
    assert info == 0
    np.testing.assert_allclose(lo @ lo.conj().T, a, atol=1e-6)
    np.testing.assert_allclose(lo, [[2, 0], [-1j, 1]], atol=1e-6)


# --- getrf -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", "sdcz")
def test_getrf_pivots_are_one_based(prefix: str) -> None:
    dt = PREFIX[prefix]
    a = np.array([[1.0, 2.0], [3.0, 4.0]], dt)
    lu, piv, info = call(
        f"lapack_{prefix}getrf_ffi", [a], [T((2, 2), dt), T((2,), np.int32), T((), np.int32)]
    )
    np.testing.assert_allclose(lu, [[3.0, 4.0], [1.0 / 3.0, 2.0 / 3.0]], rtol=1e-6)
    assert piv.dtype == np.int32 and piv.tolist() == [2, 2]
    assert info == 0 and lu.dtype == dt


def test_getrf_singular_batched_and_rectangular() -> None:
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]])
    lu, piv, info = call(
        "lapack_dgetrf_ffi", [a], [T((2, 2, 2), np.float64), T((2, 2), np.int32), T((2,), np.int32)]
    )
    assert info.tolist() == [2, 0]  # U[1, 1] == 0 in the first matrix
    assert piv.tolist() == [[2, 2], [2, 2]]
    np.testing.assert_allclose(lu[1], [[1.0, 0.0], [0.0, 1.0]])
    r = np.array([[1.0, 0.0], [4.0, 2.0], [2.0, 1.0]])
    lu, piv, info = call(
        "lapack_dgetrf_ffi", [r], [T((3, 2), np.float64), T((2,), np.int32), T((), np.int32)]
    )
    assert piv.tolist() == [2, 2] and info == 0
    np.testing.assert_allclose(lu, [[4.0, 2.0], [0.25, -0.5], [0.5, 0.0]])


def test_layouts_change_what_the_kernel_sees() -> None:
    """Row-major operand and results (no column-major layout): the kernel reads the bytes of A as the
    column-major matrix A^T, and its column-major output is read back row-major (transposed)."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    lu, piv, info = call(
        "lapack_dgetrf_ffi",
        [a],
        [T((2, 2), np.float64), T((2,), np.int32), T((), np.int32)],
        operand_layouts=((1, 0),),
        result_layouts=((1, 0), (0,), ()),
    )
    # getrf of A^T = [[1, 3], [2, 4]]: L\U = [[2, 4], [0.5, 1]], pivots [2, 2]; stored transposed.
    np.testing.assert_allclose(lu, [[2.0, 0.5], [4.0, 1.0]])
    assert piv.tolist() == [2, 2] and info == 0
    with pytest.raises(InterpreterError, match="not a permutation"):
        call(
            "lapack_dgetrf_ffi",
            [a],
            [T((2, 2), np.float64), T((2,), np.int32), T((), np.int32)],
            operand_layouts=((0, 0),),
        )


# --- geqrf / orgqr -----------------------------------------------------------------------------------


def test_geqrf_orgqr_householder() -> None:
    a = np.array([[3.0], [4.0]])
    qr, tau = call("lapack_dgeqrf_ffi", [a], [T((2, 1), np.float64), T((1,), np.float64)])
    # beta = -sign(3) * 5, v = [1, 4 / (3 + 5)], tau = (beta - alpha) / beta
    np.testing.assert_allclose(qr, [[-5.0], [0.5]])
    np.testing.assert_allclose(tau, [1.6])
    (q,) = call("lapack_dorgqr_ffi", [qr, tau], [T((2, 1), np.float64)])
    np.testing.assert_allclose(q, [[-0.6], [-0.8]])


def test_ungqr_batched_complex() -> None:
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(3, 4, 2)) + 1j * rng.normal(size=(3, 4, 2))).astype(np.complex128)
    qr, tau = call(
        "lapack_zgeqrf_ffi", [a], [T((3, 4, 2), np.complex128), T((3, 2), np.complex128)]
    )
    (q,) = call("lapack_zungqr_ffi", [qr, tau], [T((3, 4, 2), np.complex128)])
    np.testing.assert_allclose(q @ np.triu(qr[:, :2, :]), a, atol=1e-12)
    np.testing.assert_allclose(
        np.swapaxes(q.conj(), 1, 2) @ q, np.broadcast_to(np.eye(2), (3, 2, 2)), atol=1e-12
    )


# --- syevd / heevd -----------------------------------------------------------------------------------


def test_syevd_reads_only_the_uplo_triangle() -> None:
    a = np.array([[2.0, 1.0], [99.0, 2.0]], np.float32)  # lower triangle is garbage; uplo 'U'
    v, w, info = call(
        "lapack_ssyevd_ffi",
        [a],
        [T((2, 2), np.float32), T((2,), np.float32), T((), np.int32)],
        {"mode": c("V"), "uplo": c("U")},
    )
    np.testing.assert_allclose(w, [1.0, 3.0], rtol=1e-6)
    sym = np.array([[2.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(sym @ v, v * w, atol=1e-6)
    assert info == 0


def test_heevd_real_eigenvalues_of_a_complex_matrix() -> None:
    a = np.array([[[2, 1j], [-1j, 2]]] * 2, np.complex64)
    v, w, info = call(
        "lapack_cheevd_ffi",
        [a],
        [T((2, 2, 2), np.complex64), T((2, 2), np.float32), T((2,), np.int32)],
        {"mode": c("V"), "uplo": c("L")},
    )
    assert w.dtype == np.float32 and info.tolist() == [0, 0]
    np.testing.assert_allclose(w, [[1.0, 3.0]] * 2, rtol=1e-6)
    np.testing.assert_allclose(a @ v, v * w[:, None, :], atol=1e-5)
    _, w_only, _ = call(
        "lapack_cheevd_ffi",
        [a],
        [T((2, 2, 2), np.complex64), T((2, 2), np.float32), T((2,), np.int32)],
        {"mode": c("N"), "uplo": c("L")},
    )
    np.testing.assert_allclose(w_only, w, rtol=1e-6)


# --- gesdd -------------------------------------------------------------------------------------------


def test_gesdd_modes() -> None:
    a = np.array([[3.0, 0.0], [0.0, -2.0], [0.0, 0.0]])
    types = svd_types(a)
    _, s, u, vt, info = call("lapack_dgesdd_ffi", [a], types, {"mode": c("A")})
    np.testing.assert_allclose(s, [3.0, 2.0])
    np.testing.assert_allclose(u[:, :2] * s @ vt, a, atol=1e-12)
    assert info == 0
    reduced = [types[0], types[1], T((3, 2), np.float64), T((2, 2), np.float64), types[4]]
    _, s, u, vt, _ = call("lapack_dgesdd_ffi", [a], reduced, {"mode": c("S")})
    np.testing.assert_allclose(u * s @ vt, a, atol=1e-12)
    _, s, u, vt, _ = call("lapack_dgesdd_ffi", [a], types, {"mode": c("N")})
    np.testing.assert_allclose(s, [3.0, 2.0])
    assert not u.any() and not vt.any()
    with pytest.raises(NotSupportedError, match="mode 'O'"):
        call("lapack_dgesdd_ffi", [a], types, {"mode": c("O")})


def test_gesdd_complex_singular_values_are_real() -> None:
    a = np.array([[1j, 0], [0, 2]], np.complex128)
    types = svd_types(a, real=np.float64)
    _, s, u, vt, _ = call("lapack_zgesdd_ffi", [a], types, {"mode": c("A")})
    assert s.dtype == np.float64
    np.testing.assert_allclose(s, [2.0, 1.0])
    np.testing.assert_allclose(u * s @ vt, a, atol=1e-12)


# --- trsm --------------------------------------------------------------------------------------------


def test_trsm_sides_transposes_and_unit_diagonal() -> None:
    a = np.array([[2.0, 0.0], [1.0, 1.0]])
    b = np.array([[2.0], [3.0]])
    attrs = {"side": c("L"), "uplo": c("L"), "trans_x": c("N"), "diag": c("N")}
    (x,) = call("lapack_dtrsm_ffi", [a, b], [T((2, 1), np.float64)], attrs)
    np.testing.assert_allclose(x, [[1.0], [2.0]])
    (x,) = call("lapack_dtrsm_ffi", [a, b], [T((2, 1), np.float64)], {**attrs, "diag": c("U")})
    np.testing.assert_allclose(x, [[2.0], [1.0]])  # [[1, 0], [1, 1]] x = b
    (x,) = call("lapack_dtrsm_ffi", [a, b], [T((2, 1), np.float64)], {**attrs, "trans_x": c("T")})
    np.testing.assert_allclose(a.T @ x, b)
    bt = b.T.copy()
    (x,) = call("lapack_dtrsm_ffi", [a, bt], [T((1, 2), np.float64)], {**attrs, "side": c("R")})
    np.testing.assert_allclose(x @ a, bt)
    (x,) = call(
        "lapack_dtrsm_ffi", [a, b, np.array(2.0)], [T((2, 1), np.float64)], attrs
    )  # alpha operand
    np.testing.assert_allclose(x, [[2.0], [4.0]])


def test_trsm_conjugate_transpose_batched() -> None:
    a = np.array([[[1j, 0], [1, 2]]] * 3, np.complex64)
    b = np.ones((3, 2, 2), np.complex64)
    attrs = {"side": c("L"), "uplo": c("L"), "trans_x": c("C"), "diag": c("N")}
    (x,) = call("lapack_ctrsm_ffi", [a, b], [T((3, 2, 2), np.complex64)], attrs)
    np.testing.assert_allclose(np.swapaxes(a.conj(), 1, 2) @ x, b, atol=1e-6)
    with pytest.raises(InterpreterError, match="2 x 2 matrices"):
        call("lapack_ctrsm_ffi", [a[:, :1, :1], b], [T((3, 2, 2), np.complex64)], attrs)


# --- geev --------------------------------------------------------------------------------------------


def test_geev_real_unpacks_conjugate_pairs() -> None:
    a = np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)
    c64 = np.complex64
    types = [
        T((2,), np.float32),
        T((2,), np.float32),
        T((2, 2), c64),
        T((2, 2), c64),
        T((), np.int32),
    ]
    wr, wi, vl, vr, info = call(
        "lapack_sgeev_ffi", [a], types, {"compute_left": c("V"), "compute_right": c("V")}
    )
    np.testing.assert_allclose(wr, [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(wi, [1.0, -1.0], rtol=1e-6)
    w = wr + 1j * wi
    np.testing.assert_allclose(a @ vr, vr * w, atol=1e-6)
    np.testing.assert_allclose(vr[:, 1], vr[:, 0].conj())
    np.testing.assert_allclose(vl.conj().T @ a, w[:, None] * vl.conj().T, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vr, axis=0), [1.0, 1.0], rtol=1e-6)
    assert info == 0
    _, _, vl, vr, _ = call(
        "lapack_sgeev_ffi", [a], types, {"compute_left": c("N"), "compute_right": c("N")}
    )
    assert not vl.any() and not vr.any()


def test_geev_non_finite_input_is_not_handed_to_lapack() -> None:
    a = np.array([[[1.0, 0.0], [0.0, 2.0]], [[np.nan, 0.0], [0.0, 1.0]]], np.complex128)
    types = [
        T((2, 2), np.complex128),
        T((2, 2, 2), np.complex128),
        T((2, 2, 2), np.complex128),
        T((2,), np.int32),
    ]
    w, _, vr, info = call(
        "lapack_zgeev_ffi", [a], types, {"compute_left": c("N"), "compute_right": c("V")}
    )
    assert info.tolist() == [0, -4]
    np.testing.assert_allclose(np.sort_complex(w[0]), [1.0, 2.0])
    assert np.isnan(w[1]).all() and np.isnan(vr[1]).all()
    np.testing.assert_allclose(np.abs(vr[0]), np.eye(2))


# --- gees --------------------------------------------------------------------------------------------


def test_gees_real_and_complex() -> None:
    a = np.array(
        [[1.0, 2.0], [-2.0, 1.0]]
    )  # eigenvalues 1 +- 2i: a 2x2 block in the real Schur form
    types = [
        T((2, 2), np.float64),
        T((2, 2), np.float64),
        T((2,), np.float64),
        T((2,), np.float64),
        T((), np.int32),
        T((), np.int32),
    ]
    t, z, wr, wi, sdim, info = call(
        "lapack_dgees_ffi", [a], types, {"mode": c("V"), "sort": c("N")}
    )
    np.testing.assert_allclose(z @ t @ z.T, a, atol=1e-12)
    np.testing.assert_allclose(wr, [1.0, 1.0])
    np.testing.assert_allclose(sorted(wi), [-2.0, 2.0])
    assert sdim == 0 and info == 0
    ac = a.astype(np.complex128)
    ctypes = [
        T((2, 2), np.complex128),
        T((2, 2), np.complex128),
        T((2,), np.complex128),
        T((), np.int32),
        T((), np.int32),
    ]
    t, z, w, sdim, info = call("lapack_zgees_ffi", [ac], ctypes, {"mode": c("V"), "sort": c("N")})
    np.testing.assert_allclose(z @ t @ z.conj().T, ac, atol=1e-12)
    np.testing.assert_allclose(np.tril(t, -1), 0, atol=1e-12)
    np.testing.assert_allclose(np.diagonal(t), w)
    with pytest.raises(NotSupportedError, match="sort 'S'"):
        call("lapack_zgees_ffi", [ac], ctypes, {"mode": c("V"), "sort": c("S")})


# --- gesvd, gehrd, sytrd, geqp3, ormqr, gtsv ---------------------------------------------------------


def test_gesvd_like_gesdd() -> None:
    a = np.array([[0.0, 2.0], [1.0, 0.0]], np.float32)
    types = svd_types(a)
    _, s, u, vt, info = call("lapack_sgesvd_ffi", [a], types, {"mode": c("A")})
    np.testing.assert_allclose(s, [2.0, 1.0])
    np.testing.assert_allclose(u * s @ vt, a, atol=1e-6)
    assert info == 0


def test_gehrd_one_based_bounds() -> None:
    a = np.array([[1.0, 2.0, 3.0], [3.0, 5.0, 6.0], [4.0, 0.0, 7.0]])
    h, tau, info = call(
        "lapack_dgehrd_ffi",
        [a],
        [T((3, 3), np.float64), T((2,), np.float64), T((), np.int32)],
        {"low": 1, "high": 3},
    )
    assert info == 0
    # the first reflector maps column [3, 4] below the diagonal to [-5, 0]: tau = (-5 - 3) / -5, v = [1, 4 / 8]
    np.testing.assert_allclose(tau[0], 1.6)
    np.testing.assert_allclose(h[1:, 0], [-5.0, 0.5])
    assert tau[1] == 0.0  # a 1-element column needs no reflection
    hess = np.triu(h, -1)
    q = np.eye(3) - 1.6 * np.outer([0.0, 1.0, 0.5], [0.0, 1.0, 0.5])
    np.testing.assert_allclose(q @ hess @ q.T, a, atol=1e-12)
    with pytest.raises(InterpreterError, match="1 <= low <= high <= 3"):
        call(
            "lapack_dgehrd_ffi",
            [a],
            [T((3, 3), np.float64), T((2,), np.float64), T((), np.int32)],
            {"low": 0, "high": 3},
        )


def test_sytrd_diagonals() -> None:
    a = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.0, 1.0, 2.0]])  # already tridiagonal
    types = sytrd_types(a)
    _, d, e, tau, info = call("lapack_dsytrd_ffi", [a], types, {"uplo": c("L")})
    np.testing.assert_allclose(d, [2.0, 2.0, 2.0])
    np.testing.assert_allclose(np.abs(e), [1.0, 1.0])
    assert info == 0 and tau.shape == (2,)
    ch = np.array([[1, 1j], [-1j, 1]], np.complex64)
    ctypes = sytrd_types(ch, real=np.float32)
    _, d, e, _, _ = call("lapack_chetrd_ffi", [ch], ctypes, {"uplo": c("U")})
    assert d.dtype == np.float32 and e.dtype == np.float32
    np.testing.assert_allclose(np.abs(e), [1.0], rtol=1e-6)


def test_geqp3_pivots_the_largest_column_first() -> None:
    a = np.array([[1.0, 0.0, 3.0], [0.0, 2.0, 4.0]])
    types = [T((2, 3), np.float64), T((3,), np.int32), T((2,), np.float64)]
    qr, jpvt, tau = call("lapack_dgeqp3_ffi", [a, np.zeros(3, np.int32)], types)
    assert jpvt.tolist()[0] == 3 and sorted(jpvt.tolist()) == [
        1,
        2,
        3,
    ]  # column 3 (norm 5) first, 1-based
    assert 0.0 <= tau[0] <= 2.0
    np.testing.assert_allclose(abs(qr[0, 0]), 5.0)
    with pytest.raises(NotSupportedError, match="non-zero jpvt"):
        call("lapack_dgeqp3_ffi", [a, np.array([1, 0, 0], np.int32)], types)


def test_ormqr_applies_q_from_either_side() -> None:
    a = np.array([[3.0], [4.0]])
    qr, tau = call("lapack_dgeqrf_ffi", [a], [T((2, 1), np.float64), T((1,), np.float64)])
    q = np.eye(2) - tau[0] * np.outer(
        [1.0, qr[1, 0]], [1.0, qr[1, 0]]
    )  # H = I - tau v v^T, v = [1, 0.5]
    cm = np.array([[1.0, 2.0], [3.0, 4.0]])
    (out,) = call(
        "lapack_dormqr_ffi",
        [qr, tau, cm],
        [T((2, 2), np.float64)],
        {"left": True, "transpose": False},
    )
    np.testing.assert_allclose(out, q @ cm)
    (out,) = call(
        "lapack_dormqr_ffi",
        [qr, tau, cm],
        [T((2, 2), np.float64)],
        {"left": False, "transpose": True},
    )
    np.testing.assert_allclose(out, cm @ q.T, atol=1e-12)
    with pytest.raises(InterpreterError, match="missing boolean attribute 'left'"):
        call("lapack_dormqr_ffi", [qr, tau, cm], [T((2, 2), np.float64)], {"transpose": True})


def test_gtsv_ignores_dl0_and_du_last() -> None:
    dl = np.array([99.0, 1.0, 1.0])
    d = np.array([2.0, 2.0, 2.0])
    du = np.array([1.0, 1.0, 99.0])
    b = np.array([[3.0], [4.0], [3.0]])  # [[2,1,0],[1,2,1],[0,1,2]] @ [1,1,1]
    types = [
        T((3,), np.float64),
        T((3,), np.float64),
        T((3,), np.float64),
        T((3, 1), np.float64),
        T((), np.int32),
    ]
    dl_out, _, du_out, x, info = call("lapack_dgtsv_ffi", [dl, d, du, b], types)
    np.testing.assert_allclose(x, [[1.0], [1.0], [1.0]])
    assert info == 0 and dl_out[0] == 99.0 and du_out[2] == 99.0
    singular = np.zeros(3)
    *_, info = call("lapack_dgtsv_ffi", [np.zeros(3), singular, np.zeros(3), b], types)
    assert info == 1


# --- attributes and errors ---------------------------------------------------------------------------


def test_attributes_from_mhlo_backend_config() -> None:
    """JAX's printer moves the typed-FFI dictionary to `mhlo.backend_config` (backend_config = "")."""
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    ctx = SimpleNamespace(
        target_name="lapack_dpotrf_ffi",
        operands=(a,),
        result_types=(T((2, 2), np.float64), T((), np.int32)),
        backend_config="",
        attributes={"mhlo.backend_config": {"uplo": c("U")}},
        operand_layouts=((0, 1),),
        result_layouts=((0, 1), ()),
    )
    out, _ = LAPACK_TARGETS["lapack_dpotrf_ffi"](ctx)
    np.testing.assert_allclose(out, [[2.0, 1.0], [2.0, np.sqrt(2.0)]])


def test_clear_errors() -> None:
    a = np.eye(2)
    types = [T((2, 2), np.float64), T((), np.int32)]
    with pytest.raises(InterpreterError, match="missing attribute 'uplo'"):
        call("lapack_dpotrf_ffi", [a], types)
    with pytest.raises(InterpreterError, match="'uplo' = 88 is not one of 'L', 'U'"):
        call("lapack_dpotrf_ffi", [a], types, {"uplo": c("X")})
    with pytest.raises(InterpreterError, match="element type float32, the target works on float64"):
        call("lapack_dpotrf_ffi", [a.astype(np.float32)], types, {"uplo": c("L")})
    with pytest.raises(InterpreterError, match="result #0 has type"):
        call("lapack_dpotrf_ffi", [a], [T((3, 3), np.float64), types[1]], {"uplo": c("L")})
    with pytest.raises(InterpreterError, match="needs square matrices"):
        call(
            "lapack_dpotrf_ffi",
            [np.ones((2, 3))],
            [T((2, 3), np.float64), types[1]],
            {"uplo": c("L")},
        )


def test_without_scipy_the_targets_say_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy.linalg.lapack", None)
    with pytest.raises(NotSupportedError, match=r"stablehlo-py\[linalg\]"):
        call(
            "lapack_dpotrf_ffi",
            [np.eye(2)],
            [T((2, 2), np.float64), T((), np.int32)],
            {"uplo": c("L")},
        )


def test_interpreting_a_custom_call_written_in_mlir() -> None:
    """The target runs from a program's text: typed-FFI attributes, layouts and results through `run`."""
    from stablehlo_py.interpreter import run

    from stablehlo_py.ir import parse
    from tests.oracle.lapack_context import register_lapack_if_missing

    register_lapack_if_missing()
    text = """
    func.func @main(%a: tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xi32>, tensor<2xi32>) {
      %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {api_version = 4 : i32, backend_config = {},
        operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>],
        result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>,
                          dense<0> : tensor<1xindex>]}
        : (tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x2xi32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2 : tensor<2x2x2xf32>, tensor<2x2xi32>, tensor<2xi32>
    }"""
    a = np.array([[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]], np.float32)
    lu, piv, info = run(parse(text), a)
    np.testing.assert_allclose(lu[0], [[3.0, 4.0], [1.0 / 3.0, 2.0 / 3.0]], rtol=1e-6)
    assert np.asarray(piv).tolist() == [[2, 2], [2, 2]] and np.asarray(info).tolist() == [0, 2]
