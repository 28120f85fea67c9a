"""upstream's verifier tests (`../shared/conformance/verify/`): every RUN line of each file, with our
stablehlo-opt and FileCheck (`--verify-diagnostics --split-input-file`: each expected diagnostic,
in upstream's words, at upstream's line).

A file passes, or is a known failure with its reason (``KNOWN``); a known failure that passes is
reported so that it can be removed from the list.  Any other failing file fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import conformance_files

VERIFY = conformance_files("verify")

KNOWN: dict[str, str] = {}


@pytest.mark.skipif(not VERIFY, reason="../shared/conformance/verify is absent")
@pytest.mark.parametrize("path", VERIFY, ids=lambda p: p.name)
def test_verify_file(path: Path, tmp_path: Path) -> None:
    failed = []
    for i, cmd in enumerate(run_lines(path)):
        r = execute(cmd, path, tmp_path / "t")
        assert "internal error" not in r.stderr, r.stderr[-3000:]
        if r.returncode != 0:
            failed.append(f"RUN line {i + 1}: {cmd}\n{r.stderr[-3000:]}")
    if path.name in KNOWN:
        if not failed:
            print(f"\n{path.name} passes now: remove it from KNOWN")
        return
    assert not failed, "\n".join(failed)
