"""Double precision and complex numbers, built with stablehlo_py.builder: a polynomial and a
matrix product in f64, and a spectral filter in complex<f32> (``fft`` RFFT, a complex
multiplication, IRFFT) with the spectrum's magnitude.

    python examples/f64_fft.py

IREE demotes f64 to f32 unless told not to (``tests/oracle/consumers.py`` passes
``--iree-input-demote-f64-to-f32=false``).  The script checks the interpreter against numpy;
``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

N, SIGNAL = 4, 16


def build() -> Module:
    m = Module("f64_fft")

    @m.func(
        tensor((N, N), "f64"),
        tensor((N,), "f64"),
        tensor((SIGNAL,), "f32"),
        tensor((SIGNAL // 2 + 1,), "f32"),
        name="main",
    )
    def mixed(a, v, signal, gain):
        # f64: a v and 1 + x + x^2/2 + x^3/6 (Horner) of its entries
        av = hlo.dot_general(
            a, v, {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
        )
        poly = hlo.add(hlo.multiply(av, 1 / 6), 0.5)
        poly = hlo.add(hlo.multiply(poly, av), 1.0)
        poly = hlo.add(hlo.multiply(poly, av), 1.0)
        # complex<f32>: filter the signal in the frequency domain
        spectrum = hlo.fft(signal, fft_type="RFFT", fft_length=[SIGNAL])
        filtered = hlo.multiply(spectrum, hlo.complex(gain, hlo.negate(gain)))
        back = hlo.fft(filtered, fft_type="IRFFT", fft_length=[SIGNAL])
        return av, poly, spectrum, hlo.abs(spectrum), back

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(31)
    a = rng.standard_normal((N, N))
    v = rng.standard_normal(N)
    signal = rng.standard_normal(SIGNAL).astype(np.float32)
    gain = rng.uniform(0, 1, SIGNAL // 2 + 1).astype(np.float32)
    return a, v, signal, gain


def numpy_mixed(a, v, signal, gain):  # type: ignore[no-untyped-def]
    av = a @ v
    spectrum = np.fft.rfft(signal)
    back = np.fft.irfft(spectrum * (gain - 1j * gain), SIGNAL)
    return av, 1 + av + av**2 / 2 + av**3 / 6, spectrum, np.abs(spectrum), back


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_mixed(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
