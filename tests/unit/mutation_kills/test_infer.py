"""stablehlo_py/ir/infer/ (the result-type inference rules): what the mutation runs of the
`infer-rest` and `infer-linalg` groups found unchecked.

Two kinds of test:

* upstream's own verifier programs (``../shared/conformance/verify/*.mlir``), run in-process chunk by
  chunk with their RUN line's flags (``--verify-diagnostics``: every expected diagnostic in upstream's
  words at upstream's line) -- tests/conformance/test_verify.py runs the same files as subprocesses,
  which import the unmutated package and so cannot tell a mutant from the original;
* direct tests of the rules where those files do not reach: dynamic dimensions, ``#stablehlo.bounds``,
  quantized element types, tokens and tuples, and the error wording (from upstream's
  TypeInference.cpp / StablehloOps.cpp / ChloOps.cpp, /work/shared/reference/upstream/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.chunks import RunLine, run_chunks
from tests.conformance.runlines import run_lines
from tests.conftest import conformance_files

# ---------------------------------------------------------------------------------------------
# upstream's verifier programs, in-process
# ---------------------------------------------------------------------------------------------


def _verify_files() -> list[Path]:
    """The verify files whose (single) RUN line is one `stablehlo-opt ... [| FileCheck]` command."""
    out = []
    for p in conformance_files("verify"):
        lines = run_lines(p)
        try:
            if len(lines) == 1:
                RunLine.parse(lines[0])
                out.append(p)
        except ValueError:
            continue  # a pipe of two stablehlo-opt runs: test_verify.py runs it as lit does
    return out


VERIFY = _verify_files()


@pytest.mark.skipif(not VERIFY, reason="../shared/conformance/verify is absent")
@pytest.mark.parametrize("path", VERIFY, ids=lambda p: p.name)
def test_upstream_verify_file_in_process(path: Path, tmp_path: Path) -> None:
    """Every chunk of the file passes its RUN line with the package under test (diagnostics word
    for word, at upstream's lines, and the CHECK lines of the printed output)."""
    (line,) = run_lines(path)
    report = run_chunks(path, line, tmp_path)
    assert report.passed, "no chunk ran"
    assert not report.failures, report.failure_text()
