"""What the VHLO passes share: option parsing, diagnostics with op locations, op re-creation and the
value bookkeeping of a rebuild-style conversion (including `unrealized_conversion_cast`s around ops
of other dialects when ``allow-other-dialects`` is set)."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TypeVar

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Attribute, BlockArgument, Operation, Region, SSAValue

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.xdsl_compat.side_data import carry_place


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a pass builds IR.

    A pass allocates a few objects per op and frees none; the collector's full scans grow with the
    heap, which makes a pass over N ops cost O(N^2) overall for large N.  Reference counting still
    frees everything that is not in a cycle; the collector runs again afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class LegalizationError(StableHLOError):
    """An op cannot be converted between StableHLO and VHLO (upstream: "failed to legalize operation
    '<name>' that was explicitly marked illegal")."""


def op_location(op: Operation) -> str | None:
    """`file:line:col` where the op was parsed, or its `loc(...)` text."""
    from stablehlo_py.ir.text.location import TextLoc
    from stablehlo_py.ir.text.parser import op_source_location

    where = op_source_location(op)
    if where is not None:
        return where
    loc = op.location
    if isinstance(loc, TextLoc) and loc.data != "unknown":
        return f"loc({loc.data})"
    return None


def legalize_error(op: Operation, why: str) -> LegalizationError:
    return LegalizationError(
        f"failed to legalize operation '{op.name}' that was explicitly marked illegal: {why}",
        location=op_location(op),
    )


def carry_location(new: Operation, old: Operation) -> Operation:
    """Keep the location and the parse position (for diagnostics) of a replaced op."""
    new.location = old.location
    carry_place(new, old)  # (a module the parser made: MLIR locates it at "file":0:0)
    return new


def op_class(name: str) -> type[Operation]:
    """The op class registered under ``name`` (e.g. ``stablehlo.iota``)."""
    from stablehlo_py.ir.dialects import default_registry

    return default_registry().ops[name]


def create_op(
    name: str,
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
    like: Operation | None = None,
) -> Operation:
    """A new, unlinked ``name`` op (its registered class's ``create``), with the location of
    ``like`` when given (`carry_location`)."""
    op = op_class(name).create(
        operands=list(operands),
        result_types=list(result_types),
        properties=dict(properties or {}),
        regions=list(regions),
    )
    if like is not None:
        carry_location(op, like)
    return op


_OpT = TypeVar("_OpT", bound=Operation)


def enclosing(op: Operation, cls: type[_OpT]) -> _OpT | None:
    """The nearest op of class ``cls`` around ``op`` (MLIR's ``getParentOfType``), or None."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, cls):
        parent = parent.parent_op()
    return parent


def carry_arg_location(new: object, old: object) -> None:
    """Keep a rebuilt block argument's location (explicit, or where its name was parsed)."""
    new.location = old.location  # type: ignore[attr-defined]
    carry_place(new, old)


class ValueMap:
    """Old value -> new value for a rebuild, with cached casts between VHLO and builtin types.

    ``use(v, want_vhlo)`` returns the new value of ``v`` with a VHLO type (for a VHLO op) or a
    builtin type (for an op of another dialect), inserting `builtin.unrealized_conversion_cast` right
    after the defining op (or at the start of the block for a block argument) the first time a
    value crosses the boundary, as MLIR's conversion framework materializes it.
    """

    def __init__(self, is_target_type: Callable[[Attribute], bool]):
        self.map: dict[SSAValue, SSAValue] = {}
        self.casts: dict[tuple[SSAValue, Attribute], SSAValue] = {}
        self.is_target_type = is_target_type

    def __setitem__(self, old: SSAValue, new: SSAValue) -> None:
        self.map[old] = new

    def get(self, old: SSAValue) -> SSAValue:
        return self.map.get(old, old)

    def cast(self, value: SSAValue, to_type: Attribute) -> SSAValue:
        if value.type == to_type:
            return value
        return materialize_cast(self.casts, value, to_type)


def materialize_cast(
    casts: dict[tuple[SSAValue, Attribute], SSAValue], value: SSAValue, to_type: Attribute
) -> SSAValue:
    """A `builtin.unrealized_conversion_cast` of ``value`` to ``to_type``, made once per value and
    type (``casts`` keeps them) where MLIR's conversion framework materializes it: at the start of
    the block for a block argument (each new one before the previous ones), else right after the
    defining op."""
    key = (value, to_type)
    got = casts.get(key)
    if got is not None:
        return got
    cast = UnrealizedConversionCastOp.create(operands=[value], result_types=[to_type])
    if isinstance(value, BlockArgument):
        block = value.block
        if block.first_op is not None:
            block.insert_op_before(cast, block.first_op)
        else:
            block.add_op(cast)
    else:
        owner = value.owner
        assert isinstance(owner, Operation) and owner.parent is not None
        owner.parent.insert_op_after(cast, owner)
    casts[key] = cast.results[0]
    return cast.results[0]


def visit_nested(op: Operation, visit: Callable[[Operation], object]) -> None:
    """``visit`` each op directly inside ``op``'s regions, in order, reading the next op before the
    visit (early increment: a visit may replace or erase its op)."""
    for region in op.regions:
        for block in region.blocks:
            child = block.first_op
            while child is not None:
                nxt = child.next_op
                visit(child)
                child = nxt
