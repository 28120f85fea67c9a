"""Every conformance program parses, verifies, and prints to a fixed point, also via the generic form.

upstream: `stablehlo-opt %s | stablehlo-opt` is a fixed point; `--mlir-print-op-generic` output parses back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from stablehlo_py.ir import parse, print_ir
from tests.conftest import conformance_files, split_input_file

TESTDATA = conformance_files("testdata")
INTERPRET = conformance_files("interpret")


def _roundtrip(text: str, name: str, offset: int = 0) -> None:
    module = parse(text, name, offset)
    from stablehlo_py.ir.verify import verify

    verify(module)
    printed = print_ir(module)
    again = print_ir(parse(printed, name + " (printed)"))
    assert again == printed, f"print is not a fixed point for {name}"
    generic = print_ir(module, generic=True)
    from_generic = print_ir(parse(generic, name + " (generic)"))
    assert from_generic == printed, f"generic form does not print back identically for {name}"


@pytest.mark.skipif(not TESTDATA, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", TESTDATA, ids=lambda p: p.name)
def test_testdata_roundtrip(path: Path) -> None:
    _roundtrip(path.read_text(), str(path))


@pytest.mark.skipif(not INTERPRET, reason="../shared/conformance/interpret is absent")
@pytest.mark.parametrize("path", INTERPRET, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_interpret_roundtrip(path: Path) -> None:
    for offset, chunk in split_input_file(path.read_text()):
        if chunk.strip() and any(
            l.strip() and not l.strip().startswith("//") for l in chunk.splitlines()
        ):
            _roundtrip(chunk, str(path), offset)
