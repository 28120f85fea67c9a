"""Op creation without xDSL's generic constructor (a speed workaround shared by the parser and the
builder).

xDSL 0.74's ``Operation.create`` goes through ``Operation.__init__``: it rebuilds the operand list
through the ``operands`` property setter (detaching uses that a new op does not have), does the same
for successors, fetches the default location, and then runs IRDL's ``__post_init__``, which walks
every property and attribute definition to fill defaults.  For the parser and the builder, which
create ops whose pieces they have already checked, that is a large part of the time spent per op.

:func:`new_op` fills the same fields directly: operand uses linked into each operand's use list,
results, properties and attributes with IRDL's defaults (precomputed per class), the unknown
location, no successors, regions attached with ``add_region``.  It depends on the fields of xDSL's
``Operation`` dataclass; ``FIELDS`` lists the ones it sets, and tests/unit/builder/test_fastop.py
checks that list against xDSL's and that an op made here equals one made by ``create`` in every
field, use and parent link.  A class that overrides ``__post_init__`` gets it called, as
``create`` does.

:func:`append_ops` is ``block.add_ops`` for ops just made: it sets the block's and the ops' links
(xDSL's private ``_first_op``/``_last_op``/``_prev_op``/``_next_op``) without the per-op checks
``Block.add_op`` makes (tests/unit/ir/test_xdsl_compat.py compares the two).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Container, Mapping, Sequence

from xdsl.dialects.builtin import UNKNOWN_LOC
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation, OptionalDef

FIELDS = (
    "_operands",
    "_operand_uses",
    "results",
    "_successors",
    "_successor_uses",
    "properties",
    "attributes",
    "location",
    "regions",
    "parent",
    "_next_op",
    "_prev_op",
)
"""The dataclass fields of xDSL's Operation that new_op sets (all of them, in xDSL 0.74)."""

_Defaults = tuple[tuple[tuple[str, Attribute], ...], tuple[tuple[str, Attribute], ...], bool]
CLASS_DEFAULTS: dict[type, _Defaults] = {}
"""Class -> ``_defaults(cls)``.  Owned by the context (``stablehlo_py.ir.context`` adopts it: this
package imports xDSL only)."""
_EMPTY: tuple[()] = ()
_NO_ATTRS: Mapping[str, Attribute] = {}


def _defaults(cls: type[Operation]) -> _Defaults:
    """IRDL's __post_init__ defaults of ``cls``: (property, value) and (attribute, value) pairs for
    the non-optional definitions that have a default value, and whether the class overrides
    IRDL's ``__post_init__`` (then it is called instead)."""
    d = CLASS_DEFAULTS.get(cls)
    if d is None:
        get_def = getattr(cls, "get_irdl_definition", None)
        own_post_init = cls.__post_init__ is not IRDLOperation.__post_init__
        if get_def is None:
            d = ((), (), True)
        else:
            op_def = get_def()
            props = tuple(
                (n, p.default_value)
                for n, p in op_def.properties.items()
                if not isinstance(p, OptionalDef) and p.default_value is not None
            )
            attrs = tuple(
                (n, a.default_value)
                for n, a in op_def.attributes.items()
                if not isinstance(a, OptionalDef) and a.default_value is not None
            )
            d = (props, attrs, own_post_init)
        CLASS_DEFAULTS[cls] = d
    return d


def new_op(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute],
    regions: Sequence[Region] = (),
    attributes: Mapping[str, Attribute] = _NO_ATTRS,
) -> Operation:
    """What ``cls.create(operands=..., result_types=..., properties=..., attributes=...,
    regions=...)`` makes."""
    op = cls.__new__(cls)
    ops = SSAValues(operands)
    uses = tuple([Use(op, i) for i in range(len(ops))])
    for v, u in zip(ops, uses):
        # IRWithUses.add_use, inline: the new use goes first in the value's use list
        first = v.first_use
        u._next_use = first
        if first is not None:
            first._prev_use = u
        v.first_use = u
    op._operands = ops
    op._operand_uses = uses
    op.results = SSAValues([OpResult(t, op, i) for i, t in enumerate(result_types)])
    op._successors = _EMPTY
    op._successor_uses = _EMPTY
    props = dict(properties)
    attrs = dict(attributes)
    prop_defaults, attr_defaults, own_post_init = _defaults(cls)
    op.properties = props
    op.attributes = attrs
    op.location = UNKNOWN_LOC
    op.regions = _EMPTY
    op.parent = None
    op._next_op = None
    op._prev_op = None
    for r in regions:
        op.add_region(r)
    if own_post_init:
        op.__post_init__()
    else:
        for k, v in prop_defaults:
            if k not in props:
                props[k] = v
        for k, v in attr_defaults:
            if k not in attrs:
                attrs[k] = v
    return op


TYPE_FIELD = "_type"
"""The field behind ``SSAValue.type`` (a property: a Python call per read), for generated code that
reads it per operand (`ir.format_parse`); tests/unit/ir/test_construct_plain.py checks it."""

_new_use = Use.__new__
_new_result = OpResult.__new__


def new_plain_op(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
) -> Operation:
    """``new_op`` for an op without regions or attributes, ``properties`` a new dict it keeps (the
    parser's fast paths, per op of a large module): the uses and results are made without their
    dataclass ``__init__`` calls (a Python call each), their fields set in the same order.
    tests/unit/ir/test_construct_plain.py compares it with ``new_op`` and ``Operation.create``."""
    prop_defaults, attr_defaults, own_post_init = _defaults(cls)
    op = cls.__new__(cls)
    ops = SSAValues(operands)
    uses = []
    for i, v in enumerate(ops):
        u = _new_use(Use)
        u._operation = op
        u._index = i
        u._prev_use = None
        # IRWithUses.add_use, inline: the new use goes first in the value's use list
        first = v.first_use
        u._next_use = first
        if first is not None:
            first._prev_use = u
        v.first_use = u
        uses.append(u)
    op._operands = ops
    op._operand_uses = tuple(uses)
    if len(result_types) == 1:  # the common case, without a loop
        r = _new_result(OpResult)
        r._type = result_types[0]  # as __init__: `first_use`, `_name` are the class's (None)
        r.op = op
        r.index = 0
        op.results = SSAValues((r,))
    else:
        results = []
        for i, t in enumerate(result_types):
            r = _new_result(OpResult)
            r._type = t
            r.op = op
            r.index = i
            results.append(r)
        op.results = SSAValues(results)
    op._successors = _EMPTY
    op._successor_uses = _EMPTY
    op.properties = properties
    attrs: dict[str, Attribute] = {}
    op.attributes = attrs
    op.location = UNKNOWN_LOC
    op.regions = _EMPTY
    op.parent = None
    op._next_op = None
    op._prev_op = None
    if own_post_init:
        op.__post_init__()
    else:
        for k, v in prop_defaults:
            if k not in properties:
                properties[k] = v
        for k, v in attr_defaults:
            attrs[k] = v
    return op


def inherent_as_properties(
    properties: Mapping[str, Attribute],
    attributes: Mapping[str, Attribute],
    inherent: Container[str],
) -> tuple[Mapping[str, Attribute], Mapping[str, Attribute]]:
    """As MLIR reads the generic form: the inherent attributes (``inherent``) written in the
    attribute dictionary are the op's properties.  The mappings are returned as given when none is."""
    if not attributes or not any(k in inherent for k in attributes):
        return properties, attributes
    props, attrs = dict(properties), dict(attributes)
    for k in [k for k in attrs if k in inherent]:
        props[k] = attrs.pop(k)
    return props, attrs


def create_generic(
    cls: type[Operation],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute],
    attributes: Mapping[str, Attribute],
    regions: Sequence[Region],
    inherent: Container[str],
) -> Operation:
    """What ``cls.create`` makes of an op read in the generic form, as MLIR reads it: the inherent
    attributes (``inherent``) written in the attribute dictionary are its properties
    (``inherent_as_properties``); made by ``new_op``."""
    properties, attributes = inherent_as_properties(properties, attributes, inherent)
    return new_op(cls, operands, result_types, properties, regions, attributes)


def append_ops(block: Block, ops: Sequence[Operation]) -> None:
    """What ``block.add_ops(ops)`` does, for ops just made (no parent, so none can contain the
    block): each op's parent and its links to its neighbours, and the block's first and last op."""
    last = block._last_op
    for op in ops:
        if op.parent is not None:
            raise ValueError("Can't add to a block an operation already attached to a block.")
        op.parent = block
        op._prev_op = last
        if last is None:
            block._first_op = op
        else:
            last._next_op = op
        last = op
    block._last_op = last


def operation_fields() -> tuple[str, ...]:
    """xDSL's Operation dataclass fields (what FIELDS must equal)."""
    return tuple(f.name for f in dataclasses.fields(Operation))
