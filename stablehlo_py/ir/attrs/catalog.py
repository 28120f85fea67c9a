"""Every described struct attribute (one file each in this package)."""

from __future__ import annotations

from stablehlo_py.ir.attrs.axis_ref import AxisRefAttr
from stablehlo_py.ir.attrs.channel_handle import ChannelHandleAttr
from stablehlo_py.ir.attrs.conv import ConvDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot import DotDimensionNumbersAttr
from stablehlo_py.ir.attrs.dot_algorithm import DotAlgorithmAttr
from stablehlo_py.ir.attrs.gather import GatherDimensionNumbersAttr
from stablehlo_py.ir.attrs.mesh import MeshAttr, MeshAxisAttr
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAliasAttr
from stablehlo_py.ir.attrs.replica_group_mesh_axes import ReplicaGroupMeshAxesAttr
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracyAttr
from stablehlo_py.ir.attrs.scatter import ScatterDimensionNumbersAttr
from stablehlo_py.ir.attrs.struct import DescribedAttr, Description
from stablehlo_py.ir.attrs.type_extensions import TYPE_EXTENSIONS

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

TEXT_KEPT: tuple[type[DescribedAttr], ...] = (MeshAxisAttr, MeshAttr)
"""Described structs the IR keeps as their text (OpaqueAttr): no parser is registered for them, and
the bytecode codec writes them from their text."""

DESCRIBED: dict[str, Description] = {
    **BY_MNEMONIC,
    **{c.DESC.mnemonic: c.DESC for c in TEXT_KEPT},
    TYPE_EXTENSIONS.mnemonic: TYPE_EXTENSIONS,
}
"""Every description by mnemonic: BY_MNEMONIC's, the text-kept ones, and `type_extensions` (whose IR
class, ``ir.types.TypeExtensionsAttr``, is defined below this package)."""

BY_NAME: dict[str, Description] = {
    **{d.what[1:]: d for d in DESCRIBED.values()},
    **{d.attr.name: d for d in DESCRIBED.values()},
}
"""A description by the attribute's name (`stablehlo.mesh`), or its IR class's name where that
differs (`stablehlo.bounds`, upstream's short form of `stablehlo.type_extensions`)."""
