// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the linalg, random, sort, collective and feed ops: each error in upstream's words (ODS, traits, TypeInference.cpp, StablehloOps.cpp).

// -----

func.func @einsum(%a: tensor<*xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'stablehlo.einsum' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<*xf32>'}}
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<*xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @unary_einsum(%a: tensor<2x3xindex>) {
  // expected-error @+1 {{'stablehlo.unary_einsum' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x3xindex>'}}
  %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"} : (tensor<2x3xindex>) -> tensor<2xf32>
  return
}

// -----

func.func @rng_normal_of_integers(%a: tensor<i32>, %s: tensor<1xi64>) {
  // expected-error @+2 {{mu and sigma must be floats}}
  // expected-error @+1 {{'stablehlo.rng' op failed to infer returned types}}
  %0 = stablehlo.rng %a, %a, %s, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<1xi64>) -> tensor<?xi32>
  return
}

// -----

func.func @rng_element_types(%a: tensor<f32>, %b: tensor<f64>, %s: tensor<1xi64>) {
  // expected-error @+1 {{'stablehlo.rng' op failed to verify that all of {a, b, result} have same element type}}
  %0 = stablehlo.rng %a, %b, %s, distribution = UNIFORM : (tensor<f32>, tensor<f64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @rng_bit_generator_state_shape(%s: tensor<2xui64>) {
  // expected-error @+1 {{output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and 'tensor<3xui64>'}}
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<3xui64>, tensor<2x2xui32>)
  return
}

// -----

func.func @rng_bit_generator_dynamic_output(%s: tensor<2xui64>) {
  // expected-error @+1 {{'stablehlo.rng_bit_generator' op result #1 must be statically shaped tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float values, but got 'tensor<?x2xui32>'}}
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<?xui64>, tensor<?x2xui32>)
  return
}

// -----

func.func @sort_dimension(%a: tensor<4xf32>) {
  // expected-error @+1 {{dimension attribute value must be in range [-1, 1), but found 3}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sort_comparator_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{comparator must return tensor<i1> but got 'tensor<f32>'}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_reduce_replica_ids(%a: tensor<4xf32>) {
  // expected-error @+1 {{replica id #1 seen more than once}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @collective_broadcast_replica_ids(%a: tensor<4xf32>) {
  // expected-error @+1 {{replica id #0 seen more than once}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @collective_broadcast_negative_id(%a: tensor<4xf32>) {
  // expected-error @+1 {{replica_groups values must be positive, but was given -2}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, -2]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @collective_permute_pairs_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{expect source_target_pairs attribute of shape (N, 2), but got (1, 3)}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @collective_permute_duplicate_sources(%a: tensor<4xf32>) {
  // expected-error @+1 {{duplicate sources not allowed.}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @cross_replica_sum_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.cross-replica-sum' op requires compatible types for all operands and results}}
  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @cross_replica_sum_groups_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.cross-replica-sum' op attribute 'replica_groups' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi32>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @infeed_last_result(%t: !stablehlo.token) {
  // expected-error @+1 {{last element of result types is expected to be of token type, but got 'tensor<2xi32>'}}
  %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>)
  return
}

// -----

func.func @infeed_layout_size(%t: !stablehlo.token) {
  // expected-error @+1 {{layout-attribute size must be 1 (which is the number of op-results - 1 (for token result)), but got 2}}
  %0:2 = "stablehlo.infeed"(%t) {layout = [[0], [0]]} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return
}

// -----

func.func @infeed_dynamic_result(%t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.infeed' op result #0 must be variadic of statically shaped tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or statically shaped tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values or token, but got 'tensor<?xi32>'}}
  %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<?xi32>, !stablehlo.token)
  return
}

// -----

func.func @outfeed_token(%a: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.outfeed' op operand #1 must be token, but got 'tensor<2xi32>'}}
  %0 = "stablehlo.outfeed"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> !stablehlo.token
  return
}

// -----

func.func @outfeed_result(%a: tensor<2xi32>, %t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.outfeed' op result #0 must be token, but got 'tensor<2xi32>'}}
  %0 = "stablehlo.outfeed"(%a, %t) : (tensor<2xi32>, !stablehlo.token) -> tensor<2xi32>
  return
}

// -----

func.func @recv_channel_type(%t: !stablehlo.token) {
  // expected-error @+1 {{channel_type should be HOST_TO_DEVICE when is_host_transfer is true}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return
}

// -----

func.func @recv_last_result(%t: !stablehlo.token) {
  // expected-error @+1 {{last element of result types is expected to be of token type, but got 'tensor<2xi32>'}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (!stablehlo.token) -> (tensor<2xi32>, tensor<2xi32>)
  return
}

// -----

func.func @send_channel_type(%a: tensor<2xi32>, %t: !stablehlo.token) {
  // expected-error @+2 {{channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false}}
  // expected-error @+1 {{'stablehlo.send' op failed to infer returned types}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @send_pairs_type(%a: tensor<2xi32>, %t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.send' op attribute 'source_target_pairs' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi32>} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @reduce_scatter_dimension(%a: tensor<4xf32>) {
  // expected-error @+1 {{scatter dim should be less than operand/result rank}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @async_start_body(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.async_start' op region must contain a collective or slice operation}}
  // expected-error @+1 {{'stablehlo.async_start' op failed to infer returned types}}
  %0 = "stablehlo.async_start"(%a) ({
  ^bb0(%x: tensor<4xf32>):
    %s = stablehlo.add %x, %x : tensor<4xf32>
    stablehlo.return %s : tensor<4xf32>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>
  return
}

// -----

// collective_reduce is newer than StableHLO 1.17 (jaxlib's oracle does not know it); the message
// is verifyReplicaGroups', as upstream's CollectiveReduceOp::verify (verifyCollectiveReduceOp) emits it.
func.func @collective_reduce_replica_ids(%a: tensor<4xf32>) {
  // expected-error @+1 {{replica id #1 seen more than once}}
  %0 = "stablehlo.collective_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// collective_reduce is newer than StableHLO 1.17 (jaxlib's oracle does not know it); upstream's
// InferTensorType check reports the mismatch, then that inference failed.
func.func @collective_reduce_result(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.collective_reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'stablehlo.collective_reduce' op failed to infer returned types}}
  %0 = "stablehlo.collective_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @sort_shapes(%a: tensor<4xf32>, %b: tensor<5xi32>) {
  // expected-error @+1 {{'stablehlo.sort' op requires the same shape for all operands and results}}
  %0:2 = "stablehlo.sort"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %u: tensor<i32>, %v: tensor<i32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>, tensor<5xi32>) -> (tensor<4xf32>, tensor<5xi32>)
  return
}

// -----

func.func @sort_no_inputs() {
  // expected-error @+1 {{'stablehlo.sort' op expected 1 or more operands, but found 0}}
  "stablehlo.sort"() ({
  ^bb0:
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : () -> ()
  return
}

// -----

func.func @sort_comparator_arity(%a: tensor<4xf32>) {
  // expected-error @+1 {{comparator block should have 2 arguments}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>):
    %c = stablehlo.compare LT, %x, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sort_comparator_argument(%a: tensor<4xf32>) {
  // expected-error @+1 {{comparator block argument #1 should be of type 'tensor<f32>' but got 'tensor<i32>'}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @sort_result(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.sort' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'stablehlo.sort' op failed to infer returned types}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @all_reduce_result(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.all_reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xi32>'}}
  // expected-error @+1 {{'stablehlo.all_reduce' op failed to infer returned types}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @all_reduce_global_device_ids(%a: tensor<4xf32>) {
  // expected-error @+1 {{channel_id must be positive when useGlobalDeviceIds is set but got: 0}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @collective_broadcast_result(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.collective_broadcast' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'stablehlo.collective_broadcast' op failed to infer returned types}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @collective_permute_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.collective_permute' op requires the same element type for all operands and results}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @reduce_scatter_negative_dimension(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.reduce_scatter' op attribute 'scatter_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = -1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @recv_dynamic_result(%t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.recv' op result #0 must be variadic of statically shaped tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or statically shaped tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values or token, but got 'tensor<?xi32>'}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>} : (!stablehlo.token) -> (tensor<?xi32>, !stablehlo.token)
  return
}

// -----

func.func @all_gather_replica_ids(%a: tensor<4xf32>) {
  // expected-error @+1 {{replica id #1 not seen in replica groups}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @all_to_all_group_size(%a: tensor<4xf32>) {
  // expected-error @+2 {{group size of replica_groups must be 2}}
  // expected-error @+1 {{'stablehlo.all_to_all' op failed to infer returned types}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @async_start_argument_type(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.async_start' op operand type 'tensor<4xf32>' at index 0 must match region argument type 'tensor<4xf64>'}}
  // expected-error @+1 {{'stablehlo.async_start' op failed to infer returned types}}
  %0 = "stablehlo.async_start"(%a) ({
  ^bb0(%x: tensor<4xf64>):
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf64>) -> tensor<4xf64>
    stablehlo.return %p : tensor<4xf64>
  }) : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf64>>
  return
}

// -----

func.func @async_done_operand(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.async_done' op operand #0 must be future, but got 'tensor<4xf32>'}}
  %0 = "stablehlo.async_done"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_gather_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_gather' op requires the same element type for operand and result at index 0}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xi32>
  return
}

// -----

func.func @all_gather_result_size(%a: tensor<4xf32>) {
  // expected-error @+1 {{result gather dimension has size 6, expected to be a multiple of operand gather dimension size 4}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @all_to_all_element_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_to_all' op requires the same element type for operand and result at index 0}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

func.func @all_to_all_split_size(%a: tensor<3xf32>) {
  // expected-error @+2 {{split dimension has size 3, expected to be a multiple of split_count 2}}
  // expected-error @+1 {{'stablehlo.all_to_all' op failed to infer returned types}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @send_host_channel_type(%a: tensor<2xi32>, %t: !stablehlo.token) {
  // expected-error @+2 {{channel_type should be DEVICE_TO_HOST when is_host_transfer is true}}
  // expected-error @+1 {{'stablehlo.send' op failed to infer returned types}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, is_host_transfer = true} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @dot_general_batch_sizes(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{batching dimension sizes must match for lhs/rhs}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @dot_general_precision_config(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{expects precision config to be empty or have <= 2 elements, got 3}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @dot_general_duplicated_dimension(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{has duplicated dimension from lhs_batching_dimensions and lhs_contracting_dimensions: 1}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1, 1], rhs_contracting_dimensions = [0, 0]>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @convolution_feature_group_count(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>) {
  // expected-error @+1 {{expects input feature dimension (3) to be a multiple of feature_group_count. Got feature_group_count = 2.}}
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @convolution_padding(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>) {
  // expected-error @+1 {{expects padding-entries to have same dimension-size as size of window dimensions (2), but got: 1.}}
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @dynamic_conv_padding_type(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>, %p: tensor<2x2xf32>) {
  // expected-error @+1 {{'stablehlo.dynamic_conv' op operand #2 must be statically shaped 2-dimensional integer tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2x2xf32>'}}
  %0 = "stablehlo.dynamic_conv"(%a, %w, %p) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>, tensor<2x2xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @dynamic_conv_padding_shape(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>, %p: tensor<3x2xi64>) {
  // expected-error @+1 {{expects padding to be of shape [2, 2], but got [3, 2]}}
  %0 = "stablehlo.dynamic_conv"(%a, %w, %p) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>, tensor<3x2xi64>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @reduce_body_result(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{The type of reduction-region's parameter at index 0 is different than the corresponding result type: 'tensor<f32>' vs 'tensor<i1>'}}
  %0 = stablehlo.reduce(%a init: %i) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }
  return
}

// -----

func.func @reduce_window_stride(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects window to have positive stride for 0-th window dimension, but got 0.}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----

func.func @select_and_scatter_select_result(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects the return-type of select-region to be tensor<i1>, but got: 'tensor<f32>'}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %r = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_precision_operand(%a: tensor<4xi32>) {
  // expected-error @+1 {{'stablehlo.reduce_precision' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<4xi32>'}}
  %0 = stablehlo.reduce_precision %a, format = e5m10 : tensor<4xi32>
  return
}

// -----

func.func @cholesky_rank(%a: tensor<3xf32>) {
  // expected-error @+2 {{argument 'a' must have rank >= 2, got shape 3.}}
  // expected-error @+1 {{'stablehlo.cholesky' op failed to infer returned types}}
  %0 = "stablehlo.cholesky"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @triangular_solve_shared_dimension(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{shared dimension of operands 'a' and 'b' must be compatible, but got 'tensor<3x3xf32>' and 'tensor<4x2xf32>'}}
  // expected-error @+1 {{'stablehlo.triangular_solve' op failed to infer returned types}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @batch_norm_inference_feature_index(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.batch_norm_inference' op attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = -1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_training_feature_count(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+2 {{expects the size of single-dimensional operands to be compatible with feature count, but the size of single-dimensional operands is 2 and the feature count is 3.}}
  // expected-error @+1 {{'stablehlo.batch_norm_training' op failed to infer returned types}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @batch_norm_grad_result(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'stablehlo.batch_norm_grad' op inferred type(s) 'tensor<2x3xf32>', 'tensor<3xf32>', 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>', 'tensor<3xf32>', 'tensor<2xf32>'}}
  // expected-error @+1 {{'stablehlo.batch_norm_grad' op failed to infer returned types}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>)
  return
}

// -----

func.func @rng_operand_rank(%a: tensor<1xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{'stablehlo.rng' op operand #0 must be 0D tensor of bool or 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float values, but got 'tensor<1xf32>'}}
  %0 = stablehlo.rng %a, %a, %s, distribution = UNIFORM : (tensor<1xf32>, tensor<1xf32>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @rng_shape_operand(%a: tensor<f32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{'stablehlo.rng' op operand #2 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<?xi64>'}}
  %0 = stablehlo.rng %a, %a, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<?xi64>) -> tensor<*xf32>
  return
}

// -----

func.func @fft_operand_type(%a: tensor<8xi32>) {
  // expected-error @+1 {{'stablehlo.fft' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<8xi32>'}}
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xi32>) -> tensor<8xi32>
  return
}

// -----

func.func @cholesky_operand_type(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{'stablehlo.cholesky' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<3x3xi32>'}}
  %0 = "stablehlo.cholesky"(%a) : (tensor<3x3xi32>) -> tensor<3x3xi32>
  return
}

// -----

func.func @batch_norm_inference_element_types(%x: tensor<2x3xf32>, %s: tensor<3xf64>) {
  // expected-error @+1 {{'stablehlo.batch_norm_inference' op requires compatible element types for all operands and results}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_inference_operand_type(%x: tensor<2x3xi32>, %s: tensor<3xi32>) {
  // expected-error @+1 {{'stablehlo.batch_norm_inference' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2x3xi32>'}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return
}

// -----

func.func @batch_norm_training_epsilon(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.batch_norm_training' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 0.001 : f64, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @reduce_precision_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.reduce_precision' op requires compatible types for all operands and results}}
  %0 = stablehlo.reduce_precision %a, format = e5m10 : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @dot_operand_type(%a: tensor<2x3xindex>, %b: tensor<3xindex>) {
  // expected-error @+1 {{'stablehlo.dot' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x3xindex>'}}
  %0 = "stablehlo.dot"(%a, %b) : (tensor<2x3xindex>, tensor<3xindex>) -> tensor<2xindex>
  return
}

// -----

func.func @dot_result_shape(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{inferred shape '[2]' is incompatible with return type of operation 'tensor<3xf32>'}}
  %0 = "stablehlo.dot"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @dot_general_precision_kind(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'stablehlo.dot_general' op attribute 'precision_config' failed to satisfy constraint: Precision Config attribute}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [1, 2]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @convolution_batch_group_count(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'batch_group_count' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "stablehlo.convolution"(%a, %w) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 0 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @reduce_result(%a: tensor<4x5xf32>, %i: tensor<f32>) {
  // expected-error @+2 {{'stablehlo.reduce' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'stablehlo.reduce' op failed to infer returned types}}
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<5xf32>
  return
}

// -----

func.func @reduce_duplicate_dimension(%a: tensor<4x5xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{Duplicate reduction dimension: 1}}
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [1, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_window_result(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+2 {{'stablehlo.reduce_window' op inferred type(s) 'tensor<3xf32>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error @+1 {{'stablehlo.reduce_window' op failed to infer returned types}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_and_scatter_result(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) {
  // expected-error @+2 {{'stablehlo.select_and_scatter' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<4xf64>'}}
  // expected-error @+1 {{'stablehlo.select_and_scatter' op failed to infer returned types}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %r = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf64>
  return
}

// -----

func.func @sort_comparator_blocks(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.sort' op region #0 ('comparator') failed to verify constraint: region with 1 blocks}}
  %0 = "stablehlo.sort"(%a) ({
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_reduce_empty_block(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_reduce' op expects a non-empty block}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_scatter_no_terminator(%a: tensor<4xf32>) {
  // expected-error @+1 {{The reduction-region expected to have a terminator}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @all_gather_unranked(%a: tensor<*xf32>) {
  // expected-error @+1 {{'stablehlo.all_gather' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<*xf32>'}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<*xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @collective_permute_unranked_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.collective_permute' op result #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<*xf32>'}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<*xf32>
  return
}

// -----

func.func @reduce_unranked_input(%a: tensor<*xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.reduce' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<*xf32>'}}
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [0] : (tensor<*xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_window_negative_window(%a: tensor<4x6xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects window to have positive value for 0-th window dimension, but got -1.}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: -1, 2>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @map_shapes(%a: tensor<4x5xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'stablehlo.map' op requires the same shape for all operands and results}}
  %0 = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 0, 1>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @reduce_precision_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.reduce_precision' op all non-scalar operands/results must have the same shape and base type}}
  %0 = stablehlo.reduce_precision %a, format = e5m10 : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @all_reduce_replica_groups_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_reduce' op attribute 'replica_groups' failed to satisfy constraint: 64-bit signless integer elements attribute or mesh and axes based replica groups representation.}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi32>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// MLIR checks an op's attributes in the order of their names: concat_dimension before split_count.
func.func @all_to_all_attribute_order(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_to_all' op attribute 'concat_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = -1 : i64, concat_dimension = -1 : i64, split_count = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @convolution_attribute_order(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'batch_group_count' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "stablehlo.convolution"(%a, %w) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 0 : i64, feature_group_count = 0 : i64} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @all_gather_channel_handle_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_gather' op attribute 'channel_handle' failed to satisfy constraint: two 64-bit integers 'handle' and 'type'}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = 3 : i64} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @all_gather_use_global_device_ids_kind(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.all_gather' op attribute 'use_global_device_ids' failed to satisfy constraint: unit attribute}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids = 1 : i64} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @send_channel_handle_kind(%a: tensor<2xi32>, %t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.send' op attribute 'channel_handle' failed to satisfy constraint: two 64-bit integers 'handle' and 'type'}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = 1 : i64} : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @reduce_window_padding_kind(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.reduce_window' op attribute 'padding' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, padding = dense<[[1, 1]]> : tensor<1x2xi32>} : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
  return
}

// -----

func.func @convolution_padding_kind(%a: tensor<1x4x4x3xf32>, %w: tensor<2x2x3x4xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'padding' failed to satisfy constraint: 64-bit signless integer elements attribute}}
  %0 = "stablehlo.convolution"(%a, %w) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi32>} : (tensor<1x4x4x3xf32>, tensor<2x2x3x4xf32>) -> tensor<1x3x3x4xf32>
  return
}

// -----

func.func @dot_precision_config_kind(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.dot' op attribute 'precision_config' failed to satisfy constraint: Precision Config attribute}}
  %0 = "stablehlo.dot"(%a, %b) {precision_config = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @infeed_layout_kind(%t: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.infeed' op attribute 'layout' failed to satisfy constraint: array attribute}}
  %0:2 = "stablehlo.infeed"(%t) {layout = 1 : i64} : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
  return
}

// -----

func.func @dot_general_algorithm_precision(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{must specify DEFAULT precision config when algorithm is set.}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST], algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @select_and_scatter_source_type(%a: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects source-type to be 'tensor<3xf32>', but got'tensor<2xf32>'}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %i) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare GE, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %r = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>} : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return
}
