"""The expansions of `stablehlo-compatibility-expander` (upstream's StablehloCompatibilityExpander.cpp
and StablehloCompatibilityExpanderPatterns.td), one table row each: what it rewrites, the version
that introduced the feature (the expansion applies for targets below it, exactly as upstream's
``populateStablehloCompatibilityExpanderPatterns`` gates it), its patterns, and which downgrade
blockers it removes (for the hint our downgrade diagnostics give).

=====================  ===========  ==========================================================
expansion              below        rewrites
=====================  ===========  ==========================================================
batching-dims          1.1.0        gather / scatter batching dims -> collapsed / inserted dims
                                    plus iotas concatenated to the indices (static indices)
tan                    1.4.0        tan -> sine / cosine (complex: through tan and tanh)
location-ranges        1.9.0        `"f":1:2 to :9` locations -> `"f":1:2` (MLIR 1.8.4+ ranges)
mesh-axes-groups       1.16.0       `#stablehlo.replica_group_mesh_axes` -> dense replica groups
=====================  ===========  ==========================================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stablehlo_py.passes.patterns.compat_expansions.batching import (
    GatherWithBatchingDimsExpander,
    ScatterWithBatchingDimsExpander,
)
from stablehlo_py.passes.patterns.compat_expansions.locations import drop_location_ranges
from stablehlo_py.passes.patterns.compat_expansions.replica_groups import (
    ReplicaGroupMeshAxesExpander,
)
from stablehlo_py.passes.patterns.compat_expansions.tan import TanOpComplexExpander, TanOpExpander
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

from stablehlo_py.version import Version

__all__ = ["EXPANSIONS", "Expansion", "expansions_for", "removable", "removed_by"]


def _vhlo_base(op: object) -> str:
    """`gather` for `vhlo.gather_v2` (an xDSL VHLO op or a record)."""
    name = str(getattr(op, "name", ""))
    return name.removeprefix("vhlo.").rsplit("_v", 1)[0]


def _static_operand(op: object, index: int) -> bool:
    operands = list(getattr(op, "operands", ()))
    if index >= len(operands):
        return False
    shape = getattr(operands[index].type, "shape", None)
    return shape is not None and all(d >= 0 for d in shape)


def _batching_removes(op: object, feature: str) -> bool:
    if not feature.startswith("batching dimensions"):
        return False
    base = _vhlo_base(op)
    if base == "gather":
        return _static_operand(op, 1)
    if base == "scatter":
        n = len(list(getattr(op, "operands", ())))
        return _static_operand(op, (n - 1) // 2)
    return False


def _tan_removes(op: object, feature: str) -> bool:
    return _vhlo_base(op) == "tan" and feature == "op 'tan'"


def _ranges_removes(op: object, feature: str) -> bool:
    return feature.startswith("a file:line:col range location")


def _mesh_removes(op: object, feature: str) -> bool:
    return "replica_group_mesh_axes" in feature and "'replica_groups'" in feature


@dataclass(frozen=True)
class Expansion:
    """One row of the table."""

    name: str
    introduced: Version
    """The expansion applies to targets below this version."""
    patterns: Callable[[], Sequence[RewritePattern]]
    removes: Callable[[object, str], bool]
    """Whether it removes a VHLO op's downgrade blocker (the op, the blocker's feature text)."""
    what: str
    module_step: Callable[[Operation], bool] | None = None
    """A rewrite of the whole module (upstream: a ModuleOp-rooted pattern)."""


EXPANSIONS: tuple[Expansion, ...] = (
    Expansion(
        "batching-dims",
        Version(1, 1, 0),
        lambda: (GatherWithBatchingDimsExpander(), ScatterWithBatchingDimsExpander()),
        _batching_removes,
        "gather/scatter batching dimensions",
    ),
    Expansion(
        "tan",
        Version(1, 4, 0),
        lambda: (TanOpComplexExpander(), TanOpExpander()),
        _tan_removes,
        "tan",
    ),
    Expansion(
        "location-ranges",
        Version(1, 9, 0),
        lambda: (),
        _ranges_removes,
        "file:line:col range locations",
        module_step=drop_location_ranges,
    ),
    Expansion(
        "mesh-axes-groups",
        Version(1, 16, 0),
        lambda: (ReplicaGroupMeshAxesExpander(),),
        _mesh_removes,
        "mesh-axes replica groups",
    ),
)


def expansions_for(target: Version) -> list[Expansion]:
    """The expansions that apply to ``target`` (upstream's version gates)."""
    return [e for e in EXPANSIONS if target < e.introduced]


def removed_by(op: object, feature: str, target: Version) -> Expansion | None:
    """The expansion (for ``target``) that removes this blocker of a VHLO op, if any."""
    for e in expansions_for(target):
        if e.removes(op, feature):
            return e
    return None


def removable(op: object, features: Sequence[str], target: Version) -> tuple[str, ...] | None:
    """When the expander for ``target`` removes every one of ``features`` (an op's downgrade
    blockers), what it rewrites (for a hint); else None."""
    got: list[str] = []
    for f in features:
        e = removed_by(op, f, target)
        if e is None:
            return None
        if e.what not in got:
            got.append(e.what)
    return tuple(got)
