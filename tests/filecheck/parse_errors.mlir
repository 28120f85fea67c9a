// RUN: not stablehlo-opt --split-input-file %s 2>&1 | FileCheck %s

// CHECK: parse_errors.mlir:6:26: error: use of undeclared SSA value name '%nope'
func.func @undefined() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.add %0, %nope : tensor<f32>
  return %1 : tensor<f32>
}

// -----

// CHECK: parse_errors.mlir:14:27: error: dense literal has shape [3] but the type has shape [2]
func.func @bad_dense() -> tensor<2xf32> {
  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK: parse_errors.mlir:22:8: error: unknown operation 'stablehlo.frobnicate'
func.func @unknown_op(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.frobnicate %arg0 : tensor<f32>
  return %0 : tensor<f32>
}
