"""Self-attention with layer norm, built with stablehlo_py.builder: a pre-norm transformer block's
first half, ``x + softmax(q k^T / sqrt(d)) v @ wo`` with ``q, k, v = layer_norm(x) @ wq, wk, wv``,
for a batch of sequences.

    python examples/attention.py

Exercises batched ``dot_general``, ``transpose``, reductions (max and sum for a stable softmax,
mean and variance for layer norm), ``exponential``, ``rsqrt`` and ``broadcast_in_dim``.  The script
checks the interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs it on XLA and
IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

BATCH, SEQ, DIM = 2, 6, 8
EPS = 1e-5


def mean_over_last(x, shape):  # type: ignore[no-untyped-def]
    """The mean over the last dimension, broadcast back to ``shape``."""
    s = hlo.reduce(x, 0.0, dimensions=[len(shape) - 1], body=hlo.add)
    s = hlo.divide(s, float(shape[-1]))
    return hlo.broadcast_in_dim(s, list(range(len(shape) - 1)), result_type=tensor(shape, "f32"))


def layer_norm(x, gamma, beta, shape):  # type: ignore[no-untyped-def]
    centered = hlo.subtract(x, mean_over_last(x, shape))
    var = mean_over_last(hlo.multiply(centered, centered), shape)
    normed = hlo.multiply(centered, hlo.rsqrt(hlo.add(var, EPS)))
    last = [len(shape) - 1]
    g = hlo.broadcast_in_dim(gamma, last, result_type=normed.type)
    b = hlo.broadcast_in_dim(beta, last, result_type=normed.type)
    return hlo.add(hlo.multiply(normed, g), b)


def project(x, w):  # type: ignore[no-untyped-def]
    """``x @ w`` for x of shape (batch, seq, dim) and w of shape (dim, dim)."""
    dims = {"lhs_contracting_dimensions": [2], "rhs_contracting_dimensions": [0]}
    return hlo.dot_general(x, w, dims)


def softmax_last(s, shape):  # type: ignore[no-untyped-def]
    batch = list(range(len(shape) - 1))
    biggest = hlo.reduce(s, -np.inf, dimensions=[len(shape) - 1], body=hlo.maximum)
    e = hlo.exponential(hlo.subtract(s, hlo.broadcast_in_dim(biggest, batch, result_type=s.type)))
    total = hlo.reduce(e, 0.0, dimensions=[len(shape) - 1], body=hlo.add)
    return hlo.divide(e, hlo.broadcast_in_dim(total, batch, result_type=s.type))


def build() -> Module:
    m = Module("attention")
    x_type = tensor((BATCH, SEQ, DIM), "f32")
    w_type = tensor((DIM, DIM), "f32")
    v_type = tensor((DIM,), "f32")

    @m.func(x_type, w_type, w_type, w_type, w_type, v_type, v_type, name="main")
    def block(x, wq, wk, wv, wo, gamma, beta):
        h = layer_norm(x, gamma, beta, (BATCH, SEQ, DIM))
        q, k, v = project(h, wq), project(h, wk), project(h, wv)
        # scores[b, i, j] = q[b, i, :] . k[b, j, :] / sqrt(DIM)
        scores = hlo.dot_general(
            q,
            k,
            {
                "lhs_batching_dimensions": [0],
                "rhs_batching_dimensions": [0],
                "lhs_contracting_dimensions": [2],
                "rhs_contracting_dimensions": [2],
            },
        )
        scores = hlo.multiply(scores, float(1 / np.sqrt(DIM)))
        p = softmax_last(scores, (BATCH, SEQ, SEQ))
        # out[b, i, :] = sum_j p[b, i, j] v[b, j, :]
        attended = hlo.dot_general(
            p,
            v,
            {
                "lhs_batching_dimensions": [0],
                "rhs_batching_dimensions": [0],
                "lhs_contracting_dimensions": [2],
                "rhs_contracting_dimensions": [1],
            },
        )
        heads_first = hlo.transpose(p, [0, 2, 1])  # the attention weights, keys first
        return hlo.add(x, project(attended, wo)), heads_first

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(26)
    x = rng.standard_normal((BATCH, SEQ, DIM)).astype(np.float32)
    ws = [(rng.standard_normal((DIM, DIM)) / np.sqrt(DIM)).astype(np.float32) for _ in range(4)]
    gamma = (1 + 0.1 * rng.standard_normal(DIM)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(DIM)).astype(np.float32)
    return (x, *ws, gamma, beta)


def numpy_block(x, wq, wk, wv, wo, gamma, beta):  # type: ignore[no-untyped-def]
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    h = (x - mu) / np.sqrt(var + EPS) * gamma + beta
    q, k, v = h @ wq, h @ wk, h @ wv
    s = q @ k.transpose(0, 2, 1) / np.sqrt(DIM)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return x + (p @ v) @ wo, p.transpose(0, 2, 1)


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_block(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
