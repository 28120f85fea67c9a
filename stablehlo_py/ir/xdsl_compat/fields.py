"""xDSL 0.74's private fields of ops, blocks and values, read and written in whole loops.

xDSL keeps an op's operands in ``Operation._operands`` (an ``SSAValues`` tuple), a block's ops as a
linked list (``Block._first_op`` and each op's ``_next_op``) and a value's type in
``SSAValue._type``.  Its public ways to them cost more than the loops that use them can afford, or
do not exist:

- ``op.operands`` builds an ``OpOperands`` view (a Python dataclass) per call, whose iteration and
  indexing are Python calls too; the printer's generated code (ir/format_print.py) and the
  interpreter's compiler (interpreter/compiled.py) read the operands of every op.
  `operands_of(op)` is the stored tuple, read by a C-level getter (no Python frame per call).
- ``block.ops`` iterates through two Python objects (``BlockOps``, ``_BlockOpsIterator``) and a
  property per step; `block_ops(block)` walks the links into a list (the printer lists every block).
- ``SSAValue.type`` is a read-only property: xDSL has no way to change a value's type in place,
  which MLIR's ``Value::setType`` does (the value and its uses stay; stablehlo-refine-arguments
  refines a function's arguments so).  `retype_values(values, types)` sets them.

Each function is a whole loop (or a C getter), never a Python getter per field: a call costs about
50 ns and these run per op and per value of large modules.

Regression test: tests/unit/ir/test_xdsl_compat.py (each function against xDSL's public way, and
the fields' meaning: an op's operand setters write ``_operands``, ``type`` reads ``_type``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter

from xdsl.ir import Attribute, Block, Operation, SSAValue, SSAValues

operands_of: Callable[[Operation], SSAValues[SSAValue]] = attrgetter("_operands")
"""`operands_of(op)`: the op's operands, the tuple xDSL stores (what ``tuple(op.operands)`` is)."""


def block_ops(block: Block) -> list[Operation]:
    """The ops of ``block`` in order (what ``list(block.ops)`` is)."""
    out = []
    op = block._first_op
    while op is not None:
        out.append(op)
        op = op._next_op
    return out


def retype_values(values: Iterable[SSAValue], types: Iterable[Attribute]) -> None:
    """Give each value its type, in place: its uses and its owner stay (MLIR's ``setType``)."""
    for v, t in zip(values, types):
        v._type = t  # type: ignore[misc]


__all__ = ["block_ops", "operands_of", "retype_values"]
