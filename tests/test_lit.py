"""Runs the lit/FileCheck suite in tests/filecheck as part of pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FILECHECK_DIR = Path(__file__).parent / "filecheck"


def test_lit_suite() -> None:
    tests = list(FILECHECK_DIR.rglob("*.mlir"))
    assert tests, "tests/filecheck has no lit tests"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lit"), "-q", "--no-progress-bar", str(FILECHECK_DIR)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
