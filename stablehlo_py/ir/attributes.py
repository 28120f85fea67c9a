"""Attributes that are not xDSL builtins.

`OpaqueAttr` keeps an attribute of a dialect we do not model (e.g. `#sdy.sharding<...>`,
`#mhlo.frontend_attributes<...>`) as its exact text, so it round-trips unchanged.
StableHLO's own enum and struct attributes live in `stablehlo_py.ir.stablehlo_attrs`.
"""

from __future__ import annotations

from xdsl.ir import Data, TypeAttribute
from xdsl.irdl import irdl_attr_definition


class _TextData(Data[object]):
    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError("parsed by stablehlo_py.ir.text")

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        printer.print_string(str(self.data))


@irdl_attr_definition
class OpaqueAttr(_TextData):
    """An attribute of an unmodelled dialect, stored as its full text (starting with `#`)."""

    name = "stablehlo_py.opaque_attr"


@irdl_attr_definition
class OpaqueType(_TextData, TypeAttribute):
    """A type of an unmodelled dialect, stored as its full text (starting with `!`)."""

    name = "stablehlo_py.opaque_type"
