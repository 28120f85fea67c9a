"""A small convolutional network built with stablehlo_py.builder: an NHWC convolution with a bias
and relu, a 2x2 max pool, batch norm (training statistics, then inference with them) and a
global average pool into class scores.

    python examples/conv_net.py

Exercises ``convolution`` (NHWC input, HWIO kernel, SAME padding, as jax.lax writes them),
``reduce_window`` (max pool), ``batch_norm_training`` / ``batch_norm_inference`` and ``reduce``.
The script checks the interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs
it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

BATCH, SIZE, CHANNELS, FEATURES, CLASSES = 2, 8, 3, 4, 5
KERNEL = 3
EPS = 1e-3


def build() -> Module:
    m = Module("conv_net")

    @m.func(
        tensor((BATCH, SIZE, SIZE, CHANNELS), "f32"),
        tensor((KERNEL, KERNEL, CHANNELS, FEATURES), "f32"),
        tensor((FEATURES,), "f32"),
        tensor((FEATURES,), "f32"),
        tensor((FEATURES,), "f32"),
        tensor((FEATURES, CLASSES), "f32"),
        name="main",
    )
    def forward(images, kernel, bias, scale, offset, dense):
        conv = hlo.convolution(
            images, kernel, padding="SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        conv = hlo.add(conv, hlo.broadcast_in_dim(bias, [3], result_type=conv.type))
        act = hlo.maximum(conv, 0.0)
        pooled = hlo.reduce_window(
            act,
            -np.inf,
            window_dimensions=[1, 2, 2, 1],
            window_strides=[1, 2, 2, 1],
            body=hlo.maximum,
        )
        normed, mean, var = hlo.batch_norm_training(
            pooled, scale, offset, epsilon=EPS, feature_index=3
        )
        # inference with the batch's own statistics gives the same values by another formula
        inferred = hlo.batch_norm_inference(
            pooled, scale, offset, mean, var, epsilon=EPS, feature_index=3
        )
        side = SIZE // 2
        features = hlo.reduce(normed, 0.0, dimensions=[1, 2], body=hlo.add)
        features = hlo.divide(features, float(side * side))
        logits = hlo.dot_general(
            features,
            dense,
            {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]},
        )
        return logits, mean, var, inferred

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(7)
    images = rng.standard_normal((BATCH, SIZE, SIZE, CHANNELS)).astype(np.float32)
    kernel = (rng.standard_normal((KERNEL, KERNEL, CHANNELS, FEATURES)) / 4).astype(np.float32)
    bias = (0.1 * rng.standard_normal(FEATURES)).astype(np.float32)
    scale = (1 + 0.1 * rng.standard_normal(FEATURES)).astype(np.float32)
    offset = (0.1 * rng.standard_normal(FEATURES)).astype(np.float32)
    dense = rng.standard_normal((FEATURES, CLASSES)).astype(np.float32)
    return images, kernel, bias, scale, offset, dense


def numpy_forward(images, kernel, bias, scale, offset, dense):  # type: ignore[no-untyped-def]
    padded = np.pad(images, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = np.zeros((BATCH, SIZE, SIZE, FEATURES), np.float32)
    for i in range(KERNEL):
        for j in range(KERNEL):
            window = padded[:, i : i + SIZE, j : j + SIZE, :]
            conv += np.einsum("bhwc,co->bhwo", window, kernel[i, j])
    act = np.maximum(conv + bias, 0)
    side = SIZE // 2
    pooled = act.reshape(BATCH, side, 2, side, 2, FEATURES).max(axis=(2, 4))
    mean = pooled.mean(axis=(0, 1, 2))
    var = pooled.var(axis=(0, 1, 2))
    normed = (pooled - mean) / np.sqrt(var + EPS) * scale + offset
    return normed.mean(axis=(1, 2)) @ dense, mean, var, normed


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_forward(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
