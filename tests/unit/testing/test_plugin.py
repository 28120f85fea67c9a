"""The pytest plugin as a user meets it (pytester runs): *.shlo_test.mlir files, the
stablehlo_conformance marker, a failing assert_matches's report, and a light import."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.unit.testing.programs import BUGGY, MODEL, PLANTED_KEY, PLUGIN, PLUGIN_ARGS

pytest_plugins = ["pytester"]

RELU = """\
// RUN: stablehlo-translate --interpret %s
// RUN: stablehlo-opt %s --inline | FileCheck %s
// RUN: not stablehlo-translate --serialize --target=1.0.0 %s 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: test -f %S/data.txt

func.func private @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<4xf32>
  %y = stablehlo.maximum %x, %zero : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// CHECK-LABEL: func.func @main
// CHECK-NOT: call
// CHECK: stablehlo.maximum
// ERR: 'check' ops have no VHLO counterpart
func.func @main() {
  %x = stablehlo.constant dense<[-2.0, -0.5, 0.0, 1.5]> : tensor<4xf32>
  %y = func.call @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
  check.expect_eq_const %y, dense<[0.0, 0.0, 0.0, 1.5]> : tensor<4xf32>
  func.return
}
"""
# the interpreter's check fails (1.5 is expected as 2.5) and so does FileCheck (no minimum)
BROKEN = RELU.replace(
    "1.5]> : tensor<4xf32>\n  func.return", "2.5]> : tensor<4xf32>\n  func.return"
)
BROKEN = BROKEN.replace("// CHECK: stablehlo.maximum", "// CHECK: stablehlo.minimum")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN_ARGS, "-p", "no:cacheprovider", *args)


# ------------------------------------------------------------------------------- loading
def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = textwrap.dedent(
        f"""
        import sys, pytest
        before = set(sys.modules)
        import {PLUGIN}
        print(" ".join(sorted(set(sys.modules) - before)))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    new = out.stdout.split()
    assert PLUGIN in new
    heavy = [m for m in new if m.split(".")[0] in ("jax", "jaxlib", "xdsl", "numpy", "iree")]
    assert not heavy, heavy
    ours = [
        m for m in new if m.startswith("stablehlo_py.") and not m.startswith("stablehlo_py.testing")
    ]
    assert set(ours) <= {
        "stablehlo_py.version", "stablehlo_py.version_numbers", "stablehlo_py.min_version",
        "stablehlo_py.dialects", "stablehlo_py.registry_hook", "stablehlo_py.errors",
    }, ours


# ------------------------------------------------------------------------------- .shlo_test.mlir
def test_shlo_test_files_are_one_test_per_run_line(pytester: pytest.Pytester) -> None:
    pytester.makefile(".shlo_test.mlir", relu=RELU, broken=BROKEN)
    pytester.makefile(".txt", data="")
    r = run(pytester, "-v")
    r.assert_outcomes(passed=6, failed=2)
    r.stdout.fnmatch_lines(
        ["*relu.shlo_test.mlir::line1 PASSED*", "*relu.shlo_test.mlir::line4 PASSED*"]
    )
    r.stdout.fnmatch_lines(
        [
            "*broken.shlo_test.mlir:1: RUN: stablehlo-translate --interpret %s",
            "*exited with status 1*",
            "*check.expect_eq_const*got 1.5, expected 2.5*",
            "*broken.shlo_test.mlir:2: RUN: stablehlo-opt %s --inline | FileCheck %s",
            "*Couldn't match \"stablehlo.minimum\"*",
        ]
    )
    assert "Traceback" not in r.stdout.str()


def test_a_shlo_test_file_without_run_lines_is_a_collection_error(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(".shlo_test.mlir", empty="func.func @main() {\n  func.return\n}\n")
    r = run(pytester)
    r.assert_outcomes(errors=1)
    r.stdout.fnmatch_lines(["*empty.shlo_test.mlir has no // RUN: line*"])


def test_other_mlir_files_are_not_collected(pytester: pytest.Pytester) -> None:
    pytester.makefile(".mlir", plain=RELU)
    assert run(pytester).ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_missing_filecheck_skips_the_lines_needing_it(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "from stablehlo_py.testing import conformance\n"
        "conformance.filecheck_available = lambda: False\n"
    )
    pytester.makefile(".shlo_test.mlir", relu=RELU)
    pytester.makefile(".txt", data="")
    r = run(pytester, "-rs")
    r.assert_outcomes(passed=2, skipped=2)
    r.stdout.fnmatch_lines(["*RUN line 2 needs FileCheck (pip install filecheck*"])


def test_a_run_line_that_takes_too_long(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nstablehlo_run_timeout = 0.5\n")
    pytester.makefile(".shlo_test.mlir", slow="// RUN: sleep 60\n")
    r = run(pytester)
    r.assert_outcomes(failed=1)
    r.stdout.fnmatch_lines(["*timed out after 0.5 s (stablehlo_run_timeout sets the limit)*"])
    # the RUN line was stopped, not waited for (a wide margin: a busy machine starts pytest slowly)
    assert r.duration < 30


def test_a_bad_timeout_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nstablehlo_run_timeout = soon\n")
    pytester.makefile(".shlo_test.mlir", quick="// RUN: true\n")
    r = run(pytester)
    out = r.stdout.str() + r.stderr.str()
    assert "stablehlo_run_timeout = 'soon': give a number of seconds" in out


# ------------------------------------------------------------------------------- the marker
SMALL = """\
// RUN: stablehlo-opt %s | FileCheck %s
// RUN: stablehlo-translate --interpret %s
// CHECK: stablehlo.add
func.func @main() {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %y = stablehlo.add %x, %x : tensor<2xi32>
  check.expect_eq_const %y, dense<[2, 4]> : tensor<2xi32>
  func.return
}
"""


def test_marker_runs_the_files_before_the_test(pytester: pytest.Pytester) -> None:
    bad = SMALL.replace("CHECK: stablehlo.add", "CHECK: stablehlo.subtract")
    pytester.makefile(".mlir", good=SMALL, bad=bad.replace("[2, 4]", "[2, 5]"))
    pytester.makepyfile(
        """
        import pytest

        ran = []

        @pytest.mark.stablehlo_conformance("good.mlir")
        def test_good():
            ran.append("good")

        @pytest.mark.stablehlo_conformance("bad.mlir")
        def test_bad():
            ran.append("bad")

        @pytest.mark.stablehlo_conformance("absent.mlir")
        def test_absent():
            pass

        @pytest.mark.stablehlo_conformance()
        def test_no_file():
            pass

        def test_body_of_a_failing_file_did_not_run():
            assert ran == ["good"]
        """
    )
    r = run(pytester)
    r.assert_outcomes(passed=2, failed=3)
    out = r.stdout.str()
    assert "2 RUN lines failed:" in out
    assert "bad.mlir:1: RUN: stablehlo-opt %s | FileCheck %s" in out
    assert "bad.mlir:2: RUN: stablehlo-translate --interpret %s" in out
    assert "got 4, expected 5" in out
    assert "@pytest.mark.stablehlo_conformance: no file" in out and "absent.mlir" in out
    assert "takes the paths of .mlir files" in out
    assert "Traceback" not in out


def test_marker_is_registered(pytester: pytest.Pytester) -> None:
    r = run(pytester, "--markers")
    r.stdout.fnmatch_lines(["@pytest.mark.stablehlo_conformance(*files): run the // RUN: lines*"])


# ------------------------------------------------------------------------------- assert_matches
def test_a_failing_assert_matches_reports_the_planted_op(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        f"""
        import numpy as np
        from stablehlo_py.testing import assert_matches, save_reference

        MODEL = {MODEL!r}
        BUGGY = {BUGGY!r}
        X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)

        def test_model_against_the_buggy_run(tmp_path):
            save_reference(tmp_path / "buggy.npz", BUGGY, X)
            assert_matches(MODEL, X, backend=f"file:{{tmp_path / 'buggy.npz'}}")

        def test_model_against_its_own_run(tmp_path):
            save_reference(tmp_path / "model.npz", MODEL, X)
            assert_matches(MODEL, X, backend=f"file:{{tmp_path / 'model.npz'}}")
        """
    )
    r = run(pytester)
    r.assert_outcomes(passed=1, failed=1)
    r.stdout.fnmatch_lines(
        [
            "E*AssertionError: the interpreter's run of the MLIR text differs from the reference*",
            f"E*first diverging op: {PLANTED_KEY} (stablehlo.subtract)",
            "E*at model.py:20*",
            "E*name stack: jit(f)/block1",
            "E*result #0 differs: 4 of 4 elements differ; max abs diff*max rel diff*",
        ]
    )
