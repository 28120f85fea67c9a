"""fft: FFT, IFFT, RFFT and IRFFT over the trailing dimensions."""

from __future__ import annotations

import numpy as np
import pytest

from stablehlo_py.semantics.fft import fft


def test_fft_spec_example():
    out = fft(np.array([1, 0, 0, 0], np.complex64), "FFT", [4])
    assert out.dtype == np.complex64 and np.allclose(out, [1, 1, 1, 1])


def test_fft_conformance_1d_2d_3d():
    x1 = np.array([1 + 2j, 3 - 4j])
    assert np.allclose(fft(x1, "FFT", [2]), [4 - 2j, -2 + 6j])
    assert np.allclose(fft(np.array([4 - 2j, -2 + 6j]), "IFFT", [2]), x1)
    x2 = np.array([[1 + 2j, 3 - 4j], [-5 + 6j, -7 - 8j]])
    y2 = np.array([[-8 - 4j, 20j], [16, -4 - 8j]])
    assert np.allclose(fft(x2, "FFT", [2, 2]), y2)
    assert np.allclose(fft(np.array([[-8 - 4j, 16], [20j, -4 - 8j]]), "IFFT", [2, 2]), x2.T)
    x3 = np.stack([x2, -x2])
    y3 = np.stack([np.zeros((2, 2)), np.array([[-16 - 8j, 40j], [32, -8 - 16j]])])
    assert np.allclose(fft(x3, "FFT", [2, 2, 2]), y3)


def test_rfft_conformance_and_irfft_round_trip():
    out = fft(np.array([1.0, 2.0, 3.0, 4.0]), "RFFT", [4])
    assert out.dtype == np.complex128 and np.allclose(out, [10, -2 + 2j, -2])
    x = np.arange(1.0, 17.0).reshape(4, 4)
    out2 = fft(x, "RFFT", [4, 4])
    assert out2.shape == (4, 3)
    assert np.allclose(out2, [[136, -8 + 8j, -8], [-32 + 32j, 0, 0], [-32, 0, 0], [-32 - 32j, 0, 0]])
    x32 = np.random.default_rng(0).standard_normal((2, 3, 6)).astype(np.float32)
    spectrum = fft(x32, "RFFT", [3, 6])
    assert spectrum.dtype == np.complex64 and spectrum.shape == (2, 3, 4)
    back = fft(spectrum, "IRFFT", [3, 6])
    assert back.dtype == np.float32 and back.shape == (2, 3, 6)
    assert np.allclose(back, x32, atol=1e-5)


def test_fft_empty_and_bad_type():
    assert fft(np.zeros((0, 4), np.complex64), "FFT", [4]).shape == (0, 4)
    with pytest.raises(ValueError, match="fft_type"):
        fft(np.zeros(4, np.complex64), "DCT", [4])
