"""The verifier driver's reads of xDSL 0.74's private fields (stablehlo_py/ir/verify/driver.py),
as whole loops.

The driver checks every op of a program against a plan compiled per class; what it reads per op
must cost no more than the checks themselves:

- an op's operands and successors: ``op.operands`` and ``op.successors`` build an ``OpOperands`` /
  ``OpSuccessors`` view (a Python object, Python calls per item) on every read.
  `plain_operands(op)` reads the stored tuples (``Operation._operands``, ``_successors``) once and
  makes `Operation.verify`'s first check (no erased operand) in the same loop.
- `plain_operands_of_kind(op, is_terminator, kinds, classify)`: VHLO's verifier's reads in one call
  -- an op's links as ``Operation.verify`` checks them, and whether the types of its operands and
  results are all of the kinds a table says (every value has a VHLO type).
- `isolated_from_above_ok(op)`: what xDSL's ``IsolatedFromAbove.verify`` accepts, walking the nested
  ops' stored operand tuples (xDSL's walks up from every operand's owner, through the views).
- `preorder(top)`: the ops ``top.walk()`` yields, in its order, as one list: read through the stored
  links (``Region._first_block``, ``Block._next_block``, ``_first_op``, ``Operation._next_op``) in
  one loop per block, where ``walk()`` resumes three nested generators per level of nesting for
  each op, and ``region.blocks`` / ``block.ops`` build views.
- `local_operands(op)`: `plain_operands` when, besides, every operand is defined in ``op``'s own
  block (an op result or an argument of that block: inside every ancestor of ``op``, so no
  IsolatedFromAbove check can refuse it); None otherwise (ask `plain_operands` and
  `isolated_within`).  One loop over the stored tuple, exact-type tests (``isinstance`` against
  the abstract ``SSAValue`` hierarchy goes through ``ABCMeta.__instancecheck__``).
- `isolated_within(op, top)`: whether the IsolatedFromAbove check of ``op``'s nearest isolated
  ancestor inside ``top`` (``top`` included) accepts ``op``'s operands -- the part of that
  ancestor's `isolated_from_above_ok` that reads ``op``: one walk of the module checks every
  isolated op at once, op by op.
- `region_signature(op)`: the part of a region-holding op that its verification reads (the
  verdict memo's key of ``VERIFY_BY_TYPES = "regions"`` ops), through the stored operand tuples.
- `any_of_dispatch(c)`: the constraints ``AnyOf.verify`` dispatches to -- besides its public
  ``attr_constrs``, the per-base-class table and the abstract-class constraint it keeps in
  ``_based_constrs`` and ``_abstr_constr`` (no public way); read when a plan is compiled, to decide
  whether the constraint depends on the attribute only.

Regression test: tests/unit/ir/test_xdsl_compat.py (each function against xDSL's public way: the
views, ``IsolatedFromAbove.verify``, ``AnyOf.verify``'s dispatch).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Block, BlockArgument, ErasedSSAValue, OpResult, Operation, SSAValue, SSAValues
from xdsl.irdl.constraints import AnyOf, AttrConstraint
from xdsl.traits import IsolatedFromAbove


def plain_operands(op: Operation) -> SSAValues[SSAValue] | None:
    """``op``'s operands (the stored tuple: what ``tuple(op.operands)`` is), or None when ``op``
    has successors or an erased operand (``Operation.verify`` raises on those: the plans leave such
    ops to xDSL)."""
    if op._successors:
        return None
    operands = op._operands
    for v in operands:  # (exact types first: isinstance on SSAValue's ABC hierarchy is slow)
        t = type(v)
        if t is not OpResult and t is not BlockArgument and isinstance(v, ErasedSSAValue):
            return None
    return operands


def plain_operands_of_kind(
    op: Operation,
    is_terminator: bool,
    kinds: dict[type, bool],
    classify: Callable[[type], bool],
) -> SSAValues[SSAValue] | None:
    """``op``'s operands (the stored tuple) when ``Operation.verify`` has nothing to say about its
    links -- no successors, no erased operand, not a non-terminator (``is_terminator`` False) that
    ends its block (xDSL decides that from the parent) -- and the type of each operand and result
    is of a class that ``kinds`` (a plain dict) maps to True (``classify(cls)`` answers, and records in ``kinds``,
    a class not in it yet); else None.  VHLO's verifier asks it of every op: one call over the
    stored tuples and the values' ``_type`` fields, where ``op.operands`` and ``op.successors``
    build views, ``block.last_op`` and ``value.type`` are properties."""
    if op._successors:
        return None
    if not is_terminator:
        block = op.parent
        if block is not None and block._last_op is op:
            return None
    operands = op._operands
    for v in operands:  # (``kinds`` is a plain dict: ``in`` and ``[]`` take the fast paths)
        k = type(v._type)
        if not (kinds[k] if k in kinds else classify(k)) or type(v) is ErasedSSAValue:
            return None
    for r in op.results:
        k = type(r._type)
        if not (kinds[k] if k in kinds else classify(k)):
            return None
    return operands


def isolated_from_above_ok(op: Operation) -> bool:
    """What xDSL's IsolatedFromAbove.verify accepts: every operand of an op in ``op``'s regions (not
    inside a nested IsolatedFromAbove op, which checks its own) is defined inside ``op``, and not by
    ``op`` itself.  A value defined in the block that uses it is inside by construction: only the
    others walk up their parents."""
    regions = list(op.regions)
    while regions:
        region = regions.pop()
        for block in region.blocks:
            for child in block.ops:
                for v in child._operands:
                    owner = v.owner
                    if (owner if isinstance(owner, Block) else owner.parent) is block:
                        continue
                    if owner is op or not op.is_ancestor(owner):
                        return False
                if child.regions and not child.has_trait(IsolatedFromAbove):
                    regions += child.regions
    return True


def preorder(top: Operation) -> list[Operation]:
    """The ops of ``top`` (``top`` first), in the order ``top.walk()`` yields them: each op before
    the ops of its regions, regions, blocks and ops in order."""
    out = [top]
    if top.regions:
        _append_nested(top, out)
    return out


def _append_nested(op: Operation, out: list[Operation]) -> None:
    append = out.append
    for region in op.regions:
        block = region._first_block
        while block is not None:
            child = block._first_op
            while child is not None:
                append(child)
                if child.regions:
                    _append_nested(child, out)
                child = child._next_op
            block = block._next_block


def local_operands(op: Operation) -> SSAValues[SSAValue] | None:
    """``op``'s operands (the stored tuple) when it has no successors and each operand is an op
    result or block argument of ``op``'s own block (hence not erased); else None."""
    if op._successors:
        return None
    block = op.parent
    operands = op._operands
    for v in operands:
        t = type(v)
        if t is OpResult:
            if v.op.parent is not block:
                return None
        elif t is not BlockArgument or v.block is not block:
            return None
    return operands


def isolated_within(op: Operation, top: Operation) -> bool:
    """What the IsolatedFromAbove check of ``op``'s nearest IsolatedFromAbove proper ancestor says
    of ``op``'s operands (`isolated_from_above_ok`'s test), when that ancestor is ``top`` or inside
    it (the verifier of ``top`` checks it); True when there is none."""
    if op is top:
        return True
    ancestor = op.parent_op()
    while ancestor is not None:
        if ancestor.has_trait(IsolatedFromAbove):
            break
        if ancestor is top:
            return True
        ancestor = ancestor.parent_op()
    else:
        return True
    block = op.parent
    for v in op._operands:
        owner = v.owner
        if (owner if isinstance(owner, Block) else owner.parent) is block:
            continue
        if owner is ancestor or not ancestor.is_ancestor(owner):
            return False
    return True


REGION_MARK = object()
"""Separators of a region signature (module-level: kept alive, so their ids are never reused)."""
BLOCK_MARK = object()


def region_signature(op: Operation) -> tuple[object, ...]:
    """Per region of ``op`` (after `REGION_MARK`), per block (after `BLOCK_MARK`): the argument
    types, and the last op's class and operand types."""
    parts: list[object] = []
    for region in op.regions:
        parts.append(REGION_MARK)
        for block in region.blocks:
            parts.append(BLOCK_MARK)
            parts += [a.type for a in block.args]
            last = block.last_op
            if last is not None:
                parts.append(type(last))
                parts += [v.type for v in last._operands]
    return tuple(parts)


def any_of_dispatch(c: AnyOf) -> list[AttrConstraint]:
    """Every constraint ``c.verify`` may call: its alternatives, the per-base-class table it
    dispatches through, and its abstract-class constraint."""
    parts: list[AttrConstraint] = list(c.attr_constrs)
    parts += getattr(c, "_based_constrs", {}).values()
    abstract = getattr(c, "_abstr_constr", None)
    if abstract is not None:
        parts.append(abstract)
    return parts


__all__ = [
    "BLOCK_MARK",
    "REGION_MARK",
    "any_of_dispatch",
    "isolated_from_above_ok",
    "isolated_within",
    "local_operands",
    "plain_operands",
    "preorder",
    "region_signature",
    "plain_operands_of_kind",
]
