"""Every registered `stablehlo.*` and `chlo.*` op has at least one negative lit test (an `expected-error` chunk of
tests/filecheck/verify_errors*.mlir pointing at a line with that op), except the ops listed in
GAPS, whose errors are not yet worded as upstream's.  A GAPS entry that gains a chunk fails the test,
so the list only shrinks."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from stablehlo_py.ir.dialects import OP_MODULES

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck"

GAPS: dict[str, str] = {
    "chlo.minimum_broadcast_shapes": "not an op of upstream's CHLO 1.20 (kept for older programs); "
    "its messages are ours",
}
"""op -> why it has no upstream-worded negative lit test yet (reported as a gap)."""


def registered_ops() -> set[str]:
    """Registered StableHLO ops by short name, CHLO ops as `chlo.<op>`."""
    names = set()
    for module in OP_MODULES:
        if module.endswith("vhlo"):
            continue
        for op in getattr(importlib.import_module(module), "OPS", ()) or ():
            if op.name.startswith("stablehlo."):
                names.add(op.name.removeprefix("stablehlo."))
            elif op.name.startswith("chlo."):
                names.add(op.name)
    return names


_DESIGNATOR = re.compile(r"expected-error *@([+-]\d+) *\{\{")
_OP_ON_LINE = re.compile(r"\b(stablehlo\.|chlo\.)([a-z0-9_\-]+)")


def covered_ops() -> set[str]:
    """The ops an `expected-error @+N` / `@-N` designator points at (the first `stablehlo.<op>`
    on the target line): upstream words some errors with the op's name and some without."""
    found = set()
    for path in FILECHECK.glob("verify_errors*.mlir"):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            m = _DESIGNATOR.search(line)
            if m is None:
                continue
            target = i + int(m.group(1))
            if 0 <= target < len(lines):
                op = _OP_ON_LINE.search(lines[target])
                if op:
                    found.add(op.group(2) if op.group(1) == "stablehlo." else op.group(0))
    return found


def test_every_op_has_a_negative_lit_test() -> None:
    missing = sorted(registered_ops() - covered_ops() - set(GAPS))
    assert not missing, (
        f"ops without an expected-error chunk in tests/filecheck/verify_errors*.mlir: {missing}"
    )


def test_gaps_are_still_gaps() -> None:
    assert not (set(GAPS) - registered_ops()), "GAPS lists ops that are not registered"
    closed = sorted(set(GAPS) & covered_ops())
    assert not closed, f"these ops now have a negative lit test; remove them from GAPS: {closed}"


def test_negative_lit_files_have_the_upstream_run_line() -> None:
    files = sorted(FILECHECK.glob("verify_errors_*.mlir"))
    assert len(files) >= 3
    for path in files:
        first = path.read_text().splitlines()[0]
        assert first == "// RUN: stablehlo-opt --verify-diagnostics --split-input-file %s", (
            path.name
        )
