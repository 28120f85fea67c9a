"""Simplification patterns of region-holding ops: reduce, sort and while (upstream's
ReduceOp_RemoveNoop, ReduceOpNoopVariableReturn, ReduceOpEmptyCanon, ReduceOpUnusedResultCanon,
SortOpDropUnusedArgs, SortOpSetDimension, WhileOpImplicitCapture)."""

from __future__ import annotations

from collections.abc import Sequence

from stablehlo_py.passes.drivers._common import carry_location
from stablehlo_py.passes.patterns.simplify.common import (
    RootPattern,
    build,
    i64_array,
    ints,
    op_cls,
    replace_with_ops,
    replace_with_values,
    static_shape,
)
from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter


def _region_of(v: SSAValue) -> Region | None:
    """The region a value is defined in (MLIR's Value::getParentRegion)."""
    if isinstance(v, BlockArgument):
        return v.block.parent
    if isinstance(v, OpResult):
        block = v.owner.parent
        return None if block is None else block.parent
    return None


def _terminator(region: Region) -> Operation | None:
    block = region.blocks.first
    return None if block is None else block.last_op


def _replace_keeping(
    rewriter: PatternRewriter, op: Operation, new: Operation, kept: Sequence[int]
) -> None:
    """``new`` (at ``op``'s location) replaces ``op``: its result k stands for ``op``'s result
    ``kept[k]``; ``op``'s other results have no uses."""
    carry_location(new, op)
    results: list[SSAValue | None] = [None] * len(op.results)
    for k, i in enumerate(kept):
        results[i] = new.results[k]
    rewriter.replace(op, [new], results)  # type: ignore[arg-type]


# ------------------------------------------------------------------------ reduce
class ReduceOp_RemoveNoop(RootPattern):
    """reduce(X..., dims = []) -> X..."""

    ROOT = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if ints(op.properties["dimensions"]):
            return
        n = len(op.results)
        if any(v.type != r.type for v, r in zip(op.operands[:n], op.results)):
            return  # the body changes the element type (an invalid replacement upstream)
        replace_with_values(rewriter, op, list(op.operands[:n]))


class ReduceOpNoopVariableReturn(RootPattern):
    """reduce whose body returns values defined outside it -> those values."""

    ROOT = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ret = _terminator(op.regions[0])
        if ret is None or ret.name != "stablehlo.return":
            return
        body = op.regions[0]
        if any(_region_of(v) is body for v in ret.operands):
            return
        # upstream replaces without comparing types: a 0-d value returned by the body of a reduce
        # that keeps some dimensions would leave invalid IR; then the reduce stays
        if any(v.type != r.type for v, r in zip(ret.operands, op.results)):
            return
        replace_with_values(rewriter, op, list(ret.operands))


class ReduceOpEmptyCanon(RootPattern):
    """reduce of inputs with no elements -> broadcast of the init values."""

    ROOT = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        first = op.operands[0].type
        if not isinstance(first, TensorType) or 0 not in first.get_shape():
            return
        n = len(op.results)
        inits = op.operands[n : 2 * n]
        empty = {"broadcast_dimensions": i64_array([])}
        if static_shape(first) is not None:
            bcast = op_cls("stablehlo.broadcast_in_dim")
            new = [build(bcast, [v], empty, [r.type], like=op) for v, r in zip(inits, op.results)]
            replace_with_ops(rewriter, op, new, [b.results[0] for b in new])
            return
        from stablehlo_py.errors import NotSupportedError
        from stablehlo_py.ir.infer import InferError
        from stablehlo_py.ir.infer.reify import ShapeBuilder, reify_result_shapes

        try:
            shapes = reify_result_shapes(op, ShapeBuilder.before_op(op))
        except (NotSupportedError, InferError):
            return
        if not shapes:
            return
        dyn = op_cls("stablehlo.dynamic_broadcast_in_dim")
        new = [
            build(dyn, [v, s], empty, [r.type], like=op)
            for v, s, r in zip(inits, shapes, op.results)
        ]
        replace_with_ops(rewriter, op, new, [b.results[0] for b in new])


class ReduceOpUnusedResultCanon(RootPattern):
    """reduce(in_1, in_2, ...) -> reduce(in_1, ...) when in_2's result is unused and nothing the
    used results compute reads in_2's pair of block arguments."""

    ROOT = "stablehlo.reduce"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        n = len(op.results)
        used = [i for i, r in enumerate(op.results) if r.uses]
        if len(used) == n:
            return
        body = op.regions[0]
        block = body.blocks.first
        ret = block.last_op if block is not None else None
        if ret is None or ret.name != "stablehlo.return" or len(ret.operands) != n:
            return
        used_ops: set[Operation] = set()
        used_args: set[int] = set()
        for i in used:
            work = [ret.operands[i]]
            while work:
                v = work.pop()
                if _region_of(v) is not body:
                    continue
                if isinstance(v, BlockArgument):
                    pair = v.index % n
                    used_args.update((pair, pair + n))
                elif isinstance(v, OpResult) and v.owner not in used_ops:
                    used_ops.add(v.owner)
                    work.extend(v.owner.operands)
        if len(used) * 2 != len(used_args):
            return
        keep = [i for i in range(n) if i in used_args]
        inputs = [op.operands[i] for i in keep]
        inits = [op.operands[i + n] for i in keep]
        new_block = Block(arg_types=[block.args[i].type for i in sorted(used_args)])
        mapping: dict[SSAValue, SSAValue] = {}
        for k, i in enumerate(sorted(used_args)):
            mapping[block.args[i]] = new_block.args[k]
        for inner in block.ops:
            if inner in used_ops:
                new_block.add_op(inner.clone(value_mapper=mapping))
        new_ret = ret.clone(value_mapper=mapping)
        new_ret.operands = [mapping.get(ret.operands[i], ret.operands[i]) for i in used]
        new_block.add_op(new_ret)
        new = type(op).create(
            operands=[*inputs, *inits],
            result_types=[op.results[i].type for i in used],
            properties={"dimensions": op.properties["dimensions"]},
            regions=[Region(new_block)],
        )
        _replace_keeping(rewriter, op, new, used)


# ------------------------------------------------------------------------ sort
class SortOpDropUnusedArgs(RootPattern):
    """sort(X, Y) -> sort(X) when Y's result and comparator arguments are unused."""

    ROOT = "stablehlo.sort"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        block = op.regions[0].blocks.first
        if block is None:
            return
        n = len(op.operands)
        erased = [
            i
            for i in range(n)
            if not op.results[i].uses
            and not block.args[2 * i].uses
            and not block.args[2 * i + 1].uses
        ]
        if not erased:
            return
        kept = [i for i in range(n) if i not in erased]
        region = rewriter.move_region_contents_to_new_regions(op.regions[0])
        new_block = region.blocks.first
        assert new_block is not None
        for i in reversed(erased):
            rewriter.erase_block_argument(new_block.args[2 * i + 1])
            rewriter.erase_block_argument(new_block.args[2 * i])
        new = type(op).create(
            operands=[op.operands[i] for i in kept],
            result_types=[op.results[i].type for i in kept],
            properties=dict(op.properties),
            regions=[region],
        )
        _replace_keeping(rewriter, op, new, kept)


class SortOpSetDimension(RootPattern):
    """sort(X, dimension = -1) -> sort(X, dimension = rank - 1)."""

    ROOT = "stablehlo.sort"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dim = op.properties.get("dimension")
        value = -1 if dim is None else dim.value.data  # type: ignore[attr-defined]
        if not op.results or value != -1:
            return
        t = op.results[0].type
        if not isinstance(t, TensorType):
            return
        props = dict(op.properties)
        props["dimension"] = IntegerAttr(len(t.get_shape()) - 1, IntegerType(64))
        region = rewriter.move_region_contents_to_new_regions(op.regions[0])
        new = type(op).create(
            operands=list(op.operands),
            result_types=[r.type for r in op.results],
            properties=props,
            attributes=dict(op.attributes),
            regions=[region],
        )
        _replace_keeping(rewriter, op, new, range(len(op.results)))


# ------------------------------------------------------------------------ while
class WhileOpImplicitCapture(RootPattern):
    """while: loop-invariant values (returned unchanged by the body) become implicit captures."""

    ROOT = "stablehlo.while"

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        cond = op.regions[0].blocks.first
        body = op.regions[1].blocks.first
        if cond is None or body is None:
            return
        ret = body.last_op
        if ret is None or ret.name != "stablehlo.return":
            return
        operands = list(op.operands)
        rets = list(ret.operands)
        # upstream does not compare types: an operand more static than its result (`tensor<4xf32>`
        # for `tensor<?xf32>`, which the while verifier accepts) would take the result's place in
        # users that need the exact type (func.return) and leave invalid IR; such a value stays
        invariant = [
            i
            for i, (x, arg, r) in enumerate(zip(operands, body.args, rets))
            if (x is r or arg is r) and x.type == op.results[i].type
        ]
        if not invariant:
            return
        for i in invariant:
            x = operands[i]
            rewriter.replace_all_uses_with(cond.args[i], x)
            rewriter.replace_all_uses_with(body.args[i], x)
            rewriter.replace_all_uses_with(op.results[i], x)
        for i in reversed(invariant):
            cond.erase_arg(cond.args[i])
            body.erase_arg(body.args[i])
        kept = [i for i in range(len(operands)) if i not in invariant]
        ret.operands = [rets[i] for i in kept]
        cond_region = rewriter.move_region_contents_to_new_regions(op.regions[0])
        body_region = rewriter.move_region_contents_to_new_regions(op.regions[1])
        new = type(op).create(
            operands=[operands[i] for i in kept],
            result_types=[r.type for r in ret.operands],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
            regions=[cond_region, body_region],
        )
        _replace_keeping(rewriter, op, new, kept)
