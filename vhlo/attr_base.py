"""The base of the VHLO types and attributes (``VhloData``), of the attributes (``VhloAttr``,
``is_vhlo``) and ``TypeExtensionsV1Attr`` (`#vhlo.type_extensions_v1<bounds = [16, ?]>`, the
encoding of a bounded VHLO tensor type).

They sit below ``vhlo.convert_types`` (the type conversions build and read type extensions), which
sits below ``vhlo.attrs`` (the text of integer, float and tensor attributes converts their types):
so the three import one way (``vhlo.types`` imports ``VhloData`` from here).  ``vhlo.attrs``
re-exports the attribute names here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.ir import Attribute, Data
from xdsl.irdl import irdl_attr_definition

from stablehlo_py import specs

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


def is_vhlo(a: Attribute) -> bool:
    """Whether an attribute or type belongs to the VHLO dialect."""
    return a.name.startswith("vhlo.")


class VhloData(Data[object]):
    """Base of every VHLO type and attribute: its text is ``mlir_text()`` (xDSL's printer writes it
    too); stablehlo_py.ir.text parses it.  ``SPEC_NAME`` is its row in ``specs/types.toml``."""

    SPEC_NAME: ClassVar[str]
    PARSE_ERROR: ClassVar[str]

    @classmethod
    def parse_parameter(cls, parser):  # type: ignore[override]
        raise NotImplementedError(cls.PARSE_ERROR)

    def print_parameter(self, printer) -> None:  # type: ignore[override]
        printer.print_string(self.mlir_text())

    def mlir_text(self) -> str:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def children(self) -> tuple[Attribute, ...]:
        """Nested types/attributes (checked recursively for version legality)."""
        return ()


class VhloAttr(VhloData):
    """Base of every VHLO attribute."""

    PARSE_ERROR = "VHLO attributes are parsed by stablehlo_py.ir.text"

    @classmethod
    def spec(cls) -> specs.AttrSpec:
        return specs.attr_spec(cls.SPEC_NAME)


def _bounds_text(bounds: Sequence[int]) -> str:
    return ", ".join("?" if b < 0 else str(b) for b in bounds)


def _parse_int_or_q(p: Parser) -> int:
    if p.try_literal("?"):
        return -1
    return p.parse_integer()


def _parse_fields(
    p: Parser, what: str, fields: dict[str, object], optional: frozenset[str] = frozenset()
) -> dict[str, object]:
    """`<k = v, ...>` with the fields in the given order (a parse function per field); fields in
    ``optional`` may be absent."""
    out: dict[str, object] = {}
    p.parse_literal("<")
    first = True
    for key, parse in fields.items():
        save = p.pos
        if not first and not p.try_literal(","):
            if key in optional:
                continue
            p.parse_literal(",", f"in {what}")
        if key in optional and not p.try_keyword(key):
            p.pos = save
            continue
        if key not in optional:
            p.parse_keyword(key)
        p.parse_literal("=")
        out[key] = parse(p)  # type: ignore[operator]
        first = False
    p.parse_literal(">", f"to close {what}")
    return out


@irdl_attr_definition
class TypeExtensionsV1Attr(VhloAttr):
    """`#vhlo.type_extensions_v1<bounds = [16, ?]>` (the encoding of a bounded tensor type)."""

    name = "vhlo.type_extensions_v1"
    SPEC_NAME = "type_extensions_v1"

    @property
    def bounds(self) -> tuple[int, ...]:
        return self.data  # type: ignore[return-value]

    def mlir_text(self) -> str:
        return f"#vhlo.type_extensions_v1<bounds = [{_bounds_text(self.bounds)}]>"

    @staticmethod
    def parse_body(p: Parser) -> Attribute:
        f = _parse_fields(
            p,
            "#vhlo.type_extensions_v1",
            {"bounds": lambda p: tuple(p.parse_delimited("[", lambda: _parse_int_or_q(p), "]"))},
        )
        return TypeExtensionsV1Attr(f["bounds"])
