"""Shared test fixtures: where upstream's conformance data lives (../shared, never copied here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# upstream's tests and sources, next to the repository (never copied into it); STABLEHLO_PY_SHARED
# points elsewhere (CI sets a missing directory for one run, to test what a user's clone sees)
SHARED = Path(os.environ.get("STABLEHLO_PY_SHARED") or REPO.parent / "shared")
CONFORMANCE = SHARED / "conformance"
REFERENCE = SHARED / "reference"


def pytest_sessionstart(session: pytest.Session) -> None:
    # Under mutmut (tools/mutation.py) each mutant's tests run in a process forked from the one that
    # ran them on the unmutated code: its memos would answer "verified" without calling the mutated
    # rules, and a mutant that makes a good program fail would survive every test.  Every cache of
    # the toolkit is the context's (stablehlo_py/ir/context.py), the verifier's memos included
    # ("verify.driver"): emptied in place.
    if os.environ.get("MUTANT_UNDER_TEST"):
        from stablehlo_py.ir.context import CONTEXT

        CONTEXT.clear()


def conformance_files(sub: str, pattern: str = "*.mlir") -> list[Path]:
    d = CONFORMANCE / sub
    return sorted(d.rglob(pattern)) if d.is_dir() else []


def split_input_file(text: str) -> list[tuple[int, str]]:
    """Split on `// -----` like --split-input-file; returns (line offset, chunk)."""
    chunks: list[tuple[int, str]] = []
    line = 0
    for part in text.split("// -----"):
        chunks.append((line, part))
        line += part.count("\n")
    return chunks


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    if not CONFORMANCE.is_dir():
        pytest.skip("../shared/conformance is absent (user clone): conformance tests skipped")
    return CONFORMANCE
