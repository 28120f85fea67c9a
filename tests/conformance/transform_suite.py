"""The test functions for upstream's `transforms/` files whose every RUN line passes verbatim with our
stablehlo-opt and FileCheck: each RUN line as lit runs it (a subprocess), then each
`--split-input-file` RUN line chunk by chunk (tests/conformance/chunks.py), so a failing chunk is
named on its own.  A test module per group of passes calls `transform_tests(FILES)` and binds the
three functions it returns to `test_*` names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.conformance.chunks import run_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

TRANSFORMS = CONFORMANCE / "transforms"

needs_transforms = pytest.mark.skipif(
    not TRANSFORMS.is_dir(), reason="../shared/conformance/transforms is absent"
)


def _lines(files: Sequence[str], split_only: bool) -> list[tuple[str, str]]:
    out = []
    for name in files:
        path = TRANSFORMS / name
        for line in run_lines(path) if path.is_file() else []:
            if split_only and ("-split-input-file" not in line or line.startswith("not ")):
                continue
            out.append((name, line))
    return out


def transform_tests(files: Sequence[str]) -> tuple[Callable[..., None], ...]:
    """(test_run_line, test_chunks, test_every_file_has_run_lines) over `files`."""

    @needs_transforms
    @pytest.mark.parametrize("name,line", _lines(files, split_only=False))
    def test_run_line(name: str, line: str, tmp_path: Path) -> None:
        r = execute(line, TRANSFORMS / name, tmp_path / "t")
        assert r.returncode == 0, f"{line}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
        assert "Traceback" not in r.stderr, r.stderr[-3000:]

    @needs_transforms
    @pytest.mark.parametrize("name,line", _lines(files, split_only=True))
    def test_chunks(name: str, line: str, tmp_path: Path) -> None:
        report = run_chunks(TRANSFORMS / name, line, tmp_path)
        report.print_summary(name)
        assert report.passed, "no chunk ran"
        assert not report.failures, report.failure_text()

    @needs_transforms
    def test_every_file_has_run_lines() -> None:
        for name in files:
            assert run_lines(TRANSFORMS / name), name

    return test_run_line, test_chunks, test_every_file_has_run_lines
