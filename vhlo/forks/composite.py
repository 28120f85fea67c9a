"""composite v1 <-> v2 (1.14.0): `composite_regions`, the decomposition inlined as regions."""

from __future__ import annotations

from stablehlo_py.vhlo.forks.base import Blocked, Fork, ForkOp


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: no composite regions (composite_v1 has none to carry over)."""
    return op.to(2)


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only when the composite has no regions."""
    if op.regions:
        raise Blocked(f"{len(op.regions)} composite region(s) (composite regions need 1.14.0)")
    return op.to(1)


FORKS = (Fork("composite", 1, upgrade_v1, downgrade_v2),)
