"""`interpreter.run_parallel` under MPI (docs/plans/issue-29-mpi.md step 11): each program needing P
processes runs under ``mpirun -n P stablehlo-translate --interpret --engine=mpi`` (rank i x N + j
runs ``programs[i][j]``; interpreter/mpi/parallel.py) and must print the same lines, report the
same check failures and exit with the same status as the threaded run in this process.

- Upstream's 13 conformance files with run_parallel ops (all_gather ... send_recv: ~40 ops on grids
  of 1 to 5 processes; infeed and send/recv through rank 0's broker), one test per
  ``--split-input-file`` chunk, read from ../shared (STABLEHLO_PY_SHARED) at test time and never
  copied here; skipped with the reason when it is absent.  Each chunk also says, in its
  ``--mpi-report``, that its ranks ran the run_parallel's processes.
- Programs of this file: each rank runs its own process (its probe lands in its own directory),
  run_parallel ops of different shapes with the same number of processes in one module, broker
  queues (send/recv, infeed) that one run_parallel leaves non-empty are empty again at the next
  (as in-process, where each has a grid of its own), prints and check failures of the processes
  and of @main said once in the threaded run's order, and a process that fails while the other
  waits in a collective.

Launches are batched: one ``mpirun -n P`` per number of processes runs every program of that size
in sequence (tests/mpi/translate_chunks.py), so the whole file costs 5 launches.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from stablehlo_py.cli.common import split_chunks
from stablehlo_py.cli.translate import main as translate
from stablehlo_py.interpreter.mpi.world import required_processes
from stablehlo_py.ir import parse
from tests.conftest import CONFORMANCE

UPSTREAM = CONFORMANCE / "interpret"
#: upstream's conformance files whose programs use interpreter.run_parallel
UPSTREAM_FILES = (
    "all_gather", "all_reduce", "all_to_all", "collective_broadcast", "collective_permute",
    "collective_reduce", "infeed", "outfeed", "partition_id", "printing", "reduce_scatter",
    "replica_id", "send_recv",
)
REPORT = "mpi report: "


@dataclass(frozen=True)
class Case:
    """One program: `key` names it in test ids, `file` is the name it is written under (its
    diagnostics' locations), `count` the processes it needs."""

    key: str
    file: str
    text: str
    count: int
    options: tuple[str, ...] = ()
    run_parallel: bool = True


def _case(key: str, file: str, text: str, options: tuple[str, ...] = ()) -> Case:
    module = parse(text, file)
    has = any(op.name == "interpreter.run_parallel" for op in module.walk())
    return Case(key, file, text, required_processes(module).count, options, has)


def upstream_cases() -> list[Case]:
    """Every chunk of upstream's run_parallel files, written with as many leading newlines as
    the chunk had lines before it (the whole file's line numbers); none when ../shared is absent."""
    cases = []
    for name in UPSTREAM_FILES:
        path = UPSTREAM / f"{name}.mlir"
        if not path.is_file():
            continue
        for k, (offset, chunk) in enumerate(split_chunks(path.read_text(), True)):
            if chunk.strip():
                cases.append(_case(f"{name}.mlir:{k}", f"{name}.{k}.mlir", "\n" * offset + chunk))
    return cases


# ------------------------------------------------------------------------ this file's programs
_ADD = """({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %c = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %c : tensor<i64>
    })"""

#: 2 x 2 processes, each probing its own operand then summing all four; then 1 x 4 and 4 x 1
#: run_parallels (same count, other shapes) return the processes' ids
RANKS = """module @ranks {
  func.func @p(%x: tensor<2xi64>, %i: tensor<ui32>) -> (tensor<2xi64>, tensor<ui32>, tensor<ui32>) {
    %y = interpreter.probe %x, probe_id = "process" : tensor<2xi64>
    %s = "stablehlo.all_reduce"(%y) ADD {
      replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids
    } : (tensor<2xi64>) -> tensor<2xi64>
    %r = stablehlo.replica_id : tensor<ui32>
    %q = stablehlo.partition_id : tensor<ui32>
    return %s, %r, %q : tensor<2xi64>, tensor<ui32>, tensor<ui32>
  }
  func.func @ids() -> (tensor<ui32>, tensor<ui32>) {
    %r = stablehlo.replica_id : tensor<ui32>
    %q = stablehlo.partition_id : tensor<ui32>
    return %r, %q : tensor<ui32>, tensor<ui32>
  }
  func.func @main() {
    %x0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %x1 = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %x2 = stablehlo.constant dense<[100, 200]> : tensor<2xi64>
    %x3 = stablehlo.constant dense<[1000, 2000]> : tensor<2xi64>
    %i = stablehlo.constant dense<0> : tensor<ui32>
    %r:12 = "interpreter.run_parallel"(%x0, %i, %x1, %i, %x2, %i, %x3, %i) {
      programs = [[@p, @p], [@p, @p]]
    } : (tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>, tensor<2xi64>, tensor<ui32>,
         tensor<2xi64>, tensor<ui32>) ->
        (tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>, tensor<ui32>, tensor<ui32>,
         tensor<2xi64>, tensor<ui32>, tensor<ui32>, tensor<2xi64>, tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %r#0, dense<[1111, 2222]> : tensor<2xi64>
    check.expect_eq_const %r#9, dense<[1111, 2222]> : tensor<2xi64>
    check.expect_eq_const %r#4, dense<0> : tensor<ui32>
    check.expect_eq_const %r#5, dense<1> : tensor<ui32>
    check.expect_eq_const %r#7, dense<1> : tensor<ui32>
    check.expect_eq_const %r#8, dense<0> : tensor<ui32>
    %s:8 = "interpreter.run_parallel"() {programs = [[@ids, @ids, @ids, @ids]]}
      : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
               tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %s#6, dense<0> : tensor<ui32>
    check.expect_eq_const %s#7, dense<3> : tensor<ui32>
    %t:8 = "interpreter.run_parallel"() {programs = [[@ids], [@ids], [@ids], [@ids]]}
      : () -> (tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>,
               tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %t#6, dense<3> : tensor<ui32>
    check.expect_eq_const %t#7, dense<0> : tensor<ui32>
    func.return
  }
}
""".replace(" ADD ", _ADD + " ")
RANK_OPERANDS = ([1, 2], [10, 20], [100, 200], [1000, 2000])


def _send(value: str, channel: int = 1) -> str:
    return f"""%v{value} = stablehlo.constant dense<[{value}, {value}]> : tensor<2xi64>
    %t{value} = "stablehlo.send"(%v{value}, %t) {{
      channel_handle = #stablehlo.channel_handle<handle = {channel}, type = 2>, is_host_transfer = true
    }} : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token"""


def _const(name: str, value: int) -> str:
    return f"""func.func @{name}() -> tensor<2xi64> {{
    %c = stablehlo.constant dense<[{value}, {value}]> : tensor<2xi64>
    return %c : tensor<2xi64>
  }}"""


#: run_parallels that leave a sent value and an infeed entry behind, then ones that must not see
#: them (each run_parallel has queues of its own in-process)
LEFTOVERS = f"""module @leftovers {{
  func.func @send_two(%t: !stablehlo.token) -> !stablehlo.token {{
    {_send("1")}
    {_send("2")}
    return %t : !stablehlo.token
  }}
  func.func @send_three(%t: !stablehlo.token) -> !stablehlo.token {{
    {_send("3")}
    return %t : !stablehlo.token
  }}
  func.func @receive(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {{
    %v, %u = "stablehlo.recv"(%t) {{
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true
    }} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    return %v, %u : tensor<2xi64>, !stablehlo.token
  }}
  func.func @feed(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {{
    %v:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    return %v#0, %v#1 : tensor<2xi64>, !stablehlo.token
  }}
  func.func @idle(%t: !stablehlo.token) -> !stablehlo.token {{
    return %t : !stablehlo.token
  }}
  {_const("four", 4)}
  {_const("five", 5)}
  {_const("six", 6)}
  func.func @main() {{
    %t = stablehlo.after_all : !stablehlo.token
    %a:3 = "interpreter.run_parallel"(%t, %t) {{programs = [[@send_two], [@receive]]}}
      : (!stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<2xi64>, !stablehlo.token)
    check.expect_eq_const %a#1, dense<[1, 1]> : tensor<2xi64>
    %b:3 = "interpreter.run_parallel"(%t, %t) {{programs = [[@receive], [@send_three]]}}
      : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token, !stablehlo.token)
    check.expect_eq_const %b#0, dense<[3, 3]> : tensor<2xi64>
    %c:3 = "interpreter.run_parallel"(%t, %t) {{infeed = [@four, @five], programs = [[@feed], [@idle]]}}
      : (!stablehlo.token, !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token, !stablehlo.token)
    check.expect_eq_const %c#0, dense<[4, 4]> : tensor<2xi64>
    %d:3 = "interpreter.run_parallel"(%t, %t) {{infeed = [@six], programs = [[@idle], [@feed]]}}
      : (!stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<2xi64>, !stablehlo.token)
    check.expect_eq_const %d#1, dense<[6, 6]> : tensor<2xi64>
    func.return
  }}
}}
"""

#: prints and failed checks in both processes (process 0's before, process 1's after the
#: all_reduce both meet at: one order in-process too) and in @main before and after the op
CHECKS = """module @checks {
  func.func @first(%x: tensor<2xi64>) -> tensor<2xi64> {
    interpreter.print %x : tensor<2xi64>
    check.expect_eq_const %x, dense<[9, 9]> : tensor<2xi64>
    %s = "stablehlo.all_reduce"(%x) ADD {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
      : (tensor<2xi64>) -> tensor<2xi64>
    return %s : tensor<2xi64>
  }
  func.func @second(%x: tensor<2xi64>) -> tensor<2xi64> {
    %s = "stablehlo.all_reduce"(%x) ADD {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
      : (tensor<2xi64>) -> tensor<2xi64>
    interpreter.print %s : tensor<2xi64>
    check.expect_eq_const %s, dense<[7, 7]> : tensor<2xi64>
    return %s : tensor<2xi64>
  }
  func.func @main() -> tensor<2xi64> {
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %y = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    interpreter.print %x : tensor<2xi64>
    check.expect_eq_const %x, dense<[5, 5]> : tensor<2xi64>
    %r:2 = "interpreter.run_parallel"(%x, %y) {programs = [[@first], [@second]]}
      : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
    %z = stablehlo.add %r#0, %r#1 : tensor<2xi64>
    interpreter.print %z : tensor<2xi64>
    check.expect_eq_const %z, dense<[0, 0]> : tensor<2xi64>
    return %z : tensor<2xi64>
  }
}
""".replace(" ADD ", _ADD + " ")

#: process 1 calls a custom call nobody knows while process 0 waits for it in an all_reduce
FAILING = """module @failing {
  func.func @waits(%x: tensor<2xi64>) -> tensor<2xi64> {
    %s = "stablehlo.all_reduce"(%x) ADD {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}
      : (tensor<2xi64>) -> tensor<2xi64>
    return %s : tensor<2xi64>
  }
  func.func @fails(%x: tensor<2xi64>) -> tensor<2xi64> {
    %u = stablehlo.custom_call @no_such_target(%x) : (tensor<2xi64>) -> tensor<2xi64>
    return %u : tensor<2xi64>
  }
  func.func @main() {
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@waits], [@fails]]}
      : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
    func.return
  }
}
""".replace(" ADD ", _ADD + " ")


def own_cases(probes: Path) -> list[Case]:
    """This file's programs (the failing one last: nothing runs after it in its launch)."""
    return [
        _case("ranks", "ranks.mlir", RANKS, (f"--probe-output-dir={probes}",)),
        _case("leftovers", "leftovers.mlir", LEFTOVERS),
        _case("checks", "checks.mlir", CHECKS),
        _case("failing", "failing.mlir", FAILING),
    ]


# ------------------------------------------------------------------------------ the launches
@dataclass
class Outcome:
    """One program's run: exit code, what was printed (-o) and stderr, per rank for MPI."""

    codes: list[int]
    stdout: str
    stderrs: list[str]
    seconds: float = 0.0

    @property
    def failures(self) -> list[str]:
        """Rank 0's stderr lines before the ``--mpi-report`` (the check failures, errors)."""
        lines = self.stderrs[0].splitlines()
        end = next((k for k, line in enumerate(lines) if line.startswith(REPORT)), len(lines))
        return lines[:end]

    @property
    def report(self) -> list[str]:
        lines = self.stderrs[0].splitlines()
        return lines[len(self.failures):]


@dataclass
class Launched:
    """Every program's MPI outcome (by key), the launches' wall times by P, and what a launch
    said when it did not leave a program's records (its output)."""

    directory: Path
    probes: Path
    cases: dict[str, Case]
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    walls: dict[int, float] = field(default_factory=dict)

    def outcome(self, key: str) -> Outcome:
        if key not in self.outcomes:
            pytest.fail(f"no MPI record of {key}: {self.missing.get(key, 'never launched')}")
        return self.outcomes[key]


def _read(out: Path, k: int, count: int) -> Outcome | None:
    records = []
    for rank in range(count):
        path = out / f"{k}.rank{rank}.json"
        if not path.is_file():
            return None
        records.append(json.loads(path.read_text()))
    stdout = out / f"{k}.out"
    return Outcome(
        codes=[r["rc"] for r in records],
        stdout=stdout.read_text() if stdout.is_file() else "",
        stderrs=[r["stderr"] for r in records],
        seconds=float(records[0]["seconds"]),
    )


@pytest.fixture(scope="module")
def launched(mpi, tmp_path_factory) -> Launched:  # noqa: ANN001 - the harness's fixtures
    directory = tmp_path_factory.mktemp("run_parallel")
    probes = directory / "probes-mpi"
    cases = [*upstream_cases(), *own_cases(probes)]
    state = Launched(directory, probes, {c.key: c for c in cases})
    by_count: dict[int, list[Case]] = defaultdict(list)
    for case in cases:
        (directory / case.file).write_text(case.text)
        by_count[case.count].append(case)
    for count, batch in sorted(by_count.items()):
        out = directory / f"out{count}"
        out.mkdir()
        manifest = directory / f"manifest{count}.json"
        manifest.write_text(json.dumps({"runs": [
            {"path": str(directory / c.file), "options": ["--mpi-report", *c.options]}
            for c in batch
        ]}))
        start = time.perf_counter()
        done = mpi.run(count, ["-m", "tests.mpi.translate_chunks", str(manifest), str(out)],
                       timeout=60.0 + 15.0 * len(batch))
        state.walls[count] = time.perf_counter() - start
        for k, case in enumerate(batch):
            got = _read(out, k, count)
            if got is None:
                state.missing[case.key] = (
                    f"mpirun -n {count} exited {done.returncode}\nstdout: {done.stdout[-3000:]}\n"
                    f"stderr: {done.stderr[-3000:]}"
                )
            else:
                state.outcomes[case.key] = got
    return state


def in_process(launched: Launched, case: Case, options: tuple[str, ...] = ()) -> Outcome:
    """The threaded engine's run of `case` in this process (`options` instead of the case's)."""
    path = launched.directory / case.file
    out = launched.directory / f"{case.file}.threads.out"
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = translate(["--interpret", *options, str(path), "-o", str(out)])
    return Outcome([code], out.read_text() if out.is_file() else "", [err.getvalue()])


def assert_same(mpi_run: Outcome, threads: Outcome, count: int) -> None:
    """Every rank exits as the threaded run, rank 0 prints its lines and its check failures,
    the other ranks say nothing."""
    assert mpi_run.codes == threads.codes * count
    assert mpi_run.stdout == threads.stdout
    assert mpi_run.failures == threads.failures
    assert mpi_run.stderrs[1:] == [""] * (count - 1)


def _said_run_parallel(report: list[str], count: int) -> None:
    assert report[0].startswith(f"{REPORT}{count} rank"), report
    assert "(interpreter.run_parallel's programs)" in report[0], report
    assert report[1].startswith("runs on: every rank alike; rank i x N + j runs process (i, j)")


# ---------------------------------------------------------------------------------- the tests
def _upstream_params() -> list[object]:
    cases = upstream_cases()
    if not cases:
        return [pytest.param(None, id="absent", marks=pytest.mark.skip(
            reason=f"{UPSTREAM} is absent (set STABLEHLO_PY_SHARED): upstream's run_parallel "
            "files are read from there, never copied into the repository"))]
    return [pytest.param(c.key, id=c.key) for c in cases]


@pytest.mark.parametrize("key", _upstream_params())
def test_upstream_chunk_under_mpi_as_in_process(launched: Launched, key: str) -> None:
    case = launched.cases[key]
    got = launched.outcome(key)
    threads = in_process(launched, case)
    assert_same(got, threads, case.count)
    if case.run_parallel:
        _said_run_parallel(got.report, case.count)


def test_each_rank_runs_its_process(launched: Launched) -> None:
    """Rank i x 2 + j ran programs[i][j] of the 2 x 2 run_parallel: its probe (the process's
    operand) is in its own directory; every check passes under MPI and in threads; the 1 x 4 and
    4 x 1 run_parallels of the same module ran on grids of their shapes."""
    case = launched.cases["ranks"]
    got = launched.outcome("ranks")
    threads = in_process(launched, case, (f"--probe-output-dir={launched.directory / 'probes'}",))
    assert threads.codes == [0], threads.stderrs
    assert_same(got, threads, 4)
    _said_run_parallel(got.report, 4)
    for rank, operand in enumerate(RANK_OPERANDS):
        index = (launched.probes / f"rank{rank}" / "index.csv").read_text().splitlines()
        assert len(index) == 1 and index[0].startswith("process,tensor<2xi64>,")
        probe = np.load(index[0].split(",", 2)[2])
        assert probe.tolist() == operand


def test_broker_queues_start_empty_at_each_run_parallel(launched: Launched) -> None:
    """A value sent and not received, an infeed entry not taken: the next run_parallel does not
    see them (rank 0 takes them out of its broker), as in-process."""
    case = launched.cases["leftovers"]
    threads = in_process(launched, case)
    assert threads.codes == [0], threads.stderrs
    assert_same(launched.outcome("leftovers"), threads, 2)


def test_prints_and_check_failures_once_in_the_threaded_order(launched: Launched) -> None:
    case = launched.cases["checks"]
    got = launched.outcome("checks")
    threads = in_process(launched, case)
    assert threads.codes == [1]
    first, second, main_before, main_after = [
        k + 1 for k, line in enumerate(CHECKS.splitlines()) if "check.expect_eq_const" in line
    ]
    assert [line.split(": error: ")[0].rsplit(":", 2)[1] for line in threads.failures] == [
        str(main_before), str(first), str(second), str(main_after)
    ]
    assert got.stdout.count("tensor<2xi64>") == 5
    assert_same(got, threads, 2)


def test_a_failing_process_stops_the_run(launched: Launched) -> None:
    """Process 1's error, while process 0 waits in an all_reduce: rank 0 reports it once, naming
    the rank and the threaded run's message; every rank exits 1."""
    case = launched.cases["failing"]
    got = launched.outcome("failing")
    threads = in_process(launched, case)
    assert threads.codes == [1]
    (line,) = threads.failures
    where, message = line.split(": error: ")
    assert "no_such_target" in message
    assert got.codes == [1, 1]
    first = got.failures[0]
    assert "rank 1 (replica 1, partition 0)" in first
    assert f"{where}: {message}" in first
    assert got.stderrs[1] == ""


def test_one_launch_per_number_of_processes(launched: Launched) -> None:
    counts = {c.count for c in launched.cases.values()}
    assert sorted(launched.walls) == sorted(counts)
    assert not launched.missing, launched.missing
    lines = []
    for count, wall in sorted(launched.walls.items()):
        keys = [k for k, c in launched.cases.items() if c.count == count]
        runs = sum(launched.outcomes[k].seconds for k in keys)
        lines.append(f"P={count}: {len(keys)} programs, launch {wall:.1f} s, runs {runs:.1f} s")
    print("\n".join(lines))
