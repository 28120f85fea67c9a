"""Impl wrappers: dot/dot_general/convolution accumulation, batch_norm decompositions, cholesky,
triangular_solve, fft, rng."""

from __future__ import annotations

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.impls.contraction import SEQUENTIAL_MAX_K, contract


def _sequential_reference(a: np.ndarray, b: np.ndarray, dtype: type) -> np.ndarray:
    acc = np.zeros((a.shape[0], b.shape[1]), dtype)
    for k in range(a.shape[1]):
        acc = acc + (a[:, k : k + 1].astype(dtype) * b[k : k + 1, :].astype(dtype))
    return acc


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_contract_sums_in_contraction_order(dtype: type) -> None:
    rng = np.random.default_rng(0)
    k = SEQUENTIAL_MAX_K
    a = rng.standard_normal((5, k)).astype(dtype)
    b = rng.standard_normal((k, 3)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(a.shape).astype(np.float32)
        b = b - 1j * rng.standard_normal(b.shape).astype(np.float32)
    got = contract(a, b, lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    np.testing.assert_array_equal(got, _sequential_reference(a, b, dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.float64])
def test_long_contractions_are_one_blas_call_in_the_accumulation_type(dtype: type) -> None:
    """Past `SEQUENTIAL_MAX_K` terms, f32 sums in f32 and complex64 in complex64 (XLA's CPU
    accumulation types, no widening to double): the BLAS product of the operands as they are,
    within a few ULP per term of the exact sum."""
    rng = np.random.default_rng(5)
    k = 4 * SEQUENTIAL_MAX_K
    a = rng.standard_normal((4, k)).astype(dtype)
    b = rng.standard_normal((k, 2)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(a.shape).astype(np.float32)
        b = b - 1j * rng.standard_normal(b.shape).astype(np.float32)
    got = contract(a, b, lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.matmul(a, b))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    exact = a.astype(wide) @ b.astype(wide)
    bound = np.abs(a.astype(wide)) @ np.abs(b.astype(wide)) * k * np.finfo(dtype).eps
    assert np.all(np.abs(got - exact) <= bound)


def test_contract_narrow_floats_accumulate_in_f32_and_ints_wrap() -> None:
    import ml_dtypes

    a = np.full((1, 512), 1.0, ml_dtypes.bfloat16)
    b = np.full((512, 1), 1.0, ml_dtypes.bfloat16)
    r = contract(a, b, lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    assert r.dtype == ml_dtypes.bfloat16 and float(r[0, 0]) == 512.0
    i = np.full((1, 4), 100, np.int8)
    r8 = contract(i, i.T, lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    assert r8.dtype == np.int8 and int(r8[0, 0]) == (40000 + 128) % 256 - 128  # wrapped


def test_dot_general_batching_and_mixed_input_types() -> None:
    lhs = np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4)
    rhs = np.arange(2 * 4 * 5, dtype=np.float32).reshape(2, 4, 5) / 7
    (r,) = run(
        """
func.func @main(%a: tensor<2x3x4xi16>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %c = stablehlo.convert %a : (tensor<2x3x4xi16>) -> tensor<2x3x4xf32>
  %r = stablehlo.dot_general %c, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}""",
        lhs,
        rhs,
    )
    np.testing.assert_allclose(r, np.matmul(lhs.astype(np.float64), rhs), rtol=1e-6)


def test_convolution_matches_a_direct_sum() -> None:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 7, 2)).astype(np.float32)  # [b, 0, f]
    k = rng.standard_normal((3, 2, 4)).astype(np.float32)  # [0, i, o]
    (r,) = run(
        """
func.func @main(%x: tensor<1x7x2xf32>, %k: tensor<3x2x4xf32>) -> tensor<1x3x4xf32> {
  %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[0, 0]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x7x2xf32>, tensor<3x2x4xf32>) -> tensor<1x3x4xf32>
  return %r : tensor<1x3x4xf32>
}""",
        x,
        k,
    )
    ref = np.zeros((1, 3, 4), np.float64)
    for o in range(3):
        ref[0, o] = np.einsum("kc,kco->o", x[0, 2 * o : 2 * o + 3].astype(np.float64), k)
    np.testing.assert_allclose(r, ref, rtol=1e-5, atol=1e-6)


BN = """
func.func @main(%x: tensor<4x2x3xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>, %g: tensor<4x2x3xf32>)
    -> (tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %i = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2x3xf32>
  %t:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  %d:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64}
      : (tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return %i, %t#0, %t#1, %t#2, %d#0, %d#1, %d#2 : tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>
}"""


def test_batch_norm_ops_follow_their_decompositions() -> None:
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)
    s = np.array([1.5, -0.5], np.float32)
    o = np.array([0.25, 2.0], np.float32)
    m = np.array([0.1, -0.2], np.float32)
    v = np.array([0.9, 1.3], np.float32)
    g = rng.standard_normal((4, 2, 3)).astype(np.float32)
    inf, out, mean, var, gx, gs, go = run(BN, x, s, o, m, v, g)
    eps = 1e-3
    b = lambda a: a[None, :, None]
    np.testing.assert_allclose(inf, (x - b(m)) / np.sqrt(b(v) + eps) * b(s) + b(o), rtol=1e-5)
    bm, bv = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(mean, bm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, bv, rtol=1e-4)
    np.testing.assert_allclose(
        out, (x - b(bm)) / np.sqrt(b(bv) + eps) * b(s) + b(o), rtol=1e-4, atol=1e-5
    )
    # gradients of y = scale * (x - mean) / sqrt(var + eps) + offset with mean/var given
    xhat = (x - b(m)) / np.sqrt(b(v) + eps)
    np.testing.assert_allclose(go, g.sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gs, (g * xhat).sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)
    n = x.size / x.shape[1]
    ref_gx = (
        b(s)
        / np.sqrt(b(v) + eps)
        / n
        * (
            n * g
            - b(g.sum(axis=(0, 2)))
            - (x - b(m)) * b((g * (x - b(m))).sum(axis=(0, 2))) / (b(v) + eps)
        )
    )
    np.testing.assert_allclose(gx, ref_gx, rtol=1e-4, atol=1e-5)


def test_cholesky_and_triangular_solve() -> None:
    a = np.array([[4.0, 2.0], [2.0, 3.0]], np.float64)
    l_, x = run(
        """
func.func @main(%a: tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x1xf64>) {
  %l = stablehlo.cholesky %a, lower = true : tensor<2x2xf64>
  %b = stablehlo.constant dense<[[2.0], [5.0]]> : tensor<2x1xf64>
  %x = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false,
      transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  return %l, %x : tensor<2x2xf64>, tensor<2x1xf64>
}""",
        a,
    )
    np.testing.assert_allclose(l_, np.linalg.cholesky(a))
    np.testing.assert_allclose(l_ @ x, [[2.0], [5.0]])


def test_fft_round_trip() -> None:
    x = np.array([1.0, 2.0, 0.5, -1.0], np.float32)
    (f, back) = run(
        """
func.func @main(%x: tensor<4xf32>) -> (tensor<3xcomplex<f32>>, tensor<4xf32>) {
  %f = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %b = stablehlo.fft %f, type = IRFFT, length = [4] : (tensor<3xcomplex<f32>>) -> tensor<4xf32>
  return %f, %b : tensor<3xcomplex<f32>>, tensor<4xf32>
}""",
        x,
    )
    np.testing.assert_allclose(f, np.fft.rfft(x), rtol=1e-6)
    np.testing.assert_allclose(back, x, rtol=1e-6)


def test_rng_is_reproducible_and_in_range() -> None:
    text = """
func.func @main() -> (tensor<1000xi32>, tensor<1000xf32>) {
  %a = stablehlo.constant dense<3> : tensor<i32>
  %b = stablehlo.constant dense<7> : tensor<i32>
  %s = stablehlo.constant dense<1000> : tensor<1xi64>
  %r = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<1000xi32>
  %fa = stablehlo.constant dense<0.0> : tensor<f32>
  %fb = stablehlo.constant dense<1.0> : tensor<f32>
  %n = stablehlo.rng %fa, %fb, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<1000xf32>
  return %r, %n : tensor<1000xi32>, tensor<1000xf32>
}"""
    r1, n1 = run(text)
    r2, n2 = run(text)
    np.testing.assert_array_equal(r1, r2)
    np.testing.assert_array_equal(n1, n2)
    assert r1.min() >= 3 and r1.max() < 7 and len(set(r1.tolist())) == 4
    assert abs(float(n1.mean())) < 0.2 and 0.8 < float(n1.std()) < 1.2


def test_rng_bit_generator_result_types() -> None:
    (state, bits) = run(
        """
func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>) {
  %r:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
  return %r#0, %r#1 : tensor<2xui64>, tensor<2x3xui32>
}""",
        np.array([1, 2], np.uint64),
    )
    assert state.dtype == np.uint64 and bits.shape == (2, 3) and bits.dtype == np.uint32
    assert int(state[0]) == 1 and int(state[1]) != 2


@pytest.mark.parametrize("work", [np.float32, np.float64, np.complex64], ids=str)
@pytest.mark.parametrize(("b", "m", "k", "n"), [(1, 3, 1, 2), (2, 4, 7, 3), (1, 8, 32, 16)])
def test_sequential_sum_in_one_accumulate_is_the_loop(work, b, m, k, n, monkeypatch):
    """The products and the in-order sums of `contract`'s short contractions, all at once, give
    the loop's bits (NaNs included: a sum meeting a NaN is recomputed by the loop)."""
    from stablehlo_py.interpreter.impls import contraction as L

    rng = np.random.default_rng(k)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e38, -1e38, 1e-45, 1.0, -1.0])
    for trial in range(8):
        lt = rng.normal(size=(b, m, k)) * 10.0 ** rng.integers(-3, 3)
        rt = rng.normal(size=(b, k, n))
        if trial % 2:
            for a in (lt, rt):
                mask = rng.random(a.shape) < 0.3
                a[mask] = rng.choice(special, size=int(mask.sum()))
        if np.dtype(work).kind == "c":
            lt = lt + 1j * rng.normal(size=lt.shape)
            rt = rt - 1j * rng.normal(size=rt.shape)
        with np.errstate(all="ignore"):
            lt, rt = lt.astype(work), rt.astype(work)
        monkeypatch.setattr(L, "VECTOR_MAX_TERMS", 1 << 22)
        fast = np.ascontiguousarray(L.sequential_sum(lt, rt, np.dtype(work)))
        monkeypatch.setattr(L, "VECTOR_MAX_TERMS", 0)
        loop = L.sequential_sum(lt, rt, np.dtype(work))
        assert fast.tobytes() == loop.tobytes()


@pytest.mark.parametrize(
    "name",
    ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz"],
)
def test_rounding_f32_sums_to_a_narrow_float_is_convert(name: str) -> None:
    """`contraction.round_to` (one cast) gives `convert`'s bits from f32: halfway cases, overflow,
    subnormals, infinities and NaNs (quiet ones: sums are arithmetic results)."""
    import ml_dtypes

    from stablehlo_py import semantics as sem
    from stablehlo_py.interpreter.impls.contraction import round_to

    out = np.dtype(getattr(ml_dtypes, name, None) or getattr(np, name))
    rng = np.random.default_rng(8)
    bits = rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32)
    nan = (bits & np.uint32(0x7F800000)) == np.uint32(0x7F800000)
    bits = np.where(nan & (bits & np.uint32(0x7FFFFF) != 0), bits | np.uint32(0x400000), bits)
    x = np.concatenate(
        [
            bits.view(np.float32),
            (rng.standard_normal(5000) * 10.0 ** rng.integers(-8, 8, 5000)).astype(np.float32),
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 65520.0, 3.4e38], np.float32),
        ]
    )
    with np.errstate(all="ignore"):
        got, want = round_to(x, out), sem.convert(x, out)
    assert got.dtype == want.dtype == out
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize(("ls", "rs"), [((3, 40), (40, 5)), ((6,), (6,)), ((2, 7), (7,)), ((33,), (33, 4))])
def test_deprecated_dot_is_dot_general_over_the_last_and_first_dimensions(ls, rs) -> None:
    """The compiled `dot` (a plan for its static shapes) gives `contract`'s bits."""
    rng = np.random.default_rng(len(ls) * 10 + len(rs))
    a, b = rng.standard_normal(ls).astype(np.float32), rng.standard_normal(rs).astype(np.float32)
    out = ls[:-1] + rs[1:]
    t = lambda shape: f"tensor<{'x'.join(map(str, shape))}{'x' if shape else ''}f32>"  # noqa: E731
    (r,) = run(
        f"""
func.func @main(%a: {t(ls)}, %b: {t(rs)}) -> {t(out)} {{
  %r = "stablehlo.dot"(%a, %b) : ({t(ls)}, {t(rs)}) -> {t(out)}
  return %r : {t(out)}
}}""",
        a,
        b,
    )
    want = contract(a, b, lhs_contracting_dimensions=[len(ls) - 1], rhs_contracting_dimensions=[0])
    assert r.shape == want.shape and r.tobytes() == want.tobytes()
