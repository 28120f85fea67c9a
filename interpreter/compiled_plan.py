"""The entry point of the compiled interpreter: a block's first call runs as a plan, later calls
as generated Python.

Python's `compile()` costs several times more than running a straight-line block once, and most
programs run their `@main` once.  So a block without regions (nothing it could loop over) runs its
first call as a loop over the same prepared steps the generated code would call, with its values in
a flat list of slots; from its second call on it runs as generated code (`compiled.py`).  A block
with regions is generated at once (its loop bodies run many times).

Both tiers behave alike: an unsupported op fails on entering the block, a value not computed fails
at the op using it, and an error is located at the op that raised it (`compiled.ops_at` reads the
plan runner's current op from its frame).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablehlo_py.interpreter import compiled
from xdsl.ir import Block

# A block called this many times runs as generated code from then on.
GENERATE_AFTER_CALLS = 1

_CALL, _CONSTANT, _RAISE, _RETURN = range(4)


def compile_block(block: Block, name: str, observer: Any = None) -> Callable[..., list[Any]]:
    """`block` as `f(evaluator, *block_args) -> results`, see the module doc (a traced block,
    reporting to `observer`, is generated at once)."""
    if observer is not None or any(op.regions for op in block.ops):
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
            return self.generated(ev, *args)
        self.calls += 1
        if self.plan is None:
            self.plan = _plan(self.block)
        steps, slots = self.plan
        return run_plan(steps, slots, ev, args)


def _plan(block: Block) -> tuple[list[tuple[Any, ...]], int]:
    """The block's steps as (op, kind, fn, takes_evaluator, operand slots, result slots, multi,
    slots last used by the op)."""
    slot: dict[Any, int] = {a: i for i, a in enumerate(block.args)}
    ops, unsupported = compiled.block_steps(block)
    if unsupported is not None:  # fails on entering the block, before any of its ops runs
        fail = compiled._unsupported(unsupported)
        return [(unsupported, _RAISE, fail, False, (), (), False, ())], len(slot)
    steps: list[tuple[Any, ...]] = []
    frees = compiled.last_uses([op for op, _ in ops])
    for (op, step), dead in zip(ops, frees, strict=True):
        if any(v not in slot for v in op.operands):
            steps.append((op, _RAISE, compiled._undefined(op), False, (), (), False, ()))
            break
        ins = tuple(slot[v] for v in op.operands)
        if step is None:
            steps.append((op, _RETURN, None, False, ins, (), False, ()))
            break
        outs = []
        for r in op.results:
            outs.append(slot.setdefault(r, len(slot)))
        free = tuple(slot[v] for v in dead if v in slot)  # last used here: dropped after the op
        if step.is_constant:
            steps.append((op, _CONSTANT, step.value, False, ins, tuple(outs), False, free))
        else:
            steps.append((op, _CALL, step.fn, step.ev, ins, tuple(outs), step.multi, free))
    return steps, len(slot)


def run_plan(steps: list[tuple[Any, ...]], slots: int, ev: Any, args: tuple[Any, ...]) -> list[Any]:
    regs: list[Any] = [None] * slots
    regs[: len(args)] = args
    for op, kind, fn, takes_ev, ins, outs, multi, free in steps:
        if kind == _CALL:
            values = [regs[i] for i in ins]
            out = fn(ev, *values) if takes_ev else fn(*values)
            del values
            if outs:
                if not multi:
                    regs[outs[0]] = out
                else:
                    out = list(out)
                    if len(out) != len(outs):
                        raise ValueError(
                            f"'{op.name}' gave {len(out)} results, its type has {len(outs)}"
                        )
                    for i, v in zip(outs, out, strict=True):
                        regs[i] = v
                del out
        elif kind == _CONSTANT:
            regs[outs[0]] = fn
        elif kind == _RETURN:
            return [regs[i] for i in ins]
        else:
            fn()
        for i in free:
            regs[i] = None
    return []


compiled.PLAN_RUNNERS.add(run_plan.__code__)
