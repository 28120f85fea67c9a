"""Region bodies for the numpy semantics layer.

Ops such as ``reduce``, ``reduce_window``, ``scatter``, ``select_and_scatter``
and ``sort`` carry a region. In the numpy layer a region is a :class:`Body`:
a callable ``body(*arrays) -> tuple[np.ndarray, ...]`` that applies the
region **elementwise to whole arrays**. A region's ops are elementwise on 0-d
tensors, so evaluating it on arrays of any (equal, or broadcastable) shape
applies it to every element at once. The semantics functions never call a body
once per element: they call it on whole arrays, with a tree reduction (pairwise
halving) or a grouped fold whose trip count is a window size, a tree depth or
the largest number of updates aimed at one element.

Optional attributes let the semantics use numpy's own reductions:

* ``kind: str | None`` — one of :data:`KINDS` (``"add"``, ``"mul"``, ``"max"``,
  ``"min"``, ``"and"``, ``"or"``, ``"xor"``) when the region is the binary
  op of that name on its two arguments (``return op(arg0, arg1)``), else
  ``None``. A body with a kind is used through :func:`kind_ufunc` (e.g.
  ``np.add.reduce``, ``np.maximum.at``).
* ``sort_key: tuple[int, str] | None`` — for sort comparators: ``(i, "LT")`` or
  ``(i, "GT")`` when the comparator is ``compare(arg[2i], arg[2i+1], dir)`` with
  a total order (``TOTALORDER`` for floats; any comparison type for integers and
  booleans). Sort then uses a stable ``np.argsort`` on an order-preserving key.

Element types: a body returns arrays of whatever type its region computes.
The caller (the op wrapper) converts inputs and init values to the types of
the region's arguments (``to_destination_type`` in the spec) before calling the
semantics function; the results carry the body's result types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .total_order import total_order_key

__all__ = [
    "KINDS",
    "Body",
    "RegionBody",
    "make_body",
    "make_comparator",
    "body_kind",
    "body_sort_key",
    "call_body",
    "kind_ufunc",
    "tree_reduce",
    "reduce_axis",
    "grouped_fold",
    "ADD",
    "MUL",
    "MAX",
    "MIN",
    "AND",
    "OR",
    "XOR",
    "KIND_BODIES",
    "comparator_lt",
    "comparator_gt",
]

KINDS: tuple[str, ...] = ("add", "mul", "max", "min", "and", "or", "xor")


@runtime_checkable
class Body(Protocol):
    """A region evaluated elementwise on whole arrays."""

    def __call__(self, *args: np.ndarray) -> tuple[np.ndarray, ...]: ...


@dataclass(frozen=True)
class RegionBody:
    """A :class:`Body` built from a Python callable (see :func:`make_body`)."""

    fn: Callable[..., Any]
    kind: str | None = None
    sort_key: tuple[int, str] | None = None

    def __call__(self, *args: np.ndarray) -> tuple[np.ndarray, ...]:
        with np.errstate(all="ignore"):
            out = self.fn(*args)
        if isinstance(out, tuple | list):
            return tuple(np.asarray(o) for o in out)
        return (np.asarray(out),)


def make_body(fn: Callable[..., Any], kind: str | None = None) -> RegionBody:
    """Wrap ``fn`` (returning an array or a tuple of arrays) as a :class:`Body`.

    ``kind`` declares that ``fn`` is the named binary op (see :data:`KINDS`).
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"unknown body kind {kind!r}; expected one of {KINDS} or None")
    return RegionBody(fn, kind)


def make_comparator(
    fn: Callable[..., Any], direction: str | None = None, key_operand: int = 0
) -> RegionBody:
    """Wrap a sort comparator; ``direction`` ("LT"/"GT") marks a recognised total-order one."""
    if direction is None:
        return RegionBody(fn)
    if direction not in ("LT", "GT"):
        raise ValueError(f"comparator direction must be 'LT' or 'GT', got {direction!r}")
    return RegionBody(fn, sort_key=(key_operand, direction))


def body_kind(body: Callable[..., Any]) -> str | None:
    kind = getattr(body, "kind", None)
    return kind if kind in KINDS else None


def body_sort_key(body: Callable[..., Any]) -> tuple[int, str] | None:
    return getattr(body, "sort_key", None)


def call_body(body: Callable[..., Any], *args: np.ndarray) -> tuple[np.ndarray, ...]:
    """Call ``body`` and normalise its result to a tuple of ndarrays (never numpy scalars).

    Floating-point exceptions are not warnings here: NaN and infinity are values.
    """
    with np.errstate(all="ignore"):
        out = body(*args)
    if isinstance(out, tuple | list):
        return tuple(np.asarray(o) for o in out)
    return (np.asarray(out),)


# --- kinds -> ufuncs (one table, one consumer: kind_ufunc) -------------------------------------

_KIND_UFUNCS: dict[str, tuple[np.ufunc, np.ufunc]] = {
    # kind: (ufunc for non-bool types, ufunc for bool)
    "add": (np.add, np.logical_or),
    "mul": (np.multiply, np.logical_and),
    "max": (np.maximum, np.logical_or),
    "min": (np.minimum, np.logical_and),
    "and": (np.bitwise_and, np.logical_and),
    "or": (np.bitwise_or, np.logical_or),
    "xor": (np.bitwise_xor, np.logical_xor),
}


def kind_ufunc(kind: str, dtype: np.dtype[Any]) -> np.ufunc:
    """The numpy ufunc implementing the StableHLO op ``kind`` on elements of ``dtype``."""
    regular, boolean = _KIND_UFUNCS[kind]
    return boolean if np.dtype(dtype) == np.bool_ else regular


def _kind_fn(kind: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def fn(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        y = np.asarray(y)
        return np.asarray(kind_ufunc(kind, x.dtype)(x, y))

    fn.__name__ = f"{kind}_body"
    return fn


ADD = make_body(_kind_fn("add"), "add")
MUL = make_body(_kind_fn("mul"), "mul")
MAX = make_body(_kind_fn("max"), "max")
MIN = make_body(_kind_fn("min"), "min")
AND = make_body(_kind_fn("and"), "and")
OR = make_body(_kind_fn("or"), "or")
XOR = make_body(_kind_fn("xor"), "xor")
KIND_BODIES: dict[str, RegionBody] = {
    "add": ADD,
    "mul": MUL,
    "max": MAX,
    "min": MIN,
    "and": AND,
    "or": OR,
    "xor": XOR,
}


def _total_order_lt(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(total_order_key(x) < total_order_key(y))


def comparator_lt(key_operand: int = 0) -> RegionBody:
    """``compare(arg[2i], arg[2i+1], LT, TOTALORDER)`` as a recognised comparator."""
    i = key_operand
    return make_comparator(lambda *a: _total_order_lt(a[2 * i], a[2 * i + 1]), "LT", i)


def comparator_gt(key_operand: int = 0) -> RegionBody:
    """``compare(arg[2i], arg[2i+1], GT, TOTALORDER)`` as a recognised comparator."""
    i = key_operand
    return make_comparator(lambda *a: _total_order_lt(a[2 * i + 1], a[2 * i]), "GT", i)


# --- generic evaluation strategies ---------------------------------------------------------------


def tree_reduce(body: Callable[..., Any], arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Reduce ``arrays`` (all of shape ``(..., n)``, ``n >= 1``) over their last axis.

    Pairwise halving: level by level, adjacent elements ``(0, 1), (2, 3), ...`` are
    combined with ``body(*lefts, *rights)``; an odd last element is carried to the next
    level. The in-order traversal of the tree is the elements in index order, as the
    spec's ``reduce`` schedule requires. Trip count: ``ceil(log2(n))``.
    """
    xs = [np.asarray(a) for a in arrays]
    n = xs[0].shape[-1]
    if n == 0:
        raise ValueError("tree_reduce needs at least one element along the last axis")
    while n > 1:
        even = (n // 2) * 2
        lefts = [x[..., 0:even:2] for x in xs]
        rights = [x[..., 1:even:2] for x in xs]
        combined = call_body(body, *lefts, *rights)
        combined = [np.broadcast_to(c, lefts[0].shape) for c in combined]
        if n % 2:
            xs = [
                np.concatenate([c, x[..., even:].astype(c.dtype, copy=False)], axis=-1)
                for c, x in zip(combined, xs, strict=True)
            ]
        else:
            xs = list(combined)
        n = xs[0].shape[-1]
    return tuple(np.asarray(x[..., 0]) for x in xs)


def reduce_axis(
    body: Callable[..., Any], arrays: Sequence[np.ndarray], init_values: Sequence[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """``reduce`` over the last axis of ``arrays`` with ``init_values`` (0-d) and ``body``.

    A body with a kind (single input) uses the ufunc's ``reduce``; any other body uses
    :func:`tree_reduce`, then ``body(init, tree)``. An empty axis gives the init values.
    """
    xs = [np.asarray(a) for a in arrays]
    inits = [np.asarray(v) for v in init_values]
    out_shape = xs[0].shape[:-1]
    n = xs[0].shape[-1]
    if n == 0:
        return tuple(np.full(out_shape, v, dtype=v.dtype) for v in inits)
    kind = body_kind(body)
    if kind is not None and len(xs) == 1:
        x = xs[0]
        uf = kind_ufunc(kind, x.dtype)
        with np.errstate(all="ignore"):
            partial = uf.reduce(x, axis=-1, dtype=x.dtype)
            res = uf(inits[0].astype(x.dtype), partial)
        return (np.asarray(res, dtype=x.dtype).reshape(out_shape),)
    tree = tree_reduce(body, xs)
    bcast_inits = [np.broadcast_to(v, out_shape) for v in inits]
    out = call_body(body, *bcast_inits, *tree)
    return tuple(np.array(np.broadcast_to(o, out_shape)) for o in out)


def grouped_fold(
    body: Callable[..., Any],
    results: Sequence[np.ndarray],
    targets: np.ndarray,
    values: Sequence[np.ndarray],
) -> None:
    """Apply ``results[t] = body(*results[t], *values[k])`` for every ``k`` in order.

    ``results`` are flat (1-D) arrays updated in place; ``targets[k]`` is the flat index
    that value ``k`` updates. Updates aimed at the same element are applied in their order
    in ``values`` (the spec's sequential schedule); updates aimed at different elements are
    applied together. The loop runs once per *rank*: its trip count is the largest number
    of values aimed at one element, not the number of values.
    """
    targets = np.asarray(targets, dtype=np.int64)
    m = targets.size
    if m == 0:
        return
    order = np.argsort(targets, kind="stable")
    t_sorted = targets[order]
    pos = np.arange(m)
    new_group = np.ones(m, dtype=bool)
    new_group[1:] = t_sorted[1:] != t_sorted[:-1]
    group_start = np.maximum.accumulate(np.where(new_group, pos, 0))
    rank = pos - group_start
    by_rank = np.lexsort((pos, rank))  # stable: rank-major, then original sorted position
    rank_sorted = rank[by_rank]
    src = order[by_rank]  # indices into values / targets
    bounds = np.searchsorted(rank_sorted, np.arange(int(rank_sorted[-1]) + 2))
    vals = [np.asarray(v).reshape(-1) for v in values]
    for r in range(len(bounds) - 1):
        sel = src[bounds[r] : bounds[r + 1]]
        t = targets[sel]
        current = [res[t] for res in results]
        new = call_body(body, *current, *[v[sel] for v in vals])
        for res, nv in zip(results, new, strict=True):
            res[t] = np.broadcast_to(nv, t.shape)
