"""all_to_all v1 <-> v2 (1.5.0): one operand/result became variadic operands/results."""

from __future__ import annotations

from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require_single


def upgrade_v1(op: ForkOp) -> ForkOp:
    """v1 -> v2: the single operand and result become one-element variadic groups."""
    return op.to(2)


def downgrade_v2(op: ForkOp) -> ForkOp:
    """v2 -> v1: only with exactly one operand and one result."""
    require_single(op, "all_to_all with several operands needs 1.5.0")
    return op.to(1)


FORKS = (Fork("all_to_all", 1, upgrade_v1, downgrade_v2),)
