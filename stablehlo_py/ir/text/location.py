"""Source locations, kept verbatim.

MLIR locations come in many forms (`loc("f.py":1:2 to 3:4)`, `loc("name"(...))`, `loc(callsite(...))`,
`loc(fused[...])`, `#loc` aliases defined at the end of a file).  xDSL 0.74 models only some of them, so
we keep a location as its canonical text with aliases resolved: nothing is ever lost, and it prints back
with `--mlir-print-debuginfo`.
"""

from __future__ import annotations

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.xdsl_compat.side_data import IMPLICIT_SRC, SRC, attached


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


def source_position(obj: object) -> tuple[str, int, int] | None:
    """(file, line, col) where an op or block argument without `loc(...)` was parsed -- MLIR's
    default location: an op at its name, a block argument at its `%name`, the module the parser
    wraps around a file's ops at line 0, column 0.  None for IR built otherwise."""
    src = attached(obj, SRC)
    if src is not None:
        source, pos = src
        line, col = source.line_col(pos)
        return source.filename, line, col
    implicit = attached(obj, IMPLICIT_SRC)
    if implicit is not None:
        return implicit.filename, 0, 0
    return None
