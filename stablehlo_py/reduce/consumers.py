"""What runs a candidate outside the interpreter: XLA and IREE in this process, and commands as
subprocesses (the tests of :mod:`.divergence`, :mod:`.commands` and ``FailsWith(on=...)``).

- :func:`run_backend`: a candidate compiled and run by ``xla`` or ``iree`` (:mod:`stablehlo_py.
  backends`) on its inputs; :func:`check_backend` raises :class:`~stablehlo_py.backends.
  BackendUnavailable` up front when the backend is not installed.
- :func:`run_command`: a command run on a candidate written to a fresh temporary directory as
  ``candidate.mlir`` (its inputs beside it as ``candidate.inputs.npz``, :func:`~.files.
  write_program`), the file's path appended as the last argument, stdin closed, stdout and stderr
  captured, in a session of its own so that on a timeout the whole process group is killed.
  The candidate's path in its output is written ``-``, as the in-process tools name the text they
  read: an error's ``-:LINE:COL`` then points into the candidate's text (``FailsWith``'s focus),
  and the output of two candidates does not differ by their temporary directories.
- :func:`command_argv`: a command given as text (split as a POSIX shell splits words) or a list,
  its program checked to exist (``which``) so a typo fails at the start, not on every candidate.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from stablehlo_py.reduce.files import write_program
from stablehlo_py.reduce.program import Program, ReduceError

__all__ = [
    "BACKEND_NAMES",
    "COMMAND_TIMEOUT",
    "Completed",
    "check_backend",
    "command_argv",
    "run_backend",
    "run_command",
]

BACKEND_NAMES = ("xla", "iree")

COMMAND_TIMEOUT = 60.0
"""Seconds a command gets on one candidate by default (a hang is then killed, and counted)."""


def check_backend(name: str) -> None:
    """Raise ``BackendUnavailable`` (naming the extra to install) unless ``name`` can run;
    ReduceError for a name that is no backend."""
    from stablehlo_py.backends import require_iree, require_xla

    if name == "xla":
        require_xla()
    elif name == "iree":
        require_iree()
    else:
        raise ReduceError(f"unknown backend {name!r}: the backends are {', '.join(BACKEND_NAMES)}")


def backend_arrays(program: Program) -> list[np.ndarray]:
    """The program's inputs as arrays (a backend takes nothing else)."""
    out = []
    for i, a in enumerate(program.inputs):
        if not isinstance(a, (np.ndarray, np.generic)):
            raise ReduceError(
                f"argument {i} of @{program.entry} is a {type(a).__name__}, not an array: XLA "
                "and IREE are given arrays only"
            )
        out.append(np.asarray(a))
    return out


def run_backend(name: str, program: Program, module: Any = None) -> list[np.ndarray]:
    """``program`` (or ``module``, a parse of its text) compiled by ``name`` (``xla`` or
    ``iree``) and run on the program's inputs; the backend's own exceptions pass through."""
    from stablehlo_py.backends import run_iree, run_xla

    module = program.fresh_module() if module is None else module
    args = backend_arrays(program)
    if name == "xla":
        if program.entry != "main":
            raise ReduceError(
                f"XLA runs @main, and the entry function is @{program.entry}: rename it, or "
                "use IREE"
            )
        return [np.asarray(r) for r in run_xla(module, args)]
    if name == "iree":
        return [np.asarray(r) for r in run_iree(module, args, program.entry)]
    raise ReduceError(f"unknown backend {name!r}: the backends are {', '.join(BACKEND_NAMES)}")


# ---------------------------------------------------------------------------------- commands
def command_argv(command: str | Sequence[str], what: str = "command") -> list[str]:
    """``command`` as an argument list whose program exists (ReduceError otherwise)."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise ReduceError(f"{what} {command!r} cannot be split into words: {e}") from None
    else:
        argv = [str(a) for a in command]
    if not argv:
        raise ReduceError(f"the {what} is empty: name a program to run")
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program)
        if not path.is_file():
            raise ReduceError(f"the {what}'s program {program} does not exist")
        if not os.access(path, os.X_OK):
            raise ReduceError(
                f"the {what}'s program {program} is not executable: chmod +x {program}, or run "
                f"it through its interpreter (sh {program} ...)"
            )
        argv[0] = os.path.abspath(path)  # not resolved: a venv's python is a symlink
    elif shutil.which(program) is None:
        raise ReduceError(f"the {what}'s program '{program}' is not found on PATH")
    return argv


@dataclass(frozen=True)
class Completed:
    """How a command ended on one candidate."""

    returncode: int | None
    """The exit status; minus the signal's number when a signal ended it; None on a timeout."""
    output: str
    """stderr, then stdout (decoded, undecodable bytes replaced)."""
    timed_out: bool = False

    @property
    def crashed(self) -> bool:
        """Ended by a signal, or with a status >= 128 (as shells report a signal's death)."""
        return self.returncode is not None and (self.returncode < 0 or self.returncode >= 128)

    def status(self) -> str:
        """``exit status 1``, ``killed by signal 11 (SIGSEGV)``, ``timed out``."""
        if self.returncode is None:
            return "timed out"
        if self.returncode < 0:
            try:
                name = f" ({signal.Signals(-self.returncode).name})"
            except ValueError:
                name = ""
            return f"killed by signal {-self.returncode}{name}"
        return f"exit status {self.returncode}"


def _writable_inputs(program: Program) -> bool:
    return all(isinstance(a, (np.ndarray, np.generic)) for a in program.inputs)


def run_command(
    argv: Sequence[str], program: Program, timeout: float | None = COMMAND_TIMEOUT
) -> Completed:
    """Run ``argv`` + [the candidate's path] (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="stablehlo-reduce-") as tmp:
        path = Path(tmp) / "candidate.mlir"
        if _writable_inputs(program):
            write_program(program, path)
        else:  # a token argument: no inputs file (it holds tensors only)
            path.write_text(program.text)
        try:
            proc = subprocess.Popen(
                [*argv, str(path)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:
            raise ReduceError(f"cannot run {argv[0]}: {e.strerror}") from None
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            out, err = proc.communicate()
            return Completed(None, _text(err, out, path), timed_out=True)
        except BaseException:  # an interrupt, a CPU budget: no process left behind
            _kill_group(proc)
            proc.communicate()
            raise
        return Completed(proc.returncode, _text(err, out, path))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


def _text(err: bytes | None, out: bytes | None, path: Path) -> str:
    """stderr then stdout, the candidate's path written ``-`` (module doc)."""
    parts = [b.decode("utf-8", "replace") for b in (err, out) if b]
    text = "\n".join(p.rstrip("\n") for p in parts)
    return text.replace(str(path), "-")
