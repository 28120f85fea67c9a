"""README features checked as a user meets them: the installed tools run as subprocesses, their
output, messages and exit status checked against values computed here independently.

tests/unit/test_readme.py runs every README command and checks that it exits 0 and prints what the
README shows; this file checks what the README *says* the commands do where that test cannot (no
output shown, or output not derived independently) and what they do on bad input:

* `stablehlo-translate --interpret examples/mlp_inference.mlir` prints the classifier's 2x3
  probabilities -- compared with a numpy forward pass over the example's own constants -- and a
  failing check exits 1 naming the function, the op and the differing values;
* `STABLEHLO_PY_DEBUG=1` shows the traceback of an internal error (and only of one);
* `stablehlo-opt --serialize/--deserialize` round trip, and its refusals;
* `--serialize --target=1.0.0 --expand` then `--check-compat --consumer-version=1.0.0` (README), and
  `--check-compat` on the bundled JAX export (tests/oracle/test_check_compat_export.py builds a
  fresh export with jax);
* `--chlo-pre-serialization-pipeline`, `--stablehlo-legalize-to-vhlo --vhlo-to-version`,
  `--interpret --list-custom-calls`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent
OPT = str(BIN / "stablehlo-opt")
TRANSLATE = str(BIN / "stablehlo-translate")


def run(*argv: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("STABLEHLO_PY_DEBUG", "STABLEHLO_PY_ARTIFACT_FORMAT")}
    full.update(env or {})
    return subprocess.run(list(argv), cwd=cwd, env=full, capture_output=True, text=True, timeout=300)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout


def refused(proc: subprocess.CompletedProcess[str], *pieces: str) -> str:
    """Exit status 1, every piece in stderr, no traceback; returns stderr."""
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for piece in pieces:
        assert piece in proc.stderr, f"{piece!r} not in:\n{proc.stderr}"
    return proc.stderr


FLOAT = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)"


def printed_values(text: str) -> np.ndarray:
    """The numbers of `--interpret`'s printed tensors (after each `tensor<...> {` header)."""
    body = re.sub(r"tensor<[^>]*>", "", text)
    return np.array([float(x) for x in re.findall(FLOAT, body)])


# --- the headline: stablehlo-translate --interpret examples/mlp_inference.mlir --------------------

MLP = EXAMPLES / "mlp_inference.mlir"


def mlp_constants(text: str) -> dict[str, np.ndarray]:
    """The example's named constants (%x, %w1, %b1, %w2) as float64 arrays of their declared shape."""
    out = {}
    for m in re.finditer(r"%(\w+) = stablehlo\.constant dense<(\[.*?\])> : tensor<([\dx]+)xf32>", text):
        values = [float(v) for v in re.findall(FLOAT, m.group(2))]
        shape = tuple(int(d) for d in m.group(3).split("x"))
        out[m.group(1)] = np.array(values, np.float64).reshape(shape)
    return out


def numpy_forward(c: dict[str, np.ndarray]) -> np.ndarray:
    h = np.maximum(c["x"] @ c["w1"] + c["b1"], 0.0)
    logits = h @ c["w2"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_mlp_inference_prints_numpy_s_probabilities() -> None:
    text = MLP.read_text()
    consts = mlp_constants(text)
    assert sorted(consts) == ["b1", "w1", "w2", "x"]
    want = numpy_forward(consts)
    proc = run(TRANSLATE, "--interpret", "examples/mlp_inference.mlir")
    out = ok(proc)
    assert proc.stderr == ""
    assert out.startswith("tensor<2x3xf32> {\n")
    got = printed_values(out).reshape(2, 3)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=0)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-6)
    # the README's claim: the check's expected values are what numpy computes
    check = re.search(r"check\.expect_almost_eq_const %\w+, dense<(.*?)> :", text)
    assert check is not None
    expected = np.array([float(v) for v in re.findall(FLOAT, check.group(1))]).reshape(2, 3)
    np.testing.assert_allclose(expected, want, rtol=1e-6)


def test_a_failing_check_exits_1_naming_function_op_and_values(tmp_path: Path) -> None:
    text = MLP.read_text()
    want = numpy_forward(mlp_constants(text))
    check = re.search(r"check\.expect_almost_eq_const %\w+, dense<(.*?)> :", text)
    assert check is not None
    wrong = want.copy()
    wrong[1, 2] += 0.01  # one element well outside the check's tolerance
    rows = ", ".join("[" + ", ".join(f"{v:.9g}" for v in row) + "]" for row in wrong)
    bad = text[: check.start(1)] + "[" + rows + "]" + text[check.end(1) :]
    line = text[: check.start()].count("\n") + 1
    (tmp_path / "mlp_bad.mlir").write_text(bad)
    proc = run(TRANSLATE, "--interpret", "mlp_bad.mlir", cwd=tmp_path)
    err = refused(proc, f"mlp_bad.mlir:{line}:3: error: check failed in @main: check.expect_almost_eq_const")
    assert "1 element(s) differ" in err and "at [1, 2]" in err
    got_expected = [float(v) for v in re.findall(r"got .*?(" + FLOAT + r")\)?, expected .*?(" + FLOAT + r")", err)[0]]
    assert got_expected[0] == pytest.approx(want[1, 2], rel=1e-5)
    assert got_expected[1] == pytest.approx(wrong[1, 2], rel=1e-6)
    # the results are still printed, as upstream's tool prints them
    np.testing.assert_allclose(printed_values(proc.stdout).reshape(2, 3), want, rtol=2e-6)


def test_every_failing_check_is_reported(tmp_path: Path) -> None:
    program = """func.func @main() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  check.expect_eq_const %0, dense<[1, 2, 4]> : tensor<3xi32>
  %1 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_close %1, %1, max_ulp_difference = 0 : tensor<2xf32>, tensor<2xf32>
  %2 = stablehlo.constant dense<[1.0, 2.5]> : tensor<2xf32>
  check.expect_almost_eq_const %2, dense<[1.0, 2.0]> : tensor<2xf32>
  return
}
"""
    (tmp_path / "checks.mlir").write_text(program)
    err = refused(run(TRANSLATE, "--interpret", "checks.mlir", cwd=tmp_path))
    lines = [s for s in err.splitlines() if "error:" in s]
    assert len(lines) == 2, err
    assert lines[0].startswith("checks.mlir:3:3: error: check failed in @main: check.expect_eq_const")
    assert lines[1].startswith("checks.mlir:7:3: error: check failed in @main: check.expect_almost_eq_const")


# --- STABLEHLO_PY_DEBUG=1 --------------------------------------------------------------------------

# An internal error (a bug: any exception that is not a StableHLOError) planted in the installed
# tools through `sitecustomize`, which Python imports at startup from PYTHONPATH.
SITECUSTOMIZE = """
import stablehlo_py.cli.common as common

def _broken_write_output(path, data):
    raise ZeroDivisionError("planted internal error")

common.write_output = _broken_write_output
"""


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("site")
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return {"PYTHONPATH": str(site)}


def test_internal_error_is_one_message_without_debug(planted: dict[str, str]) -> None:
    for value in (None, "0"):  # unset, or set to 0
        env = dict(planted) if value is None else {**planted, "STABLEHLO_PY_DEBUG": value}
        proc = run(OPT, "examples/add.mlir", env=env)
        assert proc.returncode == 2, (value, proc.stderr)
        assert proc.stderr == (
            "error: internal error in stablehlo-py (ZeroDivisionError: planted internal error); please "
            "report it with the input (set STABLEHLO_PY_DEBUG=1 for a traceback)\n"
        ), value


def test_debug_shows_the_traceback_of_an_internal_error(planted: dict[str, str]) -> None:
    proc = run(TRANSLATE, "--serialize", "--target=current", "examples/add.mlir",
               env={**planted, "STABLEHLO_PY_DEBUG": "1"})
    assert proc.returncode == 1  # Python's own exit status for an uncaught exception
    assert proc.stderr.startswith("Traceback (most recent call last):")
    assert "_broken_write_output" in proc.stderr
    assert proc.stderr.rstrip().endswith("ZeroDivisionError: planted internal error")
    assert "internal error in stablehlo-py" not in proc.stderr


def test_debug_leaves_user_errors_as_messages(tmp_path: Path) -> None:
    """A bad input is not an internal error: with STABLEHLO_PY_DEBUG=1 it still reads
    `file:line:col: error: message`, exit 1."""
    (tmp_path / "bad.mlir").write_text("func.func @f() {\n  %0 = stablehlo.abs %9 : tensor<f32>\n}\n")
    proc = run(OPT, "bad.mlir", cwd=tmp_path, env={"STABLEHLO_PY_DEBUG": "1"})
    assert refused(proc).startswith("bad.mlir:2:22: error: use of undeclared SSA value name '%9'")


# --- stablehlo-opt --serialize / --deserialize ----------------------------------------------------


def test_opt_serialize_deserialize_round_trip(tmp_path: Path) -> None:
    """README: `stablehlo-opt examples/add.mlir --serialize --target=1.0.0 --format=msgpack -o
    /tmp/add.shlo` (the default format is msgpack too), then
    `stablehlo-opt /tmp/add.shlo` (the VHLO it holds) and `... --deserialize` (StableHLO again)."""
    import stablehlo_py
    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.serialization import artifact_format

    art = tmp_path / "add.shlo"
    proc = run(OPT, "examples/add.mlir", "--serialize", "--target=1.0.0", "-o", str(art))
    assert ok(proc) == "" and proc.stderr == ""
    data = art.read_bytes()
    assert artifact_format(data) == "msgpack"
    assert str(stablehlo_py.get_portable_artifact_version(data)) == "1.0.0"
    named = tmp_path / "named.shlo"
    assert ok(run(OPT, "examples/add.mlir", "--serialize", "--target=1.0.0", "--format=msgpack", "-o", str(named))) == ""
    assert named.read_bytes() == data
    bc = tmp_path / "add.mlir.bc"
    assert ok(run(OPT, "examples/add.mlir", "--serialize", "--target=1.0.0", "--format", "mlir", "-o", str(bc))) == ""
    assert artifact_format(bc.read_bytes()) == "mlir"
    assert stablehlo_py.deserialize_portable_artifact(bc.read_bytes()) is not None
    vhlo = ok(run(OPT, str(art)))
    assert "vhlo.func_v1 @main" in vhlo and "vhlo.add_v1" in vhlo and "stablehlo." not in vhlo
    back = ok(run(OPT, str(art), "--deserialize"))
    assert back == print_ir(parse((EXAMPLES / "add.mlir").read_text()))
    # the artifact runs as it is, with the README's arguments
    args = "--args=[dense<1> : tensor<2xi32>, dense<2> : tensor<2xi32>]"
    assert ok(run(TRANSLATE, "--interpret", args, str(art))) == "tensor<2xi32> {\n  [3, 3]\n}\n"


def test_opt_serialize_refusals(tmp_path: Path) -> None:
    refused(run(OPT, "examples/add.mlir", "--serialize"), "error: --serialize needs --target=X.Y.Z")
    refused(run(OPT, "examples/add.mlir", "--format=mlir"), "error: --format applies to --serialize only")
    bogus = run(OPT, "examples/add.mlir", "--serialize", "--target=1.0.0", "--format=zip")
    refused(bogus, "error: unknown artifact format 'zip'")
    assert "msgpack, mlir" in bogus.stderr
    # a newer op than the target: named with its location, the version it needs, and the fix
    err = refused(run(OPT, "examples/tan.mlir", "--serialize", "--target=1.0.0", "-o", str(tmp_path / "t.shlo")))
    assert "examples/tan.mlir:3:8: failed to legalize operation 'vhlo.tan_v2'" in err
    assert "(needs 1.4.0)" in err and "--expand" in err
    assert not (tmp_path / "t.shlo").exists()


JUNK = b"PK\x03\x04\xff\xfe not an artifact"  # a zip header: neither text nor any artifact format


@pytest.fixture(scope="module")
def junk_refusal(tmp_path_factory: pytest.TempPathFactory) -> subprocess.CompletedProcess[str]:
    folder = tmp_path_factory.mktemp("junk")
    (folder / "junk.bin").write_bytes(JUNK)
    return run(OPT, "junk.bin", "--deserialize", cwd=folder)


def test_opt_deserialize_refusals(tmp_path: Path, junk_refusal: subprocess.CompletedProcess[str]) -> None:
    import stablehlo_py

    data = stablehlo_py.serialize_portable_artifact_str((EXAMPLES / "add.mlir").read_text(), "1.0.0")
    (tmp_path / "trunc.shlo").write_bytes(data[:60])
    refused(run(OPT, "trunc.shlo", "--deserialize", cwd=tmp_path), "trunc.shlo: byte 60: error: artifact truncated")
    refused(junk_refusal, "byte 0: error: not a StableHLO portable artifact (starts with b'PK\\x03\\x04")
    assert junk_refusal.stdout == ""


def test_deserialize_refusal_names_the_file(junk_refusal: subprocess.CompletedProcess[str]) -> None:
    refused(junk_refusal, "junk.bin: byte 0: error: not a StableHLO portable artifact")


# --- --expand and --check-compat ------------------------------------------------------------------


def test_expand_then_check_compat_then_run(tmp_path: Path) -> None:
    """README: `--serialize --target=1.0.0 --expand examples/tan.mlir`, `--check-compat
    --consumer-version=1.0.0`: compatible, exit 0; the expanded artifact computes numpy's tan.
    Without --expand (at the current version) the same check names the op and its version."""
    expanded, current = tmp_path / "tan.shlo", tmp_path / "tan_current.shlo"
    ok(run(TRANSLATE, "--serialize", "--target=1.0.0", "--expand", "examples/tan.mlir", "-o", str(expanded)))
    out = ok(run(TRANSLATE, "--check-compat", "--consumer-version=1.0.0", str(expanded)))
    assert out.startswith("artifact written for StableHLO 1.0.0 by ")
    assert out.rstrip().endswith("consumer at StableHLO 1.0.0: compatible")
    x = np.array([0.5, -1.25, 3.0], np.float32)
    args = "--args=[dense<[5.000000e-01, -1.250000e+00, 3.000000e+00]> : tensor<3xf32>]"
    got = printed_values(ok(run(TRANSLATE, "--interpret", args, str(expanded))))
    np.testing.assert_allclose(got, np.tan(x.astype(np.float64)), rtol=1e-6)

    import stablehlo_py

    current.write_bytes(stablehlo_py.serialize_portable_artifact_str(
        (EXAMPLES / "tan.mlir").read_text(), "current", name="examples/tan.mlir"))
    proc = run(TRANSLATE, "--check-compat", "--consumer-version=1.0.0", str(current))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "consumer at StableHLO 1.0.0: NOT compatible (2 blockers)" in proc.stdout
    assert '"examples/tan.mlir":3:8' in proc.stdout and "op 'tan' (needs 1.4.0)" in proc.stdout
    assert "note: the lowest target these operations allow is 1.4.0" in proc.stdout


def test_check_compat_on_the_bundled_jax_export() -> None:
    """README: `--check-compat --consumer-version=1.18.0 examples/mlp.jax_exported` (jax 0.12 wrote
    it for 1.18.0): compatible, exit 0; an older consumer: NOT compatible, exit 1, every blocker."""
    pytest.importorskip("flatbuffers")
    import stablehlo_py

    path = "examples/mlp.jax_exported"
    written = stablehlo_py.get_portable_artifact_version((ROOT / path).read_bytes())
    assert str(written) == "1.18.0"
    out = ok(run(TRANSLATE, "--check-compat", "--consumer-version=1.18.0", path))
    assert out == "artifact written for StableHLO 1.18.0 by an MLIR bytecode writer; consumer at StableHLO 1.18.0: compatible\n"
    proc = run(TRANSLATE, "--check-compat", "--consumer-version=1.17.0", path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].endswith("consumer at StableHLO 1.17.0: NOT compatible (1 blocker)")
    assert lines[1] == (
        "  blocker: the artifact was written for StableHLO 1.18.0; a consumer at 1.17.0 reads "
        "artifacts written for 0.9.0 to 1.17.0"
    )
    assert "re-serialize it with --target=1.17.0" in proc.stdout
    refused(run(TRANSLATE, "--check-compat", path), "--check-compat needs --consumer-version")


# --- other README commands without a subprocess test elsewhere --------------------------------------


def test_chlo_pre_serialization_pipeline_lowers_and_keeps_meaning() -> None:
    """README: `stablehlo-opt --chlo-pre-serialization-pipeline examples/chlo.mlir`: no CHLO op
    left, and the lowered program computes numpy's tan(x + b) (broadcast along dimension 1)."""
    from stablehlo_py.interpreter import run as interpret
    from stablehlo_py.ir import parse

    assert "chlo.tan" in (EXAMPLES / "chlo.mlir").read_text()
    lowered = ok(run(OPT, "--chlo-pre-serialization-pipeline", "examples/chlo.mlir"))
    assert "chlo." not in lowered and "stablehlo." in lowered
    rng = np.random.default_rng(0)
    x = rng.uniform(-0.7, 0.7, (2, 3)).astype(np.float32)
    b = np.array([-0.7, 0.0, 0.7], np.float32)
    (got,) = interpret(parse(lowered, "lowered.mlir"), x, b)
    want = np.tan(x.astype(np.float64) + b.astype(np.float64))
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=4e-7 * 8, atol=1e-7)


def test_legalize_to_vhlo_at_a_version() -> None:
    """README: `stablehlo-opt examples/add.mlir --stablehlo-legalize-to-vhlo
    --vhlo-to-version='target=1.0.0'` prints VHLO ops."""
    out = ok(run(OPT, "examples/add.mlir", "--stablehlo-legalize-to-vhlo", "--vhlo-to-version=target=1.0.0"))
    assert "vhlo.add_v1" in out and "vhlo.func_v1 @main" in out and "stablehlo." not in out


def test_list_custom_calls() -> None:
    """README: `stablehlo-translate --interpret --list-custom-calls` lists every target, the
    platforms whose programs call it, where it comes from and its API version."""
    out = ok(run(TRANSLATE, "--interpret", "--list-custom-calls"))
    lines = out.splitlines()
    assert lines[0].startswith("# custom-call plugin API ")
    assert lines[1].split() == ["TARGET", "PLATFORMS", "SOURCE", "API"]
    source = {line.split()[0]: line.split()[2] for line in lines[2:]}
    platforms = {line.split()[0]: line.split()[1] for line in lines[2:]}
    assert platforms["lapack_spotrf_ffi"] == "cpu" and platforms["Sharding"] == "any"
    # the built-ins the README names
    for name in ("check.expect_close", "check.expect_almost_eq", "shape_assertion", "Sharding",
                 "SPMDFullToShardShape", "SPMDShardToFullShape", "annotate_device_placement",
                 "lapack_spotrf_ffi", "lapack_dgetrf_ffi", "lapack_sgesdd_ffi"):
        assert source.get(name) == "built-in", (name, source.get(name))


def test_list_custom_calls_alone() -> None:
    """`--list-custom-calls` alone implies `--interpret` (the listing is the interpreter's), and
    the listing is the same."""
    alone = ok(run(TRANSLATE, "--list-custom-calls"))
    assert alone == ok(run(TRANSLATE, "--interpret", "--list-custom-calls"))
