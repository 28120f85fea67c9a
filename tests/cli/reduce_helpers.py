"""What the stablehlo-reduce tests share (tests/cli/test_reduce.py, tests/oracle/
test_reduce_iree_sort.py): builder programs made at test time, the tool run as a subprocess with
its time measured, and its report read back."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from stablehlo_py.builder import Module, tensor
from stablehlo_py.builder import stablehlo as hlo

BIN = Path(sys.executable).parent
REDUCE = (
    str(BIN / "stablehlo-reduce") if (BIN / "stablehlo-reduce").exists()
    else shutil.which("stablehlo-reduce")
)

_DOT = {"lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}
_ROWS = tensor((4, 8), "f32")


def _dense(h, w, i: int):
    y = hlo.dot_general(h, w, dot_dimension_numbers=_DOT)
    bias = hlo.constant(np.linspace(0, 1, 8, dtype=np.float32) * (i % 7))
    return hlo.tanh(hlo.add(y, hlo.broadcast_in_dim(bias, broadcast_dimensions=[1],
                                                    result_type=_ROWS)))


def layers_with(layers: int, at: int, special: str) -> Module:
    """``layers`` dense layers on tensor<4x8xf32> (8 ops each: dot_general, bias, tanh, a
    residual); layer ``at`` also runs ``special``: ``"sort"`` (a sort of each row) or
    ``"select_and_scatter"`` (windows of 3 at stride 1: overlapping, which IREE refuses)."""
    m = Module()

    @m.func(tensor((4, 8), "f32"), tensor((8, 8), "f32"))
    def main(x, w):
        h = x
        for i in range(layers):
            y = _dense(h, w, i)
            if i == at and special == "sort":
                y = hlo.sort([y], dimension=1, comparator=lambda a, b: hlo.compare(a, b, "LT"))
            elif i == at and special == "select_and_scatter":
                source = hlo.slice(y, start_indices=[0, 0], limit_indices=[4, 6], strides=[1, 1])
                y = hlo.select_and_scatter(
                    y, source, 0.0, window_dimensions=[1, 3], window_strides=[1, 1],
                    select=lambda a, b: hlo.compare(a, b, "GE"), scatter=hlo.add,
                )
            elif i == at:
                raise ValueError(special)
            h = hlo.add(hlo.multiply(y, 0.5), h)
        return h

    return m


@dataclass
class Report:
    """One run of stablehlo-reduce: its exit status, output and what its report says."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float
    """Wall time of the whole subprocess."""
    before: tuple[int, int] | None = None
    """(ops, functions) before and after."""
    after: tuple[int, int] | None = None
    tests: int | None = None
    invalid: int | None = None
    time: float | None = None
    """The reduction's own time (the report's ``time:`` line)."""

    @property
    def stopped(self) -> bool:
        return "(stopped:" in self.stdout

    def ok(self) -> Report:
        assert self.returncode == 0, (self.returncode, self.stdout, self.stderr)
        assert self.before is not None and self.after is not None, self.stdout
        assert not self.stopped, f"a limit was hit: {self.stdout}"
        return self

    def error(self) -> str:
        """The one error line (exit status 1, no traceback, nothing written to stdout)."""
        assert self.returncode == 1, (self.returncode, self.stdout, self.stderr)
        assert "Traceback" not in self.stderr and "internal error" not in self.stderr
        errors = [line for line in self.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1 and self.stderr.rstrip().endswith(errors[0]), self.stderr
        return errors[0]


_SIZE = re.compile(r"^size: (\d+) ops?, (\d+) functions? -> (\d+) ops?, (\d+) functions?$", re.M)
_TESTS = re.compile(r"^tests: (\d+) run, \d+ kept, (\d+) invalid candidates", re.M)
_TIME = re.compile(r"^time: ([\d.]+) s", re.M)


def run_reduce(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
               timeout: float = 900) -> Report:
    assert REDUCE, "console scripts are not installed (pip install -e .)"
    start = time.perf_counter()
    r = subprocess.run([REDUCE, *args], capture_output=True, text=True, timeout=timeout,
                       cwd=cwd, env=env)
    report = Report(r.returncode, r.stdout, r.stderr, time.perf_counter() - start)
    if m := _SIZE.search(r.stdout):
        report.before = (int(m[1]), int(m[2]))
        report.after = (int(m[3]), int(m[4]))
    if m := _TESTS.search(r.stdout):
        report.tests, report.invalid = int(m[1]), int(m[2])
    if m := _TIME.search(r.stdout):
        report.time = float(m[1])
    return report


def show(what: str, r: Report) -> None:
    """The figures of a run, for ``pytest -s`` and the notes."""
    print(f"\n{what}: {r.before} -> {r.after} (ops, functions), {r.tests} tests, "
          f"{r.invalid} invalid, reduction {r.time} s, wall {r.seconds:.1f} s")


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path
