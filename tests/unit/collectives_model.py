"""A numpy model of XLA's RaggedAllToAll (what `jax.lax.ragged_all_to_all` lowers to), written from
XLA's documented semantics, for the tests of the interpreter's `ragged_all_to_all` (unit tests and
the jax oracle test: XLA's CPU backend does not implement the op, "HLO opcode `ragged-all-to-all`
is not supported by XLA:CPU ThunkEmitter", jaxlib 0.10.2 and 0.12.0.1).

The semantics, as XLA's GPU kernel documents them (xla/stream_executor/gpu/
ragged_all_to_all_kernel.*: the i-th update to the j-th device is entry i + j *
num_updates_per_replica of the metadata, copied from input[input_offset : input_offset +
send_size] to device j's output at output_offset) and JAX's docstring of ragged_all_to_all: in a
group of n devices with k updates per peer, device s writes, for peer index j and update u,
`operand_s[input_offsets_s[e] : + send_sizes_s[e]]` (rows of dimension 0, e = j * k + u) into
device group[j]'s output at `output_offsets_s[e]`; everything else of each output keeps the value
of the `output` operand.  The model is written from the sender's side (each sender writes into its
peers' buffers), the interpreter from the receiver's (each receiver gathers what it is sent)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def ragged_all_to_all_model(
    groups: list[list[int]],
    operands: np.ndarray,
    outputs: np.ndarray,
    input_offsets: np.ndarray,
    send_sizes: np.ndarray,
    output_offsets: np.ndarray,
) -> np.ndarray:
    """The result of every device (indexed as `operands`, one row per device id)."""
    results = np.array(outputs, copy=True)
    for group in groups:
        n = len(group)
        for sender in group:
            k = input_offsets[sender].size // n
            for j, peer in enumerate(group):
                for u in range(k):
                    e = j * k + u
                    start, size = int(input_offsets[sender][e]), int(send_sizes[sender][e])
                    at = int(output_offsets[sender][e])
                    results[peer][at : at + size] = operands[sender][start : start + size]
    return results


@dataclass
class RaggedCase:
    operands: np.ndarray  # [devices, rows_in, *row]
    outputs: np.ndarray  # [devices, rows_out, *row]
    input_offsets: np.ndarray  # [devices, n * k]
    send_sizes: np.ndarray
    output_offsets: np.ndarray
    recv_sizes: np.ndarray

    def args(self) -> list[np.ndarray]:
        return [
            self.operands,
            self.outputs,
            self.input_offsets,
            self.send_sizes,
            self.output_offsets,
            self.recv_sizes,
        ]


def ragged_case(
    rng: np.random.Generator,
    groups: list[list[int]],
    k: int,
    row: tuple[int, ...] = (),
    dtype: type = np.float32,
    index_dtype: type = np.int32,
    max_size: int = 3,
) -> RaggedCase:
    """Random consistent arguments (send_sizes == all_to_all(recv_sizes)), with gaps between the
    pieces in both buffers and random initial outputs (so untouched rows are checked too)."""
    devices = sum(len(g) for g in groups)
    n = len(groups[0])
    sizes = rng.integers(0, max_size + 1, size=(devices, n, k))  # sizes[s, j, u]: s -> group[j]
    in_off = np.zeros((devices, n, k), np.int64)
    out_off = np.zeros((devices, n, k), np.int64)
    recv = np.zeros((devices, n, k), np.int64)
    rows_in = rows_out = 1
    for group in groups:
        for s in group:
            at = int(rng.integers(0, 2))
            for j in range(n):
                for u in range(k):
                    in_off[s, j, u] = at
                    at += int(sizes[s, j, u]) + int(rng.integers(0, 2))
            rows_in = max(rows_in, at)
        for j, r in enumerate(group):
            at = int(rng.integers(0, 2))
            for i, s in enumerate(group):
                for u in range(k):
                    out_off[s, j, u] = at
                    recv[r, i, u] = sizes[s, j, u]
                    at += int(sizes[s, j, u]) + int(rng.integers(0, 2))
            rows_out = max(rows_out, at)

    def data(rows: int) -> np.ndarray:
        values = rng.integers(-50, 50, size=(devices, rows, *row))
        return values.astype(dtype)

    def meta(x: np.ndarray) -> np.ndarray:
        return x.reshape(devices, n * k).astype(index_dtype)

    return RaggedCase(
        data(rows_in), data(rows_out), meta(in_off), meta(sizes), meta(out_off), meta(recv)
    )
