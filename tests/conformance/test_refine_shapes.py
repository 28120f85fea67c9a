"""upstream's `transforms/stablehlo_refine_shapes.mlir`, run through `--stablehlo-refine-shapes`.

The RUN line (`stablehlo-opt --stablehlo-refine-shapes --split-input-file --verify-diagnostics %s |
FileCheck %s`) is run once over the whole file as a subprocess, then chunk by chunk
(`tests/conformance/chunks.py`), so that each chunk passes or fails on its own.

Known failures would be chunks whose input stablehlo-py cannot parse (NOT_PARSED: text in the chunk ->
why) or that fail for a stated reason (KNOWN); every chunk passes now (`cf.br` blocks and
`func.constant` / `func.call_indirect` parse since stablehlo_py/ir/ops/cf.py and func_indirect.py).
Any failing chunk fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.chunks import Chunk, run_chunks
from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

REFINE_SHAPES = CONFORMANCE / "transforms" / "stablehlo_refine_shapes.mlir"

# input that stablehlo-py does not parse (text in the chunk -> why); the pass is not involved
NOT_PARSED: dict[str, str] = {}

# chunk name -> why it fails although the pass supports it
KNOWN: dict[str, str] = {}


def _known_failure(chunk: Chunk) -> str | None:
    for text, why in NOT_PARSED.items():
        if text in chunk.text:
            return why
    return KNOWN.get(chunk.name)


# The file ends with a chunk of comments only (run_chunks skips it; the whole-file run does not):
# refine-shapes leaves a module without a function as it is (upstream's pass fails there without a
# diagnostic, which --verify-diagnostics ignores).


@pytest.mark.skipif(
    not REFINE_SHAPES.is_file(), reason="../shared/conformance/transforms is absent"
)
def test_run_line_over_the_whole_file(tmp_path: Path) -> None:
    """The RUN line as lit runs it: every chunk is processed without an internal error, and the
    diagnostics and CHECK lines all match (exit status 0)."""
    (line,) = run_lines(REFINE_SHAPES)
    r = execute(line, REFINE_SHAPES, tmp_path / "t")
    assert "internal error" not in r.stderr, r.stderr[-3000:]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.skipif(
    not REFINE_SHAPES.is_file(), reason="../shared/conformance/transforms is absent"
)
def test_refine_shapes_chunks(tmp_path: Path) -> None:
    (line,) = run_lines(REFINE_SHAPES)
    report = run_chunks(REFINE_SHAPES, line, tmp_path, _known_failure)
    report.print_summary(REFINE_SHAPES.name)
    assert not report.failures, report.failure_text()
    assert not report.known_passing, f"known failures that pass now: {report.known_passing}"
    assert len(report.passed) >= 92, f"only {len(report.passed)} chunks pass"
