// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @checks
// CHECK-NEXT:    check.expect_eq %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT:    check.expect_eq_const %arg0, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    check.expect_almost_eq %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT:    check.expect_almost_eq %arg0, %arg1, tolerance = 1.000000e-01 : tensor<2xf32>
// CHECK-NEXT:    check.expect_almost_eq_const %arg0, dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    check.expect_almost_eq_const %arg0, dense<1.000000e+00> : tensor<2xf32>, tolerance = 1.000000e-01
// CHECK-NEXT:    check.expect_almost_eq_const %arg0, dense<1.000000e+00> : tensor<2xf32>, tolerance = 2.000000e-01
// CHECK-NEXT:    check.expect_close %arg0, %arg1, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    check.expect_serialized_eq %arg2, probe_id = "probe0" : tensor<3xi64>
// CHECK-NEXT:    check.expect_serialized_eq %arg2, probe_id = "probe1", iter = 2 : tensor<3xi64>
// CHECK-NEXT:    return
// GENERIC:       "check.expect_eq"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT:  "check.expect_eq_const"(%arg0) <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
// GENERIC-NEXT:  "check.expect_almost_eq"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT:  "check.expect_almost_eq"(%arg0, %arg1) <{tolerance = 1.000000e-01 : f64}> : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC:       "check.expect_close"(%arg0, %arg1) <{max_ulp_difference = 3 : ui64, min_ulp_difference = 1 : ui64}> : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC:       "check.expect_serialized_eq"(%arg2) <{iteration = 2 : ui32, probe_id = "probe1"}> : (tensor<3xi64>) -> ()
func.func @checks(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<3xi64>) {
  check.expect_eq %arg0, %arg1 : tensor<2xf32>
  check.expect_eq_const %arg0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq %arg0, %arg1 : tensor<2xf32>
  check.expect_almost_eq %arg0, %arg1, tolerance = 0.1 : tensor<2xf32>
  check.expect_almost_eq_const %arg0, dense<1.0> : tensor<2xf32>
  check.expect_almost_eq_const %arg0, dense<1.0> : tensor<2xf32> {tolerance = 0.1 : f64}
  check.expect_almost_eq_const %arg0, dense<1.0> : tensor<2xf32>, tolerance = 0.2
  check.expect_close %arg0, %arg1, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  check.expect_serialized_eq %arg2, probe_id = "probe0" : tensor<3xi64>
  check.expect_serialized_eq %arg2, probe_id = "probe1", iter = 2 : tensor<3xi64>
  func.return
}
