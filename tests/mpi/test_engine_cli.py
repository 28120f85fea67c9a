"""The MPI engine end to end (docs/plans/issue-29-mpi.md §3.5, §5.1, §5.3): ``mpirun -n 8
stablehlo-translate --interpret --engine=mpi`` against the threaded engine (the same bytes printed
and written), the errors (a wrong number of processes, a partition that fails while the others
wait in a collective, check failures), ``--mpi-report``, and ``interpreter.run(...,
engine="mpi")`` through a rank program (tests/mpi/engine_ranks.py).

Launches are few (each 8-rank start costs several seconds): one per CLI case, one for the Python
API.  Times asserted are from rank 0's error line to mpirun's exit (starting 8 Python processes on
a loaded 2-core machine takes longer than the 10 s budget by itself)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.interpreter import run
from stablehlo_py.interpreter.shard_plan import shard_plan
from stablehlo_py.ir import parse
from tests.mpi import engine_ranks
from tests.mpi.collective_cases import fingerprint
from tests.mpi.timed import launch, translate_argv

DATA = Path(__file__).parent.parent / "data" / "mpi"
#: seconds from rank 0's error line to the end of the job
ERROR_TO_EXIT = 10.0

#: on partition 5 a custom call the interpreter does not know; the others enter an all_reduce
FAILING = """module @failing attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=8]>
  func.func public @main(%a: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%b: tensor<1xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %five = stablehlo.constant dense<5> : tensor<ui32>
      %is5 = stablehlo.compare EQ, %pid, %five : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %idx = stablehlo.convert %is5 : (tensor<i1>) -> tensor<i32>
      %r = "stablehlo.case"(%idx) ({
        %s = "stablehlo.all_reduce"(%b) ({
        ^bb0(%x: tensor<f32>, %y: tensor<f32>):
          %z = stablehlo.add %x, %y : tensor<f32>
          stablehlo.return %z : tensor<f32>
        }) {replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %s : tensor<1xf32>
      }, {
        %u = stablehlo.custom_call @no_such_target(%b) : (tensor<1xf32>) -> tensor<1xf32>
        stablehlo.return %u : tensor<1xf32>
      }) : (tensor<i32>) -> tensor<1xf32>
      sdy.return %r : tensor<1xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
"""
EIGHT = "--args=[dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>]"


# ----------------------------------------------------------------------------------- launching
def threaded(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*translate_argv(), *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def our_lines(text: str) -> list[str]:
    """stderr without the launcher's message boxes."""
    lines = [line for line in text.splitlines() if line.strip()]
    out, boxed = [], False
    for line in lines:
        if line.startswith("-" * 20):
            boxed = not boxed
            continue
        if not boxed:
            out.append(line)
    return out


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """The programs and their arguments as .npy files (`--inputs` refuses the .npz, which also
    holds XLA's outputs)."""
    root = tmp_path_factory.mktemp("engine")
    for name in ("sm_psum", "jit_matmul"):
        shutil.copy(DATA / f"{name}.mlir.gz", root)
        _, args = engine_ranks.program(name)
        for k, a in enumerate(args):
            np.save(root / f"{name}_arg{k}.npy", a)
    (root / "failing.mlir").write_text(engine_ranks.CHECKS + "// -----\n" + FAILING)
    return root


def args_of(name: str, count: int) -> str:
    return "--args=" + ",".join(f"@{name}_arg{k}.npy" for k in range(count))


# ------------------------------------------------------------------------------------- the CLI
def test_cli_prints_and_writes_a_directory_as_the_threaded_engine(mpi, work: Path) -> None:
    """sm_psum (shard_map, both arguments tile-fed): the text printed (-o) and --output=DIR/ are
    the threaded engine's bytes; --mpi-report says where everything is and each rank's RSS."""
    common = ["--interpret", "sm_psum.mlir.gz", args_of("sm_psum", 2)]
    done = launch(mpi, 8, [*translate_argv(), *common, "--engine=mpi", "-o", "mpi.txt",
                                 "--output=mpi_dir/", "--mpi-report"], work)
    assert done.returncode == 0, done.stderr
    ref = threaded([*common, "-o", "threads.txt", "--output=threads_dir/"], work)
    assert ref.returncode == 0, ref.stderr
    assert (work / "mpi.txt").read_bytes() == (work / "threads.txt").read_bytes()
    assert (work / "mpi.txt").read_text().startswith("tensor<4x8xf32>")
    files = sorted(p.name for p in (work / "threads_dir").iterdir())
    assert files == sorted(p.name for p in (work / "mpi_dir").iterdir())
    for name in files:
        assert (work / "mpi_dir" / name).read_bytes() == (work / "threads_dir" / name).read_bytes()

    lines = our_lines(done.stderr)
    assert lines[0] == ("mpi report: 8 ranks, 1 replica x 8 partitions = 8 processes "
                        "(mhlo.num_replicas, mhlo.num_partitions)")
    assert lines[1] == "runs on: every rank, one process each"
    assert lines[2] == "shard plan of @main (1 replica x 8 partitions):"
    assert lines[3].startswith("arg 0: tile [4, 2] of [4, 16] by sdy.manual_computation")
    assert lines[4].startswith("arg 1: tile [2, 8] of [16, 8] by sdy.manual_computation")
    assert lines[5].startswith("result 0: tile [4, 8] of [4, 8] (every process holds all of it)")
    rss = lines[6:]
    assert [line.split(":")[0] for line in rss] == [
        f"rank {r} (replica 0, partition {r})" for r in range(8)
    ]
    for line in rss:
        mb = float(line.split("peak_rss_mb=")[1])
        assert 20 < mb < 1000, line


def test_cli_global_view_program_to_npz_as_the_threaded_engine(mpi, work: Path) -> None:
    """jit_matmul (no shard_map: global view) runs on rank 0, which says so once; its
    --output=out.npz is the threaded engine's, byte for byte."""
    common = ["--interpret", "jit_matmul.mlir.gz", args_of("jit_matmul", 2)]
    done = launch(mpi, 8, [*translate_argv(), *common, "--engine=mpi",
                                 "--output=mpi.npz"], work)
    assert done.returncode == 0, done.stderr
    ref = threaded([*common, "--output=threads.npz"], work)
    assert ref.returncode == 0, ref.stderr
    assert (work / "mpi.npz").read_bytes() == (work / "threads.npz").read_bytes()
    assert our_lines(done.stderr) == [
        "note: jit_matmul.mlir.gz has no shard_map region (per-device code); it runs in global "
        "view on rank 0, the other 7 ranks hold nothing (the interpreter does not partition "
        "global-view programs)"
    ]
    assert done.stdout == ""


def test_cli_wrong_number_of_processes(mpi, work: Path) -> None:
    """mpirun -n 4 on an 8-partition program: one line, exit 1, the job ends promptly."""
    done = launch(mpi, 4, [*translate_argv(), "--interpret", "--engine=mpi",
                                 "sm_psum.mlir.gz", args_of("sm_psum", 2)], work)
    assert done.returncode == 1
    assert our_lines(done.stderr)[:1] == [
        "error: stablehlo-translate --engine=mpi: sm_psum.mlir.gz runs on 1 replica x 8 "
        "partitions = 8 processes (mhlo.num_replicas, mhlo.num_partitions), but mpirun started "
        "4: run it with mpirun -n 8"
    ]
    assert [line for line in our_lines(done.stderr) if "error" in line.lower()][1:] == []
    seen, _ = done.first("error: stablehlo-translate")
    print(f"wrong P: error line to exit {done.end - seen:.2f} s")
    assert done.end - seen <= ERROR_TO_EXIT
    assert "Traceback" not in done.stderr


def test_cli_check_failures_then_a_failing_partition(mpi, work: Path) -> None:
    """Two chunks (--split-input-file): the first fails checks on partitions 3 and 6 (the run
    goes on; rank 0 prints the in-process lines), the second runs a custom call nobody knows on
    partition 5 while the others wait in an all_reduce: rank 0's one report line, exit 1, the
    job over within 10 s of it, no traceback."""
    argv = ["--interpret", "--split-input-file", "failing.mlir", EIGHT]
    done = launch(mpi, 8, [*translate_argv(), *argv, "--engine=mpi"], work)
    ref = threaded(argv, work)
    assert ref.returncode == 1 and done.returncode == 1
    checks = [line for line in ref.stderr.splitlines() if "check failed" in line]
    assert [line.split(": got ")[1] for line in checks] == ["3, expected 0", "6, expected 0"]
    lines = our_lines(done.stderr)
    assert lines[:2] == checks
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, done.stderr
    assert errors[0].startswith("error: rank 5 (replica 0, partition 5): failing.mlir:")
    assert "unsupported custom_call target 'no_such_target'" in errors[0]
    assert errors[0].endswith("(7 other ranks stopped)")
    assert "Traceback" not in done.stderr
    assert done.stdout == ref.stdout == ""
    seen, _ = done.first("error: rank 5")
    print(f"failing partition: report line to exit {done.end - seen:.2f} s")
    assert done.end - seen <= ERROR_TO_EXIT


def test_cli_singleton_outside_mpirun(work: Path) -> None:
    """A program of one process under --engine=mpi without mpirun (an MPI singleton) prints what
    the threaded engine prints."""
    program = work / "one.mlir"
    program.write_text(
        "func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"
        "  %0 = stablehlo.multiply %a, %a : tensor<3xf32>\n"
        "  return %0 : tensor<3xf32>\n}\n"
    )
    argv = ["--interpret", "one.mlir", "--args=[dense<[1.5, -2.0, 3.0]> : tensor<3xf32>]"]
    single = threaded([*argv, "--engine=mpi"], work)
    ref = threaded(argv, work)
    assert single.returncode == 0, single.stderr
    assert single.stdout == ref.stdout and "2.250000e+00" in ref.stdout


# ---------------------------------------------------------------------------------- the API
@pytest.fixture(scope="module")
def api_run(mpi, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("engine_api")
    done = mpi.run(8, ["-m", "tests.mpi.engine_ranks", str(out)])
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def _read(out: Path, name: str, gather: str, rank: int):
    return json.loads((out / f"{name}.{gather}.rank{rank}.json").read_text())


@pytest.mark.parametrize("name", engine_ranks.PROGRAMS)
def test_api_gathers(api_run: Path, name: str) -> None:
    """run(..., engine="mpi"): gather="root" gives rank 0 the threaded engine's results (bytes)
    and the others None; "all" gives them to every rank; "none" gives each rank its tiles (at
    the plan's index, equal to that part of the global result) and the whole results."""
    text, args = engine_ranks.program(name)
    module = parse(text)
    expected = run(module, *args)
    whole = [{"kind": "array", "fp": fp} for fp in fingerprint(expected)]
    assert _read(api_run, name, "root", 0) == whole
    for rank in range(1, 8):
        assert _read(api_run, name, "root", rank) is None
    for rank in range(8):
        assert _read(api_run, name, "all", rank) == whole
    global_view = name.startswith("jit_")
    plan = None if global_view else shard_plan(module, "main")
    for rank in range(8):
        held = _read(api_run, name, "none", rank)
        if global_view:
            assert held == (whole if rank == 0 else None)
            continue
        for k, (value, got) in enumerate(zip(expected, held)):
            index = plan.results[k].index(0, rank)
            if index is None:
                assert got == whole[k]
                continue
            assert got["kind"] == "Tile"
            assert got["global"] == list(value.shape)
            assert got["index"] == [[s.start, s.stop] for s in index]
            assert got["fp"] == fingerprint([value[index]])[0]


@pytest.mark.parametrize("name", engine_ranks.CHUNKED)
def test_api_in_small_pieces(api_run: Path, name: str) -> None:
    """With every MPI transfer cut into 8-byte pieces (each tile sent to rank 0 in several), the
    results and the .npz are the same."""
    text, args = engine_ranks.program(name)
    module = parse(text)
    whole = [{"kind": "array", "fp": fp} for fp in fingerprint(run(module, *args))]
    tiles = [d.tiling for d in shard_plan(module, "main").results]
    assert min(4 * int(np.prod(t.local)) for t in tiles) > engine_ranks.CHUNK
    assert _read(api_run, name, "chunked_root", 0) == whole
    for rank in range(1, 8):
        assert _read(api_run, name, "chunked_root", rank) is None
    for rank in range(8):
        assert _read(api_run, name, "chunked_all", rank) == whole
    assert (api_run / f"{name}.chunked.npz").read_bytes() == (api_run / f"{name}.npz").read_bytes()


@pytest.mark.parametrize("name", engine_ranks.WRITTEN)
def test_api_result_writers(api_run: Path, work: Path, name: str) -> None:
    """The CLI's writer under MPI (tiles streamed to rank 0 for .npz, written per rank into
    DIR/) gives the threaded CLI's files, byte for byte."""
    text, args = engine_ranks.program(name)
    ref = work / f"{name}_ref"
    ref.mkdir(exist_ok=True)
    for k, a in enumerate(args):
        np.save(ref / f"arg{k}.npy", a)
    (ref / "p.mlir").write_text(text)
    given = "--args=" + ",".join(f"@arg{k}.npy" for k in range(len(args)))
    for target in ("out.npz", "out_dir/"):
        done = threaded(["--interpret", "p.mlir", given, f"--output={target}"], ref)
        assert done.returncode == 0, done.stderr
    assert (api_run / f"{name}.npz").read_bytes() == (ref / "out.npz").read_bytes()
    files = sorted(p.name for p in (ref / "out_dir").iterdir())
    assert sorted(p.name for p in (api_run / f"{name}.dir").iterdir()) == files
    for f in files:
        assert (api_run / f"{name}.dir" / f).read_bytes() == (ref / "out_dir" / f).read_bytes()


def test_api_check_failures(api_run: Path) -> None:
    """Failed checks: rank 0 raises the in-process message (every rank's failures in rank
    order), the other ranks RankStopped naming the first failing rank."""
    try:
        run(engine_ranks.CHECKS, engine_ranks.CHECKS_ARG)
    except Exception as e:  # noqa: BLE001
        expected = {"type": type(e).__name__, "text": str(e)}
    else:
        raise AssertionError("the checks did not fail in-process")
    assert expected["type"] == "InterpreterError" and "got 3" in expected["text"]
    assert json.loads((api_run / "checks.rank0.json").read_text()) == expected
    for rank in range(1, 8):
        assert json.loads((api_run / f"checks.rank{rank}.json").read_text()) == {
            "type": "RankStopped", "text": "error: stopped: rank 3 failed; rank 0 has the error"
        }



def test_api_bad_arguments_before_the_run(api_run: Path) -> None:
    """An argument of the wrong shape: every rank raises the same InterpreterError before the
    run; only rank 0's is for printing (a command line stays quiet on the others)."""
    outcomes = [json.loads((api_run / f"bad_shape.rank{r}.json").read_text()) for r in range(8)]
    text = ("error: argument 0 of @main: dimension 0 is 2 but its type tensor<4x16xf32> says 4")
    assert outcomes[0] == {"type": "InterpreterError", "text": text, "quiet": False}
    assert outcomes[1:] == [{"type": "InterpreterError", "text": text, "quiet": True}] * 7
