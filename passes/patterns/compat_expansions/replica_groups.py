"""Mesh-axes replica groups (`#stablehlo.replica_group_mesh_axes`, new in 1.16.0) as the dense
`tensor<NxGxi64>` replica groups older versions have: upstream's ``ReplicaGroupMeshAxesExpander``
(StablehloCompatibilityExpander.cpp).  Resolving the mesh and flattening it into device groups is
stablehlo_py/ir/mesh.py (shared with the interpreter's collectives)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i64
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.mesh import replica_groups_of_mesh_axes
from stablehlo_py.ir.ops.collectives import ReplicaGroupMeshAxesAttr
from stablehlo_py.ir.text.dense import make_dense

__all__ = ["ReplicaGroupMeshAxesExpander", "dense_replica_groups"]


def dense_replica_groups(op: Operation, rg: ReplicaGroupMeshAxesAttr) -> DenseIntOrFPElementsAttr:
    """The dense `tensor<NxGxi64>` replica groups ``rg`` stands for."""
    groups = replica_groups_of_mesh_axes(op, rg)
    n, g = len(groups), (len(groups[0]) if groups else 0)
    return make_dense(TensorType(i64, [n, g]), np.asarray(groups, dtype=np.int64).reshape(n, g))


def _replica_groups_of(op: Operation) -> tuple[str, ReplicaGroupMeshAxesAttr] | None:
    for where in ("properties", "attributes"):
        a = getattr(op, where).get("replica_groups")
        if a is not None:
            return (where, a) if isinstance(a, ReplicaGroupMeshAxesAttr) else None
    return None


class ReplicaGroupMeshAxesExpander(RewritePattern):
    """Any op whose `replica_groups` are mesh axes -> the same op with dense replica groups."""

    root: ClassVar[str | None] = None  # MatchAnyOpTypeTag

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        found = _replica_groups_of(op)
        if found is None:
            return
        where, rg = found
        getattr(op, where)["replica_groups"] = dense_replica_groups(op, rg)
        rewriter.notify_op_modified(op)
