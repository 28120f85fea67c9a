"""Linear-algebra ops of the spec as pure numpy functions.

``dot_general``, ``convolution`` (and ``dynamic_conv``), ``triangular_solve`` and
``cholesky``. Accumulation types:

* integers and booleans accumulate in the result element type (wrapping; ``i1`` uses
  and/or), as the spec's ``reduce`` in ``element_type(result)`` says;
* floats narrower than 32 bits (f16, bf16, f8, ...) are computed in float32 and rounded to
  the result type once, as XLA's CPU backend does; f32/f64/complex use their own type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._attributes import ints, ints_or_ones, padding_pairs
from ._element_kinds import bit_width, is_complex, is_float
from .data_movement import pad

__all__ = ["dot_general", "convolution", "dynamic_conv", "triangular_solve", "cholesky"]


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    if is_float(dtype) and not is_complex(dtype) and bit_width(dtype) < 32:
        return np.dtype(np.float32)
    return dtype


def dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    lhs_batching_dimensions: Sequence[int] = (),
    rhs_batching_dimensions: Sequence[int] = (),
    lhs_contracting_dimensions: Sequence[int] = (),
    rhs_contracting_dimensions: Sequence[int] = (),
    precision_config: Sequence[str] | None = None,
    result_element_type: DTypeLike | None = None,
) -> np.ndarray:
    """Dot products over the contracting dimensions, batched (spec.md#dot_general).

    Result layout: batch dims, then lhs free dims, then rhs free dims. Both operands are
    converted to ``result_element_type`` (default: lhs's type) before multiplying, so
    integer products and sums wrap in the result type. ``precision_config`` is ignored.
    """
    del precision_config
    lhs = np.asarray(lhs)
    rhs = np.asarray(rhs)
    out_dtype = np.dtype(result_element_type) if result_element_type is not None else lhs.dtype
    lb, rb = ints(lhs_batching_dimensions), ints(rhs_batching_dimensions)
    lc, rc = ints(lhs_contracting_dimensions), ints(rhs_contracting_dimensions)
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    batch_shape = [lhs.shape[d] for d in lb]
    lf_shape = [lhs.shape[d] for d in lf]
    rf_shape = [rhs.shape[d] for d in rf]
    b = int(np.prod(batch_shape, dtype=np.int64))
    m = int(np.prod(lf_shape, dtype=np.int64))
    n = int(np.prod(rf_shape, dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    work = _compute_dtype(out_dtype)
    lt = np.transpose(lhs, lb + lf + lc).astype(out_dtype).astype(work).reshape(b, m, k)
    rt = np.transpose(rhs, rb + rc + rf).astype(out_dtype).astype(work).reshape(b, k, n)
    out = np.matmul(lt, rt)
    return np.asarray(out.astype(out_dtype)).reshape(batch_shape + lf_shape + rf_shape)


def _conv_windows(
    lhs_c: np.ndarray,
    kernel_spatial: Sequence[int],
    window_strides: Sequence[int],
    padding: np.ndarray,
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    window_reversal: Sequence[bool],
) -> np.ndarray:
    """Windows of canonical ``lhs_c`` ``(N, S..., C)`` as ``(N, O..., C, K...)``."""
    spatial = len(kernel_spatial)
    zero = np.zeros((), lhs_c.dtype)
    padded = pad(
        lhs_c,
        zero,
        [0, *ints(padding[:, 0]), 0],
        [0, *ints(padding[:, 1]), 0],
        [0, *[d - 1 for d in lhs_dilation], 0],
    )
    extents = [
        (k - 1) * d + 1 if k > 0 else 0 for k, d in zip(kernel_spatial, rhs_dilation, strict=True)
    ]
    out_spatial = []
    for i in range(spatial):
        size = padded.shape[1 + i]
        e = extents[i]
        empty = size == 0 or e > size or kernel_spatial[i] == 0
        out_spatial.append(0 if empty else (size - e) // window_strides[i] + 1)
    n, c = lhs_c.shape[0], lhs_c.shape[-1]
    if 0 in out_spatial or 0 in kernel_spatial:
        return np.zeros((n, *out_spatial, c, *kernel_spatial), dtype=lhs_c.dtype)
    view = np.lib.stride_tricks.sliding_window_view(
        padded, extents, axis=tuple(range(1, 1 + spatial))
    )
    index = (
        (slice(None),)
        + tuple(
            slice(0, (o - 1) * s + 1, s) for o, s in zip(out_spatial, window_strides, strict=True)
        )
        + (slice(None),)
        + tuple(slice(None, None, d) for d in rhs_dilation)
    )
    view = view[index]
    flips = tuple(2 + spatial + i for i, r in enumerate(window_reversal) if r)
    return np.flip(view, axis=flips) if flips else view


def convolution(
    lhs: ArrayLike,
    rhs: ArrayLike,
    *,
    window_strides: Sequence[int] | None = None,
    padding: ArrayLike | None = None,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    window_reversal: Sequence[bool] | None = None,
    input_batch_dimension: int,
    input_feature_dimension: int,
    input_spatial_dimensions: Sequence[int],
    kernel_input_feature_dimension: int,
    kernel_output_feature_dimension: int,
    kernel_spatial_dimensions: Sequence[int],
    output_batch_dimension: int,
    output_feature_dimension: int,
    output_spatial_dimensions: Sequence[int],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: Sequence[str] | None = None,
    result_element_type: DTypeLike | None = None,
    contract: Callable[..., np.ndarray] | None = None,
) -> np.ndarray:
    """Convolution as the spec defines it (spec.md#convolution).

    ``lhs`` is padded (``padding``, interior ``lhs_dilation - 1``), every window is read
    through a strided sliding-window view (strided by ``window_strides`` and dilated by
    ``rhs_dilation``), optionally reversed, and contracted with ``rhs`` by
    :func:`dot_general` over the spatial and input-feature dimensions. Feature and batch
    groups are split and concatenated along the output feature dimension. ``contract``, when
    given, replaces :func:`dot_general` (called the same way) for the windows' contraction.
    """
    del precision_config
    contract = dot_general if contract is None else contract
    lhs = np.asarray(lhs)
    rhs = np.asarray(rhs)
    out_dtype = np.dtype(result_element_type) if result_element_type is not None else lhs.dtype
    in_sp = ints(input_spatial_dimensions)
    k_sp = ints(kernel_spatial_dimensions)
    o_sp = ints(output_spatial_dimensions)
    s = len(in_sp)
    strides = ints_or_ones(window_strides, s)
    pads = padding_pairs(padding, s)
    ldil = ints_or_ones(lhs_dilation, s)
    rdil = ints_or_ones(rhs_dilation, s)
    reversal = [bool(r) for r in window_reversal] if window_reversal is not None else [False] * s

    lhs_c = np.transpose(lhs, [int(input_batch_dimension), *in_sp, int(input_feature_dimension)])
    rhs_c = np.transpose(
        rhs, [*k_sp, int(kernel_input_feature_dimension), int(kernel_output_feature_dimension)]
    )

    def core(lc: np.ndarray, rc: np.ndarray) -> np.ndarray:
        windows = _conv_windows(lc, rc.shape[:s], strides, pads, ldil, rdil, reversal)
        # windows: (N, O..., C, K...); rhs: (K..., I, O)
        return contract(
            windows,
            rc,
            lhs_contracting_dimensions=[*range(2 + s, 2 + 2 * s), 1 + s],
            rhs_contracting_dimensions=[*range(s), s],
            result_element_type=out_dtype,
        )

    fgc, bgc = int(feature_group_count), int(batch_group_count)
    if fgc > 1:
        parts = zip(np.split(lhs_c, fgc, axis=-1), np.split(rhs_c, fgc, axis=-1), strict=True)
        out_c = np.concatenate([core(lp, rp) for lp, rp in parts], axis=-1)
    elif bgc > 1:
        parts = zip(np.split(lhs_c, bgc, axis=0), np.split(rhs_c, bgc, axis=-1), strict=True)
        out_c = np.concatenate([core(lp, rp) for lp, rp in parts], axis=-1)
    else:
        out_c = core(lhs_c, rhs_c)
    # canonical (N, O..., F) -> result layout
    placement = [int(output_batch_dimension), *o_sp, int(output_feature_dimension)]
    inverse = [0] * len(placement)
    for canonical_axis, result_axis in enumerate(placement):
        inverse[result_axis] = canonical_axis
    return np.transpose(out_c, inverse)


def dynamic_conv(
    lhs: ArrayLike, rhs: ArrayLike, padding: ArrayLike, **attributes: Any
) -> np.ndarray:
    """``convolution`` with ``padding`` given as a runtime tensor (spec.md#dynamic_conv)."""
    return convolution(lhs, rhs, padding=np.asarray(padding, dtype=np.int64), **attributes)


# --- triangular_solve / cholesky ----------------------------------------------------------------


def _solve_left(m: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solve ``m @ x = b`` for triangular ``m`` (batched), by substitution over rows."""
    n = m.shape[-1]
    x = np.zeros_like(b)
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        acc = b[..., i, :]
        if lower and i > 0:
            acc = acc - np.einsum("...j,...jk->...k", m[..., i, :i], x[..., :i, :])
        if not lower and i < n - 1:
            acc = acc - np.einsum("...j,...jk->...k", m[..., i, i + 1 :], x[..., i + 1 :, :])
        x[..., i, :] = acc / m[..., i, i][..., None]
    return x


def triangular_solve(
    a: ArrayLike,
    b: ArrayLike,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: str = "NO_TRANSPOSE",
) -> np.ndarray:
    """Solve ``op(a) x = b`` (``left_side``) or ``x op(a) = b`` (spec.md#triangular_solve).

    Only the ``lower`` (or upper) triangle of ``a`` is read; ``unit_diagonal`` takes the
    diagonal as ones. ``transpose_a`` is ``NO_TRANSPOSE``, ``TRANSPOSE`` or ``ADJOINT``.
    Substitution loops over the matrix dimension, vectorized over batch and right-hand
    sides. Leading dimensions of ``a`` broadcast against ``b``'s.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    out_dtype = b.dtype
    work = _compute_dtype(out_dtype)
    am = a.astype(work)
    bm = b.astype(work)
    n = am.shape[-1]
    tri = np.tril(am) if lower else np.triu(am)
    if unit_diagonal:
        eye = np.eye(n, dtype=bool)
        tri = np.where(eye, np.ones((), work), tri)
    mode = str(transpose_a).upper()
    if mode not in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
        raise ValueError(
            f"transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got {transpose_a!r}"
        )
    op = tri
    op_lower = bool(lower)
    if mode in ("TRANSPOSE", "ADJOINT"):
        op = np.swapaxes(tri, -1, -2)
        if mode == "ADJOINT":
            op = np.conj(op)
        op_lower = not op_lower
    if left_side:
        x = _solve_left(op, bm, op_lower)
    else:
        # x op = b  <=>  op^T x^T = b^T
        op_t = np.swapaxes(op, -1, -2)
        x = np.swapaxes(_solve_left(op_t, np.swapaxes(bm, -1, -2), not op_lower), -1, -2)
    return np.asarray(x.astype(out_dtype))


def cholesky(a: ArrayLike, lower: bool = False) -> np.ndarray:
    """Cholesky factor of each (Hermitian positive-definite) matrix (spec.md#cholesky).

    ``lower``: ``L`` with ``a = L L^H``, read from ``a``'s lower triangle; otherwise ``U``
    with ``a = U^H U``, read from the upper triangle. The opposite triangle of the result
    (implementation-defined in the spec) is zero. A matrix that is not positive definite
    gives NaNs from the first failing column on, as XLA does, instead of an error.
    Column-by-column (Cholesky-Crout), vectorized over the batch.
    """
    a = np.asarray(a)
    out_dtype = a.dtype
    work = _compute_dtype(out_dtype)
    am = a.astype(work)
    if not lower:
        am = np.conj(np.swapaxes(am, -1, -2))  # the upper triangle, read as a lower one
    n = am.shape[-1]
    factor = np.zeros_like(am)
    with np.errstate(invalid="ignore", divide="ignore"):
        for j in range(n):
            row = factor[..., j, :j]
            diag = am[..., j, j] - np.sum(row * np.conj(row), axis=-1)
            if is_complex(work):
                d = np.sqrt(diag.real).astype(work)
            else:
                d = np.sqrt(diag)
            factor[..., j, j] = d
            if j + 1 < n:
                below = am[..., j + 1 :, j] - np.einsum(
                    "...ik,...k->...i", factor[..., j + 1 :, :j], np.conj(row)
                )
                factor[..., j + 1 :, j] = below / d[..., None]
    result = factor if lower else np.conj(np.swapaxes(factor, -1, -2))
    return np.asarray(result.astype(out_dtype))
