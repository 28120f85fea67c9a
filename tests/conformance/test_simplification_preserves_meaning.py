"""Every testdata program interprets to the same results after stablehlo-aggressive-simplification
(issue 13: the optimizer must not change meaning).

Each program is read as its RUN line does (`-inline`, CHLO programs lowered first), interpreted,
simplified (verified after the pass), interpreted again: the results must be equal (floats up to a
few epsilons, see simplify_meaning._same) and no check may fail that passed before.  (The op
count may grow: upstream's IotaOpBroadcast makes an iota of rank N a rank-1 iota and a broadcast.)

The full set takes ~40 s on one core; CI runs a deterministic sample (every 4th program by name) and
the full set with STABLEHLO_PY_FULL_SIMPLIFY=1.  bench/simplification_shrink.py runs the full set and
reports how much the pass shrinks the programs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conformance.simplify_meaning import check_program
from tests.conftest import conformance_files

TESTDATA = sorted(conformance_files("testdata"))
SAMPLE_EVERY = 1 if os.environ.get("STABLEHLO_PY_FULL_SIMPLIFY") else 4
PROGRAMS = TESTDATA[::SAMPLE_EVERY]


@pytest.mark.skipif(not PROGRAMS, reason="../shared/conformance/testdata is absent")
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_simplified_program_computes_the_same(path: Path) -> None:
    outcome = check_program(path)
    assert not outcome.problems, "\n".join(outcome.problems)
