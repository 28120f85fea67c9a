"""Timed launches of the CLI under the MPI harness, shared by the engine and failure tests:
each stderr line is kept with the moment it came, so a test can measure from a failure's report
to the end of the job."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.mpi.conftest import LAUNCH_TIMEOUT, Mpi, kill_session, mpi_env, mpirun_command


def translate_argv() -> list[str]:
    """How to start stablehlo-translate: the venv's script beside this Python, else -m."""
    script = Path(sys.executable).with_name("stablehlo-translate")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "stablehlo_py.cli.translate"]


@dataclass
class Run:
    """A finished launch: exit status, stdout, each stderr line with when it came, the end,
    and what the `during` callback returned."""

    returncode: int
    stdout: str
    lines: list[tuple[float, str]]
    end: float
    during: object = None

    @property
    def stderr(self) -> str:
        return "".join(line for _, line in self.lines)

    def ours(self) -> list[str]:
        """stderr's lines without the launcher's boxes and ORTE's own log lines."""
        out, boxed = [], False
        for _, line in self.lines:
            line = line.rstrip("\n")
            if line.startswith("-" * 20):
                boxed = not boxed
            elif line.strip() and not boxed and "ORTE_ERROR_LOG" not in line:
                out.append(line)
        return out

    def first(self, prefix: str) -> tuple[float, str]:
        """The first stderr line starting with `prefix`, and when it came."""
        found = [(t, line) for t, line in self.lines if line.startswith(prefix)]
        assert found, f"no stderr line starts with {prefix!r}:\n{self.stderr}"
        return found[0]

    def when(self, line: str) -> float:
        """When `line` (a whole line) came; it must come once."""
        found = [t for t, got in self.lines if got.rstrip("\n") == line]
        assert len(found) == 1, f"{line!r} on stderr {len(found)} times:\n{self.stderr[-3000:]}"
        return found[0]


def launch(
    mpi: Mpi,
    n: int,
    argv: Sequence[str],
    cwd: Path,
    during: Callable[[subprocess.Popen], object] | None = None,
    timeout: float = LAUNCH_TIMEOUT,
) -> Run:
    """Run the command `argv` as `n` ranks (`argv` may hold further ``: -n k ...`` parts),
    timing each stderr line; `during(proc)` runs while the job does (its session is the job's:
    the rank processes are found among its members).  The whole session is killed when the
    launch outlives `timeout` or `during` raises."""
    command = mpirun_command(n, argv, mpi.launcher)
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=mpi_env(mpi.launcher), cwd=cwd, start_new_session=True,
    )
    lines: list[tuple[float, str]] = []
    out: list[str] = []

    def read_err() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append((time.monotonic(), line))

    def read_out() -> None:
        out.append(proc.stdout.read())  # type: ignore[union-attr]

    readers = [threading.Thread(target=read_err), threading.Thread(target=read_out)]
    for r in readers:
        r.start()
    started = time.monotonic()
    result = None
    try:
        if during is not None:
            result = during(proc)
        code = proc.wait(timeout=max(1.0, timeout - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        kill_session(proc.pid)
        proc.wait()
        for r in readers:
            r.join(timeout=30)
        raise AssertionError(
            f"{' '.join(command)} did not end within {timeout:g} s; its session was killed\n"
            f"stderr (end): {''.join(x for _, x in lines)[-3000:]}"
        ) from None
    finally:
        if proc.poll() is None:
            kill_session(proc.pid)
            proc.wait()
    end = time.monotonic()
    for r in readers:
        r.join(timeout=30)
    return Run(code, "".join(out), lines, end, result)
