"""custom_call v1 <-> v2 (1.18.0): `result_tilings`.

custom_call_v1 also has value-dependent constraints (typed FFI at 1.3.0, future-typed operands at
1.17.0); they are in ``stablehlo_py.vhlo.legality.CONSTRAINTS``."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: `result_tilings = []`."""
    return op.to(2, set_props={"result_tilings": va.EMPTY_ARRAY})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only with no result tilings."""
    require(op, "result_tilings", va.EMPTY_ARRAY, "custom_call result tilings need 1.18.0")
    return op.to(1, drop=("result_tilings",))


FORKS = (Fork("custom_call", 1, upgrade_v1, downgrade_v2),)
