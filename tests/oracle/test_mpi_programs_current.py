"""Issue 29's sharded JAX programs (``tests/data/mpi/``) are what ``tools/make_mpi_programs.py``
writes with the installed JAX: ``--check`` regenerates them over 8 CPU devices and compares texts
(without locations), arguments and XLA's outputs; it fails naming what differs.  The files were
written by jax 0.12; older JAX lowers the same functions to other text (jax 0.10 writes the async
collectives as ``stablehlo.async_start`` ops, for one), so the comparison needs jax >= 0.12.

That the programs run in-process as XLA computed is
tests/unit/interpreter/test_mpi_programs_inprocess.py (no jax needed)."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.oracle.consumers import require_xla

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "mpi"
SCRIPT = REPO / "tools" / "make_mpi_programs.py"


@pytest.fixture(scope="module")
def jax_0_12():
    jax = require_xla()
    version = tuple(int(p) for p in jax.__version__.split(".")[:2])
    if version < (0, 12):
        pytest.skip(f"tests/data/mpi/ was written with jax 0.12; jax {jax.__version__} lowers the "
                    "programs to other text, so they cannot be compared")
    return jax


def _script(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True,
                          cwd=REPO, timeout=600)


def test_committed_programs_are_current(jax_0_12) -> None:
    done = _script("--check")
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == "current"


def test_check_names_what_differs(jax_0_12, tmp_path: Path) -> None:
    """A changed output, a changed program and a missing file each make --check fail by name."""
    stale = tmp_path / "mpi"
    shutil.copytree(DATA, stale)
    with np.load(stale / "sm_pmax.npz") as z:
        arrays = {k: z[k] for k in z.files}
    arrays["out1"] = arrays["out1"] + 1
    np.savez(stale / "sm_pmax.npz", **arrays)
    with gzip.open(stale / "sm_psum.mlir.gz", "rt") as fh:
        text = fh.read()
    with gzip.open(stale / "sm_psum.mlir.gz", "wt") as fh:
        fh.write(text.replace("stablehlo.add", "stablehlo.multiply"))
    (stale / "pmap.npz").unlink()
    done = _script("--check", "--out", str(stale))
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert any(line.strip().startswith("sm_pmax.npz: out1 differs") for line in lines), lines
    assert any(line.strip().startswith("sm_psum.mlir.gz: line ") and "multiply" in line
               for line in lines), lines
    assert any(line.strip().startswith("pmap.npz: not committed") for line in lines), lines
    assert len([line for line in lines if line.startswith("  ")]) == 3, lines


def test_big_writes_the_2_gib_program_alone(jax_0_12, tmp_path: Path) -> None:
    done = _script("big", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    assert [p.name for p in tmp_path.iterdir()] == ["big.mlir.gz"]
    big = json.loads((DATA / "manifest.json").read_text())["big"]["file"]
    with gzip.open(tmp_path / "big.mlir.gz", "rt") as new, gzip.open(DATA / big, "rt") as old:
        assert new.read() == old.read()
