// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Control-flow ops: while (hand-written syntax, %iterArg names), if/case (generic only),
// return, optimization_barrier, after_all, create_token, composite (with and without regions).
// CHECK-LABEL: func.func @while_loop
// CHECK-NEXT: %c = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT: %c_0 = stablehlo.constant dense<10> : tensor<i64>
// CHECK-NEXT: %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1) : tensor<i64>, tensor<f32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %1 = stablehlo.compare LT, %iterArg, %c_0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %1 = stablehlo.add %iterArg, %c : tensor<i64>
// CHECK-NEXT: stablehlo.return %1, %iterArg_1 : tensor<i64>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0#0, %0#1 : tensor<i64>, tensor<f32>
// GENERIC: "stablehlo.while"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i1>) -> ()
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) : (tensor<i64>, tensor<f32>) -> ()
func.func @while_loop(%init: tensor<i64>, %acc: tensor<f32>) -> (tensor<i64>, tensor<f32>) {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %0:2 = "stablehlo.while"(%init, %acc) ({
  ^bb0(%i: tensor<i64>, %a: tensor<f32>):
    %c = "stablehlo.compare"(%i, %ten) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i64>, %a: tensor<f32>):
    %n = stablehlo.add %i, %one : tensor<i64>
    "stablehlo.return"(%n, %a) : (tensor<i64>, tensor<f32>) -> ()
  }) : (tensor<i64>, tensor<f32>) -> (tensor<i64>, tensor<f32>)
  func.return %0#0, %0#1 : tensor<i64>, tensor<f32>
}

// CHECK-LABEL: func.func @while_pretty
// CHECK-NEXT: %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64> attributes {foo = 1 : i64}
// CHECK-NEXT: cond {
// CHECK-NEXT: %c = stablehlo.constant dense<true> : tensor<i1>
// CHECK-NEXT: stablehlo.return %c : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: stablehlo.return %iterArg : tensor<i64>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<i64>
// GENERIC: "stablehlo.while"(%{{[a-z0-9_#]+}}) ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i1>) -> ()
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i64>) -> ()
func.func @while_pretty(%arg0: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%iterArg = %arg0) : tensor<i64> attributes {foo = 1 : i64}
  cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %iterArg : tensor<i64>
  }
  func.return %0 : tensor<i64>
}

// CHECK-LABEL: func.func @while_no_operands
// CHECK-NEXT: stablehlo.while()
// CHECK-NEXT: cond {
// CHECK-NEXT: %c = stablehlo.constant dense<false> : tensor<i1>
// CHECK-NEXT: stablehlo.return %c : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: stablehlo.return
// CHECK-NEXT: }
// CHECK-NEXT: return
// GENERIC: "stablehlo.while"() ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<i1>) -> ()
// GENERIC: "stablehlo.return"() : () -> ()
func.func @while_no_operands() {
  stablehlo.while()
  cond {
    %0 = stablehlo.constant dense<false> : tensor<i1>
    "stablehlo.return"(%0) : (tensor<i1>) -> ()
  } do {
    "stablehlo.return"() : () -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @if_case
// CHECK-NEXT: %0 = "stablehlo.if"(%arg0) ({
// CHECK-NEXT: stablehlo.return %arg2 : tensor<2xi64>
// CHECK-NEXT: }, {
// CHECK-NEXT: %2 = stablehlo.negate %arg2 : tensor<2xi64>
// CHECK-NEXT: stablehlo.return %2 : tensor<2xi64>
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<2xi64>
// CHECK-NEXT: %1 = "stablehlo.case"(%arg1) ({
// CHECK-NEXT: stablehlo.return %arg2 : tensor<2xi64>
// CHECK-NEXT: }, {
// CHECK-NEXT: stablehlo.return %0 : tensor<2xi64>
// CHECK-NEXT: }) : (tensor<i32>) -> tensor<2xi64>
// CHECK-NEXT: return %0, %1 : tensor<2xi64>, tensor<2xi64>
// GENERIC: "stablehlo.if"(%{{[a-z0-9_#]+}}) ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<2xi64>) -> ()
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<2xi64>) -> ()
// GENERIC: "stablehlo.case"(%{{[a-z0-9_#]+}}) ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<2xi64>) -> ()
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<2xi64>) -> ()
func.func @if_case(%pred: tensor<i1>, %index: tensor<i32>, %x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
  %0 = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%x) : (tensor<2xi64>) -> ()
  }, {
    %n = stablehlo.negate %x : tensor<2xi64>
    "stablehlo.return"(%n) : (tensor<2xi64>) -> ()
  }) : (tensor<i1>) -> tensor<2xi64>
  %1 = "stablehlo.case"(%index) ({
    stablehlo.return %x : tensor<2xi64>
  }, {
    stablehlo.return %0 : tensor<2xi64>
  }) : (tensor<i32>) -> tensor<2xi64>
  func.return %0, %1 : tensor<2xi64>, tensor<2xi64>
}

// CHECK-LABEL: func.func @barriers_and_tokens
// CHECK-NEXT: stablehlo.optimization_barrier()
// CHECK-NEXT: %0 = stablehlo.optimization_barrier %arg0 : tensor<4xf32>
// CHECK-NEXT: %1:2 = stablehlo.optimization_barrier %arg0, %arg1 : tensor<4xf32>, !stablehlo.token
// CHECK-NEXT: %2 = stablehlo.after_all %arg1, %arg2 : !stablehlo.token
// CHECK-NEXT: %3 = stablehlo.after_all  : !stablehlo.token
// CHECK-NEXT: %4 = stablehlo.create_token : !stablehlo.token
// CHECK-NEXT: stablehlo.return
// GENERIC: "stablehlo.optimization_barrier"() : () -> ()
// GENERIC: "stablehlo.optimization_barrier"(%{{[a-z0-9_#]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC: "stablehlo.optimization_barrier"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) : (tensor<4xf32>, !stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// GENERIC: "stablehlo.after_all"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
// GENERIC: "stablehlo.after_all"() : () -> !stablehlo.token
// GENERIC: "stablehlo.create_token"() : () -> !stablehlo.token
// GENERIC: "stablehlo.return"() : () -> ()
func.func @barriers_and_tokens(%arg0: tensor<4xf32>, %t0: !stablehlo.token, %t1: !stablehlo.token) -> () {
  "stablehlo.optimization_barrier"() : () -> ()
  %0 = "stablehlo.optimization_barrier"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1:2 = stablehlo.optimization_barrier %arg0, %t0 : tensor<4xf32>, !stablehlo.token
  %2 = "stablehlo.after_all"(%t0, %t1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %3 = stablehlo.after_all : !stablehlo.token
  %4 = "stablehlo.create_token"() : () -> !stablehlo.token
  "stablehlo.return"() : () -> ()
}

// CHECK-LABEL: func.func @composites
// CHECK-NEXT: %0 = stablehlo.composite "my.op" %arg0 {composite_attributes = {n = 2 : i64}, decomposition = @my_op, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %1 = stablehlo.composite "my.op" %arg0 {decomposition = @my_op} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: %2 = stablehlo.composite "my.op" %arg0 ({
// CHECK-NEXT: ^bb0(%arg1: tensor<f32>):
// CHECK-NEXT: stablehlo.return %arg1 : tensor<f32>
// CHECK-NEXT: }) {decomposition = @my_op} : (tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %0, %2 : tensor<f32>, tensor<f32>
// GENERIC: "stablehlo.composite"(%{{[a-z0-9_#]+}}) <{composite_attributes = {n = 2 : i64}, decomposition = @my_op, name = "my.op", version = 1 : i32}> : (tensor<f32>) -> tensor<f32>
// GENERIC: "stablehlo.composite"(%{{[a-z0-9_#]+}}) <{composite_attributes = {}, decomposition = @my_op, name = "my.op", version = 0 : i32}> : (tensor<f32>) -> tensor<f32>
// GENERIC: "stablehlo.composite"(%{{[a-z0-9_#]+}}) <{decomposition = @my_op, name = "my.op"}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
func.func @composites(%arg0: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = "stablehlo.composite"(%arg0) {name = "my.op", decomposition = @my_op, composite_attributes = {n = 2 : i64}, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
  %1 = stablehlo.composite "my.op" %arg0 {decomposition = @my_op, version = 0 : i32, composite_attributes = {}} : (tensor<f32>) -> tensor<f32>
  %2 = "stablehlo.composite"(%arg0) ({
  ^bb0(%a: tensor<f32>):
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) {name = "my.op", decomposition = @my_op} : (tensor<f32>) -> tensor<f32>
  func.return %0, %2 : tensor<f32>, tensor<f32>
}

// CHECK-LABEL: func.func private @my_op
// CHECK-NEXT: return %arg0 : tensor<f32>
func.func private @my_op(%arg0: tensor<f32>) -> tensor<f32> {
  func.return %arg0 : tensor<f32>
}
