"""The MPI grid's fast paths give its generic path's bits, and move and hold less: one
``mpirun -n 4`` (2 replicas x 2 partitions) and one ``mpirun -n 8`` (1 x 8) run
tests/mpi/fast_path_cases.py (every case with the fast paths forced and without them, the
reducing, scattering, permuting and broadcasting programs of tests/mpi/collective_cases.py in
both modes, the figures and the checks); each rank's results are compared byte for byte (dtype,
shape, bytes: NaN payloads and -0.0 count) between the two modes and with the in-process run on
the threaded grid."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.mpi import collective_cases as C
from tests.mpi import fast_path_cases as F
from tests.mpi.conftest import Mpi

_CASES = [(g, case) for g in C.GRIDS for case in F.cases()]
_PROGRAMS = [(g, case) for g in C.GRIDS for case in C.cases(g)
             if case.name.startswith(F.PROGRAMS)]
#: the fast path a program's collective takes (by the start of its name)
_KIND = {"all_reduce": "reduce", "reduce_scatter": "reduce", "collective_reduce": "reduce",
         "all_to_all": "all_to_all", "collective_permute": "permute",
         "collective_broadcast": "broadcast", "sdy_": "reduce", "gspmd_": "reduce"}


@pytest.fixture(scope="module")
def launches(mpi: Mpi, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One launch per grid, made when a test first needs it."""

    class Launches(dict):
        def __missing__(self, grid: str) -> Path:
            replicas, partitions = C.GRIDS[grid]
            out = tmp_path_factory.mktemp(f"fast_paths_{grid}")
            start = time.monotonic()
            result = mpi.run(replicas * partitions,
                             ["-m", "tests.mpi.fast_path_cases", str(out), grid], timeout=400)
            seconds = time.monotonic() - start
            assert result.returncode == 0, result.stderr[-4000:]
            times = json.loads((out / "times.json").read_text())
            print(f"\nmpirun -n {replicas * partitions} ({grid}): {seconds:.1f} s; on rank 0: "
                  + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
            self[grid] = out
            return out

    return Launches()


def _size(grid: str) -> int:
    replicas, partitions = C.GRIDS[grid]
    return replicas * partitions


@pytest.mark.parametrize("grid, case", _CASES, ids=[f"{g}-{c.name}" for g, c in _CASES])
def test_each_fast_path_gives_the_generic_bits(
    launches: dict[str, Path], grid: str, case: F.Case
) -> None:
    out = launches[grid]
    runs = {mode: [json.loads((out / mode / case.name / f"rank{k}.json").read_text())
                   for k in range(_size(grid))] for mode in F.MODES}
    threaded = F.threaded(case, grid)
    for k in range(_size(grid)):
        assert runs["always"][k]["result"] == runs["never"][k]["result"], f"rank {k}"
        assert runs["never"][k]["result"] == threaded[k], f"rank {k}"
    # the forced run took the fast path wherever it applies, the other one never
    assert not any("generic" in r["traffic"] for r in runs["always"]) or (
        case.name == "broadcast_roots_differ"
    )
    assert all(set(r["traffic"]) <= {"generic"} for r in runs["never"])
    if case.name == "broadcast_roots_differ":
        assert all(set(r["traffic"]) <= {"generic"} for r in runs["always"])
    took_part = [k for k in range(_size(grid)) if threaded[k] is not None]
    assert took_part and all(runs["always"][k]["traffic"] for k in took_part)


@pytest.mark.parametrize("grid, case", _PROGRAMS, ids=[f"{g}-{c.name}" for g, c in _PROGRAMS])
def test_programs_give_the_same_bits_with_and_without_fast_paths(
    launches: dict[str, Path], grid: str, case: C.Case
) -> None:
    out = launches[grid] / "programs"
    size = _size(grid)
    threaded = C.threaded_outcomes(case, grid)
    for k in range(size):
        fast = C.load_values(out / "always" / case.name / f"rank{k}.npz")
        generic = C.load_values(out / "never" / case.name / f"rank{k}.npz")
        assert fast == generic == C.fingerprint(threaded[k].results), f"rank {k}"
    kind = next(v for prefix, v in _KIND.items() if case.name.startswith(prefix))
    traffic = {mode: [json.loads((out / mode / case.name / f"traffic{k}.json").read_text())
                      for k in range(size)] for mode in F.MODES}
    assert all(set(t) <= {"generic"} for t in traffic["never"])
    if any(traffic["never"]):  # not only groups of one process (no MPI)
        assert any(kind in t for t in traffic["always"])


def _figures(out: Path, size: int) -> list[dict]:
    return [json.loads((out / f"figures{k}.json").read_text()) for k in range(size)]


@pytest.mark.parametrize("grid", list(C.GRIDS))
def test_fast_paths_receive_less(launches: dict[str, Path], grid: str) -> None:
    """1 MiB per rank over the whole world of n ranks: the generic path gives every rank every
    other rank's MiB ((n-1) MiB; a permute's pair both members' values: 2 MiB), the fast paths
    only what the rank needs."""
    n = _size(grid)
    mib = F.MIB
    figures = _figures(launches[grid], n)
    rows = []
    for k, f in enumerate(figures):
        fast = {name: v["received"] for name, v in f["always"]["moved_1MiB"].items()}
        generic = {name: v["received"] for name, v in f["never"]["moved_1MiB"].items()}
        part = (n - 1) * mib // n  # the others' shares of the elements this rank reduces
        assert fast == {
            "all_reduce": 2 * part, "reduce_scatter": part,
            "collective_reduce": 2 * part if k == 0 else part, "all_to_all": part,
            "broadcast": 0 if k == 0 else mib, "permute_ring": mib,
        }, f"rank {k}"
        assert generic == {
            "all_reduce": (n - 1) * mib, "reduce_scatter": (n - 1) * mib,
            "collective_reduce": (n - 1) * mib, "all_to_all": (n - 1) * mib,
            "broadcast": (n - 1) * mib, "permute_ring": 2 * mib,
        }, f"rank {k}"
        rows.append((k, generic, fast))
    print(f"\nbytes received per rank, 1 MiB per rank, {n} ranks (generic -> fast), rank 0/1:")
    for k, generic, fast in rows[:2]:
        print(f"  rank {k}: " + ", ".join(
            f"{name} {generic[name] / mib:.3g} -> {fast[name] / mib:.3g} MiB" for name in fast
        ))


@pytest.mark.parametrize("grid", list(C.GRIDS))
def test_the_partitioned_reduce_holds_about_its_operand(
    launches: dict[str, Path], grid: str
) -> None:
    """Peak extra allocation (tracemalloc) of an all_reduce of a 4 MiB f32 operand: the fast path
    holds what it receives (the operand's size), then the result, plus its share of the result,
    a block of stacked contributions and the tree's temporaries (< 2.5 blocks); the generic path
    all n contributions, their stack and the tree's temporaries (~3n x the operand).  Both give
    the same bits."""
    n = _size(grid)
    figures = _figures(launches[grid], n)
    for k, f in enumerate(figures):
        generic = f["never"]["all_reduce_4MiB"][str(F.DEFAULT_BLOCK)]
        operand = generic["operand"]
        assert generic["peak_extra"] >= 2 * n * operand, k
        for block, fast in f["always"]["all_reduce_4MiB"].items():
            assert fast["result"] == generic["result"], (k, block)
            bound = operand + operand // n + 2.5 * int(block)
            assert fast["peak_extra"] <= bound, (k, block, fast["peak_extra"] / operand)
    f = figures[0]
    generic = f["never"]["all_reduce_4MiB"][str(F.DEFAULT_BLOCK)]
    print(f"\nall_reduce of 4 MiB f32 on {n} ranks, rank 0: peak extra allocation / operand, "
          f"seconds: generic {generic['peak_extra'] / generic['operand']:.2f}, "
          f"{generic['seconds']:.3f} s")
    for block, fast in f["always"]["all_reduce_4MiB"].items():
        print(f"  fast, combine blocks of {int(block) >> 20} MiB: "
              f"{fast['peak_extra'] / fast['operand']:.2f}, {fast['seconds']:.3f} s")


@pytest.mark.parametrize("grid", list(C.GRIDS))
def test_the_fast_paths_errors_on_real_ranks(launches: dict[str, Path], grid: str) -> None:
    """An unknown mode is an error.  Members at different exchanges of one group: every one gets
    an error naming what each is at.  A permute's target whose source comes late gets the threaded grid's timeout message
    after the 0.5 s timeout (the source, later, returns); a target whose source has not come
    when the abort flag is set (0.3 s) gives up."""
    n = _size(grid)
    _, partitions = C.GRIDS[grid]
    world = [tuple(divmod(k, partitions)) for k in range(n)]
    at = ", ".join(f"process {p} at {'reduce' if k % 2 == 0 else 'gather'}"
                   for k, p in enumerate(world))
    checks = [json.loads((launches[grid] / f"checks{k}.json").read_text()) for k in range(n)]
    for k, c in enumerate(checks):
        assert c["bad_mode"] == [
            "InterpreterError",
            "error: unknown fast-path mode 'fast' for the MPI process grid: one of auto, always, "
            "never",
        ], f"rank {k}"
        assert c["mixed"] == [
            "InterpreterError",
            f"error: processes {world} met on channel 30 at different exchanges ({at}): every "
            "process of a group must reach the same collective op",
        ], f"rank {k}"
    assert checks[1]["late"] == [
        "InterpreterError",
        f"error: collective rendezvous of processes {world[:2]} timed out: not every process of "
        "the group reached the same collective op",
    ]
    assert 0.45 <= checks[1]["late_wait"] < 5
    assert checks[0]["late"] is None and checks[0]["late_wait"] < 5  # a source receives nothing
    assert checks[1]["aborted"] == [
        "WaitAborted",
        f"error: collective rendezvous of processes {[world[3], world[1]]} was abandoned: another "
        "process of the run failed",
    ]
    assert 0.25 <= checks[1]["aborted_wait"] < 5
    assert checks[3]["aborted"] is None
