// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Ops with reduction regions: reduce (compact `applies` form when the body is one commutative
// binary op forwarding its arguments, else the `reducer` form), reduce_window, select_and_scatter,
// sort and map (generic only, as upstream prints them).

// CHECK-LABEL: func.func @reduce_compact
// CHECK-NEXT: %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %c = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT: %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x64x13xf32>, tensor<f32>) -> tensor<2x13xf32>
// CHECK-NEXT: %1 = stablehlo.reduce(%arg1 init: %c) applies stablehlo.maximum across dimensions = [0] {user_attr = "x"} : (tensor<4x8xi32>, tensor<i32>) -> tensor<8xi32>
// CHECK-NEXT: return %0, %1 : tensor<2x13xf32>, tensor<8xi32>
// GENERIC: "stablehlo.reduce"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimensions = array<i64: 1>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
// GENERIC: "stablehlo.reduce"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimensions = array<i64: 0>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i32>) -> ()
func.func @reduce_compact(%arg0: tensor<2x64x13xf32>, %arg1: tensor<4x8xi32>) -> (tensor<2x13xf32>, tensor<8xi32>) {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x64x13xf32>, tensor<f32>) -> tensor<2x13xf32>
  %1 = "stablehlo.reduce"(%arg1, %c) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %m = stablehlo.maximum %a, %b : tensor<i32>
    "stablehlo.return"(%m) : (tensor<i32>) -> ()
  }) {dimensions = array<i64: 0>, user_attr = "x"} : (tensor<4x8xi32>, tensor<i32>) -> tensor<8xi32>
  func.return %0, %1 : tensor<2x13xf32>, tensor<8xi32>
}

// CHECK-LABEL: func.func @reduce_long
// CHECK-NEXT: %0:2 = stablehlo.reduce(%arg0 init: %arg2), (%arg1 init: %arg3) across dimensions = [0] : (tensor<1x8xf32>, tensor<1x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
// CHECK-NEXT: reducer(%arg4: tensor<f32>, %arg6: tensor<f32>) (%arg5: tensor<i32>, %arg7: tensor<i32>)  {
// CHECK-NEXT: %2 = stablehlo.add %arg4, %arg6 : tensor<f32>
// CHECK-NEXT: %3 = stablehlo.add %arg5, %arg7 : tensor<i32>
// CHECK-NEXT: stablehlo.return %2, %3 : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = stablehlo.reduce(%arg0 init: %arg2) across dimensions = [1] : (tensor<1x8xf32>, tensor<f32>) -> tensor<1xf32>
// CHECK-NEXT: reducer(%arg4: tensor<f32>, %arg5: tensor<f32>)  {
// CHECK-NEXT: %2 = stablehlo.subtract %arg4, %arg5 : tensor<f32>
// CHECK-NEXT: stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0#0, %0#1, %1 : tensor<8xf32>, tensor<8xi32>, tensor<1xf32>
// GENERIC: "stablehlo.reduce"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimensions = array<i64: 0>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) : (tensor<f32>, tensor<i32>) -> ()
// GENERIC: "stablehlo.reduce"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimensions = array<i64: 1>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
func.func @reduce_long(%arg0: tensor<1x8xf32>, %arg1: tensor<1x8xi32>, %arg2: tensor<f32>, %arg3: tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>, tensor<1xf32>) {
  %0:2 = "stablehlo.reduce"(%arg0, %arg1, %arg2, %arg3) ({
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %b0: tensor<f32>, %b1: tensor<i32>):
    %s = stablehlo.add %a0, %b0 : tensor<f32>
    %t = stablehlo.add %a1, %b1 : tensor<i32>
    "stablehlo.return"(%s, %t) : (tensor<f32>, tensor<i32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<1x8xf32>, tensor<1x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<8xi32>)
  %1 = stablehlo.reduce(%arg0 init: %arg2) across dimensions = [1] : (tensor<1x8xf32>, tensor<f32>) -> tensor<1xf32>
    reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %d = stablehlo.subtract %x, %y : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }
  func.return %0#0, %0#1, %1 : tensor<8xf32>, tensor<8xi32>, tensor<1xf32>
}

// CHECK-LABEL: func.func @reduce_window
// CHECK-NEXT: %0 = "stablehlo.reduce_window"(%arg0, %arg1) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x2xf32>
// CHECK-NEXT: return %0 : tensor<2x2xf32>
// GENERIC: "stablehlo.reduce_window"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
func.func @reduce_window(%arg0: tensor<4x6xf32>, %init: tensor<f32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.reduce_window"(%arg0, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @select_and_scatter
// CHECK-NEXT: %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.compare GE, %arg3, %arg4 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK-NEXT: %1 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK-NEXT: stablehlo.return %1 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4x6xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-NEXT: return %0 : tensor<4x6xf32>
// GENERIC: "stablehlo.select_and_scatter"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i1>) -> ()
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
func.func @select_and_scatter(%operand: tensor<4x6xf32>, %source: tensor<2x2xf32>, %init: tensor<f32>) -> tensor<4x6xf32> {
  %0 = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 3>, padding = dense<0> : tensor<2x2xi64>} : (tensor<4x6xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x6xf32>
  func.return %0 : tensor<4x6xf32>
}

// CHECK-LABEL: func.func @sort_and_map
// CHECK-NEXT: %0:2 = "stablehlo.sort"(%arg0, %arg1) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
// CHECK-NEXT: %2 = stablehlo.compare LT, %arg2, %arg3, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %2 : tensor<i1>
// CHECK-NEXT: }) : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
// CHECK-NEXT: %1 = "stablehlo.map"(%arg0, %0#0) <{dimensions = array<i64: 0>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %2 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %2 : tensor<f32>
// CHECK-NEXT: }) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
// CHECK-NEXT: return %0#0, %0#1, %1 : tensor<5xf32>, tensor<5xi32>, tensor<5xf32>
// GENERIC: "stablehlo.sort"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimension = 0 : i64, is_stable = true}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i1>) -> ()
// GENERIC: "stablehlo.map"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{dimensions = array<i64: 0>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
func.func @sort_and_map(%keys: tensor<5xf32>, %vals: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>, tensor<5xf32>) {
  %0:2 = "stablehlo.sort"(%keys, %vals) ({
  ^bb0(%k0: tensor<f32>, %k1: tensor<f32>, %v0: tensor<i32>, %v1: tensor<i32>):
    %c = stablehlo.compare LT, %k0, %k1, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64, is_stable = true} : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
  %1 = "stablehlo.map"(%keys, %0#0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %a, %b : tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  func.return %0#0, %0#1, %1 : tensor<5xf32>, tensor<5xi32>, tensor<5xf32>
}
