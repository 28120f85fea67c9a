"""dynamic_conv v1 <-> v2 (0.20.0): the `padding` attribute was removed (the `d_padding` operand, now
named `padding`, always held the padding).

Upstream's upgrade drops the attribute whatever it holds; here the upgrade refuses a non-zero
`padding` attribute instead of losing it silently (DESIGN.md §4)."""

from __future__ import annotations

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import types as vt
from stablehlo_py.vhlo.forks.base import Blocked, Fork, ForkOp


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: drop the `padding` attribute, which must be all zeros."""
    pad = op.prop("padding")
    if pad is not None and not (isinstance(pad, va.TensorV1Attr) and not pad.values().any()):
        from stablehlo_py.ir.text.printer import attr_to_str

        raise Blocked(
            "a non-zero `padding` attribute, which dynamic_conv_v2 (0.20.0+) cannot hold "
            f"(padding = {attr_to_str(pad)})"
        )
    return op.to(2, drop=("padding",))


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: `padding` = zeros of shape (rank(lhs) - 2, 2), as upstream's getDefaultPadding."""
    lhs = op.operands[0].type
    if not isinstance(lhs, vt.TensorV1Type):
        raise Blocked("an unranked lhs (dynamic_conv_v1 needs its rank for the padding attribute)")
    n = len(lhs.shape) - 2
    return op.to(1, set_props={"padding": va.i64_tensor([0] * (2 * n), (n, 2))})


FORKS = (Fork("dynamic_conv", 1, upgrade_v1, downgrade_v2),)
