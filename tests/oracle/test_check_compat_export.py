"""`stablehlo-translate --check-compat` on a JAX export built here with the installed jax, run as a
user runs it (subprocesses), its verdicts checked against jaxlib's own StableHLO:

* the export is written for the version `jax.export` targets (jaxlib's
  `get_version_from_compatibility_requirement(WEEK_4)`), so a consumer at jaxlib's current version
  (which reads it: jaxlib deserializes it here) is compatible, exit 0;
* a consumer one minor version older than that is not, exit 1, with the one blocker (the version)
  and the advice to re-serialize for it; following the advice (`--convert-artifact --target=X`)
  gives an artifact jaxlib reads and the check accepts;
* a 1.0.0 consumer is also blocked by JAX's location ranges (from 1.9.0), each named.

Runs with jax/jaxlib 0.10 (StableHLO 1.17.0) and 0.12 (1.22.0): every expected version is asked of
the installed jaxlib, none is written here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")

import jax.numpy as jnp  # noqa: E402
from jaxlib.mlir.dialects import stablehlo as upstream  # noqa: E402

import stablehlo_py  # noqa: E402
from stablehlo_py.version import Version  # noqa: E402

TRANSLATE = str(Path(sys.executable).parent / "stablehlo-translate")


def translate(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "STABLEHLO_PY_ARTIFACT_FORMAT"}
    return subprocess.run([TRANSLATE, *argv], capture_output=True, text=True, timeout=300, env=env)


def jaxlib_reads(data: bytes) -> None:
    from jax._src.interpreters import mlir as jax_mlir

    upstream.deserialize_portable_artifact(jax_mlir.make_ir_context(), data)


def version(text: str) -> Version:
    return Version(*(int(p) for p in str(text).split(".")))


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    exp = jax.export.export(jax.jit(lambda x, w: jnp.tanh(x @ w) + 1.0))(x, w)
    path = tmp_path_factory.mktemp("export") / "model.jax_exported"
    path.write_bytes(exp.serialize())
    return path, exp


def written_for() -> Version:
    """What jax.export targets (jax/_src/export/_export.py), asked of jaxlib."""
    req = upstream.StablehloCompatibilityRequirement.WEEK_4
    return version(upstream.get_version_from_compatibility_requirement(req))


def test_the_export_is_written_for_jax_s_target(export: tuple[Path, object]) -> None:
    path, exp = export
    got = stablehlo_py.get_portable_artifact_version(path.read_bytes())
    assert got == written_for()
    jaxlib_reads(exp.mlir_module_serialized)  # jaxlib, at its current version, reads it


def test_compatible_with_jaxlib_s_current_version(export: tuple[Path, object]) -> None:
    path, _ = export
    current = version(upstream.get_current_version())
    proc = translate("--check-compat", f"--consumer-version={current}", str(path))
    assert proc.returncode == 0, proc.stderr + proc.stdout
    first = proc.stdout.splitlines()[0]
    assert first == (
        f"artifact written for StableHLO {written_for()} by an MLIR bytecode writer; consumer at "
        f"StableHLO {current}: compatible"
    )
    assert "blocker" not in proc.stdout and "Traceback" not in proc.stderr


def test_an_older_consumer_is_refused_and_the_advice_works(export: tuple[Path, object], tmp_path: Path) -> None:
    path, _ = export
    written = written_for()
    older = Version(written.major, written.minor - 1, 0)
    proc = translate("--check-compat", f"--consumer-version={older}", str(path))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.splitlines() == [
        f"artifact written for StableHLO {written} by an MLIR bytecode writer; consumer at "
        f"StableHLO {older}: NOT compatible (1 blocker)",
        f"  blocker: the artifact was written for StableHLO {written}; a consumer at {older} reads "
        f"artifacts written for {stablehlo_py.get_minimum_version()} to {older}",
        f"  note: every op of the program exists at {older}: re-serialize it with --target={older} "
        "for this consumer",
    ]
    converted = tmp_path / "older.mlir.bc"
    proc = translate("--convert-artifact", "--format=mlir", f"--target={older}", str(path), "-o", str(converted))
    assert proc.returncode == 0, proc.stderr
    data = converted.read_bytes()
    assert stablehlo_py.get_portable_artifact_version(data) == older
    jaxlib_reads(data)
    proc = translate("--check-compat", f"--consumer-version={older}", str(converted))
    assert proc.returncode == 0 and proc.stdout.rstrip().endswith(f"consumer at StableHLO {older}: compatible")


def test_a_1_0_0_consumer_is_also_blocked_by_location_ranges(export: tuple[Path, object]) -> None:
    path, _ = export
    proc = translate("--check-compat", "--consumer-version=1.0.0", str(path))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    blockers = [s for s in lines if s.startswith("  blocker: ")]
    assert lines[0].endswith(f"NOT compatible ({len(blockers)} blockers)")
    assert blockers[0].startswith(f"  blocker: the artifact was written for StableHLO {written_for()}")
    ranged = blockers[1:]
    assert ranged, proc.stdout
    for b in ranged:
        assert b.startswith("  blocker: cannot be written for 1.0.0: loc(")
        assert "FileLineColRange" in b and b.endswith("(needs 1.9.0)")
    assert any("'vhlo.tanh_v" in b for b in ranged) and any("'vhlo.dot_general_v" in b for b in ranged)
    assert "  note: the lowest target these operations allow is 1.9.0" in lines
