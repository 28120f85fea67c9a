"""collective_broadcast v1 <-> v2 (1.20.0): variadic operands/results and `has_dynamic_root` (the
broadcasting process is given by a second operand at run time)."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require, require_single


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: `has_dynamic_root = false`."""
    return op.to(2, set_props={"has_dynamic_root": va.FALSE})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only without a dynamic root and with one operand and one result."""
    require(op, "has_dynamic_root", va.FALSE, "a dynamic broadcast root needs 1.20.0")
    require_single(op, "variadic collective_broadcast needs 1.20.0")
    return op.to(1, drop=("has_dynamic_root",))


FORKS = (Fork("collective_broadcast", 1, upgrade_v1, downgrade_v2),)
