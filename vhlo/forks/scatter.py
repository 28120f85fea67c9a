"""scatter v1 <-> v2 (1.1.0): `input_batching_dims` and `scatter_indices_batching_dims`.

scatter_v1 also allows result element types that differ from the inputs' only from 0.17.0 (see
``stablehlo_py.vhlo.legality.CONSTRAINTS``)."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.forks.base import Blocked, Fork, ForkOp

BATCHING = ("input_batching_dims", "scatter_indices_batching_dims")


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: empty batching dimensions."""
    empty = va.i64_tensor([])
    return op.to(2, set_props={name: empty for name in BATCHING})


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only with empty batching dimensions."""
    for name in BATCHING:
        value = op.prop(name)
        if value is not None and not (isinstance(value, va.TensorV1Attr) and value.is_empty):
            from stablehlo_py.ir.text.printer import attr_to_str

            raise Blocked(f"batching dimensions need 1.1.0 ({name} = {attr_to_str(value)})")
    return op.to(1, drop=BATCHING)


FORKS = (Fork("scatter", 1, upgrade_v1, downgrade_v2),)
