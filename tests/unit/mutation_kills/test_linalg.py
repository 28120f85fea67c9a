"""stablehlo_py/semantics/linalg.py, reduction.py and folds.py: what the mutation run of the
`semantics-linalg` group found unchecked.

Expectations are independent of the modules: naive loops written here from the spec's formulas
(docs/spec.md of openxla/stablehlo: dot_general, convolution with its padding, dilations,
reversal and feature/batch groups, reduce, reduce_window, select_and_scatter, sort), upstream's
reference interpreter (stablehlo/reference/Ops.cpp) for select_and_scatter's selection (padding
skipped, ``cur`` replaces the selection when ``select(selected, cur)`` is false), exact rational
arithmetic (fractions) for triangular_solve and cholesky on systems whose solutions are exact in
binary floating point, and sequential folds in the element type for the fold order the modules
document (init first, then the elements in row-major order). Integer results and exactly
representable float results are compared exactly."""

from __future__ import annotations

import functools
import itertools
import warnings
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.semantics import folds as F
from stablehlo_py.semantics import linalg as L
from stablehlo_py.semantics import reduction as Rd
from stablehlo_py.semantics import regions as R

I64 = np.int64
F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)


def ints_like(shape, seed, lo=-4, hi=5, dtype=I64):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


def wrap(value, dtype):
    bits = np.dtype(dtype).itemsize * 8
    value %= 1 << bits
    if np.issubdtype(dtype, np.signedinteger) and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


# ---- dot_general ------------------------------------------------------------------------------


def _place(rank, *dims_and_values):
    """An index of ``rank`` dimensions with each ``(dims, values)`` pair's values at its dims."""
    index = [0] * rank
    for dims, values in dims_and_values:
        for d, v in zip(dims, values):
            index[d] = v
    return index


def naive_dot_general(lhs, rhs, lb, rb, lc, rc, out_dtype):
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    shape = [lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lf] + [rhs.shape[d] for d in rf]
    out = np.zeros(shape, dtype=out_dtype)
    csizes = [lhs.shape[d] for d in lc]
    for idx in itertools.product(*[range(n) for n in shape]):
        bi, li, ri = idx[: len(lb)], idx[len(lb) : len(lb) + len(lf)], idx[len(lb) + len(lf) :]
        total = 0
        for ci in itertools.product(*[range(n) for n in csizes]):
            lidx = _place(lhs.ndim, (lb, bi), (lf, li), (lc, ci))
            ridx = _place(rhs.ndim, (rb, bi), (rf, ri), (rc, ci))
            total += int(lhs[tuple(lidx)]) * int(rhs[tuple(ridx)])
        out[idx] = wrap(total, out_dtype)
    return out


DOT_CASES = [
    # lhs shape, rhs shape, lb, rb, lc, rc
    ((2, 3, 4), (4, 2, 5), [0], [1], [2], [0]),
    ((3, 2, 4, 2), (2, 4, 3, 2), [3, 0], [3, 2], [2, 1], [1, 0]),  # batch and contracting permuted
    ((2, 3), (3, 4, 2), [], [], [1], [0]),
    ((2, 3), (4,), [], [], [], []),  # outer product
    ((5, 1, 3), (3, 5, 2), [0], [1], [2], [0]),
    ((2, 3, 4), (2, 3, 4), [0, 1, 2], [0, 1, 2], [], []),  # batch only
]


@pytest.mark.parametrize("case", DOT_CASES, ids=[str(i) for i in range(len(DOT_CASES))])
def test_dot_general_matches_the_spec_loop(case):
    ls, rs, lb, rb, lc, rc = case
    lhs, rhs = ints_like(ls, 1, dtype=np.int32), ints_like(rs, 2, dtype=np.int32)
    got = L.dot_general(lhs, rhs, lb, rb, lc, rc)
    expected = naive_dot_general(lhs, rhs, lb, rb, lc, rc, np.int32)
    assert got.dtype == np.int32 and got.shape == expected.shape
    assert got.tolist() == expected.tolist()


def test_dot_general_converts_both_operands_to_the_result_type_first():
    lhs = np.array([[100, -128], [127, 3]], np.int8)
    rhs = np.array([[100, 2], [-128, 127]], np.int8)
    got = L.dot_general(lhs, rhs, [], [], [1], [0], result_element_type=np.int32)
    assert got.dtype == np.int32
    assert got.tolist() == naive_dot_general(lhs, rhs, [], [], [1], [0], np.int32).tolist()
    # in i8 the products and sums wrap
    got = L.dot_general(lhs, rhs, [], [], [1], [0])
    assert got.dtype == np.int8
    assert got.tolist() == naive_dot_general(lhs, rhs, [], [], [1], [0], np.int8).tolist()
    # a float result from integer operands
    got = L.dot_general(lhs, rhs, [], [], [1], [0], result_element_type=np.float64)
    assert got.dtype == np.float64
    assert got.tolist() == naive_dot_general(lhs, rhs, [], [], [1], [0], np.int64).tolist()


def test_dot_general_int16_wraps_without_a_float_detour():
    # 30001 * 30001 = 900060001 is not a float32 (its spacing there is 64): an exact wrap only
    lhs = np.array([[30001, 7]], np.int16)
    rhs = np.array([[30001], [3]], np.int16)
    got = L.dot_general(lhs, rhs, [], [], [1], [0])
    assert got.dtype == np.int16 and got.tolist() == [[wrap(30001 * 30001 + 21, np.int16)]]


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_dot_general_narrow_floats_accumulate_in_f32_and_round_once(dtype):
    # 2048 + 1 + 1 = 2050: exact in f32, and 2050 is an f16 (and rounds to 2048 in bf16); summed
    # in f16 step by step, 2048 + 1 = 2049 rounds to 2048 and the result would be 2048
    big = 2048.0 if dtype == F16 else 256.0
    lhs = np.array([[big, 1.0, 1.0]], dtype)
    rhs = np.ones((3, 1), dtype)
    got = L.dot_general(lhs, rhs, [], [], [1], [0])
    assert got.dtype == dtype
    exact = big + 2.0
    assert float(got[0, 0]) == float(np.array(exact, np.float32).astype(dtype))
    assert float(got[0, 0]) == exact


def test_dot_general_f16_accumulates_in_f32_not_f64():
    # 2048 + 1 + 2**-14: f32 rounds the sum to 2049 (its spacing there is 2**-12), which is an f16
    # tie and goes to the even 2048; a float64 sum would keep 2049.00006 and round up to 2050
    lhs = np.array([[2048.0, 1.0, 2.0**-14]], F16)
    got = L.dot_general(lhs, np.ones((3, 1), F16), [], [], [1], [0])
    f32_sum = np.float32(2048.0) + np.float32(1.0) + np.float32(2.0**-14)
    assert got.tolist() == [[float(np.float16(f32_sum))]] == [[2048.0]]


def test_convolution_refuses_attributes_of_the_wrong_length():
    lhs = np.ones((1, 4, 1))
    rhs = np.ones((2, 1, 1))
    kw = dict(
        input_batch_dimension=0, input_spatial_dimensions=[1], input_feature_dimension=2,
        kernel_spatial_dimensions=[0], kernel_input_feature_dimension=1,
        kernel_output_feature_dimension=2, output_batch_dimension=0, output_spatial_dimensions=[1],
        output_feature_dimension=2,
    )
    with pytest.raises(ValueError):
        L.convolution(lhs, rhs, window_strides=[1, 1], **kw)
    with pytest.raises(ValueError):
        L.convolution(lhs, rhs, rhs_dilation=[1, 2], **kw)


def test_dot_general_keeps_f32_and_f64():
    lhs = np.array([[0.1, 0.2]], np.float32)
    rhs = np.array([[3.0], [0.5]], np.float32)
    got = L.dot_general(lhs, rhs, [], [], [1], [0])
    assert got.dtype == np.float32
    assert got[0, 0] == np.float32(np.float32(0.1) * np.float32(3.0) + np.float32(0.2) * np.float32(0.5))
    got = L.dot_general(lhs.astype(np.float64), rhs.astype(np.float64), [], [], [1], [0])
    assert got.dtype == np.float64
    # complex stays complex
    z = np.array([[1 + 2j, 3 - 1j]], np.complex64)
    got = L.dot_general(z, z.T.copy(), [], [], [1], [0])
    assert got.dtype == np.complex64 and got.tolist() == [[(1 + 2j) ** 2 + (3 - 1j) ** 2]]


# ---- convolution ------------------------------------------------------------------------------


def naive_conv(lhs_c, rhs_c, strides, padding, ldil, rdil, reversal, fgc=1, bgc=1):
    """The spec's formula on canonical layouts: lhs (N, S..., C), rhs (K..., I, O) -> (N', O..., F)."""
    n, *sp, c = lhs_c.shape
    *ks, ci, co = rhs_c.shape
    s = len(sp)
    out_sp = []
    for i in range(s):
        dil_in = 0 if sp[i] == 0 else (sp[i] - 1) * ldil[i] + 1
        padded = padding[i][0] + dil_in + padding[i][1]
        win = 0 if ks[i] == 0 else (ks[i] - 1) * rdil[i] + 1
        out_sp.append(0 if padded == 0 or win > padded else (padded - win) // strides[i] + 1)
    n_out = n // bgc
    out = np.zeros((n_out, *out_sp, co), dtype=np.int64)
    groups = max(fgc, bgc)
    per_group = co // groups
    for b, *o, f in itertools.product(range(n_out), *[range(v) for v in out_sp], range(co)):
        g = f // per_group
        lb = b + g * n_out if bgc > 1 else b
        c0 = g * ci if fgc > 1 else 0
        total = 0
        for k in itertools.product(*[range(v) for v in ks]):
            # reversal reverses the window: window element k reads the lhs at K-1-k
            tap = [ks[i] - 1 - k[i] if reversal[i] else k[i] for i in range(s)]
            pos = [o[i] * strides[i] + tap[i] * rdil[i] - padding[i][0] for i in range(s)]
            if any(p < 0 or p % ldil[i] or p // ldil[i] >= sp[i] for i, p in enumerate(pos)):
                continue
            src = tuple(p // ldil[i] for i, p in enumerate(pos))
            for cc in range(ci):
                total += int(lhs_c[(lb, *src, c0 + cc)]) * int(rhs_c[(*k, cc, f)])
        out[(b, *o, f)] = total
    return out


CONV_CASES = [
    # lhs spatial, kernel spatial, strides, padding, lhs_dilation, rhs_dilation, reversal, fgc, bgc
    ((5, 6), (2, 3), (1, 2), ((1, 0), (2, 1)), (1, 1), (1, 1), (False, False), 1, 1),
    ((4, 5), (2, 2), (2, 1), ((0, 1), (-1, 2)), (2, 1), (1, 2), (True, False), 1, 1),
    ((4, 5), (3, 2), (1, 3), ((2, -1), (1, 1)), (1, 3), (2, 1), (False, True), 1, 1),
    ((6, 3), (2, 2), (3, 1), ((0, 0), (0, 0)), (2, 2), (2, 1), (True, True), 1, 1),
    ((3, 4), (2, 3), (1, 1), ((1, 1), (0, 0)), (1, 1), (1, 1), (False, True), 2, 1),
    ((3, 4), (2, 2), (2, 1), ((0, 1), (1, 0)), (1, 2), (1, 1), (True, False), 1, 2),
    ((3, 3), (4, 1), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), (False, False), 1, 1),  # empty
    ((2, 3), (1, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 3), (False, False), 1, 1),  # empty
    ((3, 3), (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (4, 1), (False, False), 1, 1),  # 5 > 3
    ((2, 3), (2, 1), (1, 1), ((-1, -1), (0, 0)), (1, 1), (1, 1), (False, False), 1, 1),  # 0 wide
    ((1, 4), (1, 1), (1, 2), ((0, 0), (0, 0)), (1, 1), (1, 1), (True, False), 1, 1),  # 1 x 1
    ((3, 5), (1, 3), (2, 1), ((0, 0), (1, 0)), (1, 1), (1, 1), (False, True), 1, 1),
]

# (input batch, input spatial, input feature), (kernel spatial, in, out), (output batch, spatial, feature)
LAYOUTS = [
    ((0, [1, 2], 3), ([0, 1], 2, 3), (0, [1, 2], 3)),
    ((3, [0, 2], 1), ([3, 1], 0, 2), (2, [3, 0], 1)),
]


@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_convolution_2d_matches_the_spec_loop(case, layout):
    sp, ks, strides, padding, ldil, rdil, reversal, fgc, bgc = CONV_CASES[case]
    (ib, isp, ife), (ksp, kin, kout), (ob, osp, ofe) = LAYOUTS[layout]
    n, c, co = 2 * bgc, 2 * fgc, 2 * max(fgc, bgc)
    lhs_c = ints_like((n, *sp, c), 10 + case)
    rhs_c = ints_like((*ks, c // fgc, co), 20 + case)
    expected = naive_conv(lhs_c, rhs_c, strides, padding, ldil, rdil, reversal, fgc, bgc)
    # lay the operands out: canonical axis j goes to position dims[j]
    lhs = np.moveaxis(lhs_c, range(4), [ib, *isp, ife])
    rhs = np.moveaxis(rhs_c, range(4), [*ksp, kin, kout])
    got = L.convolution(
        lhs, rhs, window_strides=list(strides), padding=np.array(padding), lhs_dilation=list(ldil),
        rhs_dilation=list(rdil), window_reversal=list(reversal), input_batch_dimension=ib,
        input_spatial_dimensions=isp, input_feature_dimension=ife, kernel_spatial_dimensions=ksp,
        kernel_input_feature_dimension=kin, kernel_output_feature_dimension=kout,
        output_batch_dimension=ob, output_spatial_dimensions=osp, output_feature_dimension=ofe,
        feature_group_count=fgc, batch_group_count=bgc,
    )
    got_c = np.moveaxis(got, [ob, *osp, ofe], range(4))
    assert got.dtype == I64
    assert got_c.shape == expected.shape
    assert got_c.tolist() == expected.tolist()
    # dynamic_conv takes the padding as a tensor
    got = L.dynamic_conv(
        lhs, rhs, np.array(padding, np.int32), window_strides=list(strides),
        lhs_dilation=list(ldil), rhs_dilation=list(rdil), window_reversal=list(reversal),
        input_batch_dimension=ib, input_spatial_dimensions=isp, input_feature_dimension=ife,
        kernel_spatial_dimensions=ksp, kernel_input_feature_dimension=kin,
        kernel_output_feature_dimension=kout, output_batch_dimension=ob,
        output_spatial_dimensions=osp, output_feature_dimension=ofe,
        feature_group_count=fgc, batch_group_count=bgc,
    )
    assert np.moveaxis(got, [ob, *osp, ofe], range(4)).tolist() == expected.tolist()


def test_convolution_defaults_and_result_type():
    lhs_c = ints_like((1, 4, 3, 2), 3, dtype=np.int8)
    rhs_c = ints_like((2, 2, 2, 3), 4, dtype=np.int8)
    kw = dict(
        input_batch_dimension=0, input_spatial_dimensions=[1, 2], input_feature_dimension=3,
        kernel_spatial_dimensions=[0, 1], kernel_input_feature_dimension=2,
        kernel_output_feature_dimension=3, output_batch_dimension=0,
        output_spatial_dimensions=[1, 2], output_feature_dimension=3,
    )
    got = L.convolution(lhs_c, rhs_c, result_element_type=np.int32, **kw)
    expected = naive_conv(lhs_c, rhs_c, (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), (False, False))
    assert got.dtype == np.int32 and got.tolist() == expected.tolist()
    got = L.convolution(lhs_c, rhs_c, **kw)
    assert got.dtype == np.int8
    assert got.tolist() == [[[[wrap(int(v), np.int8) for v in row] for row in plane]
                             for plane in expected[0]]]
    # f16 windows are contracted in f32 and rounded once, like dot_general
    lhs16 = np.array([[[2048.0], [1.0], [1.0]]], F16)
    rhs16 = np.ones((3, 1, 1), F16)
    got = L.convolution(
        lhs16, rhs16, input_batch_dimension=0, input_spatial_dimensions=[1],
        input_feature_dimension=2, kernel_spatial_dimensions=[0], kernel_input_feature_dimension=1,
        kernel_output_feature_dimension=2, output_batch_dimension=0, output_spatial_dimensions=[1],
        output_feature_dimension=2,
    )
    assert got.dtype == F16 and got.tolist() == [[[2050.0]]]


def test_convolution_contract_hook_is_called_like_dot_general():
    calls = []

    def contract(lhs, rhs, **kw):
        calls.append(kw)
        return L.dot_general(lhs, rhs, **kw)

    lhs = ints_like((1, 3, 1), 5)
    rhs = ints_like((2, 1, 1), 6)
    kw = dict(
        input_batch_dimension=0, input_spatial_dimensions=[1], input_feature_dimension=2,
        kernel_spatial_dimensions=[0], kernel_input_feature_dimension=1,
        kernel_output_feature_dimension=2, output_batch_dimension=0, output_spatial_dimensions=[1],
        output_feature_dimension=2,
    )
    got = L.convolution(lhs, rhs, contract=contract, **kw)
    assert got.tolist() == L.convolution(lhs, rhs, **kw).tolist()
    assert len(calls) == 1 and calls[0]["result_element_type"] == np.dtype(I64)


# ---- triangular_solve / cholesky -------------------------------------------------------------


def frac_solve(a, b, left_side, lower, unit, mode):
    """op(a) x = b (left) or x op(a) = b, by exact Gaussian elimination on the triangle."""
    n = len(a)
    t = [[Fraction(a[i][j]) if (j <= i if lower else j >= i) else Fraction(0) for j in range(n)]
         for i in range(n)]
    if unit:
        for i in range(n):
            t[i][i] = Fraction(1)
    if mode in ("TRANSPOSE", "ADJOINT"):
        t = [[t[j][i] for j in range(n)] for i in range(n)]
    bm = [[Fraction(v) for v in row] for row in b]
    if not left_side:  # x t = b  <=>  t^T x^T = b^T
        t = [[t[j][i] for j in range(n)] for i in range(n)]
        bm = [[bm[j][i] for j in range(len(bm))] for i in range(len(bm[0]))]
    # solve t x = bm by Gauss-Jordan (t is triangular, so this is exact and order-independent)
    m = len(bm[0])
    aug = [t[i][:] + bm[i][:] for i in range(n)]
    for col in range(n):
        piv = aug[col][col]
        aug[col] = [v / piv for v in aug[col]]
        for r in range(n):
            if r != col and aug[r][col] != 0:
                f = aug[r][col]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[col])]
    x = [row[n:] for row in aug]
    if not left_side:
        x = [[x[j][i] for j in range(n)] for i in range(m)]
    return [[float(v) for v in row] for row in x]


TRI_A = [[2.0, 7.0, -3.0, 5.0], [1.0, -4.0, 9.0, 2.0], [3.0, -1.0, 0.5, 6.0], [-2.0, 1.0, 4.0, 8.0]]


@pytest.mark.parametrize("mode", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_is_exact_on_dyadic_systems(mode, left_side, lower, unit):
    a = np.array(TRI_A)
    b = np.array([[1.0, 2.0, -3.0], [4.0, 0.0, 1.0], [-2.0, 5.0, 3.0], [7.0, -1.0, 2.0]])
    if not left_side:
        b = b.T.copy()
    got = L.triangular_solve(a, b, left_side, lower, unit, mode)
    assert got.dtype == np.float64
    assert got.tolist() == frac_solve(TRI_A, b.tolist(), left_side, lower, unit, mode)


def test_triangular_solve_batched_f32_and_complex_adjoint():
    a = np.stack([np.array(TRI_A), np.array(TRI_A).T * 2]).astype(np.float32)
    b = np.ones((2, 4, 1), np.float32)
    got = L.triangular_solve(a, b, True, True, False, "NO_TRANSPOSE")
    assert got.dtype == np.float32
    for k in range(2):
        assert got[k].tolist() == frac_solve(a[k].tolist(), b[k].tolist(), True, True, False,
                                             "NO_TRANSPOSE")
    # ADJOINT conjugates, TRANSPOSE does not
    az = np.array([[2, 0], [1j, 1]], np.complex128)
    bz = np.array([[2], [1]], np.complex128)
    # a^T = [[2, 1j], [0, 1]]: x1 = 1, 2 x0 + 1j = 2 -> x0 = 1 - 0.5j
    got = L.triangular_solve(az, bz, True, True, False, "TRANSPOSE")
    assert got.tolist() == [[1 - 0.5j], [1 + 0j]]
    # a^H = [[2, -1j], [0, 1]]: x0 = 1 + 0.5j
    got = L.triangular_solve(az, bz, True, True, False, "ADJOINT")
    assert got.tolist() == [[1 + 0.5j], [1 + 0j]]
    got = L.triangular_solve(az, bz, True, True, False, "adjoint")  # any case
    assert got.tolist() == [[1 + 0.5j], [1 + 0j]]


def test_triangular_solve_f16_is_computed_in_f32():
    # x0 = 1/3, x1 = (1 - 5 x0) / 3 = -2/9: -0.2222 in f16 when rounded once; step by step in
    # f16 (x0 = 0.3333, 5 x0 = 1.666, ...) it would be -0.222
    a = np.array([[3.0, 0.0], [5.0, 3.0]], F16)
    b = np.array([[1.0], [1.0]], F16)
    got = L.triangular_solve(a, b, True, True, False)
    assert got.dtype == F16
    assert got.tolist() == [[float(np.float16(1 / 3))], [float(np.float16(-2 / 9))]]


@pytest.mark.parametrize("unit", [False, True])
def test_triangular_solve_batch_of_batches(unit):
    a = np.stack([np.stack([np.array(TRI_A)[:2, :2] * (k + 1) for k in range(3)])])  # (1, 3, 2, 2)
    b = np.ones((1, 3, 2, 5))
    got = L.triangular_solve(a, b, True, True, unit, "NO_TRANSPOSE")
    assert got.shape == (1, 3, 2, 5)
    for k in range(3):
        assert got[0, k].tolist() == frac_solve(a[0, k].tolist(), b[0, k].tolist(), True, True,
                                                unit, "NO_TRANSPOSE")


@pytest.mark.parametrize("mode", ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"])
@pytest.mark.parametrize("left_side", [True, False])
def test_triangular_solve_batched_every_mode(mode, left_side):
    a = np.stack([np.array(TRI_A), np.array(TRI_A).T, -np.array(TRI_A)])  # (3, 4, 4)
    b = np.stack([np.arange(12.0).reshape(4, 3) - k for k in range(3)])  # (3, 4, 3)
    if not left_side:
        b = np.swapaxes(b, 1, 2).copy()  # (3, 3, 4)
    for lower in (True, False):
        got = L.triangular_solve(a, b, left_side, lower, False, mode)
        for k in range(3):
            assert got[k].tolist() == frac_solve(a[k].tolist(), b[k].tolist(), left_side, lower,
                                                 False, mode), (k, lower)


def test_triangular_solve_f32_unit_diagonal_stays_in_f32():
    # x1 = 0.9 - 0.1 * 0.3 computed in f32 (product rounded, then the difference): 0.87; through
    # float64 it would round once to 0.86999995
    a = np.array([[5.0, 0.0], [0.1, 7.0]], np.float32)  # the diagonal is not read
    b = np.array([[0.3], [0.9]], np.float32)
    got = L.triangular_solve(a, b, True, True, True)
    x1 = np.float32(np.float32(0.9) - np.float32(np.float32(0.1) * np.float32(0.3)))
    assert got.dtype == np.float32 and got.tolist() == [[np.float32(0.3)], [x1]]
    assert x1 != np.float32(np.float64(np.float32(0.9)) - np.float64(np.float32(0.1)) * np.float64(np.float32(0.3)))


def test_triangular_solve_refuses_an_unknown_transpose_a():
    with pytest.raises(ValueError) as info:
        L.triangular_solve(np.eye(2), np.ones((2, 1)), True, True, False, "CONJUGATE")
    assert str(info.value) == (
        "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got 'CONJUGATE'"
    )


CHOL_L = np.array([[2.0, 0, 0, 0], [-1.0, 3.0, 0, 0], [4.0, 1.0, 1.0, 0], [0.0, 2.0, -3.0, 5.0]])


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_recovers_an_integer_factor_exactly(lower):
    a = CHOL_L @ CHOL_L.T
    # garbage in the triangle that must not be read
    junk = np.triu(np.full((4, 4), 99.0), 1) if lower else np.tril(np.full((4, 4), 99.0), -1)
    got = L.cholesky(a + junk, lower=lower)
    expected = CHOL_L if lower else CHOL_L.T
    assert got.dtype == np.float64 and got.tolist() == expected.tolist()


def test_cholesky_default_is_the_upper_factor():
    a = CHOL_L @ CHOL_L.T
    assert L.cholesky(a).tolist() == CHOL_L.T.tolist()


@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_batches_of_batches(lower):
    factors = np.stack([np.stack([CHOL_L * (k + 1 + m) for m in range(2)]) for k in range(3)])
    a = factors @ np.swapaxes(factors, -1, -2)
    got = L.cholesky(a, lower=lower)
    expected = factors if lower else np.swapaxes(factors, -1, -2)
    assert got.shape == (3, 2, 4, 4) and got.tolist() == expected.tolist()
    got = L.cholesky(a[0], lower=lower)  # (2, 4, 4)
    assert got.tolist() == expected[0].tolist()


def test_cholesky_complex_batched_and_f16():
    lz = np.array([[2, 0], [1 + 1j, 1]], np.complex128)
    a = lz @ lz.conj().T  # [[4, 2-2j], [2+2j, 3]]
    got = L.cholesky(np.stack([a, a]), lower=True)
    assert got.dtype == np.complex128 and got[1].tolist() == lz.tolist()
    got = L.cholesky(a, lower=False)
    assert got.tolist() == lz.conj().T.tolist()
    got = L.cholesky(np.array([[9.0, 0], [6.0, 5.0]], F16), lower=True)
    assert got.dtype == F16 and got.tolist() == [[3.0, 0.0], [2.0, 1.0]]
    # [[3, 1], [1, 3]]: l11 = sqrt(3 - 1/3) = sqrt(8/3), 1.633 in f16 when rounded once (step by
    # step in f16 it would be 1.634)
    got = L.cholesky(np.array([[3.0, 1.0], [1.0, 3.0]], F16), lower=True)
    expected = [[3**0.5, 0.0], [3**-0.5, (8 / 3) ** 0.5]]
    assert got.tolist() == [[float(np.float16(v)) for v in row] for row in expected]


def test_cholesky_not_positive_definite_gives_nan_from_the_failing_column_without_warnings():
    # column 1: l11 = sqrt(1 - 1) = 0, then l21 = (0 - 1 * 1) / 0 = -inf (a division by zero)
    a = np.array([[4.0, 2.0, 2.0], [2.0, 1.0, 0.0], [2.0, 0.0, 5.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            got = L.cholesky(a, lower=True)
    assert got[0].tolist() == [2.0, 0.0, 0.0] and got[1, 0] == 1.0 and got[2, 0] == 1.0
    assert got[1, 1] == 0.0 and got[2, 1] == -np.inf
    assert np.isnan(got[2, 2])
    # a negative pivot: NaN (not an imaginary square root), for complex matrices too
    for dtype in (np.float64, np.complex128):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(all="warn"):
                got = L.cholesky(np.array([[-4.0, 0.0], [0.0, 1.0]], dtype), lower=True)
        assert got.dtype == dtype and np.isnan(got[0, 0]) and np.isnan(got[1, 1])
        assert got[0, 1] == 0


# ---- reduce ---------------------------------------------------------------------------------


def naive_reduce(x, init, dims, fn):
    """Fold init then the reduced elements in row-major order, one output at a time."""
    keep = [d for d in range(x.ndim) if d not in dims]
    out = np.empty([x.shape[d] for d in keep], dtype=np.asarray(init).dtype)
    for oi in itertools.product(*[range(x.shape[d]) for d in keep]):
        acc = np.asarray(init)
        for ri in itertools.product(*[range(x.shape[d]) for d in sorted(dims)]):
            idx = [0] * x.ndim
            for d, v in zip(keep, oi):
                idx[d] = v
            for d, v in zip(sorted(dims), ri):
                idx[d] = v
            acc = np.asarray(fn(acc, x[tuple(idx)]), dtype=acc.dtype)
        out[oi] = acc
    return out


@pytest.mark.parametrize("dims", [[0], [1], [2], [0, 2], [2, 0], [1, 2], [0, 1, 2], []])
@pytest.mark.parametrize("body", ["kind", "generic"])
def test_reduce_int_matches_the_spec_loop(dims, body):
    x = ints_like((3, 4, 5), 7, -50, 50, np.int8)
    b = R.ADD if body == "kind" else R.make_body(lambda p, q: p + q)
    (got,) = Rd.reduce([x], [np.array(5, np.int8)], dims, b)
    expected = naive_reduce(x, np.int8(5), dims, lambda p, q: np.int8(wrap(int(p) + int(q), np.int8)))
    assert got.dtype == np.int8 and got.tolist() == expected.tolist()


@pytest.mark.parametrize("n", [3, 32, 33, 70])
def test_reduce_non_commutative_generic_body(n):
    # body(acc, x) = acc * 3 + x: a fold left from init is the base-3 number init, x0, x1, ...;
    # an associative stand-in would give something else
    x = ints_like((2, n), 8, 0, 3)
    body = R.make_body(lambda p, q: p * 3 + q)
    (got,) = Rd.reduce([x], [np.array(1, I64)], [1], body)
    if n <= F.FOLD_LIMIT:
        expected = naive_reduce(x, I64(1), [1], lambda p, q: wrap(int(p) * 3 + int(q), I64))
        assert got.tolist() == expected.tolist()
    else:  # a tree: body(init, tree) - the spec leaves the schedule open; shape and type hold
        assert got.shape == (2,) and got.dtype == I64


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 5, 32])
def test_reduce_short_float_sum_is_a_left_fold_in_the_type(dtype, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((3, n)) * 10.0 ** rng.integers(-3, 4, (3, n))).astype(dtype)
    init = np.array(0.1, dtype)
    (got,) = Rd.reduce([x], [init], [1], R.ADD)
    for r in range(3):
        acc = init
        for v in x[r]:
            acc = (acc + v).astype(dtype)
        assert got[r].tobytes() == np.asarray(acc, dtype).tobytes()


def test_reduce_long_float_sum_is_close_and_long_int_sum_exact():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 100))
    (got,) = Rd.reduce([x], [np.array(1.0)], [1], R.ADD)
    exact = [1.0 + float(sum(Fraction(v) for v in row)) for row in x.tolist()]
    assert np.allclose(got, exact, rtol=1e-13, atol=1e-13)
    xi = ints_like((4, 100), 4, -100, 100, np.int16)
    (got,) = Rd.reduce([xi], [np.array(-7, np.int16)], [1], R.ADD)
    assert got.dtype == np.int16 and got.tolist() == [int(r.sum()) - 7 for r in xi.astype(I64)]


def test_reduce_variadic_argmin_with_ties_and_empty_dims():
    x = np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 2]], np.int32)
    idx = np.broadcast_to(np.arange(5, dtype=np.int32), x.shape)

    def argmin(av, ai, bv, bi):
        take_b = (bv < av) | ((bv == av) & (bi < ai))
        return np.where(take_b, bv, av), np.where(take_b, bi, ai)

    vals, where = Rd.reduce([x, idx], [np.array(99, np.int32), np.array(0, np.int32)], [1],
                            R.make_body(argmin))
    assert vals.tolist() == [1, 2] and where.tolist() == [1, 1]
    empty = np.zeros((2, 0), np.int32)
    vals, where = Rd.reduce([empty, empty], [np.array(99, np.int32), np.array(-1, np.int32)], [1],
                            R.make_body(argmin))
    assert vals.tolist() == [99, 99] and where.tolist() == [-1, -1]


@pytest.mark.parametrize("kind, expected_sign", [("max", False), ("min", True)])
@pytest.mark.parametrize("n", [2, 40])
def test_reduce_max_min_of_zeros_take_the_ieee_zero(kind, expected_sign, n):
    body = R.KIND_BODIES[kind]
    for order in ([0.0, -0.0], [-0.0, 0.0]):
        x = np.array([order * (n // 2)], np.float32)
        (got,) = Rd.reduce([x], [np.array(-np.inf if kind == "max" else np.inf, np.float32)], [1], body)
        assert got[0] == 0 and bool(np.signbit(got[0])) is expected_sign
    # the init value's zero counts too
    x = np.full((1, n), 0.0 if expected_sign else -0.0, np.float32)
    init = np.array(-0.0 if expected_sign else 0.0, np.float32)
    (got,) = Rd.reduce([x], [init], [1], body)
    assert bool(np.signbit(got[0])) is expected_sign


@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_max_min_zero_sign_on_3d_inputs(kind):
    negative = kind == "min"
    x = np.full((2, 3, 40), 5.0 if negative else -5.0, np.float32)
    x[0, :, 7] = -0.0 if not negative else 0.0  # only the losing zero: it stays
    x[1, :, 3] = -0.0
    x[1, :, 9] = 0.0  # both zeros: the IEEE winner
    init = np.array(np.inf if negative else -np.inf, np.float32)
    (got,) = Rd.reduce([x], [init], [2], R.KIND_BODIES[kind])
    assert got.shape == (2, 3) and (got == 0).all()
    assert np.signbit(got[0]).tolist() == [not negative] * 3
    assert np.signbit(got[1]).tolist() == [negative] * 3


def test_reduce_short_sums_of_3d_inputs_fold_left_without_warnings():
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((2, 3, 9)) * 10.0 ** rng.integers(-4, 5, (2, 3, 9))).astype(np.float32)
    x[1, 2, 4] = 3e38
    x[1, 2, 5] = 3e38  # overflows to inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            (got,) = Rd.reduce([x], [np.array(0.25, np.float32)], [2], R.ADD)
    assert got.shape == (2, 3)
    for i, j in itertools.product(range(2), range(3)):
        acc = np.float32(0.25)
        with np.errstate(all="ignore"):
            for v in x[i, j]:
                acc = np.float32(acc + v)
        assert got[i, j] == acc, (i, j)
    assert got[1, 2] == np.inf


def test_reduce_long_int64_sum_is_exact_and_long_float_sum_warns_nothing():
    x = np.arange(40, dtype=I64).reshape(1, 40)
    init = np.array(2**53 + 1, I64)  # not a float64
    (got,) = Rd.reduce([x], [init], [1], R.ADD)
    assert got.tolist() == [2**53 + 1 + 780]
    y = np.full((2, 40), 1e37, np.float32)
    y[1, 0] = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            (got,) = Rd.reduce([y], [np.array(0.0, np.float32)], [1], R.ADD)
            (m,) = Rd.reduce([y], [np.array(np.inf, np.float32)], [1], R.ADD)
    assert got[0] == np.inf and got[1] == -np.inf
    assert m[0] == np.inf and np.isnan(m[1])


def test_reduce_short_complex_sum_is_a_left_fold():
    rng = np.random.default_rng(1)
    mag = 10.0 ** rng.integers(-4, 5, (2, 20))
    x = (rng.standard_normal((2, 20)) * mag + 1j * rng.standard_normal((2, 20)) * mag[:, ::-1])
    x = x.astype(np.complex64)
    (got,) = Rd.reduce([x], [np.array(0, np.complex64)], [1], R.ADD)
    for r in range(2):
        acc = np.complex64(0)
        for v in x[r]:
            acc = np.complex64(acc + v)
        assert got[r] == acc


# ---- reduce_window --------------------------------------------------------------------------


def naive_reduce_window(x, init, wd, ws, bd, wdil, padding, fn):
    rank = x.ndim
    dil_shape = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(x.shape, bd)]
    padded_shape = [lo + n + hi for n, (lo, hi) in zip(dil_shape, padding)]
    padded = np.full(padded_shape, init, dtype=x.dtype)
    for idx in itertools.product(*[range(n) for n in x.shape]):
        dst = tuple(lo + i * b for i, (lo, _), b in zip(idx, padding, bd))
        if all(0 <= j < n for j, n in zip(dst, padded_shape)):
            padded[dst] = x[idx]
    out_shape = []
    for p, w, d, s in zip(padded_shape, wd, wdil, ws):
        dw = (w - 1) * d + 1
        out_shape.append(0 if p == 0 or dw > p else (p - dw) // s + 1)
    out = np.empty(out_shape, dtype=x.dtype)
    for oi in itertools.product(*[range(n) for n in out_shape]):
        acc = np.asarray(init, dtype=x.dtype)
        for wi in itertools.product(*[range(w) for w in wd]):
            pos = tuple(o * s + w * d for o, s, w, d in zip(oi, ws, wi, wdil))
            acc = np.asarray(fn(acc, padded[pos]), dtype=x.dtype)
        out[oi] = acc
    return out


RW_CASES = [
    # window, strides, base dilations, window dilations, padding
    ((2, 3), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0))),
    ((2, 2), (2, 1), (1, 1), (1, 2), ((1, 0), (0, 2))),
    ((3, 1), (1, 3), (2, 1), (1, 1), ((0, 1), (1, 1))),
    ((1, 2), (3, 2), (1, 3), (2, 1), ((2, 2), (-1, 1))),
    ((2, 2), (1, 1), (2, 2), (2, 2), ((-1, 0), (0, -2))),
    ((5, 1), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0))),  # taller than the input: empty
    ((1, 1), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0))),
    ((3, 1), (1, 1), (1, 1), (3, 1), ((0, 0), (0, 0))),  # 7 tall on 4: empty
    ((1, 2), (1, 1), (1, 1), (1, 1), ((-3, 0), (0, 0))),  # padded to 1 row
    ((4, 5), (1, 1), (1, 1), (1, 1), ((0, 0), (0, 0))),  # the window is the whole input
    ((2, 2), (1, 1), (1, 1), (1, 1), ((-2, -2), (0, 0))),  # padded to 0 rows
]


@pytest.mark.parametrize("case", range(len(RW_CASES)))
@pytest.mark.parametrize("body", ["add_kind", "non_commutative"])
def test_reduce_window_matches_the_spec_loop(case, body):
    wd, ws, bd, wdil, padding = RW_CASES[case]
    x = ints_like((4, 5), 30 + case, -9, 10)
    if body == "add_kind":
        b, fn = R.ADD, lambda p, q: p + q
    else:
        b, fn = R.make_body(lambda p, q: p * 2 - q), lambda p, q: p * 2 - q
    (got,) = Rd.reduce_window(
        [x], [np.array(3, I64)], window_dimensions=wd, window_strides=ws, base_dilations=bd,
        window_dilations=wdil, padding=np.array(padding), body=b,
    )
    expected = naive_reduce_window(x, 3, wd, ws, bd, wdil, padding, fn)
    assert got.dtype == I64 and got.shape == expected.shape
    assert got.tolist() == expected.tolist()


def test_reduce_window_defaults_and_variadic():
    x = ints_like((3, 4), 40)
    y = ints_like((3, 4), 41).astype(np.int32)
    body = R.make_body(lambda a0, a1, b0, b1: (a0 + b0, np.maximum(a1, b1)))
    s, m = Rd.reduce_window([x, y], [np.array(0, I64), np.array(-100, np.int32)],
                            window_dimensions=(2, 2), body=body)
    assert s.tolist() == naive_reduce_window(x, 0, (2, 2), (1, 1), (1, 1), (1, 1),
                                             ((0, 0), (0, 0)), lambda p, q: p + q).tolist()
    assert m.dtype == np.int32
    assert m.tolist() == naive_reduce_window(y, -100, (2, 2), (1, 1), (1, 1), (1, 1),
                                             ((0, 0), (0, 0)), max).tolist()
    # an empty result keeps the init value's type
    (e,) = Rd.reduce_window([x], [np.array(0, np.int16)], window_dimensions=(4, 1), body=R.ADD)
    assert e.shape == (0, 4) and e.dtype == np.int16


def test_reduce_window_pads_with_the_exact_init_value():
    # i64 init 2**53 + 1 is not a float64: the padding must hold it exactly
    init = np.array(2**53 + 1, I64)
    (got,) = Rd.reduce_window([np.array([1, 2], I64)], [init], window_dimensions=(2,),
                              padding=np.array([[1, 0]]), body=R.ADD)
    assert got.tolist() == [2 * (2**53 + 1) + 1, 2**53 + 1 + 3]


def test_reduce_window_refuses_fewer_init_values_than_inputs():
    x = np.ones((3,), I64)
    with pytest.raises(ValueError):
        Rd.reduce_window([x, x], [np.array(0, I64)], window_dimensions=(2,), body=R.ADD)


@pytest.mark.parametrize("kind", ["max", "min"])
def test_reduce_window_max_min_take_the_ieee_zero(kind):
    negative = kind == "min"
    x = np.array([0.0, -0.0, 0.0, 3.0 if negative else -3.0, -0.0, -0.0], np.float32)
    init = np.array(np.inf if negative else -np.inf, np.float32)
    (got,) = Rd.reduce_window([x], [init], window_dimensions=(2,), body=R.KIND_BODIES[kind])
    # windows: (+0, -0), (-0, +0), (+0, ±3), (±3, -0), (-0, -0)
    assert got.tolist() == [0.0] * 5
    winner = negative
    assert np.signbit(got).tolist() == [winner, winner, False, True, True]


def test_reduce_window_float_overflow_raises_no_warning():
    x = np.array([60000.0, 60000.0, -np.inf], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            (got,) = Rd.reduce_window([x], [np.array(0.0, np.float16)],
                                      window_dimensions=(2,), body=R.ADD)
            (m,) = Rd.reduce_window([x], [np.array(0.0, np.float16)],
                                    window_dimensions=(2,), body=R.MUL)
    assert got.tolist() == [np.inf, -np.inf]  # 120000 overflows f16
    assert m[0] == 0 and np.isnan(m[1])  # 0 * 60000 * -inf


def test_reduce_window_f16_folds_in_f16():
    x = np.array([2048.0, 1.0, 1.0, 1.0], F16)
    (got,) = Rd.reduce_window([x], [np.array(0.0, F16)], window_dimensions=(3,), body=R.ADD)
    # 0 + 2048 + 1 -> 2048 (tie to even), + 1 -> 2048; 1 + 1 + 1 = 3
    assert got.dtype == F16 and got.tolist() == [2048.0, 3.0]


# ---- select_and_scatter ---------------------------------------------------------------------


def naive_select_and_scatter(operand, source, init, wd, ws, padding, select, scatter):
    result = np.full(operand.shape, init, dtype=np.asarray(init).dtype)
    for si in itertools.product(*[range(n) for n in source.shape]):
        selected = None
        for wi in itertools.product(*[range(w) for w in wd]):
            idx = tuple(s * st + w - lo for s, st, w, (lo, _) in zip(si, ws, wi, padding))
            if not all(0 <= i < n for i, n in zip(idx, operand.shape)):
                continue
            cur = operand[idx]
            if selected is None or not select(operand[selected], cur):
                selected = idx
        if selected is not None:
            result[selected] = scatter(result[selected], source[si])
    return result


SAS_CASES = [
    # operand shape, window, strides, padding
    ((4, 6), (2, 3), (2, 3), ((0, 0), (0, 0))),
    ((4, 5), (3, 2), (1, 2), ((1, 1), (0, 1))),
    ((3, 4), (2, 2), (1, 1), ((1, 0), (1, 2))),
    ((5, 3), (3, 3), (2, 1), ((2, 2), (1, 1))),  # windows entirely in the padding
]


def _sas_source_shape(shape, wd, ws, padding):
    out = []
    for n, w, s, (lo, hi) in zip(shape, wd, ws, padding):
        p = lo + n + hi
        out.append(0 if p == 0 or w > p else (p - w) // s + 1)
    return tuple(out)


@pytest.mark.parametrize("case", range(len(SAS_CASES)))
@pytest.mark.parametrize("sel", ["ge", "lt"])
@pytest.mark.parametrize("sc", ["add_kind", "non_commutative"])
def test_select_and_scatter_matches_upstream_loop(case, sel, sc):
    shape, wd, ws, padding = SAS_CASES[case]
    operand = ints_like(shape, 50 + case, -3, 4)  # many ties
    source = ints_like(_sas_source_shape(shape, wd, ws, padding), 60 + case, 1, 9)
    select = {"ge": lambda p, q: p >= q, "lt": lambda p, q: p < q}[sel]
    if sc == "add_kind":
        scatter, sfn = R.ADD, lambda p, q: p + q
    else:
        scatter, sfn = R.make_body(lambda p, q: p * 3 + q), lambda p, q: p * 3 + q
    got = Rd.select_and_scatter(
        operand, source, np.array(1, I64), window_dimensions=wd, window_strides=ws,
        padding=np.array(padding), select=R.make_body(select), scatter=scatter,
    )
    expected = naive_select_and_scatter(operand, source, 1, wd, ws, padding, select, sfn)
    assert got.dtype == I64 and got.tolist() == expected.tolist()


def test_select_and_scatter_defaults_empty_source_and_result_type():
    operand = np.array([[1.0, 5.0, 2.0], [7.0, 3.0, 0.0]], np.float32)
    source = np.array([[10, 20], [30, 40]], np.int32)
    got = Rd.select_and_scatter(
        operand, source, np.array(0, np.int32), window_dimensions=(1, 2),
        select=R.make_body(lambda p, q: p >= q), scatter=R.ADD,
    )
    # windows: (0,0..1)->5 at [0,1]; (0,1..2)->5 at [0,1]; (1,0..1)->7 at [1,0]; (1,1..2)->3
    assert got.dtype == np.int32 and got.tolist() == [[0, 30, 0], [30, 40, 0]]
    got = Rd.select_and_scatter(
        operand, np.zeros((0, 2), np.int32), np.array(-1, np.int32), window_dimensions=(3, 2),
        select=R.make_body(lambda p, q: p >= q), scatter=R.ADD,
    )
    assert got.tolist() == [[-1] * 3] * 2


def test_select_and_scatter_one_window_of_wide_integers():
    # 2**53 and 2**53 + 1 are one float64: the selection must compare them as i64
    operand = np.array([[2**53, 2**53 + 1, 2**53]], I64)
    got = Rd.select_and_scatter(
        operand, np.array([[2**53 + 1]], I64), np.array(0, I64), window_dimensions=(1, 3),
        select=R.make_body(lambda p, q: p >= q), scatter=R.ADD,
    )
    assert got.tolist() == [[0, 2**53 + 1, 0]]


def test_select_and_scatter_float_add_raises_no_warning():
    operand = np.array([1.0, 2.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            got = Rd.select_and_scatter(
                operand, np.array([np.inf, -np.inf], np.float32), np.array(0.0, np.float32),
                window_dimensions=(2,), window_strides=(1,), padding=np.array([[0, 1]]),
                select=R.make_body(lambda p, q: p >= q), scatter=R.ADD,
            )
    assert got[0] == 0.0 and np.isnan(got[1])


def test_select_and_scatter_refuses_window_attributes_of_the_wrong_rank():
    operand = np.ones((2, 3))
    ge = R.make_body(lambda p, q: p >= q)
    with pytest.raises(ValueError):
        Rd.select_and_scatter(operand, np.ones((2, 2)), np.array(0.0), window_dimensions=(1, 2, 1),
                              select=ge, scatter=R.ADD)
    with pytest.raises(ValueError):
        Rd.select_and_scatter(operand, np.ones((2, 2)), np.array(0.0), window_dimensions=(1, 2),
                              window_strides=(1, 1, 1), select=ge, scatter=R.ADD)


def test_select_and_scatter_float_max_scatter_keeps_positive_zero():
    operand = np.array([1.0, 2.0], np.float32)
    source = np.array([-0.0, 0.0], np.float32)
    got = Rd.select_and_scatter(
        operand, source, np.array(-0.0, np.float32), window_dimensions=(1,),
        select=R.make_body(lambda p, q: p >= q), scatter=R.MAX,
    )
    assert got.tolist() == [0.0, 0.0]
    assert bool(np.signbit(got[0])) and not np.signbit(got[1])  # max(-0, -0) = -0, max(-0, 0) = 0
    # the result's +0 against a source -0: max keeps +0; min of -0 and +0 is -0
    for body, init, src, neg in ((R.MAX, 0.0, -0.0, False), (R.MIN, -0.0, 0.0, True)):
        got = Rd.select_and_scatter(
            operand, np.array([src, src], np.float32), np.array(init, np.float32),
            window_dimensions=(1,), select=R.make_body(lambda p, q: p >= q), scatter=body,
        )
        assert got.tolist() == [0.0, 0.0] and np.signbit(got).tolist() == [neg, neg]


# ---- sort / top_k ---------------------------------------------------------------------------


def naive_sort(rows, less):
    """Stable sort of the index list by ``less`` (a Python predicate on indices)."""
    def cmp(i, j):
        return -1 if less(i, j) else (1 if less(j, i) else 0)
    return sorted(range(len(rows)), key=functools.cmp_to_key(cmp))


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13])
@pytest.mark.parametrize("dimension", [0, 1, -1, -2])
def test_sort_generic_comparator_is_stable_along_any_dimension(n, dimension):
    keys = ints_like((n, n + 1), n, 0, 3)
    payload = np.arange(keys.size, dtype=np.int32).reshape(keys.shape)
    comp = R.make_comparator(lambda a, b, c, d: a > b)  # descending by key, ties in order
    got_k, got_p = Rd.sort([keys, payload], dimension, True, comp)
    d = dimension % 2
    kk, pp = np.moveaxis(keys, d, -1), np.moveaxis(payload, d, -1)
    exp_k, exp_p = np.empty_like(kk), np.empty_like(pp)
    for r in range(kk.shape[0]):
        order = naive_sort(kk[r], lambda i, j, r=r: kk[r][i] > kk[r][j])
        exp_k[r], exp_p[r] = kk[r][order], pp[r][order]
    assert got_k.tolist() == np.moveaxis(exp_k, -1, d).tolist()
    assert got_p.tolist() == np.moveaxis(exp_p, -1, d).tolist()


@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_sort_recognised_comparator_by_the_second_input(direction):
    x = np.array([[3.0, -0.0, np.nan, 0.0, -np.inf, 3.0, -1.0]])
    tag = np.arange(7, dtype=np.int32)[None]
    maker = R.comparator_lt if direction == "LT" else R.comparator_gt
    got_tag, got_x = Rd.sort([tag, x], 1, True, maker(1))
    order = [4, 6, 1, 3, 0, 5, 2]  # total order: -inf < -1 < -0 < +0 < 3 = 3 < nan (stable)
    if direction == "GT":
        order = [2, 0, 5, 3, 1, 6, 4]
    assert got_tag[0].tolist() == order
    assert np.array_equal(got_x[0], x[0][order], equal_nan=True)


def test_sort_one_input_generic_comparator():
    x = np.array([[5, -1, 3, 3, 0, 9, -7]], np.int16)
    (got,) = Rd.sort([x], 1, False, R.make_comparator(lambda a, b: a < b))
    assert got.tolist() == [sorted(x[0].tolist())]


def test_sort_complex_keys_and_trivial_lengths():
    z = np.array([2 + 1j, 1 + 5j, 2 - 1j, 1 + 5j])
    tag = np.arange(4)
    lexi = R.make_comparator(
        lambda a, b, c, d: (a.real < b.real) | ((a.real == b.real) & (a.imag < b.imag)), "LT", 0
    )
    got_z, got_tag = Rd.sort([z, tag], 0, False, lexi)
    assert got_tag.tolist() == [1, 3, 2, 0] and got_z.tolist() == [1 + 5j, 1 + 5j, 2 - 1j, 2 + 1j]
    one = np.array([[5, 4, 3]])
    (got,) = Rd.sort([one], 0, True, R.comparator_lt())
    assert got.tolist() == [[5, 4, 3]]
    (got,) = Rd.sort([np.zeros((0, 3))], 1, True, R.comparator_lt())
    assert got.shape == (0, 3)


def test_top_k_descending_total_order_ties_by_index():
    x = np.array([[1.0, np.nan, 3.0, 3.0, -np.inf, 0.0, -0.0]])
    vals, idx = Rd.top_k(x, 6)
    assert idx.dtype == np.int32 and idx.tolist() == [[1, 2, 3, 0, 5, 6]]
    assert np.isnan(vals[0, 0]) and vals[0, 1:].tolist() == [3.0, 3.0, 1.0, 0.0, -0.0]
    assert not np.signbit(vals[0, 4]) and np.signbit(vals[0, 5])
    vals, idx = Rd.top_k(np.array([[4, -2, 7], [0, 0, -1]], np.int8), 2)
    assert vals.tolist() == [[7, 4], [0, 0]] and idx.tolist() == [[2, 0], [0, 1]]


def test_top_k_of_a_3d_operand_with_many_ties_is_stable():
    x = ints_like((2, 3, 300), 9, 0, 4).astype(np.float32)
    vals, idx = Rd.top_k(x, 7)
    assert vals.shape == idx.shape == (2, 3, 7)
    for i, j in itertools.product(range(2), range(3)):
        row = x[i, j].tolist()
        order = sorted(range(300), key=lambda t: (-row[t], t))[:7]
        assert idx[i, j].tolist() == order
        assert vals[i, j].tolist() == [row[t] for t in order]


# ---- folds ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["max", "min"])
def test_ufunc_at_takes_the_ieee_zero(kind):
    negative = kind == "min"
    target = np.array([0.0, -0.0, 0.0, -0.0, 1.0], np.float32)
    indices = np.array([0, 1, 2, 3, 2, 4])
    values = np.array([-0.0, 0.0, -0.0, -0.0, 0.0, -0.0], np.float32)
    F.ufunc_at(kind, target, indices, values)
    # each element folds with IEEE max/min: max(+0, -0) = +0, min(+0, -0) = -0
    expected_sign = [negative, negative, negative, True, None]
    assert target[:4].tolist() == [0.0] * 4
    for i, s in enumerate(expected_sign[:4]):
        assert bool(np.signbit(target[i])) is s, (kind, i)
    assert target[4] == (1.0 if kind == "max" else -0.0)
    # integers: no zero fix-up, the plain ufunc
    ti = np.array([0, 5], np.int32)
    F.ufunc_at(kind, ti, np.array([0, 1, 1]), np.array([-3, 7, 2], np.int32))
    assert ti.tolist() == ([0, 7] if kind == "max" else [-3, 2])


def test_ufunc_kind_table():
    assert F.ufunc_kind(R.ADD, [np.dtype(np.float32)]) == "add"
    assert F.ufunc_kind(R.MUL, [np.dtype(np.complex64)]) is None  # the body runs
    assert F.ufunc_kind(R.MUL, [np.dtype(np.float32)]) == "mul"
    assert F.ufunc_kind(R.ADD, [np.dtype(np.float32)] * 2) is None
    assert F.ufunc_kind(R.make_body(lambda a, b: a + b), [np.dtype(np.float32)]) is None
    # int4 has its own add but no maximum loop
    assert F.ufunc_kind(R.ADD, [np.dtype(ml_dtypes.int4)]) == "add"
    assert F.ufunc_kind(R.MAX, [np.dtype(ml_dtypes.int4)]) is None


def test_reduce_schedule_boundaries():
    f32, i32 = [np.dtype(np.float32)], [np.dtype(np.int32)]
    generic = R.make_body(lambda a, b: a + b)
    assert F.reduce_schedule(R.ADD, f32, F.FOLD_LIMIT) == "steps"
    assert F.reduce_schedule(R.ADD, f32, F.FOLD_LIMIT + 1) == "ufunc"
    assert F.reduce_schedule(R.MUL, [np.dtype(np.complex64)], 5) == "steps"
    assert F.reduce_schedule(R.ADD, i32, 2) == "ufunc"
    assert F.reduce_schedule(R.MAX, f32, 2) == "ufunc"
    assert F.reduce_schedule(generic, f32, F.FOLD_LIMIT) == "steps"
    assert F.reduce_schedule(generic, f32, F.FOLD_LIMIT + 1) == "tree"


def test_fold_left_mixed_step_dtype_and_body_result_count():
    acc = F.fold_left(R.ADD, [np.array(1, np.int8)], [(np.array([100, 1], np.int64),),
                                                      (np.array([100, 2], np.int64),)], (2,))
    assert acc[0].dtype == np.int8 and acc[0].tolist() == [wrap(201, np.int8), 4]
    # a float max fold keeps the accumulator's type (and its IEEE zero) whatever the steps' type
    acc = F.fold_left(R.MAX, [np.array(-0.0, np.float16)],
                      [(np.array([0.0, -1.0], np.float32),), (np.array([-0.0, 2.5], np.float32),)],
                      (2,))
    assert acc[0].dtype == np.float16 and acc[0].tolist() == [0.0, 2.5]
    assert not np.signbit(acc[0][0])
    body = R.make_body(lambda a, b: (a + b, a - b))
    with pytest.raises(ValueError) as info:
        F.fold_left(body, [np.array(0)], [(np.array([1]),)], (1,))
    assert str(info.value) == "the reduction body returned 2 values for 1 accumulators"


@pytest.mark.parametrize(
    "kind, dtype",
    [(k, t) for k in ("add", "mul", "max", "min") for t in (np.float16, np.float32)]
    + [("add", np.complex64), ("mul", np.complex64)],
)
def test_accumulate_fold_equals_a_sequential_fold(kind, dtype):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((3, 7)) * 3).astype(dtype)
    x[0, 2] = 0.0
    x[1, :] = -0.0 if kind == "max" else 0.0
    # both zeros, the IEEE loser last (numpy's maximum/minimum return the second of two zeros)
    x[2, :] = [0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0] if kind != "min" else [
        -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0]
    init = np.array(0.0 if kind != "mul" else 1.5, dtype)
    if kind == "max":
        init = np.array(-0.0, dtype)
    uf = R.kind_ufunc(kind, np.dtype(dtype))
    got = F.accumulate_fold(R.KIND_BODIES[kind], [x], [init])
    if kind == "mul" and dtype is np.complex64:
        assert got is None  # the interpreter's complex product is the body's, not numpy's
        return
    assert got is not None
    for r in range(3):
        acc = init
        for v in x[r]:
            if kind in ("max", "min") and acc == 0 and v == 0:
                neg = kind == "min"
                acc = acc if bool(np.signbit(acc)) is neg else v
            else:
                acc = np.asarray(uf(acc, v), dtype)
        assert got[0][r].tobytes() == np.asarray(acc, dtype).tobytes(), (kind, r)
    # not applicable: two inputs, another init type, a type outside ACCUMULATE_DTYPES, no kind
    assert F.accumulate_fold(R.KIND_BODIES[kind], [x, x], [init, init]) is None
    assert F.accumulate_fold(R.KIND_BODIES[kind], [x], [init.astype(np.complex128)]) is None
    assert F.accumulate_fold(R.ADD, [x.astype(BF16)], [init.astype(BF16)]) is None
    assert F.accumulate_fold(R.make_body(lambda a, b: a + b), [x], [init]) is None


def test_accumulate_fold_of_complex_max_is_the_lexicographic_fold():
    x = np.array([[1 + 2j, 3 - 1j, 3 + 0j, -5 + 9j], [0j, -1 + 5j, -2 + 0j, 0j]], np.complex64)
    got = F.accumulate_fold(R.MAX, [x], [np.array(-1, np.complex64)])
    assert got is not None and got[0].tolist() == [3 + 0j, 0j]  # no zero fix-up on complex


def test_accumulate_fold_gives_up_on_nan_and_many_lanes():
    x = np.array([[1.0, np.nan, 2.0]], np.float32)
    assert F.accumulate_fold(R.ADD, [x], [np.array(0.0, np.float32)]) is None
    wide = np.ones((F.ACCUMULATE_MAX_LANES + 1, 2), np.float32)
    assert F.accumulate_fold(R.ADD, [wide], [np.array(0.0, np.float32)]) is None
    ok = np.ones((F.ACCUMULATE_MAX_LANES, 2), np.float32)
    got = F.accumulate_fold(R.ADD, [ok], [np.array(0.5, np.float32)])
    assert got is not None and got[0].tolist() == [2.5] * F.ACCUMULATE_MAX_LANES


@pytest.mark.parametrize("kind", ["add", "max", "min", "mul", "xor"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, ml_dtypes.int4])
@pytest.mark.parametrize("n", [1, 4, 40])
def test_prepare_kind_reduce_matches_a_sequential_fold(kind, dtype, n):
    d = np.dtype(dtype)
    fn = F.prepare_kind_reduce(kind, d, n)
    uf = R.kind_ufunc(kind, d)
    if F.ufunc_kind(R.KIND_BODIES[kind], [d]) is None:
        assert fn is None
        return
    if kind == "xor" and d.kind == "f":
        return
    rng = np.random.default_rng(n)
    if d.kind == "f":
        x = rng.integers(-3, 4, (5, n)).astype(d)
        x[0] = -0.0
        x[1] = 0.0
        # both zeros, the IEEE loser last (numpy's maximum/minimum return the second of a tie)
        x[2] = [0.0 if (i % 2 == 0) != (kind == "min") else -0.0 for i in range(n)]
        x[2, -1] = 0.0 if kind == "min" else -0.0
    else:
        x = rng.integers(-3, 4, (5, n)).astype(d)
    init = np.array(0 if kind not in ("mul",) else 1, d)
    if kind == "max" and d.kind == "f":
        init = np.array(-0.0, d)
    with np.errstate(all="ignore"):
        got = fn(x, init)
    for r in range(5):
        acc = init
        for v in x[r]:
            if kind in ("max", "min") and d.kind == "f" and acc == 0 and v == 0:
                acc = acc if bool(np.signbit(acc)) is (kind == "min") else v
            else:
                acc = np.asarray(uf(acc, v), d)
        assert np.asarray(got[r]).tobytes() == np.asarray(acc, d).tobytes(), (r,)
    assert F.prepare_kind_reduce(kind, d, 0) is None
    assert F.prepare_kind_reduce("nope", d, n) is None
    # the same fold over the last axis of a 3-d input
    got3 = fn(np.stack([x, x[::-1]]), init)
    assert got3.shape == (2, 5)
    assert got3[0].tobytes() == np.asarray(got).tobytes()
    assert got3[1].tobytes() == np.asarray(got)[::-1].tobytes()


def test_prepare_kind_reduce_falls_back_to_steps_on_nan():
    fn = F.prepare_kind_reduce("add", np.dtype(np.float32), 3)
    x = np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 3.0]], np.float32)
    got = fn(x, np.array(0.5, np.float32))
    assert np.isnan(got[0]) and got[1] == 6.5
    # the same on a 3-d input (lanes over two axes), with NaN and with more lanes than accumulate takes
    x3 = np.stack([x, x[::-1]])  # (2, 2, 3)
    got = fn(x3, np.array(0.5, np.float32))
    assert got.shape == (2, 2) and np.isnan(got[0, 0]) and np.isnan(got[1, 1])
    assert got[0, 1] == 6.5 and got[1, 0] == 6.5
    wide = np.full((F.ACCUMULATE_MAX_LANES, 2, 3), 0.25, np.float32)
    got = fn(wide, np.array(0.5, np.float32))
    assert got.shape == (F.ACCUMULATE_MAX_LANES, 2) and (got == 1.25).all()
