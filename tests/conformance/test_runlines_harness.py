"""The RUN-line harness has lit's semantics: `not` negates the one command it prefixes, so a `not`
RUN line fails when the tool succeeds *or* when FileCheck does not find its CHECK text.

(The harness once negated the whole pipeline, and a CHECK line under `not` that matched nothing
passed: these tests keep that from coming back.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

API_ARGS = CONFORMANCE / "interpret" / "api_input_arguments.mlir"

PROGRAM = """\
// RUN: not stablehlo-opt %s 2>&1 | FileCheck %s
func.func @main(%arg0: tensor<2xf32>) -> tensor<2xi32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
"""


def _run_only_line(text: str, tmp_path: Path):
    path = tmp_path / "case.mlir"
    path.write_text(text)
    (line,) = run_lines(path)
    return execute(line, path, tmp_path / "t")


def test_not_line_passes_when_tool_fails_and_check_text_is_found(tmp_path: Path) -> None:
    r = _run_only_line(PROGRAM + "// CHECK: type of return operand 0\n", tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_not_line_fails_when_check_text_is_absent(tmp_path: Path) -> None:
    r = _run_only_line(PROGRAM + "// CHECK: this diagnostic is never printed\n", tmp_path)
    assert r.returncode != 0
    assert "this diagnostic is never printed" in r.stderr


def test_not_line_fails_when_the_tool_succeeds(tmp_path: Path) -> None:
    ok = PROGRAM.replace("-> tensor<2xi32>", "-> tensor<2xf32>")
    r = _run_only_line(ok + "// CHECK: func.func\n", tmp_path)
    assert r.returncode != 0


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        ("not false | cat", 0),
        ("not true | cat", 1),
        ("not false | false", 1),
        ("echo x | not grep x", 1),
        ("echo x | not grep y", 0),
    ],
)
def test_not_negates_one_command_of_the_pipeline(tmp_path: Path, line: str, expect: int) -> None:
    path = tmp_path / "empty.mlir"
    path.write_text("")
    assert (execute(line, path, tmp_path / "t").returncode == 0) == (expect == 0)


@pytest.mark.skipif(not API_ARGS.exists(), reason="../shared/conformance/interpret is absent")
def test_a_broken_check_under_an_upstream_not_line_fails(tmp_path: Path) -> None:
    """Upstream's own file, run as written, passes; the same file with one CHECK line of a `not`
    RUN line edited fails that line."""
    text = API_ARGS.read_text()
    not_lines = [(i, ln) for i, ln in enumerate(run_lines(API_ARGS)) if ln.startswith("not ")]
    assert not_lines, "api_input_arguments.mlir has no `not` RUN line any more"
    copy = tmp_path / API_ARGS.name
    for _, line in not_lines:
        copy.write_text(text)
        assert execute(line, copy, tmp_path / "t").returncode == 0, line
        prefix = re.search(r"--check-prefixes=(\S+)", line).group(1).split(",")[0]
        broken, n = re.subn(
            rf"(// {re.escape(prefix)}(?:-NEXT)?: )(.*)", r"\1\2 (edited)", text, count=1
        )
        assert n == 1, prefix
        copy.write_text(broken)
        r = execute(line, copy, tmp_path / "t")
        assert r.returncode != 0, f"an edited {prefix} line still passed: {line}"
