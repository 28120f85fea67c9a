"""The interestingness tests that look outside the interpreter, without XLA or IREE:
DivergesFrom with a backend of our own (the interpreter run on the program with one op changed),
FailsWith on a command, Crashes and Script (subprocesses: exit statuses, signals, timeouts, the
candidate's files), and what they count."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.io import load_inputs
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.reduce import (
    Crashes,
    DivergesFrom,
    FailsWith,
    Program,
    ReduceError,
    Script,
    reduce,
)
from stablehlo_py.reduce.consumers import Completed, command_argv, run_command
from stablehlo_py.reduce.moves import Context, move_named
from stablehlo_py.reduce.session import NotInteresting
from tests.unit.reduce.programs import layered_model

TAN_PROGRAM = """
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %0 = stablehlo.exponential %x : tensor<4xf32>
  %1 = stablehlo.multiply %0, %x : tensor<4xf32>
  %2 = stablehlo.tan %1 : tensor<4xf32>
  %3 = stablehlo.add %2, %x : tensor<4xf32>
  %4 = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
  return %3, %4 : tensor<4xf32>, tensor<4xi32>
}
"""
X = np.array([0.5, -1.0, 0.25, 0.75], np.float32)


def sine_for_tan(module, args):
    """A 'backend' that computes tan as sine (and agrees on everything else)."""
    return run(parse(print_ir(module).replace("stablehlo.tan ", "stablehlo.sine ")), *args)


def _exe(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(0o755)
    return str(path)


# ------------------------------------------------------------------------------ DivergesFrom
def test_diverges_from_compares_results_with_the_tolerance() -> None:
    p = Program.from_text(TAN_PROGRAM, [X])
    test = DivergesFrom(sine_for_tan)
    assert test(p) and test.last_difference.startswith("result 0: ")
    assert DivergesFrom(lambda m, a: run(m, *a))(p) is False  # the interpreter agrees with itself

    def off_by(rel: float):
        def backend(module, args):
            out = run(module, *args)
            return [out[0] * np.float32(1 + rel), out[1]]
        return backend

    assert DivergesFrom(off_by(1e-3))(p)  # beyond f32's 2e-4
    assert not DivergesFrom(off_by(1e-3), rtol=1e-2)(p)
    assert not DivergesFrom(off_by(1e-6))(p)
    # integers compare exactly
    test = DivergesFrom(lambda m, a: [run(m, *a)[0], run(m, *a)[1] + 1])
    assert test(p) and test.last_difference.startswith("result 1: ")
    test = DivergesFrom(lambda m, a: run(m, *a)[:1])
    assert test(p) and test.last_difference == "2 results here, 1 from <lambda>"


def test_diverges_from_reduces_to_the_op_and_focuses_on_it() -> None:
    text = layered_model(25, 12).text()
    test = DivergesFrom(sine_for_tan)
    p = Program.from_text(text, [])
    from stablehlo_py.reduce.values import default_inputs

    p = Program(p.module, default_inputs(p.entry_function()))
    assert [k.rsplit("/", 1)[-1] for k in test.focus(p)] == ["stablehlo.tan#0"]
    r = reduce(p, test, time_limit=120)
    assert r.stopped is None and r.after.ops <= 2, r.program.text
    assert "stablehlo.tan" in r.program.text and test(r.program)
    assert r.stats.tests <= 20  # the focus cut it loose at once


def test_backend_failures_are_counted_not_interesting_unless_asked() -> None:
    p = Program.from_text(TAN_PROGRAM, [X])

    def refuses_tan(module, args):
        if "stablehlo.tan" in print_ir(module):
            raise RuntimeError("tan is not supported\nmore detail")
        return run(module, *args)

    test = DivergesFrom(refuses_tan)
    assert not test(p)
    assert test.last_error == "refuses_tan failed: RuntimeError: tan is not supported"
    assert test.counts == {"refuses_tan failed (not a divergence)": 1}
    assert test.notes() == ["1 candidate: refuses_tan failed (not a divergence)"]
    test = DivergesFrom(refuses_tan, backend_errors=True)
    assert test(p) and test.counts == {"refuses_tan failed (taken as a divergence)": 1}
    with pytest.raises(NotInteresting, match=r"diverges from refuses_tan.*the tool said: "
                       r"refuses_tan failed: RuntimeError: tan is not supported"):
        reduce(p, DivergesFrom(refuses_tan))


def test_interpreter_failures_and_programs_without_results() -> None:
    bad = TAN_PROGRAM.replace(
        "stablehlo.tan %1 : tensor<4xf32>",
        "stablehlo.custom_call @mystery(%1) : (tensor<4xf32>) -> tensor<4xf32>",
    )
    test = DivergesFrom(lambda m, a: [np.zeros(4, np.float32), np.zeros(4, np.int32)])
    assert not test(Program.from_text(bad, [X]))
    assert test.counts == {"the interpreter failed (not a divergence)": 1}
    assert "mystery" in test.last_error
    nothing = "func.func @main(%x: tensor<4xf32>) {\n  return\n}"
    assert not DivergesFrom(lambda m, a: [np.zeros(1)])(Program.from_text(nothing, [X]))


def test_diverges_from_refuses_what_it_cannot_run() -> None:
    with pytest.raises(ReduceError, match="unknown backend 'tpu': the backends are xla, iree"):
        DivergesFrom("tpu")
    with pytest.raises(ReduceError, match="rtol is a number >= 0, not -1"):
        DivergesFrom(sine_for_tan, rtol=-1)


# ------------------------------------------------------------------------------ commands
def test_run_command_writes_the_candidate_and_its_inputs(tmp_path: Path) -> None:
    text = "func.func @main(%x: tensor<2xbf16>) -> tensor<2xbf16> {\n  return %x : tensor<2xbf16>}"
    x = np.array([1.5, -3], ml_dtypes.bfloat16)
    p = Program.from_text(text, [x])
    script = _exe(tmp_path / "copy.sh", f"#!/bin/sh\ncp \"$1\" {tmp_path}/seen.mlir\n"
                  f"cp \"${{1%.mlir}}.inputs.npz\" {tmp_path}/seen.npz\n"
                  "echo \"at $1\" >&2\nexit 7\n")
    done = run_command([script], p)
    assert done == Completed(7, "at -") and done.status() == "exit status 7"
    assert (tmp_path / "seen.mlir").read_text() == p.text
    got = load_inputs(str(tmp_path / "seen.npz"), p.module)
    assert got[0].dtype == np.dtype(ml_dtypes.bfloat16) and list(got[0]) == list(x)


def test_completed_statuses() -> None:
    assert Completed(-int(signal.SIGSEGV), "").status() == "killed by signal 11 (SIGSEGV)"
    assert Completed(-11, "").crashed and Completed(139, "").crashed
    assert not Completed(1, "").crashed and not Completed(None, "", True).crashed
    assert Completed(None, "", True).status() == "timed out"


def test_crashes_and_scripts(tmp_path: Path) -> None:
    p = Program.from_text(TAN_PROGRAM, [X])
    segv = _exe(tmp_path / "segv.sh", "#!/bin/sh\ngrep -q tan \"$1\" && kill -SEGV $$\nexit 2\n")
    crash = Crashes(segv)
    assert crash(p) and crash.last_error.startswith("killed by signal 11")
    assert not crash(Program.from_text(TAN_PROGRAM.replace("tan", "sine"), [X]))
    assert crash.last_error == "exit status 2"
    status = _exe(tmp_path / "status.sh", "#!/bin/sh\nexit $1\n")
    assert Script(status, ["0"])(p) and not Script(status, ["3"])(p)
    assert not Script(status, ["0"], exit_zero_is_interesting=False)(p)
    assert Script(status, ["3"], exit_zero_is_interesting=False)(p)
    assert Crashes([status, "130"])(p) and not Crashes([status, "127"])(p)
    assert "interesting: a non-zero exit status" in Script(
        status, exit_zero_is_interesting=False).describe()


def test_a_timeout_kills_the_group_and_is_counted(tmp_path: Path) -> None:
    p = Program.from_text(TAN_PROGRAM, [X])
    pid_file = tmp_path / "child.pid"
    hang = _exe(tmp_path / "hang.sh", f"#!/bin/sh\nsleep 60 &\necho $! > {pid_file}\nwait\n")
    test = Script(hang, timeout=0.5)
    assert not test(p)
    assert test.counts == {"hang.sh timed out (after 0.5 s)": 1}
    assert test.last_error == "timed out"
    stat = Path(f"/proc/{int(pid_file.read_text())}/stat")
    for _ in range(50):  # the sleep was killed with its group: gone, or a zombie not yet reaped
        if not stat.exists() or stat.read_text().split(")")[-1].split()[0] == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail("the script's child is still running")


def test_fails_with_a_command_matches_its_output(tmp_path: Path) -> None:
    p = Program.from_text(TAN_PROGRAM, [X])
    translate = [sys.executable, "-m", "stablehlo_py.cli.translate", "--serialize",
                 "--target=1.0.0", "-o", os.devnull]
    test = FailsWith(r"-:\d+:\d+: failed to legalize .*'tan' \(needs 1\.4\.0\)",
                     on=" ".join(translate))
    assert test(p) and test.last_error.startswith("CommandFailed: exit status 1\n")
    assert [k.rsplit("/", 1)[-1] for k in test.focus(p)] == ["stablehlo.tan#0"]
    assert test.uses_inputs and not test.verifies


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("", "the command is empty"),
        ("'unclosed", "cannot be split into words"),
        ("no-such-program-42 x", "the command's program 'no-such-program-42' is not found on PATH"),
        ("./nothing-here.sh", "the command's program ./nothing-here.sh does not exist"),
    ],
)
def test_command_argv_errors(command: str, message: str) -> None:
    with pytest.raises(ReduceError, match=re.escape(message)):
        command_argv(command)


def test_script_must_be_executable(tmp_path: Path) -> None:
    (tmp_path / "t.sh").write_text("#!/bin/sh\nexit 0\n")
    with pytest.raises(ReduceError, match="is not executable: chmod"):
        Script(tmp_path / "t.sh")
    with pytest.raises(ReduceError, match="is a directory"):
        Script(tmp_path)
    with pytest.raises(ReduceError, match="timeout is a number of seconds > 0"):
        Crashes("true", timeout=0)


def test_drop_attributes_keeps_a_sorts_is_stable() -> None:
    text = """
func.func @main(%k: tensor<4xi32>, %v: tensor<4xf32>) -> tensor<4xf32> {
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
    %1 = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<4xi32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>)
  return %0#1 : tensor<4xf32>
}"""
    p = Program.from_text(text, [np.zeros(4, np.int32), X])
    move = move_named("drop-attributes")
    atoms = move.atoms(p, Context())
    assert ("prop", "is_stable") not in atoms and ("prop", "compare_type") in atoms
    out = move.apply(p, atoms, Context())
    assert "is_stable = true" in out.text and "SIGNED" not in out.text
