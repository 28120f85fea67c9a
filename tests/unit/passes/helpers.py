"""Shared by the pass tests: `stablehlo-opt` (and the other commands) run as a user runs them (a
subprocess), the ops a pass left in a module."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from xdsl.ir import Operation


def tool(name: str) -> str | None:
    """The command `name` installed beside this Python (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def run_tool(
    name: str, *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``NAME ARGS`` (``stdin`` its standard input, run in ``cwd``): text out, the exit status
    returned, never raised."""
    path = tool(name)
    assert path is not None, f"{name} is not installed"
    return subprocess.run(
        [path, *args], input=stdin, capture_output=True, text=True, check=False, timeout=120,
        cwd=cwd,
    )


def run_opt(
    *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``stablehlo-opt ARGS``, as :func:`run_tool`."""
    return run_tool("stablehlo-opt", *args, stdin=stdin, cwd=cwd)


def op_names(m: Operation) -> list[str]:
    """The names of the ops in `m`, walked in order, but for the module and the functions."""
    return [o.name for o in m.walk() if o.name not in ("builtin.module", "func.func")]
