"""The aggressive folder's structural patterns (upstream's StablehloAggressiveFolder.cpp), in
upstream's order for each op:

* reduce: FoldReduceOpReducingZeroDims (no dimensions: the inputs), FoldReduceOpToConstantInitializer
  (the body returns constants: splats of them), FoldReduceOpWithRedundantResults (the body returns
  values from outside), LowerBoolSplatConstantsIntoReduceOpRegion (an `and`/`or` body over splat
  constants: the body's arguments become those constants);
* while: FoldWhileOpIfDeadAndPresumedPure (with assume-no-undeclared-side-effects, a dead loop whose
  condition is constant false and whose ops declare no effects is erased), FoldWhileOpPattern (a
  constant-false condition: the results are the operands);
* case: InlineCaseOpWithConstantBranchIndex (a constant index inlines its branch; the branch left
  behind returns placeholders: zeros, or `after_all` for tokens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from stablehlo_py.passes.drivers.greedy import constant_value_of, is_trivially_dead, own_effects
from stablehlo_py.passes.patterns.shape_folder import (
    FoldOptions,
    _ints_prop,
    _is_float,
    _is_int,
    constant_attr,
    make_constant,
)
from xdsl.dialects.builtin import ComplexType, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import TokenType, num_elements, storage_dtype

__all__ = ["structural_patterns"]


def _splat_value(attr: DenseIntOrFPElementsAttr) -> np.ndarray | None:
    """The single value of a splat (or one-element) constant, else None."""
    values = np.ascontiguousarray(dense_values(attr)).reshape(-1)
    if values.size == 0:
        return None
    if values.size > 1:
        raw = values.view(np.uint8).reshape(values.size, -1)
        if not bool((raw == raw[0]).all()):
            return None
    return values[:1].reshape(())


def _splat_constant(t: TensorType, value: np.ndarray, where: Operation) -> Operation:
    c = make_constant(make_dense(t, np.broadcast_to(value, t.get_shape())))
    _at(c, where)
    return c


def _at(new: Operation, old: Operation) -> None:
    from stablehlo_py.passes.drivers._common import carry_location

    carry_location(new, old)


def _terminator(block: Block) -> Operation | None:
    last = block.last_op
    return last if last is not None and last.name == "stablehlo.return" else None


class _Rooted(RewritePattern):
    """A pattern of the ops named ``root`` (the greedy driver tries it on these ops only)."""

    root: ClassVar[str]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == self.root:
            self.rewrite(op, rewriter)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        raise NotImplementedError


# ------------------------------------------------------------------------------- reduce
class FoldReduceOpReducingZeroDims(_Rooted):
    root = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if _ints_prop(op, "dimensions"):
            return
        n = len(op.results)
        inputs = list(op.operands[:n])
        if any(i.type != r.type for i, r in zip(inputs, op.results)):
            return
        rewriter.replace(op, [], new_results=inputs)


class FoldReduceOpToConstantInitializer(_Rooted):
    root = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        body = op.regions[0].blocks[0]
        ret = _terminator(body)
        if ret is None or body.first_op is not ret:
            return
        values = []
        for returned, result in zip(ret.operands, op.results):
            owner = returned.owner
            if not isinstance(owner, Operation) or constant_value_of(owner) is None:
                return
            attr = constant_attr(returned)
            if attr is None or not isinstance(result.type, TensorType):
                return
            v = _splat_value(attr)
            if v is None:
                return
            values.append(v)
        new = [_splat_constant(r.type, v, op) for r, v in zip(op.results, values)]  # type: ignore[arg-type]
        rewriter.replace(op, new, new_results=[c.results[0] for c in new])


class FoldReduceOpWithRedundantResults(_Rooted):
    root = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        region = op.regions[0]
        ret = _terminator(region.blocks[0])
        if ret is None:
            return
        for result, returned in zip(op.results, ret.operands):
            if _defined_in(returned, region) or returned.type != result.type:
                return
        rewriter.replace(op, [], new_results=list(ret.operands))


def _defined_in(value: SSAValue, region: object) -> bool:
    """Whether ``value`` is defined directly in ``region`` (an op or a block argument of it)."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent  # type: ignore[union-attr]
    return block is not None and block.parent is region


class LowerBoolSplatConstantsIntoReduceOpRegion(_Rooted):
    root = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        body = op.regions[0].blocks[0]
        first = body.first_op
        if first is None or len(list(body.ops)) != 2:
            return
        if first.name not in ("stablehlo.and", "stablehlo.or"):
            return
        values = []
        for operand, arg in zip(op.operands, body.args):
            attr = constant_attr(operand)
            v = None if attr is None else _splat_value(attr)
            if v is None:
                return
            if not isinstance(arg.type, TensorType):
                return
            values.append(v)
        for arg, v in zip(body.args, values):
            c = _splat_constant(arg.type, v, first)  # type: ignore[arg-type]
            rewriter.insert(c, InsertPoint.before(op))
            rewriter.replace_all_uses_with(arg, c.results[0])
        rewriter.has_done_action = True


# ------------------------------------------------------------------------------- while
def _cond_is_false(op: Operation) -> bool:
    ret = _terminator(op.regions[0].blocks[0])
    if ret is None or not ret.operands:
        return False
    attr = constant_attr(ret.operands[0])
    if attr is None or not _is_int(attr.type.element_type):
        return False
    v = _splat_value(attr)
    return v is not None and not bool(v)


def has_any_declared_side_effects(op: Operation) -> bool:
    """upstream's hasAnyDeclaredSideEffects: the op or an op in its regions declares effects (an op
    declaring nothing, e.g. `func.call`, is presumed pure)."""
    from xdsl.traits import RecursiveMemoryEffect

    own = own_effects(op)
    if own:
        return True
    if own is not None and not op.has_trait(RecursiveMemoryEffect, value_if_unregistered=False):
        return False
    return any(
        has_any_declared_side_effects(n) for r in op.regions for b in r.blocks for n in b.ops
    )


class FoldWhileOpIfDeadAndPresumedPure(_Rooted):
    root = "stablehlo.while"

    def __init__(self, options: FoldOptions):
        self.options = options

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not self.options.assume_no_undeclared_side_effects:
            return
        if any(r.first_use is not None for r in op.results) or not _cond_is_false(op):
            return
        if has_any_declared_side_effects(op):
            return
        rewriter.erase(op)


class FoldWhileOpPattern(_Rooted):
    root = "stablehlo.while"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        used = any(r.first_use is not None for r in op.results)
        if not used and not is_trivially_dead(op):
            return  # keeping a dead while op with (possible) side effects
        if not _cond_is_false(op):
            return
        for result, operand in zip(op.results, op.operands):
            rewriter.replace_all_uses_with(result, operand)
        rewriter.has_done_action = True


# ------------------------------------------------------------------------------- case
def _placeholder(t: Attribute, where: Operation) -> Operation | None:
    """upstream's LazyPlaceholderValue: a zero constant of the type (complex too), `after_all` for a
    token; None for other types."""
    if isinstance(t, TensorType):
        e = t.element_type
        if _is_int(e) or _is_float(e) or isinstance(e, ComplexType):
            if num_elements(t.get_shape()) < 0:
                return None
            zero = np.zeros((), dtype=storage_dtype(e))
            return _splat_constant(t, zero, where)
        return None
    if isinstance(t, TokenType):
        from stablehlo_py.ir.xdsl_compat.construct import new_op
        from stablehlo_py.ir.ops.control_flow import AfterAllOp

        a = new_op(AfterAllOp, [], [t], {})
        _at(a, where)
        return a
    return None


class InlineCaseOpWithConstantBranchIndex(_Rooted):
    root = "stablehlo.case"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if all(r.first_use is None for r in op.results):
            return  # dead case ops are left to dead-code elimination
        attr = constant_attr(op.operands[0])
        index = None if attr is None else _splat_value(attr)
        if index is None:
            return
        n = len(op.regions)
        selected = int(index)
        if selected < 0 or selected >= n:
            selected = n - 1
        region = op.regions[selected]
        block = region.blocks[0]
        ret = _terminator(block)
        if ret is None:
            return
        placeholders = [_placeholder(r.type, op) for r in op.results]
        if any(p is None for p in placeholders):
            return
        results = list(ret.operands)
        moved = list(block.ops)
        rewriter.inline_block(block, InsertPoint.before(op))
        for m in moved:
            rewriter.handle_operation_insertion(m)
        for r, v in zip(op.results, results):
            rewriter.replace_all_uses_with(r, v)
        rewriter.erase(ret)
        noop = Block()
        region.add_block(noop)
        ops: Sequence[Operation] = [p for p in placeholders if p is not None]
        from stablehlo_py.ir.xdsl_compat.construct import new_op
        from stablehlo_py.ir.ops.control_flow import ReturnOp

        terminator = new_op(ReturnOp, [p.results[0] for p in ops], [], {})
        _at(terminator, op)
        rewriter.insert([*ops, terminator], InsertPoint.at_end(noop))


def structural_patterns(options: FoldOptions) -> list[RewritePattern]:
    """In upstream's order (populateStablehloAggressiveFolderPatterns)."""
    return [
        FoldReduceOpReducingZeroDims(),
        FoldReduceOpToConstantInitializer(),
        FoldReduceOpWithRedundantResults(),
        FoldWhileOpIfDeadAndPresumedPure(options),
        FoldWhileOpPattern(),
        InlineCaseOpWithConstantBranchIndex(),
        LowerBoolSplatConstantsIntoReduceOpRegion(),
    ]
