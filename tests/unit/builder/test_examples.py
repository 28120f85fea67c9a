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


def test_the_docs_show_the_classifier_example() -> None:
    """docs/building.md's worked model is examples/classifier.py's: every line of the page's
    ``def main`` body is a line of the example's, in order (the page's XLA and IREE blocks run the
    example, so the two must not drift apart)."""
    page = (EXAMPLES.parent / "docs" / "building.md").read_text(encoding="utf-8")
    shown = page[page.index("def main(w1, b1, w2, b2, x, labels):") :]
    body = []
    for line in shown.splitlines()[1:]:
        if line.strip() and not line.startswith("    "):
            break  # the end of the function
        body.append(line.strip())
    body = [line for line in body if line]
    example = [line.strip() for line in (EXAMPLES / "classifier.py").read_text().splitlines()]
    assert len(body) >= 20
    at = 0
    for line in body:
        assert line in example[at:], f"docs/building.md shows a line examples/classifier.py lacks: {line}"
        at = example.index(line, at) + 1
