"""Linear-algebra ops built with the builder: dot_general, dot, convolution, cholesky,
triangular_solve, batch norm, fft."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, Precision, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

RNG = np.random.default_rng(3)


def test_batched_dot_general_and_dot() -> None:
    m = Module()

    @m.func(tensor((2, 3, 4), "f32"), tensor((2, 4, 5), "f32"), tensor((5, 3), "f32"))
    def main(a, b, c):
        ab = hlo.dot_general(
            a,
            b,
            dot_dimension_numbers={
                "lhs_batching_dimensions": [0],
                "rhs_batching_dimensions": [0],
                "lhs_contracting_dimensions": [2],
                "rhs_contracting_dimensions": [1],
            },
            precision_config=[Precision.HIGHEST, "HIGHEST"],
        )
        first = hlo.slice(ab, start_indices=[0, 0, 0], limit_indices=[1, 3, 5], strides=[1, 1, 1])
        return ab, hlo.dot(hlo.reshape(first, result_type=tensor((3, 5), "f32")), c)

    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    c = RNG.standard_normal((5, 3)).astype(np.float32)
    ab = a @ b
    text = check_program(m, [a, b, c], [ab, ab[0] @ c], rtol=1e-5, atol=1e-6)
    assert (
        "batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST]"
        in text
    )


def test_convolution_nhwc() -> None:
    m = Module()

    @m.func(tensor((1, 5, 5, 2), "f32"), tensor((3, 3, 2, 4), "f32"))
    def main(x, k):
        return hlo.convolution(
            x,
            k,
            window_strides=[1, 1],
            padding=[[1, 1], [1, 1]],
            dimension_numbers="[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
            feature_group_count=1,
            batch_group_count=1,
        )

    x = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
    k = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    expected = np.zeros((1, 5, 5, 4), np.float32)
    for i in range(3):
        for j in range(3):
            expected += np.einsum("bhwc,co->bhwo", xp[:, i : i + 5, j : j + 5, :], k[i, j])
    text = check_program(m, [x, k], [expected], rtol=1e-5, atol=1e-5, spelt_defaults=True)
    assert "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" in text


def test_cholesky_and_triangular_solve() -> None:
    m = Module()

    @m.func(tensor((3, 3), "f64"), tensor((3, 2), "f64"))
    def main(a, b):
        l_ = hlo.cholesky(a, lower=True)
        x = hlo.triangular_solve(
            l_, b, left_side=True, lower=True, unit_diagonal=False, transpose_a="NO_TRANSPOSE"
        )
        return l_, x

    r = RNG.standard_normal((3, 3))
    a = r @ r.T + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    l_ = np.linalg.cholesky(a)
    check_program(m, [a, b], [l_, np.linalg.solve(l_, b)], rtol=1e-10, atol=1e-12)


def test_batch_norm_inference_and_training() -> None:
    m = Module()

    @m.func(tensor((4, 3), "f32"), tensor((3,), "f32"), tensor((3,), "f32"))
    def main(x, scale, offset):
        out, mean, var = hlo.batch_norm_training(x, scale, offset, epsilon=1e-3, feature_index=1)
        inf = hlo.batch_norm_inference(x, scale, offset, mean, var, epsilon=1e-3, feature_index=1)
        return out, mean, var, inf

    x = RNG.standard_normal((4, 3)).astype(np.float32)
    scale = RNG.standard_normal(3).astype(np.float32)
    offset = RNG.standard_normal(3).astype(np.float32)
    mean, var = x.mean(0), x.var(0)
    out = (x - mean) / np.sqrt(var + np.float32(1e-3)) * scale + offset
    check_program(m, [x, scale, offset], [out, mean, var, out], rtol=1e-4, atol=1e-5)


def test_fft() -> None:
    m = Module()

    @m.func(tensor((8,), "f32"))
    def main(x):
        spectrum = hlo.fft(x, fft_type="RFFT", fft_length=[8])
        back = hlo.fft(spectrum, fft_type="IRFFT", fft_length=[8])
        return spectrum, back

    x = RNG.standard_normal(8).astype(np.float32)
    check_program(m, [x], [np.fft.rfft(x).astype(np.complex64), x], rtol=1e-5, atol=1e-5)
