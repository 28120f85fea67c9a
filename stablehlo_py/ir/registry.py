"""The one table of what the text layer knows: op name -> class, attribute and type parsers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation
from xdsl.ir.core import OpTraits
from xdsl.traits import NoTerminator

from stablehlo_py.ir.context import CONTEXT

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


@dataclass
class Registry:
    ops: dict[str, type[Operation]] = field(default_factory=dict)
    # `#name<...>` / `#name` -> parser called after the name (e.g. "stablehlo.conv", "stablehlo.bounds").
    # Enum attributes `#stablehlo<comparison_direction GT>` are registered as "stablehlo.comparison_direction"
    # and called after the mnemonic.
    attr_parsers: dict[str, Callable[[Parser], Attribute]] = field(default_factory=dict)
    type_parsers: dict[str, Callable[[Parser], Attribute]] = field(default_factory=dict)
    enum_dialects: set[str] = field(default_factory=set)

    def dialects(self) -> frozenset[str]:
        """The dialects whose ops are registered (`stablehlo`, `chlo`, `func`, ...)."""
        known = self.__dict__.get("_dialects")
        if known is None or known[0] != len(self.ops):
            known = (len(self.ops), frozenset(n.partition(".")[0] for n in self.ops))
            self.__dict__["_dialects"] = known
        return known[1]

    def add_ops(self, *classes: type[Operation]) -> None:
        for c in classes:
            if c.name in self.ops:
                raise ValueError(f"op {c.name} registered twice")
            self.ops[c.name] = c


@dataclass(frozen=True)
class ForeignSyntax:
    """Pretty syntax for an op class we do not own (xDSL's `func.func`, `builtin.module`, ...)."""

    parse: Callable[[Parser], Operation]
    print: Callable[[Operation, object], None]
    isolated: bool = False


FOREIGN_SYNTAX: dict[type, ForeignSyntax] = {}


class UnregisteredOp(Operation):
    """An op of a dialect the toolkit does not know, read with `allow_unregistered` (as MLIR's
    `--allow-unregistered-dialect`): its name, operands, results, properties, attributes and regions
    are kept as written; it prints back in generic form, verification skips it, and the interpreter
    and serializers refuse it.  One subclass per op name (`unregistered_op_class`), so `op.name` is
    the name it was written with."""

    name = "builtin.unregistered"
    # MLIR does not require the blocks of an unregistered op to end with a terminator
    traits = OpTraits(lambda: (NoTerminator(),))
    UNREGISTERED = True

    def verify(self, verify_nested_ops: bool = True) -> None:
        # MLIR knows nothing of an unregistered op's constraints (it may even terminate a block):
        # only what it contains is verified.
        if verify_nested_ops:
            for region in self.regions:
                region.verify()

    def verify_(self) -> None:
        return None


_UNREGISTERED = CONTEXT.table("ir.unregistered_op_classes", 4096)  # op name -> its class


def unregistered_op_class(op_name: str) -> type[UnregisteredOp]:
    """The (cached) class of the unregistered op `op_name` (`"dialect.op"`)."""
    cls = _UNREGISTERED.get(op_name)
    if cls is None:
        cls = type("UnregisteredOp", (UnregisteredOp,), {"name": op_name, "__module__": __name__})
        _UNREGISTERED.put(op_name, cls)
    return cls


def is_unregistered(op: Operation) -> bool:
    return isinstance(op, UnregisteredOp)
