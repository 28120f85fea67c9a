"""Region helpers shared by the verifiers of ops with regions (ir/ops/reduction.py and
collectives.py): the types a region returns and the single-block check.
Shape, type and attribute helpers are in `constraints`.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Operation, Region
from xdsl.utils.exceptions import VerifyException


# ----------------------------------------------------------------------------------- regions
def return_types(region: Region) -> list[Attribute] | None:
    """Operand types of the region's terminator (None when the region is empty)."""
    if not region.blocks:
        return None
    last = region.blocks.last
    if last is None or last.last_op is None:
        return []
    return [v.type for v in last.last_op.operands]


def require_single_block(op: Operation, region: Region, what: str, non_empty: bool = False) -> None:
    """ODS `SizedRegion<1>:$what` (MLIR's words); with `non_empty`, also the SingleBlock trait of
    the ops with SingleBlockImplicitTerminator (all_reduce, reduce, ...).  The terminator itself is
    left to the op's verifier, as upstream's verifiers take the block's last op for it."""
    if len(region.blocks) != 1:
        index = next(i for i, r in enumerate(op.regions) if r is region)
        raise VerifyException(
            f"region #{index} ('{what}') failed to verify constraint: region with 1 blocks"
        )
    if non_empty and region.blocks.first.first_op is None:  # type: ignore[union-attr]
        raise VerifyException("expects a non-empty block")
