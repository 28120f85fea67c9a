"""`#stablehlo.gather<...>`: the dimension numbers of gather and dynamic_gather (spec.md#gather).

Text, as upstream's printStruct writes it: fields in declaration order, a list only when it is not
empty and `index_vector_dim` only when it is not 0, e.g.
`#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>`.
Read as upstream's parseStruct: any order, each field at most once, optional commas inside the lists
and an optional trailing comma.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import (
    INT,
    LOOSE_DIMS,
    NONDEFAULT,
    NONEMPTY,
    DescribedAttr,
    KeywordList,
    field,
)

DIMS_STRUCT = KeywordList(open=None, duplicate="duplicated `{key}` entry")
"""parseStruct as gather and scatter read it: no context for a missing `<`, and a duplicated key
named without the attribute."""


@dataclass(frozen=True)
class GatherDimensionNumbers:
    offset_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    collapsed_slice_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    operand_batching_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    start_indices_batching_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    start_index_map: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    index_vector_dim: int = field(INT, 0, printed=NONDEFAULT)


@irdl_attr_definition
class GatherDimensionNumbersAttr(DescribedAttr):
    """Dimension numbers of gather / dynamic_gather (spec.md#gather)."""

    name = "stablehlo.gather"
    STRUCT = GatherDimensionNumbers
    SYNTAX = DIMS_STRUCT
    BYTECODE = 7

    @property
    def dims(self) -> GatherDimensionNumbers:
        return self.data  # type: ignore[return-value]
