"""The plugin's fixtures in pytester runs: stablehlo_interpreter (traces and probes in tmp_path),
stablehlo_artifact (both formats, a chosen target), stablehlo_backend (one test per backend,
skipped with the reason when one is missing)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.unit.testing.programs import MODEL, PLUGIN_ARGS

pytest_plugins = ["pytester"]

HEADER = f"""
import numpy as np
import pytest
from stablehlo_py.interpreter import run

MODEL = {MODEL!r}
X = np.array([0.1, 0.2, 0.3, 0.4], np.float32)
"""


def run_inner(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    pytester.makepyfile(HEADER + body)
    return pytester.runpytest_subprocess(*PLUGIN_ARGS, "-p", "no:cacheprovider", *args)


def _installed() -> dict[str, bool]:
    """Which backends the fixture finds, asked in a subprocess: pytester removes the modules a
    test imports when it ends, and IREE's compiler aborts the process when imported again."""
    code = (
        "from stablehlo_py.backends import BackendUnavailable, require_iree, require_xla\n"
        "for name, require in (('xla', require_xla), ('iree', require_iree)):\n"
        "    try:\n"
        "        require()\n"
        "        print(name)\n"
        "    except BackendUnavailable:\n"
        "        pass\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    found = out.stdout.split()
    return {"xla": "xla" in found, "iree": "iree" in found}


def test_interpreter_fixture_keeps_traces_and_probes_in_tmp_path(
    pytester: pytest.Pytester,
) -> None:
    r = run_inner(
        pytester,
        """
from stablehlo_py.trace import load_trace

def test_trace_and_probes(stablehlo_interpreter, tmp_path):
    out = stablehlo_interpreter(MODEL, X, trace=2, probes=True)
    assert np.array_equal(out[0], run(MODEL, X)[0])
    assert stablehlo_interpreter.trace_path == tmp_path / "run1.trace.npz"
    saved = load_trace(stablehlo_interpreter.trace_path)
    assert saved.level == 2 and len(saved) == len(stablehlo_interpreter.trace)
    assert stablehlo_interpreter.probe_dir == tmp_path / "probes1"
    probes = stablehlo_interpreter.probes()
    # probe ids come from the name locations (useDebugInfo), numbered in walk order
    sine = probes["jit(f)/block0/sin.1"]
    np.testing.assert_allclose(sine, np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(probes["jit(f)/block1/sub.2"], np.sin(X) - 0.5, rtol=1e-6)

def test_second_run_without_options(stablehlo_interpreter):
    stablehlo_interpreter(MODEL, X, trace=1)
    stablehlo_interpreter(MODEL, X)
    assert stablehlo_interpreter.runs == 2
    assert stablehlo_interpreter.trace is None and stablehlo_interpreter.probe_dir is None
    with pytest.raises(RuntimeError, match="run it with probes=True"):
        stablehlo_interpreter.probes()

def test_failing_run_still_saves_its_trace(stablehlo_interpreter, tmp_path):
    failing = MODEL.replace("return %s : tensor<f32>",
        'check.expect_eq_const %s, dense<0.0> : tensor<f32>\\n  return %s : tensor<f32>')
    with pytest.raises(Exception, match="check.expect_eq_const"):
        stablehlo_interpreter(failing, X, trace=1)
    assert (tmp_path / "run1.trace.npz").is_file()
""",
    )
    r.assert_outcomes(passed=3)


def test_artifact_fixture_runs_each_format_at_a_chosen_target(pytester: pytest.Pytester) -> None:
    r = run_inner(
        pytester,
        """
from stablehlo_py.api import get_portable_artifact_version

def test_round_trip(stablehlo_artifact):
    data = stablehlo_artifact.serialize(MODEL, target="1.0.0")
    assert str(get_portable_artifact_version(data)) == "1.0.0"
    assert data.startswith(b"ML\\xefR") == (stablehlo_artifact.format == "mlir")
    module = stablehlo_artifact.round_trip(MODEL, target="1.0.0")
    assert np.array_equal(run(module, X)[0], run(MODEL, X)[0])

@pytest.mark.parametrize("stablehlo_artifact", ["msgpack"], indirect=True)
def test_one_format(stablehlo_artifact):
    assert stablehlo_artifact.format == "msgpack"

@pytest.mark.parametrize("stablehlo_artifact", ["flatbuffer"], indirect=True)
def test_unknown_format(stablehlo_artifact):
    pass
""",
        "-v",
    )
    r.assert_outcomes(passed=3, errors=1)
    r.stdout.fnmatch_lines(
        [
            "*test_round_trip?mlir? PASSED*",
            "*test_round_trip?msgpack? PASSED*",
            "*stablehlo_artifact: artifact format 'flatbuffer': the formats are mlir, msgpack*",
        ]
    )


BACKEND_TESTS = """
def test_backend(stablehlo_backend):
    out = stablehlo_backend.assert_matches(MODEL, X)
    theirs = stablehlo_backend.run(MODEL, X)
    np.testing.assert_allclose(theirs[0], out[0], rtol=1e-5)
"""


def test_backend_fixture_runs_each_installed_backend(pytester: pytest.Pytester) -> None:
    have = _installed()
    r = run_inner(pytester, BACKEND_TESTS, "-v", "-rs")
    r.assert_outcomes(passed=sum(have.values()), skipped=2 - sum(have.values()))
    for name, ok in have.items():
        r.stdout.fnmatch_lines([f"*test_backend?{name}? {'PASSED' if ok else 'SKIPPED'}*"])


def test_backend_fixture_skips_a_missing_backend_with_the_reason(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(
        """
from stablehlo_py import backends
from stablehlo_py.backends import BackendUnavailable

def missing():
    raise BackendUnavailable(
        "IREE's runtime (iree-base-runtime) is not installed",
        note="pip install 'stablehlo-py[iree]'",
    )

backends.require_iree = missing
"""
    )
    r = run_inner(pytester, BACKEND_TESTS, "-rs", "-k", "iree")
    r.assert_outcomes(skipped=1, deselected=1)
    r.stdout.fnmatch_lines(
        ["*iree: IREE's runtime (iree-base-runtime) is not installed (pip install*"]
    )


def test_backend_fixture_refuses_an_unknown_backend(pytester: pytest.Pytester) -> None:
    r = run_inner(
        pytester,
        """
@pytest.mark.parametrize("stablehlo_backend", ["tpu"], indirect=True)
def test_tpu(stablehlo_backend):
    pass
""",
    )
    r.assert_outcomes(errors=1)
    r.stdout.fnmatch_lines(["*stablehlo_backend: 'tpu': the backends are xla and iree*"])
