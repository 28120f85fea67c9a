"""Every described struct attribute (one file each in this package)."""

from __future__ import annotations

from stablehlo_py.ir.attrs.axis_ref import AxisRefAttr
from stablehlo_py.ir.attrs.channel_handle import ChannelHandleAttr
from stablehlo_py.ir.attrs.conv import ConvDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot import DotDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot_algorithm import DotAlgorithmAttr
from stablehlo_py.ir.attrs.gather import GatherDimensionNumbersAttr
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAliasAttr
from stablehlo_py.ir.attrs.replica_group_mesh_axes import ReplicaGroupMeshAxesAttr
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracyAttr
from stablehlo_py.ir.attrs.scatter import ScatterDimensionNumbersAttr
from stablehlo_py.ir.attrs.struct import DescribedAttr, Description

STRUCTS: tuple[type[DescribedAttr], ...] = (
    ChannelHandleAttr,
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
    OutputOperandAliasAttr,
    DotAlgorithmAttr,
    ResultAccuracyAttr,
    ReplicaGroupMeshAxesAttr,
    AxisRefAttr,
)
"""The attribute classes, in the order of upstream's bytecode kind codes."""

BY_MNEMONIC: dict[str, Description] = {c.DESC.mnemonic: c.DESC for c in STRUCTS}
"""`dot` -> the description of `#stablehlo.dot` (how VHLO and text name a struct)."""
