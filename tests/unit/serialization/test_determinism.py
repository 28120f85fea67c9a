"""Deterministic bytes: the same module and target give the same artifact in any process, whatever
PYTHONHASHSEED (DESIGN.md §5)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

SCRIPT = r"""
import hashlib, sys
sys.path.insert(0, sys.argv[1])
from stablehlo_py.serialization import serialize_portable_artifact_str
from tests.unit.serialization.helpers import PROGRAM
from tests.golden.programs import program
for text, target in ((PROGRAM, "current"), (PROGRAM, "1.10.0"), (program("1.20.0"), "current"),
                     (program("1.20.0"), "1.20.0")):
    print(hashlib.sha256(serialize_portable_artifact_str(text, target)).hexdigest())
"""


def _in_process() -> list[str]:
    from stablehlo_py.serialization import serialize_portable_artifact_str

    from tests.golden.programs import program
    from tests.unit.serialization.helpers import PROGRAM

    cases = (
        (PROGRAM, "current"),
        (PROGRAM, "1.10.0"),
        (program("1.20.0"), "current"),
        (program("1.20.0"), "1.20.0"),
    )
    return [hashlib.sha256(serialize_portable_artifact_str(t, v)).hexdigest() for t, v in cases]


def test_same_bytes_in_three_processes_with_different_hash_seeds() -> None:
    outputs = []
    for seed in ("0", "1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run(
            [sys.executable, "-c", SCRIPT, str(REPO)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        ).stdout.split()
        outputs.append(out)
    assert len(outputs[0]) == 4
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0] == _in_process()


def test_repeated_writes_are_identical() -> None:
    assert _in_process() == _in_process()
