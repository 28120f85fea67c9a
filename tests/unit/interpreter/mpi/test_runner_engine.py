"""The MPI engine's pieces that need no MPI (interpreter/mpi/runner.py, run(engine=),
stablehlo-translate --engine): engine and option errors, mpi4py missing (a subprocess with a
meta-path blocker), the agreement before a run on a fake communicator, a rank's arguments under a
shard plan, the notices and the report.  No MPI starts in the test process."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from stablehlo_py.cli.translate import main
from stablehlo_py.errors import InterpreterError, StableHLOError
from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.evaluator import Evaluator
from stablehlo_py.interpreter import mpi as mpi_package
from stablehlo_py.interpreter.mpi import INSTALL_HINT, runner
from stablehlo_py.interpreter.mpi.control import RankFailed, RankStopped
from stablehlo_py.interpreter.mpi.messages import Failure
from stablehlo_py.interpreter.mpi.runner import (
    RankRun,
    before_run,
    check_arguments,
    global_view_notice,
    local_arguments,
    quiet,
    report_text,
)
from stablehlo_py.interpreter.mpi.world import Processes
from stablehlo_py.interpreter.shard_plan import shard_plan
from stablehlo_py.interpreter.tiles import Tile
from stablehlo_py.ir import parse
from tests.unit.interpreter.mpi.test_require_mpi import BLOCKER

DATA = Path(__file__).parents[3] / "data" / "mpi"
ADD = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}"""


def _sm_psum() -> tuple[object, list[np.ndarray]]:
    module = parse(gzip.decompress((DATA / "sm_psum.mlir.gz").read_bytes()).decode())
    with np.load(DATA / "sm_psum.npz") as z:
        return module, [z["arg0"], z["arg1"]]


# ------------------------------------------------------------------------------ run(engine=)
def test_run_refuses_an_unknown_engine() -> None:
    with pytest.raises(InterpreterError) as info:
        run(ADD, np.ones(2, np.float32), engine="bogus")
    assert info.value.message == "engine='bogus' is not an interpreter engine"
    assert "engine='threads'" in info.value.note and "engine='mpi'" in info.value.note


def _no_mpi(*args, **kwargs):
    raise AssertionError("MPI was asked for")


def test_threads_take_no_gather_and_mpi_no_unknown_gather(monkeypatch) -> None:
    with pytest.raises(InterpreterError, match="gather='all' goes with engine='mpi'"):
        run(ADD, np.ones(2, np.float32), gather="all")
    monkeypatch.setattr(runner, "require_mpi", _no_mpi)  # said before MPI is touched
    with pytest.raises(InterpreterError, match="gather='everyone' is not a way") as info:
        run(ADD, np.ones(2, np.float32), engine="mpi", gather="everyone")
    assert "'root'" in info.value.note and "'none'" in info.value.note


def test_engine_mpi_without_mpi4py(tmp_path: Path) -> None:
    """--engine=mpi and run(engine="mpi") with mpi4py not importable: the install message, exit
    1, no traceback."""
    (tmp_path / "p.mlir").write_text(ADD)
    code = BLOCKER.format(raise_runtime=False) + textwrap.dedent(f"""
        from stablehlo_py.cli.translate import main
        from stablehlo_py.interpreter import run
        from stablehlo_py.errors import StableHLOError
        import numpy as np
        argv = ["--interpret", "--engine=mpi", "p.mlir", "--args=[dense<1.0> : tensor<2xf32>]"]
        print("EXIT", main(argv))
        try:
            run({ADD!r}, np.ones(2, np.float32), engine="mpi")
        except StableHLOError as e:
            print("API", type(e).__name__, e.message)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert "EXIT 1" in done.stdout, done.stdout + done.stderr
    assert done.stderr == (
        "error: --engine=mpi needs mpi4py and an MPI library; mpi4py cannot be imported\n"
        f"note: {INSTALL_HINT}\n"
    )
    assert ("API MpiUnavailable the MPI engine needs mpi4py and an MPI library; mpi4py cannot "
            "be imported") in done.stdout


# ------------------------------------------------------------------------------------ the CLI
@pytest.mark.parametrize("flags", [["--mpi-report"], ["--mpi-timeout=5"]])
def test_mpi_options_need_the_mpi_engine(tmp_path: Path, capsys, flags: list[str]) -> None:
    (tmp_path / "p.mlir").write_text(ADD)
    code = main(["--interpret", str(tmp_path / "p.mlir"), "--args=[dense<1.0> : tensor<2xf32>]",
                 *flags])
    assert code == 1
    assert capsys.readouterr().err == (
        "error: --mpi-timeout and --mpi-report go with --interpret --engine=mpi\n"
    )


@pytest.mark.parametrize("flag", ["--trace", "--compare-to=t.npz", "--trace-output=t.npz"])
def test_tracing_stays_with_the_threaded_engine(
    tmp_path: Path, capsys, monkeypatch, flag: str
) -> None:
    monkeypatch.setattr(mpi_package, "require_mpi", _no_mpi)  # said before MPI is touched
    (tmp_path / "p.mlir").write_text(ADD)
    code = main(["--interpret", "--engine=mpi", str(tmp_path / "p.mlir"), flag])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: {flag.split('=')[0]} observes a run in one process: use "
                          "--engine=threads"), err


def test_two_tracing_options_are_named_together(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(mpi_package, "require_mpi", _no_mpi)
    (tmp_path / "p.mlir").write_text(ADD)
    code = main(["--interpret", "--engine=mpi", str(tmp_path / "p.mlir"), "--trace",
                 "--trace-output=t.npz"])
    assert code == 1
    err = capsys.readouterr().err
    assert " observe a run in one process: use --engine=threads" in err, err
    assert "--trace" in err and "--trace-output" in err, err


@pytest.mark.parametrize("mode", ["--serialize", "--deserialize", "--check-compat"])
def test_the_mpi_engine_goes_with_interpret_only(tmp_path: Path, capsys, mode: str) -> None:
    (tmp_path / "p.mlir").write_text(ADD)
    code = main([mode, "--engine=mpi", str(tmp_path / "p.mlir")])
    assert code == 1
    assert capsys.readouterr().err == (
        f"error: --engine=mpi runs programs: it goes with --interpret, not {mode} (serializing "
        "and converting need no MPI: run them without mpirun)\n"
    )


def test_the_mpi_engine_reads_no_stdin(monkeypatch, capsys) -> None:
    monkeypatch.setattr(mpi_package, "require_mpi", _no_mpi)
    assert main(["--interpret", "--engine=mpi", "-"]) == 1
    assert capsys.readouterr().err == (
        "error: --engine=mpi reads the program on every rank, and mpirun gives stdin to rank 0 "
        "only: name the program's file (one every rank can open)\n"
    )


def test_unknown_engine_name_in_the_cli(tmp_path: Path, capsys) -> None:
    (tmp_path / "p.mlir").write_text(ADD)
    assert main(["--interpret", "--engine=gpu", str(tmp_path / "p.mlir")]) == 1
    err = capsys.readouterr().err
    assert "'gpu' is not one of 'threads', 'mpi'" in err and err.count("\n") == 1


# ----------------------------------------------------------------------------- before the run
class _Request:
    def Test(self) -> bool:  # noqa: N802
        return True


class _Comm:
    """COMM_WORLD of `size` ranks seen from `rank`: the other ranks' lowest failure is `others`
    (size: none failed)."""

    def __init__(self, rank: int, size: int, others: int) -> None:
        self.rank, self.size, self.others = rank, size, others

    def Get_rank(self) -> int:  # noqa: N802
        return self.rank

    def Get_size(self) -> int:  # noqa: N802
        return self.size

    def Iallreduce(self, send, recv, op):  # noqa: N802
        assert op == "min"
        recv[0][0] = min(int(send[0][0]), self.others)
        return _Request()


FAKE_MPI = SimpleNamespace(INT64_T="int64", MIN="min", COMM_WORLD=None)


def _agree(rank: int, others: int, fails: bool):
    def step() -> str:
        if fails:
            raise InterpreterError("cannot read 'x.npy'", note="check the path")
        return "module"

    return before_run(step, comm=_Comm(rank, 8, others), mpi=FAKE_MPI, timeout=5)


def test_before_run_gives_the_value_when_no_rank_fails() -> None:
    assert _agree(3, 8, fails=False) == "module"


def test_before_run_the_lowest_failing_rank_says_it() -> None:
    with pytest.raises(InterpreterError) as info:
        _agree(0, 8, fails=True)
    assert str(info.value) == "error: cannot read 'x.npy'\nnote: check the path"
    assert not quiet(info.value)
    with pytest.raises(InterpreterError) as info:
        _agree(2, 5, fails=True)
    assert str(info.value) == "error: rank 2: cannot read 'x.npy'\nnote: check the path"
    assert not quiet(info.value)


def test_before_run_other_ranks_stay_quiet() -> None:
    with pytest.raises(InterpreterError) as info:  # failed too, after a lower rank
        _agree(4, 1, fails=True)
    assert quiet(info.value) and info.value.message == "cannot read 'x.npy'"
    with pytest.raises(RankStopped) as stopped:  # did not fail
        _agree(0, 1, fails=False)
    assert quiet(stopped.value) and stopped.value.failed_rank == 1


def test_quiet() -> None:
    assert quiet(RankStopped(3))
    failure = Failure(3, (0, 3), "InterpreterError", "boom")
    assert quiet(RankFailed([failure], 8, [], "error: rank 3 ...\n"))
    assert not quiet(InterpreterError("boom"))


# -------------------------------------------------------------------------------- arguments
def test_local_arguments_are_the_tiles_as_views(tmp_path: Path) -> None:
    module, (a, b) = _sm_psum()
    plan = shard_plan(module, "main")
    np.save(tmp_path / "a.npy", a)
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    ev = Evaluator(module)
    for partition in (0, 5):
        got = local_arguments(ev, "main", [mapped, b], plan, 0, partition)
        for k, (given, value) in enumerate(zip((a, b), got)):
            index = plan.args[k].index(0, partition)
            assert value.tobytes() == given[index].tobytes()
        assert np.shares_memory(got[0], mapped)  # sliced before reading: a view of the map


def test_local_arguments_take_own_tiles_and_convert() -> None:
    module, (a, b) = _sm_psum()
    plan = shard_plan(module, "main")
    ev = Evaluator(module)
    index = plan.args[0].index(0, 3)
    tile = Tile(a[index], index, a.shape)
    got = local_arguments(ev, "main", [tile, b.astype(np.float64)], plan, 0, 3)
    assert got[0].tobytes() == a[index].tobytes()
    assert got[1].dtype == np.float32
    assert got[1].tobytes() == b[plan.args[1].index(0, 3)].tobytes()
    with pytest.raises(InterpreterError, match=r"holds \[0:4, 8:10\] of \[4, 16\]"):
        local_arguments(ev, "main", [tile, b], plan, 0, 4)
    with pytest.raises(InterpreterError, match="every process needs all of it"):
        local_arguments(ev, "main", [tile, b], None, 0, 0)
    with pytest.raises(InterpreterError, match="dimension 0 is 5"):
        local_arguments(ev, "main", [np.zeros((5, 16), np.float32), b], plan, 0, 0)
    with pytest.raises(InterpreterError, match="takes 2 arguments, 1 were given"):
        local_arguments(ev, "main", [a], plan, 0, 0)


class _Unreadable:
    """An array-like that must not be read (h5py, zarr): shape and dtype only."""

    shape = (4, 16)
    dtype = np.dtype(np.float32)

    def __array__(self, *args, **kwargs):
        raise AssertionError("read")

    def __getitem__(self, index):
        raise AssertionError("read")


def test_check_arguments_reads_nothing() -> None:
    module, (a, b) = _sm_psum()
    check_arguments(module, "main", [_Unreadable(), b])
    check_arguments(module, "main", [Tile(a[:, :2], (slice(0, 4), slice(0, 2)), a.shape), b])
    with pytest.raises(InterpreterError, match=r"no function @other to run \(have: @main"):
        check_arguments(module, "other", [a, b])
    with pytest.raises(InterpreterError, match="@main takes 2 arguments, 1 were given"):
        check_arguments(module, "main", [a])
    with pytest.raises(InterpreterError, match="argument 1 of @main: dimension 1 is 9"):
        check_arguments(module, "main", [a, np.zeros((16, 9), np.float32)])


# ----------------------------------------------------------------------------- notices, report
def test_global_view_notice() -> None:
    assert global_view_notice("prog.mlir", 8) == (
        "note: prog.mlir has no shard_map region (per-device code); it runs in global view on "
        "rank 0, the other 7 ranks hold nothing (the interpreter does not partition global-view "
        "programs)"
    )
    assert "the other 1 rank holds" not in global_view_notice("p", 2)
    assert "the other 1 rank hold nothing" in global_view_notice("p", 2)


def test_report_text() -> None:
    module, _ = _sm_psum()
    plan = shard_plan(module, "main")
    grid_run = RankRun(0, 2, Processes(1, 2), plan, False, None, peak_rss_kb=[75_000, 76_800])
    lines = report_text(grid_run).splitlines()
    assert lines[0] == ("mpi report: 2 ranks, 1 replica x 2 partitions = 2 processes "
                        "(mhlo.num_replicas, mhlo.num_partitions)")
    assert lines[1] == "runs on: every rank, one process each"
    assert lines[2:-2] == plan.report().splitlines()
    assert lines[-2:] == ["rank 0 (replica 0, partition 0): peak_rss_mb=73.2",
                          "rank 1 (replica 0, partition 1): peak_rss_mb=75.0"]
    alone = RankRun(0, 8, Processes(1, 8), None, True, None)
    assert report_text(alone).splitlines()[1] == (
        "runs on: rank 0 alone (global view: no shard_map region); arguments and results whole "
        "on rank 0"
    )


def test_failure_error_per_rank() -> None:
    from stablehlo_py.interpreter.evaluator import CheckFailure

    f = [CheckFailure("main", "check.expect_eq", "p.mlir:3:5", "got 1"),
         CheckFailure("main", "check.expect_eq", "p.mlir:3:5", "got 2")]
    root = RankRun(0, 4, Processes(1, 4), None, False, None, failures=f, failed_rank=1)
    error = root.failure_error()
    assert isinstance(error, InterpreterError) and not isinstance(error, RankStopped)
    assert error.message == "; ".join(str(x) for x in f)
    other = RankRun(2, 4, Processes(1, 4), None, False, None, failed_rank=1).failure_error()
    assert isinstance(other, RankStopped) and other.failed_rank == 1
    assert RankRun(0, 4, Processes(1, 4), None, False, None).failure_error() is None
    assert isinstance(error, StableHLOError)
