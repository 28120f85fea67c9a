"""stablehlo-convert-to-signless (upstream's StablehloConvertToSignless.cpp, RemoveSignTypeConverter):
signatures, results, region arguments and constants take signless integer types with the same bits;
programs whose ops do not depend on signedness compute the same bits; errors in upstream's words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_convert_to_signless import convert_type
from xdsl.dialects.builtin import (
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    f32,
)

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.unit.passes.helpers import run_opt

PASS = "stablehlo-convert-to-signless"

UI8 = IntegerType(8, Signedness.UNSIGNED)
SI16 = IntegerType(16, Signedness.SIGNED)
I8, I16 = IntegerType(8), IntegerType(16)


def _convert(text: str, *passes: str) -> str:
    return print_ir(run_pipeline(parse(text, "s.mlir"), [(p, {}) for p in (PASS, *passes)]))


@pytest.mark.parametrize(
    "before,after",
    [
        (UI8, I8),
        (SI16, I16),
        (I8, I8),
        (f32, f32),
        (TensorType(UI8, [2, -1]), TensorType(I8, [2, -1])),
        (UnrankedTensorType(SI16), UnrankedTensorType(I16)),
        (MemRefType(UI8, [4]), MemRefType(I8, [4])),
        (UnrankedMemRefType(UI8, MemRefType(I8, [1]).memory_space), None),
        (TensorType(f32, [3]), TensorType(f32, [3])),
    ],
)
def test_type_converter(before, after) -> None:  # type: ignore[no-untyped-def]
    got = convert_type(before)
    if after is None:  # unranked memref: same memory space, signless elements
        assert isinstance(got, UnrankedMemRefType) and got.element_type == I8
    else:
        assert got == after


PROGRAM = """
func.func @main(%a: tensor<4xui8>, %b: tensor<4xui8>) -> (tensor<4xui8>, tensor<ui8>) {
  %c = stablehlo.constant dense<[250, 5, 128, 255]> : tensor<4xui8>
  %0 = stablehlo.add %a, %c : tensor<4xui8>
  %1 = stablehlo.multiply %0, %b : tensor<4xui8>
  %2 = call @helper(%1) : (tensor<4xui8>) -> tensor<4xui8>
  %zero = stablehlo.constant dense<0> : tensor<ui8>
  %3 = stablehlo.reduce(%2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<4xui8>, tensor<ui8>) -> tensor<ui8>
  return %2, %3 : tensor<4xui8>, tensor<ui8>
}
func.func private @helper(%x: tensor<4xui8>) -> tensor<4xui8> {
  %0 = stablehlo.xor %x, %x : tensor<4xui8>
  %1 = stablehlo.or %0, %x : tensor<4xui8>
  return %1 : tensor<4xui8>
}
"""


def test_program_takes_signless_types_and_computes_the_same_bits() -> None:
    a = np.array([1, 2, 200, 255], np.uint8)
    b = np.array([3, 7, 2, 255], np.uint8)
    before = run(parse(PROGRAM), a, b)
    out = _convert(PROGRAM)
    assert "ui8" not in out
    assert (
        "func.func @main(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> (tensor<4xi8>, tensor<i8>)"
        in out
    )
    assert "stablehlo.constant dense<[-6, 5, -128, -1]> : tensor<4xi8>" in out
    assert "func.func private @helper(%arg0: tensor<4xi8>) -> tensor<4xi8>" in out
    # the reduce's body (its region arguments) is converted too
    reparsed = parse(out)
    body_types = {
        str(arg.type)
        for op in reparsed.walk()
        if op.name == "stablehlo.reduce"
        for arg in op.regions[0].blocks.first.args  # type: ignore[union-attr]
    }
    assert body_types and all("i8" in t and "ui8" not in t for t in body_types)
    after = run(reparsed, a.view(np.int8), b.view(np.int8))
    for x, y in zip(before, after, strict=True):
        assert y.dtype == np.int8
        np.testing.assert_array_equal(x.view(np.uint8), y.view(np.uint8))


@pytest.mark.parametrize(
    "written,expected",
    [
        ("dense<[0, 7, 8, 15]> : tensor<4xui4>", "dense<[0, 7, -8, -1]> : tensor<4xi4>"),
        ("dense<[-32768, 5]> : tensor<2xsi16>", "dense<[-32768, 5]> : tensor<2xi16>"),
        ("dense<18446744073709551615> : tensor<ui64>", "dense<-1> : tensor<i64>"),
        ("dense<[true, false]> : tensor<2xi1>", "dense<[true, false]> : tensor<2xi1>"),
    ],
)
def test_constants_keep_their_bits(written: str, expected: str) -> None:
    t = written.rsplit(": ", 1)[1]
    text = (
        f"func.func @main() -> {t} {{\n  %c = stablehlo.constant {written}\n  return %c : {t}\n}}"
    )
    assert f"stablehlo.constant {expected}" in _convert(text)


def test_arith_constant_and_memrefs() -> None:
    text = """
func.func @f(%m: memref<*xui16>, %t: tensor<2xsi32>) -> (memref<2xui16>, tensor<2xsi32>) {
  %c = arith.constant dense<[65535, 1]> : tensor<2xui16>
  %cast = memref.cast %m : memref<*xui16> to memref<2xui16>
  return %cast, %t : memref<2xui16>, tensor<2xsi32>
}
"""
    out = _convert(text)
    assert (
        "func.func @f(%arg0: memref<*xi16>, %arg1: tensor<2xi32>) -> (memref<2xi16>, tensor<2xi32>)"
        in out
    )
    assert "arith.constant dense<[-1, 1]> : tensor<2xi16>" in out
    assert "memref.cast %arg0 : memref<*xi16> to memref<2xi16>" in out


def test_quantized_storage_is_not_converted() -> None:
    text = """
func.func @f(%x: tensor<2x!quant.uniform<ui8:f32, 0.5:3>>) -> tensor<2x!quant.uniform<ui8:f32, 0.5:3>> {
  return %x : tensor<2x!quant.uniform<ui8:f32, 0.5:3>>
}
"""
    assert _convert(text) == print_ir(parse(text))


def test_existing_casts_become_identities_that_canonicalize_folds() -> None:
    text = """
func.func @f(%x: tensor<3xui8>) -> tensor<3xi8> {
  %0 = builtin.unrealized_conversion_cast %x : tensor<3xui8> to tensor<3xi8>
  return %0 : tensor<3xi8>
}
"""
    out = _convert(text)
    assert "builtin.unrealized_conversion_cast %arg0 : tensor<3xi8> to tensor<3xi8>" in out
    folded = _convert(text, "canonicalize")
    assert "unrealized_conversion_cast" not in folded
    assert "return %arg0 : tensor<3xi8>" in folded


def test_scalar_unsigned_arith_constant_fails_in_upstream_words() -> None:
    text = """
func.func @f() -> ui8 {
  %c = arith.constant 200 : ui8
  return %c : ui8
}
"""
    with pytest.raises(StableHLOError) as e:
        _convert(text)
    assert "failed to legalize operation 'arith.constant'" in str(e.value)
    assert "s.mlir:3:" in str(e.value)


def test_cli_runs_upstream_pipeline(tmp_path: Path) -> None:
    f = tmp_path / "s.mlir"
    f.write_text(PROGRAM)
    p = run_opt(str(f), f"--{PASS}", "--canonicalize")
    assert p.returncode == 0, p.stderr
    assert "ui8" not in p.stdout
    assert "stablehlo.add %arg0, %c" in p.stdout


def test_block_argument_of_a_legal_op_is_materialized_once() -> None:
    text = """
func.func @f() {
  "foo.region"() ({
  ^bb0(%a: tensor<ui8>):
    %0 = "foo.use"(%a) : (tensor<ui8>) -> tensor<ui8>
    "foo.use2"(%a, %0) : (tensor<ui8>, tensor<ui8>) -> ()
  }) : () -> ()
  return
}
"""
    m = parse(text, "u.mlir", allow_unregistered=True)
    out = print_ir(run_pipeline(m, [(PASS, {})]))
    assert "^bb0(%arg0: tensor<ui8>):" in out  # the legal op's region is not converted
    assert out.count("unrealized_conversion_cast") == 1
    assert "%0 = builtin.unrealized_conversion_cast %arg0 : tensor<ui8> to tensor<i8>" in out
    assert '%1 = "foo.use"(%0) : (tensor<i8>) -> tensor<i8>' in out
    assert '"foo.use2"(%0, %1) : (tensor<i8>, tensor<i8>) -> ()' in out


WHILE = """
func.func @main(%x: tensor<ui32>, %a: tensor<2x2xf32>) -> (tensor<ui32>, tensor<2x2xf32>) {
  %lim = stablehlo.constant dense<4000000003> : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %0:2 = stablehlo.while(%i = %x, %m = %a) : tensor<ui32>, tensor<2x2xf32>
  cond {
    %c = stablehlo.compare NE, %i, %lim : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<ui32>
    %d = "stablehlo.dot"(%m, %m) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    stablehlo.return %n, %d : tensor<ui32>, tensor<2x2xf32>
  }
  return %0#0, %0#1 : tensor<ui32>, tensor<2x2xf32>
}
"""


def test_loop_regions_convert_and_compute_the_same_bits() -> None:
    x = np.array(4000000000, np.uint32)
    a = np.array([[0.5, 1.0], [-1.0, 0.25]], np.float32)
    before = run(parse(WHILE), x, a)
    out = _convert(WHILE, "stablehlo-legalize-deprecated-ops", "canonicalize")
    assert "ui32" not in out
    assert (
        "stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg1) : tensor<i32>, tensor<2x2xf32>"
        in out
    )
    assert "stablehlo.constant dense<-294967293> : tensor<i32>" in out
    assert "stablehlo.dot_general %iterArg_1, %iterArg_1, contracting_dims = [1] x [0]" in out
    after = run(parse(out), x.view(np.int32), a)
    np.testing.assert_array_equal(before[0].view(np.uint32), after[0].view(np.uint32))
    np.testing.assert_allclose(before[1], after[1], rtol=1e-6)
