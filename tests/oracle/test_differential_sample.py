"""A fixed-seed sample of the differential fuzzer (tests/differential): random JAX programs over every
op family and dtype with edge values, run by our interpreter and by XLA CPU.  Every mismatch must be one
of XLA's listed deviations, one of the spec's implementation-defined cases, or a known bug of ours
(xla_deviations.KNOWN_BUGS); and every known bug must still reproduce (so the list is updated when one
is fixed).  Large runs: bench/differential_fuzz.py."""

from __future__ import annotations

import collections
import subprocess
import sys
from pathlib import Path

import pytest

jax = pytest.importorskip("jax")

from tests.differential.generator import FAMILIES, make_case  # noqa: E402
from tests.differential.runner import run_case  # noqa: E402
from tests.differential.xla_deviations import KNOWN_BUGS  # noqa: E402

SEED = 30
CASES = 170
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def outcomes():
    return [run_case(make_case(SEED, i)) for i in range(CASES)]


def test_no_unexplained_mismatch(outcomes) -> None:
    known = {"known:" + e.name for e in KNOWN_BUGS}
    bad = [o for o in outcomes if o.status in ("mismatch", "ours_error") and o.cls == "bug" and o.name not in known]
    assert not bad, "class (iii) mismatches (bugs of ours):\n\n" + "\n\n".join(o.report() for o in bad)


def test_sample_covers_the_families(outcomes) -> None:
    counts = collections.Counter(o.case.family for o in outcomes)
    assert set(counts) == set(FAMILIES), sorted(set(FAMILIES) - set(counts))
    statuses = collections.Counter(o.status for o in outcomes)
    # most programs are valid and run on both sides: the generator stays meaningful
    assert statuses["match"] + statuses["mismatch"] >= 0.9 * CASES, statuses


def test_cases_are_reproducible() -> None:
    a, b = make_case(SEED, 7), make_case(SEED, 7)
    assert a.source == b.source and all(x.tobytes() == y.tobytes() for x, y in zip(a.args, b.args))
    assert make_case(SEED, 8).source != a.source or make_case(SEED, 8).args[0].tobytes() != a.args[0].tobytes()
    ns: dict = {}
    # the printed reproducer runs (it switches x64 on for its process: restore it here, or the
    # flag leaks into whatever test this xdist worker runs next)
    before = jax.config.jax_enable_x64
    try:
        exec(a.reproducer().replace("print(", "(lambda *a: None)("), ns)
    finally:
        jax.config.update("jax_enable_x64", before)
    assert all(x.tobytes() == y.tobytes() for x, y in zip(ns["args"], a.args))


@pytest.mark.parametrize("entry", KNOWN_BUGS, ids=lambda e: e.name)
def test_known_bug_still_reproduces(entry) -> None:
    out = run_case(entry.case())
    assert out.status == ("ours_error" if entry.on_error else "mismatch"), (f"{entry.name} no longer reproduces ({out.status}): remove it from "
                                      f"xla_deviations.KNOWN_BUGS\n{out.report()}")
    assert (out.cls, out.name) == ("bug", "known:" + entry.name), out.report()


def test_bench_smoke(tmp_path) -> None:
    out = tmp_path / "mismatches.txt"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "differential_fuzz.py"), "--cases", "3", "--seed",
                           "1", "--jobs", "1", "--out", str(out)], capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert "3 cases in" in proc.stdout and "per family:" in proc.stdout, proc.stdout
    assert out.exists()
