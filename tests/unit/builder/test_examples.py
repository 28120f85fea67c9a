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


BUILT = sorted(
    p.stem
    for p in EXAMPLES.glob("*.py")
    if "\ndef build(" in p.read_text() and p.stem not in {"mlp_train", "while_loop", "sort"}
)


@pytest.mark.parametrize("name", BUILT)
def test_builder_program_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every other builder program (`build()` / `inputs()`, also run on XLA and IREE by
    tests/oracle/test_builder_consumers.py) runs as its script does, in this process: it builds,
    verifies, prints its module and checks the interpreter against its own numpy reference."""
    import runpy

    runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "func.func" in out, out[:200]


def test_every_builder_program_is_run() -> None:
    assert len(BUILT) >= 10, BUILT
