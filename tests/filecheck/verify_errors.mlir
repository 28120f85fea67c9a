// Negative tests: one per op family; each error names the op, the values and the spec id.
// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
func.func @elementwise(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{'stablehlo.concatenate' op failed to infer returned types}}
  // expected-error @+1 {{shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @broadcast_in_dim(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce(%a: tensor<4x5xf32>, %init: tensor<f32>) -> tensor<4xf32> {
  // expected-error @+1 {{Out-of-bounds dimension 2, expected to be in range [0, 2)}}
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [2] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @while(%a: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expect condition block return a zero-ranked tensor of i1 but got 'tensor<i64>'}}
  %0 = stablehlo.while(%iterArg = %a) : tensor<i64>
  cond {
    stablehlo.return %iterArg : tensor<i64>
  } do {
    stablehlo.return %iterArg : tensor<i64>
  }
  return %0 : tensor<i64>
}

// -----

func.func @dot_general(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{contracting dimension sizes must match for lhs/rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @all_gather(%a: tensor<2x2xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{all_gather_dim must be a valid index of operand}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 5 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @uniform_quantize(%a: tensor<2xi32>) -> tensor<2x!quant.uniform<i8:f32, 1.000000e+00>> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized or per-axis integer quantized values}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xi32>) -> tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
}

// -----

func.func @chlo(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{incompatible shapes for broadcasting 2 and 3}}
  %0 = chlo.broadcast_add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @custom_call_and_constant() -> tensor<2xf32> {
  // expected-error @+2 {{'stablehlo.constant' op failed to infer returned types}}
  // expected-error @+1 {{inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<3xf32>} : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @sort(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{comparator must return tensor<i1> but got 'tensor<f32>'}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @negate_compatible_types(%a: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{'stablehlo.negate' op requires compatible types for all operands and results}}
  %0 = stablehlo.negate %a : (tensor<2xf32>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

func.func @missing_attribute(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'stablehlo.transpose' op requires attribute 'permutation'}}
  %0 = "stablehlo.transpose"(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @return_outside_func(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
  %0 = "stablehlo.if"(%p) ({ "func.return"(%a) : (tensor<2xf32>) -> () }, { "stablehlo.return"(%a) : (tensor<2xf32>) -> () }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @block_without_terminator(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<f32>):
    // expected-error @+1 {{block with no terminator, has %1 = "stablehlo.negate"(%arg1) : (tensor<f32>) -> tensor<f32>}}
    %y = stablehlo.negate %x : tensor<f32>
  }) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{'builtin.module' op region should have no arguments}}
"builtin.module"() ({
^bb0(%a: tensor<f32>):
}) : () -> ()
