// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --mlir-print-op-generic %s | FileCheck %s
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo %s | FileCheck %s --check-prefix=PRETTY
// RUN: stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-legalize-to-stablehlo %s > %t.back
// RUN: stablehlo-opt %s > %t.orig
// RUN: diff %t.orig %t.back

// stablehlo-legalize-to-vhlo writes every defaulted attribute explicitly; the way back erases them,
// so StableHLO -> VHLO -> StableHLO prints the original.

// CHECK-LABEL: "vhlo.func_v1"() <{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<4x!vhlo.f32_v1>, !vhlo.tensor_v1<4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<4x!vhlo.bool_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<"compare">, sym_visibility = #vhlo.string_v1<"">}> ({
// CHECK-NEXT: ^bb0(%[[A:arg[0-9]+]]: !vhlo.tensor_v1<4x!vhlo.f32_v1>, %[[B:arg[0-9]+]]: !vhlo.tensor_v1<4x!vhlo.f32_v1>):
// CHECK-NEXT:   %[[R:[0-9]+]] = "vhlo.compare_v1"(%[[A]], %[[B]]) <{compare_type = #vhlo<comparison_type_v1 NOTYPE>, comparison_direction = #vhlo<comparison_direction_v1 GT>}> : (!vhlo.tensor_v1<4x!vhlo.f32_v1>, !vhlo.tensor_v1<4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<4x!vhlo.bool_v1>
// CHECK-NEXT:   "vhlo.return_v1"(%[[R]]) : (!vhlo.tensor_v1<4x!vhlo.bool_v1>) -> ()
// CHECK-NEXT: }) : () -> ()
// PRETTY-LABEL: vhlo.func_v1 @compare(%arg0: !vhlo.tensor_v1<4x!vhlo.f32_v1>, %arg1: !vhlo.tensor_v1<4x!vhlo.f32_v1>) -> (!vhlo.tensor_v1<4x!vhlo.bool_v1>) {
// PRETTY: } {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
func.func @compare(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.compare  GT, %arg0, %arg1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: sym_name = #vhlo.string_v1<"gather">
// CHECK: "vhlo.gather_v2"(%{{arg[0-9]+}}, %{{arg[0-9]+}}) <{collapsed_slice_dims = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>, index_vector_dim = #vhlo.integer_v1<1 : i64>, indices_are_sorted = #vhlo.bool_v1<false>, offset_dims = #vhlo.tensor_v1<dense<1> : tensor<1xi64>>, operand_batching_dims = #vhlo.tensor_v1<dense<> : tensor<0xi64>>, slice_sizes = #vhlo.tensor_v1<dense<[1, 3]> : tensor<2xi64>>, start_index_map = #vhlo.tensor_v1<dense<0> : tensor<1xi64>>, start_indices_batching_dims = #vhlo.tensor_v1<dense<> : tensor<0xi64>>}>
func.func @gather(%arg0: tensor<3x3xf32>, %arg1: tensor<2x1xi32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<3x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// CHECK-LABEL: sym_name = #vhlo.string_v1<"sort">
// CHECK: "vhlo.sort_v1"(%{{arg[0-9]+}}) <{dimension = #vhlo.integer_v1<-1 : i64>, is_stable = #vhlo.bool_v1<false>}> ({
// CHECK-NEXT: ^bb0(%[[X:arg[0-9]+]]: !vhlo.tensor_v1<!vhlo.f32_v1>, %[[Y:arg[0-9]+]]: !vhlo.tensor_v1<!vhlo.f32_v1>):
// CHECK-NEXT:   %{{[0-9]+}} = "vhlo.compare_v1"(%[[X]], %[[Y]]) <{compare_type = #vhlo<comparison_type_v1 TOTALORDER>, comparison_direction = #vhlo<comparison_direction_v1 LT>}>
func.func @sort(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.sort"(%arg0) ({
  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
    %1 = stablehlo.compare  LT, %arg1, %arg2,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Discardable attributes are converted too.
// CHECK-LABEL: sym_name = #vhlo.string_v1<"discardable">
// CHECK: "vhlo.abs_v1"(%{{arg[0-9]+}}) {mhlo.frontend_attributes = #vhlo.dict_v1<{#vhlo.string_v1<"k"> = #vhlo.string_v1<"v">}>} : (!vhlo.tensor_v1<!vhlo.i32_v1>) -> !vhlo.tensor_v1<!vhlo.i32_v1>
func.func @discardable(%arg0: tensor<i32>) -> tensor<i32> {
  %0 = stablehlo.abs %arg0 {mhlo.frontend_attributes = {k = "v"}} : tensor<i32>
  return %0 : tensor<i32>
}
