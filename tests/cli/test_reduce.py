"""`stablehlo-reduce` as a user runs it (issue 27's Done-when for the reducer, the CI half): a
>= 2,000-op program with one op our serializer rejects at 1.0.0 reduced by `--fails-with` to <= 5
ops; a user's shell script (creduce's convention, and mlir-reduce's with `--interesting-exit`) on
a ~300-op program to <= 3 ops; `--crashes`; a command as `--on`; timeouts; input formats; one-line
errors.  Every reduction runs with `--time-limit` and asserts it was not hit; the times are printed
(`pytest -s`).  The backends' half is tests/oracle/test_reduce_iree_sort.py."""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from stablehlo_py.io import load_inputs, save_inputs
from stablehlo_py.ir import parse
from stablehlo_py.ir.verify import verify
from stablehlo_py.reduce import FailsWith, Program
from stablehlo_py.serialization import serialize_portable_artifact_str
from tests.cli.reduce_helpers import executable, layers_with, run_reduce, show
from tests.unit.reduce.programs import layered_model

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LIMIT = "--time-limit=300"
TAN = r"op 'tan' \(needs 1\.4\.0\)"
GREP_SORT = "#!/bin/sh\ngrep -q 'stablehlo.sort' \"$1\"\n"


def _ops(text: str) -> list[str]:
    return re.findall(r"\"?(stablehlo\.[a-z_]+)", text)


def test_fails_with_on_serialize_reduces_2000_ops_to_at_most_5(tmp_path: Path) -> None:
    (tmp_path / "big.mlir").write_text(layered_model(190, 90).text())
    r = run_reduce("big.mlir", f"--fails-with={TAN}", "--on=serialize:1.0.0", "-o", "out.mlir",
                   LIMIT, cwd=tmp_path).ok()
    show("fails-with serialize:1.0.0", r)
    assert r.before is not None and r.before[0] >= 2000
    assert r.after is not None and r.after[0] <= 5 and r.after[1] == 1
    out = (tmp_path / "out.mlir").read_text()
    verify(parse(out))
    assert "stablehlo.tan" in out
    inputs = load_inputs(str(tmp_path / "out.inputs.npz"), parse(out))
    assert FailsWith(TAN, on="serialize:1.0.0")(Program.from_text(out, inputs))
    assert "wrote out.mlir and out.inputs.npz" in r.stdout
    assert re.search(r"^stablehlo-reduce: big\.mlir: 2055 ops, 2 functions; the test: fails with",
                     r.stderr, re.M)


def test_a_users_script_as_with_creduce(tmp_path: Path) -> None:
    """creduce's convention: the script exits 0 when the candidate (its last argument) is
    interesting."""
    (tmp_path / "p.mlir").write_text(layers_with(38, 20, "sort").text())
    executable(tmp_path / "has_sort.sh", GREP_SORT)
    r = run_reduce("p.mlir", "--test=./has_sort.sh", "-o", "small.mlir", LIMIT,
                   cwd=tmp_path).ok()
    show("--test (creduce convention)", r)
    assert r.before is not None and r.before[0] >= 300
    assert r.after is not None and r.after[0] <= 3
    out = (tmp_path / "small.mlir").read_text()
    verify(parse(out))
    assert "stablehlo.sort" in out and set(_ops(out)) <= {
        "stablehlo.sort", "stablehlo.compare", "stablehlo.constant", "stablehlo.return"}
    # the script's verdict on the result, as the user would check it
    assert subprocess.run([tmp_path / "has_sort.sh", tmp_path / "small.mlir"]).returncode == 0


def test_the_mlir_reduce_convention(tmp_path: Path) -> None:
    """An mlir-reduce script exits 0 when the candidate is NOT interesting: under the default
    (creduce's) convention the input is not interesting; --interesting-exit=nonzero reduces."""
    (tmp_path / "p.mlir").write_text(layers_with(38, 20, "sort").text())
    executable(tmp_path / "mlir_reduce_style.sh",
               "#!/bin/sh\nif grep -q 'stablehlo.sort' \"$1\"; then exit 1; fi\nexit 0\n")
    r = run_reduce("p.mlir", "--test=./mlir_reduce_style.sh", "-o", "o.mlir", LIMIT, cwd=tmp_path)
    assert "nothing to reduce: the test is not interesting on p.mlir" in r.error()
    assert "exit status 1" in r.error() and not (tmp_path / "o.mlir").exists()
    r = run_reduce("p.mlir", "--test=./mlir_reduce_style.sh", "--interesting-exit=nonzero",
                   "-o", "o.mlir", LIMIT, cwd=tmp_path).ok()
    show("--test --interesting-exit=nonzero", r)
    assert r.after is not None and r.after[0] <= 3
    assert "stablehlo.sort" in (tmp_path / "o.mlir").read_text()


def test_script_arguments_come_before_the_candidate(tmp_path: Path) -> None:
    (tmp_path / "p.mlir").write_text(layers_with(10, 4, "sort").text())
    executable(tmp_path / "has.sh", "#!/bin/sh\n[ \"$1\" = --op ] && grep -q \"$2\" \"$3\"\n")
    r = run_reduce("p.mlir", "--test=./has.sh", "--test-arg=--op", "--test-arg=stablehlo.sort",
                   "-o", "o.mlir", LIMIT, cwd=tmp_path).ok()
    assert r.after is not None and r.after[0] <= 3


def test_crashes_takes_a_signal_and_not_an_exit_status(tmp_path: Path) -> None:
    (tmp_path / "p.mlir").write_text(layers_with(38, 20, "sort").text())
    executable(tmp_path / "segv.sh",
               "#!/bin/sh\nif grep -q 'stablehlo.sort' \"$1\"; then kill -SEGV $$; fi\nexit 1\n")
    r = run_reduce("p.mlir", "--crashes=./segv.sh", "-o", "o.mlir", LIMIT, cwd=tmp_path).ok()
    show("--crashes", r)
    assert r.after is not None and r.after[0] <= 3
    assert "stablehlo.sort" in (tmp_path / "o.mlir").read_text()
    executable(tmp_path / "fails.sh", "#!/bin/sh\necho 'no crash here' >&2\nexit 1\n")
    err = run_reduce("p.mlir", "--crashes=./fails.sh", "-o", "o2.mlir", cwd=tmp_path).error()
    assert "nothing to reduce" in err and "exit status 1: no crash here" in err


def test_fails_with_a_command(tmp_path: Path) -> None:
    """--on=COMMAND: stablehlo-translate itself, one subprocess per candidate; its error's
    position (the candidate's path reads `-`) is the focus, so few candidates are run."""
    (tmp_path / "p.mlir").write_text(layered_model(12, 6).text())
    translate = f"{sys.executable} -m stablehlo_py.cli.translate --serialize --target=1.0.0"
    r = run_reduce("p.mlir", f"--fails-with={TAN}", f"--on={translate}", "-o", "o.mlir", LIMIT,
                   cwd=tmp_path).ok()
    show("--on=COMMAND (stablehlo-translate)", r)
    assert r.before is not None and r.before[0] >= 100
    assert r.after is not None and r.after[0] <= 5
    assert r.tests is not None and r.tests <= 20
    assert "stablehlo.tan" in (tmp_path / "o.mlir").read_text()


def test_a_command_that_hangs_is_killed_and_counted(tmp_path: Path) -> None:
    """--timeout: a candidate the script hangs on is not interesting; the script and the sleep
    it started (its process group) are killed."""
    (tmp_path / "p.mlir").write_text(layers_with(3, 1, "sort").text())
    marker = "31.4159"
    executable(tmp_path / "hangs.sh",
               f"#!/bin/sh\ngrep -q 'stablehlo.sort' \"$1\" && exit 0\nsleep {marker}\n")
    r = run_reduce("p.mlir", "--test=./hangs.sh", "--timeout=1", "-o", "o.mlir", LIMIT,
                   cwd=tmp_path).ok()
    show("--test with --timeout=1", r)
    m = re.search(r"^(\d+) candidates?: hangs\.sh timed out \(after 1 s\)$", r.stdout, re.M)
    assert m and int(m[1]) >= 1, r.stdout
    assert "stablehlo.sort" in (tmp_path / "o.mlir").read_text()
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"sleep {marker}" not in ps


def test_inputs_in_and_out_keep_their_types(tmp_path: Path) -> None:
    """--inputs read as --interpret reads them (bf16 by the parameters' types); a value the
    failure needs (100 elements: too many for a constant) becomes an argument whose input is
    written so that `stablehlo-translate --interpret --inputs=OUT.inputs.npz` shows the failure."""
    text = """
func.func @main(%x: tensor<100xbf16>, %y: tensor<100xbf16>) -> tensor<100xbf16> {
  %0 = stablehlo.add %x, %y : tensor<100xbf16>
  %1 = stablehlo.multiply %0, %x : tensor<100xbf16>
  check.expect_eq_const %1, dense<0.0> : tensor<100xbf16>
  %3 = stablehlo.subtract %1, %y : tensor<100xbf16>
  return %3 : tensor<100xbf16>
}
"""
    (tmp_path / "p.mlir").write_text(text)
    x = (np.arange(1, 101) / 8).astype(ml_dtypes.bfloat16)
    y = np.full(100, 0.5, ml_dtypes.bfloat16)
    save_inputs(tmp_path / "in.npz", [x, y])
    failure = r"100 element\(s\) differ"
    r = run_reduce("p.mlir", "--inputs=in.npz", f"--fails-with={failure}", "--on=interpret",
                   "-o", "o.mlir", LIMIT, cwd=tmp_path).ok()
    out = (tmp_path / "o.mlir").read_text()
    assert r.after is not None and r.after[0] <= 1 and "check.expect_eq_const" in out
    got = load_inputs(str(tmp_path / "o.inputs.npz"), parse(out))
    assert [(a.dtype, a.shape) for a in got] == [(np.dtype(ml_dtypes.bfloat16), (100,))]
    assert np.count_nonzero(got[0].astype(np.float32)) == 100
    run = subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.translate", "--interpret", "o.mlir",
         "--inputs=o.inputs.npz"], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1 and re.search(failure, run.stderr), run.stderr


def test_gzipped_text_an_artifact_and_a_jax_export(tmp_path: Path) -> None:
    text = layers_with(10, 4, "sort").text()
    (tmp_path / "p.mlir.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "p.mlirbc").write_bytes(serialize_portable_artifact_str(text, "1.0.0",
                                                                        format="mlir"))
    executable(tmp_path / "has_sort.sh", GREP_SORT)
    for name in ("p.mlir.gz", "p.mlirbc"):
        r = run_reduce(name, "--test=./has_sort.sh", "-o", "o.mlir", LIMIT, cwd=tmp_path).ok()
        assert r.before is not None and r.before[0] >= 80
        assert r.after is not None and r.after[0] <= 3
    executable(tmp_path / "has_max.sh", "#!/bin/sh\ngrep -q 'stablehlo.maximum' \"$1\"\n")
    export = str(EXAMPLES / "mlp.jax_exported")
    r = run_reduce(export, "--test=./has_max.sh", "-o", "m.mlir", LIMIT, cwd=tmp_path).ok()
    assert r.before is not None and r.after is not None and r.after[0] < r.before[0]
    out = (tmp_path / "m.mlir").read_text()
    assert "stablehlo.maximum" in out and r.after[0] <= 3  # maximum of two constants
    verify(parse(out))
    assert "make_jax_export.py" in out  # JAX's locations are kept by default
    run_reduce(export, "--test=./has_max.sh", "--strip-locations", "-o", "m.mlir", LIMIT,
               cwd=tmp_path).ok()
    assert "loc(" not in (tmp_path / "m.mlir").read_text()


def test_a_limit_reached_writes_the_smallest_program_so_far(tmp_path: Path) -> None:
    (tmp_path / "p.mlir").write_text(layers_with(38, 20, "sort").text())
    executable(tmp_path / "has_sort.sh", GREP_SORT)
    r = run_reduce("p.mlir", "--test=./has_sort.sh", "--max-tests=4", "-o", "o.mlir",
                   cwd=tmp_path)
    assert r.returncode == 0 and r.stopped and "(stopped: test limit (4 tests))" in r.stdout
    assert r.tests == 4 and r.before is not None and r.after is not None
    out = (tmp_path / "o.mlir").read_text()
    assert "stablehlo.sort" in out and r.after[0] < r.before[0]


def _fake_iree(tmp_path: Path) -> dict[str, str]:
    """An environment where `import iree.compiler` fails (a package `iree` that raises)."""
    (tmp_path / "fake" / "iree").mkdir(parents=True)
    (tmp_path / "fake" / "iree" / "__init__.py").write_text("raise ImportError('no IREE here')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in [str(tmp_path / "fake"), env.get("PYTHONPATH", "")] if p)
    return env


ERRORS = [
    ([], "give an interestingness test: --diverges-from=xla|iree, --fails-with=REGEX"),
    (["--fails-with=tan", "--test=./ok.sh"],
     "give one interestingness test, not --fails-with and --test"),
    (["--test=./ok.sh", "--on=iree"], "--on goes with --fails-with, and the test is --test"),
    (["--crashes=./ok.sh", "--rtol=0.1"], "--rtol goes with --diverges-from"),
    (["--test=./ok.sh", "--interesting-exit=nonzero", "--crashes=./ok.sh"],
     "give one interestingness test"),
    (["--test=./ok.sh", "IN=missing.mlir"], "cannot open input file 'missing.mlir'"),
    (["--test=./ok.sh", "IN=garbage.bin"], "garbage.bin: error: not a program: neither UTF-8"),
    (["--test=./no.sh"], "nothing to reduce: the test is not interesting on p.mlir"),
    (["--test=./plain.txt"], "is not executable: chmod +x"),
    (["--test=./missing.sh"], "the test script's program ./missing.sh does not exist"),
    (["--crashes=no-such-tool-1234 --x"], "'no-such-tool-1234' is not found on PATH"),
    (["--fails-with=(", "--on=verify"], "'(' is not a regular expression"),
    (["--fails-with=x", "--on=nosuchtool"], "unknown tool on='nosuchtool'"),
    (["--fails-with=x", "--on=serialize"], "on='serialize' needs a target"),
    (["--test=./ok.sh", "OUT=nodir/o.mlir"], "the directory"),
    (["--test=./ok.sh", "IN=bad.mlir"], "the program to reduce does not verify"),
    (["--test=./ok.sh", "--inputs=in.txt"], "--inputs=in.txt: takes an .npz archive"),
    (["--test=./ok.sh", "--inputs=short.npz"], "short.npz"),
    (["--diverges-from=iree", "FAKE_IREE"],
     "--diverges-from=iree: IREE's compiler (iree-base-compiler) is not installed (iree.compiler "
     "cannot be imported); pip install 'stablehlo-py[iree]'"),
    (["--fails-with=x", "--on=iree", "FAKE_IREE"], "--on=iree: IREE's compiler"),
]


@pytest.mark.parametrize(("args", "message"), ERRORS, ids=[m[:40] for _, m in ERRORS])
def test_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "p.mlir").write_text(layers_with(2, 1, "sort").text())
    (tmp_path / "bad.mlir").write_text(
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.transpose %x, dims = [1] : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n")
    (tmp_path / "garbage.bin").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "in.txt").write_text("[]")
    np.savez(tmp_path / "short.npz", arg0=np.zeros((4, 8), np.float32))
    executable(tmp_path / "ok.sh", "#!/bin/sh\nexit 0\n")
    executable(tmp_path / "no.sh", "#!/bin/sh\nexit 3\n")
    (tmp_path / "plain.txt").write_text("#!/bin/sh\nexit 0\n")
    env = None
    source, out, rest = "p.mlir", "o.mlir", []
    for a in args:
        if a.startswith("IN="):
            source = a[3:]
        elif a.startswith("OUT="):
            out = a[4:]
        elif a == "FAKE_IREE":
            env = _fake_iree(tmp_path)
        else:
            rest.append(a)
    err = run_reduce(source, *rest, "-o", out, cwd=tmp_path, env=env).error()
    assert message in err, err
    assert not (tmp_path / out).exists()
