"""Data-movement semantics: spec examples, conformance values, naive-loop references."""

from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stablehlo_py.semantics import data_movement as D
from stablehlo_py.semantics import regions as R
from tests.unit.interpreter.helpers import draw_shape, naive_gather, naive_pad, naive_scatter

I64 = np.int64


def a(values, dtype=I64):
    return np.array(values, dtype=dtype)


# --- spec examples and conformance values (transcribed from spec.md / interpret/*.mlir) ----------


def test_broadcast_in_dim_spec_example():
    out = D.broadcast_in_dim(a([[1, 2, 3]], np.int32), [2, 1], (2, 3, 2))
    assert out.tolist() == [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]
    assert out.dtype == np.int32 and out.flags.writeable


def test_dynamic_broadcast_in_dim_conformance():
    out = D.dynamic_broadcast_in_dim(a([[1], [2], [3]]), a([3, 2, 2]), [0, 2], [1], [0])
    assert out.tolist() == [[[1, 1], [1, 1]], [[2, 2], [2, 2]], [[3, 3], [3, 3]]]


def test_concatenate_spec_example():
    out = D.concatenate([a([[1, 2], [3, 4], [5, 6]]), a([[7, 8]])], 0)
    assert out.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]


def test_dynamic_slice_spec_and_conformance():
    operand = a([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]], np.int32)
    assert D.dynamic_slice(operand, [a(-1), a(3)], [2, 2]).tolist() == [[1, 1], [1, 1]]
    ones = np.ones((3, 3), I64)
    assert D.dynamic_slice(ones, [a(3), a(3)], [3, 3]).tolist() == ones.tolist()


def test_dynamic_update_slice_spec_and_conformance():
    operand = a([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]], np.int32)
    out = D.dynamic_update_slice(operand, np.ones((2, 2), np.int32), [a(-1), a(3)])
    assert out.tolist() == [[1] * 4] * 4
    assert operand[0, 2] == 0  # inputs are not modified
    operand = a([[1, 1, 1, 1], [1, 1, 1, 1], [1, 2, 2, 2], [1, 2, 2, 2]])
    out = D.dynamic_update_slice(operand, np.ones((2, 3), I64), [a(4), a(4)])
    assert out.tolist() == [[1] * 4] * 4


def test_iota_spec_examples_and_types():
    assert D.iota(0, (4, 5), np.int32).tolist() == [[i] * 5 for i in range(4)]
    assert D.iota(1, (4, 5), np.int32).tolist() == [list(range(5))] * 4
    assert D.iota(0, (20,), ml_dtypes.int4).astype(np.int64).tolist()[6:10] == [6, 7, -8, -7]
    assert D.iota(0, (3,), np.complex64).tolist() == [0j, 1 + 0j, 2 + 0j]
    bf = D.iota(0, (258,), ml_dtypes.bfloat16)
    assert bf.dtype == ml_dtypes.bfloat16 and float(bf[257]) == 256.0  # 257 rounds to even
    assert D.dynamic_iota(a([3, 4]), 1, I64).tolist() == [[0, 1, 2, 3]] * 3


def test_pad_spec_example_and_negative_padding():
    out = D.pad(a([[1, 2, 3], [4, 5, 6]], np.int32), a(0, np.int32), [0, 1], [2, 1], [1, 2])
    assert out.tolist() == [
        [0, 1, 0, 0, 2, 0, 0, 3, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 4, 0, 0, 5, 0, 0, 6, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0, 0],
    ]
    operand = a([[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0], [0, 0, 0, 0]])
    expected = [
        [-1, -1, -1, -1, -1],
        [-1, 0, -1, 0, -1],
        [-1, 1, -1, 2, -1],
        [-1, 3, -1, 4, -1],
        [-1, 5, -1, 6, -1],
        [-1, 0, -1, 0, -1],
        [-1, -1, -1, -1, -1],
    ]
    assert D.pad(operand, a(-1), [1, -1], [1, -1], [0, 1]).tolist() == expected
    assert D.dynamic_pad(operand, a(-1), a([1, -1]), a([1, -1]), a([0, 1])).tolist() == expected


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_pad_matches_naive(data):
    rank, shape = draw_shape(data, 3, 0, 4)
    operand = np.arange(int(np.prod(shape)), dtype=I64).reshape(shape) + 1
    low = data.draw(st.lists(st.integers(-3, 3), min_size=rank, max_size=rank))
    high = data.draw(st.lists(st.integers(-3, 3), min_size=rank, max_size=rank))
    interior = data.draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank))
    sizes = [lo + n + max(n - 1, 0) * it + hi for n, lo, hi, it in zip(shape, low, high, interior)]
    if min(sizes) < 0:
        return
    out = D.pad(operand, a(-1), low, high, interior)
    assert np.array_equal(out, naive_pad(operand, -1, low, high, interior))


def test_reshape_reverse_slice_transpose():
    assert D.reshape(a([[1, 2, 3], [4, 5, 6]]), (3, 2)).tolist() == [[1, 2], [3, 4], [5, 6]]
    assert D.dynamic_reshape(a([[1, 2, 3, 4, 5, 6]]), a([6])).tolist() == [1, 2, 3, 4, 5, 6]
    assert D.reverse(a([[1, 2], [3, 4], [5, 6]]), [1]).tolist() == [[2, 1], [4, 3], [6, 5]]
    assert D.reverse(a([[1, 2], [3, 4], [5, 6]]), [1, 0]).tolist() == [[6, 5], [4, 3], [2, 1]]
    operand = a([[0, 0, 1, 0, 0, 1], [0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]])
    assert D.slice(operand, [0, 2], [3, 6], [2, 3]).tolist() == [[1, 1], [1, 1]]
    operand = a([[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    assert D.slice(operand, [1, 2], [3, 4], [1, 1]).tolist() == [[1, 1], [1, 1]]
    assert D.real_dynamic_slice(operand, a([1, 2]), a([3, 4]), a([1, 1])).tolist() == [[1, 1]] * 2
    x = a([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]], np.int32)
    assert D.transpose(x, [1, 0, 2]).tolist() == [[[1, 2], [7, 8]], [[3, 4], [9, 10]], [[5, 6], [11, 12]]]
    assert D.transpose(x, [2, 1, 0]).tolist() == [[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]


def test_dimension_size_ops():
    x = a([[1, 2, 3], [4, 5, 6]])
    out = D.get_dimension_size(x, 1)
    assert isinstance(out, np.ndarray) and out.dtype == np.int32 and int(out) == 3
    assert np.array_equal(D.set_dimension_size(x, a(2, np.int32), 1), x)
    with pytest.raises(ValueError, match="outside"):
        D.set_dimension_size(x, a(4, np.int32), 1)


# --- gather --------------------------------------------------------------------------------------

OPERAND_3x4x2 = np.arange(1, 25, dtype=I64).reshape(3, 4, 2)
OPERAND_2x3x4x2 = np.arange(1, 49, dtype=I64).reshape(2, 3, 4, 2)
BATCHED_INDICES = a(
    [
        [[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
        [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]],
    ]
)


def test_gather_conformance_and_dynamic_gather():
    start = a([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]])
    expected = [
        [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
        [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]],
    ]
    attrs = dict(offset_dims=[2, 3], collapsed_slice_dims=[0], start_index_map=[1, 0], index_vector_dim=2)
    assert D.gather(OPERAND_3x4x2, start, slice_sizes=[1, 2, 2], **attrs).tolist() == expected
    assert D.dynamic_gather(OPERAND_3x4x2, start, a([1, 2, 2]), **attrs).tolist() == expected


def test_gather_spec_example_with_batching_dims():
    out = D.gather(
        OPERAND_2x3x4x2, BATCHED_INDICES, offset_dims=[3, 4], collapsed_slice_dims=[1],
        operand_batching_dims=[0], start_indices_batching_dims=[1], start_index_map=[2, 1],
        index_vector_dim=3, slice_sizes=[1, 1, 2, 2],
    )
    assert out.tolist() == [
        [
            [[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
            [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]],
        ],
        [
            [[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
            [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]],
        ],
    ]


@st.composite
def gather_cases(draw):
    op_rank = draw(st.integers(1, 3))
    n_batch = draw(st.integers(0, 1))
    rank = op_rank + n_batch
    shape = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    dims = list(range(rank))
    op_batching = [draw(st.sampled_from(dims))] if n_batch else []
    rest = [d for d in dims if d not in op_batching]
    collapsed = sorted(draw(st.lists(st.sampled_from(rest), unique=True, max_size=len(rest)))) if rest else []
    index_map = draw(st.lists(st.sampled_from(rest), unique=True, min_size=0, max_size=len(rest))) if rest else []
    slice_sizes = [
        1 if (d in collapsed or d in op_batching) else draw(st.integers(0, shape[d])) for d in dims
    ]
    k = len(index_map)
    batch_rank = draw(st.integers(n_batch, 2 + n_batch))
    batch_shape = draw(st.lists(st.integers(1, 3), min_size=batch_rank, max_size=batch_rank))
    ivd_choices = list(range(batch_rank + 1))
    ivd = draw(st.sampled_from(ivd_choices))
    idx_shape = list(batch_shape)
    use_implicit = k == 1 and ivd == batch_rank and draw(st.booleans())
    if not use_implicit:
        idx_shape.insert(ivd, k)
    else:
        ivd = batch_rank
    idx_rank = len(idx_shape)
    candidates = [d for d in range(idx_rank) if d != ivd or use_implicit]
    idx_batching = []
    if n_batch:
        d_start = draw(st.sampled_from(candidates))
        idx_batching = [d_start]
        idx_shape[d_start] = shape[op_batching[0]]
    start = draw(
        st.lists(st.integers(-2, 6), min_size=int(np.prod(idx_shape)), max_size=int(np.prod(idx_shape)))
    )
    start_indices = np.array(start, dtype=np.int32).reshape(idx_shape)
    n_offset = len([d for d in dims if d not in collapsed and d not in op_batching])
    result_rank = batch_rank + n_offset
    offset_dims = sorted(draw(st.permutations(list(range(result_rank))))[:n_offset])
    operand = np.arange(int(np.prod(shape)), dtype=I64).reshape(shape) * 3 + 1
    # gather's attributes, as keywords of both D.gather and the reference
    attrs = dict(offset_dims=offset_dims, collapsed_slice_dims=collapsed, start_index_map=index_map,
                 index_vector_dim=ivd, slice_sizes=slice_sizes, operand_batching_dims=op_batching,
                 start_indices_batching_dims=idx_batching)
    return operand, start_indices, attrs


@settings(max_examples=150, deadline=None)
@given(gather_cases())
def test_gather_matches_naive(case):
    operand, start, attrs = case
    out = D.gather(operand, start, **attrs)
    expected = naive_gather(operand, start, **attrs)
    assert out.shape == expected.shape
    assert np.array_equal(out, expected)


# --- scatter -------------------------------------------------------------------------------------


def test_scatter_conformance():
    indices = a([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [0, 9]]])
    inputs = OPERAND_3x4x2.copy()
    (out,) = D.scatter(
        [inputs],
        indices,
        [np.ones((2, 3, 2, 2), I64)],
        update_window_dims=[2, 3],
        inserted_window_dims=[0],
        scatter_dims_to_operand_dims=[1, 0],
        index_vector_dim=2,
        update_computation=R.ADD,
    )
    assert out.tolist() == [
        [[1, 2], [5, 6], [7, 8], [7, 8]],
        [[10, 11], [12, 13], [14, 15], [16, 17]],
        [[18, 19], [20, 21], [21, 22], [23, 24]],
    ]
    assert np.array_equal(inputs, OPERAND_3x4x2)


@pytest.mark.parametrize("body", [R.ADD, R.make_body(lambda x, y: x + y)], ids=["kind", "generic"])
def test_scatter_spec_example_with_batching_dims(body):
    (out,) = D.scatter(
        [OPERAND_2x3x4x2],
        BATCHED_INDICES,
        [np.ones((2, 2, 3, 2, 2), I64)],
        update_window_dims=[3, 4],
        inserted_window_dims=[1],
        input_batching_dims=[0],
        scatter_indices_batching_dims=[1],
        scatter_dims_to_operand_dims=[2, 1],
        index_vector_dim=3,
        update_computation=body,
    )
    assert out.tolist() == [
        [
            [[3, 4], [6, 7], [6, 7], [7, 8]],
            [[9, 10], [11, 12], [15, 16], [17, 18]],
            [[17, 18], [19, 20], [22, 23], [24, 25]],
        ],
        [
            [[25, 26], [28, 29], [30, 31], [31, 32]],
            [[35, 36], [38, 39], [38, 39], [39, 40]],
            [[41, 42], [44, 45], [46, 47], [47, 48]],
        ],
    ]


def test_scatter_variadic_with_replace_body():
    # the last update (in update-index order) wins, for both results
    inputs = [np.zeros(4, I64), np.zeros(4, np.float32)]
    updates = [a([1, 2, 3]), np.array([0.5, 1.5, 2.5], np.float32)]
    body = R.make_body(lambda x0, x1, u0, u1: (u0, u1))
    out = D.scatter(
        inputs,
        a([[1], [3], [1]]),
        updates,
        update_window_dims=[],
        inserted_window_dims=[0],
        scatter_dims_to_operand_dims=[0],
        index_vector_dim=1,
        update_computation=body,
    )
    assert out[0].tolist() == [0, 3, 0, 2]
    assert out[1].tolist() == [0.0, 2.5, 0.0, 1.5]


@st.composite
def scatter_cases(draw):
    operand, start, attrs = draw(gather_cases())
    # reuse the gather geometry: updates have the gather result's shape, with random values
    gathered = D.gather(operand, start, **attrs)
    values = draw(st.lists(st.integers(-5, 5), min_size=gathered.size, max_size=gathered.size))
    updates = np.array(values, dtype=I64).reshape(gathered.shape)
    geometry = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                "start_indices_batching_dims", "start_index_map", "index_vector_dim")
    return operand, start, updates, *(attrs[k] for k in geometry)


@settings(max_examples=150, deadline=None)
@given(scatter_cases(), st.sampled_from(["add", "generic_add", "affine"]))
def test_scatter_matches_naive(case, which):
    operand, start, updates, uwd, iwd, in_b, idx_b, to_op, ivd = case
    bodies = {
        "add": R.ADD,
        "generic_add": R.make_body(lambda x, u: x + u),
        "affine": R.make_body(lambda x, u: x * 3 - u),  # non-associative: order matters
    }
    body = bodies[which]
    (out,) = D.scatter(
        [operand], start, [updates], update_window_dims=uwd, inserted_window_dims=iwd,
        input_batching_dims=in_b, scatter_indices_batching_dims=idx_b,
        scatter_dims_to_operand_dims=to_op, index_vector_dim=ivd, update_computation=body,
    )
    (expected,) = naive_scatter(
        [operand], start, [updates], uwd, iwd, to_op, ivd,
        lambda *xs: body(*map(np.asarray, xs)),  # the region's body takes 0-d arrays
        input_batching_dims=in_b, scatter_indices_batching_dims=idx_b,
    )
    assert np.array_equal(out, expected)


def test_gather_then_scatter_round_trip():
    operand = np.arange(24, dtype=I64).reshape(4, 6)
    start = a([[2], [0], [3]])
    attrs = dict(index_vector_dim=1)
    rows = D.gather(
        operand, start, offset_dims=[1], collapsed_slice_dims=[0], start_index_map=[0],
        slice_sizes=[1, 6], **attrs,
    )
    (back,) = D.scatter(
        [np.zeros_like(operand)], start, [rows], update_window_dims=[1], inserted_window_dims=[0],
        scatter_dims_to_operand_dims=[0], update_computation=R.make_body(lambda x, u: u), **attrs,
    )
    expected = np.zeros_like(operand)
    expected[[2, 0, 3]] = operand[[2, 0, 3]]
    assert np.array_equal(back, expected)
