"""VHLO as plain records: the shallow form the artifact paths pass between StableHLO and bytes.

Upstream's VHLO is a shallow copy of StableHLO that exists only on the way to and from an
artifact.  Building it as xDSL operations (with their use lists, operand views and op-definition
machinery) costs more than encoding it, so the serialization paths build these records instead:

* writing: ``stablehlo-legalize-to-vhlo`` (records mode) -> ``vhlo-to-version`` (forks applied to
  the records in place) -> either writer (msgpack or MLIR bytecode);
* reading: either reader (records mode) -> ``vhlo-to-version{current}`` -> ``vhlo-legalize-to-stablehlo``,
  which builds the StableHLO ops.

A record has the parts of an operation those steps read (``name``, ``operands``, ``results`` with
their ``type``, ``properties``, ``attributes``, ``regions`` of ``blocks`` with ``args`` and ``ops``,
``location``), and a VHLO op record also is the fork state the fork steps and the legality checks
take (``base``, ``version``, ``result_types``, ``prop``).  ``materialize`` turns records into xDSL
ops (for the low-level API that returns a VHLO module).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Attribute

from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.side_data import IMPLICIT_SRC, LOC_POS, SRC, USE_ORDER
from stablehlo_py.ir.xdsl_compat.swap import value_types

_CARRIED = (SRC, IMPLICIT_SRC, USE_ORDER, "_vhlo_replaced", LOC_POS)
"""What a record's op or value carries to the xDSL object made of it (``sinks.REPLACED`` is the
fourth: vhlo.sinks imports this module)."""

__all__ = ["VBlock", "VOp", "VRegion", "VValue", "is_record", "materialize"]

_UNKNOWN = UnknownLoc()


class VValue:
    """An SSA value: its type, plus what a rebuild carries (``location``, ``_src``, ``_use_order``).

    Its type is in ``_type`` and an op record's operands in ``_operands``, xDSL's own fields, so
    that the readers of both (``stablehlo_py.ir.xdsl_compat.swap``: ``value_types``,
    ``operands_of``) read records too."""

    __slots__ = ("__dict__", "_type")
    location: Any = _UNKNOWN

    def __init__(self, t: Attribute):
        self._type = t

    @property
    def type(self) -> Attribute:
        return self._type

    @type.setter
    def type(self, t: Attribute) -> None:
        self._type = t


class _Blocks(list):  # type: ignore[type-arg]
    @property
    def first(self) -> VBlock | None:
        return self[0] if self else None


class VBlock:
    __slots__ = ("args", "ops", "parent")

    def __init__(self, arg_types: Any = ()):
        self.args = [VValue(t) for t in arg_types]
        self.ops: list[VOp] = []
        self.parent: VRegion | None = None

    @property
    def arg_types(self) -> tuple[Attribute, ...]:
        return tuple(value_types(self.args))  # type: ignore[arg-type]

    def add_op(self, op: VOp) -> None:
        op.parent = self
        self.ops.append(op)

    def add_ops(self, ops: Any) -> None:
        for op in ops:
            op.parent = self
            self.ops.append(op)

    def parent_op(self) -> VOp | None:
        return None if self.parent is None else self.parent.parent


class VRegion:
    __slots__ = ("blocks", "parent")

    def __init__(self, blocks: Any = ()):
        self.blocks: _Blocks = _Blocks()
        self.parent: VOp | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: VBlock) -> None:
        block.parent = self
        self.blocks.append(block)


class VOp:
    """An op record; ``SPEC`` is its ``specs.OpSpec`` for a VHLO op, None for ``builtin.module``."""

    _successors = ()
    successors = ()
    parent: VBlock | None = None
    location: Any = _UNKNOWN

    def __init__(
        self,
        name: str,
        spec: Any,
        operands: list[Any],
        result_types: Any,
        properties: dict[str, Attribute],
        attributes: dict[str, Attribute],
        regions: list[VRegion],
        location: Any = None,
    ):
        self.name = name
        self.SPEC = spec
        self._operands = operands
        self.results = [VValue(t) for t in result_types]
        self.properties = properties
        self.attributes = attributes
        self.regions = regions
        for r in regions:
            r.parent = self
        if location is not None:
            self.location = location

    # -- the parts an xDSL operation has
    @property
    def operands(self) -> list[Any]:
        return self._operands

    @property
    def body(self) -> VRegion:
        return self.regions[0]

    def walk(self) -> Iterator[VOp]:
        yield self
        for r in self.regions:
            for b in r.blocks:
                for o in b.ops:
                    yield from o.walk()

    # -- the fork state (``vhlo.forks.ForkOp``'s fields) of a VHLO op record
    @property
    def base(self) -> str:
        return self.SPEC.base

    @property
    def version(self) -> int:
        return self.SPEC.version

    @property
    def result_types(self) -> tuple[Attribute, ...]:
        return tuple(value_types(self.results))  # type: ignore[arg-type]

    def prop(self, name: str) -> Attribute | None:
        return self.properties.get(name)

    def __repr__(self) -> str:
        return f"<VOp {self.name}>"


def is_record(op: object) -> bool:
    return type(op) is VOp


def module_record(properties: dict[str, Attribute], attributes: dict[str, Attribute]) -> VOp:
    """An empty ``builtin.module`` record with one block."""
    region = VRegion([VBlock()])
    return VOp("builtin.module", None, [], (), properties, attributes, [region])


def materialize(root: VOp) -> Any:
    """The xDSL ops of a record tree (VHLO op classes, ``builtin.module``), locations kept."""
    from stablehlo_py.vhlo.ops import op_class
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Block, Region

    values: dict[int, Any] = {}

    def carry(new: Any, old: Any) -> None:
        new.location = old.location
        for key in _CARRIED:
            v = old.__dict__.get(key)
            if v is not None:
                new.__dict__[key] = v

    def region(r: VRegion) -> Region:
        new = Region()
        pairs = []
        for b in r.blocks:
            nb = Block(arg_types=value_types(b.args))  # type: ignore[arg-type]
            for a, na in zip(b.args, nb.args):
                values[id(a)] = na
                carry(na, a)
            new.add_block(nb)
            pairs.append((b, nb))
        for b, nb in pairs:
            nb.add_ops([op(o) for o in b.ops])
        return new

    def op(o: VOp) -> Any:
        regions = [region(r) for r in o.regions]
        if o.name == "builtin.module":
            new = ModuleOp.create(
                properties=dict(o.properties), attributes=dict(o.attributes), regions=regions
            )
        else:
            new = op_class(o.name[5:]).create(
                operands=[values[id(v)] for v in operands_of(o)],  # type: ignore[arg-type]
                result_types=value_types(o.results),  # type: ignore[arg-type]
                properties=dict(o.properties),
                attributes=dict(o.attributes),
                regions=regions,
            )
        for r, nr in zip(o.results, new.results):
            values[id(r)] = nr
            carry(nr, r)
        carry(new, o)
        return new

    return op(root)
