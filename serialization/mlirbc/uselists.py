"""Use-list orders as upstream's serializer leaves them (byte identity with jaxlib only).

MLIR records a value's use-list order when its in-memory order is not the one a reader rebuilds
(uses by decreasing (operation id, operand number)).  Parsed or freshly legalized IR has that
order; upstream's ``vhlo-to-version`` then *replaces* the ops whose fork changes, which reorders
the uses of the values around them.  This module replays that on the final IR, given which ops
were replaced (``vhlo_to_version`` marks them) in conversion order (pre-order):

* a replaced op's new operands are pushed to the front of their values' use lists (the old uses go
  with the old op);
* a replaced op's results take over the old results' uses by ``replaceAllUsesWith``, which moves
  them one by one to the front, i.e. reverses their order.

The orders carry no meaning; a reader drops them.  ``orders`` gives, for each value whose replayed
order is not the default, the permutation MLIR's writer encodes.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Operation

__all__ = ["REPLACED", "use_list_orders"]

REPLACED = "_vhlo_replaced"
"""Attribute set (to True) on an op created by vhlo-to-version's replacement of another."""


def _replaced_since(op: Operation, history: Any) -> bool:
    """Whether upstream at version ``history`` would have replaced ``op``: its legalization makes
    the fork current at ``history``; ``vhlo-to-version`` replaces it when the target's differs."""
    from stablehlo_py import specs

    if not op.name.startswith("vhlo."):
        return False
    spec = specs.op(op.name)
    current = specs.fork_at(spec.base, history)
    return current is not None and current.name != spec.name


def use_list_orders(root: Operation, history: Any = None) -> dict[int, list[int]]:
    """id(value) -> the use indices sorted by decreasing use id, for values whose replayed in-memory
    order differs from the default; empty when no op was replaced.  ``history``: the version of the
    upstream serializer whose conversion history is replayed (default: ours, from the marks that
    ``vhlo-to-version`` leaves; jaxlib 0.10 is 1.17.0).  ``root`` is xDSL IR or VHLO records: the
    uses are found from the operands."""
    op_id: dict[int, int] = {}
    replaced: list[Operation] = []
    kept_candidates: list[tuple[Any, list[int]]] = []
    for i, op in enumerate(root.walk()):
        op_id[id(op)] = i
        if _replaced_since(op, history) if history is not None else op.__dict__.get(REPLACED):
            replaced.append(op)
        for r in op.results:
            order = r.__dict__.get("_use_order")
            if order is not None:
                kept_candidates.append((r, order))
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    order = a.__dict__.get("_use_order")
                    if order is not None:
                        kept_candidates.append((a, order))
    if not replaced and not kept_candidates:
        return {}
    uses: dict[int, list[tuple[int, int]]] = {}
    for op in root.walk():
        me = op_id[id(op)]
        for j, v in enumerate(op.operands):
            got = uses.get(id(v))
            if got is None:
                uses[id(v)] = [(me, j)]
            else:
                got.append((me, j))
    # orders a reader kept on values (``_use_order``), while they still fit the value's uses
    out: dict[int, list[int]] = {
        id(v): order for v, order in kept_candidates if len(order) == len(uses.get(id(v), ()))
    }
    if not replaced:
        return out
    lists: dict[int, list[tuple[int, int]]] = {}

    def uses_of(v: Any) -> list[tuple[int, int]]:
        got = lists.get(id(v))
        if got is None:
            got = sorted(uses.get(id(v), ()), reverse=True)
            lists[id(v)] = got
        return got

    for op in replaced:
        me = op_id[id(op)]
        for r in op.results:
            lst = uses_of(r)
            lst.reverse()
        for j, v in enumerate(op.operands):
            lst = uses_of(v)
            key = (me, j)
            lst.remove(key)
            lst.insert(0, key)
    for vid, lst in lists.items():
        if len(lst) < 2:
            continue
        if all(lst[i] > lst[i + 1] for i in range(len(lst) - 1)):
            continue
        order = sorted(range(len(lst)), key=lambda i: lst[i], reverse=True)
        out[vid] = order
    return out


def encode_orders(em: Any, values: Any, orders: dict[int, list[int]]) -> bool:
    """MLIR's ``writeUseListOrders`` for one op's results or one block's arguments; returns whether
    anything was written."""
    items = [(i, orders[id(v)]) for i, v in enumerate(values) if id(v) in orders]
    if not items:
        return False
    # in result order (checked against jaxlib re-emitting a three-result sort)
    if len(values) != 1:
        em.varint(len(items))
    for idx, order in items:
        shuffled = sum(1 for i, x in enumerate(order) if i != x)
        pairs = shuffled < len(order) // 2
        if len(values) != 1:
            em.varint(idx)
        if pairs:
            em.varint_flag(shuffled * 2, True)
            for i, x in enumerate(order):
                if i != x:
                    em.varint(x)
                    em.varint(i)
        else:
            em.varint_flag(len(order), False)
            for x in order:
                em.varint(x)
    return True
