"""Shared test fixtures: where upstream's conformance data lives (../shared, never copied here)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CONFORMANCE = SHARED / "conformance"
REFERENCE = SHARED / "reference"


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
