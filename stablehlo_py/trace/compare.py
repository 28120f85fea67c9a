"""Where a run diverges from a reference: the first op whose result differs while its operands
agree (``--compare-to``).

    comparison = compare_traces(ours, load_trace("reference.npz"), module)
    comparison = compare_to_backend(ours, module, args, "xla")      # trace/backend_trace.py
    print(comparison.report()); comparison.diverged

Ops are matched by their place in the run and by op key (`match.py`; keys are `op_keys`:
``<name-stack scope>/<op name>#<n>``), so the reference can be a run of the program this one was
derived from.  Each op of our trace that the reference also has is compared result by result
(`closeness.py`: values when both sides kept them, else summaries; integers and booleans exactly,
NaNs at the same elements, floats within rtol/atol).

**The first diverging op** is, in trace order (the order ops first ran: program order, a called
function's ops at its first call), the first op whose result differs while each of its operands
(read from the program) agrees: an operand made by an op both sides have and that compares equal,
or an argument of the entry function (both runs are assumed to get the same inputs); an argument
of a function called from one place, once, is that call's operand.  Its own error, not an
inherited one.  Operands that cannot be checked -- arguments of a function called more than once
or of a region's block (a ``while`` body: the trace keeps only the last iteration's values),
values the reference lacks -- neither confirm nor refute; when no differing op has all its operands
confirmed, the first differing op is reported instead, and the report says so.

Keys on one side only are listed (not an error); so are ops not compared (a value neither side
kept, results of different counts of runs summarized only, ops inside regions and called functions
when the reference is a backend, which returns the top-level values only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from stablehlo_py.interpreter.trace_stats import Summary
from xdsl.dialects.func import FuncOp
from xdsl.ir import BlockArgument, Operation, OpResult

from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.trace.closeness import Closeness, compare_arrays, compare_summaries
from stablehlo_py.trace.compare_report import format_comparison
from stablehlo_py.trace.match import match_entries
from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["Comparison", "OpDifference", "OperandCheck", "compare_traces"]

AGREES, DIFFERS, INPUT, UNKNOWN = "agrees", "differs", "input", "unknown"


@dataclass
class OperandCheck:
    """One operand of a differing op, and whether it agrees with the reference."""

    index: int
    source: str
    """Where it comes from: ``<op key>`` (``<op key> #<result>`` for a later result),
    ``argument N of @f``, or a region's block argument."""
    status: str
    """``agrees``, ``differs``, ``input`` (an argument of the entry function: taken as agreeing)
    or ``unknown`` (cannot be checked: ``note`` says why)."""
    summary: Summary | None = None
    """Our value's summary (None when the producer is not in our trace)."""
    closeness: Closeness | None = None
    note: str = ""

    @property
    def agrees(self) -> bool:
        return self.status in (AGREES, INPUT)


@dataclass
class OpDifference:
    """An op whose results differ from the reference's."""

    entry: TraceEntry
    """Our trace's entry (key, op name, location, source line, summaries)."""
    reference: TraceEntry
    results: list[tuple[int, Closeness]]
    """(result number, how it compares) for each result that differs."""
    operands: list[OperandCheck] = field(default_factory=list)

    @property
    def confirmed(self) -> bool:
        """Every operand agrees (or is an input): the difference starts here."""
        return all(o.agrees for o in self.operands)

    @property
    def key(self) -> str:
        return self.entry.key


@dataclass
class Comparison:
    """The outcome of one comparison (see the module doc)."""

    against: str
    """What the reference is: a file name, ``xla``, ``iree``."""
    entry: str = ""
    rtol: float | None = None
    atol: float | None = None
    compared: int = 0
    """Ops compared (present on both sides, something comparable)."""
    differing: list[OpDifference] = field(default_factory=list)
    """Every op that differs, in trace order."""
    closeness: dict[str, list[Closeness]] = field(default_factory=dict)
    """Every compared op (our key): how each of its results compares, agreeing or not (the
    graph view's max abs/rel difference overlays, `viz/overlays.py`)."""
    first: OpDifference | None = None
    """The first diverging op (None when nothing differs)."""
    fallback: bool = False
    """``first`` is only the first differing op: no differing op's operands could all be checked."""
    only_here: list[str] = field(default_factory=list)
    """Keys of ops our run has and the reference lacks."""
    only_reference: list[str] = field(default_factory=list)
    not_compared: list[tuple[str, str]] = field(default_factory=list)
    """(key, why) of ops on both sides (or a backend's region ops) that could not be compared."""
    missing_values: list[str] = field(default_factory=list)
    """Values the reference file lists but lacks (`load_trace`'s ``missing``)."""
    ours_ops: int = 0
    reference_ops: int = 0
    renamed: int = 0
    """Ops matched by their place in the run whose keys differ (`match.py`)."""
    notes: list[str] = field(default_factory=list)

    @property
    def diverged(self) -> bool:
        """Some op differs, or nothing at all could be compared (a reference of another program)."""
        return bool(self.differing) or (self.compared == 0 and self.ours_ops > 0)

    @property
    def independent(self) -> list[OpDifference]:
        """Differing ops whose operands all agree (each starts a divergence of its own)."""
        return [d for d in self.differing if d.confirmed]

    def report(self) -> str:
        """The text report (`compare_report.py`)."""
        return format_comparison(self)


# ------------------------------------------------------------------------------- comparing
def _result_closeness(
    ours: TraceEntry, ref: TraceEntry, k: int, rtol: float | None, atol: float | None
) -> Closeness:
    a = ours.values[k] if k < len(ours.values) else None
    b = ref.values[k] if k < len(ref.values) else None
    if a is not None and b is not None:
        return compare_arrays(a, b, rtol, atol)
    if k >= len(ours.results) or k >= len(ref.results):
        return Closeness(None, "summaries", "no summary of this result")
    if ours.count != ref.count:
        return Closeness(
            None,
            "summaries",
            f"no values kept, and summaries of {ours.count} runs here, {ref.count} in the "
            "reference",
        )
    return compare_summaries(ours.results[k], ref.results[k], rtol, atol)


class _Matcher:
    """Compares results of matched entries once each (an op's result is often many ops' operand)."""

    def __init__(
        self, ours: Trace, pairs: dict[str, TraceEntry], rtol: float | None, atol: float | None
    ) -> None:
        self.ours, self.pairs, self.rtol, self.atol = ours, pairs, rtol, atol
        self.cache: dict[tuple[str, int], Closeness] = {}

    def result(self, key: str, k: int) -> Closeness:
        c = self.cache.get((key, k))
        if c is None:
            c = _result_closeness(self.ours[key], self.pairs[key], k, self.rtol, self.atol)
            self.cache[(key, k)] = c
        return c

    def op(self, key: str) -> tuple[list[tuple[int, Closeness]], list[str], list[Closeness]]:
        """(results that differ, reasons results could not be compared, every result's
        closeness)."""
        a, b = self.ours[key], self.pairs[key]
        if len(a.types) != len(b.types) and a.types and b.types:
            why = f"{len(a.types)} results here, {len(b.types)} in the reference"
            c = Closeness(False, reason=why)
            return [(0, c)], [], [c]
        differ, unknown, every = [], [], []
        for k in range(max(len(a.results), len(a.values), len(a.types))):
            c = self.result(key, k)
            every.append(c)
            if c.agree is False:
                differ.append((k, c))
            elif c.agree is None:
                unknown.append(f"result {k}: {c.reason}")
        return differ, unknown, every


class _Program:
    """What the comparison reads from the program: op keys, and the call sites of functions."""

    def __init__(self, module: Operation | None, entry: str) -> None:
        self.entry = entry
        self.keys: dict[Operation, str] = op_keys(module) if module is not None else {}
        self.by_key = {k: op for op, k in self.keys.items()}
        self.calls: dict[str, list[Operation]] = {}
        for op in self.keys:
            callee = op.properties.get("callee") or op.attributes.get("callee")
            if op.name == "func.call" and callee is not None:
                name = getattr(getattr(callee, "root_reference", None), "data", None)
                name = name if isinstance(name, str) else str(callee).lstrip("@")
                self.calls.setdefault(name, []).append(op)

    def operand_checks(self, op: Operation, m: _Matcher) -> list[OperandCheck]:
        return [self.check(i, value, m, "") for i, value in enumerate(op.operands)]

    def check(self, i: int, value: Any, m: _Matcher, via: str) -> OperandCheck:
        if isinstance(value, OpResult):
            key = self.keys.get(value.op)
            k = value.index
            source = via + ("?" if key is None else (key if k == 0 else f"{key} #{k}"))
            ours = m.ours[key] if key is not None and key in m.ours else None
            summary = ours.results[k] if ours is not None and k < len(ours.results) else None
            if ours is None:
                return OperandCheck(i, source, UNKNOWN, None, None, "not in this trace")
            if key not in m.pairs:
                return OperandCheck(i, source, UNKNOWN, summary, None, "not in the reference")
            c = m.result(key, k)
            status = {True: AGREES, False: DIFFERS, None: UNKNOWN}[c.agree]
            return OperandCheck(i, source, status, summary, c, c.reason if c.agree is None else "")
        if isinstance(value, BlockArgument):
            return self.block_argument(i, value, m, via)
        return OperandCheck(i, via + str(value), UNKNOWN, note="unknown value")  # pragma: no cover

    def block_argument(self, i: int, value: BlockArgument, m: _Matcher, via: str) -> OperandCheck:
        owner = value.block.parent_op()
        if isinstance(owner, FuncOp):
            name = owner.sym_name.data
            source = f"{via}argument {value.index} of @{name}"
            if name == self.entry:
                return OperandCheck(i, source, INPUT, note="an input of the run")
            site = self._only_call(name, m)
            if site is not None and value.index < len(site.operands):
                # a function called once: its argument is the call's operand
                return self.check(i, site.operands[value.index], m, f"{source} = ")
            return OperandCheck(
                i, source, UNKNOWN, note="an argument of a function called more than once"
            )
        what = owner.name if owner is not None else "a block"
        return OperandCheck(
            i,
            f"{via}block argument {value.index} of {what}",
            UNKNOWN,
            note="a region's block argument (values are kept for the last run only)",
        )

    def _only_call(self, name: str, m: _Matcher) -> Operation | None:
        sites = self.calls.get(name, [])
        if len(sites) != 1:
            return None
        key = self.keys.get(sites[0])
        ran = m.ours[key].count if key is not None and key in m.ours else 0
        return sites[0] if ran == 1 else None


def compare_traces(
    ours: Trace,
    reference: Trace,
    module: Operation | None = None,
    *,
    against: str = "the reference",
    rtol: float | None = None,
    atol: float | None = None,
    top_level_only: bool = False,
) -> Comparison:
    """Compare our trace with ``reference`` (see the module doc).

    ``module``: the program our trace ran (for the operands of each op; without it no operand
    can be checked and the first differing op is reported).  ``rtol``/``atol`` replace the
    element types' defaults (floats and complex only).  ``top_level_only``: the reference has the
    top-level ops of the entry function only (a backend's run): our other ops are not compared
    rather than listed as missing from it."""
    entry = ours.entry or reference.entry or "main"
    program = _Program(module, entry)
    out = Comparison(
        against,
        entry=entry,
        rtol=rtol,
        atol=atol,
        ours_ops=len(ours),
        reference_ops=len(reference),
        missing_values=list(reference.missing),
    )
    pairs = match_entries(ours, reference, align=not top_level_only)
    m = _Matcher(ours, pairs, rtol, atol)
    top = _top_level_keys(program, entry) if top_level_only else None
    for e in ours:
        ref = pairs.get(e.key)
        if ref is None:
            if top is not None and e.key not in top:
                out.not_compared.append((e.key, "inside a region or a called function"))
            else:
                out.only_here.append(e.key)
            continue
        differ, unknown, every = m.op(e.key)
        if not differ and unknown:
            out.not_compared.append((e.key, "; ".join(unknown)))
            continue
        out.compared += 1
        out.closeness[e.key] = every
        if not differ:
            continue
        d = OpDifference(e, ref, differ)
        op = program.by_key.get(e.key)
        if op is not None:
            d.operands = program.operand_checks(op, m)
        else:
            d.operands = [OperandCheck(0, "?", UNKNOWN, note="the program is not known")]
        out.differing.append(d)
    matched = {id(e) for e in pairs.values()}
    out.only_reference = [e.key for e in reference if id(e) not in matched]
    out.renamed = sum(1 for k, e in pairs.items() if e.key != k)
    out.first = next((d for d in out.differing if d.confirmed), None)
    if out.first is None and out.differing:
        out.first, out.fallback = out.differing[0], True
    if ours.error:
        out.notes.append(f"this run failed: {ours.error}")
    if reference.error:
        out.notes.append(f"the reference run failed: {reference.error}")
    return out


def _top_level_keys(program: _Program, entry: str) -> set[str]:
    return {k for op, k in program.keys.items() if _in_entry_body(op, entry)}


def _in_entry_body(op: Operation, entry: str) -> bool:
    parent = op.parent_op()
    return isinstance(parent, FuncOp) and parent.sym_name.data == entry

