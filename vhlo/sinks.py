"""Where a StableHLO <-> VHLO conversion puts what it makes: one small interface, three sinks.

The legalizations (``stablehlo-legalize-to-vhlo``, ``vhlo-legalize-to-stablehlo``) walk their input
once (``passes/drivers/vhlo_walk.py``) and convert each op once -- attributes, defaults,
diagnostics, locations, use-list orders -- and hand the result to a sink; ``vhlo-to-version`` walks
and re-forks VHLO ops through one (``vhlo_ops``, ``refork``), and the artifact readers build through
one:

- ``XDSL``: new xDSL ops (the passes' rebuild, the low-level API);
- ``RECORDS``: ``vhlo.records`` (what the artifact paths pass between StableHLO and bytes: building
  xDSL ops there costs more than encoding them);
- ``IN_PLACE``: the xDSL sink's fast case, the same ops with their class swapped and their values
  retyped (``stablehlo_py.ir.xdsl_compat.swap``), taken when the pre-scan ``swap.ordered_ops``
  finds that every op can be converted so.

A sink makes regions, blocks and ops (``region``, ``block``, ``op``, ``module_like``, ``module``)
and puts them in place (``add_block``, ``convert_ops``); a fork change of a VHLO op is ``refork``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from stablehlo_py.vhlo.ops import FORK_CLASSES, GENERATED_CLASSES, is_vhlo_op_class
from stablehlo_py.vhlo.records import VBlock, VOp, VRegion
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Region

from stablehlo_py import specs
from stablehlo_py.ir.xdsl_compat import swap
from stablehlo_py.ir.xdsl_compat.construct import new_op

_Attrs = dict[str, Attribute]

REPLACED = "_vhlo_replaced"
"""Side data of an op ``refork`` gave a new fork: the MLIR bytecode writer replays upstream's
use-lists for it."""


class XdslSink:
    """New xDSL ops."""

    holds_other_ops = True
    """Whether ops of other dialects can be made here (``allow-other-dialects``)."""

    in_place = False
    """Whether ops are converted in place: they keep their operands (already converted), and the
    walk converts a flat list of them (``VhloWalk.convert_ordered``) rather than each block's ops
    through ``convert_ops``."""

    def module_like(self, module: Any) -> Any:
        """An empty module with the attributes of ``module`` (an xDSL module or a module record),
        its one region without blocks."""
        if isinstance(module, ModuleOp):
            return module.clone_without_regions()
        return self.module(dict(module.properties), dict(module.attributes), [Region()], None)

    def module(self, properties: _Attrs, attributes: _Attrs, regions: list, location: Any) -> Any:
        module = ModuleOp.create(properties=properties, attributes=attributes, regions=regions)
        if location is not None:
            module.location = location
        return module

    def region(self, old: Any = None) -> Any:
        return Region()

    def block(self, old: Any, arg_types: Sequence[Attribute]) -> Any:
        return Block(arg_types=arg_types)

    def add_block(self, region: Any, block: Any) -> None:
        region.add_block(block)

    def convert_ops(
        self, ops: Iterable[Any], block: Any, convert: Callable[[Any, Any], Any], owner: Any
    ) -> None:
        """Each op of ``ops`` converted (``convert(op, owner)``: the new op, or None when it folds
        away) and put at the end of ``block``, one by one (a conversion may insert a cast after an
        op converted before)."""
        for o in ops:
            n = convert(o, owner)
            if n is not None:
                block.add_op(n)

    def op(
        self, old: Any, cls: type[Any], operands: Sequence[Any], result_types: Sequence[Attribute],
        properties: _Attrs, attributes: _Attrs, regions: list[Any], location: Any = None,
    ) -> Any:
        """An op of class ``cls`` (VHLO, or StableHLO on the way back; ``old``: the op it
        converts, None when read): what ``cls.create`` makes, through the parser's fast
        construction (``xdsl_compat.construct.new_op``)."""
        op = new_op(cls, operands, result_types, properties, regions, attributes)
        if location is not None:
            op.location = location
        return op

    # -- vhlo-to-version
    def vhlo_ops(self, root: Any, current: bool) -> Iterable[Any]:
        """The VHLO ops under ``root`` that a target (``current``: the current version) may
        change, in walk order."""
        generated = GENERATED_CLASSES  # (``type(op) in`` a set: no call for the common case)
        is_vhlo = is_vhlo_op_class
        return [op for op in swap.walk(root) if type(op) in generated or is_vhlo(type(op))]

    def refork(self, op: Any, state: Any) -> None:
        """The op takes its new fork (a ``vhlo.forks.ForkOp``): in place (``swap``) when it keeps
        its regions, as every fork step but composite's does; else rebuilt."""
        cls = FORK_CLASSES[state.base, state.version]
        results = op.results
        if state.regions == tuple(op.regions) and len(state.result_types) == len(results):
            new = swap.retype(
                op, cls, (), state.result_types, dict(state.properties), dict(state.attributes)
            )
            new.__dict__[REPLACED] = True
            return
        regions: list[Region] = []
        for r in state.regions:
            if r.parent is op:
                op.detach_region(r)
            regions.append(r)
        for r in op.regions:  # regions the new fork drops (only ever empty ones)
            assert not r.blocks or r in state.regions
        # The op's current operands: an earlier replacement may have rewired them since planning
        # (forks never change which values an op uses).
        new = cls.create(
            operands=list(op.operands),
            result_types=list(state.result_types),
            properties=state.properties,
            attributes=state.attributes,
            regions=regions,
        )
        swap.carry_over(new, op)
        new.__dict__[REPLACED] = True
        block = op.parent
        assert block is not None
        block.insert_op_before(new, op)
        for old, nr in zip(op.results, new.results):
            old.replace_all_uses_with(nr)
        block.erase_op(op)


class InPlaceSink(XdslSink):
    """The xDSL sink's fast case: each op becomes its conversion in place (``swap``), its regions,
    blocks and operands stay (the pre-scan ``swap.ordered_ops`` has found each operand converted
    before its use)."""

    in_place = True

    def module_like(self, module: ModuleOp) -> Any:
        return module

    def region(self, old: Any = None) -> Any:
        return old

    def block(self, old: Any, arg_types: Sequence[Attribute]) -> Any:
        for a, t in zip(old.args, arg_types):
            swap.retype_value(a, t)
        return old

    def add_block(self, region: Any, block: Any) -> None:
        pass

    def convert_ops(
        self, ops: Iterable[Any], block: Any, convert: Callable[[Any, Any], Any], owner: Any
    ) -> None:
        """Nothing: the walk converts ``swap.ordered_ops``' flat list (``VhloWalk.convert_ordered``)."""

    op = staticmethod(swap.retype)  # (the op itself, retyped: no frame of the sink's own)


class RecordSink(XdslSink):
    """VHLO records (``vhlo.records``)."""

    holds_other_ops = False

    def module_like(self, module: ModuleOp) -> Any:
        return VOp(
            "builtin.module",
            None,
            [],
            (),
            dict(module.properties),
            dict(module.attributes),
            [VRegion()],
        )

    def module(self, properties: _Attrs, attributes: _Attrs, regions: list, location: Any) -> Any:
        return VOp("builtin.module", None, [], (), properties, attributes, regions, location)

    def region(self, old: Any = None) -> Any:
        return VRegion()

    def block(self, old: Any, arg_types: Sequence[Attribute]) -> Any:
        return VBlock(arg_types)

    def op(
        self, old: Any, cls: type[Any], operands: Sequence[Any], result_types: Sequence[Attribute],
        properties: _Attrs, attributes: _Attrs, regions: list[Any], location: Any = None,
    ) -> Any:
        return VOp(
            cls.name, cls.SPEC, operands, result_types, properties, attributes, regions, location
        )

    def vhlo_ops(self, root: Any, current: bool) -> Iterable[Any]:
        out = []
        for op in root.walk():
            spec = op.SPEC
            if spec is None:
                continue  # builtin.module
            if current and spec.stablehlo and not op.attributes:
                # already the current fork, every attribute VHLO (a record holds nothing else in
                # its properties): nothing to upgrade, nothing that could block
                continue
            out.append(op)
        return out

    def refork(self, op: Any, state: Any) -> None:
        """A record takes its new fork in place (its results, and so their uses, stay)."""
        spec = specs.op(f"{state.base}_v{state.version}")
        op.name = f"vhlo.{spec.name}"
        op.SPEC = spec
        op.properties = dict(state.properties)  # (a memoized state serves many ops)
        op.attributes = dict(state.attributes)
        assert len(state.result_types) == len(op.results)  # forks never change the results' number
        for r, t in zip(op.results, state.result_types):
            r.type = t
        op.regions = list(state.regions)
        for r in op.regions:
            r.parent = op
        op.__dict__[REPLACED] = True


XDSL = XdslSink()
IN_PLACE = InPlaceSink()
RECORDS = RecordSink()


def of_records(records: bool) -> XdslSink:
    """The sink of a reader asked for records (or xDSL ops)."""
    return RECORDS if records else XDSL


def sink_of(root: Any) -> XdslSink:
    """The sink that holds ``root``'s kind of ops (records or xDSL)."""
    return RECORDS if type(root) is VOp else XDSL


__all__ = ["IN_PLACE", "RECORDS", "REPLACED", "XDSL", "InPlaceSink", "RecordSink", "XdslSink", "of_records", "sink_of"]
