"""einsum and unary_einsum: deprecated but still in the opset (spec.md lists them as "to be removed";
they round-trip and verify, and the interpreter rejects them with a clear message)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import STR_ATTR, StableHLOOp, op_def, prop


class _EinsumBase(StableHLOOp):
    """The einsum family: operands (each op's own), the summation `einsum_config` and one result.
    Upstream verifies only the ODS constraints: HLO_Tensor operands and result."""

    einsum_config = prop(STR_ATTR)
    result = result_def()
    traits = traits_def(Pure())

    def verify_(self) -> None:
        ods.check_values("operand", [v.type for v in self.operands], ods.HLO_Tensor)
        ods.check_values("result", [r.type for r in self.results], ods.HLO_Tensor)


@op_def
class EinsumOp(_EinsumBase):
    """Einstein summation of `lhs` and `rhs` by `einsum_config` (deprecated; use dot_general)."""

    name = "stablehlo.einsum"
    lhs = operand_def()
    rhs = operand_def()
    FORMAT: ClassVar[str | None] = (
        "$lhs `,` $rhs `,` `config` `=` $einsum_config attr-dict `:` functional-type(operands, results)"
    )


@op_def
class UnaryEinsumOp(_EinsumBase):
    """Einstein summation of one `operand` by `einsum_config` (deprecated)."""

    name = "stablehlo.unary_einsum"
    operand = operand_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `config` `=` $einsum_config attr-dict `:` functional-type(operands, results)"
    )


OPS = (EinsumOp, UnaryEinsumOp)
