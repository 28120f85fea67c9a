"""Shared by the interpreter's semantics tests: the element-type lists, the value helpers (bit
views, wrap-around), a drawn shape, and the spec's gather formula as a naive reference."""

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
    offset_sizes = [
        slice_sizes[d]
        for d in range(operand.ndim)
        if d not in collapsed_slice_dims and d not in operand_batching_dims
    ]
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
        if ivd < si.ndim:
            where = list(batch_index)
            where.insert(ivd, slice(None))
            start_index = [int(v) for v in si[tuple(where)]]
        else:
            start_index = [int(si[tuple(batch_index)])]
        full_start = [0] * operand.ndim
        for d_start, d_op in enumerate(start_index_map):
            hi = operand.shape[d_op] - slice_sizes[d_op]
            full_start[d_op] = min(max(start_index[d_start], 0), hi)
        full_batching = [0] * operand.ndim
        for i, d_op in enumerate(operand_batching_dims):
            d_start = start_indices_batching_dims[i]
            full_batching[d_op] = batch_index[d_start - (0 if d_start < ivd else 1)]
        offset_index = [ri[d] for d in offset_dims]
        full_offset = []
        k = 0
        for d in range(operand.ndim):
            if d in collapsed_slice_dims or d in operand_batching_dims:
                full_offset.append(0)
            else:
                full_offset.append(offset_index[k])
                k += 1
        index = tuple(a + b + c for a, b, c in zip(full_start, full_batching, full_offset))
        result[ri] = operand[index]
    return result
