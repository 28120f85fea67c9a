"""Which op of a reference trace is which op of ours: by place in the run, then by op key.

Keys (``<scope>/<op name>#<n>``) name the same op in a program and in one derived from it, as
long as the change keeps each op's name location.  A change can move an op to another scope: JAX
gives a constant it writes itself the location of the whole function (``jit(f)``), so changing a
reduction's init from ``-inf`` to ``0`` moves that constant from ``jit(f)/block2/peak`` to
``jit(f)``, and every later constant of ``jit(f)`` shifts its ordinal: matched by key alone, the
planted op would be missing and the later constants paired with their neighbours.

So the two traces are aligned in trace order first, as a diff aligns lines:

1. anchors: the entries with the same key on both sides (and the same op and result types) whose
   places agree -- the longest chain of such pairs in increasing order on both sides (patience
   diff's rule; a shifted key pairs out of order with its neighbours and is left out);
2. between two anchors, the stretches left on each side are aligned on each entry's (scope, op
   name, result types) (`difflib.SequenceMatcher`): equal runs pair in order; a replaced stretch
   pairs one for one when both sides have as many entries with the same result types (the same op
   in another scope, or another op in its place), else entries with the same op name and result
   types pair in order;
3. entries left over pair by equal key (an op that moved, as canonicalization hoists constants).

The rest are on one side only.  Time: n log n in the traces' length, plus the product of the
lengths of each pair of stretches between anchors (pairs beyond `GAP` are left to step 3).
"""

from __future__ import annotations

from difflib import SequenceMatcher

from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["match_entries"]


GAP = 4_000_000
"""Stretches between anchors whose lengths multiply to more than this are not aligned (step 3
only): aligning costs up to their product."""


def _signature(e: TraceEntry) -> tuple[str, str, tuple[str, ...]]:
    return (e.scope, e.op, e.types)


def match_entries(ours: Trace, reference: Trace, *, align: bool = True) -> dict[str, TraceEntry]:
    """Our key -> the reference's entry for the same op (see the module doc; ``align=False``:
    by key only)."""
    pairs: dict[str, TraceEntry] = {}
    taken: set[str] = set()
    a, b = list(ours), list(reference)
    if align and a and b:
        i0 = j0 = 0
        for i, j in [*_anchors(a, b), (len(a), len(b))]:
            _align_gap(a[i0:i], b[j0:j], pairs, taken)
            if i < len(a):
                pairs[a[i].key] = b[j]
                taken.add(b[j].key)
            i0, j0 = i + 1, j + 1
    for e in a:
        if e.key not in pairs and e.key in reference and e.key not in taken:
            pairs[e.key] = reference[e.key]
            taken.add(e.key)
    return pairs


def _anchors(a: list[TraceEntry], b: list[TraceEntry]) -> list[tuple[int, int]]:
    """The longest chain of same-key pairs (i, j) increasing in both (patience sorting)."""
    where = {e.key: j for j, e in enumerate(b)}
    candidates = []
    for i, e in enumerate(a):
        j = where.get(e.key)
        if j is not None and b[j].op == e.op and b[j].types == e.types:
            candidates.append((i, j))
    tails: list[int] = []  # tails[n]: index in candidates of the chain of length n+1's end
    back = [-1] * len(candidates)
    for n, (_, j) in enumerate(candidates):
        k = _search(tails, candidates, j)
        if k > 0:
            back[n] = tails[k - 1]
        if k == len(tails):
            tails.append(n)
        else:
            tails[k] = n
    chain = []
    n = tails[-1] if tails else -1
    while n != -1:
        chain.append(candidates[n])
        n = back[n]
    return chain[::-1]


def _search(tails: list[int], candidates: list[tuple[int, int]], j: int) -> int:
    """The first chain length whose end's place in ``b`` is not below ``j`` (binary search)."""
    lo, hi = 0, len(tails)
    while lo < hi:
        mid = (lo + hi) // 2
        if candidates[tails[mid]][1] < j:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _align_gap(
    a: list[TraceEntry], b: list[TraceEntry], pairs: dict[str, TraceEntry], taken: set[str]
) -> None:
    """Align the entries between two anchors (step 2 of the module doc)."""
    if not a or not b or len(a) * len(b) > GAP:
        return
    matcher = SequenceMatcher(
        None, [_signature(e) for e in a], [_signature(e) for e in b], autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2]):
                pairs[x.key] = y
                taken.add(y.key)
        elif tag == "replace":
            _pair_replaced(a[i1:i2], b[j1:j2], pairs, taken)


def _pair_replaced(
    a: list[TraceEntry], b: list[TraceEntry], pairs: dict[str, TraceEntry], taken: set[str]
) -> None:
    """Pair the entries of a replaced stretch: one for one when both sides have as many (the same
    result types: an op changed in place, ``maximum`` to ``minimum``), else those with the same
    op name and result types, in order (each reference entry once, never going back)."""
    if len(a) == len(b):
        for x, y in zip(a, b):
            if x.types == y.types and y.key not in taken:
                pairs[x.key] = y
                taken.add(y.key)
        return
    j = 0
    for x in a:
        for k in range(j, len(b)):
            y = b[k]
            if y.op == x.op and y.types == x.types and y.key not in taken:
                pairs[x.key] = y
                taken.add(y.key)
                j = k + 1
                break
