"""The walk both VHLO legalizations share (``stablehlo-legalize-to-vhlo`` and
``vhlo-legalize-to-stablehlo``): modules, regions, blocks and their arguments in order, each op
converted by the pass's ``convert_op`` and the results handed to a sink (``vhlo.sinks``: new xDSL
ops, records, or the same ops in place).

A pass subclasses ``VhloWalk`` with ``convert_op`` (an op -> its conversion, or None when it folds
away), ``arg_types`` (a block's argument types in the target, or the pass's diagnostic) and
``new_operands`` (an op's operands as converted values, for a sink that makes new ops).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from stablehlo_py.passes.drivers._common import ValueMap, carry_arg_location, carry_location
from stablehlo_py.vhlo.records import VBlock
from stablehlo_py.vhlo.sinks import XdslSink
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, Region

from stablehlo_py.ir.xdsl_compat.fields import block_ops


class VhloWalk:
    """One walk over a module, emitting through ``sink``."""

    sink: XdslSink
    values: ValueMap

    def convert_op(self, op: Any, parent: Operation | None) -> Any:
        raise NotImplementedError

    def new_operands(self, op: Any) -> list[Any]:
        """The converted values of ``op``'s operands, for the new op a sink makes of it."""
        raise NotImplementedError

    def arg_types(self, block: Any, owner: Operation, to_target: bool) -> Sequence[Attribute]:
        raise NotImplementedError

    def convert_body(self, region: Region) -> None:
        """The body of a builtin.module, rebuilt in place: its ops are replaced, the region object
        (and a nested module) stays."""
        for block in region.blocks:
            old_ops = list(block.ops)
            for o in old_ops:
                block.detach_op(o)
            for o in old_ops:
                if isinstance(o, ModuleOp):
                    self.convert_body(o.regions[0])
                    block.add_op(o)
                    continue
                new = self.convert_op(o, None)
                if new is not None:
                    block.add_op(new)

    def convert_module(self, module: Any) -> Any:
        """A module (or module record) with its body converted, as the sink makes it: a new
        module, or ``module`` itself (in place)."""
        sink = self.sink
        new = sink.module_like(module)
        carry_location(new, module)
        body = new.regions[0]
        for block in module.regions[0].blocks:
            nb = sink.block(block, ())
            sink.add_block(body, nb)
            self._convert_ops(block, nb, None)
        return new

    def convert_ordered(
        self, module: Any, ops: Sequence[Operation], convert: Callable[[Any, Any], Any]
    ) -> Any:
        """The in-place sink's walk: ``module`` with ``ops`` (``swap.ordered_ops``: each op before
        the ops of its regions, every operand converted before its use) converted in that order by
        ``convert`` (``convert_op``, or its case for the ops the pre-scan accepted), in one flat
        loop, each without its owner (None: a conversion that needs it reads ``op.parent_op()``).
        Each op's ``convert_region`` retypes its blocks' arguments; the ops of its regions follow in
        ``ops`` (in place, ``convert_region`` leaves them)."""
        for op in ops:
            convert(op, None)
        return module

    def convert_region(self, region: Any, owner: Operation, to_target: bool = True) -> Any:
        """A region of ``owner``: its blocks with their argument types converted (unless not
        ``to_target``: the region of an op of another dialect), then their ops."""
        sink = self.sink
        if sink.in_place:  # (its blocks and ops stay: ``convert_ordered`` converts the ops)
            for block in region.blocks:
                sink.block(block, self.arg_types(block, owner, to_target))
            return region
        new = sink.region(region)
        pairs: list[tuple[Any, Any]] = []
        for block in region.blocks:
            nb = sink.block(block, self.arg_types(block, owner, to_target))
            if nb is not block:  # (in place: the same values)
                for a, na in zip(block.args, nb.args):
                    self.values[a] = na
                    carry_arg_location(na, a)
            sink.add_block(new, nb)
            pairs.append((block, nb))
        for block, nb in pairs:
            self._convert_ops(block, nb, owner)
        return new

    def _convert_ops(self, block: Any, new: Any, owner: Operation | None) -> None:
        # (listed first: an op that cannot change class in place is replaced)
        ops = block.ops if type(block) is VBlock else block_ops(block)
        self.sink.convert_ops(ops, new, self.convert_op, owner)


__all__ = ["VhloWalk"]
