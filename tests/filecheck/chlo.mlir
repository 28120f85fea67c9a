// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @unary
// CHECK-NEXT:    %0 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %1 = chlo.acosh %0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %2 = chlo.asin %1 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %3 = chlo.asinh %2 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %4 = chlo.atan %3 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %5 = chlo.atanh %4 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %6 = chlo.bessel_i1e %5 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %7 = chlo.conj %6 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %8 = chlo.cosh %7 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %9 = chlo.sinh %8 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %10 = chlo.tan %9 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %11 = chlo.square %10 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %12 = chlo.digamma %11 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %13 = chlo.erf %12 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %14 = chlo.erf_inv %13 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %15 = chlo.erfc %14 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %16 = chlo.lgamma %15 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %17 = chlo.is_inf %16 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %18 = chlo.is_neg_inf %16 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %19 = chlo.is_pos_inf %16 : tensor<4xf32> -> tensor<4xi1>
// CHECK-NEXT:    %20 = chlo._asin_acos_kernel %arg1 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
// GENERIC-LABEL: "func.func"() <{function_type = (tensor<4xf32>, tensor<4xcomplex<f32>>) -> tensor<4xf32>, sym_name = "unary"}>
// GENERIC:       %{{[a-z]*[0-9]+}} = "chlo.acos"(%{{[a-z]*[0-9]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC:       %{{[a-z]*[0-9]+}} = "chlo.is_inf"(%{{[a-z]*[0-9]+}}) : (tensor<4xf32>) -> tensor<4xi1>
func.func @unary(%arg0: tensor<4xf32>, %arg1: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
  %0 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.acosh %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.asin %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.asinh %2 : tensor<4xf32> -> tensor<4xf32>
  %4 = chlo.atan %3 : tensor<4xf32> -> tensor<4xf32>
  %5 = chlo.atanh %4 : tensor<4xf32> -> tensor<4xf32>
  %6 = chlo.bessel_i1e %5 : tensor<4xf32> -> tensor<4xf32>
  %7 = chlo.conj %6 : tensor<4xf32> -> tensor<4xf32>
  %8 = chlo.cosh %7 : tensor<4xf32> -> tensor<4xf32>
  %9 = chlo.sinh %8 : tensor<4xf32> -> tensor<4xf32>
  %10 = chlo.tan %9 : tensor<4xf32> -> tensor<4xf32>
  %11 = chlo.square %10 : tensor<4xf32> -> tensor<4xf32>
  %12 = chlo.digamma %11 : tensor<4xf32> -> tensor<4xf32>
  %13 = chlo.erf %12 : tensor<4xf32> -> tensor<4xf32>
  %14 = "chlo.erf_inv"(%13) : (tensor<4xf32>) -> tensor<4xf32>
  %15 = chlo.erfc %14 : tensor<4xf32> -> tensor<4xf32>
  %16 = chlo.lgamma %15 : tensor<4xf32> -> tensor<4xf32>
  %17 = chlo.is_inf %16 : tensor<4xf32> -> tensor<4xi1>
  %18 = chlo.is_neg_inf %16 : tensor<4xf32> -> tensor<4xi1>
  %19 = chlo.is_pos_inf %16 : tensor<4xf32> -> tensor<4xi1>
  %20 = chlo._asin_acos_kernel %arg1 : tensor<4xcomplex<f32>> -> tensor<4xcomplex<f32>>
  return %16 : tensor<4xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK-NEXT:    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %1 = chlo.broadcast_atan2 %0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %2 = chlo.broadcast_divide %1, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %3 = chlo.broadcast_maximum %2, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %4 = chlo.broadcast_minimum %3, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %5 = chlo.broadcast_multiply %4, %arg1 {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %6 = chlo.broadcast_next_after %5, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %7 = chlo.broadcast_polygamma %6, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %8 = chlo.broadcast_power %7, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %9 = chlo.broadcast_remainder %8, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %10 = chlo.broadcast_subtract %9, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %11 = chlo.broadcast_zeta %10, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %12 = chlo.broadcast_complex %11, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
// CHECK-NEXT:    %13 = chlo.broadcast_compare %11, %arg1 {comparison_direction = #chlo<comparison_direction GE>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %14 = chlo.broadcast_compare %11, %arg1 {compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction NE>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK-NEXT:    %15 = chlo.broadcast_and %13, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %16 = chlo.broadcast_or %15, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %17 = chlo.broadcast_xor %16, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK-NEXT:    %18 = chlo.broadcast_shift_left %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %19 = chlo.broadcast_shift_right_arithmetic %18, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %20 = chlo.broadcast_shift_right_logical %19, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// CHECK-NEXT:    %21 = chlo.broadcast_select %17, %11, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       "chlo.broadcast_multiply"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{broadcast_dimensions = array<i64: 1>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// GENERIC:       "chlo.broadcast_compare"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction NE>}>
func.func @broadcast(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xi32>) -> tensor<2x3xf32> {
  %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = chlo.broadcast_atan2 %0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = chlo.broadcast_divide %1, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %3 = chlo.broadcast_maximum %2, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = chlo.broadcast_minimum %3, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = chlo.broadcast_multiply %4, %arg1 {broadcast_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = chlo.broadcast_next_after %5, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = chlo.broadcast_polygamma %6, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %8 = chlo.broadcast_power %7, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %9 = chlo.broadcast_remainder %8, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %10 = chlo.broadcast_subtract %9, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %11 = chlo.broadcast_zeta %10, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %12 = chlo.broadcast_complex %11, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
  %13 = chlo.broadcast_compare %11, %arg1 {comparison_direction = #chlo<comparison_direction GE>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %14 = chlo.broadcast_compare %11, %arg1 {comparison_direction = #chlo<comparison_direction NE>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %15 = chlo.broadcast_and %13, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %16 = chlo.broadcast_or %15, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %17 = chlo.broadcast_xor %16, %14 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %18 = chlo.broadcast_shift_left %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %19 = chlo.broadcast_shift_right_arithmetic %18, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %20 = chlo.broadcast_shift_right_logical %19, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %21 = chlo.broadcast_select %17, %11, %arg1 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %21 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @binary
// CHECK-NEXT:    %0 = chlo.next_after %arg0, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    %1 = chlo.polygamma %0, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    %2 = chlo.zeta %1, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
// CHECK-NEXT:    %3 = chlo.mulhi %arg2, %arg2 : tensor<3xui8>, tensor<3xui8> -> tensor<3xui8>
// GENERIC:       %{{[a-z]*[0-9]+}} = "chlo.mulhi"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
func.func @binary(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>, %arg2: tensor<3xui8>) -> tensor<3xf64> {
  %0 = chlo.next_after %arg0, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %1 = chlo.polygamma %0, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %2 = chlo.zeta %1, %arg1 : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64>
  %3 = "chlo.mulhi"(%arg2, %arg2) : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %2 : tensor<3xf64>
}

// CHECK-LABEL: func.func @misc
// CHECK-NEXT:    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<3x8xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
// CHECK-NEXT:    %c = chlo.constant dense<[1, 2]> : tensor<2xi32>
// CHECK-NEXT:    %cst = chlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %0 = "chlo.constant_like"(%arg0) <{value = 1.000000e+00 : f32}> : (tensor<3x8xf32>) -> tensor<3x8xf32>
// CHECK-NEXT:    %1:2 = chlo.minimum_broadcast_shapes %arg1, %arg1 : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>, tensor<?xindex>
// CHECK-NEXT:    return %values, %indices : tensor<3x2xf32>, tensor<3x2xi32>
// GENERIC:       %{{[a-z]*[0-9]+}}:2 = "chlo.top_k"(%{{[a-z]*[0-9]+}}) <{k = 2 : i64}> : (tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)
// GENERIC:       "chlo.constant"() <{value = dense<[1, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
func.func @misc(%arg0: tensor<3x8xf32>, %arg1: tensor<?xindex>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %0:2 = chlo.top_k(%arg0, k=2) : tensor<3x8xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %1 = chlo.constant dense<[1, 2]> : tensor<2xi32>
  %2 = chlo.constant dense<0.5> : tensor<f32>
  %3 = "chlo.constant_like"(%arg0) {value = 1.0 : f32} : (tensor<3x8xf32>) -> tensor<3x8xf32>
  %4:2 = chlo.minimum_broadcast_shapes %arg1, %arg1 : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>, tensor<?xindex>
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi32>
}

// CHECK-LABEL: func.func @ragged_dot
// CHECK-NEXT:    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
func.func @ragged_dot(%arg0: tensor<11x5xf32>, %arg1: tensor<3x5x7xf32>, %arg2: tensor<3xi64>) -> tensor<11x7xf32> {
  %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) {
    ragged_dot_dimension_numbers = #chlo.ragged_dot<
      lhs_batching_dimensions = [],
      rhs_batching_dimensions = [],
      lhs_contracting_dimensions = [1],
      rhs_contracting_dimensions = [1],
      lhs_ragged_dimensions = [0],
      rhs_group_dimensions = [0]
    >,
    precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>]
  } : (tensor<11x5xf32>, tensor<3x5x7xf32>, tensor<3xi64>) -> tensor<11x7xf32>
  return %0 : tensor<11x7xf32>
}

// CHECK-LABEL: func.func @scan
// CHECK-NEXT:    %c = stablehlo.constant dense<0> : tensor<2xi32>
// CHECK-NEXT:    %0:2 = chlo.scan(%arg0) inits (%c) dimension=1  {
// CHECK-NEXT:    ^bb0(%input: tensor<2xi32>, %carry: tensor<2xi32>):
// CHECK-NEXT:      %2 = stablehlo.add %input, %carry : tensor<2xi32>
// CHECK-NEXT:      stablehlo.return %2, %2 : tensor<2xi32>, tensor<2xi32>
// CHECK-NEXT:    } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
// CHECK-NEXT:    %1:2 = chlo.scan(%arg0) inits (%c) dimension=1  attributes {is_reverse = true} {
// GENERIC:       %{{[a-z]*[0-9]+}}:2 = "chlo.scan"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{dimension = 1 : i64, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}> ({
// GENERIC-NEXT:  ^bb0(%{{[a-z]*[0-9]+}}: tensor<2xi32>, %{{[a-z]*[0-9]+}}: tensor<2xi32>):
func.func @scan(%arg0: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %init = stablehlo.constant dense<0> : tensor<2xi32>
  %0:2 = chlo.scan(%arg0) inits(%init) dimension=1 {
  ^bb0(%a: tensor<2xi32>, %b: tensor<2xi32>):
    %1 = stablehlo.add %a, %b : tensor<2xi32>
    stablehlo.return %1, %1 : tensor<2xi32>, tensor<2xi32>
  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
  %2:2 = chlo.scan(%arg0) inits(%init) dimension=1 attributes {is_reverse = true} {
  ^bb0(%a: tensor<2xi32>, %b: tensor<2xi32>):
    %1 = stablehlo.add %a, %b : tensor<2xi32>
    stablehlo.return %1, %1 : tensor<2xi32>, tensor<2xi32>
  } : (tensor<2x3xi32>, tensor<2xi32>) -> (tensor<2x3xi32>, tensor<2xi32>)
  return %0#0 : tensor<2x3xi32>
}
