"""Dynamic programs: arguments bind `?` dimensions (checked against static dimensions, bounds and
rank), results are checked against their types, shape assertions are checked, and
`stablehlo-translate --interpret --args` does the same from the command line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.impls.dynamic import format_error_message

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir import parse

ADD_DYNAMIC = """
func.func @main(%n: tensor<i64>, %a: tensor<?x4xf32>, %b: tensor<2x?x4xf32>) -> (tensor<?x4xf32>, tensor<2x?x4xf32>) {
  %0 = stablehlo.add %a, %a : tensor<?x4xf32>
  %1 = stablehlo.multiply %b, %b : tensor<2x?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<2x?x4xf32>
}
"""

BOUNDED = """
func.func @main(%a: tensor<?x3xf32, #stablehlo.bounds<4, ?>>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>> {
  %0 = stablehlo.negate %a : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
  return %0 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
}
"""


def f32(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_issue_example_binds_question_marks() -> None:
    out = run(ADD_DYNAMIC, np.int64(3), np.ones((3, 4), np.float32), np.ones((2, 3, 4), np.float32))
    assert out[0].shape == (3, 4) and np.all(out[0] == 2)
    assert out[1].shape == (2, 3, 4)
    out = run(ADD_DYNAMIC, np.int64(0), f32(7, 4), f32(2, 1, 4))
    np.testing.assert_array_equal(out[0], 2 * f32(7, 4))
    assert out[1].shape == (2, 1, 4)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (
            f32(3, 5),
            f32(2, 3, 4),
            re.escape("argument 1 of @main: dimension 1 is 5 but its type tensor<?x4xf32> says 4"),
        ),
        (
            f32(3, 4),
            f32(3, 3, 4),
            re.escape(
                "argument 2 of @main: dimension 0 is 3 but its type tensor<2x?x4xf32> says 2"
            ),
        ),
        (
            f32(12),
            f32(2, 3, 4),
            r"argument 1 of @main has rank 1 \(shape \[12\]\) but its type tensor<\?x4xf32> has rank 2",
        ),
        (f32(3, 4), f32(2, 3, 4, 1), r"argument 2 of @main has rank 4 .* has rank 3"),
    ],
)
def test_binding_errors_name_argument_and_dimension(
    a: np.ndarray, b: np.ndarray, message: str
) -> None:
    with pytest.raises(InterpreterError, match=message):
        run(ADD_DYNAMIC, np.int64(1), a, b)


def test_argument_count_error() -> None:
    with pytest.raises(InterpreterError, match="@main takes 3 arguments, 2 were given"):
        run(ADD_DYNAMIC, np.int64(1), f32(3, 4))


def test_bounds_are_checked() -> None:
    np.testing.assert_array_equal(run(BOUNDED, f32(4, 3))[0], -f32(4, 3))
    assert run(BOUNDED, f32(0, 3))[0].shape == (0, 3)
    with pytest.raises(
        InterpreterError, match="argument 0 of @main: dimension 0 is 7 but its bound is 4"
    ):
        run(BOUNDED, f32(7, 3))


def test_unranked_arguments_accept_any_shape() -> None:
    text = """
    func.func @main(%a: tensor<*xf32>) -> tensor<*xf32> {
      return %a : tensor<*xf32>
    }
    """
    # (stablehlo ops take ranked tensors only, as upstream's ODS constraints; func.func does not)
    for shape in [(), (3,), (2, 0, 5)]:
        x = -f32(*shape)
        np.testing.assert_array_equal(run(text, x)[0], x)


def test_argument_dtype_is_the_parameter_element_type() -> None:
    (out,) = run(BOUNDED, np.ones((2, 3), np.float64))
    assert out.dtype == np.float32


def test_results_checked_against_static_dims_of_result_type() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
      %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xi64>) -> tensor<?x3xf32>
      return %0 : tensor<?x3xf32>
    }
    """
    assert run(text, f32(6), np.array([2, 3]))[0].shape == (2, 3)
    with pytest.raises(
        InterpreterError,
        match=r"result 0 of 'stablehlo.dynamic_reshape': dimension 1 is 2 but its type tensor<\?x3xf32> says 3",
    ):
        run(text, f32(4), np.array([2, 2]))


def test_result_bounds_are_checked() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>, %s: tensor<1xi64>) -> tensor<?xf32, #stablehlo.bounds<4>> {
      %0 = stablehlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<1xi64>) -> tensor<?xf32, #stablehlo.bounds<4>>
      return %0 : tensor<?xf32, #stablehlo.bounds<4>>
    }
    """
    assert run(text, f32(3), np.array([3]))[0].shape == (3,)
    with pytest.raises(
        InterpreterError,
        match="result 0 of 'stablehlo.dynamic_reshape': dimension 0 is 6 but its bound is 4",
    ):
        run(text, f32(6), np.array([6]))


def test_static_op_on_dynamic_operands_is_checked() -> None:
    """An op with a static result type computed from a dynamic operand must produce that shape."""
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<4xf32> {
      %0 = stablehlo.convert %a : (tensor<?xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    """
    np.testing.assert_array_equal(run(text, f32(4))[0], f32(4))
    with pytest.raises(
        InterpreterError,
        match=r"result 0 of 'stablehlo.convert': dimension 0 is 5 but its type tensor<4xf32> says 4",
    ):
        run(text, f32(5))


@pytest.mark.parametrize(
    "op,types,shapes",
    [
        ("stablehlo.add %a, %b : tensor<?xf32>", ("tensor<?xf32>",) * 3, [(3,), (1,)]),
        ("stablehlo.add %a, %b : tensor<?xf32>", ("tensor<?xf32>",) * 3, [(1,), (3,)]),
        (
            "stablehlo.compare LT, %a, %b : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>",
            ("tensor<?xf32>", "tensor<?xf32>", "tensor<?xi1>"),
            [(2,), (1,)],
        ),
        (
            "stablehlo.complex %a, %b : tensor<?xcomplex<f32>>",
            ("tensor<?xf32>", "tensor<?xf32>", "tensor<?xcomplex<f32>>"),
            [(4,), (1,)],
        ),
    ],
)
def test_elementwise_operands_of_different_runtime_shapes_are_refused(
    op: str, types: tuple[str, str, str], shapes: list[tuple[int, ...]]
) -> None:
    """SameOperandsAndResultShape holds at run time too: a `?` dimension of size 1 in one operand is
    not broadcast (numpy would)."""
    a, b, r = types
    text = f"""
    func.func @main(%a: {a}, %b: {b}) -> {r} {{
      %0 = {op}
      return %0 : {r}
    }}
    """
    name = op.split()[0]
    shown = ", ".join(str(list(s)) for s in shapes)
    with pytest.raises(InterpreterError) as info:
        run(text, *(f32(*s) for s in shapes))
    assert str(info.value) == (
        f"-:3:12: error: the operands of '{name}' have shapes {shown} at run time: the op needs one "
        "shape for all operands and its result, so a `?` dimension must have the same size in every "
        "operand (broadcast the smaller one first, e.g. with stablehlo.dynamic_broadcast_in_dim)"
    )
    same = run(text, f32(*shapes[0]), f32(*shapes[0]))[0]
    assert same.shape == shapes[0]


@pytest.mark.parametrize(
    "kind,operand,result,good,bad,need",
    [
        ("RFFT", "tensor<?xf32>", "tensor<3xcomplex<f32>>", 4, 8, 4),
        ("IRFFT", "tensor<?xcomplex<f32>>", "tensor<4xf32>", 3, 5, 3),
    ],
)
def test_fft_lengths_are_checked_on_dynamic_operands(
    kind: str, operand: str, result: str, good: int, bad: int, need: int
) -> None:
    """fft_c3/c4 at run time: an RFFT of fft_length [4] does not silently read 4 of 8 elements."""
    text = f"""
    func.func @main(%a: {operand}) -> {result} {{
      %0 = stablehlo.fft %a, type = {kind}, length = [4] : ({operand}) -> {result}
      return %0 : {result}
    }}
    """
    dtype = np.float32 if kind == "RFFT" else np.complex64
    x = np.arange(good).astype(dtype)
    expected = np.fft.rfft(x, 4) if kind == "RFFT" else np.fft.irfft(x, 4)
    np.testing.assert_allclose(run(text, x)[0], expected, rtol=1e-6, atol=1e-6)
    with pytest.raises(InterpreterError) as info:
        run(text, np.arange(bad).astype(dtype))
    assert str(info.value) == (
        f"-:3:12: error: the operand of this {kind} has trailing dimensions [{bad}] at run time, "
        f"but its fft_length [4] needs [{need}]"
    )


# ------------------------------------------------------------------------------ shape assertions
ASSERTION = """
func.func @main(%a: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c = stablehlo.constant dense<2> : tensor<i32>
  %0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?x8xf32>) -> tensor<i32>
  %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%1, %0, %c) {api_version = 2 : i32, error_message = "Expected b >= {1} but got 'b' = {0} ({{literal}}, {0:x}, {5})", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
  return %a : tensor<?x8xf32>
}
"""


def test_shape_assertion_passes() -> None:
    assert run(ASSERTION, f32(3, 8))[0].shape == (3, 8)


def test_shape_assertion_failure_raises_formatted_message() -> None:
    with pytest.raises(
        InterpreterError, match=r"Expected b >= 2 but got 'b' = 1 \(\{literal}}, 1, -1\)"
    ) as e:
        run(ASSERTION, f32(1, 8))
    assert str(e.value).startswith("-:6:3: error: ")  # located at the custom_call


def test_format_error_message_follows_formatv() -> None:
    assert format_error_message("a {0} b {1}", [3, 4]) == "a 3 b 4"
    assert format_error_message("{{0}", [3]) == "{0}"
    assert format_error_message("{0,5} {0:d} {2}", [7]) == "7 7 -1"
    assert format_error_message("no specs", []) == "no specs"


def test_shape_assertion_operand_errors() -> None:
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      %0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<?xf32>) -> tensor<i32>
      stablehlo.custom_call @shape_assertion(%0) {error_message = "x", has_side_effect = true} : (tensor<i32>) -> ()
      return %a : tensor<?xf32>
    }
    """
    with pytest.raises(
        InterpreterError, match=r"expects assert_what \(operand #0\) to be a tensor<i1>"
    ):
        run(text, f32(2))
    text = """
    func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      %t = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.custom_call @shape_assertion(%t) {has_side_effect = true} : (tensor<i1>) -> ()
      return %a : tensor<?xf32>
    }
    """
    with pytest.raises(InterpreterError, match="expects an error_message attribute"):
        run(text, f32(2))


# ------------------------------------------------------------------------------------------- CLI
BIN = Path(sys.executable).parent


def _translate(*args: str) -> subprocess.CompletedProcess[str]:
    tool = BIN / "stablehlo-translate"
    cmd = [str(tool)] if tool.exists() else [sys.executable, "-m", "stablehlo_py.cli.translate"]
    return subprocess.run([*cmd, *args], check=False, capture_output=True, text=True, timeout=120)


def test_cli_interpret_binds_dynamic_arguments(tmp_path: Path) -> None:
    path = tmp_path / "dyn.mlir"
    path.write_text(ADD_DYNAMIC)
    args = "[dense<3> : tensor<i64>, dense<1.0> : tensor<3x4xf32>, dense<2.0> : tensor<2x1x4xf32>]"
    r = _translate("--interpret", str(path), f"--args={args}")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("tensor<3x4xf32> {")
    assert "tensor<2x1x4xf32> {" in r.stdout and "4.000000e+00" in r.stdout


def test_cli_interpret_reports_binding_errors(tmp_path: Path) -> None:
    path = tmp_path / "bounded.mlir"
    path.write_text(BOUNDED)
    r = _translate("--interpret", str(path), "--args=[dense<1.0> : tensor<7x3xf32>]")
    assert r.returncode != 0
    assert "argument 0 of @main: dimension 0 is 7 but its bound is 4" in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_interpret_reports_failed_shape_assertion(tmp_path: Path) -> None:
    path = tmp_path / "assert.mlir"
    path.write_text(ASSERTION)
    r = _translate("--interpret", str(path), "--args=[dense<1.0> : tensor<1x8xf32>]")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "Expected b >= 2 but got 'b' = 1" in r.stderr


def test_parsed_module_runs_without_reverifying() -> None:
    module = parse(ADD_DYNAMIC)
    assert run(module, np.int64(1), f32(2, 4), f32(2, 5, 4))[1].shape == (2, 5, 4)


def test_casts_between_static_and_dynamic_types_are_checked() -> None:
    text = """
    func.func @main(%a: tensor<4xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<3xf32>) {
      %0 = builtin.unrealized_conversion_cast %a : tensor<4xf32> to tensor<?xf32>
      %1 = tensor.cast %b : tensor<?xf32> to tensor<3xf32>
      return %0, %1 : tensor<?xf32>, tensor<3xf32>
    }
    """
    out0, out1 = run(parse(text), f32(4), f32(3))
    assert out0.shape == (4,) and out1.shape == (3,)
    with pytest.raises(
        InterpreterError,
        match=re.escape(
            "result 0 of 'tensor.cast': dimension 0 is 5 but its type tensor<3xf32> says 3"
        ),
    ):
        run(parse(text), f32(4), f32(5))


def test_other_entry_functions_bind_too() -> None:
    from stablehlo_py.interpreter import eval_module

    text = BOUNDED.replace("@main", "@neg")
    np.testing.assert_array_equal(run(text, f32(2, 3), entry="neg")[0], -f32(2, 3))
    with pytest.raises(
        InterpreterError, match="argument 0 of @neg: dimension 0 is 5 but its bound is 4"
    ):
        eval_module(text, [f32(5, 3)], entry="neg")
