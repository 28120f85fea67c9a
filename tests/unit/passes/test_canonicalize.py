"""canonicalize (MLIR's Canonicalizer for our dialects): each folder and canonicalization pattern,
constant uniquing and dead-op erasure, the options, and the clear refusal of ops whose
canonicalization is not modelled.  Also the memref/bufferization ops it folds (syntax, verifier)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline

from stablehlo_py.errors import NotSupportedError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.unit.passes.helpers import run_opt


def _canon(text: str, **options: str) -> str:
    return print_ir(run_pipeline(parse(text, "c.mlir"), [("canonicalize", options)]))


def _body(out: str) -> list[str]:
    """The function bodies' lines, stripped (no module/func lines)."""
    return [
        ln.strip()
        for ln in out.splitlines()
        if ln.startswith("    ") and not ln.strip().startswith(("func.func", "}"))
    ]


# ------------------------------------------------------------------------------------ casts
def test_unrealized_casts_identity_and_round_trip_fold() -> None:
    out = _canon(
        """
func.func @f(%x: tensor<2xi8>) -> (tensor<2xi8>, tensor<2xi8>, tensor<2xui8>) {
  %0 = builtin.unrealized_conversion_cast %x : tensor<2xi8> to tensor<2xi8>
  %1 = builtin.unrealized_conversion_cast %x : tensor<2xi8> to tensor<2xui8>
  %2 = builtin.unrealized_conversion_cast %1 : tensor<2xui8> to tensor<2xi8>
  %3 = builtin.unrealized_conversion_cast %x : tensor<2xi8> to tensor<2xsi8>
  %4 = builtin.unrealized_conversion_cast %3 : tensor<2xsi8> to tensor<2xui8>
  return %0, %2, %4 : tensor<2xi8>, tensor<2xi8>, tensor<2xui8>
}
"""
    )
    assert _body(out) == [
        "%0 = builtin.unrealized_conversion_cast %arg0 : tensor<2xi8> to tensor<2xsi8>",
        "%1 = builtin.unrealized_conversion_cast %0 : tensor<2xsi8> to tensor<2xui8>",
        "return %arg0, %arg0, %1 : tensor<2xi8>, tensor<2xi8>, tensor<2xui8>",
    ]


def test_memref_cast_folds() -> None:
    out = _canon(
        """
func.func @f(%m: memref<4xf32>, %u: memref<*xf32>) -> (memref<4xf32>, memref<?xf32>, memref<4xf32>) {
  %0 = memref.cast %m : memref<4xf32> to memref<4xf32>
  %1 = memref.cast %m : memref<4xf32> to memref<?xf32>
  %2 = memref.cast %1 : memref<?xf32> to memref<?xf32>
  %3 = memref.cast %u : memref<*xf32> to memref<?xf32>
  %4 = memref.cast %3 : memref<?xf32> to memref<4xf32>
  return %0, %2, %4 : memref<4xf32>, memref<?xf32>, memref<4xf32>
}
"""
    )
    assert _body(out) == [
        "%cast = memref.cast %arg0 : memref<4xf32> to memref<?xf32>",
        "%cast_0 = memref.cast %arg1 : memref<*xf32> to memref<?xf32>",
        "%cast_1 = memref.cast %cast_0 : memref<?xf32> to memref<4xf32>",
        "return %arg0, %cast, %cast_1 : memref<4xf32>, memref<?xf32>, memref<4xf32>",
    ]


def test_tensor_cast_identity_and_chain() -> None:
    out = _canon(
        """
func.func @f(%t: tensor<4xf32>) -> (tensor<4xf32>, tensor<?xf32>, tensor<4xf32>) {
  %0 = tensor.cast %t : tensor<4xf32> to tensor<4xf32>
  %1 = tensor.cast %t : tensor<4xf32> to tensor<*xf32>
  %2 = tensor.cast %1 : tensor<*xf32> to tensor<?xf32>
  %3 = tensor.cast %2 : tensor<?xf32> to tensor<4xf32>
  return %0, %2, %3 : tensor<4xf32>, tensor<?xf32>, tensor<4xf32>
}
"""
    )
    body = _body(out)
    assert body[-1].startswith("return %arg0, %cast")
    assert "tensor.cast %arg0 : tensor<4xf32> to tensor<?xf32>" in out
    assert "tensor<*xf32>" not in out


# ------------------------------------------------------------------------------------ bufferization
def test_to_buffer_of_to_tensor_and_back() -> None:
    out = _canon(
        """
func.func @f(%m: memref<4xf32>, %t: tensor<4xf32>) -> (memref<4xf32>, memref<?xf32>, tensor<4xf32>) {
  %0 = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %1 = bufferization.to_buffer %0 : tensor<4xf32> to memref<4xf32>
  %2 = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %3 = bufferization.to_buffer %2 : tensor<4xf32> to memref<?xf32>
  %4 = bufferization.to_buffer %t : tensor<4xf32> to memref<4xf32>
  %5 = bufferization.to_tensor %4 : memref<4xf32> to tensor<4xf32>
  return %1, %3, %5 : memref<4xf32>, memref<?xf32>, tensor<4xf32>
}
"""
    )
    assert _body(out) == [
        "%cast = memref.cast %arg0 : memref<4xf32> to memref<?xf32>",
        "return %arg0, %cast, %arg1 : memref<4xf32>, memref<?xf32>, tensor<4xf32>",
    ]


def test_to_tensor_of_non_adjacent_to_buffer_stays() -> None:
    text = """
func.func @f(%t: tensor<4xf32>, %m: memref<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = bufferization.to_buffer %t : tensor<4xf32> to memref<4xf32>
  %1 = bufferization.to_tensor %m : memref<4xf32> to tensor<4xf32>
  %2 = bufferization.to_tensor %0 : memref<4xf32> to tensor<4xf32>
  return %2, %1 : tensor<4xf32>, tensor<4xf32>
}
"""
    out = _canon(text)
    assert "bufferization.to_tensor %0" in out


def test_to_buffer_of_tensor_cast() -> None:
    out = _canon(
        """
func.func @f(%t: tensor<4xf32>) -> memref<?xf32> {
  %0 = tensor.cast %t : tensor<4xf32> to tensor<?xf32>
  %1 = bufferization.to_buffer %0 read_only : tensor<?xf32> to memref<?xf32>
  return %1 : memref<?xf32>
}
"""
    )
    assert _body(out) == [
        "%0 = bufferization.to_buffer %arg0 read_only : tensor<4xf32> to memref<4xf32>",
        "%cast = memref.cast %0 : memref<4xf32> to memref<?xf32>",
        "return %cast : memref<?xf32>",
    ]


def test_to_buffer_needing_a_copy_is_not_supported() -> None:
    text = """
func.func @f(%m: memref<4x?xf32>) -> memref<4x4xf32> {
  %0 = bufferization.to_tensor %m : memref<4x?xf32> to tensor<4x?xf32>
  %1 = bufferization.to_buffer %0 : tensor<4x?xf32> to memref<4x4xf32>
  return %1 : memref<4x4xf32>
}
"""
    with pytest.raises(NotSupportedError, match=r"memref.alloc and memref.copy are not modelled"):
        _canon(text)


# ------------------------------------------------------------------------------------ stablehlo/chlo
def test_constants_are_uniqued_hoisted_and_dead_ops_erased() -> None:
    out = _canon(
        """
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %x : tensor<2xf32>
  %c1 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %1 = stablehlo.add %0, %c1 : tensor<2xf32>
  %c2 = stablehlo.constant dense<1.0> : tensor<2xf32>
  %2 = stablehlo.add %1, %c2 : tensor<2xf32>
  %dead = stablehlo.multiply %2, %2 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""
    )
    assert _body(out) == [
        "%cst = stablehlo.constant dense<1.000000e+00> : tensor<2xf32>",
        "%0 = stablehlo.abs %arg0 : tensor<2xf32>",
        "%1 = stablehlo.add %0, %cst : tensor<2xf32>",
        "%2 = stablehlo.add %1, %cst : tensor<2xf32>",
        "return %2 : tensor<2xf32>",
    ]


def test_constant_like_folds_to_chlo_constant_when_static() -> None:
    out = _canon(
        """
func.func @f(%x: tensor<2x3xf32>, %y: tensor<?xf32>) -> (tensor<2x3xf32>, tensor<?xf32>) {
  %0 = "chlo.constant_like"(%x) {value = 2.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "chlo.constant_like"(%y) {value = 1.0 : f32} : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<?xf32>
}
"""
    )
    assert "%cst = chlo.constant dense<2.500000e+00> : tensor<2x3xf32>" in out
    assert '"chlo.constant_like"(%arg1)' in out
    assert '"chlo.constant_like"(%arg0)' not in out


CASE = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %i = stablehlo.constant dense<INDEX> : tensor<i32>
  %0 = "stablehlo.case"(%i) ({
    %a = stablehlo.abs %x : tensor<3xf32>
    stablehlo.return %a : tensor<3xf32>
  }, {
    %n = stablehlo.negate %x : tensor<3xf32>
    %m = stablehlo.multiply %n, %x : tensor<3xf32>
    stablehlo.return %m : tensor<3xf32>
  }) : (tensor<i32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


def test_case_with_constant_index_is_inlined_and_computes_the_same() -> None:
    text = CASE.replace("INDEX", "1")
    x = np.array([1.5, -2.0, 3.0], np.float32)
    before = run(parse(text), x)
    out = _canon(text)
    assert "stablehlo.case" not in out
    assert _body(out) == [
        "%0 = stablehlo.negate %arg0 : tensor<3xf32>",
        "%1 = stablehlo.multiply %0, %arg0 : tensor<3xf32>",
        "return %1 : tensor<3xf32>",
    ]
    np.testing.assert_array_equal(run(parse(out), x)[0], before[0])


@pytest.mark.parametrize("index", ["-1", "2"])
def test_case_with_index_out_of_range_stays(index: str) -> None:
    assert "stablehlo.case" in _canon(CASE.replace("INDEX", index))


def test_disable_patterns_filters_by_label() -> None:
    out = _canon(CASE.replace("INDEX", "0"), **{"disable-patterns": "FoldConstantCaseOp"})
    assert "stablehlo.case" in out
    out = _canon(CASE.replace("INDEX", "0"), **{"enable-patterns": "ChainedTensorCast"})
    assert "stablehlo.case" in out
    out = _canon(CASE.replace("INDEX", "0"), **{"enable-patterns": "FoldConstantCaseOp"})
    assert "stablehlo.case" not in out


# ------------------------------------------------------------------------------------ arith, func
def test_arith_float_folds() -> None:
    out = _canon(
        """
func.func @f(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, f32) {
  %a = arith.constant dense<[1.5, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<0.25> : tensor<2xf32>
  %nz = arith.constant dense<-0.0> : tensor<2xf32>
  %pz = arith.constant dense<0.0> : tensor<2xf32>
  %s1 = arith.constant 3.0 : f32
  %s2 = arith.constant 4.0 : f32
  %0 = arith.divf %a, %b : tensor<2xf32>
  %1 = arith.addf %x, %nz : tensor<2xf32>
  %2 = arith.addf %x, %pz : tensor<2xf32>
  %3 = arith.mulf %s1, %s2 : f32
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, f32
}
"""
    )
    assert "arith.constant dense<[6.000000e+00, 8.000000e+00]> : tensor<2xf32>" in out
    assert "arith.constant 1.200000e+01 : f32" in out
    assert "arith.addf %arg0, %cst" in out  # x + 0.0 is not x (-0.0 + 0.0 = +0.0)
    ret = next(ln for ln in _body(out) if ln.startswith("return"))
    assert ret.startswith("return %cst") and ", %arg0, %" in ret


def test_call_indirect_of_known_callee_becomes_call() -> None:
    out = _canon(
        """
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %f = func.constant @callee : (tensor<f32>) -> tensor<f32>
  %0 = func.call_indirect %f(%x) : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @callee(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"""
    )
    assert "%0 = call @callee(%arg0) : (tensor<f32>) -> tensor<f32>" in out
    assert "call_indirect" not in out and "func.constant" not in out


# ------------------------------------------------------------------------------------ refusals, options
def test_op_with_unmodelled_canonicalization_is_refused_before_any_change() -> None:
    text = """
func.func @f(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c = arith.constant dense<0> : tensor<2xi32>
  %0 = arith.addi %x, %c : tensor<2xi32>
  %1 = builtin.unrealized_conversion_cast %0 : tensor<2xi32> to tensor<2xi32>
  return %1 : tensor<2xi32>
}
"""
    m = parse(text)
    before = print_ir(m)
    with pytest.raises(
        NotSupportedError, match=r"canonicalization of 'arith.addi' is not supported"
    ):
        run_pipeline(m, [("canonicalize", {})])
    assert print_ir(m) == before


def test_region_simplify_option() -> None:
    text = CASE.replace("INDEX", "0")
    with pytest.raises(StableHLOError, match="expects one of disabled, normal, aggressive"):
        _canon(text, **{"region-simplify": "wild"})
    assert "stablehlo.case" not in _canon(text, **{"region-simplify": "disabled"})
    multi = """
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  cf.br ^bb1(%x : tensor<f32>)
^bb1(%y: tensor<f32>):
  return %y : tensor<f32>
}
"""
    with pytest.raises(NotSupportedError, match="region simplification"):
        _canon(multi)


def test_test_convergence_fails_when_the_iterations_run_out() -> None:
    text = CASE.replace("INDEX", "0")
    assert "stablehlo.case" not in _canon(text, **{"max-iterations": "1"})  # best effort
    with pytest.raises(StableHLOError, match="did not converge after 1 iterations"):
        _canon(text, **{"max-iterations": "1", "test-convergence": "true"})
    _canon(text, **{"test-convergence": "true"})


# ------------------------------------------------------------------------------------ the ops
def test_memref_and_bufferization_ops_round_trip() -> None:
    text = """
func.func @f(%a: memref<*xf32>, %t: tensor<4xf32>) -> (memref<4xf32>, tensor<*xf32>, memref<4xf32>) {
  %0 = memref.cast %a : memref<*xf32> to memref<4xf32>
  %1 = bufferization.to_tensor %a restrict writable : memref<*xf32> to tensor<*xf32>
  %2 = bufferization.to_buffer %t read_only : tensor<4xf32> to memref<4xf32>
  return %0, %1, %2 : memref<4xf32>, tensor<*xf32>, memref<4xf32>
}
"""
    out = print_ir(parse(text))
    assert "%cast = memref.cast %arg0 : memref<*xf32> to memref<4xf32>" in out
    assert "bufferization.to_tensor %arg0 restrict writable : memref<*xf32> to tensor<*xf32>" in out
    assert "bufferization.to_buffer %arg1 read_only : tensor<4xf32> to memref<4xf32>" in out
    assert print_ir(parse(out)) == out
    generic = print_ir(parse(text), generic=True)
    assert '"bufferization.to_tensor"(%arg0) <{restrict, writable}>' in generic
    assert print_ir(parse(generic)) == out


@pytest.mark.parametrize(
    "line,words",
    [
        (
            "%0 = memref.cast %b : memref<4x?xf32> to memref<3x?xf32>",
            (
                "'memref.cast' op operand type 'memref<4x?xf32>' and result type 'memref<3x?xf32>' are "
                "cast incompatible"
            ),
        ),
        (
            "%0 = memref.cast %a : memref<*xf32> to memref<*xf32>",
            (
                "'memref.cast' op operand type 'memref<*xf32>' and result type 'memref<*xf32>' are "
                "cast incompatible"
            ),
        ),
        (
            "%0 = bufferization.to_tensor %b : memref<4x?xf32> to tensor<4x4xf32>",
            (
                "'bufferization.to_tensor' op failed to verify that type of 'result' matches the "
                "tensor equivalent of 'buffer'"
            ),
        ),
    ],
)
def test_memref_and_bufferization_verifiers(tmp_path: Path, line: str, words: str) -> None:
    f = tmp_path / "bad.mlir"
    f.write_text(
        f"func.func @f(%a: memref<*xf32>, %b: memref<4x?xf32>) {{\n  {line}\n  return\n}}\n"
    )
    p = run_opt(str(f))
    assert p.returncode != 0
    assert f"bad.mlir:2:8: error: {words}" in p.stderr, p.stderr


def test_unregistered_ops_are_kept_and_do_not_block() -> None:
    text = """
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "foo.bar"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = builtin.unrealized_conversion_cast %x : tensor<2xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""
    m = parse(text, "u.mlir", allow_unregistered=True)
    out = print_ir(run_pipeline(m, [("canonicalize", {})]))
    assert '"foo.bar"(%arg0)' in out  # effects unknown: not dead
    assert "unrealized_conversion_cast" not in out


def test_func_constants_are_uniqued_and_hoisted() -> None:
    out = _canon(
        """
func.func @main(%x: tensor<f32>) -> ((tensor<f32>) -> tensor<f32>, (tensor<f32>) -> tensor<f32>) {
  %0 = stablehlo.abs %x : tensor<f32>
  %f = func.constant @callee : (tensor<f32>) -> tensor<f32>
  %g = func.constant @callee : (tensor<f32>) -> tensor<f32>
  return %f, %g : (tensor<f32>) -> tensor<f32>, (tensor<f32>) -> tensor<f32>
}
func.func private @callee(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
"""
    )
    body = _body(out)
    assert body[0] == "%f = constant @callee : (tensor<f32>) -> tensor<f32>"
    assert out.count("constant @callee") == 1
    assert body[1] == "return %f, %f : (tensor<f32>) -> tensor<f32>, (tensor<f32>) -> tensor<f32>"
    assert "stablehlo.abs" not in out  # dead


def test_commutative_trait_moves_constants_last() -> None:
    out = _canon(
        """
func.func @f(%x: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>) {
  %c = stablehlo.constant dense<2.0> : tensor<2xf32>
  %k = stablehlo.constant dense<3> : tensor<2xi32>
  %a = arith.constant dense<4.0> : tensor<2xf32>
  %0 = chlo.broadcast_add %c, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = chlo.broadcast_and %k, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %2 = arith.mulf %a, %x : tensor<2xf32>
  %3 = stablehlo.add %c, %x : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xi32>, tensor<2xf32>, tensor<2xf32>
}
"""
    )
    assert "chlo.broadcast_add %arg0, %cst" in out
    assert "chlo.broadcast_and %arg1, %c" in out
    assert "arith.mulf %arg0, %cst_0" in out
    assert "stablehlo.add %cst, %arg0" in out  # upstream's IsCommutative has no fold
