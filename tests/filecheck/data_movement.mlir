// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Data-movement and shape ops: pretty forms as upstream prints them, generic properties.

// CHECK-LABEL: func.func @broadcasts
func.func @broadcasts(%arg0: tensor<1x2xf32>, %arg1: tensor<3xi32>, %arg2: tensor<2xindex>) -> () {
  // CHECK-NEXT: %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<1x2x3xf32>
  // CHECK-NEXT: %1 = stablehlo.broadcast %arg1, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>
  // CHECK-NEXT: %2 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg2, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>} : (tensor<1x2xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  // GENERIC: "stablehlo.broadcast_in_dim"(%{{[a-z]*[0-9]+}}) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<1x2xf32>) -> tensor<1x2x3xf32>
  // GENERIC: "stablehlo.broadcast"(%{{[a-z]*[0-9]+}}) <{broadcast_sizes = array<i64: 1, 2>}> : (tensor<3xi32>) -> tensor<1x2x3xi32>
  // GENERIC: "stablehlo.dynamic_broadcast_in_dim"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{broadcast_dimensions = array<i64: 0, 1>, known_expanding_dimensions = array<i64: 0>}>
  %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x2xf32>) -> tensor<1x2x3xf32>
  %1 = stablehlo.broadcast %arg1, sizes = [1, 2] : (tensor<3xi32>) -> tensor<1x2x3xi32>
  %2 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg2, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>} : (tensor<1x2xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  func.return
}

// CHECK-LABEL: func.func @concatenate_and_slices
func.func @concatenate_and_slices(%arg0: tensor<3x8xf32>, %arg1: tensor<1x8xf32>, %i: tensor<i64>) -> () {
  // CHECK-NEXT: %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK-NEXT: %1 = stablehlo.slice %arg0 [1:3, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>
  // CHECK-NEXT: %2 = stablehlo.slice %arg0 [0:1, 0:8] : (tensor<3x8xf32>) -> tensor<1x8xf32>
  // CHECK-NEXT: %3 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [1, 4] : (tensor<3x8xf32>, tensor<i64>, tensor<i64>) -> tensor<1x4xf32>
  // CHECK-NEXT: %4 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg2 : (tensor<3x8xf32>, tensor<1x8xf32>, tensor<i64>, tensor<i64>) -> tensor<3x8xf32>
  // GENERIC: "stablehlo.concatenate"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{dimension = 0 : i64}>
  // GENERIC: "stablehlo.slice"(%{{[a-z]*[0-9]+}}) <{limit_indices = array<i64: 3, 8>, start_indices = array<i64: 1, 4>, strides = array<i64: 1, 2>}>
  // GENERIC: "stablehlo.dynamic_slice"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{slice_sizes = array<i64: 1, 4>}>
  %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<3x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = stablehlo.slice %arg0 [1:3:1, 4:8:2] : (tensor<3x8xf32>) -> tensor<2x2xf32>
  %2 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 8>, strides = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<1x8xf32>
  %3 = stablehlo.dynamic_slice %arg0, %i, %i, sizes = [1, 4] : (tensor<3x8xf32>, tensor<i64>, tensor<i64>) -> tensor<1x4xf32>
  %4 = stablehlo.dynamic_update_slice %arg0, %arg1, %i, %i : (tensor<3x8xf32>, tensor<1x8xf32>, tensor<i64>, tensor<i64>) -> tensor<3x8xf32>
  func.return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%arg0: tensor<2x3xi32>, %arg1: tensor<i32>, %arg2: tensor<2xindex>, %arg3: tensor<?x?xi32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  // CHECK-NEXT: %1 = stablehlo.dynamic_iota %arg2, dim = 0 : (tensor<2xindex>) -> tensor<?x?xi32>
  // CHECK-NEXT: %2 = stablehlo.reshape %arg0 : (tensor<2x3xi32>) -> tensor<6xi32>
  // CHECK-NEXT: %3 = stablehlo.dynamic_reshape %arg3, %arg2 : (tensor<?x?xi32>, tensor<2xindex>) -> tensor<?x?xi32>
  // CHECK-NEXT: %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  // CHECK-NEXT: %5 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<2x3xi32>
  // CHECK-NEXT: %6 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, -1], interior = [1, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x3xi32>
  // CHECK-NEXT: %7 = stablehlo.dynamic_pad %arg3, %arg1, %arg2, %arg2, %arg2 : (tensor<?x?xi32>, tensor<i32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xi32>
  // CHECK-NEXT: %8 = stablehlo.real_dynamic_slice %arg3, %arg2, %arg2, %arg2 : (tensor<?x?xi32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xi32>
  // CHECK-NEXT: %9 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xi32>) -> tensor<i32>
  // CHECK-NEXT: %10 = stablehlo.set_dimension_size %arg0, %9, dim = 1 : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x?xi32>
  // GENERIC: "stablehlo.iota"() <{iota_dimension = 1 : i64}> : () -> tensor<2x3xi32>
  // GENERIC: "stablehlo.transpose"(%{{[a-z]*[0-9]+}}) <{permutation = array<i64: 1, 0>}>
  // GENERIC: "stablehlo.reverse"(%{{[a-z]*[0-9]+}}) <{dimensions = array<i64: 0, 1>}>
  // GENERIC: "stablehlo.pad"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{edge_padding_high = array<i64: 2, -1>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 1, 0>}>
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %1 = stablehlo.dynamic_iota %arg2, dim = 0 : (tensor<2xindex>) -> tensor<?x?xi32>
  %2 = stablehlo.reshape %arg0 : (tensor<2x3xi32>) -> tensor<6xi32>
  %3 = stablehlo.dynamic_reshape %arg3, %arg2 : (tensor<?x?xi32>, tensor<2xindex>) -> tensor<?x?xi32>
  %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %5 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<2x3xi32>
  %6 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [2, -1], interior = [1, 0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x3xi32>
  %7 = stablehlo.dynamic_pad %arg3, %arg1, %arg2, %arg2, %arg2 : (tensor<?x?xi32>, tensor<i32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xi32>
  %8 = stablehlo.real_dynamic_slice %arg3, %arg2, %arg2, %arg2 : (tensor<?x?xi32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xi32>
  %9 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xi32>) -> tensor<i32>
  %10 = stablehlo.set_dimension_size %arg0, %9, dim = 1 : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x?xi32>
  func.return
}

// CHECK-LABEL: func.func @elementwise_selection
func.func @elementwise_selection(%p: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %s: tensor<f32>, %d: tensor<2x?xf32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<2x3xi1>, tensor<2x3xf32>
  // CHECK-NEXT: %1 = stablehlo.select %arg0, %arg1, %arg4 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %2 = stablehlo.clamp %arg1, %arg1, %arg2 : tensor<2x3xf32>
  // CHECK-NEXT: %3 = stablehlo.clamp %arg3, %arg1, %arg3 : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK-NEXT: %4 = stablehlo.complex %arg1, %arg2 : tensor<2x3xcomplex<f32>>
  // CHECK-NEXT: %5 = stablehlo.compare LT, %arg1, %arg2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // CHECK-NEXT: %6 = stablehlo.compare EQ, %arg1, %arg2, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  // GENERIC: "stablehlo.compare"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{comparison_direction = #stablehlo<comparison_direction LT>}>
  // GENERIC: "stablehlo.compare"(%{{[a-z]*[0-9]+}}, %{{[a-z]*[0-9]+}}) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction EQ>}>
  %0 = stablehlo.select %p, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>
  %1 = stablehlo.select %p, %a, %d : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.clamp %a, %a, %b : tensor<2x3xf32>
  %3 = stablehlo.clamp %s, %a, %s : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %4 = "stablehlo.complex"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xcomplex<f32>>
  %5 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %6 = stablehlo.compare EQ, %a, %b, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return
}

// CHECK-LABEL: func.func @tuples
func.func @tuples(%arg0: tensor<i32>, %arg1: tensor<2xf32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<i32>, tensor<2xf32>>
  // CHECK-NEXT: %1 = stablehlo.tuple : tuple<>
  // CHECK-NEXT: %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>
  // GENERIC: "stablehlo.get_tuple_element"(%{{[a-z]*[0-9]+}}) <{index = 1 : i32}>
  %0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<i32>, tensor<2xf32>>
  %1 = "stablehlo.tuple"() : () -> tuple<>
  %2 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<i32>, tensor<2xf32>>) -> tensor<2xf32>
  func.return
}

// Gather, dynamic_gather and scatter have no pretty form: upstream prints them generically, with
// the fields of #stablehlo.gather / #stablehlo.scatter that are empty (or 0) left out.
// CHECK-LABEL: func.func @gather_scatter
func.func @gather_scatter(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>, %sizes: tensor<3xi64>, %updates: tensor<2x3x2x2xi32>) -> () {
  // CHECK-NEXT: %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  // CHECK-NEXT: %1 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true}> : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>
  // CHECK-NEXT: %2 = "stablehlo.scatter"(%arg0, %arg1, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>, unique_indices = false}> ({
  // CHECK-NEXT: ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
  // CHECK-NEXT:   %3 = stablehlo.add %arg4, %arg5 : tensor<i32>
  // CHECK-NEXT:   stablehlo.return %3 : tensor<i32>
  // CHECK-NEXT: }) : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>
  %0 = "stablehlo.gather"(%operand, %indices) {
    dimension_numbers = #stablehlo.gather<
      index_vector_dim = 2,
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
    >,
    slice_sizes = array<i64: 1, 2, 2>
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  %1 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true}> : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>
  %2 = "stablehlo.scatter"(%operand, %indices, %updates) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %3 = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %3 : tensor<i32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [2, 3],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [1, 0],
      index_vector_dim = 2>,
    unique_indices = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>
  func.return
}

// CHECK-LABEL: func.func @batching_dims
func.func @batching_dims(%arg0: tensor<5x200x100x300xf32>, %arg1: tensor<5x10x2xi32>) -> tensor<5x10x300xf32> {
  // CHECK-NEXT: #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1, 2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1, 2], index_vector_dim = 2>
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1, 2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1, 2], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 1, 300>}> : (tensor<5x200x100x300xf32>, tensor<5x10x2xi32>) -> tensor<5x10x300xf32>
  func.return %0 : tensor<5x10x300xf32>
}
