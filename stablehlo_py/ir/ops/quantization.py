"""Quantization and bit-level conversion ops (spec.md: uniform_quantize, uniform_dequantize,
reduce_precision, bitcast_convert).

Syntax is upstream's:

    %0 = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>
    %1 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>) -> tensor<2xf32>
    %2 = stablehlo.reduce_precision %x, format = e5m10 : tensor<2xf32>
    %3 = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2xi32>

The `!quant.uniform` element type itself is `stablehlo_py.ir.types.UniformQuantizedType`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.dialects.builtin import ComplexType, IntegerAttr
from xdsl.ir import Operation
from xdsl.irdl import operand_def, result_def, traits_def
from xdsl.traits import Pure

from stablehlo_py.ir.format import custom_directive, set_slot
from stablehlo_py.ir.verify import ods_types as ods
from stablehlo_py.ir.ops.base import I32, I32_ATTR, PureOp, StableHLOOp, op_def, prop
from stablehlo_py.ir.verify.constraints import (
    fail,
    num_bits,
    quantized_element,
    shapes_compatible,
    t2s,
)
from stablehlo_py.ir.ops.elementwise import verify_compatible_types, verify_same_shape
from stablehlo_py.ir.types import element_type, shape_of

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


class _QuantizeConversion(StableHLOOp):
    """uniform_quantize and uniform_dequantize: one operand, one result of its shape."""

    operand = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = (
        "$operand attr-dict `:` custom<SameOperandsAndResultType>(type($operand), type($result))"
    )


@op_def
class UniformQuantizeOp(_QuantizeConversion):
    """Quantizes a floating-point `operand` (or requantizes a quantized one) (spec.md#uniform_quantize)."""

    name = "stablehlo.uniform_quantize"

    def verify_(self) -> None:
        ot, rt = self.operand.type, self.result.type
        # upstream's ODS constraints first: uniform_quantize_i1, uniform_quantize_c1
        ods.check_values("operand", [ot], ods.HLO_FloatOrQuantizedIntOrPerAxisQuantizedIntTensor)
        ods.check_values("result", [rt], ods.HLO_QuantizedIntOrPerAxisQuantizedIntTensor)
        rq = quantized_element(rt)
        assert rq is not None
        oe = element_type(ot)
        oq = quantized_element(ot)
        # uniform_quantize_c1 (SameOperandsAndResultShape; upstream does not infer this op's type)
        verify_same_shape(self)
        # uniform_quantize_c2 (upstream's verifyUniformQuantizeOp)
        expected = oq.params.expressed_type if oq is not None else oe
        if rq.params.expressed_type != expected:
            fail(
                f"Expressed type of result expected to be {t2s(expected)}, but got {t2s(rq.params.expressed_type)}"
            )


@op_def
class UniformDequantizeOp(_QuantizeConversion):
    """Converts a quantized `operand` to its expressed type (spec.md#uniform_dequantize)."""

    name = "stablehlo.uniform_dequantize"

    # uniform_dequantize_c1, uniform_dequantize_c2: the inferred type (the operand's shape, its
    # expressed type) against the declared one, between verify_ and verify_after_inference_
    INFER_CHECK: ClassVar[str | None] = "after"

    def verify_(self) -> None:
        ot = self.operand.type
        # uniform_dequantize_i1 (upstream's ODS constraints, before the traits)
        ods.check_values("operand", [ot], ods.HLO_QuantizedIntOrPerAxisQuantizedIntTensor)
        ods.check_values("result", [self.result.type], ods.HLO_FpTensor)

    def verify_after_inference_(self) -> None:
        verify_same_shape(self)


@custom_directive("ExponentMantissa")
class ExponentMantissa:
    """`e5m10` for exponent_bits = 5, mantissa_bits = 10 (print/parseExponentMantissa)."""

    @staticmethod
    def print(pr: Printer, op: Operation, exponent: IntegerAttr, mantissa: IntegerAttr) -> None:
        pr.write(f"e{exponent.value.data}m{mantissa.value.data}")

    @staticmethod
    def parse(p: Parser, st: Any, exponent_arg: Any, mantissa_arg: Any) -> None:
        import re

        p.ws()
        pos = p.pos
        word = p.parse_keyword()
        m = re.fullmatch(r"e([0-9]+)m([0-9]+)", word)
        if not m:
            p.op_error(f"expected exponent mantissa in format e#m#, saw {word}", pos)
        for what, digits in (("exponent", m.group(1)), ("mantissa", m.group(2))):
            if int(digits) > 2**31 - 1:  # upstream reads them as a C++ int
                p.op_error(f"unable to parse {what} '{digits}'", pos)
        set_slot(st, exponent_arg, IntegerAttr(int(m.group(1)), I32))
        set_slot(st, mantissa_arg, IntegerAttr(int(m.group(2)), I32))


@op_def
class ReducePrecisionOp(PureOp):
    """Rounds `operand` to a float type with `exponent_bits` and `mantissa_bits` (spec.md#reduce_precision)."""

    name = "stablehlo.reduce_precision"
    operand = operand_def()
    exponent_bits = prop(I32_ATTR)
    mantissa_bits = prop(I32_ATTR)
    output = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `format` `=` custom<ExponentMantissa>($exponent_bits, $mantissa_bits) attr-dict "
        "`:` custom<SameOperandsAndResultType>(type($operand), type($output))"
    )

    def verify_(self) -> None:
        e, m = self.exponent_bits.value.data, self.mantissa_bits.value.data
        # reduce_precision_c2, reduce_precision_c3: upstream's ODS attribute constraints, checked
        # before the traits
        if e < 1:
            fail(
                "attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer attribute "
                "whose value is positive"
            )
        if m < 0:
            fail(
                "attribute 'mantissa_bits' failed to satisfy constraint: 32-bit signless integer attribute "
                "whose value is non-negative"
            )
        # ODS: HLO_FpOrQuantizedIntTensor operand and result
        ods.check_values("operand", [self.operand.type], ods.HLO_FpOrQuantizedIntTensor)
        ods.check_values("result", [self.output.type], ods.HLO_FpOrQuantizedIntTensor)
        # MLIR's Elementwise trait (verifyElementwise), before HLO_CompatibleOperandsAndResultType
        if not shapes_compatible(shape_of(self.operand.type), shape_of(self.output.type)):
            fail("all non-scalar operands/results must have the same shape and base type")
        # reduce_precision_c1: the CompatibleOperandsAndResultType trait, then the inference
        # check, which MLIR runs after the traits
        verify_compatible_types(self)


@op_def
class BitcastConvertOp(StableHLOOp):
    """Reinterprets the bits of `operand` as another element type (spec.md#bitcast_convert)."""

    name = "stablehlo.bitcast_convert"
    operand = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar[str | None] = "operands attr-dict `:` functional-type(operands, results)"

    def verify_(self) -> None:
        """upstream's ODS constraints, then verifyBitcastConvertOp (its words and order)."""
        ot, rt = self.operand.type, self.result.type
        ods.check_values("operand", [ot], ods.HLO_TensorOrPerAxisQuantizedTensor)
        ods.check_values("result", [rt], ods.HLO_TensorOrPerAxisQuantizedTensor)
        oe, re_ = element_type(ot), element_type(rt)
        # bitcast_convert_c2
        if isinstance(oe, ComplexType) != isinstance(re_, ComplexType):
            fail(
                f"cannot convert between real and complex types, but got: '{t2s(ot)}' and '{t2s(rt)}'"
            )
        # bitcast_convert_c1
        eb, rb = num_bits(oe), num_bits(re_)
        os_, rs = shape_of(ot), shape_of(rt)
        if eb is None or rb is None or os_ is None or rs is None:
            return
        small, big = (os_, rs) if eb < rb else (rs, os_)
        small_bits, big_bits = min(eb, rb), max(eb, rb)
        prefix = small
        if eb != rb:
            if len(small) != len(big) + 1:
                fail(
                    f"rank of smaller element type ({len(small)}) should be 1 more than rank of larger "
                    f"element type ({len(big)}), but {len(small)} != {len(big)} + 1."
                )
            prefix = small[:-1]
            if small[-1] >= 0 and small[-1] * small_bits != big_bits:
                fail(
                    f"requires compatible bit widths. Got: '{t2s(ot)}' and '{t2s(rt)}', but {small_bits} * "
                    f"{small[-1]} != {big_bits}."
                )
        if not all(a < 0 or b < 0 or a == b for a, b in zip(prefix, big, strict=False)):
            fail(
                "operand and result shapes must match except for the innermost dimension of the shape "
                f"with the smaller element type. Got: '{t2s(ot)}' and '{t2s(rt)}'."
            )


OPS = (UniformQuantizeOp, UniformDequantizeOp, ReducePrecisionOp, BitcastConvertOp)
