"""`Snapshot`: what an op and everything nested in it are made of, by identity, and a check that
none of it changed since (the interpreter reuses the code compiled for a module while this holds).

xDSL has no edit counter: a pass changes a module through many doors (an op's ``properties`` and
``attributes`` dicts, its operand setters, a block's insert/erase/move of ops, a region's blocks,
``retype_values``/``swap.retype_op`` of ours).  Each door writes one of the private fields read
here, so a module whose fields all hold what they held is the same program:

- every op: its class (``swap.retype_op`` swaps it), ``_operands`` (xDSL's setters store a new
  tuple), ``results``, ``regions``, ``_successors``, ``_next_op`` and ``parent`` (the links that
  place it in its block), ``properties`` and ``attributes`` (compared by content: a pass may
  write into the dicts in place; attributes are immutable and compare exactly, signed zeros and
  NaN payloads included);
- every block: ``_first_op``, ``_args``, ``_next_block``, ``parent``; every region:
  ``_first_block``, ``parent``;
- every result and block argument: ``_type``.

Walking the links again from the root would visit exactly the objects recorded, in the same order,
so an op inserted, erased or moved anywhere changes a recorded field.  The check reads each field
with `operator.attrgetter` over the recorded lists and compares whole lists (C loops: no Python
frame per op); a module of many ops is memory-bound here (one cache miss per object read).  An op's
location is not compared (nothing compiled depends on it: errors read it when raised).

Regression test: tests/unit/ir/test_xdsl_snapshot.py (each kind of edit xDSL offers changes a field
read here).
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from xdsl.ir import Operation

__all__ = ["Snapshot"]

_OP = attrgetter(
    "__class__", "_operands", "results", "regions", "_successors", "_next_op", "parent"
)
_PROPERTIES = attrgetter("properties")
_ATTRIBUTES = attrgetter("attributes")
_BLOCK = attrgetter("_first_op", "_args", "_next_block", "parent")
_REGION = attrgetter("_first_block", "parent")
_TYPE = attrgetter("_type")


class Snapshot:
    """The fields of `root` and of everything nested in it, recorded now; `unchanged()` tells
    whether they still hold (see the module doc)."""

    __slots__ = (
        "_attributes",
        "_block_state",
        "_blocks",
        "_op_state",
        "_ops",
        "_properties",
        "_region_state",
        "_regions",
        "_types",
        "_values",
    )

    def __init__(self, root: Operation) -> None:
        ops: list[Operation] = []
        blocks: list[Any] = []
        regions: list[Any] = []
        values: list[Any] = []
        _walk(root, ops, blocks, regions, values)
        self._ops, self._blocks, self._regions, self._values = ops, blocks, regions, values
        self._op_state = list(map(_OP, ops))
        self._properties = list(map(dict, map(_PROPERTIES, ops)))  # copies: written in place
        self._attributes = list(map(dict, map(_ATTRIBUTES, ops)))
        self._block_state = list(map(_BLOCK, blocks))
        self._region_state = list(map(_REGION, regions))
        self._types = list(map(_TYPE, values))

    @property
    def ops(self) -> list[Operation]:
        """The ops recorded (the root first, then nested ones in walk order)."""
        return self._ops

    def unchanged(self) -> bool:
        """Whether every recorded field holds what it held when the snapshot was taken."""
        return (
            list(map(_OP, self._ops)) == self._op_state
            and list(map(_PROPERTIES, self._ops)) == self._properties
            and list(map(_ATTRIBUTES, self._ops)) == self._attributes
            and list(map(_BLOCK, self._blocks)) == self._block_state
            and list(map(_REGION, self._regions)) == self._region_state
            and list(map(_TYPE, self._values)) == self._types
        )


def _walk(
    op: Operation, ops: list[Any], blocks: list[Any], regions: list[Any], values: list[Any]
) -> None:
    """`op` and everything nested in it, in pre-order, following xDSL's links (an explicit stack:
    nesting depth is not bounded by Python's recursion limit)."""
    stack = [op]
    pop, push = stack.pop, stack.append
    while stack:
        op = pop()
        ops.append(op)
        values += op.results
        nested = []
        for region in op.regions:
            regions.append(region)
            block = region._first_block
            while block is not None:
                blocks.append(block)
                values += block._args
                inner = block._first_op
                while inner is not None:
                    nested.append(inner)
                    inner = inner._next_op
                block = block._next_block
        if nested:
            stack += reversed(nested)
