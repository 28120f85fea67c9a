"""`#stablehlo.gather<...>` and `#stablehlo.scatter<...>`: described in stablehlo_py/ir/attrs/gather.py
and scatter.py; re-exported here (the names' former home)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stablehlo_py.ir.attrs.gather import GatherDimensionNumbers, GatherDimensionNumbersAttr
from stablehlo_py.ir.attrs.scatter import ScatterDimensionNumbers, ScatterDimensionNumbersAttr
from stablehlo_py.ir.attrs.struct import register_parsers

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry

__all__ = [
    "GatherDimensionNumbers",
    "GatherDimensionNumbersAttr",
    "ScatterDimensionNumbers",
    "ScatterDimensionNumbersAttr",
    "register",
]


def register(reg: Registry) -> None:
    register_parsers(reg, (GatherDimensionNumbersAttr, ScatterDimensionNumbersAttr))
