"""An embedding layer and its gradient, built with stablehlo_py.builder: token ids look up rows
of a table (``gather``), and the gradient of a loss with respect to the table adds each token's
output gradient into its row (``scatter`` with an add body; repeated ids accumulate).

    python examples/embedding.py

Also returns one SGD step of the table.  One id is out of the vocabulary (a padding id): the
spec clamps a gather's start index into the table, so its lookup is the last row, and skips a
scatter's out-of-bounds update, so it adds nothing to the gradient.  The script checks the
interpreter against numpy; ``tests/oracle/test_builder_consumers.py`` runs it on XLA and IREE.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

VOCAB, DIM, BATCH, SEQ = 10, 4, 2, 5
LEARNING_RATE = 0.5
PADDING_ID = VOCAB + 2  # out of range


def build() -> Module:
    m = Module("embedding")

    @m.func(
        tensor((VOCAB, DIM), "f32"),
        tensor((BATCH, SEQ), "i32"),
        tensor((BATCH, SEQ, DIM), "f32"),
        name="main",
    )
    def step(table, ids, grad_out):
        # rows[b, s, :] = table[ids[b, s], :]
        rows = hlo.gather(
            table,
            hlo.reshape(ids, result_type=tensor((BATCH, SEQ, 1), "i32")),
            dimension_numbers={
                "offset_dims": [2],
                "collapsed_slice_dims": [0],
                "start_index_map": [0],
                "index_vector_dim": 2,
            },
            slice_sizes=[1, DIM],
        )
        # d table[ids[b, s], :] += grad_out[b, s, :]
        zeros = hlo.broadcast_in_dim(0.0, [], result_type=table.type)
        grad_table = hlo.scatter(
            [zeros],
            ids,
            [grad_out],
            scatter_dimension_numbers={
                "update_window_dims": [2],
                "inserted_window_dims": [0],
                "scatter_dims_to_operand_dims": [0],
                "index_vector_dim": 2,
            },
            update_computation=hlo.add,
        )
        new_table = hlo.subtract(table, hlo.multiply(grad_table, LEARNING_RATE))
        return rows, grad_table, new_table

    return m


def inputs() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(5)
    table = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    ids = rng.integers(0, VOCAB // 2, (BATCH, SEQ)).astype(np.int32)  # repeated ids
    ids[1, -1] = PADDING_ID
    grad_out = rng.standard_normal((BATCH, SEQ, DIM)).astype(np.float32)
    return table, ids, grad_out


def numpy_step(table, ids, grad_out):  # type: ignore[no-untyped-def]
    grad = np.zeros_like(table)
    known = ids.reshape(-1) < VOCAB
    np.add.at(grad, ids.reshape(-1)[known], grad_out.reshape(-1, DIM)[known])
    return table[np.clip(ids, 0, VOCAB - 1)], grad, table - grad * np.float32(LEARNING_RATE)


if __name__ == "__main__":
    m = build().verify()
    print(m)
    for got, want in zip(m.run(*inputs()), numpy_step(*inputs())):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
