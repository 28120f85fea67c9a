"""What a move is (:class:`Move`), what it reads beside the program (:class:`Context`), and the
helpers the move modules share (:mod:`.moves` lists the moves)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

from stablehlo_py.reduce.edit import Edit, Recorded
from stablehlo_py.reduce.program import Program

__all__ = ["Atom", "Context", "Move", "done", "entry_block", "is_constant"]

Atom = Hashable


@dataclass
class Context:
    """What moves read beside the program."""

    recorded: Callable[[Program], Recorded | None] = lambda p: None
    """The values of a program's top-level ops (:func:`.values.record`, cached by the search)."""
    focus: Callable[[Program], Sequence[str]] = lambda p: ()
    """The op keys (:func:`~stablehlo_py.ir.text.name_stack.op_keys`) of a program's ops to try
    first (the test's ``focus``)."""
    cleanup: bool = True
    """Whether candidates are cleaned up (off when the cleanup alone loses the failure)."""


@dataclass(frozen=True)
class Move:
    name: str
    search: str  # "ddmin" | "each" | "bisect"
    atoms: Callable[[Program, Context], list[Atom]]
    apply: Callable[[Program, Sequence[Atom], Context], Program]
    doc: str = field(default="", compare=False)


def done(edit: Edit, ctx: Context) -> Program:
    """The edited clone as a Program, cleaned up unless the context says not to."""
    return edit.finish(cleanup=ctx.cleanup)


def entry_block(program: Program) -> Block:
    return program.entry_function().body.block


def is_constant(op: Operation) -> bool:
    return op.name in ("stablehlo.constant", "chlo.constant", "arith.constant")
