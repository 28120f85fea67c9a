"""`#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>`: a mesh axis, or a sub-axis of it (in
`#stablehlo.replica_group_mesh_axes`). `name` is required; `sub_axis_info` (pre-size, size) is
printed when present. Upstream's bytecode writes the sub-axis info as a flag and a nested
`#stablehlo.sub_axis_info` attribute."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.channel_handle import COLLECTIVE_STRUCT
from stablehlo_py.ir.attrs.struct import NONDEFAULT, STR, SUB_AXIS_INFO, DescribedAttr, field


@dataclass(frozen=True)
class AxisRef:
    name: str = field(STR)
    sub_axis_info: tuple[int, int] | None = field(SUB_AXIS_INFO, None, printed=NONDEFAULT)
    """(pre_size, size)"""


@irdl_attr_definition
class AxisRefAttr(DescribedAttr):
    """`#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>`: a mesh axis, or a sub-axis of it."""

    name = "stablehlo.axis_ref"
    STRUCT = AxisRef
    SYNTAX = COLLECTIVE_STRUCT
    BYTECODE = 20

    def __init__(self, axis_name: str, sub_axis_info: tuple[int, int] | None = None) -> None:
        super().__init__(
            AxisRef(axis_name, None if sub_axis_info is None else tuple(sub_axis_info))  # type: ignore[arg-type]
        )

    @property
    def axis_name(self) -> str:
        return self.data.name  # type: ignore[attr-defined]

    @property
    def sub_axis_info(self) -> tuple[int, int] | None:
        return self.data.sub_axis_info  # type: ignore[attr-defined]
