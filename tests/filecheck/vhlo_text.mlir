// RUN: stablehlo-opt %s | FileCheck %s
// RUN: %roundtrip | FileCheck %s
// RUN: %generic_roundtrip | FileCheck %s

// VHLO reads and prints as upstream: generic ops, vhlo.func_v1's custom form, VHLO types and
// attributes.

// CHECK-LABEL: vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<?x4x!vhlo.f32_v1, #vhlo.type_extensions_v1<bounds = [16, ?]>>, %arg1: !vhlo.token_v1) -> (!vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>) {
// CHECK-NEXT: %0 = "vhlo.constant_v1"() <{value = #vhlo.tensor_v1<dense<1> : tensor<i8>>}> {attr = #vhlo.dict_v1<{#vhlo.string_v1<"k"> = #vhlo.float_v1<1.000000e-03 : !vhlo.f32_v1>}>} : () -> !vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>
// CHECK-NEXT: "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>) -> ()
// CHECK-NEXT: } {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
vhlo.func_v1 @main(%arg0: !vhlo.tensor_v1<?x4x!vhlo.f32_v1, #vhlo.type_extensions_v1<bounds = [16, ?]>>, %arg1: !vhlo.token_v1) -> (!vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>) {
  %0 = "vhlo.constant_v1"() <{value = #vhlo.tensor_v1<dense<1> : tensor<i8>>}> {attr = #vhlo.dict_v1<{#vhlo.string_v1<"k"> = #vhlo.float_v1<1.000000e-03 : !vhlo.f32_v1>}>} : () -> !vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>
  "vhlo.return_v1"(%0) : (!vhlo.tensor_v1<!vhlo.quant_v1<!vhlo.i8_v1:!vhlo.f32_v1, 3.400000e+01:16, -128:127, 1>>) -> ()
} {arg_attrs = #vhlo.array_v1<[]>, res_attrs = #vhlo.array_v1<[]>, sym_visibility = #vhlo.string_v1<"">}
