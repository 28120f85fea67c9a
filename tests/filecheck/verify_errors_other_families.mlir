// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the other op families (data movement, control flow, linalg, reduction, collectives): one chunk per op whose error we already word as upstream.

// -----

func.func @create_token(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.create_token' op result #0 must be token, but got 'tensor<2xf32>'}}
  %0 = "stablehlo.create_token"() : () -> tensor<2xf32>
  return
}

// -----

func.func @if(%a: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.if' op operand #0 must be ranked tensor of bool values, but got 'tensor<i32>'}}
  "stablehlo.if"(%a) ({ stablehlo.return }, { stablehlo.return }) : (tensor<i32>) -> ()
  return
}

// -----

func.func @while(%a: tensor<2xf32>) {
  // expected-error @+1 {{expect condition block return a zero-ranked tensor of i1 but got 'tensor<2xf32>'}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<2xf32>): stablehlo.return %x : tensor<2xf32> }, { ^bb0(%x: tensor<2xf32>): stablehlo.return %x : tensor<2xf32> }) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast(%a: tensor<2xf32>) {
  // expected-error @+2 {{'stablehlo.broadcast' op failed to infer returned types}}
  // expected-error @+1 {{'stablehlo.broadcast' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = stablehlo.broadcast %a, sizes = [3] : (tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @broadcast_in_dim(%a: tensor<3xf32>) {
  // expected-error @+1 {{size of operand dimension 0 (3) is not equal to 1 or size of result dimension 1 (4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @clamp(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'stablehlo.clamp' op failed to infer returned types}}
  // expected-error @+1 {{min shape [3] is not scalar and is not compatible to operand shape [2]}}
  %0 = stablehlo.clamp %b, %a, %a : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @concatenate(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+2 {{'stablehlo.concatenate' op failed to infer returned types}}
  // expected-error @+1 {{shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @dynamic_broadcast_in_dim(%a: tensor<3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0, 1] : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_iota(%s: tensor<2xi64>) {
  // expected-error @+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = stablehlo.dynamic_iota %s, dim = 2 : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @dynamic_pad(%a: tensor<4xf32>, %p: tensor<f32>, %l: tensor<2xi64>) {
  // expected-error @+1 {{padding operands size (2) must match operand rank (1)}}
  %0 = stablehlo.dynamic_pad %a, %p, %l, %l, %l : (tensor<4xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @dynamic_reshape(%a: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{result should have a rank equal to the number of elements in output_shape}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @dynamic_slice(%a: tensor<4xf32>, %i: tensor<i64>) {
  // expected-error @+2 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  // expected-error @+1 {{has slice size 5 greater than dimension size 4 in dimension 0 of operand}}
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [5] : (tensor<4xf32>, tensor<i64>) -> tensor<5xf32>
  return
}

// -----

func.func @dynamic_update_slice(%a: tensor<4xf32>, %u: tensor<5xf32>, %i: tensor<i64>) {
  // expected-error @+2 {{'stablehlo.dynamic_update_slice' op failed to infer returned types}}
  // expected-error @+1 {{expects size at dimension 0 of update to be in range [0, 4]. Got: 5.}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<4xf32>, tensor<5xf32>, tensor<i64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather(%a: tensor<2x4x9xi32>, %b: tensor<1x5x2xi32>) {
  // expected-error @+2 {{'stablehlo.gather' op failed to infer returned types}}
  // expected-error @+1 {{slice_sizes size (2) not equal to operand rank (3)}}
  %0 = "stablehlo.gather"(%a, %b) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], index_vector_dim = 2, offset_dims = [2], start_index_map = [0, 1]>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  return
}

// -----

func.func @get_dimension_size(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.get_dimension_size' op failed to infer returned types}}
  // expected-error @+1 {{requires dimension attribute in range [0, 1); found (1)}}
  %0 = stablehlo.get_dimension_size %a, dim = 1 : (tensor<4xf32>) -> tensor<i32>
  return
}

// -----

func.func @get_tuple_element(%a: tuple<tensor<f32>>) {
  // expected-error @+2 {{'stablehlo.get_tuple_element' op failed to infer returned types}}
  // expected-error @+1 {{index 1 is out of bounds of operand with size 1}}
  %0 = stablehlo.get_tuple_element %a[1] : (tuple<tensor<f32>>) -> tensor<f32>
  return
}

// -----

func.func @iota() {
  // expected-error @+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = stablehlo.iota dim = 1 : tensor<4xf32>
  return
}

// -----

func.func @pad(%a: tensor<4xf32>, %p: tensor<f32>) {
  // expected-error @+2 {{'stablehlo.pad' op failed to infer returned types}}
  // expected-error @+1 {{edge_padding_low length (2) must match operand rank (1)}}
  %0 = stablehlo.pad %a, %p, low = [1, 1], high = [1, 1], interior = [0, 0] : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return
}

// -----

func.func @real_dynamic_slice(%a: tensor<4xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{has mismatched number of operand rank (1) and start_indices size (2)}}
  %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
  return
}

// -----

func.func @reshape(%a: tensor<4xf32>) {
  // expected-error @+1 {{number of output elements (5) doesn't match expected number of elements (4)}}
  %0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @reverse(%a: tensor<4xf32>) {
  // expected-error @+1 {{all dimensions should be between [0, 1). Got dimension: 1.}}
  %0 = stablehlo.reverse %a, dims = [1] : tensor<4xf32>
  return
}

// -----

func.func @set_dimension_size(%a: tensor<4xf32>, %s: tensor<i32>) {
  // expected-error @+2 {{'stablehlo.set_dimension_size' op failed to infer returned types}}
  // expected-error @+1 {{requires dimension attribute in range [0, 1); found (1)}}
  %0 = stablehlo.set_dimension_size %a, %s, dim = 1 : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----

func.func @slice(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.slice' op failed to infer returned types}}
  // expected-error @+1 {{limit index 5 is larger than dimension size 4 in dimension 0}}
  %0 = stablehlo.slice %a [0:5] : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @transpose(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'stablehlo.transpose' op failed to infer returned types}}
  // expected-error @+1 {{attribute permutation must be a permutation of [0, 1] but got 0, 0}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @tuple(%a: tensor<f32>) {
  // expected-error @+2 {{'stablehlo.tuple' op failed to infer returned types}}
  // expected-error @+1 {{'stablehlo.tuple' op inferred type(s) 'tuple<tensor<f32>>' are incompatible with return type(s) of operation 'tuple<tensor<i32>>'}}
  %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tuple<tensor<i32>>
  return
}

// -----

func.func @batch_norm_grad(%a: tensor<2x2xf32>, %s: tensor<3xf32>) {
  // expected-error @+2 {{'stablehlo.batch_norm_grad' op failed to infer returned types}}
  // expected-error @+1 {{expects the size of single-dimensional operands to be compatible with feature count, but the size of single-dimensional operands is 3 and the feature count is 2.}}
  %0:3 = "stablehlo.batch_norm_grad"(%a, %s, %s, %s, %a) {epsilon = 0.001 : f32, feature_index = 1 : i64} : (tensor<2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_inference(%a: tensor<2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+2 {{'stablehlo.batch_norm_inference' op failed to infer returned types}}
  // expected-error @+1 {{expects featureIndex to be smaller than the rank of multi-dimensional operands; got featureIndex 2, and rank 2.}}
  %0 = "stablehlo.batch_norm_inference"(%a, %s, %s, %s, %s) {epsilon = 0.001 : f32, feature_index = 2 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @batch_norm_training(%a: tensor<2x2xf32>, %s: tensor<2xf32>) {
  // expected-error @+2 {{'stablehlo.batch_norm_training' op failed to infer returned types}}
  // expected-error @+1 {{expects featureIndex to be smaller than the rank of multi-dimensional operands; got featureIndex 2, and rank 2.}}
  %0:3 = "stablehlo.batch_norm_training"(%a, %s, %s) {epsilon = 0.001 : f32, feature_index = 2 : i64} : (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @cholesky(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'stablehlo.cholesky' op failed to infer returned types}}
  // expected-error @+1 {{minor dimensions of 'a' must have equal size, got shape 2, 3.}}
  %0 = "stablehlo.cholesky"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @convolution(%a: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects window-strides to have same dimension-size as size of window dimensions (2), but got: 1.}}
  %0 = stablehlo.convolution(%a, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x6x6x1xf32>
  return
}

// -----

func.func @dot(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expected both lhs/rhs ranks to be either 1 or 2}}
  %0 = "stablehlo.dot"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_general(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{contracting dimension sizes must match for lhs/rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dynamic_conv(%a: tensor<1x8x8x1xf32>, %w: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_conv' op attribute 'feature_group_count' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %0 = "stablehlo.dynamic_conv"(%a, %w, %p) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 0 : i64} : (tensor<1x8x8x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x6x6x1xf32>
  return
}

// -----

func.func @fft(%a: tensor<8xf32>) {
  // expected-error @+2 {{'stablehlo.fft' op failed to infer returned types}}
  // expected-error @+1 {{FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<8xf32>'.}}
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xf32>) -> tensor<8xcomplex<f32>>
  return
}

// -----

func.func @triangular_solve(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'stablehlo.triangular_solve' op failed to infer returned types}}
  // expected-error @+1 {{two minor dimensions of operand 'a' must be compatible, but got 'tensor<2x3xf32>'}}
  %0 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @map(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.map' op failed to infer returned types}}
  // expected-error @+1 {{requires monotonically increasing dimension numbers, but got: 1}}
  %0 = "stablehlo.map"(%a) ({ ^bb0(%x: tensor<f32>): stablehlo.return %x : tensor<f32> }) {dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce(%a: tensor<4x5xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{Out-of-bounds dimension 2, expected to be in range [0, 2)}}
  %0 = stablehlo.reduce(%a init: %i) applies stablehlo.add across dimensions = [2] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_window(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects window-dimensions size == input rank, but got window-dimensions size: 2 and input: 'tensor<4xf32>' with rank = 1.}}
  %0 = "stablehlo.reduce_window"(%a, %i) ({ ^bb0(%x: tensor<f32>, %y: tensor<f32>): stablehlo.return %x : tensor<f32> }) {window_dimensions = array<i64: 1, 1>} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_and_scatter(%a: tensor<4xf32>, %i: tensor<f32>) {
  // expected-error @+1 {{expects window-dimensions size == operand rank, but got window-dimensions size: 2 and operand-type: 'tensor<4xf32>' with rank = 1.}}
  %0 = "stablehlo.select_and_scatter"(%a, %a, %i) ({ ^bb0(%x: tensor<f32>, %y: tensor<f32>): %c = stablehlo.compare GT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1> stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<f32>, %y: tensor<f32>): stablehlo.return %x : tensor<f32> }) {window_dimensions = array<i64: 1, 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_gather(%a: tensor<2x4xf32>) {
  // expected-error @+1 {{all_gather_dim must be a valid index of operand}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 5 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @all_to_all(%a: tensor<4xf32>) {
  // expected-error @+2 {{'stablehlo.all_to_all' op failed to infer returned types}}
  // expected-error @+1 {{AllToAll split_dimension 3 is out-of-bounds for input rank 1}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 3 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @partition_id() {
  // expected-error @+1 {{'stablehlo.partition_id' op result #0 must be ranked tensor of 32-bit unsigned integer values, but got 'tensor<i32>'}}
  %0 = "stablehlo.partition_id"() : () -> tensor<i32>
  return
}

// -----

func.func @replica_id() {
  // expected-error @+1 {{'stablehlo.replica_id' op result #0 must be ranked tensor of 32-bit unsigned integer values, but got 'tensor<i64>'}}
  %0 = "stablehlo.replica_id"() : () -> tensor<i64>
  return
}

// -----

func.func @send(%a: tensor<4xf32>, %t: !stablehlo.token) {
  // expected-error @+2 {{'stablehlo.send' op failed to infer returned types}}
  // expected-error @+1 {{channel_type should be DEVICE_TO_HOST when is_host_transfer is true}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 3>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----

func.func @async_done(%a: tensor<4xf32>) {
  // expected-error @+1 {{'stablehlo.async_done' op operand #0 must be future, but got 'tensor<4xf32>'}}
  %0 = "stablehlo.async_done"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return
}
