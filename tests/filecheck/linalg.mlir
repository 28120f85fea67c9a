// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s
// RUN: stablehlo-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC

// Linear-algebra, convolution, FFT, random, quantization and result-accuracy ops: pretty forms as
// upstream prints them, generic properties.

// CHECK-LABEL: func.func @dots
func.func @dots(%arg0: tensor<3xi64>, %arg1: tensor<2x2x2xi8>, %arg2: tensor<2x2x3xi8>, %arg3: tensor<2x2xi8>, %arg4: tensor<2x3xi8>) -> () {
  // CHECK-NEXT: %0 = stablehlo.dot %arg0, %arg0, precision = [DEFAULT, DEFAULT] : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  // CHECK-NEXT: %1 = stablehlo.dot %arg0, %arg0 : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  // CHECK-NEXT: %2 = stablehlo.dot_general %arg1, %arg2, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x2x2xi8>, tensor<2x2x3xi8>) -> tensor<2x2x3xi32>
  // CHECK-NEXT: %3 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>
  // GENERIC: "stablehlo.dot"(%{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  // GENERIC: "stablehlo.dot_general"(%{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}>
  // GENERIC: "stablehlo.dot_general"(%{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}) <{algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>
  %0 = "stablehlo.dot"(%arg0, %arg0) {precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  %1 = stablehlo.dot %arg0, %arg0 : (tensor<3xi64>, tensor<3xi64>) -> tensor<i64>
  %2 = "stablehlo.dot_general"(%arg1, %arg2) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_batching_dimensions = [0],
      rhs_contracting_dimensions = [1]
    >
  } : (tensor<2x2x2xi8>, tensor<2x2x3xi8>) -> tensor<2x2x3xi32>
  %3 = stablehlo.dot_general %arg3, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT],
    algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32,
                 lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1,
                 allow_imprecise_accumulation = false> : (tensor<2x2xi8>, tensor<2x3xi8>) -> tensor<2x3xi32>
  func.return
}

// CHECK-LABEL: func.func @convolutions
func.func @convolutions(%arg0: tensor<1x4x4x1xi64>, %arg1: tensor<3x3x1x1xi64>, %arg2: tensor<2x2xi64>) -> () {
  // CHECK-NEXT: %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  // CHECK-NEXT: %1 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  // CHECK-NEXT: %2 = "stablehlo.dynamic_conv"(%arg0, %arg1, %arg2) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, window_strides = array<i64: 4, 4>}> : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<2x2xi64>) -> tensor<1x?x?x1xi64>
  // GENERIC: "stablehlo.convolution"(%{{[a-z0-9#]+}}, %{{[a-z0-9#]+}}) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 2, 2>, padding = dense<1> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, window_strides = array<i64: 4, 4>}>
  %0 = stablehlo.convolution(%arg0, %arg1)
    dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {stride = [4, 4], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [0, 0]}
    {batch_group_count = 1 : i64, feature_group_count = 1 : i64,
     precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}
    : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  %1 = "stablehlo.convolution"(%arg0, %arg1) {
    batch_group_count = 1 : i64,
    dimension_numbers = #stablehlo.conv<raw
      input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2],
      kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1],
      output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]
    >,
    feature_group_count = 1 : i64
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  %2 = "stablehlo.dynamic_conv"(%arg0, %arg1, %arg2) {
    window_strides = array<i64: 4, 4>,
    dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
    batch_group_count = 1 : i64,
    feature_group_count = 1 : i64
  } : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<2x2xi64>) -> tensor<1x?x?x1xi64>
  func.return
}

// CHECK-LABEL: func.func @fft_and_solvers
func.func @fft_and_solvers(%arg0: tensor<3x9xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<4x3xf32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.fft %arg0, type = RFFT, length = [9] : (tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>>
  // CHECK-NEXT: %1 = stablehlo.fft %0, type = IRFFT, length = [9] : (tensor<3x5xcomplex<f32>>) -> tensor<3x9xf32>
  // CHECK-NEXT: %2 = "stablehlo.triangular_solve"(%arg1, %arg2) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: %3 = stablehlo.cholesky %arg1 : tensor<4x4xf32>
  // CHECK-NEXT: %4 = stablehlo.cholesky %arg1, lower = true : tensor<4x4xf32>
  // GENERIC: "stablehlo.fft"(%{{[a-z0-9#]+}}) <{fft_length = array<i64: 9>, fft_type = #stablehlo<fft_type RFFT>}>
  // GENERIC: "stablehlo.cholesky"(%{{[a-z0-9#]+}}) <{lower = true}>
  %0 = "stablehlo.fft"(%arg0) {fft_length = array<i64: 9>, fft_type = #stablehlo<fft_type RFFT>} : (tensor<3x9xf32>) -> tensor<3x5xcomplex<f32>>
  %1 = stablehlo.fft %0, type = IRFFT, length = [9] : (tensor<3x5xcomplex<f32>>) -> tensor<3x9xf32>
  %2 = "stablehlo.triangular_solve"(%arg1, %arg2) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true} : (tensor<4x4xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  %3 = "stablehlo.cholesky"(%arg1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = stablehlo.cholesky %arg1, lower = true : tensor<4x4xf32>
  func.return
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%arg0: tensor<2x2x2x2xf32>, %arg1: tensor<2xf32>) -> () {
  // CHECK-NEXT: %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) <{epsilon = 1.000000e-03 : f32, feature_index = 0 : i64}> : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  // CHECK-NEXT: %0 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}>
  // CHECK-NEXT: %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%grad_operand, %arg1, %arg1) <{epsilon = 1.000000e-03 : f32, feature_index = 3 : i64}>
  %0:3 = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg1, %arg1, %arg0) {epsilon = 0.001 : f32, feature_index = 0 : i64} : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %1 = "stablehlo.batch_norm_inference"(%arg0, %arg1, %arg1, %arg1, %arg1) {epsilon = 0.001 : f32, feature_index = 3 : i64} : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2x2xf32>
  %2:3 = "stablehlo.batch_norm_training"(%0#0, %arg1, %arg1) {epsilon = 0.001 : f32, feature_index = 3 : i64} : (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  func.return
}

// CHECK-LABEL: func.func @random
func.func @random(%arg0: tensor<f32>, %arg1: tensor<3xi64>, %arg2: tensor<2xui64>) -> () {
  // CHECK-NEXT: %0 = stablehlo.rng %arg0, %arg0, %arg1, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x5xf32>
  // CHECK-NEXT: %output_state, %output = stablehlo.rng_bit_generator %arg2, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  // CHECK-NEXT: %output_state_0, %output_1 = stablehlo.rng_bit_generator %output_state, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
  // GENERIC: %{{[a-z0-9#]+}}:2 = "stablehlo.rng_bit_generator"(%{{[a-z0-9#]+}}) <{rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>}>
  %0 = "stablehlo.rng"(%arg0, %arg0, %arg1) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x5xf32>
  %1:2 = "stablehlo.rng_bit_generator"(%arg2) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %state, %bits = stablehlo.rng_bit_generator %1#0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui64>)
  func.return
}

// CHECK-LABEL: func.func @quantization
func.func @quantization(%arg0: tensor<2xf32>, %arg1: tensor<3x4xf32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.uniform_quantize %arg0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>
  // CHECK-NEXT: %1 = stablehlo.uniform_quantize %0 : (tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>) -> tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>
  // CHECK-NEXT: %2 = stablehlo.uniform_dequantize %1 : (tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>) -> tensor<2xf32>
  // CHECK-NEXT: %3 = stablehlo.bitcast_convert %1 : (tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>) -> tensor<2xui8>
  // CHECK-NEXT: %4 = stablehlo.reduce_precision %arg1, format = e5m10 : tensor<3x4xf32>
  // GENERIC: "stablehlo.reduce_precision"(%{{[a-z0-9#]+}}) <{exponent_bits = 5 : i32, mantissa_bits = 10 : i32}>
  %0 = "stablehlo.uniform_quantize"(%arg0) : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>
  %1 = stablehlo.uniform_quantize %0 : (tensor<2x!quant.uniform<i8:f32:0, {0.1:-30,0.5:-20}>>) -> tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>
  %2 = "stablehlo.uniform_dequantize"(%1) : (tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>) -> tensor<2xf32>
  %3 = "stablehlo.bitcast_convert"(%1) : (tensor<2x!quant.uniform<u8<1:255>:f32, 0.0078431372549019607:128>>) -> tensor<2xui8>
  %4 = stablehlo.reduce_precision %arg1, format = e5m10 : tensor<3x4xf32>
  func.return
}

// CHECK-LABEL: func.func @result_accuracy
func.func @result_accuracy(%arg0: tensor<2xf32>) -> () {
  // CHECK-NEXT: %0 = stablehlo.cbrt %arg0 : tensor<2xf32>
  // CHECK-NEXT: %1 = stablehlo.cosine %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
  // CHECK-NEXT: %2 = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<2xf32>
  // CHECK-NEXT: %3 = stablehlo.exponential_minus_one %arg0 : tensor<2xf32>
  // CHECK-NEXT: %4 = stablehlo.log %arg0 : tensor<2xf32>
  // CHECK-NEXT: %5 = stablehlo.log_plus_one %arg0 : tensor<2xf32>
  // CHECK-NEXT: %6 = stablehlo.logistic %arg0 : tensor<2xf32>
  // CHECK-NEXT: %7 = stablehlo.rsqrt %arg0 : tensor<2xf32>
  // CHECK-NEXT: %8 = stablehlo.sine %arg0 : tensor<2xf32>
  // CHECK-NEXT: %9 = stablehlo.sqrt %arg0 : tensor<2xf32>
  // CHECK-NEXT: %10 = stablehlo.tan %arg0 : tensor<2xf32>
  // CHECK-NEXT: %11 = stablehlo.tanh %arg0 : tensor<2xf32>
  // GENERIC: "stablehlo.cbrt"(%{{[a-z0-9#]+}}) <{result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>}> : (tensor<2xf32>) -> tensor<2xf32>
  // GENERIC: "stablehlo.cosine"(%{{[a-z0-9#]+}}) <{result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>}>
  %0 = "stablehlo.cbrt"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.cosine %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.0e-5, rtol = 0.0, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<2xf32>
  %2 = "stablehlo.exponential"(%arg0) {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : (tensor<2xf32>) -> tensor<2xf32>
  %3 = stablehlo.exponential_minus_one %arg0 : tensor<2xf32>
  %4 = stablehlo.log %arg0 : tensor<2xf32>
  %5 = stablehlo.log_plus_one %arg0 : tensor<2xf32>
  %6 = stablehlo.logistic %arg0 : tensor<2xf32>
  %7 = stablehlo.rsqrt %arg0 : tensor<2xf32>
  %8 = stablehlo.sine %arg0 : tensor<2xf32>
  %9 = stablehlo.sqrt %arg0 : tensor<2xf32>
  %10 = stablehlo.tan %arg0 : tensor<2xf32>
  %11 = stablehlo.tanh %arg0 : tensor<2xf32>
  func.return
}

// CHECK-LABEL: func.func @bounds
// CHECK-SAME: (%arg0: tensor<?x?xf32, #stablehlo.bounds<3, ?>>, %arg1: tensor<?xf32, #stablehlo.bounds<4>>)
func.func @bounds(%arg0: tensor<?x?xf32, #stablehlo.bounds<3, ?>>, %arg1: tensor<?xf32, #stablehlo.type_extensions<bounds = [4]>>) -> () {
  func.return
}
