"""`#stablehlo.gather<...>` and `#stablehlo.scatter<...>`: the dimension numbers of gather,
dynamic_gather and scatter (spec.md#gather, spec.md#scatter).

Text, as upstream's printStruct writes it: fields in declaration order, a list field only when it is
not empty and `index_vector_dim` only when it is not 0, e.g.
`#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>`.
The parser (upstream's parseStruct) takes the fields in any order, each at most once, with optional
commas inside the lists and an optional trailing comma.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attributes import StructAttr

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser


@dataclass(frozen=True)
class GatherDimensionNumbers:
    offset_dims: tuple[int, ...] = ()
    collapsed_slice_dims: tuple[int, ...] = ()
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()
    start_index_map: tuple[int, ...] = ()
    index_vector_dim: int = 0


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    update_window_dims: tuple[int, ...] = ()
    inserted_window_dims: tuple[int, ...] = ()
    input_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()
    scatter_dims_to_operand_dims: tuple[int, ...] = ()
    index_vector_dim: int = 0


class _StructAttr(StructAttr):
    """A struct attribute holding a frozen dataclass; text via `mlir_text` / `parse_body`."""

    def mlir_text(self) -> str:
        parts = []
        for f in fields(self.data):  # type: ignore[arg-type]
            v = getattr(self.data, f.name)
            if isinstance(v, tuple):
                if v:
                    parts.append(f"{f.name} = [{', '.join(str(x) for x in v)}]")
            elif v != 0:
                parts.append(f"{f.name} = {v}")
        return f"#stablehlo.{self.MNEMONIC}<{', '.join(parts)}>"

    @classmethod
    def parse_body(cls, p: Parser) -> _StructAttr:
        """`<field = value, ...>` after `#stablehlo.<mnemonic>`."""
        p.parse_literal("<")
        names = [f.name for f in fields(cls.STRUCT)]
        values: dict[str, object] = {}
        while not p.try_literal(">"):
            p.ws()
            pos = p.pos
            key = p.try_bare_id()
            if key not in names:
                p.error(
                    f"expected one of: {', '.join('`' + n + '`' for n in names)} in #stablehlo.{cls.MNEMONIC}",
                    pos,
                )
            if key in values:
                p.error(f"duplicated `{key}` entry", pos)
            p.parse_literal("=")
            if key == "index_vector_dim":
                values[key] = p.parse_integer()
            else:
                values[key] = _parse_dims(p)
            if not p.try_literal(","):
                p.parse_literal(">", f"to close #stablehlo.{cls.MNEMONIC}")
                break
        return cls(cls.STRUCT(**values))


def _parse_dims(p: Parser) -> tuple[int, ...]:
    """`[1, 2]`; as upstream's parseDims the commas are optional (`[1 2]`)."""
    p.parse_literal("[")
    dims: list[int] = []
    while not p.try_literal("]"):
        dims.append(p.parse_integer())
        p.try_literal(",")
    return tuple(dims)


@irdl_attr_definition
class GatherDimensionNumbersAttr(_StructAttr):
    """Dimension numbers of gather / dynamic_gather (spec.md#gather)."""

    name = "stablehlo.gather"
    MNEMONIC = "gather"
    STRUCT = GatherDimensionNumbers

    @property
    def dims(self) -> GatherDimensionNumbers:
        return self.data  # type: ignore[return-value]


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_StructAttr):
    """Dimension numbers of scatter (spec.md#scatter)."""

    name = "stablehlo.scatter"
    MNEMONIC = "scatter"
    STRUCT = ScatterDimensionNumbers

    @property
    def dims(self) -> ScatterDimensionNumbers:
        return self.data  # type: ignore[return-value]


def register(reg: Registry) -> None:
    reg.attr_parsers["stablehlo.gather"] = GatherDimensionNumbersAttr.parse_body
    reg.attr_parsers["stablehlo.scatter"] = ScatterDimensionNumbersAttr.parse_body
