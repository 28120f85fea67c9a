"""`#stablehlo.scatter<...>`: the dimension numbers of scatter (spec.md#scatter); text as gather's
(`gather.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.gather import DIMS_STRUCT
from stablehlo_py.ir.attrs.struct import INT, LOOSE_DIMS, NONDEFAULT, NONEMPTY, DescribedAttr, field


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    update_window_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    inserted_window_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    input_batching_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    scatter_indices_batching_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    scatter_dims_to_operand_dims: tuple[int, ...] = field(LOOSE_DIMS, (), printed=NONEMPTY)
    index_vector_dim: int = field(INT, 0, printed=NONDEFAULT)


@irdl_attr_definition
class ScatterDimensionNumbersAttr(DescribedAttr):
    """Dimension numbers of scatter (spec.md#scatter)."""

    name = "stablehlo.scatter"
    STRUCT = ScatterDimensionNumbers
    SYNTAX = DIMS_STRUCT
    BYTECODE = 11

    @property
    def dims(self) -> ScatterDimensionNumbers:
        return self.data  # type: ignore[return-value]
