// The shape refinement pipeline a shape-polymorphic JAX export goes through before running on fixed
// shapes: refine @main's arguments, propagate the shapes, turn dynamic ops static, check assertions.
// RUN: stablehlo-opt --stablehlo-refine-arguments='types=tensor<3x4xf32>' --stablehlo-refine-shapes --stablehlo-canonicalize-dynamism --stablehlo-check-shape-assertions %s | FileCheck %s
// RUN: not stablehlo-opt --stablehlo-refine-arguments='types=tensor<0x4xf32>' --stablehlo-refine-shapes --stablehlo-check-shape-assertions %s 2>&1 | FileCheck %s --check-prefix=FIRES
// RUN: stablehlo-opt --stablehlo-refine-arguments='types=tensor<3x4xf32>' %s | FileCheck %s --check-prefix=WRAPPED

// CHECK-LABEL: func.func @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NOT: custom_call
// CHECK-NOT: dynamic
// CHECK: %[[SUM:.*]] = stablehlo.add %arg0, %arg0 : tensor<3x4xf32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[SUM]], dims = [0, 1] : (tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK-NEXT: return %[[B]] : tensor<3x4xf32>

// FIRES: error: dimension b = 0 must be positive

// WRAPPED: func.func @main(%arg0: tensor<3x4xf32>) -> tensor<?x4xf32>
// WRAPPED-NEXT: %c = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
// WRAPPED-NEXT: %0 = stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper(%arg0, %c) {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// WRAPPED-NEXT: stablehlo.add %0, %0 : tensor<?x4xf32>
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %ok = stablehlo.compare GE, %d, %c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %d) {api_version = 2 : i32, error_message = "dimension b = {0} must be positive", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c4 = stablehlo.constant dense<4> : tensor<1xi32>
  %s = stablehlo.concatenate %r, %c4, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %1 = stablehlo.dynamic_broadcast_in_dim %0, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
  return %1 : tensor<?x4xf32>
}
