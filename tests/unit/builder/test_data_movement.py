"""Data-movement ops built with the builder, checked against numpy."""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program

RNG = np.random.default_rng(1)


def test_shape_ops() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"))
    def main(x):
        b = hlo.broadcast_in_dim(x, [1, 2], result_type=tensor((4, 2, 3), "f32"))
        r = hlo.reshape(x, result_type="tensor<3x2xf32>")
        t = hlo.transpose(x, permutation=[1, 0])
        v = hlo.reverse(x, dimensions=[1])
        bc = hlo.broadcast(x, broadcast_sizes=[2])
        return b, r, t, v, bc

    x = RNG.standard_normal((2, 3)).astype(np.float32)
    check_program(
        m,
        [x],
        [
            np.broadcast_to(x, (4, 2, 3)),
            x.reshape(3, 2),
            x.T,
            x[:, ::-1],
            np.broadcast_to(x, (2, 2, 3)),
        ],
    )


def test_slices_concat_pad() -> None:
    m = Module()

    @m.func(tensor((4, 5), "i32"), tensor((2, 2), "i32"), "tensor<i64>")
    def main(x, u, i):
        s = hlo.slice(x, start_indices=[1, 0], limit_indices=[4, 5], strides=[2, 2])
        ds = hlo.dynamic_slice(x, [i, constant(np.int64(2))], slice_sizes=[2, 3])
        dus = hlo.dynamic_update_slice(x, u, [i, i])
        cat = hlo.concatenate([x, x], dimension=0)
        p = hlo.pad(
            x,
            constant(np.int32(-1)),
            edge_padding_low=[1, 0],
            edge_padding_high=[0, 2],
            interior_padding=[0, 1],
        )
        return s, ds, dus, cat, p

    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    u = np.full((2, 2), 99, np.int32)
    i = np.int64(1)
    dus = x.copy()
    dus[1:3, 1:3] = 99
    p = np.full((5, 11), -1, np.int32)
    p[1:, 0:9:2] = x
    check_program(m, [x, u, i], [x[1:4:2, 0:5:2], x[1:3, 2:5], dus, np.concatenate([x, x]), p])


def test_gather_rows() -> None:
    m = Module()

    @m.func(tensor((5, 3), "f32"), tensor((4, 1), "i32"))
    def main(table, idx):
        return hlo.gather(
            table,
            idx,
            dimension_numbers={
                "offset_dims": [1],
                "collapsed_slice_dims": [0],
                "start_index_map": [0],
                "index_vector_dim": 1,
            },
            slice_sizes=[1, 3],
            indices_are_sorted=False,
        )

    table = RNG.standard_normal((5, 3)).astype(np.float32)
    idx = np.array([[4], [0], [2], [2]], np.int32)
    text = check_program(m, [table, idx], [table[idx[:, 0]]], spelt_defaults=True)
    assert (
        "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>"
        in text
    )


def test_scatter_add_with_region() -> None:
    m = Module()

    @m.func(tensor((5,), "f32"), tensor((3, 1), "i32"), tensor((3,), "f32"))
    def main(base, idx, upd):
        return hlo.scatter(
            [base],
            idx,
            [upd],
            scatter_dimension_numbers={
                "inserted_window_dims": [0],
                "scatter_dims_to_operand_dims": [0],
                "index_vector_dim": 1,
            },
            update_computation=hlo.add,  # the op function itself is a callable of (old, update)
        )

    base = np.zeros(5, np.float32)
    idx = np.array([[1], [3], [1]], np.int32)
    upd = np.array([1, 2, 4], np.float32)
    expected = base.copy()
    np.add.at(expected, idx[:, 0], upd)
    check_program(m, [base, idx, upd], [expected])


def test_iota_and_dimension_sizes() -> None:
    m = Module()

    @m.func(tensor((3, 4), "f32"))
    def main(x):
        io = hlo.iota(iota_dimension=1, result_type=tensor((3, 4), "i32"))
        n = hlo.get_dimension_size(x, dimension=1)
        return io, n

    x = np.zeros((3, 4), np.float32)
    check_program(m, [x], [np.broadcast_to(np.arange(4, dtype=np.int32), (3, 4)), np.int32(4)])


def test_dynamic_shapes_from_shape_operands() -> None:
    m = Module()

    @m.func(tensor((None,), "f32"))
    def main(x):
        n = hlo.get_dimension_size(x, dimension=0)
        shape = hlo.reshape(n, result_type="tensor<1xi32>")
        io = hlo.dynamic_iota(shape, iota_dimension=0, result_type=tensor((None,), "f32"))
        both = hlo.concatenate([shape, constant(np.array([2], np.int32))], dimension=0)
        b = hlo.dynamic_broadcast_in_dim(
            x, both, broadcast_dimensions=[0], result_type=tensor((None, 2), "f32")
        )
        return hlo.add(x, io), b

    x = np.array([1, 2, 3], np.float32)
    check_program(m, [x], [x + np.arange(3, dtype=np.float32), np.repeat(x[:, None], 2, axis=1)])
