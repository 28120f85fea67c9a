"""Miscellaneous ops built with the builder: rng_bit_generator, reduce_precision, real_dynamic_slice,
custom_call, tokens, einsum, torch_index_select."""

from __future__ import annotations

import numpy as np
from stablehlo_py.interpreter import register_custom_call

from stablehlo_py.builder import Module, constant, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.unit.builder.helpers import check_program


def test_reduce_precision_and_real_dynamic_slice() -> None:
    m = Module()

    @m.func(tensor((6,), "f32"))
    def main(x):
        rp = hlo.reduce_precision(x, exponent_bits=5, mantissa_bits=10)
        s = hlo.real_dynamic_slice(
            x,
            constant(np.array([1], np.int64)),
            constant(np.array([5], np.int64)),
            constant(np.array([2], np.int64)),
            result_type=tensor((None,), "f32"),
        )
        return rp, s

    x = np.array([1.0, 1.0009765625 + 1e-6, 3.14159, 1e5, -2.5, 7.0], np.float32)
    with np.errstate(over="ignore"):  # 1e5 is beyond f16's range: inf, as reduce_precision gives
        as_f16 = x.astype(np.float16).astype(np.float32)
    check_program(m, [x], [as_f16, x[1:5:2]])


def test_rng_bit_generator_shapes() -> None:
    m = Module()

    @m.func(tensor((2,), "ui64"))
    def main(state):
        return hlo.rng_bit_generator(
            state,
            rng_algorithm="THREE_FRY",
            result_type=[tensor((2,), "ui64"), tensor((3, 4), "ui32")],
        )

    state = np.array([1, 2], np.uint64)
    new_state, bits = m.run(state)
    assert bits.shape == (3, 4) and bits.dtype == np.uint32 and new_state.dtype == np.uint64
    check_program(m, [state], [new_state, bits])  # deterministic: the same key gives the same bits


def test_custom_call_and_tokens() -> None:
    register_custom_call("builder_test.twice", lambda ev, op, vals: [vals[0] * 2])
    m = Module()

    @m.func(tensor((3,), "i32"))
    def main(x):
        tok = hlo.after_all([hlo.create_token()])
        y = hlo.custom_call(
            [x],
            call_target_name="builder_test.twice",
            has_side_effect=True,
            backend_config="scale=2",
            result_type=tensor((3,), "i32"),
        )
        del tok
        return y

    x = np.array([1, 2, 3], np.int32)
    text = check_program(m, [x], [x * 2], artifact=True)
    assert (
        'stablehlo.custom_call @builder_test.twice(%arg0) {backend_config = "scale=2", has_side_effect = true}'
        in text
    )


def test_einsum_and_torch_index_select() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"), tensor((3, 4), "f32"), tensor((2,), "i32"))
    def main(a, b, idx):
        e = hlo.einsum(a, b, einsum_config="ab,bc->ac", result_type=tensor((2, 4), "f32"))
        t = hlo.torch_index_select(b, idx, dim=0, batch_dims=0, result_type=tensor((2, 4), "f32"))
        return e, t

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([2, 0], np.int32)
    check_program(m, [a, b, idx], [a @ b, b[idx]], artifact=True)


def test_dynamic_ops_and_dimension_sizes() -> None:
    m = Module()

    @m.func(tensor((2, 3), "f32"))
    def main(x):
        g = hlo.dynamic_gather(
            x,
            constant(np.array([[1]], np.int32)),
            constant(np.array([1, 3], np.int32)),
            dimension_numbers={
                "offset_dims": [1],
                "collapsed_slice_dims": [0],
                "start_index_map": [0],
                "index_vector_dim": 1,
            },
        )
        p = hlo.dynamic_pad(
            x,
            0.0,
            constant(np.array([1, 0], np.int64)),
            constant(np.array([0, 1], np.int64)),
            constant(np.array([0, 0], np.int64)),
            result_type=tensor((None, None), "f32"),
        )
        r = hlo.dynamic_reshape(
            x, constant(np.array([3, 2], np.int64)), result_type=tensor((None, None), "f32")
        )
        s = hlo.set_dimension_size(x, constant(np.int32(2)), dimension=1)
        return g, p, r, s

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    check_program(m, [x], [x[1:2], np.pad(x, ((1, 0), (0, 1))), x.reshape(3, 2), x[:, :2]])


def test_rng_and_batch_norm_grad() -> None:
    m = Module()

    @m.func(tensor((4, 3), "f32"), tensor((3,), "f32"))
    def main(x, scale):
        u = hlo.rng(
            constant(0.0),
            constant(1.0),
            constant(np.array([2, 3], np.int64)),
            rng_distribution="UNIFORM",
        )
        mean = hlo.reduce(x, 0.0, dimensions=[0], body=hlo.add)
        mean = hlo.divide(mean, 4.0)
        centered = hlo.subtract(x, hlo.broadcast_in_dim(mean, [1], result_type=x.type))
        var = hlo.divide(
            hlo.reduce(hlo.multiply(centered, centered), 0.0, dimensions=[0], body=hlo.add), 4.0
        )
        grads = hlo.batch_norm_grad(x, scale, mean, var, x, epsilon=1e-3, feature_index=1)
        return (u, *grads)

    x = np.random.default_rng(6).standard_normal((4, 3)).astype(np.float32)
    scale = np.ones(3, np.float32)
    u, _, g_scale, g_offset = m.run(x, scale)
    assert u.shape == (2, 3) and ((u >= 0) & (u < 1)).all()
    xhat = (x - x.mean(0)) / np.sqrt(x.var(0) + np.float32(1e-3))
    np.testing.assert_allclose(g_offset, x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(g_scale, (x * xhat).sum(0), rtol=1e-4, atol=1e-5)
    m.verify()
