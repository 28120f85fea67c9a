// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Collective and communication ops (generic form, as upstream prints them), replica_id and
// partition_id, #stablehlo.channel_handle, replica groups.

// CHECK-LABEL: func.func @ids_and_feeds
// CHECK-NEXT: %0 = stablehlo.replica_id : tensor<ui32>
// CHECK-NEXT: %1 = stablehlo.partition_id : tensor<ui32>
// CHECK-NEXT{LITERAL}: %2:2 = "stablehlo.infeed"(%arg0) <{infeed_config = "cfg", layout = [[1, 0]]}> : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
// CHECK-NEXT: %3 = "stablehlo.outfeed"(%arg1, %2#1) <{outfeed_config = ""}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT: %4 = "stablehlo.send"(%arg1, %3) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT: %5:2 = "stablehlo.recv"(%4) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
// CHECK-NEXT{LITERAL}: %6 = "stablehlo.send"(%arg1, %5#1) <{channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT: return %6 : !stablehlo.token
// GENERIC: "stablehlo.replica_id"() : () -> tensor<ui32>
// GENERIC: "stablehlo.partition_id"() : () -> tensor<ui32>
// GENERIC: "stablehlo.infeed"(%{{[a-z0-9_#]+}}) <{infeed_config = "cfg", layout = {{\[\[}}1, 0]]}> : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
// GENERIC: "stablehlo.outfeed"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{outfeed_config = ""}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
// GENERIC: "stablehlo.send"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
// GENERIC: "stablehlo.recv"(%{{[a-z0-9_#]+}}) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
// GENERIC: "stablehlo.send"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>, source_target_pairs = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
func.func @ids_and_feeds(%token: !stablehlo.token, %x: tensor<3x4xi32>) -> !stablehlo.token {
  %0 = "stablehlo.replica_id"() : () -> tensor<ui32>
  %1 = stablehlo.partition_id : tensor<ui32>
  %2:2 = "stablehlo.infeed"(%token) {infeed_config = "cfg", layout = [[1, 0]]} : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
  %3 = "stablehlo.outfeed"(%x, %2#1) : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
  %4 = "stablehlo.send"(%x, %3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
  %5:2 = "stablehlo.recv"(%4) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<3x4xi32>, !stablehlo.token)
  %6 = "stablehlo.send"(%x, %5#1) {channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<3x4xi32>, !stablehlo.token) -> !stablehlo.token
  func.return %6 : !stablehlo.token
}

// CHECK-LABEL: func.func @collectives
// CHECK-NEXT{LITERAL}: %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<2x8xf32>
// CHECK-NEXT{LITERAL}: %1:2 = "stablehlo.all_gather"(%arg0, %arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// CHECK-NEXT{LITERAL}: %2 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %8 : tensor<f32>
// CHECK-NEXT: }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT{LITERAL}: %3 = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK-NEXT{LITERAL}: %4 = "stablehlo.reduce_scatter"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 1 : i64}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %8 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %8 : tensor<f32>
// CHECK-NEXT: }) : (tensor<2x4xf32>) -> tensor<2x2xf32>
// CHECK-NEXT{LITERAL}: %5 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT{LITERAL}: %6 = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT{LITERAL}: %7 = "stablehlo.cross-replica-sum"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: stablehlo.return
// GENERIC: "stablehlo.all_gather"(%{{[a-z0-9_#]+}}) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x4xf32>) -> tensor<2x8xf32>
// GENERIC: "stablehlo.all_gather"(%{{[a-z0-9_#]+}}, %{{[a-z0-9_#]+}}) <{all_gather_dim = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
// GENERIC: "stablehlo.all_reduce"(%{{[a-z0-9_#]+}}) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
// GENERIC: "stablehlo.all_to_all"(%{{[a-z0-9_#]+}}) <{concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x4xf32>) -> tensor<4x2xf32>
// GENERIC: "stablehlo.reduce_scatter"(%{{[a-z0-9_#]+}}) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, scatter_dimension = 1 : i64}> ({
// GENERIC: "stablehlo.return"(%{{[a-z0-9_#]+}}) : (tensor<f32>) -> ()
// GENERIC: "stablehlo.collective_permute"(%{{[a-z0-9_#]+}}) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, source_target_pairs = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
func.func @collectives(%arg0: tensor<2x4xf32>, %root: tensor<1xi32>) -> () {
  %0 = "stablehlo.all_gather"(%arg0) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  %1:2 = "stablehlo.all_gather"(%arg0, %arg0) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
  %2 = "stablehlo.all_reduce"(%arg0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %3 = "stablehlo.all_to_all"(%arg0) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %4 = "stablehlo.reduce_scatter"(%arg0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x2xf32>
  %5 = "stablehlo.collective_permute"(%arg0) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %6 = "stablehlo.collective_broadcast"(%arg0) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %7 = "stablehlo.cross-replica-sum"(%arg0) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  "stablehlo.return"() : () -> ()
}

// The mesh of mesh-axes replica groups must name a visible symbol (verifySymbolUses).
// CHECK-LABEL: func.func private @mesh()
func.func private @mesh()

// CHECK-LABEL: func.func @dynamic_roots_and_mesh_axes
// CHECK-NEXT{LITERAL}: %0 = "stablehlo.collective_broadcast"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, has_dynamic_root, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<16x8xf32>, tensor<1xi32>) -> tensor<16x8xf32>
// CHECK{LITERAL}: "stablehlo.collective_reduce"(%arg2, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, has_dynamic_root, replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>, use_global_device_ids}> ({
// CHECK: "stablehlo.all_reduce"(%arg2) <{replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>, #stablehlo.axis_ref<name = "y">]>}> ({
// CHECK: %[[F:.*]] = "stablehlo.async_start"(%arg2) ({
// CHECK: "stablehlo.collective_permute"
// CHECK: }) : (tensor<f32>) -> !stablehlo.future<tensor<f32>>
// CHECK-NEXT: "stablehlo.async_done"(%[[F]]) : (!stablehlo.future<tensor<f32>>) -> tensor<f32>
func.func @dynamic_roots_and_mesh_axes(%arg0: tensor<16x8xf32>, %arg1: tensor<1xi32>, %arg2: tensor<f32>) -> () {
  %0 = "stablehlo.collective_broadcast"(%arg0, %arg1) {
    replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
    channel_handle = #stablehlo.channel_handle<type = 0, handle = 1>,
    has_dynamic_root
  } : (tensor<16x8xf32>, tensor<1xi32>) -> tensor<16x8xf32>
  %1 = "stablehlo.collective_reduce"(%arg2, %arg1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {
    replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>,
    channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>,
    use_global_device_ids,
    has_dynamic_root
  } : (tensor<f32>, tensor<1xi32>) -> tensor<f32>
  %2 = "stablehlo.all_reduce"(%arg2) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {
    replica_groups = #stablehlo.replica_group_mesh_axes<
      mesh = @mesh,
      axes = [#stablehlo.axis_ref<name = "x", sub_axis_info = (1)2>, #stablehlo.axis_ref<name = "y">]
    >
  } : (tensor<f32>) -> tensor<f32>
  %3 = "stablehlo.async_start"(%arg2) ({
  ^bb0(%a: tensor<f32>):
    %p = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%p) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> !stablehlo.future<tensor<f32>>
  %4 = "stablehlo.async_done"(%3) : (!stablehlo.future<tensor<f32>>) -> tensor<f32>
  "stablehlo.return"() : () -> ()
}
