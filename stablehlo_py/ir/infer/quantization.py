"""Result-type inference rules of the quantization ops (upstream's TypeInference.cpp `infer*Op`).

* reduce_precision: upstream's CompatibleOperandsAndResultType trait, the operand's (most specific)
  type;
* uniform_dequantize: ``inferUniformDequantizeOp``, the operand's shape (without its encoding, as
  upstream's shape components give it) with the expressed type of its quantized element type.

uniform_quantize and bitcast_convert have no rule: upstream does not infer their result types
(uniform_quantize's result element type is the op's choice of quantization parameters, and
bitcast_convert only reifies shapes); their verifiers check them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, UnrankedTensorType
from xdsl.ir import Attribute

from stablehlo_py.ir.infer.elementwise import most_specific_of
from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.types import UniformQuantizedType, tensor_type


@rule("stablehlo.reduce_precision")
def _reduce_precision(inp: InferInput) -> list[Attribute]:
    # reduce_precision_c1
    return most_specific_of(inp.operand_types)


@rule("stablehlo.uniform_dequantize")
def _uniform_dequantize(inp: InferInput) -> list[Attribute]:
    # uniform_dequantize_c1, uniform_dequantize_c2
    if len(inp.operand_types) != 1:
        raise InferError(f"expected 1 operand, but got {len(inp.operand_types)}")
    t = inp.operand_types[0]
    e = t.element_type if isinstance(t, (TensorType, UnrankedTensorType)) else None
    if not isinstance(e, UniformQuantizedType):
        from stablehlo_py.ir.text.printer import type_to_str

        # upstream's ODS constraint (uniform_dequantize_i1) rejects this before inference runs
        raise InferError(f"operand {type_to_str(t)} must be a tensor of quantized type")
    expressed = e.params.expressed_type
    if isinstance(t, UnrankedTensorType):
        return [UnrankedTensorType(expressed)]
    return [tensor_type(expressed, t.get_shape())]
