"""`#stablehlo.dot<...>`: the dimension numbers of dot_general (spec.md#dot_general).

`#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],
lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>`: upstream's printStruct (a list
only when it is not empty); parseStruct takes the fields in any order, each at most once. (Inside
dot_general the op's own syntax writes `batching_dims = [0] x [0], contracting_dims = [2] x [1]`:
ir/ops/linalg.py.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attrs.struct import DIMS, NONEMPTY, DescribedAttr, field


@dataclass(frozen=True)
class DotDimensionNumbers:
    lhs_batching_dimensions: tuple[int, ...] = field(DIMS, (), printed=NONEMPTY)
    rhs_batching_dimensions: tuple[int, ...] = field(DIMS, (), printed=NONEMPTY)
    lhs_contracting_dimensions: tuple[int, ...] = field(DIMS, (), printed=NONEMPTY)
    rhs_contracting_dimensions: tuple[int, ...] = field(DIMS, (), printed=NONEMPTY)


@irdl_attr_definition
class DotDimensionNumbersAttr(DescribedAttr):
    """Dimension numbers of dot_general (spec.md#dot_general)."""

    name = "stablehlo.dot"
    STRUCT = DotDimensionNumbers
    BYTECODE = 5

    def __init__(self, data: DotDimensionNumbers | None = None, **kw: Any) -> None:
        if data is None:
            data = DotDimensionNumbers(**{k: tuple(v) for k, v in kw.items()})
        super().__init__(data)

    @property
    def dims(self) -> DotDimensionNumbers:
        return self.data
