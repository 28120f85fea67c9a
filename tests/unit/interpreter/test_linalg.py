"""dot_general, convolution, triangular_solve and cholesky."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablehlo_py.semantics import linalg as L

I64 = np.int64


def a(values, dtype=I64):
    return np.array(values, dtype=dtype)


# --- dot_general ---------------------------------------------------------------------------------

LHS = a([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
RHS = a([[[1, 0], [0, 1]], [[1, 0], [0, 1]]])


def test_dot_general_spec_example_and_conformance():
    out = L.dot_general(LHS, RHS, [0], [0], [2], [1])
    assert out.tolist() == LHS.tolist() and out.dtype == I64
    out = L.dot_general(LHS.astype(np.float32), RHS.astype(np.float32), [0], [0], [2], [1],
                        result_element_type=np.float64)
    assert out.dtype == np.float64 and out.tolist() == LHS.tolist()


def test_dot_general_outer_product_with_empty_dims():
    out = L.dot_general(a([[1, 2], [3, 4]]), a([[1, 0], [0, 1]]))
    assert out.tolist() == [[[[1, 0], [0, 1]], [[2, 0], [0, 2]]], [[[3, 0], [0, 3]], [[4, 0], [0, 4]]]]


def test_dot_general_f8_conformance():
    x = np.array([0.0, 1.0, 2.0, 3.0], ml_dtypes.float8_e3m4)
    out = L.dot_general(x, x, lhs_contracting_dimensions=[0], rhs_contracting_dimensions=[0])
    assert out.shape == () and out.dtype == ml_dtypes.float8_e3m4 and float(out) == 14.0
    x = np.arange(8, dtype=np.float64).astype(ml_dtypes.float8_e4m3)
    out = L.dot_general(x, x, lhs_contracting_dimensions=[0], rhs_contracting_dimensions=[0])
    assert abs(float(out) - 140.0) <= 8.0  # expect_almost_eq: 140 is not an f8E4M3 value


def test_dot_general_integer_accumulation_wraps_in_result_type():
    x = a([100, 100], np.int8)
    out = L.dot_general(x, x, lhs_contracting_dimensions=[0], rhs_contracting_dimensions=[0])
    assert out.dtype == np.int8 and int(out) == np.int8(np.int64(20000) - 65536 * 0).astype(np.int8)
    wide = L.dot_general(x, x, lhs_contracting_dimensions=[0], rhs_contracting_dimensions=[0],
                         result_element_type=np.int32)
    assert wide.dtype == np.int32 and int(wide) == 20000


def test_dot_general_bool_is_or_of_ands():
    x = a([[True, False], [False, False]], np.bool_)
    out = L.dot_general(x, x, lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0])
    assert out.dtype == np.bool_ and out.tolist() == [[True, False], [False, False]]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_dot_general_matches_einsum(data):
    nb, nlf, nrf, nc = (data.draw(st.integers(0, 2)) for _ in range(4))
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=nb + nlf + nrf + nc, max_size=nb + nlf + nrf + nc))
    letters = "abcdefghij"
    b, lf, rf, c = (letters[:nb], letters[nb:nb + nlf], letters[nb + nlf:nb + nlf + nrf],
                    letters[nb + nlf + nrf:nb + nlf + nrf + nc])
    size_of = dict(zip(letters, sizes))
    lhs_axes = data.draw(st.permutations(list(b + lf + c)))
    rhs_axes = data.draw(st.permutations(list(b + rf + c)))
    rng = np.random.default_rng(0)
    lhs = rng.integers(-5, 5, [size_of[x] for x in lhs_axes]).astype(np.int32)
    rhs = rng.integers(-5, 5, [size_of[x] for x in rhs_axes]).astype(np.int32)
    out = L.dot_general(
        lhs, rhs,
        [lhs_axes.index(x) for x in b], [rhs_axes.index(x) for x in b],
        [lhs_axes.index(x) for x in c], [rhs_axes.index(x) for x in c],
    )
    # free dimensions keep their order within each operand (spec: lhs_result_dimensions ...)
    lf_order = "".join(x for x in lhs_axes if x in lf)
    rf_order = "".join(x for x in rhs_axes if x in rf)
    expected = np.einsum(f"{''.join(lhs_axes)},{''.join(rhs_axes)}->{b + lf_order + rf_order}", lhs, rhs)
    assert out.dtype == np.int32 and np.array_equal(out, expected)


# --- convolution ---------------------------------------------------------------------------------

CONV_LHS = a([[[[1], [2], [5], [6]], [[3], [4], [7], [8]], [[10], [11], [14], [15]], [[12], [13], [16], [17]]]])
NHWC = dict(
    input_batch_dimension=0, input_spatial_dimensions=[1, 2], input_feature_dimension=3,
    kernel_spatial_dimensions=[0, 1], kernel_input_feature_dimension=2, kernel_output_feature_dimension=3,
    output_batch_dimension=0, output_spatial_dimensions=[1, 2], output_feature_dimension=3,
)


def test_convolution_spec_example_and_conformance():
    out = L.convolution(CONV_LHS, np.ones((3, 3, 1, 1), I64), window_strides=[4, 4], lhs_dilation=[2, 2], **NHWC)
    assert out.tolist() == [[[[10], [26]], [[46], [62]]]]
    out8 = L.convolution(CONV_LHS.astype(np.int8), np.full((3, 3, 1, 1), 10, np.int8), window_strides=[4, 4],
                         lhs_dilation=[2, 2], result_element_type=np.int32, **NHWC)
    assert out8.dtype == np.int32 and out8.tolist() == [[[[100], [260]], [[460], [620]]]]
    padded = L.convolution(CONV_LHS, np.ones((3, 3, 1, 1), I64), window_strides=[4, 4],
                           padding=[[1, 1], [1, 1]], lhs_dilation=[2, 2], **NHWC)
    assert padded.tolist() == [[[[1], [5]], [[10], [14]]]]
    dyn = L.dynamic_conv(CONV_LHS, np.ones((3, 3, 1, 1), I64), np.ones((2, 2), I64), window_strides=[4, 4],
                         lhs_dilation=[2, 2], rhs_dilation=[1, 1], window_reversal=[False, False], **NHWC)
    assert dyn.tolist() == [[[[1], [5]], [[10], [14]]]]


@pytest.mark.parametrize(
    ("dims", "expected"),
    [
        # dim_numbers = [0, b, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
        pytest.param(
            dict(input_batch_dimension=1, input_spatial_dimensions=[0, 2], input_feature_dimension=3,
                 kernel_spatial_dimensions=[0, 1], kernel_input_feature_dimension=2,
                 batch_group_count=4),
            [[[[1, 3, 10, 12], [5, 7, 14, 16]]]],
            id="batch_group_count",
        ),
        # dim_numbers = [b, 0, f, 1]x[0, i, 1, o]->[b, 0, 1, f]
        pytest.param(
            dict(input_batch_dimension=0, input_spatial_dimensions=[1, 3], input_feature_dimension=2,
                 kernel_spatial_dimensions=[0, 2], kernel_input_feature_dimension=1,
                 feature_group_count=2),
            [[[[3, 3, 11, 11]], [[21, 21, 29, 29]]]],
            id="feature_group_count",
        ),
    ],
)
def test_convolution_group_count_conformance(dims, expected):
    out = L.convolution(
        CONV_LHS, np.ones((1, 2, 1, 4), I64), window_strides=[4, 4], lhs_dilation=[2, 2],
        kernel_output_feature_dimension=3, output_batch_dimension=0,
        output_spatial_dimensions=[1, 2], output_feature_dimension=3, **dims,
    )
    assert out.tolist() == expected


def _naive_conv_1d_nwc(lhs, rhs, stride, pad, ldil, rdil, reverse, fgc, bgc):
    """Spec formula for N x W x C inputs and W x I x O kernels, one output at a time."""
    n, w, c = lhs.shape
    kw, ki, ko = rhs.shape
    if fgc > 1 or bgc > 1:
        groups = max(fgc, bgc)
        parts = []
        for g in range(groups):
            lg = lhs[:, :, g * (c // fgc):(g + 1) * (c // fgc)] if fgc > 1 else lhs[g * (n // bgc):(g + 1) * (n // bgc)]
            rg = rhs[:, :, g * (ko // groups):(g + 1) * (ko // groups)]
            parts.append(_naive_conv_1d_nwc(lg, rg, stride, pad, ldil, rdil, reverse, 1, 1))
        return np.concatenate(parts, axis=-1)
    dil_w = 0 if w == 0 else (w - 1) * ldil + 1
    padded = np.zeros((n, pad[0] + dil_w + pad[1], c), lhs.dtype)
    for i in range(w):
        p = pad[0] + i * ldil
        if 0 <= p < padded.shape[1]:
            padded[:, p] = lhs[:, i]
    window = (kw - 1) * rdil + 1
    out_w = 0 if padded.shape[1] == 0 or window > padded.shape[1] else (padded.shape[1] - window) // stride + 1
    out = np.zeros((n, out_w, ko), lhs.dtype)
    for b, x, o in itertools.product(range(n), range(out_w), range(ko)):
        taps = [padded[b, x * stride + k * rdil] for k in range(kw)]
        if reverse:
            taps = taps[::-1]
        out[b, x, o] = sum(int(np.dot(taps[k], rhs[k, :, o])) for k in range(kw))
    return out


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_convolution_1d_matches_naive(data):
    fgc = data.draw(st.sampled_from([1, 1, 2]))
    bgc = 1 if fgc > 1 else data.draw(st.sampled_from([1, 1, 2]))
    n = bgc * data.draw(st.integers(1, 2))
    c = fgc * data.draw(st.integers(1, 2))
    w = data.draw(st.integers(1, 6))
    kw = data.draw(st.integers(1, 3))
    ko = max(fgc, bgc) * data.draw(st.integers(1, 2))
    stride, ldil, rdil = (data.draw(st.integers(1, 3)) for _ in range(3))
    pad = (data.draw(st.integers(-1, 2)), data.draw(st.integers(-1, 2)))
    reverse = data.draw(st.booleans())
    rng = np.random.default_rng(1)
    lhs = rng.integers(-3, 4, (n, w, c)).astype(I64)
    rhs = rng.integers(-3, 4, (kw, c // fgc, ko)).astype(I64)
    if (w - 1) * ldil + 1 + pad[0] + pad[1] < 0:
        return
    out = L.convolution(
        lhs, rhs, window_strides=[stride], padding=[pad], lhs_dilation=[ldil], rhs_dilation=[rdil],
        window_reversal=[reverse], input_batch_dimension=0, input_spatial_dimensions=[1],
        input_feature_dimension=2, kernel_spatial_dimensions=[0], kernel_input_feature_dimension=1,
        kernel_output_feature_dimension=2, output_batch_dimension=0, output_spatial_dimensions=[1],
        output_feature_dimension=2, feature_group_count=fgc, batch_group_count=bgc,
    )
    expected = _naive_conv_1d_nwc(lhs, rhs, stride, pad, ldil, rdil, reverse, fgc, bgc)
    assert out.shape == expected.shape and np.array_equal(out, expected)


def test_convolution_layout_permutations_agree():
    rng = np.random.default_rng(2)
    lhs = rng.standard_normal((2, 5, 6, 3))  # NHWC
    rhs = rng.standard_normal((3, 2, 3, 4))  # HWIO
    ref = L.convolution(lhs, rhs, window_strides=[1, 2], padding=[[1, 0], [0, 1]], rhs_dilation=[2, 1], **NHWC)
    # NCHW x OIHW -> NCHW
    out = L.convolution(
        lhs.transpose(0, 3, 1, 2), rhs.transpose(3, 2, 0, 1), window_strides=[1, 2],
        padding=[[1, 0], [0, 1]], rhs_dilation=[2, 1],
        input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2, 3],
        kernel_output_feature_dimension=0, kernel_input_feature_dimension=1, kernel_spatial_dimensions=[2, 3],
        output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=[2, 3],
    )
    assert np.allclose(out.transpose(0, 2, 3, 1), ref)


# --- triangular_solve / cholesky -----------------------------------------------------------------

A_TRI = a([[1.0, 0.0, 0.0], [2.0, 3.0, 0.0], [4.0, 5.0, 6.0]], np.float32)
A_DIAG = a([[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 5.0]], np.float32)
COL = a([[7.0], [8.0], [9.0]], np.float32)
ROW = a([[7.0, 8.0, 9.0]], np.float32)


@pytest.mark.parametrize(
    ("a_", "b", "left", "lower", "unit", "mode", "expected"),
    [
        (A_DIAG, COL, True, True, False, "NO_TRANSPOSE", [[3.5], [2.0], [1.8]]),
        (A_DIAG, COL, True, False, False, "NO_TRANSPOSE", [[3.5], [2.0], [1.8]]),
        (A_DIAG, ROW, False, True, False, "NO_TRANSPOSE", [[3.5, 2.0, 1.8]]),
        (A_DIAG, ROW, False, False, True, "NO_TRANSPOSE", [[7.0, 8.0, 9.0]]),
        (A_DIAG, COL, True, True, True, "NO_TRANSPOSE", [[7.0], [8.0], [9.0]]),
        (A_TRI, COL, True, True, False, "NO_TRANSPOSE", [[7.0], [-2.0], [-1.5]]),
        (A_TRI, COL, True, True, False, "TRANSPOSE", [[0.666667], [0.166667], [1.5]]),
        (A_TRI, ROW, False, True, False, "TRANSPOSE", [[7.0, -2.0, -1.5]]),
    ],
)
def test_triangular_solve_conformance(a_, b, left, lower, unit, mode, expected):
    out = L.triangular_solve(a_, b, left, lower, unit, mode)
    assert out.dtype == np.float32
    assert np.allclose(out, expected, atol=1e-5)


def test_triangular_solve_spec_example_and_complex():
    b = a([[2.0, 0.0, 0.0], [4.0, 8.0, 0.0], [6.0, 10.0, 12.0]], np.float32)
    a_ = a([[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]], np.float32)
    out = L.triangular_solve(a_, b, True, True, False, "NO_TRANSPOSE")
    assert np.allclose(out, np.diag([2.0, 2.0, 2.0]))
    ac = a([[1 + 1j, 0, 0], [2 - 2j, 3 + 4j, 0], [4 - 3j, 5 + 5j, 6 - 8j]], np.complex64)
    bc = a([[7 - 2j], [8 + 4j], [9 - 5j]], np.complex64)
    out = L.triangular_solve(ac, bc, True, True, False, "NO_TRANSPOSE")
    assert out.dtype == np.complex64
    assert np.allclose(out, [[2.5 - 4.5j], [4.32 + 0.24j], [-0.29 - 0.77j]], atol=1e-5)
    adj = L.triangular_solve(ac, bc, True, True, False, "ADJOINT")
    assert np.allclose(adj, [[7.18 + 2.679999j], [-0.08 + 3.16j], [0.14 - 1.02j]], atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_triangular_solve_batched_matches_numpy(data):
    n = data.draw(st.integers(1, 4))
    k = data.draw(st.integers(1, 3))
    left, lower, unit = (data.draw(st.booleans()) for _ in range(3))
    mode = data.draw(st.sampled_from(["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]))
    rng = np.random.default_rng(3)
    a_ = rng.standard_normal((2, n, n)) + 1j * rng.standard_normal((2, n, n))
    a_ += 4 * np.eye(n)
    b = rng.standard_normal((2, n, k) if left else (2, k, n)) + 0j
    tri = np.tril(a_) if lower else np.triu(a_)
    if unit:
        tri = tri - np.diag(np.diagonal(tri, axis1=-2, axis2=-1)[0]) * 0
        tri = np.where(np.eye(n, dtype=bool), 1.0, tri)
    op = {"NO_TRANSPOSE": tri, "TRANSPOSE": np.swapaxes(tri, -1, -2),
          "ADJOINT": np.conj(np.swapaxes(tri, -1, -2))}[mode]
    out = L.triangular_solve(a_, b, left, lower, unit, mode)
    if left:
        assert np.allclose(op @ out, b)
    else:
        assert np.allclose(out @ op, b)


def test_cholesky_spec_example_and_upper():
    a_ = a([[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]], np.float32)
    out = L.cholesky(a_, lower=True)
    assert out.dtype == np.float32
    assert np.allclose(out, [[1, 0, 0], [2, 4, 0], [3, 5, 6]])
    up = L.cholesky(a_, lower=False)
    assert np.allclose(up, np.transpose([[1, 0, 0], [2, 4, 0], [3, 5, 6]]))


def test_cholesky_reads_only_its_triangle_batched_and_complex():
    rng = np.random.default_rng(4)
    m = rng.standard_normal((3, 4, 4)) + 1j * rng.standard_normal((3, 4, 4))
    hpd = m @ np.conj(np.swapaxes(m, -1, -2)) + 4 * np.eye(4)
    garbage_upper = np.tril(hpd) + np.triu(np.full((4, 4), 99.0), 1)
    low = L.cholesky(garbage_upper, lower=True)
    assert np.allclose(low, np.linalg.cholesky(hpd))
    garbage_lower = np.triu(hpd) + np.tril(np.full((4, 4), 99.0), -1)
    up = L.cholesky(garbage_lower, lower=False)
    assert np.allclose(np.conj(np.swapaxes(up, -1, -2)) @ up, hpd)
    assert np.allclose(np.tril(up, -1), 0)


def test_cholesky_not_positive_definite_gives_nan():
    out = L.cholesky(a([[1.0, 2.0], [2.0, 1.0]], np.float32), lower=True)
    assert np.isnan(out[1, 1])
