"""``fft`` of the spec as a pure numpy function."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["fft"]

_COMPLEX_OF = {
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
}
_REAL_OF = {c: f for f, c in _COMPLEX_OF.items()}


def _result_shape(
    shape: tuple[int, ...], fft_type: str, fft_length: Sequence[int]
) -> tuple[int, ...]:
    out = list(shape)
    if fft_type == "RFFT":
        out[-1] = 0 if shape[-1] == 0 else fft_length[-1] // 2 + 1
    elif fft_type == "IRFFT":
        out[-1] = fft_length[-1]
    return tuple(out)


def fft(operand: ArrayLike, fft_type: str, fft_length: Sequence[int]) -> np.ndarray:
    """FFT, IFFT, RFFT or IRFFT over the trailing ``len(fft_length)`` dimensions (spec.md#fft).

    ``FFT``/``IFFT`` transform those dimensions whole: the spec reads only the size of
    ``fft_length`` for them (its values are constrained only for RFFT/IRFFT, and the result has
    the operand's shape), as upstream's reference interpreter does.
    ``IFFT`` is normalised by ``1/prod`` of the transformed dimensions, ``IRFFT`` by
    ``1/prod(fft_length)`` (the inverses of ``FFT`` and ``RFFT``).
    ``IRFFT`` reads the first ``fft_length[-1] // 2 + 1`` entries of the last dimension
    and ignores the imaginary parts that a Hermitian signal must not have (as XLA and
    numpy's pocketfft do). Computed in numpy's FFT, rounded to the result element type
    (``complex<f32>``/``f32`` or ``complex<f64>``/``f64``).
    """
    x = np.asarray(operand)
    kind = str(fft_type).upper()
    lengths = [int(v) for v in np.asarray(fft_length, dtype=np.int64).reshape(-1)]
    axes = tuple(range(-len(lengths), 0))
    if kind in ("FFT", "IFFT"):
        out_dtype: np.dtype[Any] = x.dtype
    elif kind == "RFFT":
        out_dtype = _COMPLEX_OF.get(x.dtype, np.dtype(np.complex64))
    elif kind == "IRFFT":
        out_dtype = _REAL_OF.get(x.dtype, np.dtype(np.float32))
    else:
        raise ValueError(f"fft_type must be FFT, IFFT, RFFT or IRFFT, got {fft_type!r}")
    out_shape = _result_shape(x.shape, kind, lengths)
    if x.size == 0:
        return np.zeros(out_shape, dtype=out_dtype)
    if kind == "FFT":
        res = np.fft.fftn(x, axes=axes)
    elif kind == "IFFT":
        res = np.fft.ifftn(x, axes=axes)
    elif kind == "RFFT":
        res = np.fft.rfftn(x, s=lengths, axes=axes)
    else:
        res = np.fft.irfftn(x, s=lengths, axes=axes)
    return np.asarray(res.astype(out_dtype))
