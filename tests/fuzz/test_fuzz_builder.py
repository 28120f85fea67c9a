"""CI fuzzing of the builder's op functions (tests/fuzz/builder_fuzzing.py): every op function of
``stablehlo`` and ``chlo`` called many times with generated operands, attributes, regions and
result types; each call either builds an op (the module then verifies and round-trips through
text) or raises a BuildError naming the op that leaves nothing behind.  Any other exception is a
finding.  ``STABLEHLO_PY_BUILDER_FUZZ_CASES`` raises the count (bench/fuzz_builder.py runs more
seeds).  The regression test of each finding fixed is in tests/unit/builder/test_fuzz_findings.py.
"""

from __future__ import annotations

import os

from tests.fuzz import builder_fuzzing

CASES = int(os.environ.get("STABLEHLO_PY_BUILDER_FUZZ_CASES", "12000"))


def test_op_functions_raise_only_build_errors_and_leave_nothing_behind() -> None:
    result = builder_fuzzing.run(CASES, seed=20261130)
    assert result.cases == CASES
    assert not result.findings, builder_fuzzing.report(result)
    fns = builder_fuzzing.op_functions()
    # every op function was called, often
    assert set(result.calls) == {f.spec.name for f in fns}
    assert min(result.calls.values()) >= CASES // len(fns) // 3
    # every family has calls that build and calls that are refused
    accepted, refused = result.by_family(result.accepted), result.by_family(result.refused)
    for fam in builder_fuzzing.FAMILIES:
        assert accepted[fam] > 0, fam
        assert refused[fam] > 0, fam
    # the seeded ops get past their first check
    for op in builder_fuzzing.SEEDS:
        assert result.accepted[op] > 0, op
    assert sum(result.accepted.values()) > CASES // 10
    assert set(result.mutations) == set(builder_fuzzing.MUTATIONS)
