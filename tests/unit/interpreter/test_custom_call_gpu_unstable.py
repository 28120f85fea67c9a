"""JAX's not-stable GPU targets (hybrid eig/geqp3, cusolver_geev_ffi, ormqr, syrk, cholesky_update,
tridiagonal_solve_perturbed) and the CPU tridiagonal_solve_perturbed_ffi, without jax: hand-written
calls in JAX's form (the exports themselves: tests/oracle/test_gpu_unstable_targets.py)."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

pytest.importorskip("scipy")  # (the LAPACK kernels: the `linalg` extra)

CM = "dense<[0, 1]> : tensor<2xindex>"  # column-major (JAX's layout for its matrices)
RM = "dense<[1, 0]> : tensor<2xindex>"
V = "dense<0> : tensor<1xindex>"
S = "dense<> : tensor<0xindex>"


def _call(target: str, config: str, args: list[str], results: list[str], *, layouts: str = "") -> str:
    """A one-call program: `args`/`results` are tensor types; returns every result."""
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    names = ", ".join(f"%a{i}" for i in range(len(args)))
    n = len(results)
    res = f"%r:{n}" if n > 1 else "%r"
    returned = ", ".join(f"%r#{i}" for i in range(n)) if n > 1 else "%r"
    sig = f"({', '.join(results)})" if n > 1 else results[0]
    return f"""
func.func @main({params}) -> ({", ".join(results)}) {{
  {res} = stablehlo.custom_call @{target}({names}) {{mhlo.backend_config = {{{config}}}{layouts}}} : ({", ".join(args)}) -> {sig}
  return {returned} : {", ".join(results)}
}}
"""


ROTATION = np.array([[0.0, -2.0], [2.0, 0.0]])  # eigenvalues +-2i, eigenvectors (1, -+i)/sqrt 2


@pytest.mark.parametrize("vendor", ["cu", "hip"])
def test_hybrid_eig_real_unpacks_the_conjugate_pair(vendor: str) -> None:
    text = _call(
        f"{vendor}hybrid_eig_real",
        'left = true, magma = "auto", right = true',
        ["tensor<2x2xf64>"],
        ["tensor<2xf64>", "tensor<2xf64>", "tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<i32>"],
        layouts=f", operand_layouts = [{CM}], result_layouts = [{V}, {V}, {CM}, {CM}, {S}]",
    )
    wr, wi, vl, vr, info = run(parse(text), ROTATION)
    assert int(info) == 0
    np.testing.assert_allclose(wr, [0, 0], atol=1e-14)
    np.testing.assert_allclose(wi, [2, -2], atol=1e-14)
    w = wr + 1j * wi
    np.testing.assert_allclose(ROTATION @ vr, vr * w, atol=1e-14)
    np.testing.assert_allclose(vl.conj().T @ ROTATION, w[:, None] * vl.conj().T, atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(vr, axis=0), [1, 1])  # LAPACK's normalization


def test_hybrid_eig_vectors_not_asked_for_are_zeros_and_complex_input_works() -> None:
    a = np.array([[1.0 + 1j, 2.0], [0.5j, 3.0]])
    text = _call(
        "hiphybrid_eig_comp",
        'left = false, magma = "off", right = false',
        ["tensor<2x2xcomplex<f64>>"],
        ["tensor<2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<i32>"],
    )
    w, vl, vr, info = run(parse(text), a)
    assert int(info) == 0 and not vl.any() and not vr.any()
    np.testing.assert_allclose(np.sort_complex(w), np.sort_complex(np.linalg.eigvals(a)), atol=1e-14)


def test_hybrid_eig_errors() -> None:
    real = _call(
        "cuhybrid_eig_real",
        "left = false, right = true",
        ["tensor<2x2xf64>"],
        ["tensor<2xf64>", "tensor<2xf64>", "tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<i32>"],
    )
    with pytest.raises(InterpreterError, match="string attribute 'magma'"):
        run(parse(real), ROTATION)
    comp = _call(
        "cuhybrid_eig_comp",
        'left = false, magma = "auto", right = true',
        ["tensor<2x2xf64>"],
        ["tensor<2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<i32>"],
    )
    with pytest.raises(InterpreterError, match="complex64 or complex128 matrices, got float64"):
        run(parse(comp), ROTATION)


GEEV_RESULTS = ["tensor<2x2xf64>", "tensor<2xcomplex<f64>>", "tensor<2x2xf64>", "tensor<2x2xf64>", "tensor<i32>"]


def test_cusolver_geev_leaves_real_vectors_packed() -> None:
    text = _call(
        "cusolver_geev_ffi",
        "left = false, right = true",
        ["tensor<2x2xf64>"],
        GEEV_RESULTS,
        layouts=f", operand_layouts = [{CM}], result_layouts = [{CM}, {V}, {CM}, {CM}, {S}]",
    )
    a_out, w, vl, vr, info = run(parse(text), ROTATION)
    assert int(info) == 0 and not vl.any()
    np.testing.assert_array_equal(a_out, ROTATION)
    np.testing.assert_allclose(w, [2j, -2j], atol=1e-14)
    v = vr[:, 0] + 1j * vr[:, 1]  # columns 0, 1: the real and imaginary parts of the first vector
    np.testing.assert_allclose(ROTATION @ v, 2j * v, atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(v), 1)


def test_cusolver_geev_refuses_left_vectors() -> None:
    text = _call("cusolver_geev_ffi", "left = true, right = true", ["tensor<2x2xf64>"], GEEV_RESULTS)
    with pytest.raises(InterpreterError, match="computes no left eigenvectors"):
        run(parse(text), ROTATION)


def test_hybrid_geqp3_pivots_the_largest_column_first() -> None:
    a = np.array([[1.0, 10.0, 0.0], [0.0, 0.0, 3.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    text = _call(
        "cuhybrid_geqp3",
        'magma = "auto"',
        ["tensor<4x3xf64>", "tensor<3xi32>"],
        ["tensor<4x3xf64>", "tensor<3xi32>", "tensor<3xf64>"],
        layouts=f", operand_layouts = [{CM}, {V}], result_layouts = [{CM}, {V}, {V}]",
    )
    qr, jpvt, tau = run(parse(text), a, np.zeros(3, np.int32))
    assert jpvt.tolist() == [2, 3, 1]  # 1-based, as LAPACK: norms 10.05, 3.16, 1.41
    r = np.triu(qr)[:3]
    np.testing.assert_allclose(np.abs(np.diag(r)), np.abs(np.diag(np.linalg.qr(a[:, jpvt - 1])[1])))
    missing = text.replace('magma = "auto"', "")
    with pytest.raises(InterpreterError, match="'magma'"):
        run(parse(missing), a, np.zeros(3, np.int32))


def _reflectors(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """geqrf's reflectors and tau of `a`, and the full Q they make (H(1) ... H(k))."""
    from scipy.linalg.lapack import dgeqrf

    qr, tau, _, _ = dgeqrf(a)
    m = a.shape[0]
    q = np.eye(m)
    for i, t in enumerate(tau):
        v = np.r_[np.zeros(i), 1.0, qr[i + 1 :, i]]
        q = q @ (np.eye(m) - t * np.outer(v, v))
    return qr, tau, q


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_ormqr_applies_q(left: bool, transpose: bool) -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 3))
    qr, tau, q = _reflectors(a)
    c = rng.normal(size=(4, 2) if left else (2, 4))
    ctype = "tensor<4x2xf64>" if left else "tensor<2x4xf64>"
    text = _call(
        "hipsolver_ormqr_ffi",
        f"left = {str(left).lower()}, transpose = {str(transpose).lower()}",
        ["tensor<4x3xf64>", "tensor<3xf64>", ctype],
        [ctype],
        layouts=f", operand_layouts = [{CM}, {V}, {CM}], result_layouts = [{CM}]",
    )
    (got,) = run(parse(text), qr, tau, c)
    op = q.T if transpose else q
    np.testing.assert_allclose(got, op @ c if left else c @ op, atol=1e-12)


def test_ormqr_needs_its_attributes() -> None:
    text = _call("cusolver_ormqr_ffi", "left = true", ["tensor<4x3xf64>", "tensor<3xf64>", "tensor<4x2xf64>"], ["tensor<4x2xf64>"])
    with pytest.raises(InterpreterError, match="missing boolean attribute 'transpose'"):
        run(parse(text), np.eye(4, 3), np.zeros(3), np.ones((4, 2)))


SYRK = ["tensor<3x2xf64>", "tensor<3x3xf64>", "tensor<f64>", "tensor<f64>"]


@pytest.mark.parametrize("vendor", ["cu", "hip"])
def test_syrk_updates_the_lower_triangle_and_keeps_the_upper(vendor: str) -> None:
    a = np.arange(6.0).reshape(3, 2)
    c = np.arange(9.0).reshape(3, 3)
    text = _call(
        f"{vendor}solver_syrk_ffi",
        "transpose = false",
        SYRK,
        ["tensor<3x3xf64>"],
        layouts=f", operand_layouts = [{RM}, {RM}, {S}, {S}], result_layouts = [{RM}]",
    )
    (got,) = run(parse(text), a, c, np.float64(2.0), np.float64(0.5))
    want = 2.0 * a @ a.T + 0.5 * c
    np.testing.assert_array_equal(np.tril(got), np.tril(want))
    np.testing.assert_array_equal(np.triu(got, 1), np.triu(c, 1))


def test_syrk_transposed_and_beta_zero_ignores_c() -> None:
    a = np.arange(6.0).reshape(2, 3)
    c = np.full((3, 3), np.nan)
    text = _call("cusolver_syrk_ffi", "transpose = true", ["tensor<2x3xf64>", *SYRK[1:]], ["tensor<3x3xf64>"])
    (got,) = run(parse(text), a, c, np.float64(1.0), np.float64(0.0))
    np.testing.assert_array_equal(np.tril(got), np.tril(a.T @ a))  # no NaN from C (BLAS's beta = 0)
    assert np.isnan(np.triu(got, 1)[np.triu_indices(3, 1)]).all()


def test_syrk_with_no_columns_scales_c() -> None:
    c = np.arange(9.0).reshape(3, 3)
    text = _call("cusolver_syrk_ffi", "transpose = false", ["tensor<3x0xf64>", *SYRK[1:]], ["tensor<3x3xf64>"])
    (got,) = run(parse(text), np.zeros((3, 0)), c, np.float64(2.0), np.float64(0.5))
    np.testing.assert_array_equal(got, np.tril(0.5 * c) + np.triu(c, 1))


def test_syrk_errors() -> None:
    text = _call("cusolver_syrk_ffi", "transpose = false", SYRK, ["tensor<3x3xf64>"])
    with pytest.raises(InterpreterError, match=r"C must have shape \[2, 2\]"):
        bad = text.replace("transpose = false", "transpose = true")
        run(parse(bad), np.ones((3, 2)), np.ones((3, 3)), np.float64(1), np.float64(1))
    vector_alpha = text.replace("tensor<f64>, tensor<f64>)", "tensor<2xf64>, tensor<f64>)").replace(
        "%a2: tensor<f64>", "%a2: tensor<2xf64>"
    )
    with pytest.raises(InterpreterError, match="alpha, beta scalars"):
        run(parse(vector_alpha), np.ones((3, 2)), np.ones((3, 3)), np.ones(2), np.float64(1))


CHOLUPD = _call(
    "cu_cholesky_update_ffi",
    "",
    ["tensor<3x3xf64>", "tensor<3xf64>"],
    ["tensor<3x3xf64>", "tensor<3xf64>"],
    layouts=f", operand_layouts = [{RM}, {V}], result_layouts = [{RM}, {V}]",
)


def test_cholesky_update_is_the_factor_of_the_updated_matrix() -> None:
    a = np.array([[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]])
    r = np.linalg.cholesky(a).T  # upper, R^T R = A
    w = np.array([1.0, -2.0, 0.5])
    r_new, w_out = run(parse(CHOLUPD), r, w)
    np.testing.assert_allclose(r_new.T @ r_new, a + np.outer(w, w), atol=1e-13)
    assert not np.tril(r_new, -1).any()  # the strict lower triangle is not touched
    np.testing.assert_allclose(w_out, 0, atol=1e-14)  # every rotation zeroed w's entry
    r32, _ = run(parse(CHOLUPD.replace("f64", "f32")), r.astype(np.float32), w.astype(np.float32))
    assert r32.dtype == np.float32
    np.testing.assert_allclose(r32, r_new, rtol=1e-5, atol=1e-6)


def test_cholesky_update_errors() -> None:
    batched = _call(
        "cu_cholesky_update_ffi", "", ["tensor<2x3x3xf64>", "tensor<2x3xf64>"], ["tensor<2x3x3xf64>", "tensor<2x3xf64>"]
    )
    with pytest.raises(InterpreterError, match="unbatched"):
        run(parse(batched), np.ones((2, 3, 3)), np.ones((2, 3)))
    complex_ = CHOLUPD.replace("f64", "complex<f64>")
    with pytest.raises(InterpreterError, match="f32 or f64"):
        run(parse(complex_), np.eye(3, dtype=complex), np.ones(3, complex))


def _tridiagonal(target: str, dtype: str, m: int, k: int) -> str:
    vec, mat = f"tensor<{m}x{dtype}>", f"tensor<{m}x{k}x{dtype}>"
    return _call(
        target,
        "",
        [vec, vec, vec, mat],
        [mat],
        layouts=f", operand_layouts = [{V}, {V}, {V}, {CM}], result_layouts = [{CM}]",
    )


PERTURBED = ["tridiagonal_solve_perturbed_ffi", "cu_tridiagonal_solve_perturbed", "hip_tridiagonal_solve_perturbed"]


@pytest.mark.parametrize("target", PERTURBED)
def test_perturbed_solve_of_a_regular_system_is_the_solution(target: str) -> None:
    rng = np.random.default_rng(3)
    dl, d, du = rng.normal(size=(3, 5))
    dl[0] = du[-1] = 0
    b = rng.normal(size=(5, 2)) + 1j * rng.normal(size=(5, 2))
    t = np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)
    (x,) = run(parse(_tridiagonal(target, "complex<f64>", 5, 2)), *(v.astype(complex) for v in (dl, d, du)), b)
    np.testing.assert_allclose(t @ x, b, atol=1e-12)


@pytest.mark.parametrize("target", PERTURBED)
def test_perturbed_solve_finds_the_eigenvector_of_a_singular_system(target: str) -> None:
    """Inverse iteration's step: T - 2 I for T = tridiag(1, 2, 1) is singular with null vector
    (1, 0, -1); its perturbed solve is finite and along it."""
    ones = np.ones(3)
    b = np.array([[1.0], [0.0], [0.0]])  # (not orthogonal to the null vector)
    (x,) = run(parse(_tridiagonal(target, "f64", 3, 1)), ones, np.zeros(3), ones, b)
    assert np.isfinite(x).all()
    direction = x[:, 0] / np.linalg.norm(x)
    np.testing.assert_allclose(np.abs(direction @ np.array([1, 0, -1]) / np.sqrt(2)), 1, rtol=1e-12)


def test_perturbed_solve_moves_a_zero_pivot_to_the_smallest_normal_number() -> None:
    text = _tridiagonal("tridiagonal_solve_perturbed_ffi", "f32", 1, 2)
    zero = np.zeros(1, np.float32)
    (x,) = run(parse(text), zero, zero, zero, np.array([[0.5, -0.25]], np.float32))
    tiny = np.finfo(np.float32).tiny
    np.testing.assert_array_equal(x, np.array([[0.5, -0.25]], np.float32) / tiny)


def test_perturbed_solve_errors() -> None:
    text = _tridiagonal("tridiagonal_solve_perturbed_ffi", "f16", 3, 1)
    f16 = np.ones(3, np.float16)
    with pytest.raises(InterpreterError, match="f32, f64, complex64 or complex128 systems"):
        run(parse(text), f16, f16, f16, np.ones((3, 1), np.float16))
    bad = _tridiagonal("cu_tridiagonal_solve_perturbed", "f64", 3, 1).replace("%a0: tensor<3xf64>", "%a0: tensor<4xf64>")
    bad = bad.replace("(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>,", "(tensor<4xf64>, tensor<3xf64>, tensor<3xf64>,")
    with pytest.raises(InterpreterError, match="three diagonals must have shape"):
        run(parse(bad), np.ones(4), np.ones(3), np.ones(3), np.ones((3, 1)))


def test_the_listing_names_platforms_and_the_stability() -> None:
    from stablehlo_py.interpreter.custom_calls.registry import REGISTRY

    platforms = {
        "cusolver_geev_ffi": {"cuda"},
        "cuhybrid_eig_real": {"cuda"},
        "hiphybrid_geqp3": {"rocm"},
        "hipsolver_ormqr_ffi": {"rocm"},
        "cusolver_syrk_ffi": {"cuda"},
        "hip_cholesky_update_ffi": {"rocm"},
        "cu_tridiagonal_solve_perturbed": {"cuda"},
        "tridiagonal_solve_perturbed_ffi": {"cpu"},
    }
    assert REGISTRY.get("cu_cholesky_update").platforms == frozenset({"cuda"})  # the pre-FFI form
    for name, want in platforms.items():
        target = REGISTRY.get(name)
        assert target is not None and set(target.platforms) == want, name
        assert any("not in JAX's export stable list" in form for form in target.forms), name
    assert REGISTRY.get("hipsolver_geev_ffi") is None  # cuSOLVER only (jaxlib's ROCm plugin has none)


def _pre_ffi_cholesky_update(desc: bytes, dtype: str = "f64") -> str:
    config = "".join(f"\\{b:02X}" for b in desc)
    return CHOLUPD.replace("f64", dtype).replace("cu_cholesky_update_ffi", "cu_cholesky_update").replace(
        "mhlo.backend_config = {}", f'api_version = 2 : i32, backend_config = "{config}"'
    )


def test_pre_ffi_cholesky_update_reads_its_descriptor() -> None:
    """jax 0.4.29-0.4.33's `cu_cholesky_update`: the same update, sizes in a packed descriptor."""
    import struct

    a = np.array([[4.0, 2.0, 0.4], [2.0, 5.0, 1.0], [0.4, 1.0, 3.0]])
    r, w = np.linalg.cholesky(a).T, np.array([1.0, -2.0, 0.5])
    want = run(parse(CHOLUPD), r, w)
    got = run(parse(_pre_ffi_cholesky_update(struct.pack("<i4xq", 1, 3))), r, w)
    for g, x in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, x)
    f32 = _pre_ffi_cholesky_update(struct.pack("<i4xq", 0, 3), "f32")
    assert run(parse(f32), r.astype(np.float32), w.astype(np.float32))[0].dtype == np.float32
    with pytest.raises(InterpreterError, match="descriptor says matrix_size = 4"):
        run(parse(_pre_ffi_cholesky_update(struct.pack("<i4xq", 1, 4))), r, w)
    with pytest.raises(InterpreterError, match="descriptor says type = 0"):
        run(parse(_pre_ffi_cholesky_update(struct.pack("<i4xq", 0, 3))), r, w)
    with pytest.raises(InterpreterError, match="holds 8 bytes"):
        run(parse(_pre_ffi_cholesky_update(struct.pack("<iI", 1, 3))), r, w)
