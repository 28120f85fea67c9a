"""Source locations, kept verbatim.

MLIR locations come in many forms (`loc("f.py":1:2 to 3:4)`, `loc("name"(...))`, `loc(callsite(...))`,
`loc(fused[...])`, `#loc` aliases defined at the end of a file).  xDSL 0.74 models only some of them, so
we keep a location as its canonical text with aliases resolved: nothing is ever lost, and it prints back
with `--mlir-print-debuginfo`.
"""

from __future__ import annotations

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
