"""Our negative lit tests would pass under upstream's `stablehlo-opt -verify-diagnostics`: every
chunk of tests/filecheck/verify_errors*.mlir is parsed and verified by jaxlib's MLIR (upstream's
StableHLO verifiers, the `oracle` extra), and upstream's errors must meet the chunk's
`expected-error` designators exactly -- same text (substring, as MLIR matches), same line, none
unexpected, none missing.  Together with tests/test_lit.py (the same files pass under our
`stablehlo-opt`) this pins our diagnostics to upstream's wording, location and count.

Chunks jaxlib cannot judge are skipped with the reason: `!quant` types (its context does not
register the quant dialect) and ops newer than its StableHLO.  KNOWN lists chunks where upstream's
newer release (our target, 1.20) differs from jaxlib's, each with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("jaxlib")

from stablehlo_py.cli.common import DiagnosticVerifier, split_chunks
from tests.oracle.upstream_diagnostics import unknown_to_jaxlib, upstream_errors

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck"

KNOWN: dict[tuple[str, str], str] = {
    ("verify_errors.mlir", "@chlo"): (
        "StableHLO 1.20's getNumpyBroadcastShape emits 'incompatible shapes for broadcasting' "
        "(jaxlib's 1.17 infers an unranked result silently)"
    ),
}
"""(file, first `func.func @name` of the chunk) -> why jaxlib's older StableHLO differs."""


def _chunks() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted(FILECHECK.glob("verify_errors*.mlir")):
        for offset, chunk in split_chunks(path.read_text(), True):
            if "expected-" in chunk:
                out.append((path.name, offset, chunk))
    return out


def _name(chunk: str) -> str:
    for line in chunk.splitlines():
        if "func.func @" in line:
            return "@" + line.split("func.func @", 1)[1].split("(", 1)[0].strip()
    return "?"


CHUNKS = _chunks()


def test_the_negative_lit_files_have_chunks() -> None:
    assert len(CHUNKS) >= 100


@pytest.mark.parametrize(
    ("name", "offset", "chunk"),
    CHUNKS,
    ids=[f"{n}:{o + 1}:{_name(c)}" for n, o, c in CHUNKS],
)
def test_chunk_passes_upstream_verify_diagnostics(name: str, offset: int, chunk: str) -> None:
    errors = upstream_errors(chunk)
    unknown = unknown_to_jaxlib(errors)
    if unknown is not None:
        pytest.skip(f"jaxlib cannot judge this chunk: {unknown[:120]}")
    known = KNOWN.get((name, _name(chunk)))
    verifier = DiagnosticVerifier(chunk, name, offset)
    for e in errors:
        location = f"{name}:{offset + e.line}:1" if e.line is not None else None
        verifier.process("error", e.message, location)
    problems = verifier.finish()
    if known is not None:
        assert problems, f"KNOWN entry no longer needed: {known}"
        pytest.xfail(known)
    assert not problems, "\n".join(problems)
