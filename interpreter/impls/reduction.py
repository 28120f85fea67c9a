"""Region-bodied reductions: reduce, reduce_window, select_and_scatter, sort, map.

Inputs and init values are converted to the element types of the region's arguments first
(`to_destination_type` in the spec: a body may compute in a wider type than its inputs); the
region runs vectorized on whole arrays (`Evaluator.region_body`).  Sort comparators of the form
`compare(arg[2i], arg[2i+1], LT|GT)` (a total order) are recognized and sorted with `np.argsort`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.semantics import dtypes
from stablehlo_py.interpreter.evaluator import RETURN_OPS, region_kind
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.elementwise import operand_dtypes
from stablehlo_py.interpreter.registry import Step, compiler, impl
from stablehlo_py.semantics import folds
from stablehlo_py.semantics import reduction as red
from stablehlo_py.semantics.regions import KIND_BODIES, kind_ufunc, make_body, make_comparator


def _results(op: Any, results: Any) -> list[Any]:
    results = list(results)
    return _as_dtypes(results, [A.result_dtype(op, i) for i in range(len(results))])


def _region_types(op: Any) -> tuple[list[Any], str | None, list[Any]]:
    """The region's argument types, its kind (`return add(a, b)`...) and the op's result types."""
    region = op.regions[0]
    result_dtypes = [A.result_dtype(op, i) for i in range(len(op.results))]
    return A.region_arg_dtypes(region), region_kind(region), result_dtypes


def _region_reduction(op: Any, reduce: Callable[[list[Any], list[Any], Any], Any]) -> Any:
    """The compiled run of a reduction whose body is the op's compiled region: the inputs and
    inits converted to the region's argument types, `reduce(inputs, inits, body)`, the results
    in the result types."""
    types, kind, result_dtypes = _region_types(op)
    n = len(op.operands) // 2
    input_types, init_types = types[n:], types[:n]
    to_types = A.to_types

    def run(regions: tuple[Any, ...], *args: Any) -> list[Any]:
        inputs = to_types(list(args[:n]), input_types)
        inits = to_types(list(args[n:]), init_types)
        computation = regions[0]

        def body(*arrays: Any) -> tuple[Any, ...]:
            return tuple(computation(*arrays))

        return _as_dtypes(reduce(inputs, inits, make_body(body, kind=kind)), result_dtypes)

    return run


@compiler("stablehlo.reduce")
def _reduce(op: Any) -> Step:
    """The region's argument types, its kind (`return add(a, b)`...), the dimensions and the
    result types decoded once; the body is the op's compiled region."""
    dimensions = A.ints(op, "dimensions", [])
    reduce = red.reduce
    types, kind, result_dtypes = _region_types(op)
    run = _region_reduction(op, lambda inputs, inits, body: reduce(inputs, inits, dimensions, body))
    fast = _prepared_reduce(op, kind, dimensions, types, result_dtypes, run)
    return Step(fast or run, regions=True, multi=True)


def _prepared_reduce(
    op: Any,
    kind: str | None,
    dimensions: list[int],
    types: list[Any],
    result_dtypes: list[Any],
    general: Any,
) -> Any:
    """One input of a static shape reduced by a body with a kind, no type conversion: the
    transpose, the schedule and its ufunc decided now (`folds.prepare_kind_reduce`); values of any
    other shape or dtype run `general`."""
    if kind is None or len(op.operands) != 2 or len(types) != 2:
        return None
    d = types[1]
    if d is None or types[0] != d or result_dtypes[0] != d:
        return None
    shape = A.static_shape(op.operands[0].type)
    if shape is None or operand_dtypes(op) != [d, d]:
        return None
    dims = sorted(set(dimensions))
    if any(not 0 <= x < len(shape) for x in dims):
        return None
    keep = [x for x in range(len(shape)) if x not in dims]
    perm = tuple(keep + dims)
    n = 1
    for x in dims:
        n *= shape[x]
    fn = folds.prepare_kind_reduce(kind, d, n)
    if fn is None:
        return None
    moved_shape = tuple(shape[x] for x in keep) + (n,)
    identity = perm == tuple(range(len(shape)))
    nd = np.ndarray
    if not keep:
        one = _one_lane(kind, d, tuple(shape), fn, general)
        if one is not None:
            return one

    def run(regions: tuple[Any, ...], x: Any, init: Any) -> list[Any]:
        if (
            type(x) is nd
            and type(init) is nd
            and x.dtype is d
            and init.dtype is d
            and x.shape == shape
        ):
            moved = x if identity else x.transpose(perm)
            return [fn(moved.reshape(moved_shape), init)]
        return general(regions, x, init)

    return run


def _one_lane(kind: str, d: np.dtype[Any], shape: tuple[int, ...], fn: Any, general: Any) -> Any:
    """The run of a whole array of `shape` reduced to one value (a scan's `c.sum()`), where `fn` =
    `folds.prepare_kind_reduce(kind, d, n)` folds left as one `accumulate` over `[init, *x]` (a
    float/complex add, a float multiply): the same accumulate without its per-lane generality,
    with a plain scalar's NaN test (when a NaN comes out, `fn` decides which NaN, as it does now);
    values of any other shape or dtype run `general`.  None for the other kinds and types."""
    n = int(np.prod(shape))
    body = KIND_BODIES[kind]
    if folds.ufunc_kind(body, [d]) is None or d not in folds.ACCUMULATE_DTYPES:
        return None
    if folds.reduce_schedule(body, [d], n) != "steps":  # float/complex add, float mul
        return None
    accumulate = kind_ufunc(kind, d).accumulate
    empty, array, nd = np.empty, np.array, np.ndarray
    size, flat = n + 1, len(shape) == 1

    def run(regions: tuple[Any, ...], x: Any, init: Any) -> list[Any]:
        if type(x) is not nd or type(init) is not nd or x.dtype is not d or init.dtype is not d:
            return general(regions, x, init)
        if x.shape != shape:
            return general(regions, x, init)
        column = empty(size, d)
        column[0] = init
        column[1:] = x if flat else x.reshape(n)
        last = accumulate(column)[-1]
        if last != last:  # NaN: which one is fn's to say
            return [fn(x.reshape(1, n), init).reshape(())]
        return [array(last)]

    return run


def _as_dtypes(results: Any, dtypes: list[np.dtype[Any]]) -> list[Any]:
    """`results` as arrays of `dtypes` (converted where they differ)."""
    out = []
    for r, want in zip(results, dtypes, strict=False):
        r = np.asarray(r)
        out.append(r if r.dtype == want else r.astype(want))
    return out


def _padding(op: Any) -> np.ndarray | None:
    p = A.get(op, "padding")
    if p is None:
        return None
    return np.asarray(p, dtype=np.int64).reshape(-1, 2)


@compiler("stablehlo.reduce_window")
def _reduce_window(op: Any) -> Step:
    """Window attributes, padding, the region's argument types and kind and the result types
    decoded once; the body is the op's compiled region."""
    windows = {
        name: A.ints(op, name)
        for name in ("window_dimensions", "window_strides", "base_dilations", "window_dilations")
    }
    padding = _padding(op)
    reduce_window = red.reduce_window
    run = _region_reduction(
        op,
        lambda inputs, inits, body: reduce_window(
            inputs, inits, padding=padding, body=body, **windows
        ),
    )
    fast = _prepared_reduce_window(op, windows, padding, run)
    return Step(fast or run, regions=True, multi=True)


def _prepared_reduce_window(
    op: Any, windows: dict[str, Any], padding: np.ndarray | None, general: Any
) -> Any:
    """One input of a static shape, no padding and no base dilation, a body with a kind and no
    type conversion: the window's strided slices decided now, then `folds.fold_left` as
    `red.reduce_window` runs it (the same slices in the same order, so the same bits); values of
    any other shape or dtype run `general`."""
    types, kind, result_dtypes = _region_types(op)
    if kind is None or len(op.operands) != 2 or len(types) != 2:
        return None
    d = types[1]
    if d is None or types[0] != d or result_dtypes[0] != d or operand_dtypes(op) != [d, d]:
        return None
    shape = A.static_shape(op.operands[0].type)
    out_shape = A.static_shape(op.results[0].type)
    wd = windows["window_dimensions"]
    if shape is None or out_shape is None or wd is None or len(wd) != len(shape):
        return None
    rank = len(shape)
    ws = windows["window_strides"] or [1] * rank
    bd = windows["base_dilations"] or [1] * rank
    wdil = windows["window_dilations"] or [1] * rank
    if any(b != 1 for b in bd) or (padding is not None and padding.any()):
        return None
    if len(ws) != rank or len(wdil) != rank or len(out_shape) != rank or 0 in out_shape:
        return None
    for n, w, dl, s, o in zip(shape, wd, wdil, ws, out_shape, strict=True):
        span = (w - 1) * dl + 1
        if w < 1 or dl < 1 or s < 1 or span > n or (n - span) // s + 1 != o:
            return None
    slices = [
        tuple(
            slice(k * dl, k * dl + (o - 1) * s + 1, s)
            for k, dl, o, s in zip(offset, wdil, out_shape, ws, strict=True)
        )
        for offset in itertools.product(*[range(w) for w in wd])
    ]
    fold_left = folds.fold_left
    nd = np.ndarray
    direct = _direct_fold(kind, d)

    def run(regions: tuple[Any, ...], x: Any, init: Any) -> list[Any]:
        ok = type(x) is nd and type(init) is nd and x.dtype is d and init.dtype is d
        if ok and x.shape == shape:
            if direct is not None:
                acc = direct(x, init, slices, out_shape)
                if acc is not None:
                    return [acc]
            computation = regions[0]

            def body(*arrays: Any) -> tuple[Any, ...]:
                return tuple(computation(*arrays))

            steps = [(x[s],) for s in slices]
            return _as_dtypes(fold_left(make_body(body, kind=kind), [init], steps, out_shape), [d])
        return general(regions, x, init)

    return run


def _direct_fold(kind: str, d: np.dtype[Any]) -> Any:
    """`fold_left`'s loop for a body of `kind` on `d` without its per-step fix of signed zeros
    where that fix cannot apply: `f(x, init, slices, shape)` gives the accumulator, or None when
    `fold_left` itself must run (a float max/min over a window holding both +0 and -0: only then
    does numpy's choice of zero differ from IEEE's).  None when `fold_left` would not use the
    kind's ufunc on `d`."""
    if kind not in KIND_BODIES or folds.ufunc_kind(KIND_BODIES[kind], [d]) is None:
        return None
    uf = kind_ufunc(kind, d)
    full = np.full
    if kind not in ("max", "min") or not dtypes.is_float(d) or d.itemsize not in _UINTS:
        def plain(x: Any, init: Any, slices: list[Any], shape: Any) -> Any:
            acc = full(shape, init, dtype=d)
            for s in slices:
                uf(acc, x[s], out=acc)
            return acc

        return plain
    u = _UINTS[d.itemsize]
    minus_zero = u.type(1 << (8 * d.itemsize - 1))
    zero = u.type(0)

    def one_zero_sign(x: Any, init: Any, slices: list[Any], shape: Any) -> Any:
        bits, i = x.view(u), init.view(u)
        plus = i == zero or (bits == zero).any()
        if plus and (i == minus_zero or (bits == minus_zero).any()):
            return None
        acc = full(shape, init, dtype=d)
        for s in slices:
            uf(acc, x[s], out=acc)
        return acc

    return one_zero_sign


_UINTS = {n: np.dtype(f"u{n}") for n in (1, 2, 4, 8)}


def reduce_window_by_region(
    ev: Any,
    op: Any,
    region: Any,
    inputs: list[Any],
    inits: list[Any],
    padding: np.ndarray | None,
    env: dict,
    **windows: Any,
) -> list[Any]:
    """`reduce_window` with `region` as its body (its own region, or the function a custom call
    names); `windows` holds window_dimensions/strides/base_dilations/window_dilations."""
    types = A.region_arg_dtypes(region)
    n = len(inputs)
    inputs = A.to_types(inputs, types[n:])
    inits = A.to_types(inits, types[:n])
    results = red.reduce_window(
        inputs, inits, padding=padding, body=ev.region_body(region, env), **windows
    )
    return _results(op, results)


@impl("stablehlo.select_and_scatter")
def _select_and_scatter(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    operand, source, init = args
    select_region, scatter_region = op.regions[0], op.regions[1]
    (operand,) = A.to_types([operand], A.region_arg_dtypes(select_region)[:1])
    stypes = A.region_arg_dtypes(scatter_region)
    source, init = A.to_types([source, init], [stypes[1], stypes[0]])
    result = red.select_and_scatter(
        operand,
        source,
        init,
        window_dimensions=A.ints(op, "window_dimensions"),
        window_strides=A.ints(op, "window_strides"),
        padding=_padding(op),
        select=ev.region_body(select_region, env),
        scatter=ev.region_body(scatter_region, env),
    )
    return _results(op, [result])


def comparator_key(region: Any, inputs: list[np.ndarray]) -> tuple[int, str] | None:
    """(i, "LT"|"GT") when the comparator is `return compare(arg[2i], arg[2i+1], LT|GT)` (or with
    the arguments swapped) and the comparison is a total order on input i's elements."""
    block = region.blocks.first
    if block is None:
        return None
    ops = list(block.ops)
    if len(ops) != 2 or ops[0].name != "stablehlo.compare" or ops[1].name not in RETURN_OPS:
        return None
    cmp, ret = ops
    if list(ret.operands) != [cmp.results[0]]:
        return None
    direction = A.enum(cmp, "comparison_direction")
    if direction not in ("LT", "GT"):
        return None
    block_args = list(block.args)
    try:
        a, b = (block_args.index(v) for v in cmp.operands)
    except ValueError:
        return None
    if a // 2 != b // 2 or a == b:
        return None
    key = a // 2
    if a % 2 == 1:  # compare(arg[2i+1], arg[2i], d) sorts like the opposite direction
        direction = "GT" if direction == "LT" else "LT"
    dt = inputs[key].dtype
    if dtypes.is_complex(dt):
        return None
    if dtypes.is_float(dt) and A.enum(cmp, "compare_type") != "TOTALORDER":
        return None  # FLOAT comparisons treat -0 == +0 and NaN as unordered: not a total order
    return key, direction


@impl("stablehlo.sort")
def _sort(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    inputs = [np.asarray(a) for a in args]
    dimension = A.int_(op, "dimension", -1)
    return sort_by_region(ev, op.regions[0], inputs, dimension, A.bool_(op, "is_stable"), env)


def sort_by_region(
    ev: Any, region: Any, inputs: list[np.ndarray], dimension: int, is_stable: bool, env: dict
) -> list[Any]:
    """`sort` of `inputs` along `dimension` with `region` (a sort body or a comparator function's
    body) as the comparator; a recognized LT/GT comparator sorts with numpy."""
    key = comparator_key(region, inputs)
    if key is not None:

        def fn(*arrays: Any) -> tuple[Any, ...]:
            return tuple(ev.run_region(region, arrays, env))

        comparator = make_comparator(fn, key[1], key[0])
    else:
        comparator = ev.region_body(region, env)
    return list(red.sort(inputs, dimension, is_stable, comparator))


@impl("stablehlo.map")
def _map(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    """`map`: the computation applied elementwise, evaluated once on the whole arrays."""
    region = op.regions[0]
    inputs = A.to_types([np.asarray(a) for a in args], A.region_arg_dtypes(region))
    shape = A.result_shape(op, 0, list(inputs[0].shape) if inputs else None)
    body = ev.region_body(region, env)
    (out,) = body(*inputs)
    return _results(op, [np.broadcast_to(out, shape).copy()])
