"""upstream's dialect/ print and round-trip tests: every RUN line, with our stablehlo-opt and filecheck."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import conformance_files

DIALECT = conformance_files("dialect")


@pytest.mark.skipif(not DIALECT, reason="../shared/conformance/dialect is absent")
@pytest.mark.parametrize("path", DIALECT, ids=lambda p: p.name)
def test_dialect_file(path: Path, tmp_path: Path) -> None:
    lines = run_lines(path)
    assert lines, f"{path.name} has no RUN line"
    for i, cmd in enumerate(lines):
        r = execute(cmd, path, tmp_path / "t")  # %t is one path per file, as in lit
        assert r.returncode == 0, f"RUN line {i + 1}: {cmd}\n{r.stderr[-3000:]}"
