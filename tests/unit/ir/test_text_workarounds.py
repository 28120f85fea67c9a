"""One regression test per xDSL 0.74 text-layer problem listed in DESIGN.md §3.

Our parser/printer (stablehlo_py/ir/text/) replaces xDSL's for this subset, so each problem is fixed
by construction; these tests pin that down.
"""

from __future__ import annotations

import numpy as np

from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.text.dense import dense_values


def _const_attr(text: str):
    m = parse(f"func.func @f() {{\n  %0 = stablehlo.constant {text}\n  return\n}}")
    op = next(o for o in m.walk() if o.name == "stablehlo.constant")
    return op.properties["value"], m


def test_hex_scalar_float_is_bits_not_an_integer() -> None:
    attr, m = _const_attr("dense<0x7F800000> : tensor<f32>")
    assert dense_values(attr)[()] == np.float32("inf")
    assert "dense<0x7F800000> : tensor<f32>" in print_ir(m)


def test_complex_literal_with_hex_parts() -> None:
    attr, m = _const_attr("dense<(0xFFF0000000000000,0.000000e+00)> : tensor<complex<f64>>")
    v = dense_values(attr)[()]
    assert v.real == -np.inf and v.imag == 0.0
    assert "dense<(0xFFF0000000000000,0.000000e+00)>" in print_ir(m)


def test_i1_storage_is_one_byte_01_from_list_and_hex() -> None:
    a, _ = _const_attr("dense<[true, false, true]> : tensor<3xi1>")
    b, _ = _const_attr('dense<"0x010001"> : tensor<3xi1>')
    assert a.data.data == b.data.data == b"\x01\x00\x01"


def test_splat_is_not_expanded() -> None:
    attr, m = _const_attr("dense<1.000000e+00> : tensor<4096x4096xf32>")
    assert len(attr.data.data) == 4
    assert dense_values(attr).shape == (4096, 4096)
    assert "dense<1.000000e+00> : tensor<4096x4096xf32>" in print_ir(m)


def test_location_ranges_parse_and_print_back() -> None:
    text = 'func.func @f() {\n  return loc("a.py":1:2 to 3:4)\n}'
    out = print_ir(parse(text), debuginfo=True)
    assert 'loc("a.py":1:2 to 3:4)' in out


def test_loc_alias_used_before_its_definition() -> None:
    text = 'func.func @f() {\n  return loc(#loc3)\n}\n#loc3 = loc("b.py":7:1)\n'
    out = print_ir(parse(text), debuginfo=True)
    assert 'loc("b.py":7:1)' in out


def test_mlir_ssa_names_and_multi_results() -> None:
    text = """func.func @f(%a: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %x = stablehlo.constant dense<1.0> : tensor<f32>
  %y = stablehlo.constant dense<2.0> : tensor<f32>
  %z = stablehlo.add %x, %y : tensor<f32>
  return %z, %a : tensor<f32>, tensor<f32>
}"""
    out = print_ir(parse(text))
    assert "%cst = stablehlo.constant dense<1.000000e+00>" in out
    assert "%cst_0 = stablehlo.constant dense<2.000000e+00>" in out
    assert "%0 = stablehlo.add %cst, %cst_0 : tensor<f32>" in out


def test_float_text_matches_mlir() -> None:
    _, m = _const_attr("dense<[3.14159274, 1.0, 0.1, 1.0e-10, -0.0]> : tensor<5xf32>")
    assert "dense<[3.14159274, 1.000000e+00, 1.000000e-01, 1.000000e-10, -0.000000e+00]>" in print_ir(m)
