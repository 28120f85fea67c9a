"""`// RUN:` lines run as lit runs them, with this package's tools (the plugin's
``*.shlo_test.mlir`` files and ``@pytest.mark.stablehlo_conformance``, and the repository's
upstream conformance suites).

    for line in run_lines(path):                   # the file's RUN lines, continuations joined
        r = execute(line, path, tmp)               # a CompletedProcess: returncode, stdout, stderr

A RUN line is a shell pipeline (bash with ``pipefail``) in which

- ``%s`` is the file, ``%S`` its directory, ``%t`` a scratch path (one per file, as in lit);
- ``stablehlo-opt``, ``stablehlo-translate`` and ``stablehlo-reduce`` are this package's console
  scripts (beside the running Python, else on ``PATH``);
- ``FileCheck`` is the ``filecheck`` PyPI package's (``pip install filecheck``, in the ``test``
  extra; its script, else ``python -m filecheck``);
- ``not CMD`` succeeds when CMD exits with a status from 1 to 127 (lit's ``not``: a command killed
  by a signal is a failure), ``not --crash CMD`` when it is killed by a signal;
- a line continued with a trailing ``\\`` goes on in the next RUN line; lit's conditionals
  (``%if feature %{ ... %}``) are skipped.

:class:`RunLine` splits a ``stablehlo-opt FLAGS %s | FileCheck FLAGS %s`` line into its two commands
(the repository's chunk-by-chunk runner uses it).  Only the standard library is imported here: the
pytest plugin reads these files at collection time.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BIN",
    "NOT_AS_LIT",
    "TOOLS",
    "RunCommand",
    "RunLine",
    "execute",
    "filecheck_available",
    "missing_tools",
    "numbered_run_lines",
    "run_lines",
    "substitute",
    "tool",
]

BIN = Path(sys.executable).parent
"""Where the running Python's console scripts are."""

TOOLS = ("stablehlo-opt", "stablehlo-translate", "stablehlo-reduce")
"""This package's console scripts a RUN line may use."""

FILECHECK = "filecheck"
"""The ``filecheck`` PyPI package: its console script and its module."""

# lit's `not` negates the exit status of the ONE command it prefixes (`not A | FileCheck` fails when
# A succeeds or when FileCheck fails), and a command killed by a signal is a failure, not a success
# (that needs `not --crash`).  Defined as a shell function so that `not` works anywhere in a
# pipeline, exactly as written in the RUN line.
NOT_AS_LIT = (
    "not() { "
    'if [ "$1" = "--crash" ]; then shift; "$@"; [ $? -ge 128 ]; return; fi; '
    '"$@"; local rc=$?; [ $rc -ne 0 ] && [ $rc -lt 128 ]; }\n'
)

_RUN = "// RUN:"


@dataclass(frozen=True)
class RunCommand:
    """A RUN line of a file: its text (continuations joined) and the line it starts on."""

    line: int
    text: str


def numbered_run_lines(path: Path) -> list[RunCommand]:
    """The file's RUN lines with the (1-based) line each starts on."""
    out: list[RunCommand] = []
    cont = ""
    start = 0
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        s = line.strip()
        if not s.startswith(_RUN):
            continue
        body = s[len(_RUN) :].strip()
        if not cont:
            start = number
        if body.endswith("\\"):
            cont += body[:-1] + " "
            continue
        full = cont + body
        cont = ""
        if full.startswith("%if"):
            continue  # lit conditionals (`%if asserts`) need a debug build of upstream
        out.append(RunCommand(start, full))
    return out


def run_lines(path: Path) -> list[str]:
    """The file's RUN lines (continuations joined, ``%if`` lines left out)."""
    return [c.text for c in numbered_run_lines(path)]


def tool(name: str) -> str:
    """The console script ``name`` beside the running Python, else on ``PATH``, else ``name``."""
    p = BIN / name
    return str(p) if p.exists() else (shutil.which(name) or name)


def _found(name: str) -> bool:
    return (BIN / name).exists() or shutil.which(name) is not None


def filecheck_available() -> bool:
    """Whether FileCheck can run: the ``filecheck`` script or module."""
    return _found(FILECHECK) or importlib.util.find_spec(FILECHECK) is not None


def _filecheck() -> str:
    """FileCheck as a shell command: the script when installed, else ``python -m filecheck``."""
    if not _found(FILECHECK) and importlib.util.find_spec(FILECHECK) is not None:
        return f"{shlex.quote(sys.executable)} -m {FILECHECK}"
    return shlex.quote(tool(FILECHECK))


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w./-]){re.escape(name)}(?![\w.-])")


_TOOL_WORDS = {name: _word(name) for name in (*TOOLS, "FileCheck")}


def substitute(cmd: str, path: Path, tmp: Path) -> str:
    """The RUN line as a shell command (see the module doc): tools first, then ``%S``, ``%s``,
    ``%t`` (so a path that happens to hold a tool's name is left alone)."""
    out = cmd
    for name in TOOLS:
        out = _TOOL_WORDS[name].sub(lambda _m, n=name: shlex.quote(tool(n)), out)
    out = _TOOL_WORDS["FileCheck"].sub(lambda _m: _filecheck(), out)
    out = out.replace("%S", shlex.quote(str(Path(path).parent)))
    return out.replace("%s", shlex.quote(str(path))).replace("%t", shlex.quote(str(tmp)))


def missing_tools(cmd: str) -> list[str]:
    """What the RUN line needs and cannot find, each with how to install it (empty when all are
    there)."""
    out = []
    if _TOOL_WORDS["FileCheck"].search(cmd) and not filecheck_available():
        out.append("FileCheck (pip install filecheck, or stablehlo-py's `test` extra)")
    for name in TOOLS:
        if _TOOL_WORDS[name].search(cmd) and not _found(name):
            out.append(f"{name} (a console script of stablehlo-py: pip install stablehlo-py)")
    return out


def execute(
    cmd: str, path: Path, tmp: Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run one RUN line of ``path`` (``%t`` is ``tmp``) with bash and ``pipefail``; raises
    ``subprocess.TimeoutExpired`` after ``timeout`` seconds."""
    full = substitute(cmd, path, tmp)
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", NOT_AS_LIT + full],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True)
class RunLine:
    """A `stablehlo-opt <flags> %s | FileCheck <flags> %s` RUN line, split into its two commands."""

    opt_args: list[str]
    filecheck_args: list[str]

    @classmethod
    def parse(cls, run_line: str) -> RunLine:
        parts = run_line.split("|")
        opt = shlex.split(parts[0])
        if not opt or opt[0] != "stablehlo-opt":
            raise ValueError(f"not a stablehlo-opt RUN line: {run_line!r}")
        fc: list[str] = []
        if len(parts) > 1:
            fc_cmd = shlex.split(parts[1])
            if not fc_cmd or fc_cmd[0] != "FileCheck":
                raise ValueError(f"RUN line does not pipe into FileCheck: {run_line!r}")
            fc = [a for a in fc_cmd[1:] if a != "%s"]
        return cls([a for a in opt[1:] if a != "%s"], fc)

    @property
    def prefixes(self) -> list[str]:
        out: list[str] = []
        for a in self.filecheck_args:
            for flag in (
                "--check-prefixes=",
                "--check-prefix=",
                "-check-prefixes=",
                "-check-prefix=",
            ):
                if a.startswith(flag):
                    out += a[len(flag) :].split(",")
        return out or ["CHECK"]

    def checks(self, text: str) -> bool:
        """Whether the text has a directive of one of the RUN line's FileCheck prefixes."""
        alt = "|".join(re.escape(p) for p in self.prefixes)
        return re.search(rf"(?:{alt})(?:-[A-Z]+)?:", text) is not None
