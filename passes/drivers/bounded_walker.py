"""The greedy walk of the shape-refinement passes (`stablehlo-refine-shapes`,
`stablehlo-canonicalize-dynamism`): xDSL's `PatternRewriteWalker` bounded to MLIR's
GreedyRewriteConfig::maxIterations sweeps (`BoundedRewriteWalker`, which reuses the walker's private
worklist and so lives in stablehlo_py/ir/xdsl_compat/rewrite_walker.py), and the constant uniquing
MLIR's greedy driver does (`ConstantUniquer`).

A leaf: it knows no refinement pattern, so `refine_calls` (which runs the refinement patterns on a
function) and the passes can all import it.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import IsolatedFromAbove

from stablehlo_py.ir.xdsl_compat.rewrite_walker import BoundedRewriteWalker
from stablehlo_py.passes.patterns.shape_folder import CONSTANT_OPS, op_attr

__all__ = ["BoundedRewriteWalker", "ConstantUniquer"]


class ConstantUniquer(RewritePattern):
    """What MLIR's greedy driver does with constants (OperationFolder::insertKnownConstant): the
    first constant of each value and type in an isolated region is kept and moved to the front of the
    region's entry block (unless it directly follows such a constant); a later equal constant is
    replaced by it.  Moving is not a change of the IR (it does not count against convergence)."""

    def __init__(self) -> None:
        self.known: dict[tuple[Region, Attribute, Attribute], Operation] = {}
        self.owned: set[Operation] = set()

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name not in CONSTANT_OPS or len(op.results) != 1:
            return
        value = op_attr(op, "value")
        block = op.parent_block()
        region = _insertion_region(op)
        if value is None or block is None or region is None or not region.blocks:
            return
        insert_block = region.blocks[0]
        if op in self.owned:
            self._move_to_front(op, insert_block)
            return
        key = (region, value, op.results[0].type)
        existing = self.known.get(key)
        if existing is not None and existing.parent is not None and existing is not op:
            rewriter.replace(op, [], new_results=list(existing.results))
            return
        self.known[key] = op
        self.owned.add(op)
        self._move_to_front(op, insert_block)

    def _move_to_front(self, op: Operation, insert_block: Block) -> None:
        if op.parent_block() is insert_block and (
            insert_block.first_op is op or op.prev_op in self.owned
        ):
            return
        front = insert_block.first_op
        op.detach()
        if front is None:
            insert_block.add_op(op)
        else:
            insert_block.insert_op_before(op, front)


def _insertion_region(op: Operation) -> Region | None:
    """The closest enclosing region whose op is isolated from above (a function body)."""
    region = op.parent_region()
    while region is not None:
        parent = region.parent_op()
        if parent is None or parent.has_trait(IsolatedFromAbove):
            return region
        region = parent.parent_region()
    return None
