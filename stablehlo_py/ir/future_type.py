"""`!stablehlo.future<...>` (`FutureType`), the type `stablehlo.async_start` produces.

A leaf below both users: `stablehlo_py.ir.ops.collectives` (the async ops, the type's parser) and
`stablehlo_py.ir.infer.collectives` (async_start's rule builds it), which import each other in one
direction only (the ops call the rules' verifiers).  `ir.ops.collectives` re-exports it.
"""

from __future__ import annotations

from xdsl.ir import Attribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition

from stablehlo_py.ir.attributes import MlirTextData


@irdl_attr_definition
class FutureType(MlirTextData, TypeAttribute):
    """`!stablehlo.future<tensor<4xf32>, ...>`: the values an `async_start` will produce."""

    name = "stablehlo.future"

    def __init__(self, types: tuple[Attribute, ...] | list[Attribute]) -> None:
        super().__init__(tuple(types))

    @property
    def types(self) -> tuple[Attribute, ...]:
        return self.data  # type: ignore[return-value]

    def mlir_text(self) -> str:
        from stablehlo_py.ir.text.printer import type_to_str

        return "!stablehlo.future<" + ", ".join(type_to_str(t) for t in self.types) + ">"
