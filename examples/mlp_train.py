"""A two-layer MLP with a training step, built with stablehlo_py.builder, run in the interpreter.

    python examples/mlp_train.py

`train_step(w1, b1, w2, b2, x, y)` computes the forward pass (relu hidden layer, linear output),
the mean-squared-error loss, the gradients by hand (backpropagation written as StableHLO ops) and one
SGD update; it returns the new parameters and the loss.  The script prints the module, trains for a
few steps on a toy regression problem, checks the first step against the same computation in numpy,
and prints the loss going down.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

BATCH, IN, HIDDEN, OUT = 16, 4, 8, 2
LEARNING_RATE = 0.05


def matmul(a, b, contract_a=1, contract_b=0):  # type: ignore[no-untyped-def]
    """a @ b (or with other contracting dimensions, for the transposed products of backprop)."""
    dims = {"lhs_contracting_dimensions": [contract_a], "rhs_contracting_dimensions": [contract_b]}
    return hlo.dot_general(a, b, dims)


def add_bias(v, b):  # type: ignore[no-untyped-def]
    return hlo.add(v, hlo.broadcast_in_dim(b, [1], result_type=v.type))


def build() -> Module:
    m = Module("mlp_train")
    f32 = "f32"

    @m.func(
        tensor((IN, HIDDEN), f32),
        tensor((HIDDEN,), f32),
        tensor((HIDDEN, OUT), f32),
        tensor((OUT,), f32),
        tensor((BATCH, IN), f32),
        tensor((BATCH, OUT), f32),
        name="main",
    )
    def train_step(w1, b1, w2, b2, x, y):
        # forward
        z1 = add_bias(matmul(x, w1), b1)
        h = hlo.maximum(z1, 0.0)
        pred = add_bias(matmul(h, w2), b2)
        err = hlo.subtract(pred, y)
        sum_sq = hlo.reduce(hlo.multiply(err, err), 0.0, dimensions=[0, 1], body=hlo.add)
        loss = hlo.divide(sum_sq, float(BATCH * OUT))

        # backward: d loss / d pred = 2 (pred - y) / (B * OUT)
        d_pred = hlo.multiply(err, 2.0 / (BATCH * OUT))
        d_w2 = matmul(h, d_pred, 0, 0)  # h^T @ d_pred
        d_b2 = hlo.reduce(d_pred, 0.0, dimensions=[0], body=hlo.add)
        d_h = matmul(d_pred, w2, 1, 1)  # d_pred @ w2^T
        d_z1 = hlo.select(hlo.compare(z1, 0.0, "GT"), d_h, 0.0)
        d_w1 = matmul(x, d_z1, 0, 0)  # x^T @ d_z1
        d_b1 = hlo.reduce(d_z1, 0.0, dimensions=[0], body=hlo.add)

        # SGD
        def sgd(p, g):  # type: ignore[no-untyped-def]
            return hlo.subtract(p, hlo.multiply(g, LEARNING_RATE))

        return sgd(w1, d_w1), sgd(b1, d_b1), sgd(w2, d_w2), sgd(b2, d_b2), loss

    return m


def numpy_step(w1, b1, w2, b2, x, y):  # type: ignore[no-untyped-def]
    z1 = x @ w1 + b1
    h = np.maximum(z1, 0)
    pred = h @ w2 + b2
    err = pred - y
    loss = (err * err).sum() / (BATCH * OUT)
    d_pred = err * np.float32(2.0 / (BATCH * OUT))
    d_h = d_pred @ w2.T
    d_z1 = np.where(z1 > 0, d_h, np.float32(0))
    lr = np.float32(LEARNING_RATE)
    return (
        w1 - lr * (x.T @ d_z1),
        b1 - lr * d_z1.sum(0),
        w2 - lr * (h.T @ d_pred),
        b2 - lr * d_pred.sum(0),
        loss,
    )


def main() -> None:
    m = build()
    m.verify()
    print(m)

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, IN)).astype(np.float32)
    true_w = rng.standard_normal((IN, OUT)).astype(np.float32)
    y = np.tanh(x @ true_w).astype(np.float32)
    params = [
        (rng.standard_normal((IN, HIDDEN)) * 0.5).astype(np.float32),
        np.zeros(HIDDEN, np.float32),
        (rng.standard_normal((HIDDEN, OUT)) * 0.5).astype(np.float32),
        np.zeros(OUT, np.float32),
    ]

    first = m.run(*params, x, y)
    for got, want in zip(first, numpy_step(*params, x, y)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    print("step 0 matches numpy")

    losses = []
    for _ in range(30):
        *params, loss = m.run(*params, x, y)
        losses.append(float(loss))
    print("loss:", " ".join(f"{v:.4f}" for v in losses[::5]), f"... {losses[-1]:.4f}")
    assert losses[-1] < losses[0] * 0.8, "the loss should go down"


if __name__ == "__main__":
    main()
