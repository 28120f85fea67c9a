"""docs/mpi.md's examples run as written, under MPI, and print what the page shows.

The page follows tests/unit/test_readme.py's conventions (its reader is reused here): each command
line of a ```sh block runs through ``bash -c`` from the repository root with this interpreter's
``bin`` first on PATH, must exit 0 without a traceback, and a ```text block right after a block is
that block's whole stdout.  ``/tmp/`` in a block names one temporary directory for the whole page
(blocks run in order and share files).  Two additions:

* a ```python block whose first line is ``# save as /tmp/NAME.py`` is written to that file (a rank
  program that a later ``mpirun ... python /tmp/NAME.py`` runs); every ```python block must say so;
* commands that install system packages (``apt-get``) or need a cluster's launcher (``srun``) are
  not run, as pip installs are not (test_readme's rule).

docs/mpi.md is not among test_readme's DOCS: its commands need an MPI, so they run here, under the
harness of tests/mpi/conftest.py (skipped with the reason where no MPI is installed; the launch
settings of :func:`mpi_env`, loopback only where a network namespace can be made).  They are Open
MPI's command lines (``--oversubscribe``, ``--hostfile``): under another MPI the test skips."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mpi.conftest import _session_members, loopback_namespace, mpi_env
from tests.unit.test_readme import Block, read_blocks, shell_commands

ROOT = Path(__file__).resolve().parents[2]
DOC = "docs/mpi.md"
TMP = "/tmp/"
#: seconds one command may take (an 8-rank launch on a loaded 2-core machine takes ~20 s)
TIMEOUT = 300.0
NOT_RUN = re.compile(r"^(?:sudo\s+)?apt(?:-get)?\s|^srun\s")
SAVE_AS = re.compile(r"^#\s*save as (?P<path>/tmp/[\w.-]+\.py)\b")


def blocks() -> list[Block]:
    return read_blocks((ROOT / DOC).read_text(encoding="utf-8"), DOC)


def runnable(block: Block) -> list:
    return [c for c in shell_commands(block) if not NOT_RUN.match(c.text)]


def _stop_leftovers(sid: int) -> None:
    """SIGKILL what is left of a finished command's session (never its former leader's pid)."""
    for pid in _session_members(sid):
        if pid != sid:
            try:
                os.kill(pid, 9)
            except (ProcessLookupError, PermissionError):
                pass


def run_command(text: str, env: dict[str, str], where: str) -> str:
    argv = ["bash", "-c", text]
    if loopback_namespace():
        argv = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *argv]
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        _stop_leftovers(proc.pid)
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{where} did not end within {TIMEOUT:g} s:\n{err[-3000:]}") from None
    finally:
        _stop_leftovers(proc.pid)
    assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{err[-3000:]}{out[-2000:]}"
    assert "Traceback" not in err, f"{where} printed a traceback:\n{err[-3000:]}"
    return out


def test_docs_mpi_blocks_are_all_accounted_for() -> None:
    """Every block is run or saved, only install and cluster commands are left out, and the page
    has the examples this test relies on (a guard against a silently empty run)."""
    found = blocks()
    assert {b.language for b in found} <= {"sh", "python"}
    for b in found:
        if b.language == "python":
            assert SAVE_AS.match(b.lines[0]), (
                f"{DOC}:{b.line}: a python block must start with # save as /tmp/NAME.py"
            )
    skipped = [c.text for b in found if b.language == "sh" for c in shell_commands(b)
               if NOT_RUN.match(c.text)]
    install_or_cluster = ("sudo apt-get install", "srun ")
    assert skipped and all(s.startswith(install_or_cluster) for s in skipped), skipped
    commands = [c.text for b in found if b.language == "sh" for c in runnable(b)]
    assert sum(c.startswith("mpirun ") for c in commands) >= 5, commands
    assert sum(b.output is not None for b in found) >= 4


def test_docs_mpi_examples(mpi, tmp_path: Path) -> None:
    if mpi.launcher.family != "openmpi":
        pytest.skip(f"{DOC}'s command lines are Open MPI's; the launcher here is "
                    f"{mpi.launcher.version}")
    env = mpi_env(mpi.launcher)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("STABLEHLO_PY_ARTIFACT_FORMAT", None)
    tmp = f"{tmp_path}/"
    for block in blocks():
        if block.language == "python":
            path = SAVE_AS.match(block.lines[0]).group("path").replace(TMP, tmp)
            Path(path).write_text(block.body.replace(TMP, tmp), encoding="utf-8")
            continue
        stdout = "".join(
            run_command(c.text.replace(TMP, tmp), env, f"{DOC}:{c.line}: `{c.text}`")
            for c in runnable(block)
        )
        if block.output is not None:
            assert stdout.rstrip("\n") == block.output.rstrip("\n").replace(TMP, tmp), (
                f"{DOC}:{block.line}: prints\n{stdout}\nwhile {DOC}:{block.output_line} shows\n"
                f"{block.output}"
            )
