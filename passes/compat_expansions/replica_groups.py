"""Mesh-axes replica groups (`#stablehlo.replica_group_mesh_axes`, new in 1.16.0) as the dense
`tensor<NxGxi64>` replica groups older versions have: upstream's ``ReplicaGroupMeshAxesExpander``
(StablehloCompatibilityExpander.cpp) over ``flattenReplicaGroupMeshAxes`` (ReplicaGroupUtils.cpp).

The mesh is the attribute's own `#stablehlo.mesh<...>`, or the symbol it names: an op (registered or
not, e.g. `sdy.mesh`) whose `mesh` or `stablehlo.mesh` attribute is a `#stablehlo.mesh`, or whose
`stablehlo.mesh` is a dictionary `{axes = [{name = "x", size = 2 : i64}, ...], device_ids = ...}`.

Flattening (XLA's TileAssignment reshape-and-transpose): the mesh's devices (`device_ids`, default
0..N-1) laid out row-major over the mesh axes are transposed so that the axes not communicated over
come first and the communication axes last, in the order the attribute lists them; each run of
(product of the communication axes' sizes) consecutive devices is one group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from stablehlo_py.passes._common import op_location
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.ops.collectives import (
    AxisRefAttr,
    ReplicaGroupMeshAxesAttr,
    lookup_nearest_symbol,
)
from stablehlo_py.ir.text.dense import dense_values, make_dense

__all__ = [
    "Mesh",
    "ReplicaGroupMeshAxesExpander",
    "flatten_replica_group_mesh_axes",
    "mesh_axes_replica_groups",
]


class MeshAxesError(StableHLOError):
    """Mesh-axes replica groups that cannot be flattened (upstream emits the same error)."""


@dataclass(frozen=True)
class Mesh:
    """A `#stablehlo.mesh`: named axes with sizes, and optional device ids."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] | None = None


def _mesh_from_attr(a: Attribute) -> Mesh | None:
    """A `#stablehlo.mesh<axes = [...], device_ids = ...>` attribute (None when it is not one)."""
    from stablehlo_py.vhlo import stablehlo_text

    try:
        mnemonic, fields = stablehlo_text.read(a)
    except stablehlo_text.StructTextError:
        return None
    if mnemonic != "mesh":
        return None
    axes = []
    for axis in fields.get("axes", ()):
        try:
            m, f = stablehlo_text.read(axis)
        except stablehlo_text.StructTextError:
            return None
        if m != "mesh_axis":
            return None
        axes.append((str(f["name"]), int(f["size"])))
    return Mesh(tuple(axes), _device_ids(fields.get("device_ids")))


def _device_ids(a: Attribute | None) -> tuple[int, ...] | None:
    if not isinstance(a, DenseIntOrFPElementsAttr):
        return None
    values = dense_values(a).reshape(-1)
    return tuple(int(v) for v in values) if values.size else None


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


def _error(op: Operation, message: str) -> MeshAxesError:
    return MeshAxesError(message, location=op_location(op))


def resolve_mesh(op: Operation, spec: Attribute) -> Mesh:
    """The mesh of ``op``'s mesh-axes replica groups: inline, or through the symbol it names."""
    inline = _mesh_from_attr(spec)
    if inline is not None:
        return inline
    if not isinstance(spec, SymbolRefAttr):
        raise _error(op, "expected stablehlo.mesh for mesh attribute")
    symbol = lookup_nearest_symbol(op, spec.root_reference.data)
    if symbol is None:
        raise _error(op, "Failed to find mesh symbol")
    for key in ("mesh", "stablehlo.mesh"):
        a = symbol.properties.get(key) or symbol.attributes.get(key)
        mesh = None if a is None else _mesh_from_attr(a)
        if mesh is not None:
            return mesh
    d = symbol.attributes.get("stablehlo.mesh") or symbol.properties.get("stablehlo.mesh")
    if isinstance(d, DictionaryAttr):
        mesh = _mesh_from_dict(d)
        if mesh is not None:
            return mesh
    raise _error(op, "Failed to find mesh attribute on symbol")


def flatten_replica_group_mesh_axes(
    mesh: Mesh, comm_axes: Sequence[Attribute], op: Operation
) -> list[list[int]]:
    """upstream's flattenReplicaGroupMeshAxes: the device groups communicating over ``comm_axes``."""
    names: list[str] = []
    for a in comm_axes:
        if not isinstance(a, AxisRefAttr):
            raise _error(op, "expected AxisRefAttr in comm_axes")
        if a.sub_axis_info is not None:
            raise _error(op, "Subaxes are not supported in flattenReplicaGroupMeshAxes")
        names.append(a.axis_name)
    mesh_names = [n for n, _ in mesh.axes]
    sizes = [s for _, s in mesh.axes]
    for n in names:
        if n not in mesh_names:
            raise _error(op, f"axis '{n}' not found in mesh definition")
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    ids = list(range(total)) if mesh.device_ids is None else list(mesh.device_ids)
    if len(ids) != total:
        raise _error(
            op,
            f"the mesh has {total} devices (the product of its axis sizes) but {len(ids)} "
            "device_ids",
        )
    comm = set(names)
    perm = [i for i, n in enumerate(mesh_names) if n not in comm]
    perm += [mesh_names.index(n) for n in names]
    grid = np.asarray(ids, dtype=np.int64).reshape(sizes) if sizes else np.asarray(ids)
    per_group = int(np.prod([sizes[mesh_names.index(n)] for n in names], dtype=np.int64))
    flat = np.transpose(grid, perm).reshape(-1) if sizes else grid.reshape(-1)
    return flat.reshape(total // per_group, per_group).tolist()


def _replica_groups_of(op: Operation) -> tuple[str, ReplicaGroupMeshAxesAttr] | None:
    for where in ("properties", "attributes"):
        a = getattr(op, where).get("replica_groups")
        if a is not None:
            return (where, a) if isinstance(a, ReplicaGroupMeshAxesAttr) else None
    return None


def mesh_axes_replica_groups(
    op: Operation, rg: ReplicaGroupMeshAxesAttr
) -> DenseIntOrFPElementsAttr:
    """The dense `tensor<NxGxi64>` replica groups ``rg`` stands for."""
    groups = flatten_replica_group_mesh_axes(resolve_mesh(op, rg.mesh), rg.axes, op)
    n, g = len(groups), (len(groups[0]) if groups else 0)
    return make_dense(TensorType(i64, [n, g]), np.asarray(groups, dtype=np.int64).reshape(n, g))


class ReplicaGroupMeshAxesExpander(RewritePattern):
    """Any op whose `replica_groups` are mesh axes -> the same op with dense replica groups."""

    root: ClassVar[str | None] = None  # MatchAnyOpTypeTag

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        found = _replica_groups_of(op)
        if found is None:
            return
        where, rg = found
        getattr(op, where)["replica_groups"] = mesh_axes_replica_groups(op, rg)
        rewriter.notify_op_modified(op)
