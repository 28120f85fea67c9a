"""Reductions and sorting of the spec as pure numpy functions.

``reduce``, ``reduce_window``, ``select_and_scatter``, ``sort`` and CHLO's ``top_k``. Region
arguments are :class:`~.regions.Body` callables applied to whole arrays, never once per element.
``reduce`` and ``reduce_window`` fold in XLA's order (:mod:`.folds`); ``select_and_scatter``
uses a grouped fold.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._attributes import ints, ints_or_ones, padding_pairs
from ._element_kinds import is_complex
from .data_movement import pad
from .folds import fold_left, reduce_last_axis, ufunc_at, ufunc_kind
from .regions import body_sort_key, call_body, grouped_fold
from .total_order import total_order_key

__all__ = [
    "reduce",
    "reduce_window",
    "select_and_scatter",
    "sort",
    "top_k",
    "total_order_key",
]


def reduce(
    inputs: Sequence[ArrayLike],
    init_values: Sequence[ArrayLike],
    dimensions: Sequence[int],
    body: Callable[..., Any],
) -> tuple[np.ndarray, ...]:
    """Reduce ``inputs`` along ``dimensions`` with ``body`` (spec.md#reduce).

    Each output position folds its init value and then its reduced elements in row-major
    order, left to right, vectorized across positions, up to :data:`.folds.FOLD_LIMIT`
    elements; longer dimensions and order-insensitive kinds use ``ufunc.reduce`` or a tree
    (:func:`.folds.reduce_schedule`).
    """
    xs = [np.asarray(x) for x in inputs]
    inits = [np.asarray(v) for v in init_values]
    dims = sorted(set(ints(dimensions)))
    keep = [d for d in range(xs[0].ndim) if d not in dims]
    out_shape = tuple(xs[0].shape[d] for d in keep)
    moved = [np.transpose(x, keep + dims).reshape(out_shape + (-1,)) for x in xs]
    return reduce_last_axis(body, moved, inits)


def _num_windows(padded: int, window: int, dilation: int, stride: int) -> int:
    dilated = (window - 1) * dilation + 1
    if padded == 0 or dilated > padded:
        return 0
    return (padded - dilated) // stride + 1


def reduce_window(
    inputs: Sequence[ArrayLike],
    init_values: Sequence[ArrayLike],
    *,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    base_dilations: Sequence[int] | None = None,
    window_dilations: Sequence[int] | None = None,
    padding: ArrayLike | None = None,
    body: Callable[..., Any],
) -> tuple[np.ndarray, ...]:
    """Reduce windows of ``inputs`` with ``body`` (spec.md#reduce_window).

    The padded inputs (``pad(inputs, init_values, padding, base_dilations - 1)``) are read
    through one strided slice per window element, in row-major window order; each window
    folds its init value and then those slices left to right (XLA's order), vectorized
    across all output positions: a window of ``k`` elements costs ``k`` ufunc calls (a body
    with a kind) or ``k`` evaluations of the body on whole arrays.
    """
    xs = [np.asarray(x) for x in inputs]
    inits = [np.asarray(v) for v in init_values]
    rank = xs[0].ndim
    wd = ints(window_dimensions)
    ws = ints_or_ones(window_strides, rank)
    bd = ints_or_ones(base_dilations, rank)
    wdil = ints_or_ones(window_dilations, rank)
    pads = padding_pairs(padding, rank)
    low, high = ints(pads[:, 0]), ints(pads[:, 1])
    interior = [b - 1 for b in bd]
    padded = [
        pad(x, v.astype(x.dtype), low, high, interior) for x, v in zip(xs, inits, strict=True)
    ]
    pshape = padded[0].shape
    out_shape = tuple(
        _num_windows(p, w, dl, s) for p, w, dl, s in zip(pshape, wd, wdil, ws, strict=True)
    )
    if int(np.prod(out_shape, dtype=np.int64)) == 0:
        return tuple(np.full(out_shape, v, dtype=v.dtype) for v in inits)

    def window_slices(offset: Sequence[int]) -> tuple[slice, ...]:
        return tuple(
            slice(o * dl, o * dl + (n - 1) * s + 1, s)
            for o, dl, n, s in zip(offset, wdil, out_shape, ws, strict=True)
        )

    offsets = itertools.product(*[range(w) for w in wd])
    steps = (tuple(p[window_slices(o)] for p in padded) for o in offsets)
    return fold_left(body, inits, steps, out_shape)


def select_and_scatter(
    operand: ArrayLike,
    source: ArrayLike,
    init_value: ArrayLike,
    *,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int] | None = None,
    padding: ArrayLike | None = None,
    select: Callable[..., Any],
    scatter: Callable[..., Any],
) -> np.ndarray:
    """Scatter ``source`` to the elements ``select`` picks in each window
    (spec.md#select_and_scatter).

    Selection follows upstream's interpreter: the window's in-bounds elements (padding is
    skipped) are visited in index order and ``cur`` replaces the selection when
    ``select(selected, cur)`` is false. The result starts as ``init_value`` everywhere and
    each source value is folded in as ``result[i] = scatter(result[i], source_value)`` in
    the source's index order (XLA's formulation; the same as upstream's for monoids).
    Windows without in-bounds elements scatter nothing.
    """
    operand = np.asarray(operand)
    source = np.asarray(source)
    init = np.asarray(init_value)
    rank = operand.ndim
    wd = ints(window_dimensions)
    ws = ints_or_ones(window_strides, rank)
    pads = padding_pairs(padding, rank)
    low, high = ints(pads[:, 0]), ints(pads[:, 1])
    zeros = [0] * rank
    padded = pad(operand, np.zeros((), operand.dtype), low, high, zeros)
    valid = pad(np.ones(operand.shape, dtype=bool), np.array(False), low, high, zeros)
    flat_index = pad(
        np.arange(operand.size, dtype=np.int64).reshape(operand.shape),
        np.array(-1, dtype=np.int64),
        low,
        high,
        zeros,
    )
    grid = source.shape
    result = np.full(operand.shape, init, dtype=init.dtype).reshape(-1)
    if source.size == 0:
        return result.reshape(operand.shape)
    selected_value = np.zeros(grid, dtype=operand.dtype)
    selected_index = np.full(grid, -1, dtype=np.int64)
    have = np.zeros(grid, dtype=bool)
    for offset in itertools.product(*[range(w) for w in wd]):
        sl = tuple(
            slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offset, grid, ws, strict=True)
        )
        cand, cand_valid, cand_index = padded[sl], valid[sl], flat_index[sl]
        take = cand_valid & ~have
        if have.any():
            keep = np.asarray(call_body(select, selected_value, cand)[0], dtype=bool)
            take |= cand_valid & have & ~keep
        selected_value = np.where(take, cand, selected_value)
        selected_index = np.where(take, cand_index, selected_index)
        have |= cand_valid
    targets = selected_index[have]
    values = source[have]
    kind = ufunc_kind(scatter, [result.dtype])
    if kind is not None:
        with np.errstate(all="ignore"):
            ufunc_at(kind, result, targets, values.astype(result.dtype))
    else:
        grouped_fold(scatter, [result], targets, [values])
    return result.reshape(operand.shape)


# --- sort ----------------------------------------------------------------------------------------


def _merge_sort_permutation(
    comparator: Callable[..., Any], rows: Sequence[np.ndarray]
) -> np.ndarray:
    """Stable bottom-up merge sort of every row of ``rows`` (each ``(B, n)``) at once.

    Each level merges adjacent sorted runs of width ``w``: an element's new position is its
    position in its own run plus the number of elements of the partner run that go before
    it, found by a binary search driven by the comparator (``comparator(other, x)`` for a
    left-run element, ``not comparator(x, other)`` for a right-run element, so ties keep
    their order). Comparator calls: ``O(log(n)^2)``, each on whole ``(B, n)`` arrays.
    """
    cur = [np.asarray(r) for r in rows]
    batch, n = cur[0].shape
    perm = np.broadcast_to(np.arange(n, dtype=np.int64), (batch, n)).copy()
    pos = np.arange(n, dtype=np.int64)
    width = 1
    while width < n:
        block_start = (pos // (2 * width)) * (2 * width)
        offset = pos - block_start
        is_left = offset < width
        other_start = np.where(is_left, block_start + width, block_start)
        other_len = np.where(is_left, np.clip(n - (block_start + width), 0, width), width)
        lo = np.zeros((batch, n), dtype=np.int64)
        hi = np.broadcast_to(other_len, (batch, n)).copy()
        for _ in range(width.bit_length()):
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            probe = np.clip(other_start + mid, 0, n - 1)
            args: list[np.ndarray] = []
            for c in cur:
                other = np.take_along_axis(c, probe, axis=1)
                args.append(np.where(is_left, other, c))
                args.append(np.where(is_left, c, other))
            less = np.asarray(call_body(comparator, *args)[0], dtype=bool)
            before = np.where(is_left, less, ~less)
            lo = np.where(active & before, mid + 1, lo)
            hi = np.where(active & ~before, mid, hi)
        own = np.where(is_left, offset, offset - width)
        new_pos = block_start + own + lo
        rows_index = np.arange(batch)[:, None]
        nxt = []
        for c in cur:
            moved = np.empty_like(c)
            moved[rows_index, new_pos] = c
            nxt.append(moved)
        new_perm = np.empty_like(perm)
        new_perm[rows_index, new_pos] = perm
        cur, perm = nxt, new_perm
        width *= 2
    return perm


def sort(
    inputs: Sequence[ArrayLike],
    dimension: int,
    is_stable: bool,
    comparator: Callable[..., Any],
) -> tuple[np.ndarray, ...]:
    """Sort ``inputs`` together along ``dimension`` by ``comparator`` (spec.md#sort).

    A recognised comparator (``sort_key``: compare LT/GT with a total order on one input)
    uses a stable ``np.argsort`` of :func:`total_order_key`; any other comparator drives
    a vectorized merge sort. Both are stable, which ``is_stable = false`` also allows.
    """
    del is_stable
    xs = [np.asarray(x) for x in inputs]
    rank = xs[0].ndim
    d = int(dimension) + rank if int(dimension) < 0 else int(dimension)
    moved = [np.moveaxis(x, d, -1) for x in xs]
    shape = moved[0].shape
    n = shape[-1] if shape else 0
    if n <= 1 or xs[0].size == 0:
        return tuple(x.copy() for x in xs)
    rows = [m.reshape(-1, n) for m in moved]
    key_spec = body_sort_key(comparator)
    perm: np.ndarray
    if key_spec is not None and not is_complex(rows[key_spec[0]].dtype):
        index, direction = key_spec
        key = total_order_key(rows[index])
        if direction == "GT":
            key = ~key
        perm = np.argsort(key, axis=-1, kind="stable")
    else:
        perm = _merge_sort_permutation(comparator, rows)
    return tuple(
        np.moveaxis(np.take_along_axis(r, perm, axis=-1).reshape(shape), -1, d) for r in rows
    )


def top_k(operand: ArrayLike, k: int) -> tuple[np.ndarray, np.ndarray]:
    """CHLO ``top_k``: the ``k`` largest elements along the last dimension and their indices.

    Descending total order (NaN above +Inf), ties broken by the lower index (a stable sort),
    indices as ``si32``.
    """
    arr = np.asarray(operand)
    key = ~total_order_key(arr)
    order = np.argsort(key, axis=-1, kind="stable")[..., : int(k)]
    return np.take_along_axis(arr, order, axis=-1), order.astype(np.int32)
