"""Upstream's VHLO tests (../shared/conformance/vhlo/*.mlir) run with our `stablehlo-opt` as their RUN
lines say, piped to `filecheck`.  Skipped when ../shared is absent (a user's clone).

How each file is run:

* RUN lines are executed as lit does (tests/conformance/runlines.py): `stablehlo-opt`,
  `stablehlo-translate` and `FileCheck` substituted by our console scripts and the `filecheck`
  package, `%s`/`%t` by the file and a temporary path, `not` negating the one command it prefixes.
  Every RUN line runs except those reading upstream's `.mlir.bc` artifacts (not shipped here) and
  lit's `%if asserts` lines (they need a debug build of upstream).
* The versioned files `stablehlo_legalize_to_vhlo.X_Y_Z.mlir` read a bytecode artifact written at
  X.Y.Z (`stablehlo-opt --mlir-print-op-generic %s.bc`), which upstream does not ship here.  With jax
  installed and a jaxlib that writes X.Y.Z, jaxlib writes it next to a copy of the file and the first
  RUN line runs as written (our `stablehlo-opt` prints the VHLO module an artifact holds, as
  upstream's); tests/oracle/test_vhlo_bc_runlines.py runs all of the file's `%s.bc` RUN lines so.
  Otherwise, as that artifact holds exactly the VHLO ops of the file downgraded to X.Y.Z, the line is
  run as `stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version=target=X.Y.Z
  --mlir-print-op-generic %s | FileCheck %s`: the same CHECK lines against the same VHLO.
* `-verify-diagnostics` files run verbatim too: our `--verify-diagnostics` checks every expected
  diagnostic (text, line) and that no other one is emitted, as MLIR's does.
* A file whose StableHLO input our StableHLO layer cannot read yet is an expected failure (xfail)
  with the parser's message, so it shows up as soon as the input is supported.

`python -m tests.conformance.test_vhlo` prints the pass counts per file.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import conformance_files

VHLO = conformance_files("vhlo")
BIN = Path(sys.executable).parent
OPT = str(BIN / "stablehlo-opt")
FILECHECK = (
    shutil.which("filecheck", path=str(BIN) + os.pathsep + os.environ.get("PATH", ""))
    or "filecheck"
)
VERSIONED = re.compile(r"stablehlo_legalize_to_vhlo\.(\d+)_(\d+)_(\d+)\.mlir$")
EXPECT = re.compile(r"//\s*expected-error\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}")


def plan(path: Path) -> list[tuple[str, str]]:
    """(kind, command) for each RUN line we run: kind is 'filecheck', 'diagnostics' or 'bc' (a
    versioned file's `%s.bc` line: `run_bc_line`)."""
    out: list[tuple[str, str]] = []
    lines = run_lines(path)
    m = VERSIONED.search(path.name)
    if m and lines and "%s.bc" in lines[0]:
        out.append(("bc", lines[0]))
        lines = lines[1:]
    # Consecutive lines sharing `%t` files (write, write, diff) run as one sequence in one
    # directory; a sequence or line reading upstream's `.mlir.bc` artifacts (not shipped here:
    # tests/oracle/test_vhlo_bc_runlines.py runs them on jaxlib's) is left out whole.
    groups: list[list[str]] = []
    for line in lines:
        if "%t" in line and groups and "%t" in groups[-1][-1]:
            groups[-1].append(line)
        else:
            groups.append([line])
    for group in groups:
        if any("%s.bc" in line for line in group):
            continue
        if len(group) > 1:
            out.append(("sequence", "\n".join(group)))
            continue
        kind = "diagnostics" if re.search(r"-?-verify-diagnostics", group[0]) else "filecheck"
        out.append((kind, group[0]))
    return out


def unsupported_passes(command: str) -> list[str]:
    from stablehlo_py.passes import PASSES

    own = {
        "split-input-file",
        "mlir-print-op-generic",
        "mlir-print-debuginfo",
        "verify-diagnostics",
        "mlir-print-local-scope",
        "allow-unregistered-dialect",
    }
    names: list[str] = []
    for line in command.split("\n"):  # a sequence's lines
        first = line.split("|")[0]
        if "stablehlo-opt" in first:  # (stablehlo-translate's options are not passes)
            names += re.findall(r"(?:^|\s)--?([a-z][a-z0-9-]*)", first)
    return [n for n in names if n not in PASSES and n not in own and n != "stablehlo-opt"]


def substituted(path: Path) -> str:
    """The first RUN line of a versioned file without its `.mlir.bc`: the same VHLO from the file."""
    m = VERSIONED.search(path.name)
    assert m is not None
    return (
        f"stablehlo-opt --stablehlo-legalize-to-vhlo --vhlo-to-version=target={'.'.join(m.groups())} "
        "--mlir-print-op-generic %s | FileCheck %s"
    )


def run_bc_line(command: str, path: Path) -> subprocess.CompletedProcess[str]:
    """A versioned file's `%s.bc` RUN line: as written on jaxlib's artifact when jax can write it,
    else `substituted`."""
    import tempfile

    try:
        from tests.oracle import test_vhlo_bc_runlines as bc
    except pytest.skip.Exception:  # jax is not installed
        return shell(substituted(path), path)
    if bc.why_not(path) is not None:
        return shell(substituted(path), path)
    with tempfile.TemporaryDirectory() as tmp:
        return shell(command, bc.prepare(path, Path(tmp)))


def shell(command: str, path: Path) -> subprocess.CompletedProcess[str]:
    """The RUN line(s) as lit runs them (tests/conformance/runlines.py: `not` negates one
    command), in order in one temporary directory, stopping at the first that fails."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for line in command.split("\n"):
            proc = execute(line, path, Path(tmp) / "t")
            if proc.returncode != 0:
                break
        return proc


def input_problem(text: str, name: str, line_offset: int = 0) -> str | None:
    """Why the StableHLO layer cannot read this input (None when it can)."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.ir import parse
    from stablehlo_py.ir.verify import verify

    try:
        verify(parse(text, name, line_offset))
    except StableHLOError as e:
        return e.message
    return None


# ------------------------------------------------------------------------------------- tests


def _cases() -> list[tuple[Path, int, str, str]]:
    cases = []
    for path in VHLO:
        for i, (kind, command) in enumerate(plan(path)):
            cases.append((path, i, kind, command))
    return cases


CASES = _cases()
NOT_RUN = [p for p in VHLO if not plan(p)]


@pytest.mark.skipif(not VHLO, reason="../shared/conformance/vhlo is absent")
@pytest.mark.parametrize(
    ("path", "index", "kind", "command"), CASES, ids=[f"{c[0].name}-RUN{c[1]}" for c in CASES]
)
def test_vhlo_conformance(path: Path, index: int, kind: str, command: str) -> None:
    missing = unsupported_passes(command)
    if missing:
        pytest.skip(f"needs pass(es) {', '.join(missing)}, which are not VHLO passes")
    proc = run_bc_line(command, path) if kind == "bc" else shell(command, path)
    if proc.returncode != 0:
        problem = input_problem(path.read_text(), str(path))
        if problem is not None and "not " not in command and kind != "diagnostics":
            pytest.xfail(f"StableHLO input not readable yet: {problem}")
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.skipif(not NOT_RUN, reason="every file has a runnable RUN line")
@pytest.mark.parametrize("path", NOT_RUN, ids=lambda p: p.name)
def test_vhlo_files_needing_artifacts(path: Path) -> None:
    pytest.skip("every RUN line needs upstream's .mlir.bc portable artifact (tests/oracle runs them)")


# ------------------------------------------------------------------------------------ report


def summary() -> list[tuple[str, int, int, int, str]]:
    """(file, passed, total, expected failures, note) per file."""
    rows = []
    for path in VHLO:
        passed = total = xfailed = 0
        note = ""
        for kind, command in plan(path):
            missing = unsupported_passes(command)
            if missing:
                note = f"needs {', '.join(missing)}"
                continue
            total += 1
            proc = run_bc_line(command, path) if kind == "bc" else shell(command, path)
            if proc.returncode == 0:
                passed += 1
            else:
                problem = input_problem(path.read_text(), str(path))
                if problem and kind != "diagnostics":
                    xfailed += 1
                    note = f"input: {problem[:100]}"
                else:
                    note = proc.stderr.strip().splitlines()[-1][:120] if proc.stderr.strip() else ""
        if not plan(path):
            note = "needs the .mlir.bc artifact"
        rows.append((path.name, passed, total, xfailed, note))
    return rows


if __name__ == "__main__":
    rows = summary()
    for name, passed, total, xfailed, note in rows:
        print(
            f"{name:50s} {passed:3d}/{total:<3d} {'xfail ' + str(xfailed) if xfailed else '':9s} {note}"
        )
    print(f"total: {sum(r[1] for r in rows)}/{sum(r[2] for r in rows)}")
