"""`Snapshot`: what an op and everything nested in it are made of, by identity, and a check that
none of it changed since (the interpreter reuses the code compiled for a module while this holds).

xDSL has no edit counter: a pass changes a module through many doors (an op's ``properties`` and
``attributes`` dicts, its operand setters, a block's insert/erase/move of ops, a region's blocks,
``retype_values``/``swap.retype_op`` of ours).  Each door writes one of the private fields read
here, so a module whose fields all hold what they held is the same program:

- every op: its class (``swap.retype_op`` swaps it), ``_operands`` (xDSL's setters store a new
  tuple), ``results``, ``regions``, ``_next_op``, and ``properties`` and ``attributes`` by content
  (a pass may write into the dicts in place; attributes are immutable and compare exactly, signed
  zeros and NaN payloads included);
- every block: ``_first_op``, ``_args``, ``_next_block``; every region: ``_first_block``;
- every result and block argument: ``_type`` (by identity: a type replaced by an equal one counts
  as a change, which only compiles again).

These links determine the walk from the root: walking again would visit exactly the objects
recorded, in the same order, so an op inserted, erased or moved anywhere changes a recorded link
(its old neighbour's ``_next_op`` or its block's ``_first_op``); the ``parent`` fields follow from
them.  An op's location and successors are not compared (nothing the interpreter compiles depends
on them: errors read the location when raised; it runs no op with successors).

The check reads the fields with `operator.attrgetter` over the recorded lists and compares them one
op at a time in C (`all(map(eq, ...))`: no Python frame per op, each op's fields read together,
and the tuples made are freed at once, so no garbage collection is set off); a module of many ops is
memory-bound here (a cache miss or two per op).

Regression test: tests/unit/ir/test_xdsl_snapshot.py (each kind of edit xDSL offers changes a field
read here).
"""

from __future__ import annotations

from operator import attrgetter, eq, is_
from typing import Any

from xdsl.ir import Operation

__all__ = ["Snapshot"]

_OP = attrgetter(
    "__class__", "_operands", "results", "regions", "_next_op", "properties", "attributes"
)
_BLOCK = attrgetter("_first_op", "_args", "_next_block")
_REGION = attrgetter("_first_block")
_TYPE = attrgetter("_type")


class Snapshot:
    """The fields of `root` and of everything nested in it, recorded now; `unchanged()` tells
    whether they still hold (see the module doc)."""

    __slots__ = ("_blocks", "_ops", "_recorded", "_regions", "_values")

    def __init__(self, root: Operation) -> None:
        ops: list[Operation] = []
        blocks: list[Any] = []
        regions: list[Any] = []
        values: list[Any] = []
        _walk(root, ops, blocks, regions, values)
        self._ops, self._blocks, self._regions, self._values = ops, blocks, regions, values
        self._recorded = (
            [(*t[:5], dict(t[5]), dict(t[6])) for t in map(_OP, ops)],  # the dicts copied
            list(map(_BLOCK, blocks)),
            list(map(_REGION, regions)),
            list(map(_TYPE, values)),
        )

    @property
    def ops(self) -> list[Operation]:
        """The ops recorded (the root first, then nested ones in walk order)."""
        return self._ops

    def unchanged(self) -> bool:
        """Whether every recorded field holds what it held when the snapshot was taken."""
        ops, blocks, regions, types = self._recorded
        return (
            all(map(eq, map(_OP, self._ops), ops))
            and all(map(eq, map(_BLOCK, self._blocks), blocks))
            and all(map(eq, map(_REGION, self._regions), regions))
            and all(map(is_, map(_TYPE, self._values), types))
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
