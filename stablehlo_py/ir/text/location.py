"""Source locations, kept verbatim.

MLIR locations come in many forms (`loc("f.py":1:2 to 3:4)`, `loc("name"(...))`, `loc(callsite(...))`,
`loc(fused[...])`, `#loc` aliases defined at the end of a file).  xDSL 0.74 models only some of them, so
we keep a location as its canonical text with aliases resolved: nothing is ever lost, and it prints back
with `--mlir-print-debuginfo`.
"""

from __future__ import annotations

import re

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition


@irdl_attr_definition
class TextLoc(Data[str]):
    """A location as the text inside `loc(...)`."""

    name = "stablehlo_py.loc"

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError("locations are parsed by stablehlo_py.ir.text")

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        printer.print_string(f"loc({self.data})")


UNKNOWN = TextLoc("unknown")

# a string literal (whole, from its opening quote) and, when it is a file location, its line, column
# and range end
_FILE_LOC = re.compile(r'("(?:[^"\\]|\\.)*")(?::(\d+)(?::(\d+))?(?: to (\d+)?:(\d+))?)?')


def printed_location(text: str) -> str:
    """A location's text as MLIR prints it: every file location (a FileLineColRange) in its
    canonical form -- `"f":8` prints as `"f":8:0`, a range that ends where it starts as its start
    (`"f":8:2 to :2` -> `"f":8:2`), an end on the start line as `to :col`; strings with MLIR's
    escapes.  The text is kept as
    written (MLIR's bytecode tells `"f":8` from `"f":8:0`); only printing canonicalizes."""
    if '":' not in text and "\\" not in text:
        return text
    return _FILE_LOC.sub(_canonical_file_loc, text)


def _canonical_file_loc(m: re.Match[str]) -> str:
    quoted, line, col, end_line, end_col = m.groups()
    if "\\" in quoted:  # MLIR's escapes (`\22` for a quote), whatever the source wrote
        from stablehlo_py.ir.text.parser import unescape
        from stablehlo_py.ir.text.spelling import string_literal

        quoted = string_literal(unescape(quoted[1:-1]))
    if line is None:
        return quoted  # a name location's string
    col = col or "0"
    if end_col is None:
        return f"{quoted}:{line}:{col}"
    if end_line is None or int(end_line) == int(line):
        if int(end_col) == int(col):
            return f"{quoted}:{line}:{col}"
        return f"{quoted}:{line}:{col} to :{end_col}"
    return f"{quoted}:{line}:{col} to {end_line}:{end_col}"


def source_position(obj: object) -> tuple[str, int, int] | None:
    """(file, line, col) where an op or block argument without `loc(...)` was parsed -- MLIR's
    default location: an op at its name, a block argument at its `%name`, the module the parser
    wraps around a file's ops at line 0, column 0.  None for IR built otherwise."""
    d = getattr(obj, "__dict__", {})
    src = d.get("_src")
    if src is not None:
        source, pos = src
        line, col = source.line_col(pos)
        return source.filename, line, col
    implicit = d.get("_implicit_src")
    if implicit is not None:
        return implicit.filename, 0, 0
    return None
