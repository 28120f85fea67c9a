"""The CLIs as a user runs them: subprocesses, exit codes, `file:line:col: error:` and no tracebacks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
OPT = str(BIN / "stablehlo-opt") if (BIN / "stablehlo-opt").exists() else shutil.which("stablehlo-opt")
TRANSLATE = str(BIN / "stablehlo-translate") if (BIN / "stablehlo-translate").exists() else shutil.which(
    "stablehlo-translate"
)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mlp.mlir"

GOOD = """func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def run(tool: str | None, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert tool, "console scripts are not installed (pip install -e .)"
    return subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, timeout=120)


def test_opt_prints_pretty_from_stdin() -> None:
    r = run(OPT, stdin=GOOD)
    assert r.returncode == 0, r.stderr
    assert "%0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>" in r.stdout


def test_opt_example_is_a_fixed_point(tmp_path: Path) -> None:
    out = tmp_path / "out.mlir"
    r = run(OPT, str(EXAMPLE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    r2 = run(OPT, str(out))
    assert r2.returncode == 0 and r2.stdout == out.read_text()


def test_opt_generic_form_reads_back() -> None:
    g = run(OPT, "--mlir-print-op-generic", stdin=GOOD)
    assert '"stablehlo.add"(%arg0, %arg0)' in g.stdout
    back = run(OPT, stdin=g.stdout)
    assert back.stdout == run(OPT, stdin=GOOD).stdout


def test_single_dash_flags_like_upstream() -> None:
    r = run(OPT, "-mlir-print-op-generic", stdin=GOOD)
    assert r.returncode == 0 and '"func.func"' in r.stdout


@pytest.mark.parametrize(
    "text,expected",
    [
        ("func.func @f() {\n  %0 = stablehlo.abs %9 : tensor<f32>\n}", "<stdin>:2:22: error: use of undeclared SSA value name '%9'"),
        # MLIR's emitWrongTokenError: just after the previous token (the blank before `{`)
        ("func.func @f( {", "<stdin>:1:14: error:"),
        ("\x00\x01garbage", "<stdin>:1:1: error:"),
    ],
)
def test_errors_are_located_and_without_traceback(text: str, expected: str) -> None:
    r = run(OPT, stdin=text)
    assert r.returncode != 0
    assert expected in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file_and_unknown_flag() -> None:
    r = run(OPT, "/nonexistent/x.mlir")
    assert r.returncode == 1 and "cannot open input file" in r.stderr
    r = run(OPT, "--no-such-pass", stdin=GOOD)
    assert r.returncode == 1 and "unknown option or pass '--no-such-pass'" in r.stderr
    assert "Traceback" not in r.stderr


def test_split_input_file_joins_outputs() -> None:
    text = GOOD + "// -----\n" + GOOD
    r = run(OPT, "--split-input-file", stdin=text)
    assert r.returncode == 0
    assert r.stdout.count("// -----") == 1 and r.stdout.count("func.func @main") == 2


def test_verify_diagnostics() -> None:
    text = "func.func @f() {\n  // expected-error @+1 {{use of undeclared SSA value name '%9'}}\n  %0 = stablehlo.abs %9 : tensor<f32>\n}\n"
    assert run(OPT, "--verify-diagnostics", stdin=text).returncode == 0
    wrong = text.replace("undeclared SSA value name", "something else")
    r = run(OPT, "--verify-diagnostics", stdin=wrong)
    assert r.returncode == 1 and "unexpected error" in r.stderr


def test_translate_version_and_mode_errors() -> None:
    r = run(TRANSLATE, "--print-stablehlo-version")
    assert r.returncode == 0 and r.stdout.strip() == "1.22.0"
    r = run(TRANSLATE, stdin=GOOD)
    assert r.returncode == 1 and "choose exactly one of" in r.stderr
