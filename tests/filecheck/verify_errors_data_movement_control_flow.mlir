// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s
// Negative tests of the data-movement and control-flow ops, each expected error in upstream's words (jaxlib's StableHLO 1.17 emits exactly these diagnostics for every chunk).

// -----

func.func @after_all(%a: tensor<f32>) -> !stablehlo.token {
  // expected-error @+1 {{'stablehlo.after_all' op operand #0 must be variadic of token, but got 'tensor<f32>'}}
  %0 = "stablehlo.after_all"(%a) : (tensor<f32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @case_rank(%i: tensor<1xi32>) {
  // expected-error @+2 {{operand should be rank 0 tensor but got rank 1}}
  // expected-error @+1 {{'stablehlo.case' op failed to infer returned types}}
  "stablehlo.case"(%i) ({ stablehlo.return }) : (tensor<1xi32>) -> ()
  return
}

// -----

func.func @case_no_branch(%i: tensor<i32>) {
  // expected-error @+2 {{expect at least one branch}}
  // expected-error @+1 {{'stablehlo.case' op failed to infer returned types}}
  "stablehlo.case"(%i) : (tensor<i32>) -> ()
  return
}

// -----

func.func @case_mismatch(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
  // expected-error @+2 {{branch 0 and branch 1 have mismatched return types: 'tensor<f32>' vs 'tensor<i32>'}}
  // expected-error @+1 {{'stablehlo.case' op failed to infer returned types}}
  %0 = "stablehlo.case"(%i) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @case_args(%i: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {
  // expected-error @+2 {{branch 0 must have 0 arguments, but found 1}}
  // expected-error @+1 {{'stablehlo.case' op failed to infer returned types}}
  %0 = "stablehlo.case"(%i) ({ ^bb0(%x: tensor<f32>): stablehlo.return %x : tensor<f32> }) : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @case_empty(%i: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.case' op region #0 ('branches') failed to verify constraint: region with 1 blocks}}
  "stablehlo.case"(%i) ({ }) : (tensor<i32>) -> ()
  return
}

// -----

func.func @case_idx_type(%i: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.case' op operand #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<f32>'}}
  "stablehlo.case"(%i) ({ stablehlo.return }) : (tensor<f32>) -> ()
  return
}

// -----

func.func @if_rank(%p: tensor<1xi1>) {
  // expected-error @+2 {{operand should be rank 0 tensor but got rank 1}}
  // expected-error @+1 {{'stablehlo.if' op failed to infer returned types}}
  "stablehlo.if"(%p) ({ stablehlo.return }, { stablehlo.return }) : (tensor<1xi1>) -> ()
  return
}

// -----

func.func @if_mismatch(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<i32>) -> tensor<f32> {
  // expected-error @+2 {{branch 0 and branch 1 have mismatched return types: 'tensor<f32>' vs 'tensor<i32>'}}
  // expected-error @+1 {{'stablehlo.if' op failed to infer returned types}}
  %0 = "stablehlo.if"(%p) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %b : tensor<i32> }) : (tensor<i1>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @if_result(%p: tensor<i1>, %a: tensor<f32>) -> tensor<i32> {
  // expected-error @+2 {{'stablehlo.if' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<i32>'}}
  // expected-error @+1 {{'stablehlo.if' op failed to infer returned types}}
  %0 = "stablehlo.if"(%p) ({ stablehlo.return %a : tensor<f32> }, { stablehlo.return %a : tensor<f32> }) : (tensor<i1>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @dynamic_gather_ss(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>, %ss: tensor<2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{slice_sizes size (2) not equal to operand rank (3)}}
  // expected-error @+1 {{'stablehlo.dynamic_gather' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_gather"(%op, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>, tensor<2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @dynamic_gather_idvd(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>, %ss: tensor<3xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{Expects index_vector_dim to be in range [0, rank-of('start_indices')] i.e. [0, 3]. got: 4.}}
  // expected-error @+1 {{'stablehlo.dynamic_gather' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_gather"(%op, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 4>, indices_are_sorted = false} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>, tensor<3xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @gather_offset_sorted(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{offset_dims size (2) plus collapse_slice_dims size (2) plus operand_batching_dims size (0) is not equal to operand rank (3)}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @gather_slice_size(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{slice size (10) is out of bounds for operand dimension (9) at index 2}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 10>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @gather_collapsed(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should be <= 1, but got 2}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2, 8>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @gather_result(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x7xi32> {
  // expected-error @+2 {{'stablehlo.gather' op inferred type(s) 'tensor<1x5x8xi32>' are incompatible with return type(s) of operation 'tensor<1x5x7xi32>'}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x7xi32>
  func.return %0 : tensor<1x5x7xi32>
}

// -----

func.func @gather_start_index_map(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{has duplicated dimension from start_index_map and operand_batching_dims: 0}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @scatter_no_inputs(%idx: tensor<10x2xi32>) {
  // expected-error @+1 {{Reduction-region must take 0 parameters, but takes 2 parameter(s)}}
  %0 = "stablehlo.scatter"(%idx) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<10x2xi32>) -> tensor<200x100x300xf32>
  return
}

// -----

func.func @scatter_updates(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{expects updates tensor must be of rank 3 ( == rank-of('scatter_indices') - 1 + size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got 2.}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_result(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x301xf32> {
  // expected-error @+2 {{'stablehlo.scatter' op inferred type(s) 'tensor<200x100x300xf32>' are incompatible with return type(s) of operation 'tensor<200x100x301xf32>'}}
  // expected-error @+1 {{'stablehlo.scatter' op failed to infer returned types}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x301xf32>
  func.return %0 : tensor<200x100x301xf32>
}

// -----

func.func @torch_index_select_attr(%a: tensor<5x1x5xi32>, %b: tensor<2xi32>) -> tensor<2x1x5xi32> {
  // expected-error @+1 {{'stablehlo.torch_index_select' op attribute 'dim' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "stablehlo.torch_index_select"(%a, %b) {dim = 0 : i32, batch_dims = 0 : i64} : (tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>
  func.return %0 : tensor<2x1x5xi32>
}

// -----

func.func @complex_type(%a: tensor<2xf16>) -> tensor<2xcomplex<f16>> {
  // expected-error @+1 {{'stablehlo.complex' op operand #0 must be ranked tensor of 32/64-bit float values, but got 'tensor<2xf16>'}}
  %0 = stablehlo.complex %a, %a : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xcomplex<f16>>
  return %0 : tensor<2xcomplex<f16>>
}

// -----

func.func @complex_mismatch(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{'stablehlo.complex' op requires the same element type for all operands}}
  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @complex_result(%a: tensor<2xf32>) -> tensor<2xcomplex<f64>> {
  // expected-error @+2 {{'stablehlo.complex' op inferred type(s) 'tensor<2xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<2xcomplex<f64>>'}}
  // expected-error @+1 {{'stablehlo.complex' op failed to infer returned types}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}

// -----

func.func @complex_shape(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{'stablehlo.complex' op requires the same shape for all operands and results}}
  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @select_pred(%p: tensor<2xi32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.select' op operand #0 must be ranked tensor of bool values, but got 'tensor<2xi32>'}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @select_types(%p: tensor<2xi1>, %a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+2 {{requires compatible types for non-predicate operands}}
  // expected-error @+1 {{'stablehlo.select' op failed to infer returned types}}
  %0 = "stablehlo.select"(%p, %a, %b) : (tensor<2xi1>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @select_shape(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{requires the same shape for all operands}}
  // expected-error @+1 {{'stablehlo.select' op failed to infer returned types}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @select_result(%p: tensor<i1>, %a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'stablehlo.select' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'stablehlo.select' op failed to infer returned types}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @optimization_barrier(%a: tensor<2xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{'stablehlo.optimization_barrier' op requires the same type for operand and result at index 0}}
  %0 = "stablehlo.optimization_barrier"(%a) : (tensor<2xf32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @optimization_barrier_count(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.optimization_barrier' op requires the same number of operands and results}}
  %0:2 = "stablehlo.optimization_barrier"(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %0#0 : tensor<2xf32>
}

// -----

func.func @composite_ref(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'missing' does not reference a valid function}}
  %0 = stablehlo.composite "my.op" %a {decomposition = @missing} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @composite_name(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{name must be a valid namespaced op name, i.e. it must match the following regular expression: ^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$ e.g. "my_namespace.my_op"}}
  %0 = stablehlo.composite "myop" %a {decomposition = @dec} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @dec(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @composite_operands(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{has 2 operand(s), but decomposition has 1}}
  %0 = stablehlo.composite "my.op" %a, %a {decomposition = @dec} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @dec(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @composite_operand_type(%a: tensor<i32>) -> tensor<f32> {
  // expected-error @+1 {{operand at index 0 has type 'tensor<i32>', but decomposition has type 'tensor<f32>'}}
  %0 = stablehlo.composite "my.op" %a {decomposition = @dec} : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @dec(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @composite_results(%a: tensor<f32>) {
  // expected-error @+1 {{has 0 result(s), but decomposition has 1}}
  stablehlo.composite "my.op" %a {decomposition = @dec} : (tensor<f32>) -> ()
  return
}
func.func @dec(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @composite_result_type(%a: tensor<f32>) -> tensor<i32> {
  // expected-error @+1 {{result at index 0 has type 'tensor<i32>', but decomposition has type 'tensor<f32>'}}
  %0 = stablehlo.composite "my.op" %a {decomposition = @dec} : (tensor<f32>) -> tensor<i32>
  return %0 : tensor<i32>
}
func.func @dec(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

func.func @return_not_last(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.return' op must be the last operation in the parent block}}
  "stablehlo.return"(%a) : (tensor<f32>) -> ()
  return %a : tensor<f32>
}

// -----

func.func @gte_oob(%a: tuple<tensor<f32>>) -> tensor<f32> {
  // expected-error @+2 {{index 1 is out of bounds of operand with size 1}}
  // expected-error @+1 {{'stablehlo.get_tuple_element' op failed to infer returned types}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = 1 : i32} : (tuple<tensor<f32>>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @gte_type(%a: tuple<tensor<f32>>) -> tensor<i32> {
  // expected-error @+2 {{'stablehlo.get_tuple_element' op inferred type(s) 'tensor<f32>' are incompatible with return type(s) of operation 'tensor<i32>'}}
  // expected-error @+1 {{'stablehlo.get_tuple_element' op failed to infer returned types}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = 0 : i32} : (tuple<tensor<f32>>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @gte_operand(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.get_tuple_element' op operand #0 must be nested tuple with any combination of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token values, but got 'tensor<f32>'}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = 0 : i32} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @gte_neg(%a: tuple<tensor<f32>>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.get_tuple_element' op attribute 'index' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = -1 : i32} : (tuple<tensor<f32>>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @tuple_type(%a: tensor<f32>) -> tuple<tensor<i32>> {
  // expected-error @+2 {{'stablehlo.tuple' op inferred type(s) 'tuple<tensor<f32>>' are incompatible with return type(s) of operation 'tuple<tensor<i32>>'}}
  // expected-error @+1 {{'stablehlo.tuple' op failed to infer returned types}}
  %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tuple<tensor<i32>>
  return %0 : tuple<tensor<i32>>
}

// -----

func.func @tuple_count(%a: tensor<f32>) -> tuple<tensor<f32>, tensor<f32>> {
  // expected-error @+2 {{'stablehlo.tuple' op inferred type(s) 'tuple<tensor<f32>>' are incompatible with return type(s) of operation 'tuple<tensor<f32>, tensor<f32>>'}}
  // expected-error @+1 {{'stablehlo.tuple' op failed to infer returned types}}
  %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tuple<tensor<f32>, tensor<f32>>
  return %0 : tuple<tensor<f32>, tensor<f32>>
}

// -----

func.func @dynamic_pad_rank(%a: tensor<4xf32>, %pv: tensor<f32>, %l: tensor<2xindex>) -> tensor<?xf32> {
  // expected-error @+1 {{padding operands size (2) must match operand rank (1)}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<f32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_pad_pv(%a: tensor<4xf32>, %pv: tensor<1xf32>, %l: tensor<1xindex>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op operand #1 must be 0D tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<1xf32>'}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<1xf32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_pad_result(%a: tensor<4xf32>, %pv: tensor<f32>, %l: tensor<1xindex>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op failed to verify that all of {operand, result} have same rank}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<f32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dynamic_pad_const(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<7xf32> {
  %l = stablehlo.constant dense<1> : tensor<1xi64>
  // expected-error @+1 {{expected output dimension at index 0 to equal 9, but got 7}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @dynamic_pad_2d(%a: tensor<4xf32>, %pv: tensor<f32>, %l: tensor<1x1xindex>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op operand #2 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<1x1xindex>'}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<f32>, tensor<1x1xindex>, tensor<1x1xindex>, tensor<1x1xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @while_cond_args(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{expect operands to be compatible with condition block arguments but got 'tensor<i32>' vs 'tensor<f32>'}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<f32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<i32>): stablehlo.return %x : tensor<i32> }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @while_body_ret(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{expect operands to be compatible with body block return types but got 'tensor<i32>' vs 'tensor<f32>'}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<i32>): %f = stablehlo.constant dense<1.0> : tensor<f32>
    stablehlo.return %f : tensor<f32> }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @while_cond_count(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{expect condition body returns a single value but got 2}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c, %c : tensor<i1>, tensor<i1> }, { ^bb0(%x: tensor<i32>): stablehlo.return %x : tensor<i32> }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @while_result(%a: tensor<i32>) -> tensor<f32> {
  // expected-error @+2 {{'stablehlo.while' op inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation 'tensor<f32>'}}
  // expected-error @+1 {{'stablehlo.while' op failed to infer returned types}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<i32>): stablehlo.return %x : tensor<i32> }) : (tensor<i32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @dynamic_slice_count(%a: tensor<3x4xi32>, %i: tensor<i64>) -> tensor<1x4xi32> {
  // expected-error @+2 {{has mismatched number of slice sizes (2) and number of start indices (1)}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xi32>, tensor<i64>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @dynamic_slice_sizes(%a: tensor<3x4xi32>, %i: tensor<i64>) -> tensor<1x4xi32> {
  // expected-error @+2 {{has mismatched number of slice sizes (1) and number of start indices (2)}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @dynamic_slice_neg(%a: tensor<3x4xi32>, %i: tensor<i64>) -> tensor<1x4xi32> {
  // expected-error @+2 {{has negative size index to dynamic slice: -1}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: -1, 4>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @dynamic_slice_idx(%a: tensor<3x4xi32>, %i: tensor<i64>, %j: tensor<i32>) -> tensor<1x4xi32> {
  // expected-error @+2 {{start indices must have same element type}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %j) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xi32>, tensor<i64>, tensor<i32>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @dynamic_slice_idx_rank(%a: tensor<3x4xi32>, %i: tensor<1xi64>) -> tensor<1x4xi32> {
  // expected-error @+1 {{'stablehlo.dynamic_slice' op operand #1 must be variadic of 0D tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<1xi64>'}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xi32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @dus_count(%a: tensor<3x4xi32>, %u: tensor<1x4xi32>, %i: tensor<i64>) -> tensor<3x4xi32> {
  // expected-error @+2 {{expects number of start_indices to match operand rank: 1 vs 2.}}
  // expected-error @+1 {{'stablehlo.dynamic_update_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<3x4xi32>, tensor<1x4xi32>, tensor<i64>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @dus_rank(%a: tensor<3x4xi32>, %u: tensor<4xi32>, %i: tensor<i64>) -> tensor<3x4xi32> {
  // expected-error @+2 {{update rank does not match operand rank: 1 vs 2.}}
  // expected-error @+1 {{'stablehlo.dynamic_update_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : (tensor<3x4xi32>, tensor<4xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @dus_idx(%a: tensor<3x4xi32>, %u: tensor<1x4xi32>, %i: tensor<i64>, %j: tensor<i32>) -> tensor<3x4xi32> {
  // expected-error @+2 {{start indices must have same element type}}
  // expected-error @+1 {{'stablehlo.dynamic_update_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %j) : (tensor<3x4xi32>, tensor<1x4xi32>, tensor<i64>, tensor<i32>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @dus_big(%a: tensor<3x4xi32>, %u: tensor<1x5xi32>, %i: tensor<i64>) -> tensor<3x4xi32> {
  // expected-error @+2 {{expects size at dimension 1 of update to be in range [0, 4]. Got: 5.}}
  // expected-error @+1 {{'stablehlo.dynamic_update_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : (tensor<3x4xi32>, tensor<1x5xi32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @dus_elt(%a: tensor<3x4xi32>, %u: tensor<1x4xf32>, %i: tensor<i64>) -> tensor<3x4xi32> {
  // expected-error @+1 {{'stablehlo.dynamic_update_slice' op failed to verify that all of {operand, update, result} have same element type}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %i) : (tensor<3x4xi32>, tensor<1x4xf32>, tensor<i64>, tensor<i64>) -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}

// -----

func.func @pad_pv(%a: tensor<4xf32>, %pv: tensor<1xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'stablehlo.pad' op operand #1 must be 0D tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<1xf32>'}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<1xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_len(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+1 {{'stablehlo.pad' op failed to verify that all of {edge_padding_low, edge_padding_high, interior_padding} have same size}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1, 1>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_interior(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+2 {{Interior padding cannot be negative: -1}}
  // expected-error @+1 {{'stablehlo.pad' op failed to infer returned types}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: -1>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_neg_size(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+2 {{Padding result in negative size for dimension 0}}
  // expected-error @+1 {{'stablehlo.pad' op failed to infer returned types}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: -5>, edge_padding_high = array<i64: 0>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_result(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<7xf32> {
  // expected-error @+2 {{'stablehlo.pad' op inferred type(s) 'tensor<6xf32>' are incompatible with return type(s) of operation 'tensor<7xf32>'}}
  // expected-error @+1 {{'stablehlo.pad' op failed to infer returned types}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>
  return %0 : tensor<7xf32>
}

// -----

func.func @pad_elt(%a: tensor<4xf32>, %pv: tensor<i32>) -> tensor<6xf32> {
  // expected-error @+1 {{'stablehlo.pad' op requires the same element type for all operands and results}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<4xf32>, tensor<i32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @concat_dim(%a: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{dimension 1 is out-of-bounds for input rank 1}}
  // expected-error @+1 {{'stablehlo.concatenate' op failed to infer returned types}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_rank(%a: tensor<2xf32>, %b: tensor<2x2xf32>) -> tensor<4xf32> {
  // expected-error @+2 {{operands (0) and (1) do not match rank}}
  // expected-error @+1 {{'stablehlo.concatenate' op failed to infer returned types}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_none() -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op expected 1 or more operands, but found 0}}
  %0 = "stablehlo.concatenate"() {dimension = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_neg(%a: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = -1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_result(%a: tensor<2xf32>) -> tensor<5xf32> {
  // expected-error @+2 {{'stablehlo.concatenate' op inferred type(s) 'tensor<4xf32>' are incompatible with return type(s) of operation 'tensor<5xf32>'}}
  // expected-error @+1 {{'stablehlo.concatenate' op failed to infer returned types}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @slice_len(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{the number of elements in start_indices (2) does not match the rank of the operand (1)}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_sizes(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.slice' op failed to verify that all of {start_indices, limit_indices, strides} have same size}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_neg(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{negative start index -1 in dimension 0}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: -1>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_start_gt(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{start index 3 is larger than limit index 2 in dimension 0}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 3>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_stride(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{stride must be positive but got 0 in dimension 0}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 0>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @slice_result(%a: tensor<4xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'stablehlo.slice' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @reverse_dup(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{dimensions should be unique. Got: 0, 0}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0, 0>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @reverse_neg(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{all dimensions should be non-negative. Got dimension: -1.}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: -1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @reverse_result(%a: tensor<4x4xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{'stablehlo.reverse' op inferred type(s) 'tensor<4x4xf32>' are incompatible with return type(s) of operation 'tensor<4x5xf32>'}}
  // expected-error @+1 {{'stablehlo.reverse' op failed to infer returned types}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<4x4xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @iota_rank0() -> tensor<f32> {
  // expected-error @+1 {{does not support scalars.}}
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @iota_neg() -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.iota' op attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.iota"() {iota_dimension = -1 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @iota_static() -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.iota' op result #0 must be statically shaped tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<?xf32>'}}
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_iota_neg(%s: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_iota' op attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = -1 : i64} : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_iota_2d(%s: tensor<1x1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_iota' op operand #0 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<1x1xi64>'}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1x1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @bid_size(%a: tensor<2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @bid_oob(%a: tensor<2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{broadcast_dimensions contains invalid value 2 for result with rank 2}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 2>} : (tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @bid_dup(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{broadcast_dimensions should not have duplicates}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @bid_elt(%a: tensor<2xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op requires compatible element types for all operands and results}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @bid_rank(%a: tensor<2x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{broadcast_dimensions contains invalid value 1 for result with rank 1}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @dbid_oob(%a: tensor<2xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{broadcast_dimensions contains invalid value 2 for result with rank 2}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 2>} : (tensor<2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dbid_rank(%a: tensor<2x2xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{result rank (1) is less than operand rank (2)}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dbid_dup(%a: tensor<2x2xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{broadcast_dimensions should not have duplicates}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dbid_size(%a: tensor<3xf32>, %s: tensor<2xi64>) -> tensor<?x4xf32> {
  // expected-error @+1 {{size of operand dimension 0 (3) is not compatible with size of result dimension 1 (4)}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @dbid_expanding(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{hint for expanding dimension 1 does not refer to a valid operand dimension}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 1>} : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dbid_both(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{duplicate expansion hint for at least one operand dimension}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @reshape_count(%a: tensor<4xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{number of output elements (5) doesn't match expected number of elements (4)}}
  %0 = "stablehlo.reshape"(%a) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @reshape_dyn(%a: tensor<4xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.reshape' op result #0 must be statically shaped or single bounded dimension tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<?xf32>'}}
  %0 = "stablehlo.reshape"(%a) : (tensor<4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @reshape_elt(%a: tensor<4xf32>) -> tensor<2x2xi32> {
  // expected-error @+1 {{'stablehlo.reshape' op requires compatible element types for all operands and results}}
  %0 = "stablehlo.reshape"(%a) : (tensor<4xf32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

func.func @dyn_reshape_rank(%a: tensor<4xf32>, %s: tensor<2xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{result should have a rank equal to the number of elements in output_shape}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<2xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dyn_reshape_count(%a: tensor<4xf32>, %s: tensor<1xi64>) -> tensor<5xf32> {
  // expected-error @+1 {{number of output elements (5) doesn't match expected number of elements (4)}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<1xi64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @dyn_reshape_const(%a: tensor<4xf32>) -> tensor<2x?xf32> {
  %s = stablehlo.constant dense<[4, 1]> : tensor<2xi64>
  // expected-error @+1 {{output shape [4, 1] is incompatible with return type of operation 'tensor<2x?xf32>'}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

func.func @dyn_reshape_neg(%a: tensor<4xf32>) -> tensor<?x?xf32> {
  %s = stablehlo.constant dense<[-2, -2]> : tensor<2xi64>
  // expected-error @+1 {{output shape [-2, -2] is incompatible with return type of operation 'tensor<?x?xf32>'}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @scatter_none(%idx: tensor<10x2xi32>) {
  // expected-error @+1 {{The reduction-region expected to return some value(s)}}
  "stablehlo.scatter"(%idx) ({
    stablehlo.return
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<10x2xi32>) -> ()
  return
}

// -----

func.func @return_tuple(%a: tuple<tensor<f32>>) {
  // expected-error @+1 {{'stablehlo.return' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<f32>>'}}
  stablehlo.return %a : tuple<tensor<f32>>
}

// -----

func.func @if_2blocks(%p: tensor<i1>) {
  // expected-error @+1 {{'stablehlo.if' op expects region #1 to have 0 or 1 blocks}}
  "stablehlo.if"(%p) ({ stablehlo.return }, { cf.br ^bb1
  ^bb1: stablehlo.return }) : (tensor<i1>) -> ()
  return
}

// -----

func.func @while_noterm(%a: tensor<i32>) {
  // expected-error @+1 {{The while body-region expected to have a terminator}}
  "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<i32>): 
    %c = stablehlo.constant dense<true> : tensor<i1> }) : (tensor<i32>) -> ()
  return
}

// -----

func.func @after_all_res(%a: !stablehlo.token) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.after_all' op result #0 must be token, but got 'tensor<f32>'}}
  %0 = "stablehlo.after_all"(%a) : (!stablehlo.token) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @case_2b_f32(%i: tensor<f32>) {
  // expected-error @+1 {{'stablehlo.case' op expects region #0 to have 0 or 1 blocks}}
  "stablehlo.case"(%i) ({ cf.br ^bb1
  ^bb1: stablehlo.return }) : (tensor<f32>) -> ()
  return
}

// -----

func.func @case_0b_1b(%i: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.case' op region #1 ('branches') failed to verify constraint: region with 1 blocks}}
  "stablehlo.case"(%i) ({ stablehlo.return }, {}) : (tensor<i32>) -> ()
  return
}

// -----

func.func @while_0b(%a: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.while' op region #1 ('body') failed to verify constraint: region with 1 blocks}}
  "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { }) : (tensor<i32>) -> ()
  return
}

// -----

func.func @if_0b(%p: tensor<i1>) {
  // expected-error @+1 {{'stablehlo.if' op region #1 ('false_branch') failed to verify constraint: region with 1 blocks}}
  "stablehlo.if"(%p) ({ stablehlo.return }, { }) : (tensor<i1>) -> ()
  return
}

// -----

func.func @gte_i64(%a: tuple<tensor<f32>>) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.get_tuple_element' op attribute 'index' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.get_tuple_element"(%a) {index = 0 : i64} : (tuple<tensor<f32>>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @iota_i32() -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.iota' op attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = "stablehlo.iota"() {iota_dimension = 0 : i32} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dbid_shape_type(%a: tensor<2xf32>, %s: tensor<2x1xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_broadcast_in_dim' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x1xi64>'}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>, tensor<2x1xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @dyn_reshape_shape_type(%a: tensor<4xf32>, %s: tensor<?xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_reshape' op operand #1 must be statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values, but got 'tensor<?xi64>'}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<4xf32>, tensor<?xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_gather_ss_type(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>, %ss: tensor<3xindex>) -> tensor<1x5x8xi32> {
  // expected-error @+1 {{'stablehlo.dynamic_gather' op operand #2 must be statically shaped 1-dimensional integer tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<3xindex>'}}
  %0 = "stablehlo.dynamic_gather"(%op, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>, tensor<3xindex>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @dynamic_gather_result(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x7xi32> {
  %ss = stablehlo.constant dense<[1, 1, 8]> : tensor<3xi32>
  // expected-error @+2 {{'stablehlo.dynamic_gather' op inferred type(s) 'tensor<1x5x8xi32>' are incompatible with return type(s) of operation 'tensor<1x5x7xi32>'}}
  // expected-error @+1 {{'stablehlo.dynamic_gather' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_gather"(%op, %idx, %ss) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>, tensor<3xi32>) -> tensor<1x5x7xi32>
  func.return %0 : tensor<1x5x7xi32>
}

// -----

func.func @torch_index_select_index(%a: tensor<5x1x5xi32>, %b: tensor<2xindex>) -> tensor<2x1x5xi32> {
  // expected-error @+1 {{'stablehlo.torch_index_select' op operand #1 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xindex>'}}
  %0 = "stablehlo.torch_index_select"(%a, %b) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x1x5xi32>, tensor<2xindex>) -> tensor<2x1x5xi32>
  func.return %0 : tensor<2x1x5xi32>
}

// -----

func.func @torch_index_select_batch(%a: tensor<5x1x5xi32>, %b: tensor<2xi32>) -> tensor<2x1x5xi32> {
  // expected-error @+1 {{'stablehlo.torch_index_select' op attribute 'batch_dims' failed to satisfy constraint: 64-bit signless integer attribute}}
  %0 = "stablehlo.torch_index_select"(%a, %b) {dim = 0 : i64, batch_dims = 0 : i32} : (tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>
  func.return %0 : tensor<2x1x5xi32>
}

// -----

func.func @scatter_region(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{'stablehlo.scatter' op region #0 ('update_computation') failed to verify constraint: region with 1 blocks}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_indices(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xf32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{'stablehlo.scatter' op operand #1 must be ranked tensor of integer or index values, but got 'tensor<10x2xf32>'}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<10x2xf32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_reducer(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{The type of reduction-region's parameter at index 1 is different than the corresponding result type: 'tensor<i32>' vs 'tensor<f32>'}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    stablehlo.return %a : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_ivd(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{Expects index_vector_dim to be in range [0, rank-of('scatter_indices')] i.e. [0, 2]. got: 3.}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 3>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_inputs(%input: tensor<200x100x300xf32>, %input2: tensor<200x100x301xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{Not all inputs have compatible shapes.}}
  %0:2 = "stablehlo.scatter"(%input, %input2, %idx, %upd, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    stablehlo.return %a, %c : tensor<f32>, tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<200x100x301xf32>, tensor<10x2xi32>, tensor<10x300xf32>, tensor<10x300xf32>) -> (tensor<200x100x300xf32>, tensor<200x100x301xf32>)
  func.return %0#0 : tensor<200x100x300xf32>
}

// -----

func.func @scatter_inserted(%input: tensor<200x100x300xf32>, %idx: tensor<10x2xi32>, %upd: tensor<10x300xf32>) -> tensor<200x100x300xf32> {
  // expected-error @+1 {{Expects inserted_window_dims to be sorted; got: [1, 0].}}
  %0 = "stablehlo.scatter"(%input, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [1, 0], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>} : (tensor<200x100x300xf32>, tensor<10x2xi32>, tensor<10x300xf32>) -> tensor<200x100x300xf32>
  func.return %0 : tensor<200x100x300xf32>
}

// -----

func.func @if_result_type(%p: tensor<i1>, %a: tuple<tensor<f32>>) -> tuple<tensor<f32>> {
  // expected-error @+1 {{'stablehlo.if' op result #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token, but got 'tuple<tensor<f32>>'}}
  %0 = "stablehlo.if"(%p) ({ stablehlo.return %a : tuple<tensor<f32>> }, { stablehlo.return %a : tuple<tensor<f32>> }) : (tensor<i1>) -> tuple<tensor<f32>>
  return %0 : tuple<tensor<f32>>
}

// -----

func.func @while_operand(%a: tuple<tensor<f32>>) {
  // expected-error @+1 {{'stablehlo.while' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<f32>>'}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tuple<tensor<f32>>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tuple<tensor<f32>>): stablehlo.return %x : tuple<tensor<f32>> }) : (tuple<tensor<f32>>) -> tuple<tensor<f32>>
  return
}

// -----

func.func @while_body_args(%a: tensor<i32>) -> tensor<i32> {
  // expected-error @+1 {{expect operands to be compatible with body block arguments but got 'tensor<i32>' vs 'tensor<f32>'}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>): %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1> }, { ^bb0(%x: tensor<f32>): stablehlo.return %a : tensor<i32> }) : (tensor<i32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @optimization_barrier_token(%a: tuple<tensor<f32>>) -> tuple<tensor<f32>> {
  // expected-error @+1 {{'stablehlo.optimization_barrier' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or token, but got 'tuple<tensor<f32>>'}}
  %0 = "stablehlo.optimization_barrier"(%a) : (tuple<tensor<f32>>) -> tuple<tensor<f32>>
  return %0 : tuple<tensor<f32>>
}

// -----

func.func @tuple_operand(%a: tensor<f32>) -> tuple<tensor<f32>> {
  // expected-error @+1 {{'stablehlo.tuple' op result #0 must be nested tuple with any combination of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token values, but got 'tensor<f32>'}}
  %0 = "stablehlo.tuple"(%a) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @select_pred_rank(%p: tensor<2x2xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{requires the same shape for all operands}}
  // expected-error @+1 {{'stablehlo.select' op failed to infer returned types}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2x2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @complex_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.complex' op result #0 must be ranked tensor of complex type with 32/64-bit float elements values, but got 'tensor<2xf32>'}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @after_all_token_ok_then_tensor(%a: !stablehlo.token, %b: tensor<f32>) -> !stablehlo.token {
  // expected-error @+1 {{'stablehlo.after_all' op operand #1 must be variadic of token, but got 'tensor<f32>'}}
  %0 = "stablehlo.after_all"(%a, %b) : (!stablehlo.token, tensor<f32>) -> !stablehlo.token
  return %0 : !stablehlo.token
}

// -----

func.func @reverse_oob(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{all dimensions should be between [0, 2). Got dimension: 2.}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 2>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @iota_oob() -> tensor<4xf32> {
  // expected-error @+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dynamic_iota_oob(%s: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{iota dimension cannot go beyond the output rank.}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 1 : i64} : (tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_iota_const(%a: tensor<f32>) -> tensor<5xf32> {
  %s = stablehlo.constant dense<4> : tensor<1xi64>
  // expected-error @+1 {{output shape [4] is incompatible with return type of operation 'tensor<5xf32>'}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @dbid_const(%a: tensor<2xf32>) -> tensor<3x4xf32> {
  %s = stablehlo.constant dense<[3, 2]> : tensor<2xi64>
  // expected-error @+1 {{size of operand dimension 0 (2) is not compatible with size of result dimension 1 (4)}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>, tensor<2xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @dynamic_slice_big(%a: tensor<3x4xi32>, %i: tensor<i64>) -> tensor<1x5xi32> {
  // expected-error @+2 {{has slice size 5 greater than dimension size 4 in dimension 1 of operand}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1, 5>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x5xi32>
  return %0 : tensor<1x5xi32>
}

// -----

func.func @dynamic_slice_result(%a: tensor<3x4xi32>, %i: tensor<i64>) -> tensor<1x3xi32> {
  // expected-error @+2 {{'stablehlo.dynamic_slice' op inferred type(s) 'tensor<1x4xi32>' are incompatible with return type(s) of operation 'tensor<1x3xi32>'}}
  // expected-error @+1 {{'stablehlo.dynamic_slice' op failed to infer returned types}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1, 4>} : (tensor<3x4xi32>, tensor<i64>, tensor<i64>) -> tensor<1x3xi32>
  return %0 : tensor<1x3xi32>
}

// -----

func.func @concat_elt(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op requires the same element type for all operands and results}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_shape(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+2 {{shapes of operand (0) and (1) are not compatible at non-concat index 1: (2, 3) != (2, 4)}}
  // expected-error @+1 {{'stablehlo.concatenate' op failed to infer returned types}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @slice_limit(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+2 {{limit index 5 is larger than dimension size 4 in dimension 0}}
  // expected-error @+1 {{'stablehlo.slice' op failed to infer returned types}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 5>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @pad_low(%a: tensor<4xf32>, %pv: tensor<f32>) -> tensor<6xf32> {
  // expected-error @+2 {{edge_padding_low length (2) must match operand rank (1)}}
  // expected-error @+1 {{'stablehlo.pad' op failed to infer returned types}}
  %0 = "stablehlo.pad"(%a, %pv) {edge_padding_low = array<i64: 1, 1>, edge_padding_high = array<i64: 1, 1>, interior_padding = array<i64: 0, 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @gather_idx_type(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xf32>) -> tensor<1x5x8xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand #1 must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got 'tensor<1x5x2xf32>'}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>} : (tensor<2x4x9xi32>, tensor<1x5x2xf32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @gather_rank(%op: tensor<2x4x9xi32>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+2 {{slice_sizes size (2) not equal to operand rank (3)}}
  // expected-error @+1 {{'stablehlo.gather' op failed to infer returned types}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>} : (tensor<2x4x9xi32>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @reshape_elems(%a: tensor<4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{number of output elements (6) doesn't match expected number of elements (4)}}
  %0 = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @dynamic_pad_elt(%a: tensor<4xf32>, %pv: tensor<i32>, %l: tensor<1xindex>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op failed to verify that all of {operand, padding_value, result} have same element type}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %l, %l) : (tensor<4xf32>, tensor<i32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_pad_types(%a: tensor<4xf32>, %pv: tensor<f32>, %l: tensor<1xindex>, %h: tensor<1xi64>) -> tensor<?xf32> {
  // expected-error @+1 {{'stablehlo.dynamic_pad' op failed to verify that all of {edge_padding_low, edge_padding_high, interior_padding} have same type}}
  %0 = "stablehlo.dynamic_pad"(%a, %pv, %l, %h, %l) : (tensor<4xf32>, tensor<f32>, tensor<1xindex>, tensor<1xi64>, tensor<1xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @composite_ods(%a: i32) -> tensor<f32> {
  // expected-error @+1 {{'stablehlo.composite' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or nested tuple with any combination of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token values, but got 'i32'}}
  %0 = stablehlo.composite "my.op" %a {decomposition = @dec} : (i32) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @dec(%a: i32) -> tensor<f32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  return %c : tensor<f32>
}

// -----

func.func @composite_result_ods(%a: tensor<f32>) -> f32 {
  // expected-error @+1 {{'stablehlo.composite' op result #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or nested tuple with any combination of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token values, but got 'f32'}}
  %0 = stablehlo.composite "my.op" %a {decomposition = @dec} : (tensor<f32>) -> f32
  return %0 : f32
}
func.func @dec(%a: tensor<f32>) -> f32 {
  %c = arith.constant 1.0 : f32
  return %c : f32
}

// -----

func.func @select_on_true(%p: tensor<2xi1>, %a: tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>> {
  // expected-error @+1 {{'stablehlo.select' op operand #1 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<2xf32>>'}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xi1>, tuple<tensor<2xf32>>, tuple<tensor<2xf32>>) -> tuple<tensor<2xf32>>
  return %0 : tuple<tensor<2xf32>>
}

// -----

func.func @slice_operand(%a: tuple<tensor<4xf32>>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.slice' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<4xf32>>'}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tuple<tensor<4xf32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reverse_operand(%a: tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>> {
  // expected-error @+1 {{'stablehlo.reverse' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<4xf32>>'}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tuple<tensor<4xf32>>) -> tuple<tensor<4xf32>>
  return %0 : tuple<tensor<4xf32>>
}

// -----

func.func @concat_operand(%a: tuple<tensor<4xf32>>) -> tensor<8xf32> {
  // expected-error @+1 {{'stablehlo.concatenate' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<4xf32>>'}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tuple<tensor<4xf32>>, tuple<tensor<4xf32>>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @bid_operand(%a: tuple<tensor<2xf32>>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'stablehlo.broadcast_in_dim' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tuple<tensor<2xf32>>'}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 0>} : (tuple<tensor<2xf32>>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @reshape_operand(%a: tuple<tensor<4xf32>>) -> tensor<4xf32> {
  // expected-error @+1 {{'stablehlo.reshape' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tuple<tensor<4xf32>>'}}
  %0 = "stablehlo.reshape"(%a) : (tuple<tensor<4xf32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gather_operand(%op: tuple<tensor<2x4x9xi32>>, %idx: tensor<1x5x2xi32>) -> tensor<1x5x8xi32> {
  // expected-error @+1 {{'stablehlo.gather' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<2x4x9xi32>>'}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>} : (tuple<tensor<2x4x9xi32>>, tensor<1x5x2xi32>) -> tensor<1x5x8xi32>
  func.return %0 : tensor<1x5x8xi32>
}

// -----

func.func @dynamic_slice_operand(%a: tuple<tensor<3x4xi32>>, %i: tensor<i64>) -> tensor<1x4xi32> {
  // expected-error @+1 {{'stablehlo.dynamic_slice' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<3x4xi32>>'}}
  %0 = "stablehlo.dynamic_slice"(%a, %i, %i) {slice_sizes = array<i64: 1, 4>} : (tuple<tensor<3x4xi32>>, tensor<i64>, tensor<i64>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @slice_element_type(%a: tensor<2xi32>) -> tensor<1xf32> {
  // expected-error @+1 {{'stablehlo.slice' op requires the same element type for all operands and results}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 1>, strides = array<i64: 1>} : (tensor<2xi32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @gather_element_type(%op: tensor<3x4xf32>, %idx: tensor<2x1xi64>) -> tensor<2x4xi32> {
  // expected-error @+1 {{'stablehlo.gather' op failed to verify that all of {operand, result} have same element type}}
  %0 = "stablehlo.gather"(%op, %idx) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @reverse_scalar(%a: tensor<f32>) -> tensor<2xf32> {
  // expected-error @+1 {{all dimensions should be between [0, 0). Got dimension: 0.}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @tuple_refined(%a: tensor<?xf32>) -> tuple<tensor<2xf32>> {
  // expected-error @+2 {{'stablehlo.tuple' op inferred type(s) 'tuple<tensor<?xf32>>' are incompatible with return type(s) of operation 'tuple<tensor<2xf32>>'}}
  // expected-error @+1 {{'stablehlo.tuple' op failed to infer returned types}}
  %0 = "stablehlo.tuple"(%a) : (tensor<?xf32>) -> tuple<tensor<2xf32>>
  return %0 : tuple<tensor<2xf32>>
}

// -----

func.func @dynamic_reshape_empty_shape(%a: tensor<f32>) -> tensor<?xf32> {
  %s = stablehlo.constant dense<> : tensor<0xi64>
  // expected-error @+1 {{output shape [] is incompatible with return type of operation 'tensor<?xf32>'}}
  %0 = stablehlo.dynamic_reshape %a, %s : (tensor<f32>, tensor<0xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dbid_empty_shape(%a: tensor<i32>) -> tensor<?xi32> {
  %s = stablehlo.constant dense<> : tensor<0xi64>
  // expected-error @+1 {{output shape [] is incompatible with return type of operation 'tensor<?xi32>'}}
  %0 = stablehlo.dynamic_broadcast_in_dim %a, %s, dims = [] : (tensor<i32>, tensor<0xi64>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @concat_dynamic_text(%a: tensor<1x1x0xi32>, %b: tensor<2x0x?xi32>) -> tensor<1x1x0xi32> {
  // expected-error @+2 {{shapes of operand (0) and (1) are not compatible at non-concat index 0: (1, 1, 0) != (2, 0, -9223372036854775808)}}
  // expected-error @+1 {{'stablehlo.concatenate' op failed to infer returned types}}
  %0 = "stablehlo.concatenate"(%a, %b) {dimension = 2 : i64} : (tensor<1x1x0xi32>, tensor<2x0x?xi32>) -> tensor<1x1x0xi32>
  return %0 : tensor<1x1x0xi32>
}

// -----

func.func @if_nested_return_first(%p: tensor<i1>, %x: tuple<tensor<2xf32>>, %y: tensor<2xf32>) {
  %0 = "stablehlo.if"(%p) ({
    // expected-error @+1 {{'stablehlo.return' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tuple<tensor<2xf32>>'}}
    stablehlo.return %x : tuple<tensor<2xf32>>
  }, {
    stablehlo.return %y : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @case_nested_return_first(%p: tensor<i32>, %x: tensor<2xf32>, %y: tensor<2xindex>) {
  %0 = "stablehlo.case"(%p) ({
    stablehlo.return %x : tensor<2xf32>
  }, {
    // expected-error @+1 {{'stablehlo.return' op operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values or ranked tensor of per-axis integer quantized values or token or memref of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2xindex>'}}
    stablehlo.return %y : tensor<2xindex>
  }) : (tensor<i32>) -> tensor<2xf32>
  return
}

// -----

func.func @if_memref_branch(%p: tensor<i1>, %x: memref<2xf32>, %y: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+2 {{'stablehlo.if' op inferred type(s) 'memref<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'stablehlo.if' op failed to infer returned types}}
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : memref<2xf32>
  }, {
    stablehlo.return %y : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @if_empty_block(%p: tensor<i1>) {
  // expected-error @+1 {{'stablehlo.if' op expects a non-empty block}}
  "stablehlo.if"(%p) ({ stablehlo.return }, { ^bb0:
  }) : (tensor<i1>) -> ()
  return
}

// -----

func.func @while_empty_cond(%a: tensor<i32>) {
  // expected-error @+1 {{'stablehlo.while' op expects a non-empty block}}
  %0 = "stablehlo.while"(%a) ({ ^bb0(%x: tensor<i32>):
  }, { ^bb0(%x: tensor<i32>): stablehlo.return %x : tensor<i32> }) : (tensor<i32>) -> tensor<i32>
  return
}
