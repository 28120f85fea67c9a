"""stablehlo-check-shape-assertions (upstream's StablehloCheckShapeAssertions.cpp)."""

from __future__ import annotations

import pytest
from stablehlo_py.passes import run_pipeline
from stablehlo_py.passes.stablehlo_check_shape_assertions import format_error_message

from stablehlo_py.errors import StableHLOError, VerifyError
from stablehlo_py.ir import parse, print_ir

PASS = "stablehlo-check-shape-assertions"


def _program(
    cond: str, inputs: str = "", types: str = "", extra_attrs: str = "", message: str = "bad {0}"
) -> str:
    ins = f", {inputs}" if inputs else ""
    tys = f", {types}" if types else ""
    return (
        "func.func @main(%arg0: tensor<i1>, %arg1: tensor<i64>) {\n"
        "  %t = stablehlo.constant dense<true> : tensor<i1>\n"
        "  %f = stablehlo.constant dense<false> : tensor<i1>\n"
        "  %c7 = stablehlo.constant dense<7> : tensor<i64>\n"
        "  %c3 = stablehlo.constant dense<-3> : tensor<i32>\n"
        "  %c3x = stablehlo.constant dense<3> : tensor<1xi32>\n"
        f"  stablehlo.custom_call @shape_assertion({cond}{ins}) {{api_version = 2 : i32, "
        f'error_message = "{message}", has_side_effect = true{extra_attrs}}} : (tensor<i1>{tys}) -> ()\n'
        "  return\n}\n"
    )


def _run(text: str, **options: str) -> str:
    return print_ir(run_pipeline(parse(text, "a.mlir"), [(PASS, dict(options))]))


def test_holding_assertion_is_erased() -> None:
    out = _run(_program("%t", "%c7", "tensor<i64>"))
    assert "shape_assertion" not in out


def test_failing_assertion_reports_its_formatted_message_at_the_call() -> None:
    with pytest.raises(VerifyError) as e:
        _run(
            _program(
                "%f", "%c7, %c3", "tensor<i64>, tensor<i32>", message="got {0} and {1}, want {0}"
            )
        )
    assert e.value.message == "got 7 and -3, want 7"
    assert e.value.location == "a.mlir:7:3"


def test_disabled_assertions_are_erased_unchecked() -> None:
    out = _run(_program("%arg0", "%arg1", "tensor<i64>"), **{"enable-shape-assertions": "false"})
    assert "shape_assertion" not in out


@pytest.mark.parametrize(
    ("cond", "inputs", "types", "extra", "message", "expected"),
    [
        ("%arg0", "", "", "", "m", "expects static assert_what (operand #0)"),
        (
            "%f",
            "%arg1",
            "tensor<i64>",
            "",
            "m {0}",
            "expects static error_message_input (operand #1)",
        ),
        (
            "%f",
            "%c3x",
            "tensor<1xi32>",
            "",
            "m",
            "expects error_message_input (operand #1) to be a constant of type tensor<i32> or tensor<i64>",
        ),
        (
            "%f",
            "%c7",
            "tensor<i64>",
            "",
            "m {1}",
            "expects error_message to contain format specifiers with error_message_input index less than 1. Found specifier {1}",
        ),
        (
            "%t",
            "%c7",
            "tensor<i64>",
            "",
            "m {-1}",
            (
                "expects error_message to contain format specifiers with error_message_input index "
                "less than 1. Found specifier {-1}"
            ),
        ),
        ("%t", "", "", ", foo = 1 : i32", "m", "foo is not a supported attribute"),
        ("%t", "", "", ', backend_config = "x"', "m", "expects an empty backend_config"),
    ],
)
def test_malformed_assertions(
    cond: str, inputs: str, types: str, extra: str, message: str, expected: str
) -> None:
    with pytest.raises(VerifyError) as e:
        _run(_program(cond, inputs, types, extra, message))
    assert e.value.message == expected


@pytest.mark.parametrize(
    ("constant", "attributes", "expected"),
    [
        pytest.param(
            "dense<1> : tensor<i32>",
            'error_message = "m", has_side_effect = true',
            r"expects assert_what \(operand #0\) to be a constant of type tensor<i1>",
            id="assert_what_must_be_i1",
        ),
        pytest.param(
            "dense<true> : tensor<i1>",
            "has_side_effect = true",
            "expects an error_message attribute",
            id="missing_error_message",
        ),
    ],
)
def test_malformed_assertion_calls(constant: str, attributes: str, expected: str) -> None:
    ty = constant.split(" : ")[1]
    text = (
        f"func.func @main() {{\n  %c = stablehlo.constant {constant}\n"
        f"  stablehlo.custom_call @shape_assertion(%c) {{{attributes}}} : ({ty}) -> ()\n"
        "  return\n}\n"
    )
    with pytest.raises(VerifyError, match=expected):
        _run(text)


def test_other_custom_calls_are_kept() -> None:
    text = (
        "func.func @main(%arg0: tensor<i1>) {\n"
        "  stablehlo.custom_call @other(%arg0) {has_side_effect = true} : (tensor<i1>) -> ()\n  return\n}\n"
    )
    assert "@other" in _run(text)


def test_unknown_option() -> None:
    with pytest.raises(StableHLOError, match="unknown option"):
        _run(_program("%t"), enable="true")


@pytest.mark.parametrize(
    ("message", "inputs", "expected"),
    [
        ("no inputs {0}", [], "no inputs {0}"),  # upstream formats nothing without inputs
        ("{0} {1}", [4, -2], "4 -2"),
        ("{{0}} is {0}", [4], "{0}} is 4"),  # formatv: `{{` is a literal brace
        ("[{0,4}] [{0,-4}] [{0,=5}]", [7], "[   7] [7   ] [  7  ]"),
        ("{0:x} {0:X-} {0:d4}", [255], "0xff FF 0255"),
        ("{0:N}", [1234567], "1,234,567"),
        ("{0} {2}", [1], "1 -1"),  # upstream's errInput gives -1 past the inputs
    ],
)
def test_format_error_message(message: str, inputs: list[int], expected: str) -> None:
    assert format_error_message(message, inputs) == expected


TWO_FAILING = """func.func @main() {
  %f = stablehlo.constant dense<false> : tensor<i1>
  %c = stablehlo.constant dense<5> : tensor<i32>
  // expected-error@+1 {{first 5}}
  stablehlo.custom_call @shape_assertion(%f, %c) {error_message = "first {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  // expected-error@+1 {{second}}
  stablehlo.custom_call @shape_assertion(%f) {error_message = "second", has_side_effect = true} : (tensor<i1>) -> ()
  return
}
"""


def test_every_failing_assertion_is_reported() -> None:
    with pytest.raises(VerifyError) as e:
        _run(TWO_FAILING)
    assert e.value.message == "second"
    assert [d.message for d in e.value.preceding] == ["first 5"]  # type: ignore[attr-defined]
    assert "a.mlir:5:3: error: first 5" in str(e.value)


def test_verify_diagnostics_matches_every_failing_assertion(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import contextlib
    import io

    from stablehlo_py.cli.opt import main

    src = tmp_path / "t.mlir"
    src.write_text(TWO_FAILING)
    err = io.StringIO()
    out = str(tmp_path / "out.mlir")
    with contextlib.redirect_stderr(err):
        assert main([f"--{PASS}", "--verify-diagnostics", str(src), "-o", out]) == 0, err.getvalue()
    src.write_text(TWO_FAILING.replace("  // expected-error@+1 {{first 5}}\n", "\n"))
    with contextlib.redirect_stderr(err):
        assert main([f"--{PASS}", "--verify-diagnostics", str(src), "-o", out]) == 1
    assert "unexpected error: first 5" in err.getvalue()


@pytest.mark.parametrize(("b", "fires"), [(3, False), (0, True)])
def test_jax_shape_polymorphic_export_after_refinement(b: int, fires: bool) -> None:
    """A `jax.export` with symbolic dimensions emits shape assertions; after refine-arguments and
    refine-shapes their operands are constants and this pass checks them."""
    jax = pytest.importorskip("jax")
    import numpy as np
    from jax import export

    def f(x, y):  # type: ignore[no-untyped-def]
        return jax.numpy.sum(jax.numpy.tanh(x @ y), axis=0)

    dims = export.symbolic_shape("b, n")
    exported = export.export(jax.jit(f))(
        jax.ShapeDtypeStruct(dims, np.float32), jax.ShapeDtypeStruct((dims[1], 8), np.float32)
    )
    text = exported.mlir_module()
    assert text.count("@shape_assertion") == 3
    pipeline = [
        ("stablehlo-refine-arguments", {"types": f"tensor<{b}x5xf32>,tensor<5x8xf32>"}),
        ("stablehlo-refine-shapes", {}),
        (PASS, {}),
    ]
    if fires:
        with pytest.raises(
            VerifyError, match=r"Expected value >= 1 for dimension variable 'b'.*'b' = 0 "
        ):
            run_pipeline(parse(text), pipeline)
    else:
        out = print_ir(run_pipeline(parse(text), pipeline))
        assert "shape_assertion" not in out
        assert f"func.func public @main(%arg0: tensor<{b}x5xf32>, %arg1: tensor<5x8xf32>)" in out
