// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.0.0' %s | FileCheck %s --check-prefix=V1_0
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=minimum' %s | FileCheck %s --check-prefix=V1_0
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=1.0.0' --vhlo-to-version='target=current' %s | FileCheck %s --check-prefix=CURRENT
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version='target=0.9.0' --vhlo-to-version='target=current' --vhlo-legalize-to-stablehlo %s > %t.back
// RUN: stablehlo-opt %s > %t.orig
// RUN: diff %t.orig %t.back

// Downgrading selects each op's fork legal at the target (fields holding their defaults are
// dropped); upgrading fills them back in.

// V1_0-LABEL: vhlo.func_v1 @forks
// V1_0: "vhlo.all_gather_v1"(%arg0)
// V1_0-SAME: use_global_device_ids = #vhlo.bool_v1<false>
// V1_0: "vhlo.exponential_v1"(%0) : (!vhlo.tensor_v1<16x16x!vhlo.f32_v1>) -> !vhlo.tensor_v1<16x16x!vhlo.f32_v1>
// V1_0: "vhlo.dot_general_v1"
// V1_0-NOT: accumulation_type
// V1_0-SAME: precision_config
// CURRENT-LABEL: vhlo.func_v1 @forks
// CURRENT: "vhlo.all_gather_v2"(%arg0)
// CURRENT: "vhlo.exponential_v2"(%0) <{result_accuracy = #vhlo.result_accuracy_v1<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = #vhlo<result_accuracy_mode_v1 DEFAULT>>}>
// CURRENT: "vhlo.dot_general_v2"
// CURRENT-SAME: accumulation_type = #vhlo.type_v1<!vhlo.none_v1>
func.func @forks(%arg0: tensor<16x8xf32>) -> tensor<16x16xf32> {
  %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<16x8xf32>) -> tensor<16x16xf32>
  %1 = stablehlo.exponential %0 : tensor<16x16xf32>
  %2 = stablehlo.dot_general %1, %1, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %2 : tensor<16x16xf32>
}
