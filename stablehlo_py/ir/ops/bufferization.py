"""MLIR's `bufferization.to_tensor` and `bufferization.to_buffer`, in MLIR's syntax (upstream's
signless-conversion test moves values between buffers and tensors):

    %0 = bufferization.to_tensor %m : memref<4xi16> to tensor<4xi16>
    %1 = bufferization.to_tensor %m restrict writable : memref<4xi16> to tensor<4xi16>
    %2 = bufferization.to_buffer %t read_only : tensor<4xi16> to memref<4xi16>

The tensor type is the buffer type's tensor equivalent (same shape, or both unranked, and the same
element type).  `to_tensor` reads its buffer (an unused one is dead code); `to_buffer` is pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    MemRefType,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import MemoryReadEffect, Pure

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

__all__ = ["OPS", "ToBufferOp", "ToTensorOp", "tensor_equivalent"]

_BUFFER = MemRefType | UnrankedMemRefType
_TENSOR = TensorType | UnrankedTensorType


def tensor_equivalent(buffer: Attribute) -> Attribute | None:
    """The tensor type of a memref type's shape and element type."""
    if isinstance(buffer, MemRefType):
        return TensorType(buffer.element_type, buffer.get_shape())
    if isinstance(buffer, UnrankedMemRefType):
        return UnrankedTensorType(buffer.element_type)
    return None


def _same_tensor(a: Attribute, b: Attribute) -> bool:
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return a.element_type == b.element_type and a.get_shape() == b.get_shape()
    return a == b


class _BufferizationOp(IRDLOperation):
    """The two conversions (undecorated family base): `TENSOR` names the tensor-typed value, which
    must have the tensor equivalent of the `buffer` value's type."""

    TENSOR: ClassVar[str]

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        want = tensor_equivalent(self.buffer.type)  # type: ignore[attr-defined]
        if want is None or not _same_tensor(want, getattr(self, self.TENSOR).type):
            raise VerifyException(
                f"'{self.name}' op failed to verify that type of '{self.TENSOR}' matches the "
                "tensor equivalent of 'buffer'"
            )


@irdl_op_definition
class ToTensorOp(_BufferizationOp):
    """`bufferization.to_tensor`: a tensor with the contents of a buffer."""

    name = "bufferization.to_tensor"
    buffer = operand_def(_BUFFER)
    result = result_def(_TENSOR)
    restrict = opt_prop_def(UnitAttr)
    writable = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryReadEffect())
    TENSOR: ClassVar[str] = "result"


@irdl_op_definition
class ToBufferOp(_BufferizationOp):
    """`bufferization.to_buffer`: a buffer holding a tensor's contents."""

    name = "bufferization.to_buffer"
    tensor = operand_def(_TENSOR)
    buffer = result_def(_BUFFER)
    read_only = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    TENSOR: ClassVar[str] = "tensor"


def _syntax(cls: type[Operation]) -> ForeignSyntax:
    # the op's properties are its optional unit flags, declared in the order its syntax writes them
    flags = tuple(cls.get_irdl_definition().properties)  # type: ignore[attr-defined]

    def parse(p: Parser) -> Operation:
        source = p.parse_operand()
        props: dict[str, Attribute] = {}
        for flag in flags:
            if p.try_keyword(flag):
                props[flag] = UnitAttr()
        attrs = p.try_attr_dict()
        written, pos = p.parse_written_type()
        if written != source.type:
            p.error(f"{cls.name}: the source type does not match the operand's type", pos)  # type: ignore[attr-defined]
        p.parse_keyword("to")
        result = p.parse_type()
        return cls.create(
            operands=[source], result_types=[result], properties=props, attributes=attrs
        )

    def print_(op: Operation, pr: Printer) -> None:
        pr.write(pr.op_name(op.name) + " ")
        pr.operand(op.operands[0])
        for flag in flags:
            if flag in op.properties:
                pr.write(f" {flag}")
        pr.attr_dict(dict(op.attributes))
        pr.write(" : ")
        pr.type(op.operands[0].type)
        pr.write(" to ")
        pr.type(op.results[0].type)

    return ForeignSyntax(parse, print_)


for _cls in (ToTensorOp, ToBufferOp):
    FOREIGN_SYNTAX[_cls] = _syntax(_cls)
OPS = (ToTensorOp, ToBufferOp)
