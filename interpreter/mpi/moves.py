"""Moving raw bytes between the ranks of an MPI communicator, for the MPI grid's fast paths
(`fast_paths.py`): each rank receives only the bytes it needs.

- :func:`alltoallv`: rank k's block for rank j arrives at rank j (``Ialltoallv``);
- :func:`gather_into`: every rank's block, back to back in rank order, on every rank
  (``Iallgatherv``) or on one root (``Igatherv``);
- :func:`bcast`: one root's bytes on every rank (``Ibcast``);
- :func:`isend_tree` / :func:`recv_tree`: a tree of arrays (`transfer.py`) from one rank to
  another (``Isend``/``Irecv``: a header frame, the rest of a longer header, then the bytes).

No MPI count, displacement or buffer passes `chunk` bytes (MPI-3's int counts: `wire.MAX_CHUNK`):
larger moves go in rounds, every rank computing the same rounds from what all ranks know (the
header round's sizes).  A collective move needs every rank of the communicator, with the same
arguments where so said.  Every request is waited for by the caller's `wait_for` (polled, abort
flag, timeout: `wait.py`).  Buffers are 1-d uint8 arrays (numpy's, C-contiguous).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.mpi import wire
from stablehlo_py.interpreter.mpi.transfer import WaitFor, decode_tree, encode_tree, tree_sizes


def offsets(counts: Sequence[int]) -> list[int]:
    """Where each of `counts` starts when they lie back to back."""
    out, at = [], 0
    for c in counts:
        out.append(at)
        at += c
    return out


def alltoallv_rounds(most: int, n: int, chunk: int = wire.MAX_CHUNK) -> int:
    """How many ``Ialltoallv`` rounds move blocks of at most `most` bytes between `n` ranks when
    no rank may send or receive more than `chunk` bytes per round (each pair moves up to
    chunk // n bytes a round)."""
    if most <= 0:
        return 0
    return math.ceil(most / max(1, chunk // n))


def alltoallv(
    MPI: Any,  # noqa: N803 - mpi4py's module name
    comm: Any,
    wait_for: WaitFor,
    send: np.ndarray,
    send_counts: Sequence[int],
    recv: np.ndarray,
    recv_counts: Sequence[int],
    *,
    most: int,
    chunk: int = wire.MAX_CHUNK,
) -> None:
    """`send` holds this rank's blocks for ranks 0..n-1 back to back (`send_counts` bytes each);
    the blocks the ranks have for this one arrive in `recv`, back to back in rank order
    (`recv_counts`).  `most`: the largest block any rank sends any rank (the same on every rank:
    it fixes the rounds)."""
    n = comm.Get_size()
    rounds = alltoallv_rounds(most, n, chunk)
    sends, recvs = offsets(send_counts), offsets(recv_counts)
    if rounds == 1:  # every block fits one round: the buffers themselves, no copies
        wait_for([comm.Ialltoallv(
            [send, (list(send_counts), sends), MPI.BYTE],
            [recv, (list(recv_counts), recvs), MPI.BYTE],
        )])
        return
    share = max(1, chunk // n)
    for r in range(rounds):
        lo = r * share
        sc = [max(0, min(c - lo, share)) for c in send_counts]
        rc = [max(0, min(c - lo, share)) for c in recv_counts]
        out = np.concatenate([send[sends[k] + lo : sends[k] + lo + sc[k]] for k in range(n)])
        got = np.empty(sum(rc), np.uint8)
        wait_for([comm.Ialltoallv(
            [out, (sc, offsets(sc)), MPI.BYTE], [got, (rc, offsets(rc)), MPI.BYTE]
        )])
        for k, at in enumerate(offsets(rc)):
            recv[recvs[k] + lo : recvs[k] + lo + rc[k]] = got[at : at + rc[k]]


def gather_into(
    MPI: Any,  # noqa: N803
    comm: Any,
    wait_for: WaitFor,
    mine: np.ndarray,
    whole: np.ndarray | None,
    counts: Sequence[int],
    *,
    root: int | None = None,
    chunk: int = wire.MAX_CHUNK,
) -> None:
    """Rank k's `mine` (`counts[k]` bytes; `counts` the same on every rank) lands at byte
    sum(counts[:k]) of `whole`: on every rank (`root` None), or on rank `root` only (`whole`
    None elsewhere)."""
    n, me = comm.Get_size(), comm.Get_rank()
    rounds = wire.gather_rounds(counts, chunk)
    receiving = root is None or root == me
    starts = offsets(counts)
    for rnd in rounds:
        a, b = rnd.ranges[me]
        send = [mine[a:b], MPI.BYTE]
        direct = len(rounds) == 1  # one round: straight into `whole`, already in rank order
        got = None if not receiving else whole if direct else np.empty(rnd.total, np.uint8)
        spec = None if got is None else [got, (list(rnd.counts), list(rnd.displs)), MPI.BYTE]
        if root is None:
            wait_for([comm.Iallgatherv(send, spec)])
        else:
            wait_for([comm.Igatherv(send, spec, root=root)])
        if got is None or direct:
            continue
        assert whole is not None
        for k in range(n):
            start, stop = rnd.ranges[k]
            whole[starts[k] + start : starts[k] + stop] = got[
                rnd.displs[k] : rnd.displs[k] + rnd.counts[k]
            ]


def bcast(
    MPI: Any,  # noqa: N803
    comm: Any,
    wait_for: WaitFor,
    buffer: np.ndarray,
    root: int,
    *,
    chunk: int = wire.MAX_CHUNK,
) -> None:
    """Rank `root`'s `buffer` into every rank's `buffer` (of the same size on every rank)."""
    wait_for([
        comm.Ibcast([buffer[a:b], MPI.BYTE], root=root)
        for a, b in wire.pieces(buffer.size, chunk)
    ])


def isend_tree(
    MPI: Any,  # noqa: N803
    comm: Any,
    tree: Any,
    dest: int,
    tag: int,
    *,
    chunk: int = wire.MAX_CHUNK,
) -> tuple[list[Any], list[np.ndarray]]:
    """Start sending `tree` to rank `dest` (what :func:`recv_tree` there receives): (the
    requests, the buffers they read, which must live until the requests complete)."""
    header, buffers = encode_tree(tree)
    fixed, rest = wire.frame(header)
    parts = [np.frombuffer(fixed, np.uint8)]
    if rest:
        parts.append(np.frombuffer(rest, np.uint8))
    parts += [b[x:y] for b in buffers for x, y in wire.pieces(b.size, chunk)]
    requests = [comm.Isend([p, MPI.BYTE], dest=dest, tag=tag) for p in parts]
    return requests, parts


def recv_tree(
    MPI: Any,  # noqa: N803
    comm: Any,
    wait_for: WaitFor,
    source: int,
    tag: int,
    *,
    chunk: int = wire.MAX_CHUNK,
) -> tuple[Any, int]:
    """The tree rank `source` sends with :func:`isend_tree` (same `tag` and `chunk`), and how
    many bytes of values it held."""
    fixed = np.empty(wire.HEADER_SIZE, np.uint8)
    wait_for([comm.Irecv([fixed, MPI.BYTE], source=source, tag=tag)])
    rest = np.empty(wire.rest_length(fixed.tobytes()), np.uint8)
    if rest.size:
        wait_for([comm.Irecv([rest, MPI.BYTE], source=source, tag=tag)])
    header = wire.unframe(fixed.tobytes(), rest.tobytes())
    buffers = [np.empty(size, np.uint8) for size in tree_sizes(header)]
    wait_for([
        comm.Irecv([b[x:y], MPI.BYTE], source=source, tag=tag)
        for b in buffers for x, y in wire.pieces(b.size, chunk)
    ])
    return decode_tree(header, buffers), sum(b.size for b in buffers)


__all__ = [
    "alltoallv",
    "alltoallv_rounds",
    "bcast",
    "gather_into",
    "isend_tree",
    "offsets",
    "recv_tree",
]
