// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
// CHECK:      func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x"}) -> (tensor<2xf32> {jax.result_info = ""}) {
// CHECK-NEXT:   %0 = call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT:   return %0 : tensor<2xf32>
// CHECK:      func.func private @helper(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// GENERIC: "builtin.module"() <{sym_name = "jit_f"}> ({
// GENERIC: "func.func"() <{arg_attrs = [{jax.arg_info = "x"}], function_type = (tensor<2xf32>) -> tensor<2xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
// GENERIC-NEXT: ^bb0(%arg1: tensor<2xf32>):
// GENERIC-NEXT:   %0 = "func.call"(%arg1) <{callee = @helper}> : (tensor<2xf32>) -> tensor<2xf32>
module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x"}) -> (tensor<2xf32> {jax.result_info = ""}) {
    %0 = func.call @helper(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    func.return %0 : tensor<2xf32>
  }
  func.func private @helper(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
