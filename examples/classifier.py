"""A classifier's training step, built with stablehlo_py.builder: the worked model of
docs/building.md (one tanh hidden layer, softmax cross-entropy, the gradients by hand, one SGD step).

    python examples/classifier.py

`main(w1, b1, w2, b2, x, labels)` returns the new parameters and the loss.  The script prints the
module, trains for 40 steps on three clusters, checks the first step against numpy and prints the
loss going down.  ``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE;
``tests/unit/builder/test_examples.py`` checks that docs/building.md shows this model.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

B, D, H, C = 32, 2, 16, 3  # batch, features, hidden units, classes
LR = 0.5


def matmul(a, b, ca=1, cb=0):  # type: ignore[no-untyped-def]
    """a @ b, or contracted on other dimensions."""
    return hlo.dot_general(
        a, b, {"lhs_contracting_dimensions": [ca], "rhs_contracting_dimensions": [cb]}
    )


def spread(v, dims, like):  # type: ignore[no-untyped-def]
    """v broadcast to like's shape, v's dims at ``dims``."""
    return hlo.broadcast_in_dim(v, dims, result_type=like.type)


def total(x, dim):  # type: ignore[no-untyped-def]
    """The sum over one dimension."""
    return hlo.reduce(x, 0.0, dimensions=[dim], body=hlo.add)


def build() -> Module:
    m = Module("classifier")

    @m.func(
        tensor((D, H), "f32"),
        tensor((H,), "f32"),
        tensor((H, C), "f32"),
        tensor((C,), "f32"),
        tensor((B, D), "f32"),
        tensor((B,), "i32"),
    )
    def main(w1, b1, w2, b2, x, labels):  # type: ignore[no-untyped-def]
        # forward: a tanh layer, then the logits
        xw = matmul(x, w1)
        h = hlo.tanh(hlo.add(xw, spread(b1, [1], xw)))
        hw = matmul(h, w2)
        logits = hlo.add(hw, spread(b2, [1], hw))
        # softmax cross-entropy, stable: log(sum(exp(z - max))) + max - z[label]
        top = hlo.reduce(logits, float("-inf"), dimensions=[1], body=hlo.maximum)
        e = hlo.exponential(hlo.subtract(logits, spread(top, [0], logits)))
        s = total(e, 1)
        classes = hlo.iota(iota_dimension=1, result_type=tensor((B, C), "i32"))
        onehot = hlo.convert(hlo.compare(classes, spread(labels, [0], classes), "EQ"), "f32")
        picked = total(hlo.multiply(onehot, logits), 1)
        loss = hlo.divide(total(hlo.subtract(hlo.add(hlo.log(s), top), picked), 0), float(B))
        # backward, by hand: d loss / d logits = (softmax - onehot) / B
        d_logits = hlo.divide(hlo.subtract(hlo.divide(e, spread(s, [0], e)), onehot), float(B))
        d_h = hlo.multiply(matmul(d_logits, w2, 1, 1), hlo.subtract(1.0, hlo.multiply(h, h)))
        grads = matmul(x, d_h, 0, 0), total(d_h, 0), matmul(h, d_logits, 0, 0), total(d_logits, 0)
        # one SGD step
        new = [hlo.subtract(p, hlo.multiply(g, LR)) for p, g in zip((w1, b1, w2, b2), grads)]
        return (*new, loss)

    return m


def inputs() -> list[np.ndarray]:
    """Initial parameters, and a batch of three clusters to tell apart."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, C, B).astype(np.int32)
    centers = np.array([[2, 0], [-1, 2], [-1, -2]], np.float32)
    x = (centers[labels] + rng.normal(0, 0.5, (B, D))).astype(np.float32)
    return [
        rng.normal(0, 0.5, (D, H)).astype(np.float32),
        np.zeros(H, np.float32),
        rng.normal(0, 0.5, (H, C)).astype(np.float32),
        np.zeros(C, np.float32),
        x,
        labels,
    ]


def numpy_step(w1, b1, w2, b2, x, labels):  # type: ignore[no-untyped-def]
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    top = logits.max(1, keepdims=True)
    e = np.exp(logits - top)
    s = e.sum(1, keepdims=True)
    onehot = np.eye(C, dtype=np.float32)[labels]
    loss = (np.log(s) + top - (onehot * logits).sum(1, keepdims=True)).sum() / B
    d_logits = (e / s - onehot) / B
    d_h = (d_logits @ w2.T) * (1 - h * h)
    grads = x.T @ d_h, d_h.sum(0), h.T @ d_logits, d_logits.sum(0)
    return [p - np.float32(LR) * g for p, g in zip((w1, b1, w2, b2), grads)] + [loss]


def train(m: Module, steps: int) -> list[float]:
    """The loss before each of ``steps`` SGD steps from ``inputs()``."""
    *params, x, labels = inputs()
    losses = []
    for _ in range(steps):
        *params, loss = m.run(*params, x, labels)
        losses.append(float(loss))
    return losses


def main() -> None:
    m = build()
    m.verify()
    print(m)
    start = inputs()
    checks = zip(m.run(*start), numpy_step(*start))
    assert all(np.allclose(got, want, rtol=1e-4, atol=1e-5) for got, want in checks)
    print("step 0 matches numpy")
    losses = train(m, 40)
    print("loss:", " ".join(f"{v:.4f}" for v in losses[::8]), f"... {losses[-1]:.4f}")
    assert losses[-1] < 0.05 * losses[0], "the loss should go down"


if __name__ == "__main__":
    main()
