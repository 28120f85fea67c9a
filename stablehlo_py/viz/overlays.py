"""Node data from a run for Model Explorer's graph view: per-op values shown as node colors
(``--node_data_paths``), written as plain JSON in Model Explorer's ``ModelNodeData`` schema
(``model_explorer.node_data_builder``; no ``model_explorer`` import here).

    trace = Trace(level=3, timing=True); run(module, x, trace=trace)
    comparison = compare_traces(trace, load_trace("reference.npz"), module)
    write_overlays("overlays", module, trace, comparison)   # overlays/max_abs_diff.json, ...

The overlays (:data:`OVERLAYS`), one file each:

- from a comparison (`stablehlo_py.trace.compare`): ``max_abs_diff`` and ``max_rel_diff``, the
  largest absolute / relative difference from the reference over the op's results (over the
  elements finite on both sides; from the min/max/mean when only summaries could be compared), and
  ``mismatched``, how many elements are beyond the tolerance (a result that differs as a whole --
  its shape, element type or summary -- counts all its elements): nonzero exactly on the ops that
  differ, also where only a NaN or an infinity moved;
- from a trace (`stablehlo_py.trace.record`): ``nan_count`` and ``inf_count``, the NaN and
  infinite elements of the op's results summed over its runs, and ``time_us``, its wall time in
  microseconds summed over its runs (a trace made with ``timing=True``).

The data is keyed as :mod:`stablehlo_py.viz.graph` builds the program's graphs: graph id = the
function's name, node id = the op key (ops in called functions under their function's graph, ops
inside regions under their own ids; a key two functions share gets the trace's value in both).
An op with no value (not compared, not in the trace, a difference with no number, no tensor
result) is left out; so is an overlay with no value at all.  Values that agree with no element
finite on both sides (NaN and -inf where the reference has them) differ by 0.
Each graph's data has a gradient from white (its smallest value) to a color (its largest).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from stablehlo_py.interpreter.trace_stats import Summary
from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.trace.closeness import Closeness
from stablehlo_py.trace.compare import Comparison, compare_traces
from stablehlo_py.trace.record import Trace, TraceEntry
from stablehlo_py.trace.store import load_trace
from stablehlo_py.viz.layers import functions, node_keys
from stablehlo_py.viz.load import load_program

__all__ = [
    "COLORS",
    "FROM_COMPARISON",
    "OVERLAYS",
    "file_overlays",
    "overlay_values",
    "overlays",
    "write_overlays",
]

OVERLAYS = ("max_abs_diff", "max_rel_diff", "mismatched", "nan_count", "inf_count", "time_us")
"""The overlays' names (and file names, with ``.json``), in the order they are written."""

FROM_COMPARISON = ("max_abs_diff", "max_rel_diff", "mismatched")
"""The overlays a comparison gives (the others a trace)."""

COLORS = {
    "max_abs_diff": "#d93025",
    "max_rel_diff": "#d93025",
    "mismatched": "#d93025",
    "nan_count": "#a142f4",
    "inf_count": "#a142f4",
    "time_us": "#f29900",
}
"""The color of each overlay's largest value (its smallest is white)."""

Number = float | int


# ------------------------------------------------------------------------- values per op key
def _largest(values: Iterable[float | None]) -> float | None:
    found = [v for v in values if v is not None and math.isfinite(v)]
    return max(found) if found else None


def _mismatched(c: Closeness) -> int | None:
    if c.agree is None:
        return None
    if c.agree:
        return 0
    return c.mismatched or max(c.size, 1)


def _abs(c: Closeness) -> float | None:
    if c.max_abs is not None:
        return c.max_abs
    # values that agree with no element finite on both sides (NaN and -inf where the reference
    # has them): no difference
    return 0.0 if c.agree and c.how == "values" else None


def _rel(c: Closeness) -> float | None:
    if c.max_rel is not None:
        return c.max_rel
    return 0.0 if c.agree and c.how == "values" and not c.max_abs else None


def _op_value(name: str, cs: list[Closeness]) -> Number | None:
    if name == "max_abs_diff":
        return _largest(map(_abs, cs))
    if name == "max_rel_diff":
        return _largest(map(_rel, cs))
    counts = [n for n in map(_mismatched, cs) if n is not None]
    return sum(counts) if counts else None


def _from_comparison(comparison: Comparison, name: str) -> dict[str, Number]:
    out = {}
    for key, cs in comparison.closeness.items():
        value = _op_value(name, cs)
        if value is not None:
            out[key] = value
    return out


def _count(s: Summary, what: str) -> int | None:
    """NaN (``what="nan"``) or infinite elements of a summary; None for a value with no elements
    (a token, a value of no element type)."""
    if s.kind == "tensor":
        return int(getattr(s, what))
    if s.kind == "tuple":
        counts = [n for n in (_count(e, what) for e in s.elements) if n is not None]
        return sum(counts) if counts else None
    return None


def _from_entry(entry: TraceEntry, name: str) -> Number | None:
    if name == "time_us":
        return None if entry.time is None else round(entry.time * 1e6, 3)
    counts = [n for n in (_count(s, name[:3]) for s in entry.results) if n is not None]
    return sum(counts) if counts else None


def overlay_values(
    name: str, trace: Trace | None = None, comparison: Comparison | None = None
) -> dict[str, Number]:
    """Op key -> the value of overlay ``name`` (see the module doc); {} when the trace or the
    comparison it needs is not given."""
    if name not in OVERLAYS:
        raise ValueError(f"unknown overlay {name!r}: the overlays are {', '.join(OVERLAYS)}")
    if name in FROM_COMPARISON:
        return {} if comparison is None else _from_comparison(comparison, name)
    out: dict[str, Number] = {}
    for entry in trace or ():
        value = _from_entry(entry, name)
        if value is not None:
            out[entry.key] = value
    return out


# --------------------------------------------------------------------- Model Explorer's JSON
def _graph_keys(module: Operation) -> list[tuple[str, list[str]]]:
    """(graph id, the node ids of its ops) per function, as `graph.py` makes them."""
    keys = node_keys(module)
    return [
        (fname, [keys[op] for op in func.walk() if op is not func and op in keys])
        for fname, func in functions(module)
    ]


def _node_data(name: str, results: dict[str, Number], title: str) -> dict[str, Any]:
    """One graph's ``GraphNodeData``."""
    return {
        "name": title,
        "results": {key: {"value": value} for key, value in results.items()},
        "gradient": [
            {"stop": 0, "bgColor": "#ffffff"},
            {"stop": 1, "bgColor": COLORS[name]},
        ],
    }


def overlays(
    module: Operation,
    trace: Trace | None = None,
    comparison: Comparison | None = None,
    names: Iterable[str] = OVERLAYS,
) -> dict[str, dict[str, Any]]:
    """Overlay name -> its ``ModelNodeData`` as a JSON-ready dict (``{graph id: GraphNodeData}``)
    for the graphs of ``module`` (the program ``trace`` ran; ``comparison`` of that trace);
    overlays and graphs without a value are left out."""
    graphs = _graph_keys(module)
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        values = overlay_values(name, trace, comparison)
        if not values:
            continue
        title = name
        if comparison is not None and name in FROM_COMPARISON:
            title = f"{name} vs {comparison.against}"
        data = {}
        for graph_id, keys in graphs:
            results = {k: values[k] for k in keys if k in values}
            if results:
                data[graph_id] = _node_data(name, results, title)
        if data:
            out[name] = data
    return out


def write_overlays(
    directory: str | os.PathLike[str],
    module: Operation,
    trace: Trace | None = None,
    comparison: Comparison | None = None,
) -> list[Path]:
    """Write each overlay of :func:`overlays` to ``directory/<name>.json`` (the directory is made
    when missing); the files written, in :data:`OVERLAYS` order."""
    root = Path(directory)
    written = []
    try:
        root.mkdir(parents=True, exist_ok=True)
        for name, data in overlays(module, trace, comparison).items():
            path = root / f"{name}.json"
            path.write_text(json.dumps(data, allow_nan=False))
            written.append(path)
    except OSError as e:
        raise StableHLOError(
            f"cannot write node data to {root}: {e.strerror or e}",
            note="give a directory that can be created and written",
        ) from None
    return written


def file_overlays(
    program_path: str | os.PathLike[str],
    trace_path: str | os.PathLike[str],
    compare_to: str | os.PathLike[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """:func:`overlays` of the program in a file (its StableHLO view) from a trace file of its run
    (``--trace-output``) and, with ``compare_to``, that trace compared with another trace file (of
    this program or the one it was derived from).  Errors name the file and what is wrong; a trace
    whose ops are mostly not the program's is an error."""
    if compare_to is not None and str(compare_to).lower() in ("xla", "iree"):
        raise StableHLOError(
            f"the graph view compares trace files only, not {compare_to}",
            note=f"write the overlays with stablehlo-translate --interpret {program_path} "
            f"--inputs=... --compare-to={compare_to} --node-data-output=DIR, then open them "
            "with --node_data_paths=DIR",
        )
    module = load_program(program_path, "stablehlo").module
    trace = load_trace(trace_path)
    ids = set(node_keys(module).values())
    placed = sum(1 for e in trace if e.key in ids)
    if placed * 2 < len(trace):  # common keys (``jit(f)/stablehlo.constant#0``) match anywhere
        raise StableHLOError(
            f"the trace {trace_path} is not of {program_path}: {placed} of its {len(trace)} ops "
            "are ops of the program",
            note="give the trace (--trace-output) of a run of this program",
        )
    comparison = None
    if compare_to is not None:
        comparison = compare_traces(
            trace, load_trace(compare_to), module, against=os.fspath(compare_to)
        )
    return overlays(module, trace, comparison)
