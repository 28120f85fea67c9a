"""The MPI grid's fast paths (docs/plans/issue-29-mpi.md §3.2, step 6): exchanges that move less
than the generic rendezvous (every member's whole contribution to every member) and give exactly
its bits.  `MpiGrid` (`grid.py`) overrides the `GridShape` exchanges with them:

- ``permute`` (collective_permute): each source sends its values to its targets only
  (``Isend``/``Irecv`` on the grid's point-to-point communicator, the tag from the channel: no
  communicator per pair); a process receives only what it is the target of.
- ``all_to_all``: one ``Ialltoallv`` per operand: member k receives only the pieces for it.
- ``broadcast`` (collective_broadcast): one ``Ibcast`` per value from its root.
- ``reduce`` (all_reduce, reduce_scatter, collective_reduce): the elements are split among the
  members, ``Ialltoallv`` gives member k its elements of every member's contribution, member k
  runs the caller's `combine` (the same: stack in group order + `tree_reduce`) on them, then
  ``Iallgatherv`` (all_reduce) or ``Igatherv`` to the group's first member (collective_reduce)
  puts the reduced pieces together; a reduce_scatter's member k is given exactly its part (the
  elements of part k of the scattered dimension) and keeps what it reduced.  `GridShape.reduce`'s
  contract says `combine` is elementwise (on the contributions of any range of elements it gives
  those elements' bits; `tree_reduce` reduces each element on its own:
  stablehlo_py/semantics/regions.py), so any split gives the generic path's bits.  Member k
  reduces in blocks of :data:`COMBINE_BLOCK_BYTES` of stacked contributions and frees what it
  received before the result is put together: a rank's extra memory is about its operand (what
  it receives, then the result) plus 1.5 blocks, instead of ~3n x its operand (n contributions,
  their stack, the tree's temporaries).

Choosing.  Each exchange of the MPI grid on a group starts with one header round (the generic
path's, `transfer.exchange_headers`): every member sends an *intro* (:func:`intro_header`: the
exchange's kind, the grid's mode, the arguments the members must agree on) and its tree header
(dtypes and shapes).  Every member then knows what every member has and makes the same choice:
the fast path when it applies (``*_applies``), else the generic path, which goes on with the
headers it has (`transfer.gather_trees(headers=...)`): no round more than before.  The choice
needs no more than the headers, so members never disagree on it (a mode that differs between
members, or arguments that do, choose the generic path).

:data:`MODE` (module-level; `MpiGrid(fast_paths=...)` per grid) is ``"auto"`` (default: the fast
path wherever it applies, reductions only from :data:`REDUCE_MIN_BYTES` per member, as below that
the generic path's two rounds are cheaper than three), ``"always"`` (wherever it applies: tests)
or ``"never"`` (the generic path only).  permute has no header round: set the mode alike on every
rank (a module-level switch, or the same `fast_paths=` on every rank's grid).
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stablehlo_py.interpreter.impls.process_grid import Combine, ProcessGroup, ProcessId
from stablehlo_py.interpreter.mpi import moves, wire
from stablehlo_py.interpreter.mpi.transfer import WaitFor, exchange_headers, flatten

from stablehlo_py.errors import InterpreterError

MODES = ("auto", "always", "never")
#: which exchanges take a fast path (module docstring); read at each exchange
MODE = "auto"
#: in mode "auto", a reduction takes the fast path from this many bytes per member contribution
REDUCE_MIN_BYTES = 64 * 1024
#: bytes of stacked contributions per call of a reduction's `combine` on the fast path
COMBINE_BLOCK_BYTES = 4 << 20
#: the point-to-point tags of collective_permute (below: the grid's handshake's)
_PERMUTE_TAGS = (16, 32767)  # MPI guarantees tags up to 32767


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise InterpreterError(
            f"unknown fast-path mode {mode!r} for the MPI process grid: one of "
            f"{', '.join(MODES)}"
        )
    return mode


# -------------------------------------------------------------------------------------- headers


def _arrays(values: Sequence[Any]) -> list[np.ndarray]:
    return [np.asarray(v) for v in values]


def tree_header(tree: Any) -> bytes:
    """`transfer.encode_tree(tree)`'s header, without copying any array into C order."""
    structure, leaves = flatten(tree)
    entries = [[wire.dtype_code(a.dtype), list(a.shape), a.nbytes] for a in _arrays(leaves)]
    return (
        json.dumps(structure, separators=(",", ":")).encode("ascii") + b"\n"
        + json.dumps(entries, separators=(",", ":")).encode("ascii")
    )


def intro_header(intro: dict[str, Any], tree: Any) -> bytes:
    """What a member sends in the header round: its intro (one JSON line), then `tree`'s
    header."""
    line = json.dumps(intro, sort_keys=True, separators=(",", ":")).encode("ascii")
    return line + b"\n" + tree_header(tree)


def split_intro(header: bytes) -> tuple[dict[str, Any], bytes]:
    """(the intro, the tree header) of what :func:`intro_header` made."""
    line, sep, rest = bytes(header).partition(b"\n")
    try:
        intro = json.loads(line.decode("ascii")) if sep else None
    except (ValueError, UnicodeDecodeError):
        intro = None
    if not isinstance(intro, dict) or "kind" not in intro:
        raise InterpreterError(
            "the MPI process grid received a header without an intro: another rank runs another "
            "version of the MPI grid, or is at something other than an exchange of the grid"
        )
    return intro, rest


def read_tree_header(header: bytes) -> tuple[Any, list[wire.Spec]]:
    """(structure, specs of the arrays) of a tree header."""
    line, sep, arrays = bytes(header).partition(b"\n")
    try:
        structure = json.loads(line.decode("ascii")) if sep else None
    except (ValueError, UnicodeDecodeError):
        structure = None
    if structure is None:
        raise InterpreterError("MPI tree header has no structure line")
    return structure, wire.read_header(arrays)


@dataclass
class Meeting:
    """A group after the header round: its communicator (rank k = member k), the caller's index,
    every member's intro and tree header, how to wait, the most bytes per MPI call."""

    MPI: Any  # noqa: N815 - mpi4py's module name
    comm: Any
    members: ProcessGroup
    index: int
    intros: list[dict[str, Any]]
    headers: list[bytes]
    wait_for: WaitFor
    chunk: int = wire.MAX_CHUNK
    _trees: dict[int, tuple[Any, list[wire.Spec]]] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return len(self.members)

    def tree(self, k: int) -> tuple[Any, list[wire.Spec]]:
        """(structure, array specs) of member k's contribution."""
        if k not in self._trees:
            self._trees[k] = read_tree_header(self.headers[k])
        return self._trees[k]

    def mode(self) -> str:
        """The fast-path mode every member agrees on, with the rest of the intro ("never" when
        the intros differ)."""
        first = self.intros[0]
        return first["mode"] if all(i == first for i in self.intros) else "never"

    def kinds(self) -> list[str]:
        return [str(i["kind"]) for i in self.intros]


def meet(
    MPI: Any,  # noqa: N803 - mpi4py's module name
    comm: Any,
    members: ProcessGroup,
    channel_id: Any,
    intro: dict[str, Any],
    tree: Any,
    wait_for: WaitFor,
    *,
    chunk: int = wire.MAX_CHUNK,
) -> Meeting:
    """The header round of an exchange on `comm` (rank k = members[k]): every member's `intro`
    (its "kind", "mode" and what else must agree) and `tree`'s header.  Members at exchanges of
    different kinds get an error (every one of them)."""
    raw = exchange_headers(MPI, comm, intro_header(intro, tree), wait_for)
    intros, headers = zip(*(split_intro(h) for h in raw), strict=True)
    meeting = Meeting(MPI, comm, members, comm.Get_rank(), list(intros), list(headers), wait_for,
                      chunk)
    kinds = meeting.kinds()
    if len(set(kinds)) > 1:
        at = ", ".join(f"process {p} at {k}" for p, k in zip(members, kinds, strict=True))
        raise InterpreterError(
            f"processes {list(members)} met on channel {channel_id} at different exchanges "
            f"({at}): every process of a group must reach the same collective op"
        )
    return meeting


# ------------------------------------------------------------------------------- arrays, bytes


def _c_ordered(a: np.ndarray) -> np.ndarray:
    return a if a.flags.c_contiguous else a.copy(order="C")


def _bytes(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array's memory as 1-d uint8 (no copy)."""
    return a.reshape(-1).view(np.uint8)


def _as_array(raw: np.ndarray, spec: wire.Spec) -> np.ndarray:
    """The array of `spec` over received bytes (as `wire.decode` makes it)."""
    if spec.nbytes == 0:
        return np.empty(spec.shape, spec.dtype)
    a = raw.view(spec.dtype).reshape(spec.shape)
    return a if a.flags.aligned else a.copy()


def element_ranges(size: int, n: int) -> list[tuple[int, int]]:
    """[start, stop) of member k's elements when `size` elements (C order) are split among n."""
    return [(k * size // n, (k + 1) * size // n) for k in range(n)]


def by_member(a: np.ndarray, n: int, dim: int) -> np.ndarray:
    """`a` split into n equal parts along `dim` (as ``np.split``), stacked: C-ordered (n, *part)
    (no copy when the parts already lie back to back)."""
    shape = a.shape
    split = a.reshape(shape[:dim] + (n, shape[dim] // n) + shape[dim + 1 :])
    return np.ascontiguousarray(np.moveaxis(split, dim, 0))


def permute_tag(channel_id: int) -> int:
    """The tag of collective_permute's messages on a channel."""
    lo, hi = _PERMUTE_TAGS
    span = hi - lo
    if 0 <= channel_id < span:
        return lo + channel_id
    return lo + zlib.crc32(repr(channel_id).encode()) % span


# ------------------------------------------------------------------------------------- reduce


def reduce_applies(m: Meeting, scatter_dim: int | None, to_root: bool) -> bool:
    """Whether the partitioned reduction applies: the members agree (intro), have the same
    arrays (dtypes, shapes: a flat list), a reduce_scatter's dimension splits evenly, and the
    mode allows it for this size."""
    mode = m.mode()
    if mode == "never" or len(set(m.headers)) != 1:
        return False
    structure, specs = m.tree(0)
    if not specs or structure != [0] * len(specs):
        return False
    if scatter_dim is not None and not to_root:
        for s in specs:
            if not 0 <= scatter_dim < len(s.shape) or s.shape[scatter_dim] % m.size:
                return False
    return mode == "always" or sum(s.nbytes for s in specs) >= REDUCE_MIN_BYTES


def combine_blocks(combine: Combine, rows: Sequence[np.ndarray]) -> list[np.ndarray]:
    """`combine` of the members' elements, `rows[i]` (n members x elements) per value, called on
    blocks of at most :data:`COMBINE_BLOCK_BYTES` stacked bytes per value; the reduced elements,
    one 1-d array per value."""
    n = rows[0].shape[0]
    lengths = [r.shape[1] for r in rows]
    blocks = [max(1, COMBINE_BLOCK_BYTES // max(1, n * r.dtype.itemsize)) for r in rows]
    steps = max([1] + [math.ceil(size / b) for size, b in zip(lengths, blocks, strict=True)])
    out: list[np.ndarray] | None = None
    for step in range(steps):
        spans = [(min(step * b, size), min((step + 1) * b, size))
                 for size, b in zip(lengths, blocks, strict=True)]
        got = [np.asarray(g) for g in combine(
            [[r[k, lo:hi] for r, (lo, hi) in zip(rows, spans, strict=True)] for k in range(n)]
        )]
        if out is None:
            out = [np.empty(size, g.dtype) for size, g in zip(lengths, got, strict=False)]
        if len(got) != len(rows) or any(
            g.shape != (hi - lo,) or g.dtype != o.dtype
            for g, o, (lo, hi) in zip(got, out, spans, strict=True)
        ):
            raise InterpreterError(
                "the MPI grid's partitioned reduction needs an elementwise combine: on "
                f"{[hi - lo for lo, hi in spans]} elements it returned "
                f"{[(str(g.dtype), list(g.shape)) for g in got]}",
                note="use the generic path: stablehlo_py.interpreter.mpi.fast_paths.MODE = 'never'",
            )
        for o, g, (lo, hi) in zip(out, got, spans, strict=True):
            o[lo:hi] = g
    assert out is not None
    return out


def reduce(
    m: Meeting, values: Sequence[Any], combine: Combine, scatter_dim: int | None, to_root: bool
) -> tuple[list[Any] | None, int]:
    """`GridShape.reduce` by parts (module docstring), where :func:`reduce_applies`: (the
    result, or None on a member other than the root of a reduction to the root; the bytes this
    rank received from the others)."""
    n, me = m.size, m.index
    arrays = _arrays(values)
    scatter = scatter_dim is not None and not to_root
    received = 0
    rows = []
    for a in arrays:
        if scatter:
            assert scatter_dim is not None
            send = by_member(a, n, scatter_dim)
            counts = [a.size // n] * n
        else:
            send = _c_ordered(a)
            counts = [hi - lo for lo, hi in element_ranges(a.size, n)]
        item = a.dtype.itemsize
        mine = counts[me]
        got = np.empty(n * mine * item, np.uint8)
        moves.alltoallv(
            m.MPI, m.comm, m.wait_for, _bytes(send), [c * item for c in counts], got,
            [mine * item] * n, most=max(counts) * item, chunk=m.chunk,
        )
        rows.append(got.view(a.dtype).reshape(n, mine))
        received += (n - 1) * mine * item
        del send, got
    pieces = combine_blocks(combine, rows)
    del rows  # what was received: freed before the results are put together
    if scatter:
        assert scatter_dim is not None
        return [
            p.reshape(by_member_shape(a.shape, n, scatter_dim))
            for a, p in zip(arrays, pieces, strict=True)
        ], received
    root = 0 if to_root else None
    out = []
    for a, p in zip(arrays, pieces, strict=True):
        item = p.dtype.itemsize
        counts = [(hi - lo) * item for lo, hi in element_ranges(a.size, n)]
        whole = np.empty(a.size, p.dtype) if root in (None, me) else None
        moves.gather_into(
            m.MPI, m.comm, m.wait_for, _bytes(p), None if whole is None else _bytes(whole),
            counts, root=root, chunk=m.chunk,
        )
        if whole is not None:
            out.append(whole.reshape(a.shape))
            received += whole.nbytes - counts[me]
    if root is not None and root != me:
        return None, received
    if scatter_dim is not None:  # a reduction to the root that scatters too: the root's part
        out = [np.split(r, n, axis=scatter_dim)[me] for r in out]
    return out, received


def by_member_shape(shape: tuple[int, ...], n: int, dim: int) -> tuple[int, ...]:
    """The shape of one of the n parts of `shape` along `dim`."""
    return shape[:dim] + (shape[dim] // n,) + shape[dim + 1 :]


# --------------------------------------------------------------------------------- all_to_all


def all_to_all_applies(m: Meeting) -> bool:
    """Whether the members agree (intro) and each gives, per operand, one array per member."""
    if m.mode() == "never":
        return False
    structure = m.tree(0)[0]
    return (
        isinstance(structure, list) and len(structure) > 0
        and all(row == [0] * m.size for row in structure)
        and all(m.tree(k)[0] == structure for k in range(m.size))
    )


def _put(buffer: np.ndarray, a: np.ndarray) -> None:
    """Copy `a`'s elements in C order into `buffer` (uint8, a.nbytes long), bit for bit."""
    if a.nbytes:
        buffer.view(a.dtype).reshape(a.shape)[...] = a


def all_to_all(m: Meeting, pieces: Sequence[Sequence[Any]]) -> tuple[list[list[Any]], int]:
    """`GridShape.all_to_all` with one ``Ialltoallv`` per operand, where
    :func:`all_to_all_applies`: (the pieces every member has for the caller, per operand in
    group order; the bytes received from the others)."""
    n, me = m.size, m.index
    specs = [m.tree(k)[1] for k in range(n)]  # leaf i * n + j: member k's piece of operand i for j
    out, received = [], 0
    for i, row in enumerate(pieces):
        own = _arrays(row)
        send_counts = [p.nbytes for p in own]
        send = np.empty(sum(send_counts), np.uint8)
        for p, at, size in zip(own, moves.offsets(send_counts), send_counts, strict=True):
            _put(send[at : at + size], p)
        from_k = [specs[k][i * n + me] for k in range(n)]
        recv_counts = [s.nbytes for s in from_k]
        got = np.empty(sum(recv_counts), np.uint8)
        most = max(s.nbytes for k in range(n) for s in specs[k][i * n : (i + 1) * n])
        moves.alltoallv(m.MPI, m.comm, m.wait_for, send, send_counts, got, recv_counts,
                        most=most, chunk=m.chunk)
        del send
        starts = moves.offsets(recv_counts)
        out.append([
            _as_array(got[at : at + s.nbytes], s) for at, s in zip(starts, from_k, strict=True)
        ])
        received += sum(recv_counts) - recv_counts[me]
    return out, received


# ---------------------------------------------------------------------------------- broadcast


def broadcast_applies(m: Meeting, count: int) -> bool:
    """Whether the members agree (intro: the roots too) and each gives `count` arrays."""
    return m.mode() != "never" and all(m.tree(k)[0] == [0] * count for k in range(m.size))


def broadcast(m: Meeting, values: Sequence[Any], roots: Sequence[int]) -> tuple[list[Any], int]:
    """`GridShape.broadcast` with one ``Ibcast`` per value from its root, where
    :func:`broadcast_applies`: (the root's values; the bytes received)."""
    out, received = [], 0
    for k, root in enumerate(roots):
        if root == m.index:
            own = _c_ordered(np.asarray(values[k]))
            if not own.flags.writeable:  # MPI may want a writable buffer even at the root
                own = own.copy()
            moves.bcast(m.MPI, m.comm, m.wait_for, _bytes(own), root, chunk=m.chunk)
            out.append(values[k])
            continue
        spec = m.tree(root)[1][k]
        got = np.empty(spec.nbytes, np.uint8)
        moves.bcast(m.MPI, m.comm, m.wait_for, got, root, chunk=m.chunk)
        out.append(_as_array(got, spec))
        received += spec.nbytes
    return out, received


# ------------------------------------------------------------------------------------ permute


def permute(
    MPI: Any,  # noqa: N803 - mpi4py's module name
    comm: Any,
    pairs: Sequence[ProcessGroup],
    pid: ProcessId,
    values: list[Any],
    *,
    rank_of: Callable[[ProcessId], int],
    tag: int,
    waiter: Callable[[ProcessGroup], WaitFor],
    chunk: int = wire.MAX_CHUNK,
) -> tuple[list[Any] | None, int]:
    """`GridShape.permute` point to point on `comm` (ranks: `rank_of`): the caller sends its
    values to each pair's target it is the source of and receives from each pair's source it is
    the target of (pairs in list order, the last one wins, as in the generic path); `waiter(pair)`
    waits with that pair's timeout message.  (What the caller received, or None when it is no
    pair's target; the bytes received.)"""
    mine = [pair for pair in pairs if pid in (pair[0], pair[1])]
    sends = []
    for source, target in mine:
        if source == pid and target != pid:
            requests, buffers = moves.isend_tree(MPI, comm, values, rank_of(target), tag,
                                                 chunk=chunk)
            sends.append(((source, target), requests, buffers))
    received: list[Any] | None = None
    nbytes = 0
    for source, target in mine:
        if target != pid:
            continue
        if source == pid:
            received = values
            continue
        tree, size = moves.recv_tree(MPI, comm, waiter((source, target)), rank_of(source), tag,
                                     chunk=chunk)
        received, nbytes = tree, nbytes + size
    for pair, requests, _buffers in sends:
        waiter(pair)(requests)
    return received, nbytes


__all__ = [
    "COMBINE_BLOCK_BYTES",
    "MODE",
    "MODES",
    "REDUCE_MIN_BYTES",
    "Meeting",
    "all_to_all",
    "all_to_all_applies",
    "broadcast",
    "broadcast_applies",
    "by_member",
    "by_member_shape",
    "check_mode",
    "combine_blocks",
    "element_ranges",
    "intro_header",
    "meet",
    "permute",
    "permute_tag",
    "read_tree_header",
    "reduce",
    "reduce_applies",
    "split_intro",
    "tree_header",
]
