"""Gathering values over an MPI communicator: the generic path of the MPI process grid (`grid.py`).

A *tree* is what a process contributes to a rendezvous: an array (or a numpy scalar), or a list or
tuple of trees (`GridShape.all_to_all` contributes one list of pieces per operand).  A tree travels
as a header, the JSON of its structure (``0`` for an array, a list for a list, ``{"tuple": [...]}``
for a tuple) and `wire`'s header of its arrays (:func:`encode_tree`), plus one byte buffer per
array.

:func:`gather_trees` is one all-gather (or gather to a root) of every rank's tree:

1. header round: each rank's header in a fixed frame (``Iallgather``), the rest of longer headers
   in a second round (``Iallgatherv``); every rank learns every rank's byte counts, also when only
   a root receives the values, so that every rank computes the same rounds;
2. value rounds: for array k of the trees (ranks with fewer arrays send nothing for it), the bytes
   in rounds of ``Iallgatherv`` (``Igatherv``) that no count passes `chunk` (`wire.gather_rounds`).
   With one round, the arrays are views into the received buffer (no copy).

Every request is waited for by the caller's `wait_for` (polled, abort flag, timeout: `wait.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from stablehlo_py.interpreter.mpi import wire

from stablehlo_py.errors import InterpreterError

Tree = Any
WaitFor = Callable[[Sequence[Any]], None]
"""Waits until every request given has completed (or raises)."""

_LEAF = 0
_END = object()
_EMPTY = np.empty(0, np.uint8)


# ------------------------------------------------------------------------------------ structure


def flatten(tree: Tree) -> tuple[Any, list[Any]]:
    """(the tree's structure as JSON data, its arrays in depth-first order)."""
    leaves: list[Any] = []

    def walk(node: Tree) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if isinstance(node, tuple):
            return {"tuple": [walk(n) for n in node]}
        leaves.append(node)
        return _LEAF

    return walk(tree), leaves


def unflatten(structure: Any, leaves: Sequence[Any]) -> Tree:
    """The tree of `structure` (:func:`flatten`'s) holding `leaves` in order."""
    it = iter(leaves)

    def build(node: Any) -> Tree:
        if node == _LEAF and not isinstance(node, bool):
            return next(it)
        if isinstance(node, list):
            return [build(n) for n in node]
        if isinstance(node, dict) and set(node) == {"tuple"}:
            return tuple(build(n) for n in node["tuple"])
        raise InterpreterError(f"MPI tree header holds an unknown node {node!r}")

    try:
        tree = build(structure)
    except StopIteration:
        raise InterpreterError(
            f"MPI tree header lists more arrays than the {len(leaves)} that arrived"
        ) from None
    if next(it, _END) is not _END:
        raise InterpreterError(f"MPI tree header lists fewer arrays than the {len(leaves)} sent")
    return tree


def encode_tree(tree: Tree) -> tuple[bytes, list[np.ndarray]]:
    """(header: structure JSON, a newline, `wire`'s header; one uint8 buffer per array)."""
    structure, leaves = flatten(tree)
    arrays_header, buffers = wire.encode(leaves)
    return json.dumps(structure, separators=(",", ":")).encode("ascii") + b"\n" + arrays_header, (
        buffers
    )


def _split(header: bytes) -> tuple[Any, bytes]:
    head, sep, arrays_header = bytes(header).partition(b"\n")
    if not sep:
        raise InterpreterError("MPI tree header has no structure line")
    try:
        structure = json.loads(head.decode("ascii"))
    except (ValueError, UnicodeDecodeError) as e:
        raise InterpreterError(f"MPI tree header's structure is not JSON: {e}") from None
    return structure, arrays_header


def tree_sizes(header: bytes) -> list[int]:
    """Byte counts of the arrays a tree header lists, in order."""
    return [s.nbytes for s in wire.read_header(_split(header)[1])]


def decode_tree(header: bytes, buffers: Sequence[Any]) -> Tree:
    """The tree a header and its received buffers carry (:func:`encode_tree`'s inverse)."""
    structure, arrays_header = _split(header)
    return unflatten(structure, wire.decode(arrays_header, buffers))


# ------------------------------------------------------------------------------------ gathering


def exchange_headers(
    MPI: Any, comm: Any, header: bytes, wait_for: WaitFor  # noqa: N803 - mpi4py's module name
) -> list[bytes]:
    """Every rank's header (any bytes), by communicator rank: a fixed frame each, then the rest
    of longer ones."""
    n, size = comm.Get_size(), wire.HEADER_SIZE
    fixed, rest = wire.frame(header)
    frames = np.empty(n * size, np.uint8)
    wait_for([comm.Iallgather([np.frombuffer(fixed, np.uint8), MPI.BYTE], [frames, MPI.BYTE])])
    fixed_of = [frames[k * size : (k + 1) * size].tobytes() for k in range(n)]
    rest_sizes = [wire.rest_length(f) for f in fixed_of]
    rests = [b""] * n
    if any(rest_sizes):
        displs = [sum(rest_sizes[:k]) for k in range(n)]
        got = np.empty(sum(rest_sizes), np.uint8)
        mine = np.frombuffer(rest, np.uint8) if rest else _EMPTY
        wait_for([comm.Iallgatherv([mine, MPI.BYTE], [got, (rest_sizes, displs), MPI.BYTE])])
        rests = [got[displs[k] : displs[k] + rest_sizes[k]].tobytes() for k in range(n)]
    return [wire.unframe(fixed_of[k], rests[k]) for k in range(n)]


def gather_trees(
    MPI: Any,  # noqa: N803 - mpi4py's module name
    comm: Any,
    tree: Tree,
    *,
    wait_for: WaitFor,
    root: int | None = None,
    chunk: int = wire.MAX_CHUNK,
    headers: Sequence[bytes] | None = None,
) -> list[Tree] | None:
    """Every rank's `tree`, by communicator rank: on every rank (`root` None), or on rank `root`
    only (the others get None).  Every rank of `comm` must call it, with the same `root` and
    `chunk`.  `headers`: every rank's tree header when a header round already took place (the
    MPI grid's, which carries more than the trees: `fast_paths.py`); then only the values move."""
    n, me = comm.Get_size(), comm.Get_rank()
    header, own = encode_tree(tree)
    if headers is None:
        headers = exchange_headers(MPI, comm, header, wait_for)
    elif len(headers) != n or headers[me] != header:
        raise InterpreterError(
            f"gather_trees was given {len(headers)} headers for {n} ranks, or another header "
            "than this rank's tree's"
        )
    sizes_of = [tree_sizes(h) for h in headers]
    receiving = root is None or root == me
    received: list[list[Any]] = [[None] * len(s) for s in sizes_of]
    for i in range(max(len(s) for s in sizes_of)):
        sizes = [s[i] if i < len(s) else 0 for s in sizes_of]
        rounds = wire.gather_rounds(sizes, chunk)
        whole = None
        if receiving and len(rounds) > 1:  # assembled from the rounds' pieces
            whole = [np.empty(size, np.uint8) for size in sizes]
        for rnd in rounds:
            a, b = rnd.ranges[me]
            send = [own[i][a:b] if i < len(own) else _EMPTY, MPI.BYTE]
            got = np.empty(rnd.total, np.uint8) if receiving else None
            spec = None if got is None else [got, (list(rnd.counts), list(rnd.displs)), MPI.BYTE]
            if root is None:
                wait_for([comm.Iallgatherv(send, spec)])
            else:
                wait_for([comm.Igatherv(send, spec, root=root)])
            if got is None:
                continue
            for k in range(n):
                piece = got[rnd.displs[k] : rnd.displs[k] + rnd.counts[k]]
                if whole is None:
                    if i < len(sizes_of[k]):
                        received[k][i] = piece
                else:
                    start, stop = rnd.ranges[k]
                    whole[k][start:stop] = piece
        if receiving:
            for k in range(n):
                if i < len(sizes_of[k]) and received[k][i] is None:
                    received[k][i] = whole[k] if whole is not None else _EMPTY
    if not receiving:
        return None
    return [decode_tree(headers[k], received[k]) for k in range(n)]


__all__ = [
    "Tree",
    "decode_tree",
    "encode_tree",
    "exchange_headers",
    "flatten",
    "gather_trees",
    "tree_sizes",
    "unflatten",
]
