"""MLIR's `shape` dialect ops beyond `shape.shape_of` (which is in shape_computation.py), in MLIR's
syntax:

    %0 = shape.const_shape [4, 32] : tensor<2xindex>
    %1 = shape.const_shape {mhlo.sharding = "{replicated}"} [4, 8] : tensor<2xindex>

`shape.const_shape` is a constant shape (ConstantLike in MLIR: its folded value is its `shape`, a
tensor of index).  Only the extent-tensor result types (`tensor<Nxindex>`, `tensor<?xindex>`) are
modelled; `!shape.shape` is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, TensorType
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.registry import FOREIGN_SYNTAX, ForeignSyntax
from stablehlo_py.ir.text.dense import dense_values, make_dense
from stablehlo_py.ir.types import tensor_type

if TYPE_CHECKING:
    from xdsl.ir import Operation

    from stablehlo_py.ir.text.parser import Parser

__all__ = ["OPS", "ConstShapeOp"]


@irdl_op_definition
class ConstShapeOp(IRDLOperation):
    """`shape.const_shape`: a constant shape (its extents as a `tensor<Nxindex>`)."""

    name = "shape.const_shape"
    shape = prop_def(DenseIntOrFPElementsAttr)
    result = result_def()
    traits = traits_def(Pure())

    def extents(self) -> list[int]:
        return [int(v) for v in np.asarray(dense_values(self.shape)).reshape(-1)]

    def verify_(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        t = self.result.type
        if not isinstance(t, TensorType) or not isinstance(t.element_type, IndexType):
            raise VerifyException(
                f"'shape.const_shape' op result #0 must be shape or extent tensor, but got '{t}'"
            )
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] not in (-1, len(self.extents())):
            raise VerifyException(
                f"'shape.const_shape' op inferred type(s) 'tensor<{len(self.extents())}xindex>' "
                f"are incompatible with return type(s) of operation '{t}'"
            )


def _parse_const_shape(p: Parser) -> Operation:
    attrs = p.try_attr_dict()
    p.parse_literal("[")
    extents: list[int] = []
    if not p.try_literal("]"):
        extents.append(p.parse_integer("an extent"))
        while p.try_literal(","):
            extents.append(p.parse_integer("an extent"))
        p.parse_literal("]")
    p.parse_literal(":")
    result = p.parse_type()
    t = tensor_type(IndexType(), (len(extents),))
    value = make_dense(t, np.array(extents, dtype=np.int64))
    return ConstShapeOp.create(properties={"shape": value}, result_types=[result], attributes=attrs)


def _print_const_shape(op: Operation, pr) -> None:
    assert isinstance(op, ConstShapeOp)
    pr.write(pr.op_name(op.name) + " ")
    pr.attr_dict(dict(op.attributes))
    pr.write("[" + ", ".join(str(v) for v in op.extents()) + "] : ")
    pr.type(op.results[0].type)


FOREIGN_SYNTAX[ConstShapeOp] = ForeignSyntax(_parse_const_shape, _print_const_shape)

OPS = (ConstShapeOp,)
