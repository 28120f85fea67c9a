"""The collectives on MPI (`interpreter/mpi/grid.py`'s `MpiGrid`) give the threaded grid's bits:
one ``mpirun -n 4`` (2 replicas x 2 partitions) and one ``mpirun -n 8`` (1 x 8) run every case of
tests/mpi/collective_cases.py, one process per rank; each rank's results, and every rank's prints,
check failures and outfeed gathered on rank 0, must equal byte for byte (dtype, shape, bytes: NaN
payloads and -0.0 count) those of the same case run in-process on the threaded `ProcessGrid`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from tests.mpi import collective_cases as C
from tests.mpi.conftest import Mpi

_CASES = [(g, case) for g in C.GRIDS for case in C.cases(g)]


@pytest.fixture(scope="module")
def launches(mpi: Mpi, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One launch per grid, made when a test first needs it."""

    class Launches(dict):
        def __missing__(self, grid: str) -> Path:
            replicas, partitions = C.GRIDS[grid]
            out = tmp_path_factory.mktemp(f"collectives_{grid}")
            start = time.monotonic()
            result = mpi.run(replicas * partitions,
                             ["-m", "tests.mpi.collective_cases", str(out), grid], timeout=300)
            seconds = time.monotonic() - start
            assert result.returncode == 0, result.stderr[-4000:]
            times = json.loads((out / "times.json").read_text())
            print(f"\nmpirun -n {replicas * partitions} ({grid}): {seconds:.1f} s, cases "
                  f"{times['all cases']:.2f} s on rank 0")
            self[grid] = out
            return out

    return Launches()


@pytest.mark.parametrize(
    "grid, case", _CASES, ids=[f"{g}-{case.name}" for g, case in _CASES]
)
def test_each_rank_has_the_threaded_bits(launches: dict[str, Path], grid: str, case: C.Case):
    out = launches[grid] / case.name
    replicas, partitions = C.GRIDS[grid]
    size = replicas * partitions
    got = [C.load_values(out / f"rank{k}.npz") for k in range(size)]
    if not case.threaded:
        assert case.expect is not None
        want = [C.fingerprint(case.expect(case.args(k))) for k in range(size)]
        assert got == want
        return
    threaded = C.threaded_outcomes(case, grid)
    for k in range(size):
        assert got[k] == C.fingerprint(threaded[k].results), f"rank {k}"
    items = json.loads((out / "items.json").read_text())
    assert [it["rank"] for it in items] == list(range(size))
    assert [tuple(it["process"]) for it in items] == [divmod(k, partitions) for k in range(size)]
    for k, it in enumerate(items):
        assert it["prints"] == threaded[k].prints, f"rank {k}"
        assert it["failures"] == threaded[k].failures, f"rank {k}"
        assert it["outfeed"] == [C.fingerprint(v) for v in threaded[k].outfeed], f"rank {k}"


@pytest.mark.parametrize("grid", list(C.GRIDS))
def test_feeds_prints_and_checks_reach_rank_0(launches: dict[str, Path], grid: str) -> None:
    """The items case is not vacuous: every rank took one infeed entry from the broker, wrote two
    outfeed entries and printed once, and every partition but 1 failed its check."""
    out = launches[grid] / "infeed_outfeed_print_check"
    _, partitions = C.GRIDS[grid]
    items = json.loads((out / "items.json").read_text())
    assert all(len(it["outfeed"]) == 2 and len(it["prints"]) == 1 for it in items)
    failing = [it["rank"] for it in items if it["failures"]]
    assert failing == [k for k in range(len(items)) if k % partitions != 1]
    for k in range(len(items)):
        assert json.loads((out / f"broker{k}.json").read_text()) == [["infeed"]]
    sent = launches[grid] / "send_recv_through_the_broker"
    for k in range(len(items)):
        assert json.loads((sent / f"broker{k}.json").read_text()) == [["send", 7, 1], ["recv", 7]]


@pytest.mark.parametrize("grid", list(C.GRIDS))
def test_grid_errors_on_real_ranks(launches: dict[str, Path], grid: str) -> None:
    """Without a broker, send/recv/infeed say what is missing; a member that comes too late gets
    the threaded grid's timeout message, as do the members that waited for it (after the 0.5 s
    timeout); a member that never comes is given up on when the abort flag is set (0.3 s)."""
    out = launches[grid]
    replicas, partitions = C.GRIDS[grid]
    checks = [json.loads((out / f"checks{k}.json").read_text())
              for k in range(replicas * partitions)]
    for c in checks:
        for op in ("send", "recv", "infeed"):
            kind, text = c[op]
            assert kind == "NotSupportedError"
            assert text.startswith(f"error: stablehlo.{op} under MPI needs rank 0's broker")
    late = [tuple(divmod(k, partitions)) for k in (0, 1, 2)]
    for c in checks[:3]:
        assert c["late"] == (
            f"error: collective rendezvous of processes {late} timed out: not every process of "
            "the group reached the same collective op"
        )
        assert 0.45 <= c["late_wait"] < 5
    gone = [tuple(divmod(k, partitions)) for k in (0, 1, 3)]
    for c in checks[:2]:
        assert c["aborted"] == [
            "WaitAborted",
            f"error: collective rendezvous of processes {gone} was abandoned: another process of "
            "the run failed",
        ]
        assert 0.25 <= c["aborted_wait"] < 5


def test_the_cases_see_the_order_of_the_group() -> None:
    """The all_reduce body a - 2*b tells group orders apart: the same case with its process group
    reversed gives other bits (so a grid that handed contributions over in another order would
    fail the comparison above)."""
    case = next(c for c in C.cases("1x8") if c.name == "all_reduce_f32_sub2")
    order = C._scramble(8)
    text = case.text.replace(str([order]), str([order[::-1]]))
    assert text != case.text
    reversed_case = C.Case(case.name, text, case.inputs)
    a = C.threaded_outcomes(case, "1x8")[0].results[0]
    b = C.threaded_outcomes(reversed_case, "1x8")[0].results[0]
    assert a.shape == b.shape and a.tobytes() != b.tobytes()
    assert np.isnan(a).any() and (np.isfinite(a) & (a != 0)).any()
