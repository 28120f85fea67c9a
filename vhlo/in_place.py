"""Converting ops in place: the VHLO passes' fast path where only an op's class, attributes and
value types change (StableHLO <-> VHLO, one VHLO fork <-> another).

Rebuilding each op (xDSL's generic ``Operation.create``, new results, use-list surgery, detaching
and re-inserting every op) costs more than the conversion itself.  When an op keeps its operands,
its number of results and its regions, the result of a rebuild is indistinguishable from the same
object with its class swapped (``xdsl.ir.Operation`` subclasses share one instance layout),
its properties, attributes and value types replaced, and whatever a rebuild would not have carried
dropped: ``retype_op`` and ``retype_value`` do exactly that.

``ordered_ops`` is the pre-scan that decides whether a module can be converted this way: every op
passes the caller's test, and every operand is defined before its use in conversion order (each
op's operand types are then already converted when the op is).  Anything else keeps the rebuild.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, Region

__all__ = ["ordered_ops", "retype_op", "retype_value", "walk"]

_OP_KEEP = frozenset(
    {f.name for f in dataclasses.fields(Operation)} | {"location", "_src", "_implicit_src"}
)
"""An op's instance fields that a rebuild carries (``passes._common.carry_location``): xDSL's own
fields and the location with its parse position."""

_RESULT_KEEP = frozenset({"_type", "first_use", "op", "index"})
_ARG_KEEP = frozenset({"_type", "first_use", "block", "index", "location", "_src"})
"""A value's instance fields a rebuild gives its new value: a result only its type and uses, a block
argument also its location (``carry_arg_location``).  Everything else (a reader's ``_use_order``, a
name hint) belongs to the old value and is dropped."""


def retype_op(
    op: Operation,
    cls: type[Operation],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute],
) -> Operation:
    """``op`` becomes an op of class ``cls`` with these attributes (operands, results and regions
    stay; the caller has set the result types).  Returns the op: ``op`` itself, or -- when Python
    cannot swap the two classes (a mixin without ``__slots__`` gives a class another layout) -- a
    new op of ``cls`` put in its place, with its regions and the uses of its results."""
    if not _swappable(type(op), cls):
        return _rebuild(op, cls, properties, attributes)
    op.properties = properties
    op.attributes = attributes
    op.__class__ = cls
    d = op.__dict__
    if not d.keys() <= _OP_KEEP:
        for k in d.keys() - _OP_KEEP:
            del d[k]
    return op


_SWAPPABLE: dict[tuple[type, type], bool] = {}


def _swappable(old: type[Operation], new: type[Operation]) -> bool:
    key = (old, new)
    got = _SWAPPABLE.get(key)
    if got is None:
        probe = old.__new__(old)
        try:
            probe.__class__ = new
            got = True
        except TypeError:
            got = False
        _SWAPPABLE[key] = got
    return got


def _rebuild(
    op: Operation,
    cls: type[Operation],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute],
) -> Operation:
    regions = list(op.regions)
    for r in regions:
        op.detach_region(r)
    new = cls.create(
        operands=op._operands,
        result_types=[r._type for r in op.results],
        properties=properties,
        attributes=attributes,
        regions=regions,
    )
    new.location = op.location
    d = op.__dict__
    for key in ("_src", "_implicit_src"):
        if key in d:
            new.__dict__[key] = d[key]
    block = op.parent
    if block is not None:
        block.insert_op_before(new, op)
    for old, nr in zip(op.results, new.results):
        old.replace_all_uses_with(nr)
    if block is not None:
        block.erase_op(op)
    else:
        op.erase()
    return new


def retype_value(value: OpResult | BlockArgument, t: Attribute) -> None:
    """A result or block argument takes type ``t`` (xDSL values have no type setter)."""
    value._type = t  # type: ignore[misc]
    d = value.__dict__
    keep = _RESULT_KEEP if "op" in d else _ARG_KEEP
    if not d.keys() <= keep:
        for k in d.keys() - keep:
            del d[k]


def ordered_ops(module: ModuleOp, accept: Callable[[Operation], bool]) -> list[Operation] | None:
    """The ops of ``module`` (nested modules excluded, their bodies included) in conversion order --
    an op, then the ops of its regions -- or None when an op is not ``accept``ed, or an operand is
    not defined (by a block argument or an earlier op's result) before the op that uses it.  (A
    nested module is a ``ModuleOp`` exactly: the passes handle no subclass of it specially.)"""
    out: list[Operation] = []
    defined: set[object] = set()
    if not _scan(module.regions[0], accept, defined, out):
        return None
    return out


def _scan(
    region: Region,
    accept: Callable[[Operation], bool],
    defined: set[object],
    out: list[Operation],
) -> bool:
    blocks = list(region.blocks)
    for block in blocks:
        defined.update(block.args)
    for block in blocks:
        # xDSL 0.74's private fields: `block.ops` and `op.operands` build views per call
        op = block._first_op
        while op is not None:
            if type(op) is ModuleOp:
                if not _scan(op.regions[0], accept, defined, out):
                    return False
            else:
                if not accept(op):
                    return False
                for v in op._operands:
                    if v not in defined:
                        return False
                out.append(op)
                for r in op.regions:
                    if not _scan(r, accept, defined, out):
                        return False
                defined.update(op.results)
            op = op._next_op
    return True


def walk(root: Operation) -> list[Operation]:
    """``list(root.walk())`` (pre-order: an op, then the ops of its regions), without xDSL's nested
    generators and block views."""
    out: list[Operation] = []
    _walk(root, out)
    return out


def _walk(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in op.regions:
        for block in region.blocks:
            o = block._first_op
            while o is not None:
                if o.regions:
                    _walk(o, out)
                else:
                    out.append(o)
                o = o._next_op
