"""The entry point of the compiled interpreter: a block's first calls run as a plan, later calls
as generated Python.

Python's `compile()` costs several times more than running a straight-line block once, and most
programs run their `@main` once or a few times.  So a block without regions (nothing it could loop
over) runs its first `GENERATE_AFTER_CALLS` calls as a loop over the same prepared steps the
generated code would call, with its values in a flat list of slots; from then on it runs as
generated code (`compiled.py`).  A block with regions is generated at once (its loop bodies run
many times).  The calls are counted across the evaluators of a module, which share its code
(`module_code.py`).

Both tiers behave alike: an unsupported op fails on entering the block, a value not computed fails
at the op using it, and an error is located at the op that raised it (`compiled.ops_at` reads the
plan runner's current op from its frame).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from stablehlo_py.interpreter import compiled
from xdsl.ir import Block, Operation

from stablehlo_py.ir import no_gc
from stablehlo_py.ir.xdsl_compat.fields import block_ops, operands_of

# A block called this many times runs as generated code from then on (the calls before run its
# plan).  Generating costs several plan runs of the block (Python's `compile()`), and saves a
# fraction of one per call: a program `run()` a few times (a new evaluator each, the module's code
# shared: module_code.py) never pays it, a function called in a loop pays it early.
GENERATE_AFTER_CALLS = 8

# plan entry kinds: (op, kind, fn, a, b, out, free)
_BINARY, _UNARY, _GATHER, _CALL, _CONSTANT, _RETURN, _RAISE = range(7)


def compile_block(block: Block, name: str, observer: Any = None) -> Callable[..., list[Any]]:
    """`block` as `f(evaluator, *block_args) -> results`, see the module doc (a traced block,
    reporting to `observer`, is generated at once)."""
    if observer is not None or any(op.regions for op in block_ops(block)):
        return compiled.compile_block(block, name, observer)
    return _Tiered(block, name)


class _Tiered:
    __slots__ = ("block", "calls", "generated", "name", "plan")

    def __init__(self, block: Block, name: str) -> None:
        self.block = block
        self.name = name
        self.calls = 0
        self.plan: tuple[list[tuple[Any, ...]], int] | None = None
        self.generated: Callable[..., list[Any]] | None = None

    def __call__(self, ev: Any, *args: Any) -> list[Any]:
        generated = self.generated
        if generated is not None:
            return generated(ev, *args)
        if self.calls >= GENERATE_AFTER_CALLS:
            self.generated = compiled.compile_block(self.block, self.name)
            self.plan = None
            return self.generated(ev, *args)
        self.calls += 1
        plan = self.plan
        if plan is None:
            with no_gc():  # (the block's objects are all alive: a collection now frees nothing)
                plan = self.plan = _plan(self.block)
        steps, slots = plan
        return run_plan(steps, slots, ev, args)


def _plan(block: Block) -> tuple[list[tuple[Any, ...]], int]:
    """The block's steps as plan entries `(op, kind, fn, a, b, out, free)`: `a`/`b` the operand
    slots (a unary or binary op), or `a` an `itemgetter` of them (`_GATHER`), or `a` the slots and
    `b` whether `fn` takes the evaluator (`_CALL`, which also serves ops of several results, `out`
    then a tuple); `free` the slots last used by the op (dropped after it)."""
    slot: dict[int, int] = {id(a): i for i, a in enumerate(block.args)}
    ops, unsupported = compiled.block_steps(block)
    if unsupported is not None:  # fails on entering the block, before any of its ops runs
        fail = compiled._unsupported(unsupported)
        return [(unsupported, _RAISE, fail, None, None, None, ())], len(slot)
    reads = [operands_of(op) if isinstance(op, Operation) else op.operands for op, _ in ops]
    last: dict[int, int] = {}  # value -> index of the op reading it last
    for i, ins in enumerate(reads):
        for v in ins:
            last[id(v)] = i
    n = len(slot)
    plan: list[tuple[Any, ...]] = []
    for i, ((op, step), ins) in enumerate(zip(ops, reads, strict=True)):
        try:
            at = tuple([slot[id(v)] for v in ins])
        except KeyError:
            plan.append((op, _RAISE, compiled._undefined(op), None, None, None, ()))
            break
        if step is None:
            plan.append((op, _RETURN, None, at, None, None, ()))
            break
        free = [k for v, k in zip(ins, at) if last[id(v)] == i]
        outs = []
        for r in op.results:
            slot[id(r)] = n
            outs.append(n)
            if id(r) not in last:
                free.append(n)  # nothing reads it: dropped at once
            n += 1
        dropped = tuple(dict.fromkeys(free))
        if step.is_constant:
            plan.append((op, _CONSTANT, step.value, None, None, outs[0], dropped))
        elif step.ev or step.multi or len(outs) != 1 or not at:
            out = tuple(outs) if step.multi else outs[0] if outs else None
            plan.append((op, _CALL, step.fn, at, step.ev, out, dropped))
        elif len(at) == 2:
            plan.append((op, _BINARY, step.fn, at[0], at[1], outs[0], dropped))
        elif len(at) == 1:
            plan.append((op, _UNARY, step.fn, at[0], None, outs[0], dropped))
        else:
            plan.append((op, _GATHER, step.fn, itemgetter(*at), None, outs[0], dropped))
    return plan, n


def run_plan(steps: list[tuple[Any, ...]], slots: int, ev: Any, args: tuple[Any, ...]) -> list[Any]:
    regs: list[Any] = [None] * slots
    regs[: len(args)] = args
    for op, kind, fn, a, b, out, free in steps:
        if kind is _BINARY:
            regs[out] = fn(regs[a], regs[b])
        elif kind is _UNARY:
            regs[out] = fn(regs[a])
        elif kind is _GATHER:
            regs[out] = fn(*a(regs))
        elif kind is _CALL:
            values = [regs[i] for i in a]
            result = fn(ev, *values) if b else fn(*values)
            del values
            if type(out) is tuple:
                result = list(result)
                if len(result) != len(out):
                    raise ValueError(
                        f"'{op.name}' gave {len(result)} results, its type has {len(out)}"
                    )
                for i, v in zip(out, result, strict=True):
                    regs[i] = v
            elif out is not None:
                regs[out] = result
            del result
        elif kind is _CONSTANT:
            regs[out] = fn
        elif kind is _RETURN:
            return [regs[i] for i in a]
        else:
            fn()
        if free:
            for i in free:
                regs[i] = None
    return []


compiled.PLAN_RUNNERS.add(run_plan.__code__)
