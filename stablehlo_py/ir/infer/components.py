"""Shape-only inference (upstream's ``inferReturnTypeComponents``: ``ShapedTypeComponents``), built on
the rules of this package.

Where upstream infers only a result's shape -- and its bounds encoding -- but not its element type, the
callers (shape refinement) keep the element type of the op's declared result.  Those ops are:
* ``convert``: the operand's shape and encoding (``inferConvertOp``);
* ``uniform_quantize``: the operand's shape (``inferUniformQuantizeOp``);
* ``dot``, ``dot_general``, ``convolution``, ``dynamic_conv``, ``chlo.ragged_dot``: their rule's shape
  and encoding (the rule's element type, the lhs's, is not what upstream's components carry).
Every other op with a rule has the rule's full types as its components.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import NoneAttr, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from stablehlo_py.ir.infer import infer_op

__all__ = [
    "SHAPE_ONLY_RULES",
    "Components",
    "components_of_type",
    "has_components",
    "infer_components",
]


@dataclass(frozen=True)
class Components:
    """upstream's ShapedTypeComponents: a shape (None: unranked), an element type (None: not
    inferred) and an encoding attribute (None: none)."""

    shape: tuple[int, ...] | None
    element: Attribute | None = None
    encoding: Attribute | None = None

    @property
    def has_rank(self) -> bool:
        return self.shape is not None


def components_of_type(
    t: Attribute, *, with_element: bool = True, with_encoding: bool = True
) -> Components:
    """The components of a type (an unranked tensor has no shape)."""
    if isinstance(t, TensorType):
        enc = t.encoding
        encoding = None if isinstance(enc, NoneAttr) or not with_encoding else enc
        return Components(tuple(t.get_shape()), t.element_type if with_element else None, encoding)
    if isinstance(t, UnrankedTensorType):
        return Components(None, t.element_type if with_element else None)
    return Components(None, t if with_element else None)


def _operand_shape(op: Operation, *, with_encoding: bool) -> list[Components]:
    return [
        components_of_type(op.operands[0].type, with_element=False, with_encoding=with_encoding)
    ]


def _rule_shape(op: Operation) -> list[Components]:
    return [components_of_type(t, with_element=False) for t in infer_op(op)]


SHAPE_ONLY_RULES = {
    "stablehlo.convert": lambda op: _operand_shape(op, with_encoding=True),
    "stablehlo.uniform_quantize": lambda op: _operand_shape(op, with_encoding=False),
    "stablehlo.dot": _rule_shape,
    "stablehlo.dot_general": _rule_shape,
    "stablehlo.convolution": _rule_shape,
    "stablehlo.dynamic_conv": _rule_shape,
    "chlo.ragged_dot": _rule_shape,
}
"""Ops whose upstream components carry a shape (and encoding) but no element type."""


def has_components(op_name: str) -> bool:
    from stablehlo_py.ir.infer import has_rule

    return op_name in SHAPE_ONLY_RULES or has_rule(op_name)


def infer_components(op: Operation) -> list[Components]:
    """upstream's inferReturnTypeComponents for ``op``; raises InferError (the rule's message) or
    KeyError when the op has neither a rule nor a shape-only entry."""
    shape_only = SHAPE_ONLY_RULES.get(op.name)
    if shape_only is not None:
        return shape_only(op)
    return [components_of_type(t) for t in infer_op(op)]
