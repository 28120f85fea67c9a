"""Region helpers shared by the verifiers of the ops with regions and the collectives (control_flow,
reduction, collectives): region signatures.
Shape, type and attribute helpers are in `constraints`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.constraints import (  # noqa: F401  (DYN ... int_value: re-exported)
    DYN,
    dense_ints,
    dims_compatible,
    i64_array,
    int_value,
    is_promotable,
    is_scalar_tensor,
    rank,
    shapes_compatible,
    t2s,
    types2s,
    types_compatible,
)
from stablehlo_py.ir.types import element_type, shape_of

# Former names of helpers that now live in `constraints`.
shape = shape_of
elem = element_type
dim_eq = dims_compatible


# ----------------------------------------------------------------------------------- regions
def entry_arg_types(region: Region) -> list[Attribute]:
    if not region.blocks:
        return []
    return [a.type for a in region.blocks.first.args]  # type: ignore[union-attr]


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


# ----------------------------------------------------------------------------------- values
def values(vs: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in vs]
