"""A trace as text: a header, one line per op, and the first op that made a NaN or an infinity.

    trace of @main: 3 ops, 5 runs
       0  @main/stablehlo.constant#0  f32[] min 1 max 1 mean 1  -:3:8
       1    @main/stablehlo.sine#0 x2  f32[4] min 0.67 max 0.84 mean 0.75  -:9:12
       2  @main/stablehlo.while#0  i32[] min 2 max 2 mean 2 | f32[4] ...  -:5:10

Each line: the op's position in the trace, its key indented by its depth in regions, ``xN`` when it
ran N > 1 times, its results' summaries joined by `` | ``, and where it is (source line, else its
position in the text).  With values (level 2 and 3), a line ``= [...]`` per kept value follows,
at most ``max_elements`` elements shown (numpy's summarization).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stablehlo_py.trace.record import Trace, TraceEntry

__all__ = ["entry_line", "format_trace"]


def entry_line(entry: TraceEntry) -> str:
    """The op's line (without values)."""
    runs = f" x{entry.count}" if entry.count > 1 else ""
    results = " | ".join(s.format() for s in entry.results) or "(no results)"
    where = entry.where()
    text = f"{entry.index:>4}  {'  ' * entry.depth}{entry.key}{runs}  {results}"
    return f"{text}  {where}" if where else text


def format_trace(
    trace: Trace, *, values: bool | None = None, max_elements: int | None = None
) -> str:
    """The report of ``trace`` (``values``: show kept values; default: when the trace has them)."""
    show = trace.level > 1 if values is None else values
    limit = trace.max_elements if max_elements is None else max_elements
    head = f"trace of @{trace.entry}: " if trace.entry else "trace: "
    lines = [f"{head}{len(trace)} ops, {trace.runs} runs"]
    for e in trace:
        lines.append(entry_line(e))
        if show:
            pad = " " * (8 + 2 * e.depth)
            for k, v in enumerate(e.values):
                if v is not None:
                    label = f"#{k} " if len(e.values) > 1 else ""
                    lines.append(f"{pad}{label}= {_array(v, limit, len(pad) + 2)}")
    bad = trace.first_nonfinite()
    if bad is not None:
        run = f" (run {bad.first_nonfinite} of {bad.count})" if bad.count > 1 else ""
        where = f" at {bad.where()}" if bad.where() else ""
        lines.append(f"first NaN/Inf: {bad.key}{run}{where}")
    if trace.error:
        lines.append(f"the run failed: {trace.error}")
    return "\n".join(lines)


def _array(value: Any, limit: int, indent: int) -> str:
    text = np.array2string(
        np.asarray(value),
        threshold=max(limit, 1),
        edgeitems=max(1, min(3, limit // 2)),
        max_line_width=100,
    )
    return text.replace("\n", "\n" + " " * indent)
