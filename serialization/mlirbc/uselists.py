"""Use-list orders as upstream's serializer leaves them (byte identity with jaxlib only).

MLIR records a value's use-list order when its in-memory order is not the one a reader rebuilds
(uses by decreasing (operation id, operand number)).  Parsed or freshly legalized IR has that
order; upstream's ``vhlo-to-version`` then *replaces* the ops whose fork changes, which reorders
the uses of the values around them.  This module replays that on the final IR, given which ops
were replaced (``vhlo_to_version`` marks them; conversion order is pre-order).  How the order
comes out depends on MLIR's dialect-conversion driver, so on the upstream build being emulated
(:data:`REPLAYS`, keyed by its StableHLO version; established black box against jaxlib 0.10,
StableHLO 1.17.0, and jaxlib 0.12, 1.22.0, over every testdata program at every target):

* up to 1.17 (``_replay_interleaved``), op by op in pre-order: a replaced op's results take over
  the old results' uses by ``replaceAllUsesWith``, which moves them one by one to the front (it
  reverses their order); then its new operands are pushed to the front of their values' lists;
* from 1.18 (``_replay_deferred``): every new op is created first (pre-order; each pushes its
  operands to the front of their values' lists, a replaced producer's uses going to its new
  result), and the old results' remaining uses (by ops that were not replaced) are moved over at
  the end, one by one to the front: a value's list is its replaced users, latest first, then its
  other users in the default order -- but a replaced op's result has its other users first, in
  reverse order, then its replaced users.

The orders carry no meaning; a reader drops them.  ``orders`` gives, for each value whose replayed
order is not the default, the permutation MLIR's writer encodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from stablehlo_py.ir.xdsl_compat.side_data import USE_ORDER

__all__ = ["REPLACED", "REPLAYS", "use_list_orders"]

REPLACED = "_vhlo_replaced"
"""Attribute set (to True) on an op created by vhlo-to-version's replacement of another."""

Use = tuple[int, int]  # (operation id in pre-order, operand number)


def _replay_interleaved(
    replaced: list[Operation], op_id: dict[int, int], uses_of: Callable[[Any], list[Use]]
) -> None:
    for op in replaced:
        me = op_id[id(op)]
        for r in op.results:
            uses_of(r).reverse()
        for j, v in enumerate(op.operands):
            lst = uses_of(v)
            key = (me, j)
            lst.remove(key)
            lst.insert(0, key)


def _replay_deferred(
    replaced: list[Operation], op_id: dict[int, int], uses_of: Callable[[Any], list[Use]]
) -> None:
    new = {op_id[id(op)] for op in replaced}
    results = {id(r) for op in replaced for r in op.results}
    values = {id(v): v for op in replaced for v in (*op.operands, *op.results)}
    for vid, v in values.items():
        lst = uses_of(v)  # decreasing: the default order
        mine = [u for u in lst if u[0] in new]
        others = [u for u in lst if u[0] not in new]
        if vid in results:  # the old result's uses, moved one by one to the front at the end
            others.reverse()
            lst[:] = others + mine
        else:
            lst[:] = mine + others


REPLAYS: tuple[tuple[tuple[int, int], Callable[..., None]], ...] = (
    ((0, 0), _replay_interleaved),  # jaxlib 0.10 (1.17.0)
    ((1, 18), _replay_deferred),  # jaxlib 0.12 (1.22.0); 1.18-1.21 not observed, taken as 1.22
)
"""(first upstream (major, minor), replay of its conversion's use-list orders), ascending."""


def _replay_for(history: Any) -> Callable[..., None]:
    """The replay of the serializer at ``history`` (None: ours, the newest behaviour)."""
    if history is None:
        return REPLAYS[-1][1]
    key = (history.major, history.minor)
    return [fn for start, fn in REPLAYS if key >= start][-1]


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
    ``vhlo-to-version`` leaves, replayed as the newest upstream's; jaxlib 0.10 is 1.17.0, jaxlib
    0.12 1.22.0).  ``root`` is xDSL IR or VHLO records: the uses are found from the operands."""
    op_id: dict[int, int] = {}
    replaced: list[Operation] = []
    kept_candidates: list[tuple[Any, list[int]]] = []
    for i, op in enumerate(root.walk()):
        op_id[id(op)] = i
        if _replaced_since(op, history) if history is not None else op.__dict__.get(REPLACED):
            replaced.append(op)
        for r in op.results:
            order = r.__dict__.get(USE_ORDER)
            if order is not None:
                kept_candidates.append((r, order))
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    order = a.__dict__.get(USE_ORDER)
                    if order is not None:
                        kept_candidates.append((a, order))
    if not replaced and not kept_candidates:
        return {}
    uses: dict[int, list[Use]] = {}
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
    lists: dict[int, list[Use]] = {}

    def uses_of(v: Any) -> list[Use]:
        got = lists.get(id(v))
        if got is None:
            got = sorted(uses.get(id(v), ()), reverse=True)
            lists[id(v)] = got
        return got

    _replay_for(history)(replaced, op_id, uses_of)
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
