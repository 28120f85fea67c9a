"""Shared by the interpreter's semantics tests: the element-type lists, the value helpers (bit
views, wrap-around), a drawn shape, and the spec's gather, scatter and pad formulas as naive
references (element by element; test references only)."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st
from stablehlo_py.semantics import dtypes as dt

INT_TYPES = ["i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"]
# the float types below f32 (f8E8M0FNU, exponent only, is not among them)
NARROW_FLOATS = [
    "bf16",
    "f16",
    "f8E4M3FN",
    "f8E5M2",
    "f8E4M3FNUZ",
    "f8E5M2FNUZ",
    "f8E4M3B11FNUZ",
    "f8E3M4",
    "f8E4M3",
    "f6E2M3FN",
    "f6E3M2FN",
    "f4E2M1FN",
]
FLOAT_TYPES = [*NARROW_FLOATS[:2], "f32", "f64", *NARROW_FLOATS[2:]]


def bits(x):
    x = np.asarray(x)
    return x.view(f"u{x.dtype.itemsize}").tolist()


def f64bits(*hexes):
    return np.array(hexes, dtype=np.uint64).view(np.float64)


def wrap(value, name):
    n = dt.bitwidth(name)
    value %= 1 << n
    if dt.is_signed_int(name) and value >= 1 << (n - 1):
        value -= 1 << n
    return value


def draw_shape(data: st.DataObject, max_rank: int, lo: int, hi: int) -> tuple[int, list[int]]:
    """A rank in [1, max_rank] and a shape of that rank, sizes in [lo, hi], drawn from ``data``."""
    rank = data.draw(st.integers(1, max_rank))
    return rank, data.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank))


def index_vector(indices, batch_index, index_vector_dim) -> list[int]:
    """The start index at ``batch_index`` of ``indices``: the slice along ``index_vector_dim``, or the
    scalar there when that dimension is the rank (implicit index vector)."""
    if index_vector_dim < indices.ndim:
        where = list(batch_index)
        where.insert(index_vector_dim, slice(None))
        return [int(v) for v in indices[tuple(where)]]
    return [int(indices[tuple(batch_index)])]


def batching_index(rank, operand_batching_dims, indices_batching_dims, batch_index, index_vector_dim):
    """The operand index of the batching dims: each operand batching dim takes the batch index of its
    indices batching dim (whose position skips ``index_vector_dim``)."""
    full = [0] * rank
    for d_op, d_idx in zip(operand_batching_dims, indices_batching_dims):
        full[d_op] = batch_index[d_idx - (0 if d_idx < index_vector_dim else 1)]
    return full


def window_index(rank, skipped_dims, window) -> list[int]:
    """The operand index of the window (gather's offset, scatter's update window): 0 in the
    ``skipped_dims`` (collapsed or inserted, and batching), the window's next index elsewhere."""
    it = iter(window)
    return [0 if d in skipped_dims else next(it) for d in range(rank)]


def naive_gather(
    operand,
    start_indices,
    offset_dims,
    collapsed_slice_dims,
    start_index_map,
    index_vector_dim,
    slice_sizes,
    operand_batching_dims=(),
    start_indices_batching_dims=(),
):
    """The spec's formula, one result element at a time (a test reference only)."""
    operand = np.asarray(operand)
    si = np.asarray(start_indices)
    ivd = index_vector_dim
    batch_shape = [si.shape[d] for d in range(si.ndim) if d != ivd]
    skipped = [*collapsed_slice_dims, *operand_batching_dims]
    offset_sizes = [slice_sizes[d] for d in range(operand.ndim) if d not in skipped]
    rank = len(batch_shape) + len(offset_dims)
    result_shape = []
    bi = oi = 0
    for d in range(rank):
        if d in offset_dims:
            result_shape.append(offset_sizes[oi])
            oi += 1
        else:
            result_shape.append(batch_shape[bi])
            bi += 1
    batch_dims = [d for d in range(rank) if d not in offset_dims]
    result = np.zeros(result_shape, dtype=operand.dtype)
    for ri in itertools.product(*[range(n) for n in result_shape]):
        batch_index = [ri[d] for d in batch_dims]
        start_index = index_vector(si, batch_index, ivd)
        full_start = [0] * operand.ndim
        for d_start, d_op in enumerate(start_index_map):
            hi = operand.shape[d_op] - slice_sizes[d_op]
            full_start[d_op] = min(max(start_index[d_start], 0), hi)
        full_batching = batching_index(
            operand.ndim, operand_batching_dims, start_indices_batching_dims, batch_index, ivd
        )
        full_offset = window_index(operand.ndim, skipped, [ri[d] for d in offset_dims])
        index = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_offset))
        result[ri] = operand[index]
    return result


def naive_scatter(
    inputs,
    scatter_indices,
    updates,
    update_window_dims,
    inserted_window_dims,
    scatter_dims_to_operand_dims,
    index_vector_dim,
    body,
    input_batching_dims=(),
    scatter_indices_batching_dims=(),
):
    """The spec's exec(schedule, inputs) with the lexicographic schedule; ``body`` is a Python
    function of scalars (``len(inputs)`` currents, then as many updates) returning a tuple."""
    results = [np.array(x, copy=True) for x in inputs]
    ups = [np.asarray(u) for u in updates]
    si = np.asarray(scatter_indices)
    ivd = index_vector_dim
    shape = results[0].shape
    rank = len(shape)
    up_shape = ups[0].shape
    scatter_dims = [d for d in range(len(up_shape)) if d not in update_window_dims]
    skipped = [*inserted_window_dims, *input_batching_dims]
    for ui in itertools.product(*[range(n) for n in up_shape]):
        usi = [ui[d] for d in scatter_dims]
        start_index = index_vector(si, usi, ivd)
        full_start = [0] * rank
        for d_start, d_in in enumerate(scatter_dims_to_operand_dims):
            full_start[d_in] = start_index[d_start]
        full_batching = batching_index(
            rank, input_batching_dims, scatter_indices_batching_dims, usi, ivd
        )
        full_window = window_index(rank, skipped, [ui[d] for d in update_window_dims])
        index = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_window))
        if not all(0 <= i < n for i, n in zip(index, shape)):
            continue
        new = body(*[r[index] for r in results], *[u[ui] for u in ups])
        for r, v in zip(results, new):
            r[index] = v
    return results


def naive_pad(operand, value, low, high, interior):
    """The spec's pad, element by element; negative edge padding removes elements."""
    operand = np.asarray(operand)
    shape = [
        lo + n + max(n - 1, 0) * it + hi
        for n, lo, hi, it in zip(operand.shape, low, high, interior)
    ]
    result = np.full([max(s, 0) for s in shape], value, dtype=operand.dtype)
    for idx in itertools.product(*[range(n) for n in operand.shape]):
        dst = tuple(lo + i * (it + 1) for i, lo, it in zip(idx, low, interior))
        if all(0 <= j < n for j, n in zip(dst, result.shape)):
            result[dst] = operand[idx]
    return result
