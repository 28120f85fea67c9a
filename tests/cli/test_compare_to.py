"""`stablehlo-translate --interpret` with `--trace[=LEVEL]`, `--trace-output` and `--compare-to`
(issue 27): the planted-bug models (tests/data/trace: a 563-op JAX model and five variants with
one bug each) against the original's recorded trace name the planted op and exit 1, the original
against itself exits 0; trace reports on stderr or in the -o file; the trace file of a failing
run; tolerances; one-line errors (no jax needed: backends only in tests/oracle)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.trace import load_trace

BIN = Path(sys.executable).parent
TRANSLATE = (
    str(BIN / "stablehlo-translate")
    if (BIN / "stablehlo-translate").exists()
    else shutil.which("stablehlo-translate")
)
DATA = Path(__file__).resolve().parents[1] / "data" / "trace"
PLANTED: dict[str, str] = json.loads((DATA / "planted.json").read_text())
INPUTS = f"--inputs={DATA / 'inputs.npz'}"
FIRST = re.compile(r"first diverging op: (\S+) \((\S+)\)(?:, the reference's (\S+))?")
TIMES: dict[str, float] = {}

SMALL = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<SCALE> : tensor<3xf32> loc("jit(f)"("s.py":1:0))
  %a = stablehlo.multiply %x, %c : tensor<3xf32> loc("jit(f)/mul"("s.py":2:0))
  %b = stablehlo.sine %a : tensor<3xf32> loc("jit(f)/sin"("s.py":3:0))
  return %b : tensor<3xf32>
}
"""
ARGS = "--args=[dense<[0.5, 1.0, -2.0]> : tensor<3xf32>]"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    assert TRANSLATE, "console scripts are not installed (pip install -e .)"
    return subprocess.run([TRANSLATE, *args], capture_output=True, text=True, timeout=300)


def one_line_error(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("trace") / "reference.npz"
    start = time.perf_counter()
    r = run("--interpret", str(DATA / "model.mlir.gz"), INPUTS, f"--trace-output={path}")
    TIMES["model (--trace-output)"] = time.perf_counter() - start
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("tensor<8x32xf32>")  # the results are printed as without a trace
    return path


def test_the_model_is_large_enough(reference: Path) -> None:
    trace = load_trace(reference)
    assert trace.level == 3 and len(trace) >= 500 and trace.error is None
    assert all(v is not None for e in trace for v in e.values)  # every value, for --compare-to


@pytest.mark.parametrize("variant", sorted(PLANTED))
def test_compare_to_names_the_planted_op(reference: Path, variant: str) -> None:
    start = time.perf_counter()
    r = run("--interpret", str(DATA / f"{variant}.mlir.gz"), INPUTS, f"--compare-to={reference}")
    TIMES[variant] = time.perf_counter() - start
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    report = r.stderr.splitlines()
    assert report[0].startswith(f"compared with {reference}: ")
    found = [FIRST.fullmatch(line) for line in report if line.startswith("first")]
    assert len(found) == 1 and found[0] is not None, r.stderr  # "first diverging", not a fallback
    ours, _, theirs = found[0].groups()
    # the op as the original (the reference) names it: its key there when the bug moved it
    assert (theirs or ours) == PLANTED[variant], r.stderr
    assert "operands (all agree with the reference)" in r.stderr or "operands: none" in r.stderr
    assert re.search(r"result #0 differs: .*(max abs diff|infinite elements differ)", r.stderr)
    print(f"{variant}: {TIMES[variant]:.2f} s")


def test_the_original_agrees_with_its_own_trace(reference: Path) -> None:
    start = time.perf_counter()
    r = run("--interpret", str(DATA / "model.mlir.gz"), INPUTS, f"--compare-to={reference}")
    TIMES["model (--compare-to)"] = time.perf_counter() - start
    assert r.returncode == 0, r.stderr
    lines = r.stderr.splitlines()
    same = r"compared with .*: (\d+) ops here, \1 in the reference; \1 compared, 0 differ"
    assert re.fullmatch(same, lines[0])
    assert lines[1] == "no op differs"
    print("times: " + ", ".join(f"{k} {v:.2f} s" for k, v in TIMES.items()))


# --------------------------------------------------------------------------- the trace report
def _small(tmp_path: Path, scale: str = "2.0") -> Path:
    path = tmp_path / f"small_{scale}.mlir"
    path.write_text(SMALL.replace("SCALE", scale))
    return path


def test_trace_levels_on_stderr(tmp_path: Path) -> None:
    prog = _small(tmp_path)
    r = run("--interpret", str(prog), ARGS, "--trace")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("tensor<3xf32> {")  # results on stdout, unchanged
    lines = r.stderr.splitlines()
    assert lines[0] == "trace of @main: 3 ops, 3 runs"
    mul = r"\s+1\s+jit\(f\)/stablehlo.multiply#0  f32\[3\] min -4 max 2 mean -0.333333  s.py:2"
    assert re.fullmatch(mul, lines[2])
    assert not any("= [" in line for line in lines)
    two = run("--interpret", str(prog), ARGS, "--trace=2")
    assert "= [ 1.  2. -4.]" in two.stderr
    three = run("--interpret", str(prog), ARGS, "-trace=3")  # LLVM's single dash
    assert three.returncode == 0 and "= [ 1.  2. -4.]" in three.stderr


def test_with_o_the_trace_follows_the_results_in_the_file(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    r = run("--interpret", str(_small(tmp_path)), ARGS, "--trace", "-o", str(out))
    assert r.returncode == 0 and r.stderr == "" and r.stdout == ""
    text = out.read_text()
    assert text.startswith("tensor<3xf32> {") and "\ntrace of @main: 3 ops, 3 runs\n" in text


def test_the_trace_file_of_a_failing_run(tmp_path: Path) -> None:
    prog = tmp_path / "fail.mlir"
    prog.write_text(
        "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %a = stablehlo.sine %x : tensor<3xf32>\n"
        "  %b = stablehlo.custom_call @no_such_target(%a) : (tensor<3xf32>) -> tensor<3xf32>\n"
        "  return %b : tensor<3xf32>\n}\n"
    )
    path = tmp_path / "t.npz"
    r = run("--interpret", str(prog), ARGS, f"--trace-output={path}")
    assert r.returncode == 1 and "no_such_target" in r.stderr
    trace = load_trace(path)
    assert trace.keys() == ["@main/stablehlo.sine#0"]
    assert trace.error is not None and "no_such_target" in trace.error
    np.testing.assert_allclose(trace.entries[0].values[0], np.sin([0.5, 1.0, -2.0]), rtol=1e-6)


def test_tolerances(tmp_path: Path) -> None:
    ref = tmp_path / "ref.npz"
    assert run("--interpret", str(_small(tmp_path)), ARGS, f"--trace-output={ref}").returncode == 0
    near = _small(tmp_path, "2.002")  # 1e-3 relative: beyond f32's default 2e-4
    r = run("--interpret", str(near), ARGS, f"--compare-to={ref}")
    assert r.returncode == 1
    assert "first diverging op: jit(f)/stablehlo.constant#0 (stablehlo.constant)" in r.stderr
    loose = run("--interpret", str(near), ARGS, f"--compare-to={ref}", "--rtol=0.01")
    assert loose.returncode == 0, loose.stderr
    assert "(floats: rtol 0.01)" in loose.stderr and "no op differs" in loose.stderr
    absolute = run("--interpret", str(near), ARGS, f"--compare-to={ref}", "--rtol=0", "--atol=0.01")
    assert absolute.returncode == 0, absolute.stderr


def test_trace_output_and_compare_to_together(tmp_path: Path) -> None:
    ref, again = tmp_path / "ref.npz", tmp_path / "again.npz"
    assert run("--interpret", str(_small(tmp_path)), ARGS, f"--trace-output={ref}").returncode == 0
    prog = str(_small(tmp_path))
    r = run("--interpret", prog, ARGS, f"--compare-to={ref}", f"--trace-output={again}", "--trace")
    assert r.returncode == 0, r.stderr
    assert "trace of @main: 3 ops" in r.stderr and "no op differs" in r.stderr
    assert load_trace(again).keys() == load_trace(ref).keys()


# ------------------------------------------------------------------------------------ errors
def test_one_line_errors(tmp_path: Path) -> None:
    prog = str(_small(tmp_path))
    missing = tmp_path / "no.npz"
    line = one_line_error(run("--interpret", prog, ARGS, f"--compare-to={missing}"))
    assert line == f"error: no trace file {missing}"
    assert "is a directory; it takes xla, iree or a trace file" in one_line_error(
        run("--interpret", prog, ARGS, f"--compare-to={tmp_path}")
    )
    line = one_line_error(run("--interpret", prog, ARGS, f"--compare-to={DATA / 'inputs.npz'}"))
    assert "has no __index__ member: it is not a trace file" in line
    assert one_line_error(run("--interpret", prog, ARGS, "--rtol=0.1")) == (
        "error: --rtol and --atol set the tolerance of --compare-to; add it"
    )
    assert "--trace" in one_line_error(run("--interpret", prog, ARGS, "--trace=4"))
    assert "cannot write the trace to" in one_line_error(
        run("--interpret", prog, ARGS, f"--trace-output={tmp_path / 'no' / 'dir.npz'}")
    )
    two = tmp_path / "two.mlir"
    two.write_text(
        "func.func @main() -> tensor<f32> {\n  %0 = stablehlo.constant dense<1.0> : tensor<f32>\n"
        "  return %0 : tensor<f32>\n}\n// -----\n" * 2
    )
    line = one_line_error(
        run("--interpret", "--split-input-file", str(two), f"--trace-output={tmp_path / 't.npz'}")
    )
    assert "--trace-output and --compare-to cover one run, but @main runs too" in line


@pytest.mark.parametrize(
    ("backend", "hidden", "extra"),
    [("xla", "jax", "oracle"), ("iree", "iree.compiler", "iree")],
)
def test_a_missing_backend_names_its_extra(
    tmp_path: Path, backend: str, hidden: str, extra: str
) -> None:
    # the backend's package made unimportable in the tool's process
    code = (
        f"import sys; sys.modules[{hidden!r}] = None\n"
        "from stablehlo_py.cli.translate import main\nmain()"
    )
    prog = str(_small(tmp_path))
    r = subprocess.run(
        [sys.executable, "-c", code, "--interpret", prog, ARGS, f"--compare-to={backend}"],
        capture_output=True, text=True, timeout=120,
    )
    line = one_line_error(r)
    assert line.startswith(f"error: --compare-to={backend}: ") and f"stablehlo-py[{extra}]" in line
    assert r.stdout == ""  # checked before the program runs
