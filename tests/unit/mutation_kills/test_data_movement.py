"""stablehlo_py/semantics/data_movement.py: what the mutation run of the `semantics-data-movement`
group found unchecked.

Every expectation is computed independently of the module: naive element-by-element loops written
straight from the formulas of the spec (docs/spec.md of openxla/stablehlo: gather, scatter,
pad, dynamic_slice, dynamic_update_slice, broadcast_in_dim, iota, slice, ...; gather, scatter and
pad are in tests/unit/interpreter/helpers.py, shared with the interpreter's tests), with the edge
conventions of upstream's reference interpreter (stablehlo/reference/Ops.cpp): gather and
dynamic_slice clamp their start indices into the operand, scatter skips an update element whose
result index is out of bounds (element by element), pad removes elements for negative edge
padding. Scatter applies its updates in the lexicographic order of the update index (the
schedule upstream's interpreter uses), so a non-commutative body has one right answer.
Integer results are compared exactly."""

from __future__ import annotations

import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.semantics import data_movement as D
from stablehlo_py.semantics import regions as R
from tests.unit.interpreter.helpers import naive_gather, naive_pad, naive_scatter

I64 = np.int64


def arange(shape, dtype=I64, start=1):
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n, dtype=np.int64) + start).astype(dtype).reshape(shape)


# ---- broadcast_in_dim, concatenate, iota, reshape, reverse, slice, transpose --------------------


def test_broadcast_in_dim_with_unsorted_dimensions_and_size_one_dims():
    operand = arange((2, 1, 3))
    dims = [3, 1, 0]  # operand dim 0 -> result 3, 1 -> 1 (size 1, broadcast), 2 -> 0
    shape = (3, 4, 5, 2)
    got = D.broadcast_in_dim(operand, dims, shape)
    expected = np.zeros(shape, I64)
    for i in itertools.product(*[range(n) for n in shape]):
        j = tuple(0 if operand.shape[d] == 1 else i[dims[d]] for d in range(operand.ndim))
        expected[i] = operand[j]
    assert got.dtype == I64 and got.shape == shape
    assert np.array_equal(got, expected)
    # operand dims in an order that is neither sorted nor reversed in the result
    other = arange((2, 3, 4))
    got3 = D.broadcast_in_dim(other, [1, 2, 0], (4, 2, 3))
    for i in itertools.product(range(4), range(2), range(3)):
        assert got3[i] == other[i[1], i[2], i[0]]
    # a 0-d operand broadcasts to every element
    assert D.broadcast_in_dim(np.array(7, np.int8), [], (2, 3)).tolist() == [[7] * 3] * 2
    # dynamic_broadcast_in_dim reads the shape from a tensor
    got = D.dynamic_broadcast_in_dim(operand, np.array(shape), dims)
    assert np.array_equal(got, expected)


def test_concatenate_along_the_last_dimension():
    x, y = arange((2, 2)), arange((2, 3), start=10)
    got = D.concatenate([x.tolist(), y], 1)
    assert got.tolist() == [[1, 2, 10, 11, 12], [3, 4, 13, 14, 15]]


def test_iota_along_every_dimension_and_its_conversions():
    for d in range(3):
        got = D.iota(d, (2, 3, 4), np.int32)
        assert got.dtype == np.int32
        for i in itertools.product(range(2), range(3), range(4)):
            assert got[i] == i[d]
    # integers wrap modulo the type's width
    got = D.iota(0, (300,), np.int8)
    assert got.dtype == np.int8
    assert got.tolist() == [((i + 128) % 256) - 128 for i in range(300)]
    got = D.iota(0, (260,), np.uint8)
    assert got.tolist() == [i % 256 for i in range(260)]
    # floats round to nearest even: f16 has 11 significant bits, so 2049 -> 2048, 2051 -> 2052
    got = D.iota(0, (2052,), np.float16)
    assert got.dtype == np.float16
    assert [float(got[i]) for i in (2047, 2048, 2049, 2050, 2051)] == [
        2047.0, 2048.0, 2048.0, 2050.0, 2052.0,
    ]
    got = D.iota(0, (4,), ml_dtypes.bfloat16)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16) and got.astype(float).tolist() == [0, 1, 2, 3]
    got = D.iota(1, (1, 3), np.complex64)
    assert got.dtype == np.complex64 and got.tolist() == [[0j, 1 + 0j, 2 + 0j]]
    # bool: 0 -> false, every other -> true
    assert D.iota(0, (3,), np.bool_).tolist() == [False, True, True]
    # dynamic_iota reads the shape from a tensor
    got = D.dynamic_iota(np.array([2, 3]), 1, np.int16)
    assert got.dtype == np.int16 and got.tolist() == [[0, 1, 2]] * 2


def test_reshape_reverse_slice_transpose_against_loops():
    x = arange((2, 3, 4))
    assert D.reshape(x, (4, 6)).tolist() == [list(range(1 + 6 * r, 7 + 6 * r)) for r in range(4)]
    assert D.dynamic_reshape(x, np.array([3, 8])).tolist() == x.reshape(3, 8).tolist()
    rev = D.reverse(x, [0, 2])
    for i, j, k in itertools.product(range(2), range(3), range(4)):
        assert rev[i, j, k] == x[1 - i, j, 3 - k]
    assert D.reverse(x, []).tolist() == x.tolist()
    t = D.transpose(x, [2, 0, 1])
    assert t.shape == (4, 2, 3)
    for i, j, k in itertools.product(range(4), range(2), range(3)):
        assert t[i, j, k] == x[j, k, i]  # result[i] = operand[j] with i[d] = j[perm[d]]
    s = D.slice(x, [1, 0, 1], [2, 3, 4], [1, 2, 2])
    assert s.tolist() == [[[x[1, 0, 1], x[1, 0, 3]], [x[1, 2, 1], x[1, 2, 3]]]]
    assert D.slice(x, [0, 1, 2], [2, 3, 3]).tolist() == x[0:2, 1:3, 2:3].tolist()
    got = D.real_dynamic_slice(x, np.array([0, 1, 0]), np.array([2, 3, 4]), np.array([1, 1, 3]))
    assert got.tolist() == x[0:2, 1:3, 0:4:3].tolist()


def test_dimension_size_ops():
    x = np.zeros((2, 5, 3))
    got = D.get_dimension_size(x, 1)
    assert got.dtype == np.int32 and got.shape == () and int(got) == 5
    assert D.set_dimension_size(x, np.array(5, np.int32), 1).shape == (2, 5, 3)
    assert D.set_dimension_size(x, np.array(0, np.int32), 1).shape == (2, 5, 3)
    with pytest.raises(ValueError) as info:
        D.set_dimension_size(x, np.array(6, np.int32), 1)
    assert str(info.value) == "set_dimension_size: size 6 is outside [0, 5] for dimension 1"
    with pytest.raises(ValueError) as info:
        D.set_dimension_size(x, np.array(-1, np.int32), 2)
    assert str(info.value) == "set_dimension_size: size -1 is outside [0, 3] for dimension 2"


# ---- dynamic_slice / dynamic_update_slice -------------------------------------------------------


@pytest.mark.parametrize("starts", [(0, 0), (1, 2), (-3, 1), (2, 9), (-1, -1), (5, 5), (3, 4)])
def test_dynamic_slice_clamps_each_start(starts):
    x = arange((4, 6))
    sizes = (2, 3)
    got = D.dynamic_slice(x, [np.array(s, np.int32) for s in starts], sizes)
    lo = [min(max(s, 0), n - k) for s, n, k in zip(starts, x.shape, sizes)]
    expected = [[x[lo[0] + i, lo[1] + j] for j in range(3)] for i in range(2)]
    assert got.tolist() == expected
    # the start indices as one 1-d tensor, as the interpreter's dynamic forms pass them
    got = D.dynamic_slice(x, np.array(starts, np.int64), sizes)
    assert got.tolist() == expected


@pytest.mark.parametrize("starts", [(0, 0), (1, 2), (-3, 1), (2, 9), (5, 5), (2, 3)])
def test_dynamic_update_slice_clamps_each_start(starts):
    x = arange((4, 6))
    update = -arange((2, 3))
    got = D.dynamic_update_slice(x, update, [np.array(s, np.int16) for s in starts])
    lo = [min(max(s, 0), n - k) for s, n, k in zip(starts, x.shape, update.shape)]
    expected = x.copy()
    for i, j in itertools.product(range(2), range(3)):
        expected[lo[0] + i, lo[1] + j] = update[i, j]
    assert got.tolist() == expected.tolist()
    assert x.tolist() == arange((4, 6)).tolist()  # the operand is not written


def test_unsigned_start_indices_above_int64_saturate():
    x = arange((5,))
    huge = np.array(2**64 - 1, np.uint64)
    assert D.dynamic_slice(x, [huge], [2]).tolist() == [4, 5]
    assert D.dynamic_update_slice(x, np.array([0, 0]), [huge]).tolist() == [1, 2, 3, 0, 0]
    got = D.gather(
        x,
        np.array([[2**63], [1]], np.uint64),
        offset_dims=[1],
        collapsed_slice_dims=[],
        start_index_map=[0],
        index_vector_dim=1,
        slice_sizes=[2],
    )
    assert got.tolist() == [[4, 5], [2, 3]]
    # in int64's range, an unsigned index is its value
    assert D.dynamic_slice(x, [np.array(1, np.uint64)], [2]).tolist() == [2, 3]


# ---- pad ---------------------------------------------------------------------------------------


PAD_CASES = [
    ((3,), [0], [0], [0]),
    ((3,), [2], [1], [0]),
    ((3,), [1], [2], [2]),
    ((3,), [-1], [0], [1]),
    ((3,), [-2], [-1], [1]),
    ((4,), [-5], [2], [0]),  # everything removed, padding kept
    ((4,), [1], [-6], [0]),  # the shape goes to 0
    ((2, 3), [1, -1], [-1, 2], [1, 0]),
    ((2, 3), [0, 1], [1, -2], [0, 3]),
    ((3, 2), [-3, 0], [1, 1], [2, 1]),
    ((1, 4), [0, -2], [0, -3], [0, 1]),
    ((2, 2, 2), [1, 0, -1], [0, 1, 1], [1, 1, 0]),
    ((0, 2), [1, 1], [1, 0], [2, 0]),
]


@pytest.mark.parametrize("shape, low, high, interior", PAD_CASES)
def test_pad_matches_the_spec_loop(shape, low, high, interior):
    x = arange(shape, np.int32)
    got = D.pad(x, np.array(-7, np.int32), low, high, interior)
    expected = naive_pad(x, -7, low, high, interior)
    assert got.dtype == np.int32
    assert got.shape == expected.shape
    assert got.tolist() == expected.tolist()
    got = D.dynamic_pad(x, np.array(-7), np.array(low), np.array(high), np.array(interior))
    assert got.tolist() == expected.tolist()


def test_pad_result_has_the_operand_type_whatever_the_padding_value():
    got = D.pad(np.array([1, 2], np.int8), 0, [1], [1], [0])
    assert got.dtype == np.int8 and got.tolist() == [0, 1, 2, 0]
    got = D.pad(np.array([1.0], np.float32), np.float64(0.1), [1], [0], [0])
    assert got.dtype == np.float32 and got[0] == np.float32(0.1)


def test_attribute_lists_of_the_wrong_length_are_refused_not_truncated():
    x = arange((4, 6))
    with pytest.raises(ValueError):
        D.slice(x, [0, 0], [1, 1], [1])
    with pytest.raises(ValueError):
        D.dynamic_slice(x, np.array([0, 0]), [2])
    with pytest.raises(ValueError):
        D.dynamic_update_slice(x, np.zeros(6, I64), np.array([0, 0]))


def test_pad_of_floats_keeps_the_padding_value_and_type():
    x = np.array([1.5, 2.5], np.float16)
    got = D.pad(x, np.array(np.nan, np.float16), [1], [0], [1])
    assert got.dtype == np.float16
    assert np.isnan(got[0]) and np.isnan(got[2]) and got[[1, 3]].tolist() == [1.5, 2.5]


# ---- gather ------------------------------------------------------------------------------------


GATHER_CASES = [
    # (operand shape, indices, kwargs)
    (
        (3, 4, 2),
        [[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [-4, 9]]],
        dict(offset_dims=[2, 3], collapsed_slice_dims=[0], start_index_map=[1, 0],
             index_vector_dim=2, slice_sizes=[1, 2, 2]),
    ),
    (
        (5, 4),
        [3, -1, 4, 0, 7],
        dict(offset_dims=[1, 2], collapsed_slice_dims=[], start_index_map=[0],
             index_vector_dim=1, slice_sizes=[2, 3]),
    ),
    (  # index_vector_dim = 0: the vectors are the columns
        (4, 5),
        [[1, 3, -2], [4, 0, 2]],
        dict(offset_dims=[0], collapsed_slice_dims=[0], start_index_map=[0, 1],
             index_vector_dim=0, slice_sizes=[1, 2]),
    ),
    (  # offset dims before the batch dims, several collapsed
        (3, 4, 5),
        [[2, 1], [0, 3], [1, 4]],
        dict(offset_dims=[0], collapsed_slice_dims=[0, 2], start_index_map=[0, 2],
             index_vector_dim=1, slice_sizes=[1, 3, 1]),
    ),
    (  # batching dims, index_vector_dim in the middle: one batching dim before it, one after
        (2, 3, 4, 5),
        np.array([[[1, 0], [3, 2], [0, 4]], [[2, 1], [1, 1], [9, -9]]]).transpose(0, 2, 1),
        dict(offset_dims=[2], collapsed_slice_dims=[2], start_index_map=[2, 3],
             index_vector_dim=1, slice_sizes=[1, 1, 1, 2], operand_batching_dims=[0, 1],
             start_indices_batching_dims=[0, 2]),
    ),
    (  # batching dims in the other order, index_vector_dim last
        (3, 2, 6),
        [[[1], [5]], [[4], [0]], [[2], [3]]],
        dict(offset_dims=[2], collapsed_slice_dims=[], start_index_map=[2],
             index_vector_dim=2, slice_sizes=[1, 1, 3], operand_batching_dims=[0, 1],
             start_indices_batching_dims=[0, 1]),
    ),
    (  # index_vector_dim = rank(start_indices): scalar indices
        (6, 2),
        [[5, 0], [2, 3]],
        dict(offset_dims=[2], collapsed_slice_dims=[0], start_index_map=[0],
             index_vector_dim=2, slice_sizes=[1, 2]),
    ),
    (  # batching dim with start_indices_batching_dims after index_vector_dim = 0
        (2, 5),
        [[4, 1, 3], [0, 2, 9]],
        dict(offset_dims=[2], collapsed_slice_dims=[], start_index_map=[1],
             index_vector_dim=0, slice_sizes=[1, 2], operand_batching_dims=[0],
             start_indices_batching_dims=[1]),
    ),
]


def _gather_case(case):
    shape, indices, kw = case
    if kw.get("operand_batching_dims") == [0] and kw["index_vector_dim"] == 0:
        # indices (1, 2, 3): index_vector_dim 0 of size 1, batch dims (2, 3); operand batch 2
        indices = np.array(indices)[None]
    return arange(shape), np.asarray(indices), kw


@pytest.mark.parametrize("case", range(len(GATHER_CASES)))
def test_gather_matches_the_spec_loop(case):
    operand, indices, kw = _gather_case(GATHER_CASES[case])
    expected = naive_gather(operand, indices, **kw)
    got = D.gather(operand, indices, **kw)
    assert got.shape == expected.shape
    assert got.tolist() == expected.tolist()
    got = D.dynamic_gather(
        operand, indices, np.array(kw["slice_sizes"]),
        **{k: v for k, v in kw.items() if k != "slice_sizes"},
    )
    assert got.tolist() == expected.tolist()


def test_gather_from_a_0d_operand():
    got = D.gather(
        np.array(3.5),
        np.zeros((2, 0), I64),
        offset_dims=[],
        collapsed_slice_dims=[],
        start_index_map=[],
        index_vector_dim=1,
        slice_sizes=[],
    )
    assert got.shape == (2,) and got.tolist() == [3.5, 3.5]


# ---- scatter -----------------------------------------------------------------------------------


def _second_after_double(cur, upd):
    return (cur * 2 + upd,)


SCATTER_CASES = [
    # (input shape, indices, update shape, kwargs)
    (
        (3, 4, 2),
        [[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]],
        (2, 3, 2, 2),
        dict(update_window_dims=[2, 3], inserted_window_dims=[0],
             scatter_dims_to_operand_dims=[1, 0], index_vector_dim=2),
    ),
    (  # repeated targets, out-of-bounds ones (negative, past the end, and a window over the edge)
        (6,),
        [[1], [1], [4], [-1], [5], [1], [6]],
        (7, 2),
        dict(update_window_dims=[1], inserted_window_dims=[],
             scatter_dims_to_operand_dims=[0], index_vector_dim=1),
    ),
    (  # scalar indices (index_vector_dim = rank), inserted dim 0
        (4, 3),
        [[3, 0], [0, 3], [-1, 2]],
        (3, 2, 3),
        dict(update_window_dims=[2], inserted_window_dims=[0],
             scatter_dims_to_operand_dims=[0], index_vector_dim=2),
    ),
    (  # index_vector_dim = 0, window dim before the scatter dims
        (5, 4),
        [[0, 4, 3, 1], [1, 0, 3, 2]],
        (2, 4),
        dict(update_window_dims=[0], inserted_window_dims=[0],
             scatter_dims_to_operand_dims=[0, 1], index_vector_dim=0),
    ),
    (  # batching dims around index_vector_dim
        (2, 3, 4, 5),
        np.array([[[1, 0], [3, 2], [0, 4]], [[2, 1], [1, 1], [3, 5]]]).transpose(0, 2, 1),
        (2, 3, 2),
        dict(update_window_dims=[2], inserted_window_dims=[2],
             scatter_dims_to_operand_dims=[2, 3], index_vector_dim=1,
             input_batching_dims=[0, 1], scatter_indices_batching_dims=[0, 2]),
    ),
    (  # a batching dim after index_vector_dim = 0
        (2, 5),
        [[[4, 1, 3], [0, 2, 4]]],
        (2, 3, 2),
        dict(update_window_dims=[2], inserted_window_dims=[],
             scatter_dims_to_operand_dims=[1], index_vector_dim=0,
             input_batching_dims=[0], scatter_indices_batching_dims=[1]),
    ),
]


@pytest.mark.parametrize("case", range(len(SCATTER_CASES)))
@pytest.mark.parametrize("body_name", ["add_kind", "add_generic", "max_kind", "non_commutative"])
def test_scatter_matches_the_spec_loop(case, body_name):
    shape, indices, up_shape, kw = SCATTER_CASES[case]
    inputs = arange(shape, np.int32)
    updates = (arange(up_shape, np.int32, start=-5) * 3) % 17 - 4
    body, scalar = {
        "add_kind": (R.ADD, lambda c, u: (c + u,)),
        "add_generic": (R.make_body(lambda c, u: c + u), lambda c, u: (c + u,)),
        "max_kind": (R.MAX, lambda c, u: (max(c, u),)),
        "non_commutative": (R.make_body(lambda c, u: c * 2 + u), _second_after_double),
    }[body_name]
    expected = naive_scatter([inputs], indices, [updates], body=scalar, **kw)
    (got,) = D.scatter([inputs], np.asarray(indices), [updates], update_computation=body, **kw)
    assert got.dtype == np.int32
    assert got.tolist() == expected[0].tolist()
    assert inputs.tolist() == arange(shape, np.int32).tolist()


def test_scatter_variadic_generic_body_in_lexicographic_order():
    # two results updated together: (last update index that hit, running count)
    inputs = [np.full((4,), -1, np.int64), np.zeros((4,), np.int32)]
    indices = np.array([[2], [0], [2], [9], [2], [0]])
    updates = [np.arange(6, dtype=np.int64), np.ones(6, np.int32)]
    body = R.make_body(lambda c0, c1, u0, u1: (c0 * 10 + u0, c1 + u1))
    got = D.scatter(
        inputs, indices, updates, update_window_dims=[], inserted_window_dims=[0],
        scatter_dims_to_operand_dims=[0], index_vector_dim=1, update_computation=body,
    )
    expected = naive_scatter(
        inputs, indices, updates, [], [0], [0], 1,
        lambda c0, c1, u0, u1: (c0 * 10 + u0, c1 + u1),
    )
    assert [g.tolist() for g in got] == [e.tolist() for e in expected]
    assert got[0].tolist() == [-1 * 100 + 1 * 10 + 5, -1, ((-10 + 0) * 10 + 2) * 10 + 4, -1]
    assert got[1].dtype == np.int32 and got[1].tolist() == [2, 0, 3, 0]


def test_scatter_into_a_0d_input():
    for body in (R.ADD, R.make_body(lambda c, u: c * 2 + u)):
        (got,) = D.scatter(
            [np.array(1, np.int64)], np.zeros((3, 0), I64), [np.array([5, 6, 7])],
            update_window_dims=[], inserted_window_dims=[], scatter_dims_to_operand_dims=[],
            index_vector_dim=1, update_computation=body,
        )
        assert got.shape == ()
        assert int(got) == (19 if body is R.ADD else ((1 * 2 + 5) * 2 + 6) * 2 + 7)


def test_scatter_converts_updates_to_the_result_type():
    (got,) = D.scatter(
        [np.zeros(3, np.int8)], np.array([[0], [2], [0]]), [[100, 27, 100]],
        update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0],
        index_vector_dim=1, update_computation=R.ADD,
    )
    assert got.dtype == np.int8 and got.tolist() == [-56, 0, 27]  # 200 wraps in i8
    # i64 sums are exact beyond float64's 2**53 (no detour through a float)
    (got,) = D.scatter(
        [np.array([1, 0], np.int64)], np.array([[0], [0]]), [[2**53, 2**60 + 1]],
        update_window_dims=[], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0],
        index_vector_dim=1, update_computation=R.ADD,
    )
    assert got.tolist() == [2**53 + 2**60 + 2, 0]


def test_scatter_float_sum_in_order_and_without_warnings():
    # inf + -inf is NaN, with no floating-point warning; 1e16 + 1 + 1 - 1e16 in order is 0
    inputs = np.array([np.inf, 1e16], np.float64)
    indices = np.array([[0], [1], [1], [1], [0]])
    updates = np.array([1.0, 1.0, 1.0, -1e16, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            (got,) = D.scatter(
                [inputs], indices, [updates], update_window_dims=[], inserted_window_dims=[0],
                scatter_dims_to_operand_dims=[0], index_vector_dim=1, update_computation=R.ADD,
            )
    assert np.isnan(got[0]) and got[1] == 0.0


def test_scatter_max_of_zeros_is_positive_zero():
    (got,) = D.scatter(
        [np.array([-0.0, 0.0], np.float32)], np.array([[0], [1]]),
        [np.array([0.0, -0.0], np.float32)], update_window_dims=[], inserted_window_dims=[0],
        scatter_dims_to_operand_dims=[0], index_vector_dim=1, update_computation=R.MAX,
    )
    assert got.tolist() == [0.0, 0.0] and not np.signbit(got).any()
