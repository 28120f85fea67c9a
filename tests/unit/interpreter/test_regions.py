"""Region bodies: kinds, tree reduction and grouped folds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from stablehlo_py.semantics import regions as R


def test_make_body_normalises_results_to_tuples_of_arrays():
    body = R.make_body(lambda x, y: x + y)
    out = body(np.array(1), np.array(2))
    assert isinstance(out, tuple) and len(out) == 1
    assert isinstance(out[0], np.ndarray) and out[0].shape == () and int(out[0]) == 3
    assert R.body_kind(body) is None


def test_make_body_rejects_unknown_kind():
    with pytest.raises(ValueError, match="unknown body kind"):
        R.make_body(np.add, "sum")


@pytest.mark.parametrize("kind", R.KINDS)
def test_every_kind_has_a_body_and_ufuncs(kind):
    body = R.KIND_BODIES[kind]
    assert R.body_kind(body) == kind
    for dtype in (np.bool_, np.int8, np.uint32):
        x = np.array([0, 1, 1], dtype=dtype)
        y = np.array([1, 1, 0], dtype=dtype)
        out = body(x, y)[0]
        assert out.dtype == np.dtype(dtype)
        assert np.array_equal(out, R.kind_ufunc(kind, np.dtype(dtype))(x, y))


def test_bool_add_is_or_and_mul_is_and():
    t, f = np.array(True), np.array(False)
    assert bool(R.ADD(t, t)[0]) is True
    assert bool(R.MUL(t, f)[0]) is False


def test_tree_reduce_preserves_in_order_traversal():
    # string concatenation is associative but not commutative: order must be kept
    words = np.array([["a", "b", "c", "d", "e"]], dtype=object)
    body = R.make_body(lambda x, y: x + y)
    (out,) = R.tree_reduce(body, [words])
    assert out.tolist() == ["abcde"]


def test_reduce_axis_places_init_first_and_handles_empty():
    body = R.make_body(lambda x, y: x + y)
    words = np.array([["b", "c"]], dtype=object)
    (out,) = R.reduce_axis(body, [words], [np.array("a", dtype=object)])
    assert out.tolist() == ["abc"]
    (empty,) = R.reduce_axis(R.ADD, [np.zeros((3, 0), np.int32)], [np.array(7, np.int32)])
    assert empty.tolist() == [7, 7, 7] and empty.dtype == np.int32


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.int32, hnp.array_shapes(min_dims=1, max_dims=3, max_side=9)),
    st.sampled_from(["add", "mul", "max", "min", "and", "or", "xor"]),
)
def test_generic_tree_matches_kind_reduction(x, kind):
    generic = R.make_body(lambda a, b: R.kind_ufunc(kind, a.dtype)(a, b))
    init = np.array({"mul": 1, "min": 2**31 - 1, "and": -1}.get(kind, 0), np.int32)
    (fast,) = R.reduce_axis(R.KIND_BODIES[kind], [x], [init])
    (slow,) = R.reduce_axis(generic, [x], [init])
    assert fast.dtype == slow.dtype == np.int32
    assert np.array_equal(fast, slow)


def test_grouped_fold_applies_updates_in_order_per_target():
    result = np.zeros(3, dtype=np.int64)
    body = R.make_body(lambda acc, u: acc * 10 + u)  # order-sensitive
    targets = np.array([2, 0, 2, 2, 0])
    values = np.array([1, 2, 3, 4, 5])
    R.grouped_fold(body, [result], targets, [values])
    assert result.tolist() == [25, 0, 134]


def test_grouped_fold_variadic():
    a = np.zeros(2, dtype=np.int64)
    b = np.zeros(2, dtype=np.int64)
    body = R.make_body(lambda x0, x1, u0, u1: (x0 + u0, x1 - u1))
    R.grouped_fold(body, [a, b], np.array([1, 1, 0]), [np.array([1, 2, 3]), np.array([4, 5, 6])])
    assert a.tolist() == [3, 3] and b.tolist() == [-6, -9]


def test_comparators_carry_sort_keys():
    assert R.comparator_lt(1).sort_key == (1, "LT")
    assert R.comparator_gt().sort_key == (0, "GT")
    lt = R.comparator_lt()
    assert lt(np.array([1.0, -0.0]), np.array([2.0, 0.0]))[0].tolist() == [True, True]
