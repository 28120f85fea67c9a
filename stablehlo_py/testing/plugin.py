"""stablehlo-py's pytest plugin (entry point ``pytest11``; before it is installed as one, load it
with ``-p stablehlo_py.testing.plugin`` or ``pytest_plugins = ["stablehlo_py.testing.plugin"]`` in a
conftest).

Fixtures (`fixtures.py`):

- ``stablehlo_interpreter``: ``stablehlo_interpreter(program, *args, trace=LEVEL, probes=True)``,
  its trace and probe files in the test's ``tmp_path``;
- ``stablehlo_artifact``: ``stablehlo_artifact.round_trip(program, target="1.0.0")``, once per
  artifact format (``mlir``, ``msgpack``; ``.format``);
- ``stablehlo_backend``: once per backend (``xla``, ``iree``; ``.name``), skipped with the reason
  when the backend is not installed; ``.run(program, *args)``, ``.assert_matches(program, *args)``.

Parametrize them indirectly to choose: ``@pytest.mark.parametrize("stablehlo_backend", ["iree"],
indirect=True)``.

Conformance files:

- ``@pytest.mark.stablehlo_conformance("file.mlir", ...)``: before the test runs, every ``// RUN:``
  line of each file (relative to the test's file) runs as lit runs it (`conformance.py`); the test
  fails with the failing lines' commands and output;
- files named ``*.shlo_test.mlir`` are collected as tests, one per RUN line
  (``file.shlo_test.mlir::line3``).

RUN lines use ``stablehlo-opt``, ``stablehlo-translate``, ``stablehlo-reduce``, ``FileCheck``
(the ``filecheck`` package; a line needing it is skipped with the reason when it is missing),
``not``, ``%s``, ``%S``, ``%t``.  The ini option ``stablehlo_run_timeout`` (seconds, 300) bounds
each line.

Loading this module imports pytest and the standard library only: pytest loads it in every run.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stablehlo_py.testing.conformance import RunCommand, execute, missing_tools, numbered_run_lines

__all__ = ["MARKER", "SUFFIX", "RunLineItem", "ShloTestFile"]

MARKER = "stablehlo_conformance"
SUFFIX = ".shlo_test.mlir"
TIMEOUT_INI = "stablehlo_run_timeout"
OUTPUT_TAIL = 3000
"""How many characters of a failing line's stderr (and stdout) the report keeps (the last ones)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        TIMEOUT_INI,
        "seconds each // RUN: line of a stablehlo conformance file may take (default 300)",
        default="300",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(*files): run the // RUN: lines of each .mlir file (relative to the test file) "
        "with stablehlo-py's tools before the test; the test fails when one fails",
    )


def _timeout(config: pytest.Config) -> float:
    text = str(config.getini(TIMEOUT_INI)).strip()
    try:
        value = float(text)
    except ValueError:
        raise pytest.UsageError(
            f"{TIMEOUT_INI} = {text!r}: give a number of seconds (e.g. 300)"
        ) from None
    if value <= 0:
        raise pytest.UsageError(f"{TIMEOUT_INI} = {text!r}: give a positive number of seconds")
    return value


# ------------------------------------------------------------------------------ RUN lines
def _run_one(path: Path, command: RunCommand, tmp: Path, timeout: float) -> str | None:
    """None when the RUN line passes, else the failure's description."""
    head = f"{path.name}:{command.line}: RUN: {command.text}"
    try:
        r = execute(command.text, path, tmp / "t", timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"{head}\n  timed out after {timeout:g} s ({TIMEOUT_INI} sets the limit)"
    if r.returncode == 0:
        return None
    lines = [f"{head}\n  exited with status {r.returncode}"]
    for name, text in (("stderr", r.stderr), ("stdout", r.stdout)):
        if text.strip():
            cut = "..." + text[-OUTPUT_TAIL:] if len(text) > OUTPUT_TAIL else text
            lines.append(f"  --- {name} ---\n{cut.rstrip()}")
    return "\n".join(lines)


def _skip_if_missing(commands: list[RunCommand], where: str) -> None:
    missing = sorted({m for c in commands for m in missing_tools(c.text)})
    if missing:
        pytest.skip(f"{where} needs {', '.join(missing)}")


def run_file(path: Path, timeout: float = 300) -> list[str]:
    """Run every RUN line of ``path`` (each with a scratch ``%t`` in a temporary directory);
    returns the failures' descriptions.  A file without RUN lines is a ``pytest.UsageError``."""
    commands = numbered_run_lines(path)
    if not commands:
        raise pytest.UsageError(f"{path} has no // RUN: line")
    _skip_if_missing(commands, path.name)
    failures = []
    with tempfile.TemporaryDirectory(prefix="stablehlo-run-") as tmp:
        for c in commands:
            problem = _run_one(path, c, Path(tmp), timeout)
            if problem is not None:
                failures.append(problem)
    return failures


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """``@pytest.mark.stablehlo_conformance(files)``: the files' RUN lines before the test."""
    marker = item.get_closest_marker(MARKER)
    if marker is None:
        return
    if not marker.args or not all(isinstance(a, str | Path) for a in marker.args):
        pytest.fail(
            f"@pytest.mark.{MARKER} takes the paths of .mlir files (relative to the test file); "
            f"got {marker.args!r}",
            pytrace=False,
        )
    base = Path(item.path).parent
    failures = []
    for arg in marker.args:
        path = Path(arg) if Path(arg).is_absolute() else base / arg
        if not path.is_file():
            pytest.fail(f"@pytest.mark.{MARKER}: no file {path}", pytrace=False)
        try:
            failures += run_file(path, _timeout(item.config))
        except pytest.UsageError as e:
            pytest.fail(f"@pytest.mark.{MARKER}: {e}", pytrace=False)
    if failures:
        n = len(failures)
        pytest.fail(f"{n} RUN line{'s' if n > 1 else ''} failed:\n" + "\n".join(failures),
                    pytrace=False)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.name.endswith(SUFFIX):
        return ShloTestFile.from_parent(parent, path=file_path)
    return None


class ShloTestFile(pytest.File):
    """A ``*.shlo_test.mlir`` file: one test per RUN line."""

    def collect(self) -> Iterator[pytest.Item]:
        commands = numbered_run_lines(self.path)
        if not commands:
            raise self.CollectError(
                f"{self.path.name} has no // RUN: line (a *{SUFFIX} file is a test: give it "
                "RUN lines such as `// RUN: stablehlo-opt %s | FileCheck %s`)"
            )
        for c in commands:
            yield RunLineItem.from_parent(self, name=f"line{c.line}", command=c)


class RunLineItem(pytest.Item):
    """One RUN line of a ``*.shlo_test.mlir`` file."""

    def __init__(self, *, command: RunCommand, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.command = command

    def runtest(self) -> None:
        _skip_if_missing([self.command], f"RUN line {self.command.line}")
        with tempfile.TemporaryDirectory(prefix="stablehlo-run-") as tmp:
            problem = _run_one(self.path, self.command, Path(tmp), _timeout(self.config))
        if problem is not None:
            pytest.fail(problem, pytrace=False)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.command.line - 1, f"RUN line {self.command.line}"


# ------------------------------------------------------------------------------- fixtures
@pytest.fixture
def stablehlo_interpreter(tmp_path: Path) -> Any:
    """The interpreter, its trace and probe files in ``tmp_path`` (`fixtures.InterpreterRuns`)."""
    from stablehlo_py.testing.fixtures import InterpreterRuns

    return InterpreterRuns(tmp_path)


@pytest.fixture(params=["mlir", "msgpack"])
def stablehlo_artifact(request: pytest.FixtureRequest) -> Any:
    """Portable-artifact round trips in one format, the test running once per format
    (`fixtures.ArtifactRoundTrip`)."""
    from stablehlo_py.testing.fixtures import ArtifactRoundTrip

    try:
        return ArtifactRoundTrip(request.param)
    except ValueError as e:
        pytest.fail(f"stablehlo_artifact: {e}", pytrace=False)


@pytest.fixture(params=["xla", "iree"])
def stablehlo_backend(request: pytest.FixtureRequest) -> Any:
    """A backend, the test running once per backend; skipped with the reason when it is not
    installed (`fixtures.BackendRunner`)."""
    from stablehlo_py.backends import BackendUnavailable, require_iree, require_xla
    from stablehlo_py.testing.fixtures import BackendRunner
    from stablehlo_py.testing.skipping import reason

    name = str(request.param).lower()
    if name not in ("xla", "iree"):
        pytest.fail(f"stablehlo_backend: {request.param!r}: the backends are xla and iree",
                    pytrace=False)
    try:
        require_xla() if name == "xla" else require_iree()
    except BackendUnavailable as e:
        pytest.skip(f"{name}: {reason(e)}")
    return BackendRunner(name)
