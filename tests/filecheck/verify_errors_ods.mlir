// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of ODS constraints: the 1-D shape operands of dynamic ops and properties of the wrong kind (MLIR's generated messages, as jaxlib's StableHLO 1.17 emits them).

func.func @dynamic_reshape_shape_rank(%a: tensor<?xf32>, %s: tensor<2x2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_reshape' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x2xi64>'}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2x2xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_reshape_shape_element(%a: tensor<?xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.dynamic_reshape' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xf32>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_reshape_shape_dynamic(%a: tensor<?xf32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_reshape' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<?xi64>'}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_broadcast_in_dim_output_dimensions(%a: tensor<?xf32>, %s: tensor<2x2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_broadcast_in_dim' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x2xi64>'}}
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [0] : (tensor<?xf32>, tensor<2x2xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_iota_output_shape(%s: tensor<2x2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_iota' op operand #0 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x2xi64>'}}
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<2x2xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_pad_edge_padding_low(%a: tensor<?xf32>, %p: tensor<f32>, %s: tensor<1x1xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op operand #2 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<1x1xi64>'}}
  %0 = stablehlo.dynamic_pad %a, %p, %s, %s, %s : (tensor<?xf32>, tensor<f32>, tensor<1x1xi64>, tensor<1x1xi64>, tensor<1x1xi64>) -> tensor<?xf32>
  return
}
// -----

func.func @rng_shape(%a: tensor<f32>, %s: tensor<2x1xi64>) {
  // expected-error @+1 {{'stablehlo.rng' op operand #2 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x1xi64>'}}
  %0 = stablehlo.rng %a, %a, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2x1xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @dynamic_gather_slice_sizes(%a: tensor<2x4x9xi32>, %i: tensor<1x5x2xi32>, %s: tensor<3x1xi32>) {
  // expected-error @+1 {{'stablehlo.dynamic_gather' op operand #2 must be statically shaped 1-dimensional integer tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<3x1xi32>'}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], index_vector_dim = 2, offset_dims = [2], start_index_map = [0, 1]>, indices_are_sorted = false} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>, tensor<3x1xi32>) -> tensor<1x5x8xi32>
  return
}
// -----

func.func @dynamic_conv_padding(%a: tensor<1x8x8x207xf32>, %w: tensor<3x3x207x16xf32>, %p: tensor<2x2x2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_conv' op operand #2 must be statically shaped 2-dimensional integer tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<2x2x2xi64>'}}
  %0 = "stablehlo.dynamic_conv"(%a, %w, %p) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x207xf32>, tensor<3x3x207x16xf32>, tensor<2x2x2xi64>) -> tensor<1x?x?x16xf32>
  return
}
// -----

func.func @transpose_float_array(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.transpose"(%a) {permutation = array<f32: 1.0, 0.0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
// -----

func.func @transpose_string(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.transpose' op attribute 'permutation' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.transpose"(%a) {permutation = "x"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}
// -----

func.func @reverse_i32_array(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.reverse' op attribute 'dimensions' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i32: 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @broadcast_in_dim_array_attr(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op attribute 'broadcast_dimensions' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = [0, 1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @slice_dense_strides(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.slice' op attribute 'strides' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 1>, strides = dense<1> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return
}
// -----

func.func @concatenate_float_dimension(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.concatenate' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0.0 : f32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}
// -----

func.func @concatenate_i32_dimension(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.concatenate' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}
// -----

func.func @iota_i32_dimension() {
  // expected-error @+1 {{'stablehlo.iota' op attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i32} : () -> tensor<2x3xf32>
  return
}
// -----

func.func @dynamic_iota_i32_dimension(%s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.dynamic_iota' op attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i32} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}
// -----

func.func @get_dimension_size_i32_dimension(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.get_dimension_size' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.get_dimension_size"(%a) {dimension = 0 : i32} : (tensor<2x3xf32>) -> tensor<i32>
  return
}
// -----

func.func @get_tuple_element_i64_index(%t: tuple<tensor<2x3xf32>>) {
  // expected-error @+1 {{'stablehlo.get_tuple_element' op attribute 'index' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i64} : (tuple<tensor<2x3xf32>>) -> tensor<2x3xf32>
  return
}
// -----

func.func @reduce_precision_i64_exponent_bits(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.reduce_precision' op attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer attribute whose value is positive}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 1 : i64, mantissa_bits = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @batch_norm_inference_f64_epsilon(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'stablehlo.batch_norm_inference' op attribute 'epsilon' failed to satisfy constraint: 32-bit float attribute}}
  %0 = "stablehlo.batch_norm_inference"(%a, %b, %b, %b, %b) {epsilon = 1.0 : f64, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @sort_i32_is_stable(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.sort' op attribute 'is_stable' failed to satisfy constraint: bool attribute}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64, is_stable = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @compare_string_direction(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.compare' op attribute 'comparison_direction' failed to satisfy constraint: Which comparison operation to perform.}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = "EQ"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}
// -----

func.func @compare_integer_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.compare' op attribute 'compare_type' failed to satisfy constraint: Which comparison type to use.}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = 1 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  return
}
// -----

func.func @fft_integer_type(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.fft' op attribute 'fft_type' failed to satisfy constraint: XLA fast fourier transform type.}}
  %0 = "stablehlo.fft"(%a) {fft_type = 1 : i32, fft_length = array<i64: 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @rng_bit_generator_string_algorithm(%u: tensor<2xui64>) {
  // expected-error @+1 {{'stablehlo.rng_bit_generator' op attribute 'rng_algorithm' failed to satisfy constraint: XLA PRNG algorithm to be used.}}
  %0:2 = "stablehlo.rng_bit_generator"(%u) {rng_algorithm = "x"} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui32>)
  return
}
// -----

func.func @custom_call_integer_target(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'call_target_name' failed to satisfy constraint: string attribute}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @custom_call_i32_has_side_effect(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'has_side_effect' failed to satisfy constraint: bool attribute}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "x", has_side_effect = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @custom_call_i64_api_version(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'api_version' failed to satisfy constraint: Custom call API version}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "x", api_version = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @custom_call_string_called_computations(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'called_computations' failed to satisfy constraint: flat symbol ref array attribute}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "x", called_computations = "x"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @custom_call_integer_output_operand_aliases(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'output_operand_aliases' failed to satisfy constraint: Aliasing attribute for outputs and operands of CustomCall}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "x", output_operand_aliases = [1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @custom_call_integer_operand_layouts(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.custom_call' op attribute 'operand_layouts' failed to satisfy constraint: Array of layout (1D tensor of index type) attributes}}
  %0 = "stablehlo.custom_call"(%a) {call_target_name = "x", operand_layouts = [1], result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @constant_integer_value() {
  // expected-error @+1 {{'stablehlo.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %0 = "stablehlo.constant"() {value = 1 : i32} : () -> tensor<2x3xf32>
  return
}
// -----

func.func @gather_integer_dimension_numbers(%a: tensor<2x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{'stablehlo.gather' op attribute 'dimension_numbers' failed to satisfy constraint: Attribute that models the dimension information for gather}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = 1 : i32, slice_sizes = array<i64: 1, 1>} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<1x1xf32>
  return
}
// -----

func.func @dot_general_integer_dimension_numbers(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.dot_general' op attribute 'dot_dimension_numbers' failed to satisfy constraint: Attribute that models the dimension information for dot.}}
  %0 = "stablehlo.dot_general"(%a, %a) {dot_dimension_numbers = 1 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}
// -----

func.func @convolution_integer_dimension_numbers(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'dimension_numbers' failed to satisfy constraint: Structure of dimension information for conv op}}
  %0 = "stablehlo.convolution"(%a, %a) {dimension_numbers = 1 : i32, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
// -----

func.func @infeed_integer_config(%tok: !stablehlo.token) {
  // expected-error @+1 {{'stablehlo.infeed' op attribute 'infeed_config' failed to satisfy constraint: string attribute}}
  %0:2 = "stablehlo.infeed"(%tok) {infeed_config = 1 : i32} : (!stablehlo.token) -> (tensor<2x3xf32>, !stablehlo.token)
  return
}
// -----

func.func @composite_integer_name(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.composite' op attribute 'name' failed to satisfy constraint: string attribute}}
  %0 = "stablehlo.composite"(%a) {name = 1 : i32, decomposition = @g} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

func.func private @g(%a: tensor<2x3xf32>) -> tensor<2x3xf32>
// -----

func.func @composite_string_decomposition(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'stablehlo.composite' op attribute 'decomposition' failed to satisfy constraint: flat symbol reference attribute}}
  %0 = "stablehlo.composite"(%a) {name = "x", decomposition = "g"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

func.func private @g(%a: tensor<2x3xf32>) -> tensor<2x3xf32>

// -----

func.func @convolution_i64_window_reversal(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.convolution' op attribute 'window_reversal' failed to satisfy constraint: i1 dense array attribute}}
  %0 = "stablehlo.convolution"(%a, %a) {dimension_numbers = #stablehlo.conv<[b, f]x[o, i]->[b, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, window_reversal = array<i64: 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @triangular_solve_integer_transpose_a(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.triangular_solve' op attribute 'transpose_a' failed to satisfy constraint: Transpose options}}
  %0 = "stablehlo.triangular_solve"(%a, %a) {left_side = true, lower = true, unit_diagonal = true, transpose_a = 1 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @rng_string_distribution(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.rng' op attribute 'rng_distribution' failed to satisfy constraint: XLA PRNG distribution to be used.}}
  %0 = "stablehlo.rng"(%f, %f, %s) {rng_distribution = "x"} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @sort_float_dimension(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.sort' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @dot_general_string_precision_config(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.dot_general' op attribute 'precision_config' failed to satisfy constraint: Precision Config attribute}}
  %0 = "stablehlo.dot_general"(%a, %a) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = "x"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

func.func @dot_general_integer_algorithm(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.dot_general' op attribute 'algorithm' failed to satisfy constraint: Attribute that models the algorithm constraints to use for computing dot.}}
  %0 = "stablehlo.dot_general"(%a, %a) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, algorithm = 1 : i32} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  func.return
}

// -----

func.func @exponential_integer_result_accuracy(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.exponential' op attribute 'result_accuracy' failed to satisfy constraint: The requested accuracy for transcendental unary ops.}}
  %0 = "stablehlo.exponential"(%a) {result_accuracy = 1 : i32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @scatter_integer_dimension_numbers(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.scatter' op attribute 'scatter_dimension_numbers' failed to satisfy constraint: Attribute that models the dimension information for scatter}}
  %0 = "stablehlo.scatter"(%a, %i, %a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = 1 : i32} : (tensor<2x3xf32>, tensor<2xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @reduce_window_dense_window_dimensions(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.reduce_window' op attribute 'window_dimensions' failed to satisfy constraint: i64 dense array attribute}}
  %0 = "stablehlo.reduce_window"(%a, %f) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = dense<1> : tensor<2xi64>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @top_k_i32_k(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'chlo.top_k' op attribute 'k' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0:2 = "chlo.top_k"(%a) {k = 1 : i32} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)
  func.return
}

// -----

func.func @outfeed_integer_config(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.outfeed' op attribute 'outfeed_config' failed to satisfy constraint: string attribute}}
  %0 = "stablehlo.outfeed"(%a, %tok) {outfeed_config = 1 : i32} : (tensor<2x3xf32>, !stablehlo.token) -> !stablehlo.token
  func.return
}

// -----

func.func @send_integer_channel_handle(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.send' op attribute 'channel_handle' failed to satisfy constraint: two 64-bit integers 'handle' and 'type'}}
  %0 = "stablehlo.send"(%a, %tok) {channel_handle = 1 : i32} : (tensor<2x3xf32>, !stablehlo.token) -> !stablehlo.token
  func.return
}

// -----

func.func @batch_norm_inference_float_feature_index(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2xi32>, %f: tensor<f32>, %tok: !stablehlo.token, %s: tensor<2xi64>) {
  // expected-error @+1 {{'stablehlo.batch_norm_inference' op attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.batch_norm_inference"(%a, %b, %b, %b, %b) {epsilon = 1.0 : f32, feature_index = 1.0 : f32} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @real_dynamic_slice_float_indices(%arg0: tensor<?xf32>, %arg1: tensor<1xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.real_dynamic_slice' op operand #1 must be 1D tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<1xf32>'}}
  %0 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<?xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @real_dynamic_slice_2d_limit_indices(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>, %arg2: tensor<1x1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.real_dynamic_slice' op operand #2 must be 1D tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<1x1xi64>'}}
  %0 = stablehlo.real_dynamic_slice %arg0, %arg1, %arg2, %arg1 : (tensor<?xf32>, tensor<1xi64>, tensor<1x1xi64>, tensor<1xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
