// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the CHLO ops: ODS operand/result types, element-type traits, verifiers and inference, each exactly upstream's diagnostics (tests/oracle/test_negative_lit_upstream.py).

// -----

func.func @acos(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.acos' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.acos"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @acosh(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.acosh' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.acosh"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @asin(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.asin' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.asin"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @asinh(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.asinh' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.asinh"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @atan(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.atan' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.atan"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @atanh(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.atanh' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.atanh"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @bessel_i1e(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.bessel_i1e' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.bessel_i1e"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @conj(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.conj' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.conj"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @cosh(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.cosh' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.cosh"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @digamma(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.digamma' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi1>'}}
  %0 = "chlo.digamma"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @erf(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.erf' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi1>'}}
  %0 = "chlo.erf"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @erf_inv(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.erf_inv' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi1>'}}
  %0 = "chlo.erf_inv"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @erfc(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.erfc' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi1>'}}
  %0 = "chlo.erfc"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @lgamma(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.lgamma' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi1>'}}
  %0 = "chlo.lgamma"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @sinh(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.sinh' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.sinh"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @square(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.square' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.square"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @tan(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo.tan' op operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo.tan"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @asin_acos_kernel(%a: tensor<2xi1>) {
  // expected-error @+1 {{'chlo._asin_acos_kernel' op operand #0 must be tensor of complex type with 32/64-bit float elements values, but got 'tensor<2xi1>'}}
  %0 = "chlo._asin_acos_kernel"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return
}

// -----

func.func @is_inf(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.is_inf' op result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = "chlo.is_inf"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @is_neg_inf(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.is_neg_inf' op result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = "chlo.is_neg_inf"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @is_pos_inf(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.is_pos_inf' op result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = "chlo.is_pos_inf"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @next_after(%a: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.next_after' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = "chlo.next_after"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @polygamma(%a: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.polygamma' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = "chlo.polygamma"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @zeta(%a: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.zeta' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = "chlo.zeta"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @broadcast_and(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.broadcast_and' op operand #0 must be tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = "chlo.broadcast_and"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_or(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.broadcast_or' op operand #0 must be tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = "chlo.broadcast_or"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_xor(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.broadcast_xor' op operand #0 must be tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = "chlo.broadcast_xor"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_atan2(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_atan2' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_atan2"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_divide(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_divide' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_divide"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_multiply(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_multiply' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_multiply"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_power(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_power' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_power"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_remainder(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_remainder' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_remainder"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_subtract(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_subtract' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_subtract"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_maximum(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_maximum' op requires compatible element types for all operands and results}}
  %0 = "chlo.broadcast_maximum"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_minimum(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_minimum' op requires compatible element types for all operands and results}}
  %0 = "chlo.broadcast_minimum"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_zeta(%a: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_zeta' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = "chlo.broadcast_zeta"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @broadcast_complex(%a: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_complex' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = "chlo.broadcast_complex"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xcomplex<f32>>
  return
}

// -----

func.func @broadcast_compare(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.broadcast_compare' op result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = "chlo.broadcast_compare"(%a, %a) {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_select(%p: tensor<2xf32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.broadcast_select' op operand #0 must be ranked tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = "chlo.broadcast_select"(%p, %a, %a) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @constant() {
  // expected-error @+2 {{'chlo.constant' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'chlo.constant' op failed to infer returned types}}
  %0 = "chlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @broadcast_add(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{'chlo.broadcast_add' op requires compatible element types for all operands and results}}
  %0 = "chlo.broadcast_add"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_shift_left(%a: tensor<2xi32>, %b: tensor<2xi16>) {
  // expected-error @+1 {{'chlo.broadcast_shift_left' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_shift_left"(%a, %b) : (tensor<2xi32>, tensor<2xi16>) -> tensor<2xi32>
  return
}

// -----

func.func @broadcast_shift_right_arithmetic(%a: tensor<2xi32>, %b: tensor<2xi16>) {
  // expected-error @+1 {{'chlo.broadcast_shift_right_arithmetic' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_shift_right_arithmetic"(%a, %b) : (tensor<2xi32>, tensor<2xi16>) -> tensor<2xi32>
  return
}

// -----

func.func @broadcast_shift_right_logical(%a: tensor<2xi32>, %b: tensor<2xi16>) {
  // expected-error @+1 {{'chlo.broadcast_shift_right_logical' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_shift_right_logical"(%a, %b) : (tensor<2xi32>, tensor<2xi16>) -> tensor<2xi32>
  return
}

// -----

func.func @broadcast_next_after(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'chlo.broadcast_next_after' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_next_after"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_polygamma(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{'chlo.broadcast_polygamma' op requires the same element type for all operands and results}}
  %0 = "chlo.broadcast_polygamma"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return
}

// -----

func.func @mulhi(%a: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.mulhi' op operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = "chlo.mulhi"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @constant_like(%a: tensor<3xi32>) {
  // expected-error @+1 {{'chlo.constant_like' op value's type doesn't match element return type}}
  %0 = "chlo.constant_like"(%a) {value = 1.5 : f64} : (tensor<3xi32>) -> tensor<3xi32>
  return
}

// -----

func.func @top_k(%a: tensor<3xf32>) {
  // expected-error @+2 {{operand's last dimension must be at least 5}}
  // expected-error @+1 {{'chlo.top_k' op failed to infer returned types}}
  %0:2 = chlo.top_k(%a, k=5) : tensor<3xf32> -> (tensor<5xf32>, tensor<5xi32>)
  return
}

// -----

func.func @scan(%a: tensor<4x2xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'chlo.scan' op scan dimension of operand 0 is out of bounds}}
  %0:2 = chlo.scan(%a) inits (%i) dimension = 3 {
  ^bb0(%x: tensor<2xf32>, %c: tensor<2xf32>):
    %s = stablehlo.add %x, %c : tensor<2xf32>
    stablehlo.return %s, %s : tensor<2xf32>, tensor<2xf32>
  } : (tensor<4x2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @ragged_dot(%l: tensor<7x5xf32>, %r: tensor<2x5x3xf32>, %g: tensor<2x2xi64>) {
  // expected-error @+1 {{expected group_sizes to have rank 1, got 2}}
  %0 = "chlo.ragged_dot"(%l, %r, %g) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<7x5xf32>, tensor<2x5x3xf32>, tensor<2x2xi64>) -> tensor<7x3xf32>
  return
}
