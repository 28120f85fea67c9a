"""A per-op trace of an interpreter run: `run(module, *args, trace=Trace(level))`.

`Trace` is an observer (`stablehlo_py.interpreter.observe`): the interpreter calls its
``after_op`` after each op with the op's results, and it keeps one :class:`TraceEntry` per op, in
the order the ops first ran:

- its key (`op_keys`: ``<name-stack scope>/<op name>#<n>``, the same op in a program and the
  program derived from it), op name, result types, location text, source ``file:line`` (from the
  name location), position in the parsed text, and nesting depth (ops inside a ``while`` body are
  one deeper than the ``while``);
- ``count``: how many times it ran (ops in loop bodies and called functions run many times);
- ``results``: one `Summary` per result (shape, dtype, min/max/mean, NaN/Inf counts), merged over
  its runs (`trace_stats.merge`), and ``first_nonfinite``, the run in which a result first held a
  NaN or an infinity;
- ``values``: at level 2 the results with at most ``max_elements`` elements, at level 3 every
  tensor result (what `store.save_trace` writes to a file): copies of the op's last run's values;
- ``time``: with ``Trace(timing=True)`` (off by default), the op's wall time in seconds summed over
  its runs: from the previous reported op (or the end of compiling a function: the optional
  ``compiled()`` call of `observe.py`) to this one, without the trace's own bookkeeping.  An op
  holding a region or calling a function counts its own work only (its region's and callee's
  ops are timed themselves); an op in the element-wise body of a ``reduce``/``sort``/... is part
  of that op; an op folded when its function was compiled costs nothing at run time.

Levels: 1 summaries only, 2 small values too, 3 all values (memory: every value of the run).
Ops inside the element-wise bodies of ``reduce``/``sort``/``scatter``/... are not traced, and a
partitioned program traces partition 0 (see `observe.py`).  One `Trace` records one run: using it
for another run starts it afresh.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any

import numpy as np
from stablehlo_py.interpreter.compiled import RETURN_OPS
from stablehlo_py.interpreter.observe import reported_block
from stablehlo_py.interpreter.trace_stats import Summary, merge, summarize
from xdsl.ir import Operation

from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.text.name_stack import name_stack, op_keys
from stablehlo_py.ir.text.parse_locations import op_source_location
from stablehlo_py.ir.text.spelling import type_to_str
from stablehlo_py.ir.types import UniformQuantizedType
from stablehlo_py.trace.progress import Progress, start_progress

__all__ = ["LEVELS", "Trace", "TraceEntry"]

LEVELS = (1, 2, 3)


@dataclass
class TraceEntry:
    index: int
    """Position in the trace (the order ops first ran)."""
    key: str
    op: str
    types: tuple[str, ...]
    location: str = ""
    """The op's ``loc(...)`` text (``""`` without one)."""
    source: str = ""
    """``file:line`` of the Python (or other) source its location names."""
    position: str = ""
    """``file:line:col`` of the op in the text it was parsed from."""
    scope: str = ""
    depth: int = 0
    count: int = 0
    results: list[Summary] = field(default_factory=list)
    values: list[np.ndarray | None] = field(default_factory=list)
    first_nonfinite: int | None = None
    time: float | None = None
    """Seconds over all its runs (``Trace(timing=True)``; None when not timed)."""

    @property
    def nonfinite(self) -> int:
        """NaN and infinite elements over all its results and runs."""
        return sum(_nonfinite(s) for s in self.results)

    def where(self) -> str:
        """The source line, else the position in the text (``""`` when neither is known)."""
        return self.source or self.position


def _nonfinite(s: Summary) -> int:
    n = s.nan + s.inf
    for e in s.elements:
        n += _nonfinite(e)
    return n


class Trace:
    """Records a run op by op (see the module doc)."""

    def __init__(
        self,
        level: int = 1,
        *,
        max_elements: int = 16,
        progress: bool = False,
        timing: bool = False,
    ) -> None:
        if level not in LEVELS:
            raise ValueError(
                f"trace level must be 1 (summaries), 2 (values of up to max_elements elements) "
                f"or 3 (every value), got {level!r}"
            )
        if not isinstance(max_elements, int) or max_elements < 0:
            raise ValueError(f"max_elements must be an int >= 0, got {max_elements!r}")
        self.level = level
        self.max_elements = max_elements
        self.show_progress = progress
        self.timing = timing
        self._last = 0.0  # when the previous reported op's bookkeeping ended (timing)
        self.entry = ""
        self.error: str | None = None
        self.entries: list[TraceEntry] = []
        self.runs = 0
        """Ops run (an op in a loop body counts once per iteration)."""
        self.missing: list[str] = []
        """Values a loaded trace lists but its file lacks (`store.load_trace`)."""
        self._by_key: dict[str, TraceEntry] = {}
        self._by_op: dict[Operation, TraceEntry] = {}
        self._quantized: dict[Operation, list[str]] = {}
        self._types: dict[Any, str] = {}
        self._keys: dict[Operation, str] | None = None
        self._progress: Progress | None = None

    # ------------------------------------------------------------------ the Observer protocol
    def begin(self, module: Operation, entry: str) -> None:
        self.entry, self.error, self.runs = entry, None, 0
        self.entries, self._by_key, self._by_op, self._quantized = [], {}, {}, {}
        self._keys = op_keys(module)
        if self.show_progress:
            self._progress = start_progress(_traced_ops(module), f"trace @{entry}", unit="op")
        self._last = perf_counter()

    def compiled(self) -> None:
        """A function was compiled (`observe.py`): the next op's time starts now."""
        self._last = perf_counter()

    def after_op(self, op: Operation, results: Sequence[Any]) -> None:
        now = perf_counter() if self.timing else 0.0
        self.runs += 1
        entry = self._by_op.get(op)
        if entry is None:
            entry = self._new_entry(op)
        entry.count += 1
        quantized = self._quantized[op]
        for k, value in enumerate(results):
            s = summarize(value, quantized[k] if k < len(quantized) else "")
            if entry.first_nonfinite is None and _nonfinite(s):
                entry.first_nonfinite = entry.count
            if k < len(entry.results):
                entry.results[k] = merge(entry.results[k], s)
            else:
                entry.results.append(s)
            if self.level > 1:
                kept = _kept(value, self.level, self.max_elements)
                if k < len(entry.values):
                    entry.values[k] = kept
                else:
                    entry.values.append(kept)
        if self._progress is not None:
            self._progress.update(len(self.entries), f"{self.runs} runs")
        if self.timing:
            entry.time = (entry.time or 0.0) + (now - self._last)
            self._last = perf_counter()

    def end(self, error: BaseException | None) -> None:
        self.error = None if error is None else f"{type(error).__name__}: {error}"
        if self._progress is not None:
            self._progress.update(len(self.entries), f"{self.runs} runs")
            self._progress.close()
            self._progress = None

    # ------------------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[TraceEntry]:
        return iter(self.entries)

    def __getitem__(self, key: str) -> TraceEntry:
        try:
            return self._by_key[key]
        except KeyError:
            raise KeyError(f"no op {key!r} in the trace ({len(self.entries)} ops)") from None

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def keys(self) -> list[str]:
        return [e.key for e in self.entries]

    def first_nonfinite(self) -> TraceEntry | None:
        """The first op (in trace order) whose results held a NaN or an infinity."""
        for e in self.entries:
            if e.nonfinite:
                return e
        return None

    def add(self, entry: TraceEntry) -> None:
        """Append an entry made elsewhere (a trace read from a file)."""
        entry.index = len(self.entries)
        self.entries.append(entry)
        self._by_key[entry.key] = entry

    # ----------------------------------------------------------------------------- helpers
    def _new_entry(self, op: Operation) -> TraceEntry:
        if self._keys is None or op not in self._keys:
            self._keys = op_keys(_root(op))  # observed without begin(), or another module
        key = self._keys.get(op) or f"?/{op.name}#{len(self.entries)}"
        stack = name_stack(op)
        loc = op.location
        entry = TraceEntry(
            index=len(self.entries),
            key=key,
            op=op.name,
            types=tuple(self._type_text(r.type) for r in op.results),
            location=loc.data if isinstance(loc, TextLoc) and loc.data != "unknown" else "",
            source=stack.source,
            position=op_source_location(op) or "",
            scope=stack.scope,
            depth=_depth(op),
        )
        self.entries.append(entry)
        self._by_key[key] = entry
        self._by_op[op] = entry
        self._quantized[op] = [_quantized(r.type) for r in op.results]
        return entry

    def _type_text(self, t: Any) -> str:
        text = self._types.get(t)
        if text is None:  # printing a type costs more than summarizing a small value
            text = self._types[t] = type_to_str(t)
        return text


def _quantized(t: Any) -> str:
    """The element type's text when ``t`` is a tensor of a quantized type, else ``""``."""
    elem = getattr(t, "element_type", None)
    return type_to_str(elem) if isinstance(elem, UniformQuantizedType) else ""


def _kept(value: Any, level: int, max_elements: int) -> np.ndarray | None:
    """A copy of a tensor value to keep at this level, else None."""
    if not isinstance(value, np.ndarray | np.generic):
        return None
    if level < 3 and np.size(value) > max_elements:
        return None
    return np.array(value, copy=True)


def _root(op: Operation) -> Operation:
    while True:
        parent = op.parent_op()
        if parent is None:
            return op
        op = parent


def _depth(op: Operation) -> int:
    """How many region-holding ops enclose `op` inside its function."""
    depth = 0
    parent = op.parent_op()
    while parent is not None and parent.name not in ("func.func", "builtin.module"):
        depth += 1
        parent = parent.parent_op()
    return depth


def _traced_ops(module: Operation) -> int:
    """How many ops of `module` a trace can report (each counted once)."""
    n = 0
    for op in module.walk():
        if op.name in RETURN_OPS or op.name in ("func.func", "builtin.module"):
            continue
        block = op.parent_block()
        if block is not None and reported_block(block):
            n += 1
    return n
