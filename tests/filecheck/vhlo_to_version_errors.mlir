// RUN: not stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.3.0' %s 2>&1 | FileCheck %s
// RUN: not stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=2.0.0' %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version %s 2>&1 | FileCheck %s --check-prefix=EMPTY

// A failed downgrade is one error naming every blocking op, where it is, the feature and the
// lowest version that has it.

// CHECK: error: failed to convert VHLO to v1.3.0: 3 operations cannot be expressed at 1.3.0
// CHECK-NEXT: {{.*}}vhlo_to_version_errors.mlir:15:1: failed to legalize operation 'vhlo.func_v1' that was explicitly marked illegal: type !vhlo.f8E4M3_v1 in 'function_type' (needs 1.7.0)
// CHECK-NEXT: {{.*}}vhlo_to_version_errors.mlir:16:8: failed to legalize operation 'vhlo.tan_v2' that was explicitly marked illegal: op 'tan' (needs 1.4.0)
// CHECK-NEXT: {{.*}}vhlo_to_version_errors.mlir:17:10: failed to legalize operation 'vhlo.all_gather_v2' that was explicitly marked illegal: 2 operands and 2 results (all_gather with several operands needs 1.5.0) (needs 1.5.0)
// CHECK-NEXT: {{.*}}note: the lowest target these operations allow is 1.7.0
// RANGE: error: target version 2.0.0 is greater than current version 1.22.0
// RANGE: note: choose a target from 0.9.0 to 1.22.0
func.func @blocked(%arg0: tensor<f32>, %arg1: tensor<f8E4M3>, %arg2: tensor<16x8xf32>) -> tensor<f32> {
  %0 = stablehlo.tan %arg0 : tensor<f32>
  %1:2 = "stablehlo.all_gather"(%arg2, %arg2) {all_gather_dim = 1 : i64, replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<16x8xf32>, tensor<16x8xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>)
  return %0 : tensor<f32>
}

// EMPTY: No target version specified.
// EMPTY-NEXT: Target version must be of the form `#.#.#`.
