"""Ops of unknown dialects (MLIR's --allow-unregistered-dialect): generic form in, generic form out."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.errors import NotSupportedError, ParseError, StableHLOError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.registry import UnregisteredOp, unregistered_op_class
from stablehlo_py.ir.verify import verify

BIN = Path(sys.executable).parent
OPT = str(BIN / "stablehlo-opt") if (BIN / "stablehlo-opt").exists() else shutil.which("stablehlo-opt")

PROGRAM = """\
module {
  func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "foo.bar"(%arg0) <{p = 1 : i32}> {a = #foo.attr<1>, b = "x"} : (tensor<2xf32>) -> tensor<2xi32>
    "foo.region"(%0) ({
    ^bb0(%arg1: tensor<2xi32>):
      %2 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
      "foo.yield"(%2) : (tensor<2xf32>) -> ()
    }, {
    }) : (tensor<2xi32>) -> ()
    %1:2 = "foo.two"() : () -> (!foo.t, tensor<f32>)
    "foo.side_effect"() : () -> ()
    return %arg0 : tensor<2xf32>
  }
}
"""


def test_round_trip_is_a_fixed_point() -> None:
    m = parse(PROGRAM, allow_unregistered=True)
    verify(m)
    assert print_ir(m) == PROGRAM
    assert print_ir(parse(print_ir(m), allow_unregistered=True)) == PROGRAM


def test_ops_keep_name_operands_properties_attributes_and_regions() -> None:
    m = parse(PROGRAM, allow_unregistered=True)
    ops = {op.name: op for op in m.walk() if isinstance(op, UnregisteredOp)}
    assert set(ops) == {"foo.bar", "foo.region", "foo.yield", "foo.two", "foo.side_effect"}
    bar = ops["foo.bar"]
    assert set(bar.properties) == {"p"} and set(bar.attributes) == {"a", "b"}
    assert len(ops["foo.region"].regions) == 2 and len(ops["foo.two"].results) == 2
    assert type(bar) is unregistered_op_class("foo.bar")  # one class per name, cached


def test_generic_printing_matches_mlir() -> None:
    m = parse(PROGRAM, allow_unregistered=True)
    text = print_ir(m, generic=True)
    assert '%0 = "foo.bar"(%arg0) <{p = 1 : i32}> {a = #foo.attr<1>, b = "x"} : (tensor<2xf32>) -> tensor<2xi32>' in text
    assert '"stablehlo.add"(%arg0, %arg0)' in text
    assert print_ir(parse(text, allow_unregistered=True), generic=True) == text


def test_refused_without_the_flag() -> None:
    with pytest.raises(ParseError, match=r"-:3:10: error: unknown operation 'foo.bar'"):
        parse(PROGRAM)


def test_unknown_op_of_a_known_dialect_is_refused_even_with_the_flag() -> None:
    with pytest.raises(ParseError, match="unregistered operation 'stablehlo.foo' found in dialect"):
        parse('"stablehlo.foo"() : () -> ()', allow_unregistered=True)


def test_pretty_form_of_an_unknown_op_is_refused() -> None:
    with pytest.raises(ParseError, match="unknown operation 'foo.bar'"):
        parse("func.func @f(%a: tensor<f32>) {\n  foo.bar %a : tensor<f32>\n  return\n}", allow_unregistered=True)


def test_registered_ops_around_them_are_still_verified() -> None:
    bad = '"foo.a"() : () -> ()\nfunc.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n  return %a : tensor<2xf32>\n}'
    with pytest.raises(StableHLOError):
        verify(parse(bad, allow_unregistered=True))


# @main of one unregistered op, foo.bar
FOO_BAR = (
    "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
    '  %0 = "foo.bar"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}'
)


def test_interpreter_refuses_them() -> None:
    from stablehlo_py.interpreter.api import run

    m = parse(FOO_BAR, allow_unregistered=True)
    with pytest.raises(NotSupportedError, match="'foo.bar'"):
        run(m, np.ones(2, np.float32))


def test_vhlo_legalization_refuses_them() -> None:
    from stablehlo_py.passes import run_pipeline

    m = parse(FOO_BAR, allow_unregistered=True)
    with pytest.raises(StableHLOError, match="'foo' ops have no VHLO counterpart"):
        run_pipeline(m, [("stablehlo-legalize-to-vhlo", {})])


def _opt(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    assert OPT, "console scripts are not installed (pip install -e .)"
    return subprocess.run([OPT, *args], check=False, input=stdin, capture_output=True, text=True, timeout=120)


def test_cli_with_and_without_the_flag() -> None:
    r = _opt("--allow-unregistered-dialect", stdin=PROGRAM)
    assert r.returncode == 0, r.stderr
    assert r.stdout == PROGRAM
    r = _opt(stdin=PROGRAM)
    assert r.returncode == 1
    assert "<stdin>:3:10: error: unknown operation 'foo.bar'" in r.stderr
    assert "Traceback" not in r.stderr
