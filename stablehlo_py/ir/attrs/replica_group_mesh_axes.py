"""`#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<...>, ...]>`: replica
groups named by the axes of a mesh instead of listed device ids (the collectives' replica_groups).
`mesh` is required; `axes` is always printed."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.channel_handle import COLLECTIVE_STRUCT
from stablehlo_py.ir.attrs.struct import ATTR, ATTRS, DescribedAttr, field


@dataclass(frozen=True)
class MeshAxes:
    mesh: Attribute = field(ATTR)
    axes: tuple[Attribute, ...] = field(ATTRS, ())


@irdl_attr_definition
class ReplicaGroupMeshAxesAttr(DescribedAttr):
    """`#stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<...>, ...]>`:
    replica groups named by the axes of a mesh instead of listed device ids."""

    name = "stablehlo.replica_group_mesh_axes"
    STRUCT = MeshAxes
    SYNTAX = COLLECTIVE_STRUCT
    BYTECODE = 18

    def __init__(self, mesh: Attribute, axes: tuple[Attribute, ...] | list[Attribute]) -> None:
        super().__init__(MeshAxes(mesh, tuple(axes)))

    @property
    def mesh(self) -> Attribute:
        return self.data.mesh  # type: ignore[attr-defined]

    @property
    def axes(self) -> tuple[Attribute, ...]:
        return self.data.axes  # type: ignore[attr-defined]
