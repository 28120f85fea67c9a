"""The builder examples run as a user runs them (`python examples/x.py`): exit 0, print the module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("name", ["mlp_train", "while_loop", "sort"])
def test_example_runs(name: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("module"), proc.stdout[:200]
    assert "func.func" in proc.stdout
