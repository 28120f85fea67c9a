"""`#stablehlo.type_extensions<bounds = [3, ?]>`: a tensor type's encoding giving the bound of each
dynamic dimension (`?`: none). The IR's class is ``stablehlo_py.ir.types.TypeExtensionsAttr`` (tensor
types hold it, below this package), whose value is ``Bounds``; it prints upstream's short form
`#stablehlo.bounds<3, ?>`, which the parser reads too. This is its description: one field,
`bounds` (dimension sizes), upstream's syntax, its kind code in upstream's bytecode."""

from __future__ import annotations

from stablehlo_py.ir.attrs.struct import DIM_SIZES, FixedOrder, describe_data
from stablehlo_py.ir.types import Bounds, TypeExtensionsAttr

TYPE_EXTENSIONS = describe_data(
    TypeExtensionsAttr, "type_extensions", Bounds, {"bounds": DIM_SIZES}, FixedOrder(), 13
)
