"""send and recv v1 <-> v2 (1.12.0): `source_target_pairs`."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.forks.base import Blocked, Fork, ForkOp


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: no source/target pairs (an empty i64 tensor)."""
    return op.to(2, set_props={"source_target_pairs": va.i64_tensor([])})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only without source/target pairs."""
    value = op.prop("source_target_pairs")
    if value is not None and not (isinstance(value, va.TensorV1Attr) and value.is_empty):
        from stablehlo_py.ir.text.printer import attr_to_str

        raise Blocked(
            f"source_target_pairs need 1.12.0 (source_target_pairs = {attr_to_str(value)})"
        )
    return op.to(1, drop=("source_target_pairs",))


FORKS = (
    Fork("send", 1, upgrade_v1, downgrade_v2),
    Fork("recv", 1, upgrade_v1, downgrade_v2),
)
