"""Converting ops in place by swapping their class: the VHLO conversions' fast case (StableHLO <->
VHLO, one VHLO fork <-> another), where only an op's class, attributes and value types change.

Rebuilding each op (xDSL's generic ``Operation.create``, new results, use-list surgery, detaching
and re-inserting every op) costs more than the conversion itself.  When an op keeps its operands,
its number of results and its regions, the result of a rebuild is indistinguishable from the same
object with its class swapped (``xdsl.ir.Operation`` subclasses share one instance layout), its
properties, attributes and value types replaced, and whatever a rebuild would not have carried
dropped: ``retype_op`` and ``retype_value`` do exactly that.  xDSL has no way to do it: a value's
``type`` is read-only (its field is the private ``_type``), and an op's class is fixed.

``ordered_ops`` is the pre-scan that decides whether a module can be converted this way: every op
passes the caller's test, and every operand is defined before its use in conversion order (each
op's operand types are then already converted when the op is).  Anything else keeps the rebuild.
``walk`` lists ops through xDSL's private links, and ``successors_of`` and ``value_types`` read
an op's or value's fields (``fields`` has ``operands_of`` and ``block_ops``): ``block.ops`` and
``op.successors`` build views per call, and ``value.type`` is a property, which the conversions and
VHLO's verifier pay per op and value (``vhlo.records`` mirrors these fields, so they read records
too).

Regression test: tests/unit/ir/test_xdsl_compat.py (a swapped op and a retyped value equal a
rebuilt one; xDSL's ``Operation`` subclasses stay swappable) and tests/unit/vhlo/test_in_place.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from operator import attrgetter

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue

__all__ = [
    "carry_over",
    "ordered_ops",
    "retype",
    "retype_op",
    "retype_value",
    "successors_of",
    "swappable",
    "value_types",
    "walk",
]

_CARRIED = ("_src", "_implicit_src")
"""What a rebuild carries that is ours (``passes._common.carry_location``): where an op or a block
argument was parsed (side_data's ``SRC`` and ``IMPLICIT_SRC``)."""

_OP_KEEP = frozenset({f.name for f in dataclasses.fields(Operation)} | {"location", *_CARRIED})
"""An op's instance fields that a rebuild carries: xDSL's own fields and the location with its
parse position."""

_RESULT_KEEP = frozenset({"_type", "first_use", "op", "index"})
_USE_ORDER = "_use_order"
"""(``retype`` asks a result for the two things it may carry -- a name hint, xDSL's ``_name``, and
a use-list order, ``side_data.USE_ORDER``, spelled here as ``_USE_ORDER``: the compat modules
import xDSL only -- before it reads its ``__dict__``: on CPython 3.12
reading an object's ``__dict__`` makes a dict of its inline values, about 0.4 us per result.)"""
_ARG_KEEP = frozenset({"_type", "first_use", "block", "index", "location", "_src"})
"""A value's instance fields a rebuild gives its new value: a result only its type and uses, a block
argument also its location (``carry_arg_location``).  Everything else (a reader's use-list order, a
name hint) belongs to the old value and is dropped."""


def retype(
    op: Operation,
    cls: type[Operation],
    operands: object,
    result_types: Iterable[Attribute],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute],
    regions: object = (),
    location: object = None,
) -> Operation:
    """What ``cls.create(operands=..., result_types=..., properties=..., attributes=...,
    regions=...)`` would make of ``op``, made of ``op`` itself: ``retype_value`` of each result, then
    ``retype_op`` (the op's whole conversion in one call; its operands, regions and location are
    its own and stay, so ``operands``, ``regions`` and ``location`` are not read).  The arguments
    are those of a sink's ``op`` (``vhlo.sinks``), whose in-place sink this is."""
    for r, t in zip(op.results, result_types):
        r._type = t  # type: ignore[misc]
        if r._name is not None or getattr(r, _USE_ORDER, None) is not None:
            _drop_but(r.__dict__, _RESULT_KEEP)
    if SWAPPABLE.get((type(op), cls)):  # (``retype_op``'s common case, inline: one call per op)
        op.properties = properties
        op.attributes = attributes
        op.__class__ = cls
        d = op.__dict__
        if not d.keys() <= _OP_KEEP:
            _drop_but(d, _OP_KEEP)
        return op
    return retype_op(op, cls, properties, attributes)


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
    if swappable(type(op), cls):  # (the common case)
        op.properties = properties
        op.attributes = attributes
        op.__class__ = cls
        d = op.__dict__
        if not d.keys() <= _OP_KEEP:
            _drop_but(d, _OP_KEEP)
        return op
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
    carry_over(new, op)
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


SWAPPABLE: dict[tuple[type, type], bool] = {}
"""(class, class) -> ``swappable``.  Owned by the context (``stablehlo_py.ir.context`` adopts it:
this package imports xDSL only)."""


def swappable(old: type[Operation], new: type[Operation]) -> bool:
    """Whether Python lets an op of class ``old`` become one of class ``new``."""
    key = (old, new)
    got = SWAPPABLE.get(key)
    if got is None:
        probe = old.__new__(old)
        try:
            probe.__class__ = new
            got = True
        except TypeError:
            got = False
        SWAPPABLE[key] = got
    return got


_swappable = swappable


def carry_over(new: Operation, old: Operation) -> None:
    """``new``, replacing ``old``, takes its location and where it was parsed."""
    new.location = old.location
    d = old.__dict__
    for key in _CARRIED:
        if key in d:
            new.__dict__[key] = d[key]


def retype_value(value: OpResult | BlockArgument, t: Attribute) -> None:
    """A result or block argument takes type ``t`` (xDSL values have no type setter)."""
    value._type = t  # type: ignore[misc]
    d = value.__dict__
    keep = _RESULT_KEEP if "op" in d else _ARG_KEEP
    if not d.keys() <= keep:
        _drop_but(d, keep)


def _drop_but(d: dict[str, object], keep: frozenset[str]) -> None:
    """Drop an object's instance fields but ``keep``'s (what a rebuild would not carry)."""
    for k in d.keys() - keep:
        del d[k]


value_types: Callable[[Iterable[SSAValue]], Iterator[Attribute]] = partial(map, attrgetter("_type"))
"""`value_types(values)`: the values' types, as an iterator (``(v.type for v in values)`` without a
property call per value, and without a Python frame: ``map`` and ``attrgetter`` run in C).  Iterate
it once, or make a list of it."""


successors_of: Callable[[Operation], tuple[Block, ...]] = attrgetter("_successors")
"""`successors_of(op)`: the op's successor blocks, as xDSL stores them."""


def ordered_ops(module: ModuleOp, accept: Callable[[Operation], bool]) -> list[Operation] | None:
    """The ops of ``module`` (nested modules excluded, their bodies included) in conversion order --
    an op, then the ops of its regions -- or None when an op is not ``accept``ed, or an operand is
    not defined (by a block argument or an earlier op's result) before the op that uses it.  (A
    nested module is a ``ModuleOp`` exactly: the passes handle no subclass of it specially.)"""
    out: list[Operation] = []
    defined: set[int] = set()
    if not _scan(module.regions[0], accept, defined, out):
        return None
    return out


def _scan(
    region: Region,
    accept: Callable[[Operation], bool],
    defined: set[int],
    out: list[Operation],
) -> bool:
    # (``defined`` holds the values' ids: every value lives through the scan, and an id is hashed
    # in C where a value's ``__hash__`` is a Python call)
    blocks = list(region.blocks)
    for block in blocks:
        defined.update(map(id, block.args))
    for block in blocks:
        op = block._first_op
        while op is not None:
            if type(op) is ModuleOp:
                if not _scan(op.regions[0], accept, defined, out):
                    return False
            else:
                if not accept(op):
                    return False
                for v in op._operands:
                    if id(v) not in defined:
                        return False
                out.append(op)
                for r in op.regions:
                    if not _scan(r, accept, defined, out):
                        return False
                defined.update(map(id, op.results))
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
