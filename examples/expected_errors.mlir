// Invalid programs annotated with the errors they must give, in upstream's words and at upstream's
// location: `stablehlo-opt --split-input-file --verify-diagnostics` checks every annotation.
func.func @bad_concatenate(%a: tensor<2xf32>, %b: tensor<3xi32>) -> tensor<5xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op requires the same element type for all operands and results}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<3xi32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @bad_reshape(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{number of output elements (4) doesn't match expected number of elements (6)}}
  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
