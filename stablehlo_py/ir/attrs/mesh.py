"""`#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, ...], device_ids = ...>`: a
named mesh of devices (the `mesh` of `#stablehlo.replica_group_mesh_axes`, or a symbol's
`stablehlo.mesh`), and `#stablehlo.mesh_axis<name = "x", size = 2>`, one of its axes.

The IR keeps both as their text (``TEXT_KEPT``: an OpaqueAttr printed back as written, upstream's
short form `#stablehlo.mesh<axes=[<name = "x", size = 2>]>` included); these descriptions read that
text and write it: the VHLO conversion (`vhlo/structs.py`), the MLIR bytecode codec (kind codes 21
and 22, `serialization/mlirbc/stablehlo.py`) and the mesh-axes flattening (`ir/mesh.py`). A mesh axis is `struct(params)`, both
fields required; a mesh has `axes` (its elements read with or without their name) and an optional
`device_ids` (a dense integer tensor), printed when present.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.channel_handle import COLLECTIVE_STRUCT
from stablehlo_py.ir.attrs.struct import (
    ATTR,
    INT,
    NONDEFAULT,
    STR,
    DescribedAttr,
    field,
    struct_list_kind,
)


@dataclass(frozen=True)
class MeshAxis:
    name: str = field(STR)
    size: int = field(INT)


@irdl_attr_definition
class MeshAxisAttr(DescribedAttr):
    """`#stablehlo.mesh_axis<name = "x", size = 2>` (kept as text in the IR)."""

    name = "stablehlo.mesh_axis"
    STRUCT = MeshAxis
    SYNTAX = COLLECTIVE_STRUCT
    BYTECODE = 21
    TEXT_KEPT = True


@dataclass(frozen=True)
class Mesh:
    axes: tuple[MeshAxis, ...] = field(struct_list_kind(MeshAxisAttr))
    device_ids: Attribute | None = field(ATTR, None, printed=NONDEFAULT)


@irdl_attr_definition
class MeshAttr(DescribedAttr):
    """`#stablehlo.mesh<axes = [...], device_ids = ...>` (kept as text in the IR)."""

    name = "stablehlo.mesh"
    STRUCT = Mesh
    SYNTAX = COLLECTIVE_STRUCT
    BYTECODE = 22
    TEXT_KEPT = True
