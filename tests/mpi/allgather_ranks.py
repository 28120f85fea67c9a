"""Rank program of tests/mpi/test_harness.py: every rank all-gathers its list of arrays through
`interpreter.mpi.wire` (header frames, a second header round for long headers, value bytes in
chunked ``Iallgatherv`` rounds) and `wait` (polled nonblocking requests), checks what arrived
against what each rank contributed (computed here, bit for bit), and writes ``OUT/rank<r>.json``:
``{"rank": r, "size": n, "ok": bool, "digest": sha256 of everything gathered, "problems": [...]}``
(files, not stdout: mpirun forwards the ranks' output in pieces that may share a line).

``python -m tests.mpi.allgather_ranks OUT [CHUNK]`` (under mpirun).  :func:`contribution` needs no
MPI, so the test computes the expected digest itself.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.semantics.dtypes import BY_NAME


def _bits(dtype: np.dtype, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Random bit patterns of `dtype`'s storage width: for floats every kind of value (NaN
    payloads, -0.0, infinities, subnormals)."""
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    return rng.integers(0, np.iinfo(width).max, size=shape, dtype=width, endpoint=True).view(dtype)


def contribution(rank: int) -> list[np.ndarray]:
    """Rank `rank`'s arrays: one of every element type the interpreter supports (shapes that
    differ per rank, so the byte counts of a gather differ), and the awkward layouts."""
    rng = np.random.default_rng(1000 + rank)
    out: list[np.ndarray] = []
    for row in sorted(BY_NAME.values(), key=lambda r: r.name):
        shape = (rank % 3 + 1, rank + 2)
        if row.kind == "bool":
            out.append(rng.integers(0, 2, size=shape).astype(bool))
        elif row.kind in ("sint", "uint") and row.bits < 8:  # int2/int4/uint2/uint4: in range
            info = ml_dtypes.iinfo(row.dtype)
            out.append(rng.integers(int(info.min), int(info.max), size=shape, endpoint=True)
                       .astype(row.dtype))
        elif row.kind == "complex":  # random bits of both parts
            half = np.dtype(f"u{row.dtype.itemsize // 2}")
            out.append(_bits(half, rng, (*shape, 2)).view(row.dtype)[..., 0])
        elif row.bits >= 8:  # every bit pattern is a value (integers, floats)
            out.append(_bits(row.dtype, rng, shape))
        else:  # f6/f4: values of the type (the byte's spare bits carry nothing)
            out.append(rng.standard_normal(shape).astype(row.dtype))
    nan = np.array([0x7FC00001 + rank, 0xFFC00002, 0x80000000, 0x7F800000], np.uint32)
    out.append(nan.view(np.float32))  # NaN payloads and -0.0, +inf
    out.append(np.asfortranarray(np.arange(6 * (rank + 1), dtype=np.float64).reshape(-1, 3)))
    out.append(np.arange(24, dtype=np.int32).reshape(4, 6)[::2, ::-3])  # strided, reversed
    out.append(np.arange(5, dtype=">i4") * (rank + 1))  # big-endian (a .npy written elsewhere)
    out.append(np.array(rank * 1.5, dtype=ml_dtypes.bfloat16))  # 0-d
    out.append(np.zeros((0, rank + 1), np.float32))  # empty
    out.append(rng.standard_normal(2500 + 100 * rank))  # ~20 KB: many chunk rounds
    return out


def digest(per_rank: list[list[np.ndarray]]) -> str:
    """sha256 over every rank's arrays: dtype, shape and bytes in C order."""
    h = hashlib.sha256()
    for values in per_rank:
        for v in values:
            h.update(f"{v.dtype.str}/{v.dtype.name}/{v.shape};".encode())
            h.update(np.ascontiguousarray(v).reshape(-1).view(np.uint8).tobytes())
    return h.hexdigest()


def allgather(comm: Any, values: list[np.ndarray], chunk: int, wait: Any) -> list[list[np.ndarray]]:
    """Every rank's `values`, rank by rank."""
    from mpi4py import MPI

    n, me = comm.Get_size(), comm.Get_rank()
    header, buffers = wire.encode(values)
    fixed, rest = wire.frame(header)
    frames = np.empty(n * wire.HEADER_SIZE, np.uint8)
    wait(comm.Iallgather([np.frombuffer(fixed, np.uint8), MPI.BYTE], [frames, MPI.BYTE]))
    size = wire.HEADER_SIZE
    fixed_of = [frames[k * size : (k + 1) * size].tobytes() for k in range(n)]
    rest_sizes = [wire.rest_length(f) for f in fixed_of]
    rests = [b""] * n
    if any(rest_sizes):
        displs = [sum(rest_sizes[:k]) for k in range(n)]
        got = np.empty(sum(rest_sizes), np.uint8)
        mine = np.frombuffer(rest, np.uint8) if rest else np.empty(0, np.uint8)
        wait(comm.Iallgatherv([mine, MPI.BYTE], [got, (rest_sizes, displs), MPI.BYTE]))
        rests = [got[displs[k] : displs[k] + rest_sizes[k]].tobytes() for k in range(n)]
    headers = [wire.unframe(fixed_of[k], rests[k]) for k in range(n)]
    received = [wire.receive_buffers(h) for h in headers]
    for i, own in enumerate(buffers):
        sizes = [received[k][i].size for k in range(n)]
        for rnd in wire.gather_rounds(sizes, chunk):
            start, stop = rnd.ranges[me]
            got = np.empty(rnd.total, np.uint8)
            wait(comm.Iallgatherv([own[start:stop], MPI.BYTE],
                                  [got, (list(rnd.counts), list(rnd.displs)), MPI.BYTE]))
            for k, (a, b) in enumerate(rnd.ranges):
                received[k][i][a:b] = got[rnd.displs[k] : rnd.displs[k] + rnd.counts[k]]
    return [wire.decode(headers[k], received[k]) for k in range(n)]


def main(argv: list[str]) -> int:
    from stablehlo_py.interpreter.mpi import require_mpi
    from stablehlo_py.interpreter.mpi.wait import wait

    MPI = require_mpi()
    comm = MPI.COMM_WORLD
    out = Path(argv[0])
    chunk = int(argv[1]) if len(argv) > 1 else wire.MAX_CHUNK
    got = allgather(comm, contribution(comm.Get_rank()), chunk, lambda r: wait(r, timeout=60))
    problems = []
    for k, values in enumerate(got):
        expected = contribution(k)
        for i, (v, e) in enumerate(zip(values, expected, strict=True)):
            if (v.dtype, v.shape) != (e.dtype, e.shape) or v.tobytes() != e.tobytes():
                problems.append(f"rank {k} value {i}: {v.dtype}{v.shape} != {e.dtype}{e.shape}")
    report = {"rank": comm.Get_rank(), "size": comm.Get_size(), "ok": not problems,
              "digest": digest(got), "problems": problems[:5]}
    (out / f"rank{comm.Get_rank()}.json").write_text(json.dumps(report))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
