"""A comparison (`compare.py`) as text:

    compared with reference.npz: 500 ops here, 500 in the reference; 500 compared, 160 differ
    first diverging op: jit(f)/block2/mix/stablehlo.subtract#0 (stablehlo.subtract)
      at model.py:63 (text -:120:11)
      name stack: jit(f)/block2/mix
      location: "jit(f)/block2/mix/sub"(...)
      result #0 differs: 256 of 256 elements differ; max abs diff 1.9, max rel diff 2 (rtol ..)
        here:      f32[8,32] min -1.2 max 1.4 mean 0.01
        reference: f32[8,32] min -1.4 max 1.2 mean -0.01
      operands (all agree with the reference):
        %0 jit(f)/block2/mix/stablehlo.multiply#0  f32[8,32] min ...  agrees
        %1 jit(f)/block2/dense/stablehlo.multiply#0  f32[8,32] ...  agrees
    159 more ops differ after it; other ops that differ while their operands agree: ...
    ops only here: 2 (first: ...); only in the reference: 1 (first: ...)

The first line names what was compared; the last lines list keys on one side only, ops not
compared, and values the reference file lacks (at most `LIST` keys each, then a count).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stablehlo_py.trace.compare import Comparison, OpDifference

__all__ = ["LIST", "LOCATION", "format_comparison"]

LIST = 5
"""How many keys a list in the report names before saying how many more there are."""
LOCATION = 200
"""Longer location texts (JAX's call-site chains) are cut to this many characters."""


def _keys(keys: list[str]) -> str:
    shown = ", ".join(keys[:LIST])
    more = f", ... ({len(keys) - LIST} more)" if len(keys) > LIST else ""
    return shown + more


def _tolerance(c: Comparison) -> str:
    parts = []
    if c.rtol is not None:
        parts.append(f"rtol {c.rtol:g}")
    if c.atol is not None:
        parts.append(f"atol {c.atol:g}")
    return f" (floats: {', '.join(parts)})" if parts else ""


def format_comparison(c: Comparison) -> str:
    """The report (see the module doc)."""
    lines = [
        f"compared with {c.against}{_tolerance(c)}: {c.ours_ops} ops here, {c.reference_ops} "
        f"in the reference; {c.compared} compared, {len(c.differing)} differ"
    ]
    if c.first is not None:
        lines += _divergence(c.first, c.fallback)
        after = [d for d in c.differing if d is not c.first]
        if after:
            first = _keys([d.key for d in after])
            lines.append(f"{len(after)} more ops differ (the first: {first})")
        others = [d.key for d in c.independent if d is not c.first]
        if others:
            lines.append(f"other ops that differ while their operands agree: {_keys(others)}")
    elif c.compared == 0 and c.ours_ops:
        lines.append(
            "nothing could be compared: no op of this run has a comparable value in the reference "
            "(is it a trace of this program, or of the program it was derived from?)"
        )
    else:
        lines.append("no op differs")
    if c.only_here:
        lines.append(f"ops only in this run ({len(c.only_here)}): {_keys(c.only_here)}")
    if c.only_reference:
        lines.append(
            f"ops only in the reference ({len(c.only_reference)}): {_keys(c.only_reference)}"
        )
    if c.not_compared:
        keys = [k for k, _ in c.not_compared]
        why = sorted({w for _, w in c.not_compared})
        lines.append(
            f"ops not compared ({len(keys)}): {_keys(keys)} -- {'; '.join(why[:3])}"
        )
    if c.renamed:
        lines.append(
            f"{c.renamed} ops matched by their place in the run have other keys in the reference "
            "(an op whose location changed, and the ops of its scope after it)"
        )
    if c.missing_values:
        lines.append(
            f"values missing from the reference file ({len(c.missing_values)}): "
            f"{_keys(c.missing_values)}"
        )
    lines += c.notes
    return "\n".join(lines)


def _divergence(d: OpDifference, fallback: bool) -> list[str]:
    e = d.entry
    head = "first differing op" if fallback else "first diverging op"
    lines = [f"{head}: {e.key} ({e.op})"]
    if d.reference.key != e.key:
        lines[0] += f", the reference's {d.reference.key}"
    if fallback:
        lines.append(
            "  (no differing op could be shown to have agreeing operands -- their producers are "
            "missing from the reference or are arguments of regions or called functions -- so "
            "this is the first op that differs, not necessarily where the difference starts)"
        )
    where = e.source or e.position
    if where:
        text = f" (text {e.position})" if e.source and e.position else ""
        lines.append(f"  at {where}{text}")
    if e.scope:
        lines.append(f"  name stack: {e.scope}")
    if e.location:
        loc = e.location if len(e.location) <= LOCATION else e.location[: LOCATION - 3] + "..."
        lines.append(f"  location: {loc}")
    if e.count != d.reference.count:
        lines.append(f"  ran {e.count} times here, {d.reference.count} in the reference")
    for k, closeness in d.results:
        lines.append(f"  result #{k} differs: {closeness.format()}")
        if k < len(e.results):
            lines.append(f"    here:      {e.results[k].format()}")
        if k < len(d.reference.results):
            lines.append(f"    reference: {d.reference.results[k].format()}")
    if d.operands:
        state = "all agree with the reference" if d.confirmed else "not all shown to agree"
        lines.append(f"  operands ({state}):")
        for o in d.operands:
            summary = f"  {o.summary.format()}" if o.summary is not None else ""
            status = o.status
            if o.status == "differs" and o.closeness is not None:
                status += f" ({o.closeness.format()})"
            elif o.note:
                status += f" ({o.note})"
            lines.append(f"    %{o.index} {o.source}{summary}  {status}")
    else:
        lines.append("  operands: none")
    return lines
