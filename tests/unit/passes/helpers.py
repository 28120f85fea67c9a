"""Shared by the pass tests: `stablehlo-opt` run as a user runs it (a subprocess), the ops a pass
left in a module."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from xdsl.ir import Operation

_BESIDE = Path(sys.executable).parent / "stablehlo-opt"
# the stablehlo-opt installed beside this Python (the venv's), else the one on PATH
OPT = str(_BESIDE) if _BESIDE.exists() else shutil.which("stablehlo-opt")


def run_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``stablehlo-opt ARGS`` (``stdin`` its standard input): text out, the exit status returned,
    never raised."""
    assert OPT is not None, "stablehlo-opt is not installed"
    return subprocess.run(
        [OPT, *args], input=stdin, capture_output=True, text=True, check=False, timeout=120
    )


def op_names(m: Operation) -> list[str]:
    """The names of the ops in `m`, walked in order, but for the module and the functions."""
    return [o.name for o in m.walk() if o.name not in ("builtin.module", "func.func")]
