"""dot_general v1 <-> v2 (1.6.0): the dot algorithm, as seven attributes (`none` when unset)."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import types as vt
from stablehlo_py.vhlo.flattened import ALGORITHM_FIELDS as ALGORITHM
from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require

NONE = va.TypeV1Attr(vt.NONE)


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: every algorithm attribute is `#vhlo.type_v1<!vhlo.none_v1>` (no algorithm)."""
    return op.to(2, set_props={name: NONE for name in ALGORITHM})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only without a dot algorithm."""
    for name in ALGORITHM:
        require(op, name, NONE, "a dot algorithm needs 1.6.0")
    return op.to(1, drop=ALGORITHM)


FORKS = (Fork("dot_general", 1, upgrade_v1, downgrade_v2),)
