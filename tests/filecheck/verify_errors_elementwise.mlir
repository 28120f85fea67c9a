// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the elementwise ops: one chunk per op, each error in upstream's words (ODS type constraints, traits, TypeInference.cpp).

// -----

func.func @abs(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.abs' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit signless integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.abs %a : tensor<2xi1>
  return
}

// -----

func.func @add(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.add' op requires the same shape for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @and(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.and' op operand #0 must be ranked tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.and %a, %a : tensor<2xf32>
  return
}

// -----

func.func @atan2(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.atan2' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.atan2 %a, %a : tensor<2xi32>
  return
}

// -----

func.func @cbrt(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.cbrt' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.cbrt %a : tensor<2xi32>
  return
}

// -----

func.func @ceil(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.ceil' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.ceil %a : tensor<2xi32>
  return
}

// -----

func.func @convert(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.convert' op requires the same shape for all operands and results}}
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @cosine(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.cosine' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.cosine %a : tensor<2xi32>
  return
}

// -----

func.func @count_leading_zeros(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.count_leading_zeros' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.count_leading_zeros %a : tensor<2xf32>
  return
}

// -----

func.func @divide(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.divide' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.divide %a, %a : tensor<2xi1>
  return
}

// -----

func.func @exponential(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.exponential' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.exponential %a : tensor<2xi32>
  return
}

// -----

func.func @exponential_minus_one(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.exponential_minus_one' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.exponential_minus_one %a : tensor<2xi32>
  return
}

// -----

func.func @floor(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.floor' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.floor %a : tensor<2xi32>
  return
}

// -----

func.func @imag(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+2 {{'stablehlo.imag' op failed to infer returned types}}
  // expected-error @+1 {{'stablehlo.imag' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf64>'}}
  %0 = stablehlo.imag %a : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----

func.func @is_finite(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.is_finite' op result #0 must be ranked tensor of bool values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.is_finite %a : (tensor<2xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @log(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.log' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.log %a : tensor<2xi32>
  return
}

// -----

func.func @log_plus_one(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.log_plus_one' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.log_plus_one %a : tensor<2xi32>
  return
}

// -----

func.func @logistic(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.logistic' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.logistic %a : tensor<2xi32>
  return
}

// -----

func.func @negate(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.negate' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.negate %a : tensor<2xi1>
  return
}

// -----

func.func @not(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.not' op operand #0 must be ranked tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.not %a : tensor<2xf32>
  return
}

// -----

func.func @or(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.or' op operand #0 must be ranked tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.or %a, %a : tensor<2xf32>
  return
}

// -----

func.func @popcnt(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.popcnt' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.popcnt %a : tensor<2xf32>
  return
}

// -----

func.func @power(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.power' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.power %a, %a : tensor<2xi1>
  return
}

// -----

func.func @real(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+2 {{'stablehlo.real' op failed to infer returned types}}
  // expected-error @+1 {{'stablehlo.real' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf64>'}}
  %0 = stablehlo.real %a : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----

func.func @remainder(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.remainder' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.remainder %a, %a : tensor<2xi1>
  return
}

// -----

func.func @round_nearest_afz(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.round_nearest_afz' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.round_nearest_afz %a : tensor<2xi32>
  return
}

// -----

func.func @round_nearest_even(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.round_nearest_even' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.round_nearest_even %a : tensor<2xi32>
  return
}

// -----

func.func @rsqrt(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.rsqrt' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.rsqrt %a : tensor<2xi32>
  return
}

// -----

func.func @shift_left(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.shift_left' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.shift_left %a, %a : tensor<2xf32>
  return
}

// -----

func.func @shift_right_arithmetic(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.shift_right_arithmetic' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.shift_right_arithmetic %a, %a : tensor<2xf32>
  return
}

// -----

func.func @shift_right_logical(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.shift_right_logical' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.shift_right_logical %a, %a : tensor<2xf32>
  return
}

// -----

func.func @sign(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.sign' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit signless integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.sign %a : tensor<2xi1>
  return
}

// -----

func.func @sine(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.sine' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.sine %a : tensor<2xi32>
  return
}

// -----

func.func @sqrt(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.sqrt' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.sqrt %a : tensor<2xi32>
  return
}

// -----

func.func @subtract(%a: tensor<2xi1>) {
  // expected-error @+1 {{'stablehlo.subtract' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi1>'}}
  %0 = stablehlo.subtract %a, %a : tensor<2xi1>
  return
}

// -----

func.func @tan(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.tan' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.tan %a : tensor<2xi32>
  return
}

// -----

func.func @tanh(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.tanh' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.tanh %a : tensor<2xi32>
  return
}

// -----

func.func @xor(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.xor' op operand #0 must be ranked tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.xor %a, %a : tensor<2xf32>
  return
}

// -----

func.func @compare(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.compare' op result #0 must be ranked tensor of bool values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.compare LT, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>
  return
}

// -----

func.func @maximum(%a: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.maximum' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got '!stablehlo.token'}}
  %0 = "stablehlo.maximum"(%a, %a) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @minimum(%a: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.minimum' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got '!stablehlo.token'}}
  %0 = "stablehlo.minimum"(%a, %a) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @multiply(%a: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.multiply' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got '!stablehlo.token'}}
  %0 = "stablehlo.multiply"(%a, %a) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  return
}
