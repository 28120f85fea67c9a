"""Meshes and mesh-axes replica groups: reading a `#stablehlo.mesh` (also as a symbol's
`stablehlo.mesh` dictionary) and flattening `#stablehlo.replica_group_mesh_axes` into the device
groups it stands for -- upstream's ``flattenReplicaGroupMeshAxes`` (ReplicaGroupUtils.cpp), "for
reference implementation purposes or when a fallback is required".  One implementation, used by
stablehlo-compatibility-expander (dense replica groups for targets below 1.16.0) and by the
interpreter's collectives.

Flattening (XLA's TileAssignment reshape-and-transpose): the mesh's devices (`device_ids`, default
0..N-1) laid out row-major over the mesh axes are transposed so that the axes not communicated over
come first and the communication axes last, in the order the attribute lists them; each run of
(product of the communication axes' sizes) consecutive devices is one group.

A mesh is read by its description (`ir/attrs/mesh.py`), in either spelling:
`#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>], device_ids = ...>` and
upstream's printed `#stablehlo.mesh<axes=[<name = "x", size = 2>]>` (its ArrayRefParameter elides
the element mnemonic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.attrs.mesh import MeshAttr
from stablehlo_py.ir.attrs.struct import Description

__all__ = [
    "Mesh",
    "MeshAxesError",
    "flatten_replica_group_mesh_axes",
    "mesh_from_attr",
    "replica_groups_of_mesh_axes",
    "read_text_kept",
    "resolve_mesh",
]


class MeshAxesError(StableHLOError):
    """Mesh-axes replica groups that cannot be flattened (upstream's messages)."""


@dataclass(frozen=True)
class Mesh:
    """A `#stablehlo.mesh`: named axes with sizes, and optional device ids."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None = None


def _device_ids(a: Attribute | None) -> tuple[int, ...] | None:
    if not isinstance(a, DenseIntOrFPElementsAttr):
        return None
    from stablehlo_py.ir.text.dense import dense_values

    values = dense_values(a).reshape(-1)
    return tuple(int(v) for v in values) if values.size else None


def read_text_kept(d: Description, text: str) -> Any:
    """The value of a struct the IR keeps as its text (`#stablehlo.mesh<...>`), read by its
    description ``d`` from the whole of ``text``; a StableHLOError when it is not one."""
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<attribute>")
    data = d.parse_text(p)
    if not p.at_end():
        p.error(f"trailing text after {d.what}")
    return data


def mesh_from_attr(a: Attribute) -> Mesh | None:
    """A `#stablehlo.mesh<...>` attribute (kept as its text), or None when it is not one."""
    from stablehlo_py.ir.attributes import OpaqueAttr

    if not isinstance(a, OpaqueAttr) or not str(a.data).startswith("#stablehlo.mesh<"):
        return None
    try:
        mesh = read_text_kept(MeshAttr.DESC, str(a.data))
    except StableHLOError:
        return None
    axes = tuple((axis.name, axis.size) for axis in mesh.axes)
    return Mesh(axes, _device_ids(mesh.device_ids))


def _mesh_from_dict(d: DictionaryAttr) -> Mesh | None:
    """upstream's resolveMeshAttrFromDict."""
    axes_attr = d.data.get("axes")
    if not isinstance(axes_attr, ArrayAttr):
        return None
    axes = []
    for axis in axes_attr.data:
        if not isinstance(axis, DictionaryAttr):
            return None
        name, size = axis.data.get("name"), axis.data.get("size")
        if not isinstance(name, StringAttr) or not isinstance(size, IntegerAttr):
            return None
        axes.append((name.data, int(size.value.data)))
    return Mesh(tuple(axes), _device_ids(d.data.get("device_ids")))


def resolve_mesh(op: Operation, spec: Attribute) -> Mesh:
    """The mesh of ``op``'s mesh-axes replica groups: inline, or through the symbol it names (an
    op whose `mesh` or `stablehlo.mesh` is a `#stablehlo.mesh`, or whose `stablehlo.mesh` is a
    dictionary)."""
    from stablehlo_py.ir.ops.collectives import lookup_nearest_symbol

    inline = mesh_from_attr(spec)
    if inline is not None:
        return inline
    if not isinstance(spec, SymbolRefAttr):
        raise MeshAxesError("expected stablehlo.mesh for mesh attribute")
    symbol = lookup_nearest_symbol(op, spec.root_reference.data)
    if symbol is None:
        raise MeshAxesError("Failed to find mesh symbol")
    for key in ("mesh", "stablehlo.mesh"):
        a = symbol.properties.get(key) or symbol.attributes.get(key)
        mesh = None if a is None else mesh_from_attr(a)
        if mesh is not None:
            return mesh
    d = symbol.attributes.get("stablehlo.mesh") or symbol.properties.get("stablehlo.mesh")
    if isinstance(d, DictionaryAttr):
        mesh = _mesh_from_dict(d)
        if mesh is not None:
            return mesh
    raise MeshAxesError("Failed to find mesh attribute on symbol")


def flatten_replica_group_mesh_axes(mesh: Mesh, comm_axes: Sequence[Attribute]) -> list[list[int]]:
    """upstream's flattenReplicaGroupMeshAxes: the device groups communicating over ``comm_axes``
    (`#stablehlo.axis_ref`s)."""
    from stablehlo_py.ir.ops.collectives import AxisRefAttr

    names: list[str] = []
    for a in comm_axes:
        if not isinstance(a, AxisRefAttr):
            raise MeshAxesError("expected AxisRefAttr in comm_axes")
        if a.sub_axis_info is not None:
            raise MeshAxesError("Subaxes are not supported in flattenReplicaGroupMeshAxes")
        names.append(a.axis_name)
    mesh_names = [n for n, _ in mesh.axes]
    sizes = [s for _, s in mesh.axes]
    for n in names:
        if n not in mesh_names:
            raise MeshAxesError(f"axis '{n}' not found in mesh definition")
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    ids = list(range(total)) if mesh.device_ids is None else list(mesh.device_ids)
    if len(ids) != total:
        raise MeshAxesError(
            f"the mesh has {total} devices (the product of its axis sizes) but {len(ids)} "
            "device_ids"
        )
    comm = set(names)
    perm = [i for i, n in enumerate(mesh_names) if n not in comm]
    perm += [mesh_names.index(n) for n in names]
    grid = np.asarray(ids, dtype=np.int64)
    flat = np.transpose(grid.reshape(sizes), perm).reshape(-1) if sizes else grid
    per_group = int(np.prod([sizes[mesh_names.index(n)] for n in names], dtype=np.int64))
    return flat.reshape(total // per_group, per_group).tolist()


def replica_groups_of_mesh_axes(op: Operation, rg: Attribute) -> list[list[int]]:
    """The device groups of ``op``'s `#stablehlo.replica_group_mesh_axes` ``rg``; a MeshAxesError
    (upstream's message, at the op) when they cannot be flattened."""
    from stablehlo_py.ir.ops.collectives import ReplicaGroupMeshAxesAttr

    assert isinstance(rg, ReplicaGroupMeshAxesAttr)
    try:
        return flatten_replica_group_mesh_axes(resolve_mesh(op, rg.mesh), rg.axes)
    except MeshAxesError as e:
        from stablehlo_py.ir.text.parser import op_source_location

        raise MeshAxesError(e.message, location=op_source_location(op)) from None
