"""Data-movement ops of the spec as pure numpy functions.

Each function is named after its spec op and takes the spec's parameter names. Inputs are
numpy arrays (or array-likes) and Python ints/tuples; results are numpy arrays (never numpy
scalars). Results of ``slice``, ``reshape``, ``transpose`` and ``reverse`` may be views that
share memory with their operand: interpreter values are immutable, so nobody writes into
them. Everything is vectorized: loops run over dimensions, never over elements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._attributes import ints, ints_or_ones
from ._element_kinds import is_integer
from .folds import ufunc_at, ufunc_kind
from .regions import grouped_fold

__all__ = [
    "broadcast_in_dim",
    "concatenate",
    "dynamic_slice",
    "dynamic_update_slice",
    "gather",
    "scatter",
    "iota",
    "pad",
    "reshape",
    "reverse",
    "slice",
    "transpose",
    "get_dimension_size",
    "set_dimension_size",
    "real_dynamic_slice",
    "dynamic_iota",
    "dynamic_broadcast_in_dim",
    "dynamic_reshape",
    "dynamic_pad",
    "dynamic_gather",
]

_builtin_slice = slice

_INT64_MAX = np.iinfo(np.int64).max


def _as_index(a: ArrayLike) -> np.ndarray:
    """Integer array -> int64, saturating unsigned values above int64's range."""
    arr = np.asarray(a)
    if arr.dtype == np.uint64:
        arr = np.minimum(arr, np.uint64(_INT64_MAX))
    return arr.astype(np.int64)


def _scalar_indices(start_indices: Sequence[ArrayLike] | ArrayLike) -> np.ndarray:
    """A sequence of 0-d tensors (or a 1-d tensor) -> int64 vector."""
    if isinstance(start_indices, np.ndarray):
        return _as_index(start_indices).reshape(-1)
    return np.array([int(_as_index(s)) for s in start_indices], dtype=np.int64)


# --- simple ops ---------------------------------------------------------------------------------


def broadcast_in_dim(
    operand: ArrayLike, broadcast_dimensions: Sequence[int], result_shape: Sequence[int]
) -> np.ndarray:
    """``result[i] = operand[j]`` with ``j[d] = 0`` if ``dim(operand, d) = 1`` else
    ``i[broadcast_dimensions[d]]`` (spec.md#broadcast_in_dim)."""
    operand = np.asarray(operand)
    dims = ints(broadcast_dimensions)
    result_shape = tuple(int(s) for s in result_shape)
    order = sorted(range(len(dims)), key=lambda d: dims[d])
    moved = np.transpose(operand, order) if order else operand
    shape = [1] * len(result_shape)
    for d in order:
        shape[dims[d]] = operand.shape[d]
    return np.broadcast_to(moved.reshape(shape), result_shape).copy()


def concatenate(inputs: Sequence[ArrayLike], dimension: int) -> np.ndarray:
    """Concatenate ``inputs`` along ``dimension`` (spec.md#concatenate)."""
    return np.concatenate([np.asarray(x) for x in inputs], axis=int(dimension))


def _clamped_starts(
    start_indices: Sequence[ArrayLike] | ArrayLike, shape: Sequence[int], sizes: Sequence[int]
) -> list[int]:
    starts = _scalar_indices(start_indices)
    upper = np.asarray(shape, dtype=np.int64) - np.asarray(sizes, dtype=np.int64)
    return ints(np.clip(starts, 0, upper))


def dynamic_slice(
    operand: ArrayLike, start_indices: Sequence[ArrayLike] | ArrayLike, slice_sizes: Sequence[int]
) -> np.ndarray:
    """Slice of size ``slice_sizes`` at ``clamp(0, start_indices, shape - slice_sizes)``
    (spec.md#dynamic_slice)."""
    operand = np.asarray(operand)
    sizes = ints(slice_sizes)
    starts = _clamped_starts(start_indices, operand.shape, sizes)
    return operand[tuple(_builtin_slice(s, s + n) for s, n in zip(starts, sizes, strict=True))]


def dynamic_update_slice(
    operand: ArrayLike, update: ArrayLike, start_indices: Sequence[ArrayLike] | ArrayLike
) -> np.ndarray:
    """``operand`` with the slice at the clamped ``start_indices`` replaced by ``update``
    (spec.md#dynamic_update_slice)."""
    operand = np.asarray(operand)
    update = np.asarray(update)
    starts = _clamped_starts(start_indices, operand.shape, update.shape)
    result = operand.copy()
    region = tuple(_builtin_slice(s, s + n) for s, n in zip(starts, update.shape, strict=True))
    result[region] = update
    return result


def iota(iota_dimension: int, result_shape: Sequence[int], element_type: DTypeLike) -> np.ndarray:
    """``output[i] = i[iota_dimension]`` converted to ``element_type`` (spec.md#iota).

    Integers wrap modulo the type's width; floats round to nearest even; complex values
    have a zero imaginary part.
    """
    shape = tuple(int(s) for s in result_shape)
    d = int(iota_dimension)
    dtype = np.dtype(element_type)
    ramp = np.arange(shape[d], dtype=np.int64)
    ramp_t = ramp.astype(dtype) if is_integer(dtype) else ramp.astype(np.float64).astype(dtype)
    view_shape = [1] * len(shape)
    view_shape[d] = shape[d]
    return np.broadcast_to(ramp_t.reshape(view_shape), shape).copy()


def pad(
    operand: ArrayLike,
    padding_value: ArrayLike,
    edge_padding_low: Sequence[int],
    edge_padding_high: Sequence[int],
    interior_padding: Sequence[int],
) -> np.ndarray:
    """Edge padding (negative removes elements) and interior padding (spec.md#pad)."""
    operand = np.asarray(operand)
    low = ints(edge_padding_low)
    high = ints(edge_padding_high)
    interior = ints(interior_padding)
    out_shape = [
        max(0, lo + n + max(n - 1, 0) * it + hi)
        for n, lo, hi, it in zip(operand.shape, low, high, interior, strict=True)
    ]
    result = np.full(out_shape, np.asarray(padding_value), dtype=operand.dtype)
    src: list[_builtin_slice] = []
    dst: list[_builtin_slice] = []
    for n, lo, it, size in zip(operand.shape, low, interior, out_shape, strict=True):
        step = it + 1
        # operand element i lands at lo + i * step; keep those inside [0, size)
        kept = np.nonzero((lo + np.arange(n) * step >= 0) & (lo + np.arange(n) * step < size))[0]
        if kept.size == 0:
            return result
        first, last = int(kept[0]), int(kept[-1]) + 1
        src.append(_builtin_slice(first, last))
        dst.append(_builtin_slice(lo + first * step, lo + (last - 1) * step + 1, step))
    result[tuple(dst)] = operand[tuple(src)]
    return result


def reshape(operand: ArrayLike, result_shape: Sequence[int]) -> np.ndarray:
    """Row-major reshape (spec.md#reshape)."""
    return np.reshape(np.asarray(operand), tuple(int(s) for s in result_shape))


def reverse(operand: ArrayLike, dimensions: Sequence[int]) -> np.ndarray:
    """Reverse ``operand`` along ``dimensions`` (spec.md#reverse)."""
    operand = np.asarray(operand)
    dims = tuple(ints(dimensions))
    return np.flip(operand, axis=dims) if dims else operand


def slice(  # noqa: A001 - spec name
    operand: ArrayLike,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> np.ndarray:
    """``result[i] = operand[start_indices + i * strides]`` (spec.md#slice)."""
    operand = np.asarray(operand)
    starts = ints(start_indices)
    limits = ints(limit_indices)
    steps = ints_or_ones(strides, operand.ndim)
    return operand[
        tuple(_builtin_slice(s, e, st) for s, e, st in zip(starts, limits, steps, strict=True))
    ]


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> np.ndarray:
    """``result[i] = operand[j]`` with ``i[d] = j[permutation[d]]`` (spec.md#transpose)."""
    return np.transpose(np.asarray(operand), ints(permutation))


def get_dimension_size(operand: ArrayLike, dimension: int) -> np.ndarray:
    """``dim(operand, dimension)`` as a 0-d ``si32`` tensor (spec.md#get_dimension_size)."""
    return np.array(np.shape(operand)[int(dimension)], dtype=np.int32)


def set_dimension_size(operand: ArrayLike, size: ArrayLike, dimension: int) -> np.ndarray:
    """XLA's ``set_dimension_size`` on static shapes: the data is unchanged.

    The op only changes the *dynamic* size of ``dimension`` (a bounded-dynamic type); a
    static interpreter keeps the full buffer, and elements past ``size`` are unspecified.
    The result is the operand's data unchanged.
    """
    operand = np.asarray(operand)
    n = int(_as_index(size))
    if not 0 <= n <= operand.shape[int(dimension)]:
        raise ValueError(
            f"set_dimension_size: size {n} is outside [0, {operand.shape[int(dimension)]}] "
            f"for dimension {int(dimension)}"
        )
    return operand.copy()


def real_dynamic_slice(
    operand: ArrayLike, start_indices: ArrayLike, limit_indices: ArrayLike, strides: ArrayLike
) -> np.ndarray:
    """``slice`` with its indices given as runtime 1-d tensors (no clamping)."""
    return slice(operand, ints(start_indices), ints(limit_indices), ints(strides))


def dynamic_iota(
    output_shape: ArrayLike, iota_dimension: int, element_type: DTypeLike
) -> np.ndarray:
    """``iota`` with a runtime shape (spec.md#dynamic_iota)."""
    return iota(iota_dimension, ints(output_shape), element_type)


def dynamic_broadcast_in_dim(
    operand: ArrayLike,
    output_dimensions: ArrayLike,
    broadcast_dimensions: Sequence[int],
    known_expanding_dimensions: Sequence[int] = (),
    known_nonexpanding_dimensions: Sequence[int] = (),
) -> np.ndarray:
    """``broadcast_in_dim`` with a runtime result shape; the known_* hints are unused."""
    return broadcast_in_dim(operand, broadcast_dimensions, ints(output_dimensions))


def dynamic_reshape(operand: ArrayLike, output_shape: ArrayLike) -> np.ndarray:
    """``reshape`` with a runtime result shape (spec.md#dynamic_reshape)."""
    return reshape(operand, ints(output_shape))


def dynamic_pad(
    operand: ArrayLike,
    padding_value: ArrayLike,
    edge_padding_low: ArrayLike,
    edge_padding_high: ArrayLike,
    interior_padding: ArrayLike,
) -> np.ndarray:
    """``pad`` with runtime paddings (spec.md#dynamic_pad)."""
    return pad(
        operand,
        padding_value,
        ints(edge_padding_low),
        ints(edge_padding_high),
        ints(interior_padding),
    )


# --- gather / scatter ---------------------------------------------------------------------------


def _index_vectors(indices: ArrayLike, index_vector_dim: int) -> np.ndarray:
    """Move the index vector dimension last (adding one of size 1 when it is the rank)."""
    idx = _as_index(indices)
    ivd = int(index_vector_dim)
    if ivd == idx.ndim:
        return idx[..., None]
    return np.moveaxis(idx, ivd, -1)


def _along(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = values.shape[0]
    return values.reshape(shape)


def gather(
    operand: ArrayLike,
    start_indices: ArrayLike,
    *,
    offset_dims: Sequence[int],
    collapsed_slice_dims: Sequence[int],
    start_index_map: Sequence[int],
    index_vector_dim: int,
    slice_sizes: Sequence[int],
    operand_batching_dims: Sequence[int] = (),
    start_indices_batching_dims: Sequence[int] = (),
    indices_are_sorted: bool = False,
) -> np.ndarray:
    """Gather slices of ``operand`` at ``start_indices`` (spec.md#gather).

    Start indices are clamped to ``[0, dim(operand, d) - slice_sizes[d]]``;
    ``indices_are_sorted`` is a hint and is ignored. Built as one fancy-indexing
    operation: one index array per operand dimension, in the result's layout.
    """
    del indices_are_sorted
    operand = np.asarray(operand)
    ivd = int(index_vector_dim)
    vectors = _index_vectors(start_indices, ivd)
    batch_shape = vectors.shape[:-1]
    offset_dims_l = ints(offset_dims)
    collapsed = ints(collapsed_slice_dims)
    index_map = ints(start_index_map)
    sizes = ints(slice_sizes)
    op_batching = ints(operand_batching_dims)
    idx_batching = ints(start_indices_batching_dims)
    offset_operand_dims = [
        d for d in range(operand.ndim) if d not in collapsed and d not in op_batching
    ]
    rank = len(batch_shape) + len(offset_dims_l)
    batch_result_dims = [d for d in range(rank) if d not in offset_dims_l]
    result_shape = [0] * rank
    for k, d in enumerate(offset_dims_l):
        result_shape[d] = sizes[offset_operand_dims[k]]
    for j, d in enumerate(batch_result_dims):
        result_shape[d] = batch_shape[j]

    def on_batch(values: np.ndarray) -> np.ndarray:
        return np.expand_dims(values, tuple(offset_dims_l)) if offset_dims_l else values

    index_arrays = []
    for d in range(operand.ndim):
        component: np.ndarray | int = 0
        if d in index_map:
            k = index_map.index(d)
            upper = operand.shape[d] - sizes[d]
            component = component + on_batch(np.clip(vectors[..., k], 0, upper))
        if d in op_batching:
            d_start = idx_batching[op_batching.index(d)]
            j = d_start - (0 if d_start < ivd else 1)
            component = component + _along(
                np.arange(batch_shape[j], dtype=np.int64), batch_result_dims[j], rank
            )
        if d in offset_operand_dims:
            k = offset_operand_dims.index(d)
            component = component + _along(
                np.arange(sizes[d], dtype=np.int64), offset_dims_l[k], rank
            )
        index_arrays.append(np.broadcast_to(np.asarray(component, dtype=np.int64), result_shape))
    if operand.ndim == 0:
        return np.broadcast_to(operand, result_shape).copy()
    return operand[tuple(index_arrays)]


def dynamic_gather(
    operand: ArrayLike,
    start_indices: ArrayLike,
    slice_sizes: ArrayLike,
    *,
    offset_dims: Sequence[int],
    collapsed_slice_dims: Sequence[int],
    start_index_map: Sequence[int],
    index_vector_dim: int,
    operand_batching_dims: Sequence[int] = (),
    start_indices_batching_dims: Sequence[int] = (),
    indices_are_sorted: bool = False,
) -> np.ndarray:
    """``gather`` with ``slice_sizes`` given as a runtime tensor (spec.md#dynamic_gather)."""
    return gather(
        operand,
        start_indices,
        offset_dims=offset_dims,
        collapsed_slice_dims=collapsed_slice_dims,
        start_index_map=start_index_map,
        index_vector_dim=index_vector_dim,
        slice_sizes=ints(slice_sizes),
        operand_batching_dims=operand_batching_dims,
        start_indices_batching_dims=start_indices_batching_dims,
        indices_are_sorted=indices_are_sorted,
    )


def scatter(
    inputs: Sequence[ArrayLike],
    scatter_indices: ArrayLike,
    updates: Sequence[ArrayLike],
    *,
    update_window_dims: Sequence[int],
    inserted_window_dims: Sequence[int],
    scatter_dims_to_operand_dims: Sequence[int],
    index_vector_dim: int,
    update_computation: Callable[..., Any],
    input_batching_dims: Sequence[int] = (),
    scatter_indices_batching_dims: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> tuple[np.ndarray, ...]:
    """Scatter ``updates`` into copies of ``inputs`` with ``update_computation``
    (spec.md#scatter).

    Start indices are not clamped; an update element whose ``result_index`` is out of
    bounds is skipped (element by element, as the spec says). Updates are applied in the
    lexicographic order of ``update_index`` (the schedule upstream's interpreter uses), so a
    non-associative or non-commutative body gives upstream's result: a body with a kind
    uses ``ufunc.at`` (sequential, in order); any other body uses
    :func:`~.regions.grouped_fold`, which applies the updates aimed at each element in that
    order, all elements at once. ``indices_are_sorted``/``unique_indices`` are hints and
    are ignored.
    """
    del indices_are_sorted, unique_indices
    ins = [np.asarray(x) for x in inputs]
    ups = [np.asarray(u) for u in updates]
    ivd = int(index_vector_dim)
    vectors = _index_vectors(scatter_indices, ivd)
    window_dims = ints(update_window_dims)
    inserted = ints(inserted_window_dims)
    to_operand = ints(scatter_dims_to_operand_dims)
    in_batching = ints(input_batching_dims)
    idx_batching = ints(scatter_indices_batching_dims)
    shape = ins[0].shape
    rank_in = len(shape)
    up_shape = ups[0].shape
    rank_up = len(up_shape)
    scatter_dims = [d for d in range(rank_up) if d not in window_dims]
    window_input_dims = [d for d in range(rank_in) if d not in inserted and d not in in_batching]

    def on_scatter(values: np.ndarray) -> np.ndarray:
        return np.expand_dims(values, tuple(window_dims)) if window_dims else values

    in_bounds = np.ones(up_shape, dtype=bool)
    index_arrays = []
    for d in range(rank_in):
        component: np.ndarray | int = 0
        if d in to_operand:
            component = component + on_scatter(vectors[..., to_operand.index(d)])
        if d in in_batching:
            d_start = idx_batching[in_batching.index(d)]
            j = d_start - (0 if d_start < ivd else 1)
            component = component + _along(
                np.arange(up_shape[scatter_dims[j]], dtype=np.int64), scatter_dims[j], rank_up
            )
        if d in window_input_dims:
            k = window_input_dims.index(d)
            axis = window_dims[k]
            component = component + _along(np.arange(up_shape[axis], dtype=np.int64), axis, rank_up)
        full = np.broadcast_to(np.asarray(component, dtype=np.int64), up_shape)
        in_bounds &= (full >= 0) & (full < shape[d])
        index_arrays.append(full)

    results = [x.copy() for x in ins]
    if rank_in == 0:
        flat_targets = np.zeros(int(np.count_nonzero(in_bounds)), dtype=np.int64)
    else:
        flat_targets = np.ravel_multi_index(
            tuple(a[in_bounds] for a in index_arrays), shape
        ).astype(np.int64)
    values = [u[in_bounds] for u in ups]
    flat_results = [r.reshape(-1) for r in results]
    kind = ufunc_kind(update_computation, [r.dtype for r in results])  # complex mul: the body
    if kind is not None:
        target = flat_results[0]
        with np.errstate(all="ignore"):
            ufunc_at(kind, target, flat_targets, values[0].astype(target.dtype))
    else:
        grouped_fold(update_computation, flat_results, flat_targets, values)
    return tuple(r.reshape(shape) for r in flat_results)
