"""upstream's `transforms/stablehlo_canonicalize_dynamism.mlir` (--stablehlo-canonicalize-dynamism): every RUN line verbatim as lit runs it
(a subprocess with our stablehlo-opt and FileCheck), then each `--split-input-file` RUN line chunk by
chunk (tests/conformance/chunks.py), so a failing chunk is named on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.chunks import run_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

PATH = CONFORMANCE / "transforms" / "stablehlo_canonicalize_dynamism.mlir"
pytestmark = pytest.mark.skipif(
    not PATH.is_file(), reason="../shared/conformance/transforms is absent"
)


def _lines() -> list[str]:
    return run_lines(PATH) if PATH.is_file() else []


@pytest.mark.parametrize("line", _lines())
def test_run_line(line: str, tmp_path: Path) -> None:
    r = execute(line, PATH, tmp_path / "t")
    assert r.returncode == 0, f"{line}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]


@pytest.mark.parametrize(
    "line", [x for x in _lines() if "--split-input-file" in x and not x.startswith("not ")]
)
def test_chunks(line: str, tmp_path: Path) -> None:
    report = run_chunks(PATH, line, tmp_path)
    report.print_summary(PATH.name)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()
