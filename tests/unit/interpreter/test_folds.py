"""Left folds in XLA's order (semantics/folds.py): init first, then each window's or reduced
dimension's elements in row-major order, one body call per element over all output positions."""

from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest
from stablehlo_py.semantics import folds as F
from stablehlo_py.semantics import reduction as Rd
from stablehlo_py.semantics import regions as R

CONCAT = R.make_body(lambda x, y: x + y)  # strings: neither commutative nor reordered silently


class Counting:
    """A body that counts its calls (and keeps `kind`, so the fast paths stay observable)."""

    def __init__(self, fn, kind=None):
        self.body = R.make_body(fn, kind)
        self.kind = kind
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return self.body(*args)


def words(shape):
    n = int(np.prod(shape))
    return np.array([f"<{i}>" for i in range(n)], dtype=object).reshape(shape)


def test_reduce_window_folds_each_window_init_first_row_major():
    x = words((3, 4))
    (out,) = Rd.reduce_window([x], [np.array("I", dtype=object)], window_dimensions=[2, 2],
                              window_strides=[1, 2], body=CONCAT)
    assert out.tolist() == [["I<0><1><4><5>", "I<2><3><6><7>"],
                            ["I<4><5><8><9>", "I<6><7><10><11>"]]


def test_reduce_window_padding_and_dilations_fold_in_window_order():
    x = words((3,))
    (out,) = Rd.reduce_window([x], [np.array("_", dtype=object)], window_dimensions=[3],
                              base_dilations=[2], window_dilations=[2], padding=[[1, 0]],
                              body=CONCAT)
    # padded (init, base holes): _ <0> _ <1> _ <2>; windows read positions (0,2,4) and (1,3,5)
    assert out.tolist() == ["____", "_<0><1><2>"]


def test_reduce_window_calls_the_body_once_per_window_element():
    x = np.arange(5 * 6 * 7, dtype=np.float32).reshape(5, 6, 7)
    body = Counting(lambda a, b: np.logaddexp(a, b).astype(a.dtype))
    (out,) = Rd.reduce_window([x], [np.array(-np.inf, np.float32)], window_dimensions=[2, 3, 1],
                              body=body)
    assert body.calls == 6 and out.shape == (4, 4, 7)
    kind = Counting(np.add, "add")
    Rd.reduce_window([x], [np.array(0, np.float32)], window_dimensions=[2, 3, 1], body=kind)
    assert kind.calls == 0  # a body with a kind runs as its ufunc


def test_reduce_folds_generic_bodies_in_order_and_trees_long_ones():
    x = words((2, 5))
    (out,) = Rd.reduce([x], [np.array("I", dtype=object)], [1], CONCAT)
    assert out.tolist() == ["I<0><1><2><3><4>", "I<5><6><7><8><9>"]
    n = F.FOLD_LIMIT + 3
    long = words((n,))
    body = Counting(lambda a, b: a + b)
    (out,) = Rd.reduce([long], [np.array("I", dtype=object)], [0], body)
    assert out.tolist() == "I" + "".join(f"<{i}>" for i in range(n))  # the tree keeps the order
    assert body.calls == int(np.ceil(np.log2(n))) + 1


def test_reduce_over_several_dimensions_is_row_major():
    x = words((2, 3, 2))
    (out,) = Rd.reduce([x], [np.array("I", dtype=object)], [0, 2], CONCAT)
    assert out.tolist() == ["I<0><1><6><7>", "I<2><3><8><9>", "I<4><5><10><11>"]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.complex64])
@pytest.mark.parametrize("kind", ["add", "mul"])
def test_short_float_reductions_are_exact_left_folds(dtype, kind):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, F.FOLD_LIMIT)) * 1.3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=x.shape)
    x = x.astype(dtype)
    init = np.array(1 if kind == "mul" else 0, dtype)
    uf = R.kind_ufunc(kind, x.dtype)
    expected = np.full(40, init, dtype)
    for i in range(x.shape[1]):
        expected = uf(expected, x[:, i]).astype(dtype)
    (fast,) = Rd.reduce([x], [init], [1], R.KIND_BODIES[kind])
    (generic,) = Rd.reduce([x], [init], [1], R.make_body(lambda a, b: uf(a, b).astype(dtype)))
    assert fast.dtype == generic.dtype == np.dtype(dtype)
    assert fast.tobytes() == expected.tobytes() == generic.tobytes()


def test_reduce_window_matches_an_explicit_fold_in_f16():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(8, 9)).astype(np.float16)

    def logaddexp(a, b):
        return np.logaddexp(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)

    (out,) = Rd.reduce_window([x], [np.array(-np.inf, np.float16)], window_dimensions=[1, 9],
                              padding=[[0, 0], [8, 0]], body=R.make_body(logaddexp))
    expected = np.empty_like(x)
    for r, c in itertools.product(range(8), range(9)):
        acc = np.float16(-np.inf)
        for v in [np.float16(-np.inf)] * (8 - c) + list(x[r, : c + 1]):
            acc = logaddexp(np.asarray(acc), np.asarray(v))
        expected[r, c] = acc
    assert out.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("kind", "dtype", "n", "schedule"),
    [
        ("add", np.float32, F.FOLD_LIMIT, "steps"),
        ("mul", np.complex64, 3, "steps"),
        ("mul", np.complex64, F.FOLD_LIMIT + 1, "tree"),  # the body runs: XLA's fused product
        ("add", np.complex64, F.FOLD_LIMIT + 1, "ufunc"),
        ("add", np.float32, F.FOLD_LIMIT + 1, "ufunc"),
        ("add", np.int32, 5, "ufunc"),
        ("max", np.float32, 5, "ufunc"),
        (None, np.float32, F.FOLD_LIMIT, "steps"),
        (None, np.float32, F.FOLD_LIMIT + 1, "tree"),
    ],
)
def test_reduce_schedule_table(kind, dtype, n, schedule):
    body = R.KIND_BODIES[kind] if kind else R.make_body(np.add)
    assert F.reduce_schedule(body, [np.dtype(dtype)], n) == schedule


def test_empty_windows_and_axes_give_the_init_values():
    (out,) = Rd.reduce([np.zeros((2, 0), np.float32)], [np.array(5, np.float32)], [1], CONCAT)
    assert out.tolist() == [5.0, 5.0]
    (out,) = Rd.reduce_window([np.zeros((2,), np.float32)], [np.array(7, np.float32)],
                              window_dimensions=[3], body=CONCAT)
    assert out.shape == (0,)


def test_a_body_with_the_wrong_number_of_results_is_refused():
    bad = R.make_body(lambda a, b: (a, b))
    with pytest.raises(ValueError, match="returned 2 values for 1 accumulators"):
        Rd.reduce_window([np.ones(3, np.float32)], [np.array(0, np.float32)],
                         window_dimensions=[2], body=bad)


def test_complex_products_run_the_body_not_numpys_product():
    assert F.ufunc_kind(R.MUL, [np.dtype(np.float32)]) == "mul"
    assert F.ufunc_kind(R.MUL, [np.dtype(np.complex64)]) is None
    assert F.ufunc_kind(R.ADD, [np.dtype(np.complex64)]) == "add"
    z = (np.arange(6) + 1j * np.arange(6, 0, -1)).astype(np.complex64)
    mul = Counting(np.multiply, "mul")
    Rd.reduce_window([z], [np.array(1, np.complex64)], window_dimensions=[3], body=mul)
    assert mul.calls == 3
    mul.calls = 0
    Rd.select_and_scatter(np.arange(4, dtype=np.float32), np.ones(3, np.complex64),
                          np.array(1, np.complex64), window_dimensions=[2],
                          select=R.make_body(lambda a, b: a >= b), scatter=mul)
    assert mul.calls > 0


def _special_values(d):
    """Finite, infinite, signed-zero and NaN values (NaNs of both signs, with payloads)."""
    base = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 3.25, 1e-3, 65504.0, -7.0],
                    dtype=np.float64)
    rng = np.random.default_rng(7)
    vals = np.concatenate([base, rng.normal(size=40) * 1e3]).astype(d)
    if d.kind == "f":
        u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[d.itemsize]
        top = 1 << (8 * d.itemsize - 1)
        nans = np.array([top | (top >> 1) | 5, (top >> 1) | (top >> 2) | 3], dtype=u).view(d)
        vals = np.concatenate([vals, nans])
    return vals


@pytest.mark.parametrize("d", sorted(F.ACCUMULATE_DTYPES, key=str), ids=str)
@pytest.mark.parametrize("kind", ["add", "mul", "max", "min"])
@pytest.mark.parametrize("n", [1, 2, 5, 16, 32])
def test_accumulate_fold_is_the_left_fold_bit_for_bit(d, kind, n):
    rng = np.random.default_rng(n)
    vals = _special_values(np.dtype(np.float64))
    with np.errstate(all="ignore"):
        if d.kind == "c":
            re, im = rng.choice(vals, size=(2, 37, n))
            x = (re + 1j * im).astype(d)
        else:
            x = rng.choice(_special_values(d), size=(37, n)).astype(d)
    init = x.reshape(-1)[:1].reshape(())
    body = R.make_body(lambda a, b: a, kind)
    if F.ufunc_kind(body, [d]) is None:
        assert F.accumulate_fold(body, [x], [init]) is None
        return
    finite = np.where(np.isfinite(x), x, 1).astype(d)  # no NaN on the way: accumulated
    for xs in (x, finite):
        with np.errstate(all="ignore"):
            folded = F.accumulate_fold(body, [xs], [init])
            (want,) = F.fold_left(body, [init], ((xs[:, i],) for i in range(n)), (37,))
        if folded is None:  # a NaN came out: the caller folds step by step
            assert np.isnan(want).any()
            continue
        (got,) = folded
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("kind", ["add", "mul"])
def test_prepared_kind_reduce_matches_reduce_last_axis(kind):
    rng = np.random.default_rng(3)
    d = np.dtype(np.float32)
    x = rng.choice(_special_values(d), size=(40, 9)).astype(d)
    init = np.asarray(np.float32(0.5))
    fn = F.prepare_kind_reduce(kind, d, 9)
    assert fn is not None
    body = R.make_body(lambda a, b: a, kind)
    with np.errstate(all="ignore"):
        (want,) = F.reduce_last_axis(body, [x], [init])
        (steps,) = F.fold_left(body, [init], ((x[:, i],) for i in range(9)), (40,))
        got = fn(x, init)
    assert got.tobytes() == want.tobytes() == steps.tobytes()
