// RUN: stablehlo-opt --hlo-test-infer --allow-unregistered-dialect --split-input-file %s | FileCheck %s
// RUN: stablehlo-opt --hlo-test-infer --allow-unregistered-dialect --split-input-file --verify-diagnostics %s > /dev/null

// The test pass attaches the inferred result types; the test ops keep their operands, result types
// and attributes, and print back in generic form (unregistered dialect).

// CHECK-LABEL: func.func @add
func.func @add(%a: tensor<2x?xf32>, %b: tensor<?x3xf32>) -> tensor<2x3xindex> {
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x?xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  // CHECK: %[[R:.*]] = "hlo_test_infer.return_types"(%0) {note = "kept", types0 = tensor<2x3xf32>} : (tensor<2x3xf32>) -> tensor<2x3xindex>
  %1 = "hlo_test_infer.get_return_types"(%0) {note = "kept"} : (tensor<2x3xf32>) -> tensor<2x3xindex>
  // CHECK: "hlo_test_infer.return_type_components"(%0) {types0 = tensor<2x3xf32>} : (tensor<2x3xf32>) -> tensor<2xindex>
  %2 = "hlo_test_infer.get_return_type_components"(%0) : (tensor<2x3xf32>) -> tensor<2xindex>
  // a block argument has no defining op: left as it is
  // CHECK: "hlo_test_infer.get_return_types"(%arg0) : (tensor<2x?xf32>) -> tensor<2xindex>
  %3 = "hlo_test_infer.get_return_types"(%a) : (tensor<2x?xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2x3xindex>
}

// -----

// CHECK-LABEL: func.func @compare
func.func @compare(%a: tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xindex> {
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>}
      : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xi1>
  // CHECK: types0 = tensor<?xi1, #stablehlo.bounds<4>>
  %1 = "hlo_test_infer.get_return_types"(%0) : (tensor<?xi1>) -> tensor<?xindex>
  func.return %1 : tensor<?xindex>
}

// -----

// reify_return_type_shapes: the shape computed from the operands (upstream's reifyReturnTypeShapes),
// static sizes folded to constants
// CHECK-LABEL: func.func @reify
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[D:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x2xf32>
// CHECK: %[[S:.*]] = tensor.from_elements %[[C2]], %[[D]] : tensor<2xindex>
// CHECK: return %[[S]] : tensor<2xindex>
func.func @reify(%a: tensor<?x2xf32>) -> tensor<2xindex> {
  %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<?x2xf32>) -> tensor<2x?xf32>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<2x?xf32>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}

// -----

// a shape-changing bitcast_convert is not reified (upstream's reifyReturnTypeShapes fails): left as it is
// CHECK-LABEL: func.func @reify_left
// CHECK: "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x2xi16>) -> tensor<2xindex>
func.func @reify_left(%a: tensor<?xf32>) -> tensor<2xindex> {
  %0 = "stablehlo.bitcast_convert"(%a) : (tensor<?xf32>) -> tensor<?x2xi16>
  %1 = "hlo_test_infer.reify_return_type_shapes"(%0) : (tensor<?x2xi16>) -> tensor<2xindex>
  func.return %1 : tensor<2xindex>
}
