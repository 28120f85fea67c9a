"""Left folds in XLA's order, vectorized across output positions.

``reduce`` and ``reduce_window`` combine, for every output position, the init value and then the
position's elements in row-major order, one at a time: ``acc = body(acc, x0)``,
``acc = body(acc, x1)``, ... (upstream's reference interpreter always folds this way, XLA CPU
for windows and short reductions; with a non-associative body -- a float ``add``, a
``logaddexp`` written out as a region -- any other order changes the last bits). The fold runs
one step per element of a window or reduced dimension, each step on the arrays of all output
positions at once: ``k`` elements cost ``k`` numpy calls (a body with a kind) or ``k`` region
evaluations (any other body), never one per output position.

Schedules of ``reduce`` (:func:`reduce_schedule`; ``reduce_window`` always folds):

* a reduced dimension of at most :data:`FOLD_LIMIT` elements folds left -- XLA CPU's own order
  for short ones (measured against ``jax.jit``: f32 sums are bit-equal up to 20 elements, from
  24 on XLA vectorizes) and upstream's. A body with a kind folds with its ufunc, any other body
  runs;
* a longer one: a body with a kind (:data:`~.regions.KINDS`) uses ``ufunc.reduce`` (one numpy
  call; pairwise for float sums, which XLA vectorizes in an order of its own that a left fold
  does not reproduce either); any other body is reduced by a balanced tree (``ceil(log2 n)``
  region evaluations instead of ``n``; the spec leaves the schedule implementation-defined);
* a kind whose ufunc is exact in any order (integer and boolean arithmetic, ``max``/``min``,
  bitwise ops) always uses ``ufunc.reduce``;
* a complex ``mul`` has no ufunc here: numpy's complex product is not the interpreter's
  (XLA's fused formula, see ``fused.py``), so its body runs.

A left fold with a ufunc over the last axis runs as one ``ufunc.accumulate`` (init value first)
where that is the same fold step for step (:func:`accumulate_fold`, :data:`ACCUMULATE_DTYPES`);
:func:`prepare_kind_reduce` decides a reduce's schedule once, when the op is compiled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ._element_kinds import is_complex, is_float
from .regions import KIND_BODIES, body_kind, call_body, kind_ufunc, tree_reduce

__all__ = [
    "ACCUMULATE_DTYPES",
    "FOLD_LIMIT",
    "accumulate_fold",
    "fold_left",
    "prepare_kind_reduce",
    "reduce_last_axis",
    "reduce_schedule",
    "ufunc_at",
    "ufunc_kind",
]

FOLD_LIMIT = 32
"""Longest reduced dimension that ``reduce`` folds left step by step (``reduce_window`` always
folds: a window's elements are its steps)."""

# Kinds whose ufunc gives different bits in a different order, by element class.
_ORDER_SENSITIVE_KINDS = frozenset({"add", "mul"})
# Kinds whose numpy ufunc rounds differently from the interpreter's op on complex numbers: the
# body itself runs (the interpreter's multiply is XLA's fused product, see fused.py).
_BODY_ON_COMPLEX_KINDS = frozenset({"mul"})


# IEEE maximum/minimum order -0 below +0, but numpy's maximum/minimum return either zero of an
# equal pair (the second): on floats their results are fixed up to the zero that wins.
_SIGNED_ZERO_KINDS = {"max": False, "min": True}  # kind -> whether the winning zero is -0


def _zero_sign_kind(kind: str, dtype: np.dtype[Any]) -> bool | None:
    """Whether -0 wins (``min``) or +0 does (``max``) when ``kind`` folds floats of ``dtype``;
    None when numpy's ufunc needs no fix-up (other kinds, other element types)."""
    if kind not in _SIGNED_ZERO_KINDS or not is_float(np.dtype(dtype)):
        return None
    return _SIGNED_ZERO_KINDS[kind]


def _zero_step(negative: bool, before: np.ndarray, x: np.ndarray, after: np.ndarray) -> np.ndarray:
    """A fold step's ``after = ufunc(before, x)`` with the IEEE zero where both are zeros, in
    ``after``'s type (a step of another type must not change the accumulator's)."""
    tie = (before == 0) & (x == 0)
    if not tie.any():
        return after
    keep_before = np.signbit(before) == negative
    return np.asarray(np.where(tie, np.where(keep_before, before, x), after), dtype=after.dtype)


def _zero_fixup(
    negative: bool, result: np.ndarray, x: np.ndarray, init: np.ndarray
) -> np.ndarray:
    """The ``ufunc.reduce``/``accumulate`` result over the last axis of ``x`` (and ``init``) with
    the IEEE zero where it is a zero: -0 for ``min`` if any -0 is there, +0 for ``max`` if any
    +0."""
    zero = result == 0
    if not zero.any():
        return result
    winner = (x == 0) & (np.signbit(x) == negative)
    found = winner.any(axis=-1) | ((init == 0) & (np.signbit(init) == negative))
    z = np.zeros((), dtype=result.dtype)
    wanted = np.negative(z) if negative else z
    return np.asarray(np.where(zero & found, wanted, result), dtype=result.dtype)


def ufunc_at(kind: str, target: np.ndarray, indices: np.ndarray, values: np.ndarray) -> None:
    """``kind_ufunc(kind, ...).at(target, indices, values)``: fold each value into the element of
    the flat ``target`` its index names, in place, with the IEEE zero of a float max/min (scatter
    and select_and_scatter with a max/min body)."""
    uf = kind_ufunc(kind, target.dtype)
    negative = _zero_sign_kind(kind, target.dtype)
    if negative is None:
        uf.at(target, indices, values)
        return
    before = (target == 0) & (np.signbit(target) == negative)
    uf.at(target, indices, values)
    hit = np.zeros(target.shape, dtype=bool)
    hit[np.asarray(indices)[(values == 0) & (np.signbit(values) == negative)]] = True
    fix = (hit | before) & (target == 0)
    if fix.any():
        z = np.zeros((), dtype=target.dtype)
        target[fix] = np.negative(z) if negative else z


def _order_sensitive(kind: str, dtype: np.dtype[Any]) -> bool:
    return kind in _ORDER_SENSITIVE_KINDS and (is_float(dtype) or is_complex(dtype))


@functools.lru_cache(maxsize=None)
def _has_own_loop(kind: str, dtype: np.dtype[Any]) -> bool:
    """Whether numpy has a loop of ``kind``'s ufunc from ``dtype`` to ``dtype`` itself.

    ml_dtypes' sub-byte integers (int2/int4/uint2/uint4) have their own ``add``/``multiply`` but
    not ``maximum``/``minimum``/``bitwise_*``: those resolve through int8, which ``out=`` of the
    narrow type and ``ufunc.reduce(dtype=...)`` refuse ("No loop matching the specified
    signature")."""
    try:
        return bool(kind_ufunc(kind, dtype).resolve_dtypes((dtype, dtype, None))[2] == dtype)
    except (TypeError, ValueError):
        return False


def ufunc_kind(body: Callable[..., Any], dtypes: Sequence[np.dtype[Any]]) -> str | None:
    """The body's kind when its ufunc may stand in for it on ``dtypes`` (one input), else None
    (the body itself runs: a complex ``mul``, or a kind numpy has no loop for on the type)."""
    kind = body_kind(body)
    if kind is None or len(dtypes) != 1:
        return None
    if kind in _BODY_ON_COMPLEX_KINDS and is_complex(dtypes[0]):
        return None
    if not _has_own_loop(kind, np.dtype(dtypes[0])):
        return None
    return kind


def reduce_schedule(body: Callable[..., Any], dtypes: Sequence[np.dtype[Any]], n: int) -> str:
    """How ``reduce`` combines ``n`` elements per output position with ``body``.

    ``"steps"`` (left fold, one call per element), ``"ufunc"`` (``ufunc.reduce``) or
    ``"tree"`` (a balanced tree of body calls).
    """
    kind = ufunc_kind(body, dtypes)
    if kind is not None:
        if _order_sensitive(kind, np.dtype(dtypes[0])) and n <= FOLD_LIMIT:
            return "steps"
        return "ufunc"
    return "steps" if n <= FOLD_LIMIT else "tree"


def fold_left(
    body: Callable[..., Any],
    init_values: Sequence[np.ndarray],
    steps: Iterable[Sequence[np.ndarray]],
    shape: tuple[int, ...],
) -> tuple[np.ndarray, ...]:
    """``acc = init_values`` (broadcast to ``shape``), then ``acc = body(*acc, *xs)`` for each
    ``xs`` of ``steps`` in order; every ``xs`` holds one array of ``shape`` per input.

    A body with a kind (one input, see :func:`ufunc_kind`) applies its ufunc in place; any
    other body is evaluated on the whole arrays.
    """
    inits = [np.asarray(v) for v in init_values]
    kind = ufunc_kind(body, [v.dtype for v in inits])
    if kind is not None:
        acc = np.full(shape, inits[0], dtype=inits[0].dtype)
        uf = kind_ufunc(kind, acc.dtype)
        negative = _zero_sign_kind(kind, acc.dtype)
        with np.errstate(all="ignore"):
            for (x,) in steps:
                if negative is not None:
                    acc = _zero_step(negative, acc, x, np.asarray(uf(acc, x), dtype=acc.dtype))
                elif x.dtype == acc.dtype:
                    uf(acc, x, out=acc)
                else:
                    acc = np.asarray(uf(acc, x), dtype=acc.dtype)
        return (acc,)
    accs: list[np.ndarray] = [np.broadcast_to(v, shape) for v in inits]
    for xs in steps:
        out = call_body(body, *accs, *xs)
        if len(out) != len(accs):
            raise ValueError(
                f"the reduction body returned {len(out)} values for {len(accs)} accumulators"
            )
        accs = [np.broadcast_to(o, shape) for o in out]
    return tuple(np.array(a) for a in accs)


# A fold runs as one accumulate only for up to this many output positions (lanes): numpy's
# accumulate costs ~15 ns per element, a fold step ~1 us plus ~1 ns per lane.
ACCUMULATE_MAX_LANES = 64

# Element types whose ufunc.accumulate applies the ufunc's own loop step by step (each partial
# result rounded in the type), so that it equals the left fold of ``fold_left`` bit for bit
# (tests/unit/interpreter/test_folds.py checks each against fold_left).
ACCUMULATE_DTYPES = frozenset(
    np.dtype(t) for t in (np.float16, np.float32, np.float64, np.complex64, np.complex128)
)


def accumulate_fold(
    body: Callable[..., Any], xs: Sequence[np.ndarray], inits: Sequence[np.ndarray]
) -> tuple[np.ndarray, ...] | None:
    """The left fold of ``fold_left`` over the last axis in one ``ufunc.accumulate`` (the init
    value as the first column), for one input whose body has a kind and whose element type is in
    :data:`ACCUMULATE_DTYPES`; None otherwise."""
    if len(xs) != 1:
        return None
    x, init = xs[0], inits[0]
    d = x.dtype
    kind = ufunc_kind(body, [d])
    if init.dtype != d or d not in ACCUMULATE_DTYPES or kind is None:
        return None
    uf = kind_ufunc(kind, d)
    folded = _accumulate(uf, d, negative_zero=_zero_sign_kind(kind, d))(x, init)
    return None if folded is None else (folded,)


def _accumulate(
    uf: np.ufunc, d: np.dtype[Any], quiet: bool = False, negative_zero: bool | None = None
) -> Callable[[np.ndarray, np.ndarray], np.ndarray | None]:
    """The fold as one accumulate; None for more than :data:`ACCUMULATE_MAX_LANES` lanes (the
    steps are faster) and when a NaN comes out (which of two NaNs an add or a product returns
    depends on the loop numpy picks, and any other result does not): the caller folds step by
    step then.  ``quiet``: numpy's floating-point warnings are already off (the evaluator runs
    programs so), no ``np.errstate`` of its own.  ``negative_zero``: the fold is a float max
    (False) or min (True), whose zero result gets its IEEE sign (:func:`_zero_fixup`)."""
    isnan = np.isnan

    def fold(x: np.ndarray, init: np.ndarray) -> np.ndarray | None:
        n = x.shape[-1]
        if n == 0 or x.size > ACCUMULATE_MAX_LANES * n:
            return None
        column = np.empty(x.shape[:-1] + (n + 1,), dtype=d)
        column[..., 0] = init
        column[..., 1:] = x
        if quiet:
            acc = uf.accumulate(column, axis=-1)
        else:
            with np.errstate(all="ignore"):
                acc = uf.accumulate(column, axis=-1)
        result = acc[..., -1].copy()
        nan = isnan(result)
        if nan if result.ndim == 0 else nan.any():
            return None
        if negative_zero is not None:
            result = _zero_fixup(negative_zero, result, x, init)
        return result

    return fold


def _ufunc_reduce(
    uf: np.ufunc, d: np.dtype[Any], quiet: bool = False, negative_zero: bool | None = None
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def reduce(x: np.ndarray, init: np.ndarray) -> np.ndarray:
        if quiet:
            res = uf(init.astype(d), uf.reduce(x, axis=-1, dtype=d))
        else:
            with np.errstate(all="ignore"):
                res = uf(init.astype(d), uf.reduce(x, axis=-1, dtype=d))
        res = np.asarray(res, dtype=d).reshape(x.shape[:-1])
        if negative_zero is not None:
            res = _zero_fixup(negative_zero, res, x, init.astype(d))
        return res

    return reduce


def prepare_kind_reduce(
    kind: str, dtype: np.dtype[Any], n: int
) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """:func:`reduce_last_axis` decided once for one input of ``dtype`` whose last axis has
    ``n > 0`` elements and a body of kind ``kind`` (which the ufunc of that kind stands for, as in
    :func:`fold_left`): ``fn(x, init)`` (``x`` of ``dtype``, ``init`` 0-d of ``dtype``) -> the
    reduced array; None when the schedule runs the body itself.  ``fn`` runs with numpy's
    floating-point warnings as its caller set them (the evaluator turns them off)."""
    body = KIND_BODIES.get(kind)
    if body is None or n <= 0 or ufunc_kind(body, [dtype]) is None:
        return None
    uf = kind_ufunc(kind, dtype)
    negative = _zero_sign_kind(kind, dtype)
    schedule = reduce_schedule(body, [dtype], n)
    if schedule == "ufunc":
        return _ufunc_reduce(uf, dtype, quiet=True, negative_zero=negative)
    if schedule == "steps" and dtype in ACCUMULATE_DTYPES:
        fold = _accumulate(uf, dtype, quiet=True, negative_zero=negative)

        def fold_or_steps(x: np.ndarray, init: np.ndarray) -> np.ndarray:
            folded = fold(x, init)
            if folded is not None:
                return folded
            steps = ((x[..., i],) for i in range(x.shape[-1]))
            return fold_left(body, [init], steps, x.shape[:-1])[0]

        return fold_or_steps
    return None


def reduce_last_axis(
    body: Callable[..., Any], arrays: Sequence[np.ndarray], init_values: Sequence[np.ndarray]
) -> tuple[np.ndarray, ...]:
    """``reduce`` over the last axis of ``arrays`` (all ``shape + (n,)``) from ``init_values``
    (0-d), in the schedule :func:`reduce_schedule` picks. An empty axis gives the init values."""
    xs = [np.asarray(a) for a in arrays]
    inits = [np.asarray(v) for v in init_values]
    shape = xs[0].shape[:-1]
    n = xs[0].shape[-1]
    if n == 0:
        return tuple(np.full(shape, v, dtype=v.dtype) for v in inits)
    schedule = reduce_schedule(body, [x.dtype for x in xs], n)
    if schedule == "steps":
        folded = accumulate_fold(body, xs, inits)
        if folded is not None:
            return folded
        return fold_left(body, inits, (tuple(x[..., i] for x in xs) for i in range(n)), shape)
    if schedule == "tree":
        tree = tree_reduce(body, xs)
        out = call_body(body, *[np.broadcast_to(v, shape) for v in inits], *tree)
        return tuple(np.array(np.broadcast_to(o, shape)) for o in out)
    x, kind = xs[0], ufunc_kind(body, [xs[0].dtype])
    assert kind is not None  # "ufunc" is a schedule of bodies with a kind
    negative = _zero_sign_kind(kind, x.dtype)
    return (_ufunc_reduce(kind_ufunc(kind, x.dtype), x.dtype, negative_zero=negative)(x, inits[0]),)
