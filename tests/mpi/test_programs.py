"""Issue 29's first done-when (plan §5.1): every sharded JAX program of tests/data/mpi (jax.jit
with NamedSharding over 8 CPU devices; shard_map with psum, pmax, all_gather, psum_scatter,
ppermute, all_to_all, axis_index; nested and partial manual; a pmap-style program; the GSPMD
forms; async collectives) run by ``mpirun -n 8`` through ``interpreter.run(..., engine="mpi",
gather="root")`` gives the bytes of the in-process run (the threaded engine) and, within
``backends.tolerance`` (integers exactly), what XLA computed (the committed outputs).

One launch runs every program (tests/mpi/drive_programs.py; an 8-rank start costs seconds): the
module's fixture runs the programs in-process, then that launch.  The same launch runs each
program whose shard plan holds tiles a second time with arguments that note what is read of them
and ``gather="none"``, which shows the plan at work under MPI: each rank reads exactly its tile of
a tile-fed argument (and all of any other), and keeps its tile of a tile-kept result (handed back
as a ``Tile`` at the plan's index, not gathered).

The launch is loopback only: the harness (tests/mpi/conftest.py) starts it, as root where
``unshare -n`` works, in a network namespace whose one interface is ``lo``, else with Open MPI's
out-of-band channel on 127.0.0.0/8; between the ranks only shared memory (``btl=self,vader`` or
``self,sm``).  :func:`test_the_launch_is_loopback_only` checks what rank 0 saw."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.custom_calls.spmd import needs_grid
from stablehlo_py.interpreter.shard_plan import ShardPlan, shard_plan
from stablehlo_py.ir import parse
from tests.mpi import drive_programs
from tests.mpi.collective_cases import fingerprint
from tests.oracle.consumers import assert_close
from tests.mpi.conftest import find_launcher, loopback_namespace, python_command

RANKS = 8
PROGRAMS = drive_programs.PROGRAMS
#: seconds the one launch may take (17 programs, most twice, on 8 ranks sharing 2 cores)
LAUNCH_TIMEOUT = 300.0

#: the done-when's list: what each item is, a program that has it, and text that program holds
#: (at least that many times)
DONE_WHEN = [
    ("jax.jit with NamedSharding", "jit_matmul", "sdy.sharding = #sdy.sharding<@mesh", 2),
    ("psum", "sm_psum", '"stablehlo.all_reduce"', 1),
    ("pmax", "sm_pmax", "stablehlo.maximum", 1),
    ("all_gather", "sm_all_gather", '"stablehlo.all_gather"', 1),
    ("psum_scatter", "sm_psum_scatter", '"stablehlo.reduce_scatter"', 1),
    ("ppermute", "sm_ppermute", '"stablehlo.collective_permute"', 2),
    ("all_to_all", "sm_all_to_all", '"stablehlo.all_to_all"', 1),
    ("axis_index", "sm_axis_index", "stablehlo.partition_id", 1),
    ("nested manual", "sm_nested", "sdy.manual_computation", 2),
    ("partial manual", "sm_partial", 'manual_axes={"x"}', 1),
    ("pmap-style", "pmap", "sdy.manual_computation", 1),
]


@dataclass
class Outcome:
    """The in-process results per program, and the launch: where it wrote, how it ended, how
    long it took (seconds, wall)."""

    inprocess: dict[str, list[np.ndarray]]
    inprocess_seconds: float
    out: Path
    done: subprocess.CompletedProcess[str]
    launch_seconds: float

    def said(self) -> str:
        return (f"mpirun exit {self.done.returncode}\nstdout (end): {self.done.stdout[-2000:]}\n"
                f"stderr (end): {self.done.stderr[-4000:]}")


@pytest.fixture(scope="module")
def outcome(mpi, tmp_path_factory) -> Outcome:
    start = time.perf_counter()
    inprocess = {}
    for name in PROGRAMS:
        text, args, _ = drive_programs.program(name)
        inprocess[name] = [np.asarray(r) for r in run(parse(text), *args)]
    inprocess_seconds = time.perf_counter() - start
    out = tmp_path_factory.mktemp("programs")
    start = time.perf_counter()
    done = mpi.run(RANKS, ["-m", "tests.mpi.drive_programs", str(out)], timeout=LAUNCH_TIMEOUT)
    launch_seconds = time.perf_counter() - start
    print(f"\nin-process: {len(PROGRAMS)} programs in {inprocess_seconds:.1f} s; mpirun -n "
          f"{RANKS}: one launch in {launch_seconds:.1f} s")
    return Outcome(inprocess, inprocess_seconds, out, done, launch_seconds)


def mpi_results(outcome: Outcome, name: str) -> list[np.ndarray]:
    """What rank 0 wrote for `name` (the test fails with the rank's error, or the launch's
    output, when it wrote none)."""
    error = outcome.out / f"{name}.error.txt"
    assert not error.exists(), f"{name} failed under MPI:\n{error.read_text()}"
    path = outcome.out / f"{name}.npz"
    assert path.exists(), f"no results of {name} from the launch\n{outcome.said()}"
    with np.load(path) as z:
        return [z[f"out{k}"] for k in range(len(z.files))]


def test_the_launch_ran_every_program(outcome: Outcome) -> None:
    assert outcome.done.returncode == 0, outcome.said()
    info = json.loads((outcome.out / "driver.json").read_text())
    assert info["size"] == RANKS
    assert list(info["seconds"]) == PROGRAMS
    assert len(PROGRAMS) >= 10
    # the global-view programs say, once each, that they run on rank 0 alone
    globals_ = [r["name"] for r in drive_programs.MANIFEST["programs"] if r["form"] == "global"]
    assert outcome.done.stderr.count("runs in global view on rank 0") == len(globals_) >= 1


@pytest.mark.parametrize(("item", "name", "needle", "count"), DONE_WHEN,
                         ids=[d[0] for d in DONE_WHEN])
def test_the_programs_cover_the_done_when(item: str, name: str, needle: str, count: int) -> None:
    text, _, _ = drive_programs.program(name)
    assert text.count(needle) >= count, f"{item}: {name} has {needle} fewer than {count} times"
    assert name in PROGRAMS


def _bytes(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8).tobytes()


@pytest.mark.parametrize("name", PROGRAMS)
def test_results_are_the_in_process_bytes(outcome: Outcome, name: str) -> None:
    """dtype, shape and every byte (NaN payloads and -0.0 count) as the threaded engine's."""
    got, want = mpi_results(outcome, name), outcome.inprocess[name]
    assert len(got) == len(want) >= 1
    for k, (g, w) in enumerate(zip(got, want)):
        assert (g.dtype, g.shape) == (w.dtype, w.shape), f"{name}: result #{k}"
        assert _bytes(g) == _bytes(w), f"{name}: result #{k} differs from the in-process run"


@pytest.mark.parametrize("name", PROGRAMS)
def test_results_are_within_tolerance_of_xla(outcome: Outcome, name: str) -> None:
    got = mpi_results(outcome, name)
    _, _, xla = drive_programs.program(name)
    assert_close(got, xla, name)


# ------------------------------------------------------------------------------ the shard plan
def _plan(name: str) -> ShardPlan | None:
    """The program's shard plan in-process, when it has per-device regions (else None)."""
    text, _, _ = drive_programs.program(name)
    module = parse(text)
    return shard_plan(module) if needs_grid(module) else None


#: the programs with per-device regions (all but the global-view ones)
TILED = [r["name"] for r in drive_programs.MANIFEST["programs"] if r["form"] != "global"]


@pytest.mark.parametrize("name", TILED)
def test_the_shard_plan_is_used_under_mpi(outcome: Outcome, name: str) -> None:
    """Each rank read its tile of each tile-fed argument and nothing else of it (all of a whole
    one, once), and was handed its tile of each tile-kept result (the in-process result's part
    there, byte for byte); every rank's run saw the in-process plan."""
    plan = _plan(name)
    assert drive_programs.uses_tiles(plan), f"{name}: no tile in its plan"
    assert plan is not None
    error = outcome.out / f"{name}.plan_error.txt"
    assert not error.exists(), f"{name} failed under MPI:\n{error.read_text()}"
    want = outcome.inprocess[name]
    for rank in range(RANKS):
        path = outcome.out / f"{name}.plan.rank{rank}.json"
        assert path.exists(), f"no plan record of {name} from rank {rank}\n{outcome.said()}"
        got = json.loads(path.read_text())
        replica, partition = divmod(rank, plan.num_partitions)
        assert (got["replica"], got["partition"]) == (replica, partition)
        for k, d in enumerate(plan.args):
            index = d.index(replica, partition)
            read = "whole" if index is None else drive_programs.bounds(index)
            assert got["reads"][k] == [read], f"{name}: rank {rank}, arg {k} ({d.line()})"
        assert len(got["handed"]) == len(plan.results) == len(want)
        for i, d in enumerate(plan.results):
            held = got["handed"][i]
            if d.tiling is None:
                assert held == {"kind": "array", "fp": fingerprint([want[i]])[0]}, (name, rank, i)
                continue
            index = d.index(replica, partition)
            assert held["kind"] == "Tile", f"{name}: rank {rank}, result {i} ({d.line()})"
            assert held["bounds"] == drive_programs.bounds(index)
            assert held["global"] == list(want[i].shape)
            assert held["fp"] == fingerprint([want[i][index]])[0], (name, rank, i)
        assert got["report"] == plan.report(), f"{name}: rank {rank}"


def test_sm_psum_is_tile_fed_and_tile_kept_under_mpi(outcome: Outcome) -> None:
    """The plan's report of rank 0's MPI run of sm_psum: both arguments fed as tiles, the result
    kept (each rank reads a [4, 2] and a [2, 8] tile: 1/8 of each argument)."""
    got = json.loads((outcome.out / "sm_psum.plan.rank0.json").read_text())
    lines = got["report"].splitlines()
    assert lines[0] == "shard plan of @main (1 replica x 8 partitions):"
    assert lines[1].startswith("arg 0: tile [4, 2] of [4, 16] by sdy.manual_computation")
    assert lines[2].startswith("arg 1: tile [2, 8] of [16, 8] by sdy.manual_computation")
    assert lines[3].startswith("result 0: tile [4, 8] of [4, 8]")
    for rank in range(RANKS):
        got = json.loads((outcome.out / f"sm_psum.plan.rank{rank}.json").read_text())
        assert got["reads"] == [[[[0, 4], [2 * rank, 2 * rank + 2]]],
                                [[[2 * rank, 2 * rank + 2], [0, 8]]]]
        assert [h["kind"] for h in got["handed"]] == ["Tile"]


def test_the_launch_is_loopback_only(outcome: Outcome) -> None:
    """Rank 0 saw only ``lo`` (the harness's network namespace), or, where there is none, Open
    MPI 4's out-of-band channel was kept on 127.0.0.0/8; the ranks talk by shared memory only."""
    info = json.loads((outcome.out / "driver.json").read_text())
    launcher = find_launcher()
    assert launcher is not None
    command = python_command(RANKS, ["-m", "tests.mpi.drive_programs"], launcher)
    if loopback_namespace():
        assert command[:2] == ["unshare", "-n"]
        assert info["interfaces"] == ["lo"]
    elif launcher.family == "openmpi" and launcher.major < 5:
        assert info["env"].get("OMPI_MCA_oob_tcp_if_include") == "127.0.0.0/8"
    elif launcher.family == "mpich":
        assert info["env"].get("HYDRA_IFACE") == "lo"
    else:
        pytest.skip("Open MPI 5 outside a network namespace uses the machine's interfaces")
    if launcher.family == "openmpi":
        shm = "sm" if launcher.major >= 5 else "vader"
        assert info["env"].get("OMPI_MCA_btl") == f"self,{shm}"
