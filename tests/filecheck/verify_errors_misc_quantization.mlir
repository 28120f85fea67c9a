// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the misc and quantization ops (constant, custom_call, bitcast_convert, reduce_precision, uniform_quantize, uniform_dequantize), each error in upstream's words.

// -----

func.func @bitcast_convert(%a: tensor<2xf32>) {
  // expected-error @+1 {{rank of smaller element type (1) should be 1 more than rank of larger element type (1), but 1 != 1 + 1.}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----

func.func @bitcast_convert(%a: tensor<2xf32>) {
  // expected-error @+1 {{rank of smaller element type (1) should be 1 more than rank of larger element type (2), but 1 != 2 + 1.}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2x2xf64>
  return
}

// -----

func.func @bitcast_convert(%a: tensor<2xf32>) {
  // expected-error @+1 {{cannot convert between real and complex types, but got: 'tensor<2xf32>' and 'tensor<2xcomplex<f32>>'}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xcomplex<f32>>
  return
}

// -----

func.func @bitcast_convert(%a: tensor<2xf32>) {
  // expected-error @+1 {{requires compatible bit widths. Got: 'tensor<2xf32>' and 'tensor<2x3xi16>', but 16 * 3 != 32.}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2x3xi16>
  return
}

// -----

func.func @constant() {
  // expected-error @+2 {{'stablehlo.constant' op failed to infer returned types}}
  // expected-error @+1 {{'stablehlo.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf64>'}}
  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf64>
  return
}

// -----

func.func @custom_call(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op backend_config for api_version API_VERSION_ORIGINAL must be a string attribute.}}
  %0 = stablehlo.custom_call @foo(%a) {backend_config = {}} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @custom_call(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op incorrect layout dense<0> : tensor<2xindex> for type 'tensor<2x3xf32>', layout must be a permutation of [0, 2)}}
  %0 = stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[0, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @custom_call(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op Layout attributes should be specified for either both operands and results or none.}}
  %0 = stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @custom_call(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op expects operandIndex in the output_operand_alias attribute to be in range [0, 1); got: 1.}}
  %0 = stablehlo.custom_call @foo(%a) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @custom_call(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op shapes mismatch in the output_operand_alias attribute: operand part has type 'tensor<2x3xf32>' and output part has type 'tensor<2x3xf64>'}}
  %0 = stablehlo.custom_call @foo(%a) {output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]} : (tensor<2x3xf32>) -> tensor<2x3xf64>
  return
}

// -----

func.func @uniform_dequantize(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @uniform_quantize(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.uniform_quantize' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xi32>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @reduce_precision(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.reduce_precision' op attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %0 = stablehlo.reduce_precision %a, format = e0m2 : tensor<2xf32>
  return
}

// -----

func.func @custom_call(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op backend_config for api_version API_VERSION_TYPED_FFI must be a dictionary attribute.}}
  %0 = stablehlo.custom_call @foo(%a) {api_version = 4 : i32, backend_config = "x"} : (tensor<2xf32>) -> tensor<2xf32>
  return
}
