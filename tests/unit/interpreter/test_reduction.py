"""reduce, reduce_window, select_and_scatter, sort and top_k."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from stablehlo_py.semantics import reduction as Rd
from stablehlo_py.semantics import regions as R
from tests.unit.interpreter.helpers import draw_shape

I64 = np.int64


def a(values, dtype=I64):
    return np.array(values, dtype=dtype)


GENERIC_ADD = R.make_body(lambda x, y: x + y)


# --- reduce --------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [R.ADD, GENERIC_ADD], ids=["kind", "generic"])
def test_reduce_spec_example(body):
    (out,) = Rd.reduce([a([[0, 1, 2, 3, 4, 5]])], [a(0)], [1], body)
    assert out.tolist() == [15] and out.dtype == I64


def test_reduce_over_all_dimensions_returns_0d_array():
    (out,) = Rd.reduce([np.arange(6, dtype=np.int32).reshape(2, 3)], [a(1, np.int32)], [0, 1], R.MUL)
    assert isinstance(out, np.ndarray) and out.shape == () and int(out) == 0


def test_reduce_wraps_in_the_element_type():
    (out,) = Rd.reduce([a([100, 100, 100], np.int8)], [a(0, np.int8)], [0], R.ADD)
    assert out.dtype == np.int8 and int(out) == 44
    (out,) = Rd.reduce([a([100, 100, 100], np.int8)], [a(0, np.int8)], [0], GENERIC_ADD)
    assert out.dtype == np.int8 and int(out) == 44


def test_reduce_variadic_argmax():
    values = a([[3, 9, 9, 1], [5, 2, 8, 8]], np.float32)
    index = np.broadcast_to(np.arange(4, dtype=np.int32), values.shape)

    def argmax(v0, i0, v1, i1):
        take_left = (v0 > v1) | ((v0 == v1) & (i0 < i1))
        return np.where(take_left, v0, v1), np.where(take_left, i0, i1)

    vals, idx = Rd.reduce(
        [values, index], [a(-np.inf, np.float32), a(0, np.int32)], [1], R.make_body(argmax)
    )
    assert vals.tolist() == [9.0, 8.0] and idx.tolist() == [1, 2]
    assert vals.dtype == np.float32 and idx.dtype == np.int32


def test_reduce_max_propagates_nan_and_handles_bf16():
    x = np.array([[1.0, np.nan, 3.0]], ml_dtypes.bfloat16)
    (out,) = Rd.reduce([x], [np.array(-np.inf, ml_dtypes.bfloat16)], [1], R.MAX)
    assert out.dtype == ml_dtypes.bfloat16 and np.isnan(float(out[0]))


@settings(max_examples=80, deadline=None)
@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=4, max_side=6),
               elements=st.integers(-1000, 1000).map(float)),
    st.data(),
)
def test_reduce_generic_body_matches_numpy_sum(x, data):
    dims = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, max_size=x.ndim))
    (generic,) = Rd.reduce([x], [a(0.0, np.float64)], dims, GENERIC_ADD)
    (kind,) = Rd.reduce([x], [a(0.0, np.float64)], dims, R.ADD)
    expected = np.sum(x, axis=tuple(dims)) if dims else x
    # integer-valued floats: every summation order is exact
    assert np.array_equal(generic, expected)
    assert np.array_equal(kind, expected)


# --- reduce_window -------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [R.ADD, GENERIC_ADD], ids=["kind", "generic"])
def test_reduce_window_spec_example_and_issue_1662(body):
    x = a([[1, 2], [3, 4], [5, 6]])
    attrs = dict(
        window_strides=[4, 1], base_dilations=[2, 1], window_dilations=[3, 1],
        padding=[[2, 1], [0, 0]], body=body,
    )
    (out,) = Rd.reduce_window([x], [a(0)], window_dimensions=[2, 1], **attrs)
    assert out.tolist() == [[0, 0], [3, 4]]
    (out,) = Rd.reduce_window([x], [a(0)], window_dimensions=[3, 1], **attrs)
    assert out.tolist() == [[5, 6]]


def _naive_reduce_window(x, init, wd, ws, bd, wdil, padding, fn):
    from stablehlo_py.semantics.data_movement import pad

    padded = pad(x, np.asarray(init, x.dtype), [p[0] for p in padding], [p[1] for p in padding],
                 [b - 1 for b in bd])
    out_shape = []
    for p, w, dl, s in zip(padded.shape, wd, wdil, ws):
        e = (w - 1) * dl + 1
        out_shape.append(0 if p == 0 or e > p else (p - e) // s + 1)
    out = np.zeros(out_shape, x.dtype)
    for ri in itertools.product(*[range(n) for n in out_shape]):
        acc = init
        for wi in itertools.product(*[range(w) for w in wd]):
            acc = fn(acc, padded[tuple(r * s + i * dl for r, s, i, dl in zip(ri, ws, wi, wdil))])
        out[ri] = acc
    return out


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_reduce_window_matches_naive(data):
    rank, shape = draw_shape(data, 3, 1, 5)
    x = np.array(data.draw(st.lists(st.integers(-9, 9), min_size=int(np.prod(shape)),
                                    max_size=int(np.prod(shape)))), I64).reshape(shape)
    ints = lambda lo, hi: data.draw(st.lists(st.integers(lo, hi), min_size=rank, max_size=rank))  # noqa: E731
    wd, ws, bd, wdil = ints(1, 3), ints(1, 3), ints(1, 2), ints(1, 2)
    padding = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in range(rank)]
    which = data.draw(st.sampled_from(["max", "generic_max", "affine"]))
    fns = {"max": np.maximum, "generic_max": np.maximum, "affine": lambda acc, v: acc * 2 - v}
    body = R.MAX if which == "max" else R.make_body(fns[which])
    init = -100 if which != "affine" else 1
    (out,) = Rd.reduce_window([x], [a(init)], window_dimensions=wd, window_strides=ws,
                              base_dilations=bd, window_dilations=wdil, padding=padding, body=body)
    # "affine" is not associative: equality checks XLA's order (init, then the window row-major)
    expected = _naive_reduce_window(x, init, wd, ws, bd, wdil, padding, fns[which])
    assert np.array_equal(out, expected)


def test_reduce_window_variadic():
    x = a([[1, 5, 2, 7]], np.float32)
    i = a([[0, 1, 2, 3]], np.int32)

    def argmax(v0, i0, v1, i1):
        left = (v0 > v1) | ((v0 == v1) & (i0 < i1))
        return np.where(left, v0, v1), np.where(left, i0, i1)

    vals, idx = Rd.reduce_window(
        [x, i], [a(-np.inf, np.float32), a(-1, np.int32)], window_dimensions=[1, 2],
        window_strides=[1, 2], body=R.make_body(argmax),
    )
    assert vals.tolist() == [[5.0, 7.0]] and idx.tolist() == [[1, 3]]


# --- select_and_scatter --------------------------------------------------------------------------


GE = R.make_body(lambda x, y: x >= y)


@pytest.mark.parametrize("scatter", [R.ADD, GENERIC_ADD], ids=["kind", "generic"])
def test_select_and_scatter_spec_example(scatter):
    out = Rd.select_and_scatter(
        a([[1, 5], [2, 5], [3, 6], [4, 4]]), a([[5, 6], [7, 8]]), a(0),
        window_dimensions=[3, 1], window_strides=[2, 1], padding=[[0, 1], [0, 0]],
        select=GE, scatter=scatter,
    )
    assert out.tolist() == [[0, 0], [0, 0], [5, 14], [7, 0]]


def _naive_select_and_scatter(operand, source, init, wd, ws, padding, select, scatter):
    result = np.full(operand.shape, init, operand.dtype)
    for si in itertools.product(*[range(n) for n in source.shape]):
        sel = None
        for wi in itertools.product(*[range(w) for w in wd]):
            oi = tuple(s * st_ + w - p[0] for s, st_, w, p in zip(si, ws, wi, padding))
            if not all(0 <= i < n for i, n in zip(oi, operand.shape)):
                continue
            if sel is None or not select(operand[sel], operand[oi]):
                sel = oi
        if sel is not None:
            result[sel] = scatter(result[sel], source[si])
    return result


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_select_and_scatter_matches_naive(data):
    rank, shape = draw_shape(data, 2, 1, 5)
    operand = np.array(data.draw(st.lists(st.integers(0, 4), min_size=int(np.prod(shape)),
                                          max_size=int(np.prod(shape)))), I64).reshape(shape)
    wd = data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    ws = data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    padding = [data.draw(st.tuples(st.integers(0, 2), st.integers(0, 2))) for _ in range(rank)]
    grid = []
    for n, w, s, p in zip(shape, wd, ws, padding):
        size = n + p[0] + p[1]
        grid.append(0 if w > size else (size - w) // s + 1)
    source = np.arange(1, int(np.prod(grid)) + 1, dtype=I64).reshape(grid)
    strict = data.draw(st.booleans())
    select_fn = (lambda x, y: x > y) if strict else (lambda x, y: x >= y)
    scatter_fn = data.draw(st.sampled_from([np.add, lambda r, s: r * 3 + s]))
    out = Rd.select_and_scatter(
        operand, source, a(1), window_dimensions=wd, window_strides=ws, padding=padding,
        select=R.make_body(select_fn), scatter=R.make_body(scatter_fn),
    )
    expected = _naive_select_and_scatter(operand, source, 1, wd, ws, padding, select_fn, scatter_fn)
    assert np.array_equal(out, expected)


# --- sort ----------------------------------------------------------------------------------------


def test_sort_spec_example_stable_gt():
    gt = R.make_body(lambda x0, y0, x1, y1: x0 > y0)
    out0, out1 = Rd.sort([a([[1, 2, 3], [3, 2, 1]]), a([[3, 2, 1], [1, 2, 3]])], 0, True, gt)
    assert out0.tolist() == [[3, 2, 3], [1, 2, 1]]
    assert out1.tolist() == [[1, 2, 1], [3, 2, 3]]
    out0, out1 = Rd.sort([a([[1, 2, 3], [3, 2, 1]]), a([[3, 2, 1], [1, 2, 3]])], 0, True, R.comparator_gt())
    assert out0.tolist() == [[3, 2, 3], [1, 2, 1]]


def test_sort_issue_2440():
    x = a([[0, 1, 1, -3, -3, -2, 0], [4, -1, 3, 0, 4, 0, -3], [1, 0, 0, 0, 0, 2, 3],
           [-3, -4, -4, -2, 0, 3, 3], [0, 5, 2, -2, 0, -2, 0]])
    expected = [[-3, -4, -4, -3, -3, -2, -3], [0, -1, 0, -2, 0, -2, 0], [0, 0, 1, -2, 0, 0, 0],
                [1, 1, 2, 0, 0, 2, 3], [4, 5, 3, 0, 4, 3, 3]]
    lt = R.make_body(lambda x, y: x < y)
    for comparator in (lt, R.comparator_lt()):
        (out,) = Rd.sort([x], 0, False, comparator)
        assert out.tolist() == expected
    (neg,) = Rd.sort([x], -2, False, lt)
    assert neg.tolist() == expected


def test_total_order_key_orders_floats():
    values = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -1.5], np.float32)
    order = np.argsort(Rd.total_order_key(values), kind="stable")
    got = values[order]
    assert np.signbit(got[0]) and np.isnan(got[0])
    assert got[1] == -np.inf and got[2] == -1.5
    assert got[3] == 0 and np.signbit(got[3]) and got[4] == 0 and not np.signbit(got[4])
    assert got[5] == 1.5 and got[6] == np.inf and np.isnan(got[7]) and not np.signbit(got[7])
    for dtype in (np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2, np.float64):
        x = np.array([3.0, -2.0, -0.0, 0.0, -7.0], dtype)
        assert x[np.argsort(Rd.total_order_key(x), kind="stable")].astype(np.float64).tolist() == [
            -7.0, -2.0, -0.0, 0.0, 3.0]


def _jax_style_total_order_lt(x, y, ix=None, iy=None):
    """The comparator jax emits: canonicalise -0/NaN, then compare with a total order."""
    def canon(v):
        v = np.where(v == 0, np.zeros_like(v), v)
        return np.where(np.isnan(v), np.full_like(v, np.nan), v)

    return Rd.total_order_key(canon(x)) < Rd.total_order_key(canon(y))


@settings(max_examples=100, deadline=None)
@given(
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=17),
               elements=st.floats(width=32, allow_nan=True, allow_infinity=True)),
    st.data(),
)
def test_generic_merge_sort_matches_stable_argsort(x, data):
    dimension = data.draw(st.integers(-x.ndim, x.ndim - 1))
    index = np.broadcast_to(
        np.arange(x.shape[dimension]).reshape([-1 if d == dimension % x.ndim else 1 for d in range(x.ndim)]),
        x.shape,
    ).astype(np.int32)
    generic = R.make_body(lambda x0, y0, x1, y1: _jax_style_total_order_lt(x0, y0))
    got_x, got_i = Rd.sort([x, index], dimension, True, generic)
    key = Rd.total_order_key(np.where(np.isnan(x), np.float32(np.nan), np.where(x == 0, np.float32(0), x)))
    perm = np.argsort(key, axis=dimension, kind="stable")
    assert np.array_equal(got_i, np.take_along_axis(index, perm, axis=dimension))
    assert np.array_equal(got_x, np.take_along_axis(x, perm, axis=dimension), equal_nan=True)


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.int16, st.tuples(st.integers(1, 4), st.integers(0, 40)),
                  elements=st.integers(-5, 5)))
def test_recognised_comparator_matches_generic(x):
    idx = np.broadcast_to(np.arange(x.shape[1], dtype=np.int32), x.shape)
    for direction in ("LT", "GT"):
        fast = R.comparator_lt() if direction == "LT" else R.comparator_gt()
        slow = R.make_body((lambda x0, y0, x1, y1: x0 < y0) if direction == "LT" else (lambda x0, y0, x1, y1: x0 > y0))
        f = Rd.sort([x, idx], 1, True, fast)
        s = Rd.sort([x, idx], 1, True, slow)
        assert all(np.array_equal(p, q) for p, q in zip(f, s))


def test_sort_lexicographic_two_keys_generic():
    k0 = a([2, 1, 2, 1, 0])
    k1 = a([5, 9, 3, 1, 7])

    def lex(a0, b0, a1, b1):
        return (a0 < b0) | ((a0 == b0) & (a1 < b1))

    out0, out1 = Rd.sort([k0, k1], 0, False, R.make_body(lex))
    assert out0.tolist() == [0, 1, 1, 2, 2] and out1.tolist() == [7, 1, 9, 3, 5]


def test_top_k():
    values, indices = Rd.top_k(a([[1, 3, 3, 2, 0], [5, 4, 3, 2, 1]], np.float32), 3)
    assert values.tolist() == [[3, 3, 2], [5, 4, 3]]
    assert indices.tolist() == [[1, 2, 3], [0, 1, 2]] and indices.dtype == np.int32


def test_top_k_total_order_testdata():
    # testdata/top_k_float32_5_chlo.mlir: NaN above +Inf, -NaN below -Inf
    x = np.array([0x7F800000, 0x7FC00000, 0xFFC00000, 0xFF800000, 0x40400000], np.uint32).view(np.float32)
    values, indices = Rd.top_k(x, 5)
    assert values.view(np.uint32).tolist() == [0x7FC00000, 0x7F800000, 0x40400000, 0xFF800000, 0xFFC00000]
    assert indices.tolist() == [1, 0, 4, 3, 2]
    bools, idx = Rd.top_k(np.ones((5, 3), np.bool_), 2)
    assert bools.all() and idx.tolist() == [[0, 1]] * 5
