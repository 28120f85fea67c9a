"""StableHLO struct attributes that VHLO keeps as flat attributes of their op, as tables derived from
their one statement: the fork rows' ``flatten`` key (``specs/ops.toml``: which attribute of which op
is which struct) and the structs' descriptions (``stablehlo_py/ir/attrs/``: the fields, in order, by
their VHLO names).  The conversion itself is ``vhlo.structs``; these views are for readers that want
the names (the dot_general fork pair, tests)."""

from __future__ import annotations

from stablehlo_py import specs
from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC


def _vhlo_names(mnemonic: str) -> tuple[str, ...]:
    return tuple(f.vhlo for f in BY_MNEMONIC[mnemonic].fields)


FLATTENED: dict[str, tuple[tuple[str, str, tuple[str, ...]], ...]] = {
    o.base: tuple((f.attribute, f.struct, _vhlo_names(f.struct)) for f in o.flatten)
    for o in specs.ops()
    if o.stablehlo and o.flatten
}
"""Op family -> (StableHLO attribute, struct mnemonic, the flat VHLO attributes in field order)."""

FIELD_OF = {f.vhlo: f.key for d in BY_MNEMONIC.values() for f in d.fields if f.vhlo != f.key}
"""Flat VHLO attribute -> struct field, where the names differ."""

ALGORITHM_FIELDS = _vhlo_names("dot_algorithm")
"""dot_general's flat algorithm attributes (v2)."""
