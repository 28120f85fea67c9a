"""``uniform_quantize`` / ``uniform_dequantize`` as pure numpy functions.

Quantization parameters are passed explicitly: ``scale`` and ``zero_point`` (scalars for
per-tensor quantization, 1-d arrays along ``quantization_dimension`` for per-axis),
``storage_min``/``storage_max``. The arithmetic follows the spec's ``quantize`` and
``dequantize`` functions (spec.md#quantization-computations).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .conversion import convert

__all__ = ["uniform_quantize", "uniform_dequantize"]

_STORAGE_CANDIDATES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64)


def _infer_storage(storage_min: int, storage_max: int) -> np.dtype[Any]:
    for t in _STORAGE_CANDIDATES:
        info = np.iinfo(t)
        if info.min <= storage_min and storage_max <= info.max:
            return np.dtype(t)
    return np.dtype(np.int64)


def _per_axis(
    values: ArrayLike, ndim: int, quantization_dimension: int | None, dtype: DTypeLike
) -> np.ndarray:
    arr = np.asarray(values, dtype=dtype)
    if quantization_dimension is None:
        return arr.reshape(())
    shape = [1] * ndim
    shape[int(quantization_dimension)] = arr.size
    return arr.reshape(shape)


def uniform_quantize(
    operand: ArrayLike,
    scale: ArrayLike,
    zero_point: ArrayLike,
    storage_min: int,
    storage_max: int,
    quantization_dimension: int | None = None,
    *,
    storage_type: DTypeLike | None = None,
) -> np.ndarray:
    """``quantize``: ``round_nearest_even(clamp(min, x / scale + zero_point, max))``.

    ``operand`` is a float array of the expressed type; the arithmetic runs in that type.
    The result holds storage values of ``storage_type`` (default: the smallest standard
    integer type holding ``[storage_min, storage_max]``). To requantize a quantized tensor,
    dequantize it first (spec.md#uniform_quantize).
    """
    x = np.asarray(operand)
    expressed = x.dtype
    storage = (
        np.dtype(storage_type)
        if storage_type is not None
        else _infer_storage(int(storage_min), int(storage_max))
    )
    scales = _per_axis(scale, x.ndim, quantization_dimension, expressed)
    zero_points = _per_axis(zero_point, x.ndim, quantization_dimension, np.int64).astype(expressed)
    lo = np.asarray(storage_min).astype(expressed)
    hi = np.asarray(storage_max).astype(expressed)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scaled = (x / scales).astype(expressed) + zero_points
        clamped = np.minimum(np.maximum(scaled.astype(expressed), lo), hi)
        rounded = np.rint(clamped)
    # the spec's last step, convert(rounded, storage_type): a bound the expressed type rounds
    # outward (i16's 32767 is 32768 in f16) saturates, and NaN gives convert's 0
    return convert(rounded, storage)


def uniform_dequantize(
    operand: ArrayLike,
    scale: ArrayLike,
    zero_point: ArrayLike,
    storage_min: int,
    storage_max: int,
    quantization_dimension: int | None = None,
    *,
    expressed_type: DTypeLike | None = None,
) -> np.ndarray:
    """``dequantize``: ``convert(x - zero_point, expressed) * scale``.

    The subtraction is exact (in int64, where the spec's storage-type arithmetic could
    wrap); the product is computed in ``expressed_type`` (default: ``scale``'s dtype when
    it is a numpy float array, else f32). ``storage_min``/``storage_max`` are not needed
    and are accepted for symmetry with :func:`uniform_quantize`.
    """
    del storage_min, storage_max
    x = np.asarray(operand)
    if expressed_type is not None:
        expressed = np.dtype(expressed_type)
    elif isinstance(scale, np.ndarray | np.floating):
        expressed = np.asarray(scale).dtype
    else:
        expressed = np.dtype(np.float32)
    scales = _per_axis(scale, x.ndim, quantization_dimension, expressed)
    zero_points = _per_axis(zero_point, x.ndim, quantization_dimension, np.int64)
    diff = x.astype(np.int64) - zero_points
    return np.asarray(diff.astype(expressed) * scales).astype(expressed)
