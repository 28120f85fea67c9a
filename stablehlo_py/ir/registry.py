"""The one table of what the text layer knows: op name -> class, attribute and type parsers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation

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


_DEFAULT: Registry | None = None


def default_registry() -> Registry:
    """All dialects of the toolkit (stablehlo, chlo, check, func, builtin), built once."""
    global _DEFAULT
    if _DEFAULT is None:
        from stablehlo_py.ir import dialects

        _DEFAULT = dialects.build_registry()
    return _DEFAULT
