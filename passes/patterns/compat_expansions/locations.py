"""File/line/column range locations (`loc("f.py":2:21 to :30)`, MLIR's FileLineColRange, which
StableHLO 1.8.4 consumers cannot read; targets below 1.9.0) as plain `loc("f.py":2:21)`:
upstream's ``FileLineColRangeToLoc`` (StablehloCompatibilityExpander.cpp).

Every location of the module is rewritten -- the module's, each op's and each block argument's,
also inside name, call-site and fused locations -- keeping the start line and column and dropping
the end.  Locations are kept as text (stablehlo_py.ir.text.location.TextLoc), so the rewrite is a
tokenizing substitution: string literals are consumed whole, and a `" to " ... end` suffix is
dropped only right after a `"file":line:col`.
"""

from __future__ import annotations

import re

from xdsl.ir import Block, Operation

from stablehlo_py.ir.text.location import TextLoc

__all__ = ["drop_location_ranges", "strip_range"]

_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*")(:\d+:\d+)?( to (?:\d+)?:\d+)?')


def _keep_start(m: re.Match[str]) -> str:
    if m[2] is None:
        return m[0]
    return m[1] + m[2]


def strip_range(text: str) -> str:
    """A location's text with each file/line/column range reduced to its start."""
    if " to " not in text:
        return text
    return _TOKEN.sub(_keep_start, text)


def _rewrite(obj: object) -> bool:
    loc = getattr(obj, "location", None)
    if not isinstance(loc, TextLoc):
        return False
    new = strip_range(loc.data)
    if new == loc.data:
        return False
    obj.location = TextLoc(new)  # type: ignore[attr-defined]
    return True


def drop_location_ranges(module: Operation) -> bool:
    """Rewrite every range location in ``module`` (in place); True when one changed."""
    changed = False
    for op in module.walk():
        changed |= _rewrite(op)
        for region in op.regions:
            block: Block
            for block in region.blocks:
                for arg in block.args:
                    changed |= _rewrite(arg)
    return changed
