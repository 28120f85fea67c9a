"""upstream's `transforms/` test files whose every RUN line passes verbatim with our stablehlo-opt and
FileCheck: each RUN line as lit runs it (a subprocess), then each `--split-input-file` RUN line chunk
by chunk (tests/conformance/chunks.py), so a failing chunk is named on its own.

(`stablehlo_refine_shapes.mlir` and `stablehlo_legalize_composite_to_call.mlir` have their own
modules: a whole-file subtlety and a FileCheck difference are spelled out there.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.chunks import run_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

TRANSFORMS = CONFORMANCE / "transforms"
FILES = (
    "stablehlo_refine_parameters.mlir",  # --stablehlo-refine-arguments
    "stablehlo_canonicalize_dynamism.mlir",  # --stablehlo-canonicalize-dynamism
    "stablehlo_check_shape_assertions.mlir",  # --stablehlo-check-shape-assertions
)


def _lines(split_only: bool) -> list[tuple[str, str]]:
    out = []
    for name in FILES:
        path = TRANSFORMS / name
        for line in run_lines(path) if path.is_file() else []:
            if split_only and ("--split-input-file" not in line or line.startswith("not ")):
                continue
            out.append((name, line))
    return out


pytestmark = pytest.mark.skipif(
    not TRANSFORMS.is_dir(), reason="../shared/conformance/transforms is absent"
)


@pytest.mark.parametrize("name,line", _lines(split_only=False))
def test_run_line(name: str, line: str, tmp_path: Path) -> None:
    r = execute(line, TRANSFORMS / name, tmp_path / "t")
    assert r.returncode == 0, f"{line}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    assert "Traceback" not in r.stderr, r.stderr[-3000:]


@pytest.mark.parametrize("name,line", _lines(split_only=True))
def test_chunks(name: str, line: str, tmp_path: Path) -> None:
    report = run_chunks(TRANSFORMS / name, line, tmp_path)
    report.print_summary(name)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()


def test_every_file_has_run_lines() -> None:
    for name in FILES:
        assert run_lines(TRANSFORMS / name), name
