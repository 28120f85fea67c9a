"""Locations as MLIR prints them.  A location is kept as the text it was written with
(`stablehlo_py.ir.text.location.TextLoc`); the printer writes its canonical form."""

from __future__ import annotations

import re

from stablehlo_py.ir.text.parser import unescape
from stablehlo_py.ir.text.spelling import string_literal

# a string literal (whole, from its opening quote) and, when it is a file location, its line, column
# and range end
_FILE_LOC = re.compile(r'("(?:[^"\\]|\\.)*")(?::(\d+)(?::(\d+))?(?: to (\d+)?:(\d+))?)?')


def printed_location(text: str) -> str:
    """A location's text as MLIR prints it: every file location (a FileLineColRange) in its
    canonical form -- `"f":8` prints as `"f":8:0`, a range that ends where it starts as its start
    (`"f":8:2 to :2` -> `"f":8:2`), an end on the start line as `to :col`; strings with MLIR's
    escapes.  The text is kept as written (MLIR's bytecode tells `"f":8` from `"f":8:0`); only
    printing canonicalizes."""
    if '":' not in text and "\\" not in text:
        return text
    return _FILE_LOC.sub(_canonical_file_loc, text)


def _canonical_file_loc(m: re.Match[str]) -> str:
    quoted, line, col, end_line, end_col = m.groups()
    if "\\" in quoted:  # MLIR's escapes (`\22` for a quote), whatever the source wrote
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
