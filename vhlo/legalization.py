"""How the attributes of a current VHLO fork are written in StableHLO, where that is not their kind's
plain conversion (``vhlo.convert``): the legalization passes' special cases, as data.

Nothing here is a list of ops.  Each case is derived from one of the two places that state it:
- the fork's row in ``specs/ops.toml`` (``stablehlo_field``, ``integer_enum``, ``vhlo_default_when``;
  struct flattening is its ``flatten`` key, read by ``vhlo.structs``);
- the StableHLO op's own property definitions: a property declared as a dense array
  (`array<i64: ...>`, `array<i1: ...>`) holds what VHLO writes as a `#vhlo.tensor_v1`, a symbol
  reference what VHLO writes as a `#vhlo.string_v1`, an array of symbol references an array of
  strings, and a unit attribute what VHLO writes as a `#vhlo.bool_v1` (absent when false).

``rules(fork)`` joins the two for a fork that maps to StableHLO.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from stablehlo_py.vhlo.structs import parse_attr_text
from xdsl.dialects.builtin import ArrayAttr, ArrayOfConstraint, DenseArrayBase, SymbolRefAttr, UnitAttr
from xdsl.ir import Attribute

from stablehlo_py import specs
from stablehlo_py.ir.attrs.struct import Description, DescribedAttr, Field, describe

DENSE = "dense_array"
SYMBOL = "symbol"
SYMBOLS = "symbol_array"
UNIT = "unit"
ENUM = "integer_enum"
"""The kinds of ``Rules.kinds``: how a VHLO attribute is written in StableHLO."""


@dataclass(frozen=True)
class FieldOf:
    """A VHLO attribute that is one field of a StableHLO struct attribute (``stablehlo_field``)."""

    vhlo: str
    """The VHLO attribute (`channel_id`)."""
    attribute: str
    """The StableHLO struct attribute (`channel_handle`)."""
    desc: Description
    field: Field


@dataclass(frozen=True, eq=False)
class Rules:
    """A fork's legalization special cases."""

    kinds: dict[str, str]
    """VHLO attribute -> DENSE, SYMBOL, SYMBOLS, UNIT or ENUM (the others convert by kind)."""
    enums: dict[str, str]
    """VHLO attribute -> the VHLO enum it holds (the ENUM ones)."""
    fields: dict[str, FieldOf]
    """StableHLO struct attribute -> the VHLO attribute holding its one field."""
    vhlo_fields: dict[str, FieldOf]
    """The same by VHLO attribute."""
    defaults_when: dict[str, tuple[str, Attribute, Attribute]]
    """VHLO attribute -> (attribute, value, default): its VHLO default while ``attribute`` holds
    ``value``."""

    def vhlo_default(self, name: str, attrs: dict[str, Attribute]) -> Attribute | None:
        """The VHLO default of ``name`` that depends on the op's other attributes (None: its row's
        ``vhlo_default`` holds)."""
        when = self.defaults_when.get(name)
        if when is not None and attrs.get(when[0]) == when[1]:
            return when[2]
        return None


@cache
def rules(fork: str) -> Rules:
    """The rules of the fork ``fork`` (`custom_call_v2`)."""
    spec = specs.op(fork)
    classes = _stablehlo_classes()
    props: dict[str, Any] = {}
    for name in spec.stablehlo:
        cls = classes.get(name)
        get_def = getattr(cls, "get_irdl_definition", None)
        if get_def is not None:
            props.update(get_def().properties)
    kinds: dict[str, str] = {}
    enums: dict[str, str] = {}
    fields: dict[str, FieldOf] = {}
    when: dict[str, tuple[str, Attribute, Attribute]] = {}
    for a in spec.attributes:
        if a.integer_enum is not None:
            kinds[a.name] = ENUM
            enums[a.name] = a.integer_enum
        elif a.name in props:
            kind = _kind(props[a.name].constr)
            if kind is not None:
                kinds[a.name] = kind
        if a.stablehlo_field is not None:
            attribute, field = a.stablehlo_field
            desc = _struct(props.get(attribute), fork, attribute)
            fields[attribute] = FieldOf(a.name, attribute, desc, desc.by_key[field])
        if a.vhlo_default_when is not None:
            other, value, default = a.vhlo_default_when
            when[a.name] = (other, parse_attr_text(value), parse_attr_text(default))
    return Rules(kinds, enums, fields, {f.vhlo: f for f in fields.values()}, when)


def _kind(constr: Any) -> str | None:
    bases = constr.get_bases()
    if bases == {DenseArrayBase}:
        return DENSE
    if bases == {SymbolRefAttr}:
        return SYMBOL
    if bases == {UnitAttr}:
        return UNIT
    while not isinstance(constr, ArrayOfConstraint) and hasattr(constr, "constr"):
        constr = constr.constr  # (a MessageConstraint's wrapped constraint)
    if bases == {ArrayAttr} and isinstance(constr, ArrayOfConstraint):
        element = getattr(constr.elem_range_constraint, "constr", None)
        if element is not None and element.get_bases() == {SymbolRefAttr}:
            return SYMBOLS
    return None


def _struct(prop: Any, fork: str, attribute: str) -> Description:
    bases = prop.constr.get_bases() if prop is not None else None
    if not bases or len(bases) != 1 or not issubclass(next(iter(bases)), DescribedAttr):
        raise ValueError(
            f"specs/ops.toml: {fork} has stablehlo_field = '{attribute}.…', but the StableHLO op "
            f"declares no struct attribute '{attribute}'"
        )
    return describe(next(iter(bases)))


@cache
def _stablehlo_classes() -> dict[str, type]:
    from stablehlo_py.vhlo.ops import stablehlo_classes

    return stablehlo_classes()


__all__ = ["DENSE", "ENUM", "SYMBOL", "SYMBOLS", "UNIT", "FieldOf", "Rules", "rules"]
