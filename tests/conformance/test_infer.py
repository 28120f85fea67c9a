"""upstream's result-type inference tests (`infer/infer_stablehlo.mlir`, run through `--hlo-test-infer`).

The file's RUN line (`stablehlo-opt --hlo-test-infer --allow-unregistered-dialect --split-input-file
--verify-diagnostics %s | FileCheck %s`) is run once as a subprocess over the whole file (it must
pass), and then chunk by chunk (`// -----`), each chunk with our stablehlo-opt (in-process: one
interpreter start instead of 127) and FileCheck on its own CHECK lines, so that each chunk passes or
fails on its own.

Every chunk must pass (128/128; the chunk runner is tests/conformance/chunks.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.chunks import run_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

INFER = CONFORMANCE / "infer" / "infer_stablehlo.mlir"


@pytest.mark.skipif(not INFER.is_file(), reason="../shared/conformance/infer is absent")
def test_run_line_over_the_whole_file(tmp_path: Path) -> None:
    """The RUN line as lit runs it passes: every chunk, diagnostics and CHECK lines included."""
    (line,) = run_lines(INFER)
    r = execute(line, INFER, tmp_path / "t")
    assert "internal error" not in r.stderr, r.stderr[-3000:]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.skipif(not INFER.is_file(), reason="../shared/conformance/infer is absent")
def test_infer_chunks(tmp_path: Path) -> None:
    (line,) = run_lines(INFER)
    report = run_chunks(INFER, line, tmp_path)
    report.print_summary(INFER.name)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()
