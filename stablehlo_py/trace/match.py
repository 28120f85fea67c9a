"""Which op of a reference trace is which op of ours: by place in the run, then by op key.

Keys (``<scope>/<op name>#<n>``) name the same op in a program and in one derived from it, as
long as the change keeps each op's name location.  A change can move an op to another scope: JAX
gives a constant it writes itself the location of the whole function (``jit(f)``), so changing a
reduction's init from ``-inf`` to ``0`` moves that constant from ``jit(f)/block2/peak`` to
``jit(f)``, and every later constant of ``jit(f)`` shifts its ordinal: matched by key alone, the
planted op would be missing and the later constants paired with their neighbours.

So the two traces are aligned first, as a diff aligns lines (`difflib.SequenceMatcher`), on each
entry's (scope, op name, result types) in trace order: runs of equal entries pair up in order; in
a replaced stretch, entries with the same op name and result types pair up in order (the same op
with another scope).  Entries left over pair by equal key (an op that moved, as canonicalization
hoists constants).  The rest are on one side only.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["match_entries"]


def _signature(e: TraceEntry) -> tuple[str, str, tuple[str, ...]]:
    return (e.scope, e.op, e.types)


def match_entries(ours: Trace, reference: Trace, *, align: bool = True) -> dict[str, TraceEntry]:
    """Our key -> the reference's entry for the same op (see the module doc; ``align=False``:
    by key only)."""
    pairs: dict[str, TraceEntry] = {}
    taken: set[str] = set()
    a, b = list(ours), list(reference)
    if align and a and b:
        matcher = SequenceMatcher(None, [_signature(e) for e in a], [_signature(e) for e in b])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for x, y in zip(a[i1:i2], b[j1:j2]):
                    pairs[x.key] = y
                    taken.add(y.key)
            elif tag == "replace":
                _pair_replaced(a[i1:i2], b[j1:j2], pairs, taken)
    for e in a:
        if e.key not in pairs and e.key in reference and e.key not in taken:
            pairs[e.key] = reference[e.key]
            taken.add(e.key)
    return pairs


def _pair_replaced(
    a: list[TraceEntry], b: list[TraceEntry], pairs: dict[str, TraceEntry], taken: set[str]
) -> None:
    """Pair entries of a replaced stretch that have the same op name and result types, in order
    (each reference entry at most once, never going back)."""
    j = 0
    for x in a:
        for k in range(j, len(b)):
            y = b[k]
            if y.op == x.op and y.types == x.types and y.key not in taken:
                pairs[x.key] = y
                taken.add(y.key)
                j = k + 1
                break
