"""xDSL 0.74's greedy pattern walker bounded as MLIR's greedy driver is (a subclass that reuses the
walker's private worklist and methods).

Upstream's shape-refinement passes (`stablehlo-refine-shapes`, `stablehlo-canonicalize-dynamism`)
run MLIR's GreedyPatternRewriteDriver with `GreedyRewriteConfig::maxIterations` and report whether
it converged.  xDSL's `PatternRewriteWalker` is the same kind of driver (ops re-enter the worklist
when they, their operands' producers or their results' users change) but sweeps until nothing
changes, with no bound and no report, and it revisits an erased op's operand producers only when
the erased op was their only user.  `BoundedRewriteWalker` keeps xDSL's worklist machinery and changes
those two points, which xDSL offers no public hook for: it overrides the private
``_handle_operation_removal`` and drives ``_populate_worklist``/``_process_worklist`` with the
listener from ``_get_rewriter_listener`` and the ``_worklist`` field, as xDSL's own
``rewrite_region`` does.

Regression test: tests/unit/ir/test_xdsl_compat.py (the bound and the convergence report on a
pattern that never stops changing, the producer revisit, and a digest of the xDSL methods this
class relies on: a change of any of them means re-reading this module).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriteWalker

RELIED_ON = (
    "_handle_operation_removal",
    "_get_rewriter_listener",
    "rewrite_region",
    "_populate_worklist",
    "_process_worklist",
)
"""The methods of xDSL's PatternRewriteWalker whose behaviour this module assumes (overridden or
called; the regression test digests their source)."""


@dataclass(eq=False, repr=False)
class BoundedRewriteWalker(PatternRewriteWalker):
    """xDSL's walker (ops re-enter the worklist when they, their operands' producers or their
    results' users change) with upstream's GreedyRewriteConfig::maxIterations: at most
    ``max_iterations`` sweeps over the region; ``converged`` tells whether the last one changed
    nothing."""

    max_iterations: int = 2
    converged: bool = True

    def _handle_operation_removal(self, op: Operation) -> None:
        """MLIR's GreedyPatternRewriteDriver::addOperandsToWorklist: revisit an operand's producer
        when at most one other op uses it (it may be dead now), then drop ``op`` from the worklist."""
        for operand in op.operands:
            producer = operand.owner
            if not isinstance(producer, Operation):
                continue
            if _other_users_at_most_one(operand, op):
                self._worklist.push(producer)
        for sub_op in op.walk():
            self._worklist.remove(sub_op)

    def rewrite_region(self, region: Region) -> bool:
        listener = self._get_rewriter_listener()
        changed_any = False
        self.converged = False
        for _ in range(self.max_iterations):
            self._populate_worklist(region)
            changed = self._process_worklist(listener)
            changed_any |= changed
            if not changed:
                self.converged = True
                break
        return changed_any


def _other_users_at_most_one(value: SSAValue, op: Operation) -> bool:
    """Whether at most one op other than ``op`` uses ``value``; stops at the second other
    user (a constant shared by thousands of ops is not walked per erased op)."""
    other: Operation | None = None
    for use in value.uses:
        user = use.operation
        if user is op or user is other:
            continue
        if other is not None:
            return False
        other = user
    return True


__all__ = ["RELIED_ON", "BoundedRewriteWalker"]
