"""The patterns of `stablehlo-legalize-quant-to-math` (passes/stablehlo_legalize_quant_to_math.py):
`emit` (quantized-type queries, the op emitter), `patterns` (quantize, dequantize, add, the
dequantize-op-quantize fallback), `dot_like` (dot, dot_general, convolution)."""
