"""MLIR's `memref.cast`, in MLIR's syntax (upstream's signless-conversion test casts buffers):

    %cast = memref.cast %arg0 : memref<*xi16> to memref<i16>

Memref types here have the identity layout and no memory space (the parser refuses others), so
MLIR's cast compatibility is: ranked to ranked of the same element type and rank whose static
dimensions agree, or ranked to unranked (and back) of the same element type.
"""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType, UnrankedMemRefType
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.ops.tensor import cast_syntax
from stablehlo_py.ir.registry import FOREIGN_SYNTAX

__all__ = ["OPS", "MemRefCastOp", "are_cast_compatible"]


def are_cast_compatible(a: Attribute, b: Attribute) -> bool:
    """MLIR's memref::CastOp::areCastCompatible (identity layouts, no memory spaces)."""
    if isinstance(a, MemRefType) and isinstance(b, MemRefType):
        if a.element_type != b.element_type:
            return False
        sa, sb = a.get_shape(), b.get_shape()
        return len(sa) == len(sb) and all(x < 0 or y < 0 or x == y for x, y in zip(sa, sb))
    if not isinstance(a, (MemRefType, UnrankedMemRefType)):
        return False
    if not isinstance(b, (MemRefType, UnrankedMemRefType)):
        return False
    if isinstance(a, UnrankedMemRefType) and isinstance(b, UnrankedMemRefType):
        return False  # unranked to unranked casting is unsupported
    return a.element_type == b.element_type


@irdl_op_definition
class MemRefCastOp(IRDLOperation):
    """`memref.cast`: the same buffer with a more or less static type."""

    name = "memref.cast"
    source = operand_def(MemRefType | UnrankedMemRefType)
    dest = result_def(MemRefType | UnrankedMemRefType)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        from stablehlo_py.ir.text.spelling import type_to_str

        a, b = self.source.type, self.dest.type
        if not are_cast_compatible(a, b):
            raise VerifyException(
                f"'memref.cast' op operand type '{type_to_str(a)}' and result type "
                f"'{type_to_str(b)}' are cast incompatible"
            )

    def asm_result_names(self) -> str:
        return "cast"


FOREIGN_SYNTAX[MemRefCastOp] = cast_syntax(
    MemRefCastOp, "to", "memref.cast: the source type does not match the operand's type"
)
OPS = (MemRefCastOp,)
