"""stablehlo-wrap-in-composite (upstream's StablehloWrapInComposite.cpp): the composites and their
decomposition functions (names uniqued as MLIR's SymbolTable does, appended to the module), the
options, and -- through the interpreter -- that the wrapped program computes the same."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_wrap_in_composite import unique_symbol_name

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir import parse, print_ir
from tests.unit.passes.helpers import run_opt

PASS = "stablehlo-wrap-in-composite"

PROGRAM = """
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.add %x, %y : tensor<3xf32> loc("first")
  %1 = stablehlo.multiply %0, %y : tensor<3xf32>
  %2 = stablehlo.add %1, %x : tensor<3xf32> loc("second")
  return %2 : tensor<3xf32>
}
"""


def _wrap(text: str, **options: str) -> str:
    return print_ir(run_pipeline(parse(text, "w.mlir"), [(PASS, options)]))


def test_wrapped_ops_call_their_decomposition_and_compute_the_same() -> None:
    out = _wrap(PROGRAM, **{"op-names": "stablehlo.add", "version": "3"})
    assert (
        '%0 = stablehlo.composite "stablehlo.add" %arg0, %arg1 {decomposition = '
        "@stablehlo.add.impl_0, version = 3 : i32} : (tensor<3xf32>, tensor<3xf32>) -> "
        "tensor<3xf32>" in out
    )
    assert "%1 = stablehlo.multiply %0, %arg1 : tensor<3xf32>" in out
    # upstream's greedy driver visits the ops last-first: the second add gets the plain name
    assert (
        '%2 = stablehlo.composite "stablehlo.add" %1, %arg0 {decomposition = @stablehlo.add.impl,'
        in out
    )
    funcs = [ln.strip() for ln in out.splitlines() if "func.func" in ln]
    assert funcs == [
        "func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<3xf32> {",
        *(
            f"func.func private @stablehlo.add.{n}(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> "
            "tensor<3xf32> {"
            for n in ("impl", "impl_0")
        ),
    ]
    x = np.array([1.0, 2.0, 3.0], np.float32)
    y = np.array([0.5, -1.0, 4.0], np.float32)
    for a, b in zip(run(parse(PROGRAM), x, y), run(parse(out), x, y), strict=True):
        np.testing.assert_array_equal(a, b)


def test_locations_go_to_the_composite_the_function_and_its_copy() -> None:
    m = run_pipeline(parse(PROGRAM, "w.mlir"), [(PASS, {"op-names": "stablehlo.add"})])
    out = print_ir(m, debuginfo=True)
    assert (
        'stablehlo.composite "stablehlo.add" %arg0, %arg1 {decomposition = @stablehlo.add.impl_0} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> loc("first")'
        in out
    )
    impl = out.split("@stablehlo.add.impl_0(", 1)[1]
    assert '%0 = stablehlo.add %arg0, %arg1 : tensor<3xf32> loc("first")' in impl
    assert 'return %0 : tensor<3xf32> loc("first")' in impl
    assert '} loc("first")' in impl


def test_taken_names_get_the_symbol_tables_suffix() -> None:
    text = """
func.func private @stablehlo.abs.impl(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func private @stablehlo.abs.impl_0(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.abs %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    out = _wrap(text, **{"op-names": "stablehlo.abs"})
    assert "decomposition = @stablehlo.abs.impl_1}" in out
    assert (
        out.rstrip().splitlines()[-5].strip().startswith("func.func private @stablehlo.abs.impl_1(")
    )
    assert unique_symbol_name({"a"}, "b") == "b"
    assert unique_symbol_name({"a", "a_0"}, "a") == "a_1"


def test_op_attributes_become_composite_attributes_and_regions_go_with_the_op() -> None:
    text = """
func.func @main(%x: tensor<4x3xf32>) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %dead = stablehlo.negate %x : tensor<4x3xf32>
  return %t, %r : tensor<3x4xf32>, tensor<4xf32>
}
"""
    out = _wrap(text, **{"op-names": "stablehlo.transpose, stablehlo.reduce, stablehlo.add"})
    assert (
        'stablehlo.composite "stablehlo.transpose" %arg0 {composite_attributes = '
        "{permutation = array<i64: 1, 0>}, decomposition = @stablehlo.transpose.impl}" in out
    )
    assert 'stablehlo.composite "stablehlo.reduce" %arg0, %cst {composite_attributes = ' in out
    # the add in the reduce body went with the reduce (only ops present before the pass are wrapped)
    assert "stablehlo.add.impl" not in out
    assert "applies stablehlo.add across dimensions = [1]" in out
    assert "stablehlo.negate" not in out  # the greedy driver erases dead ops, as upstream's
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    t, r = run(parse(out), x)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(r, x.sum(axis=1))


def test_no_op_names_changes_nothing() -> None:
    assert _wrap(PROGRAM) == print_ir(parse(PROGRAM))


def test_bad_version_is_one_clear_error() -> None:
    with pytest.raises(
        StableHLOError,
        match="option 'version' of pass 'stablehlo-wrap-in-composite' expects an integer",
    ):
        _wrap(PROGRAM, version="x")


def test_cli_warns_about_unknown_op_names(tmp_path: Path) -> None:
    src = tmp_path / "w.mlir"
    src.write_text(PROGRAM)
    res = run_opt(f"--{PASS}=op-names=stablehlo.nope,stablehlo.multiply version=2", str(src))
    assert res.returncode == 0, res.stderr
    assert (
        "Warning: Unknown op name in opNamesOption: 'stablehlo.nope' is not a registered "
        "operation." in res.stderr
    )
    assert (
        '%1 = stablehlo.composite "stablehlo.multiply" %0, %arg1 {decomposition = @stablehlo.multiply.impl, version = 2 : i32}'
        in res.stdout
    )
