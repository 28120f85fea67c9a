"""Result-type inference rules of the misc ops (upstream's TypeInference.cpp `infer*Op`).

* constant: the type of its ``value`` (``inferConstantOp``).  Upstream's ConstantOp compares the
  declared type with it by its own ``isCompatibleReturnTypes`` (equality, a quantized result
  compared through its storage type), see :func:`constant_types_compatible`.

custom_call has no rule: upstream infers nothing for it (its results are the target's).
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Attribute

from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.types import UniformQuantizedType

__all__ = ["constant_types_compatible"]


@rule("stablehlo.constant")
def _constant(inp: InferInput) -> list[Attribute]:
    value = inp.attr("value")
    if value is None:
        raise InferError("requires attribute 'value'")
    t = getattr(value, "type", None)
    if not isinstance(t, Attribute):
        raise InferError("attribute 'value' has no type")
    return [t]


def constant_types_compatible(inferred: Attribute, declared: Attribute) -> bool:
    """upstream's ConstantOp::isCompatibleReturnTypes: both shaped and equal, a quantized declared
    type standing for the tensor of its storage type."""
    shaped = (TensorType, UnrankedTensorType)
    if not isinstance(inferred, shaped) or not isinstance(declared, shaped):
        return False
    e = declared.element_type
    if isinstance(e, UniformQuantizedType):
        from stablehlo_py.ir.infer.elementwise import same_shape_with_element

        declared = same_shape_with_element(declared, e.params.storage_type)
    return inferred == declared
