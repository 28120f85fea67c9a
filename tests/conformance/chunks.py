"""Run an upstream test file's `stablehlo-opt ... --split-input-file ... | FileCheck %s` RUN line chunk by chunk.

lit runs the RUN line once over the whole file; a single failing chunk then hides how many others pass.
These helpers split the file at `// -----` (as `--split-input-file` does), run our stablehlo-opt
in-process on each chunk (one interpreter start instead of one per chunk) with the RUN line's flags, and
FileCheck each chunk's output against its own CHECK lines, so each chunk passes or fails on its own.

Each chunk is written with as many leading newlines as it had lines before it in the file, so
diagnostics (and `-verify-diagnostics` expectations) keep the file's line numbers.

Use:
    (line,) = run_lines(PATH)
    report = run_chunks(PATH, line, tmp_path, known_failure=lambda chunk: None)
    report.print_summary(PATH.name)
    assert not report.failures, report.failure_text()
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stablehlo_py.testing.conformance import RunLine

_OP = re.compile(r"(?<![#!\w.])((?:stablehlo|chlo)\.[a-z_0-9]+)")
_FUNC = re.compile(r"func\.func (?:(?:public|private|nested) )?@([\w.$-]+)")
_SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)


@dataclass
class Chunk:
    index: int
    line: int  # 1-based line of the chunk's first line in the file
    text: str

    @property
    def name(self) -> str:
        """The first function's name (what upstream's chunks are named after), else `chunk<N>`."""
        m = _FUNC.search(self.text)
        return m.group(1) if m else f"chunk{self.index}"

    @property
    def label(self) -> str:
        return f"{self.name} (line {self.line})"

    @property
    def ops(self) -> set[str]:
        """stablehlo/chlo op names used in the chunk's code (comments stripped)."""
        code = "\n".join(line.split("//", 1)[0] for line in self.text.splitlines())
        return set(_OP.findall(code))

    @property
    def has_code(self) -> bool:
        code = "\n".join(line.split("//", 1)[0] for line in self.text.splitlines())
        return bool(code.strip())


def split_chunks(path: Path) -> list[Chunk]:
    """The file's chunks as `--split-input-file` cuts them (at lines starting with `// -----`)."""
    text = path.read_text()
    out: list[Chunk] = []
    line = 1
    for i, part in enumerate(_SPLIT.split(text)):
        out.append(Chunk(i, line, part))
        line += part.count("\n")
    return out


def run_chunk(chunk: Chunk, run: RunLine, tmp: Path) -> str | None:
    """None when the chunk passes the RUN line, else what failed (stablehlo-opt's or FileCheck's output)."""
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    from stablehlo_py.cli.opt import main

    src = tmp / f"chunk{chunk.index}.mlir"
    out = tmp / f"chunk{chunk.index}.out"
    src.write_text("\n" * (chunk.line - 1) + chunk.text)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main([*run.opt_args, str(src), "-o", str(out)])
    except Exception as e:  # noqa: BLE001 -- an internal error is a chunk failure, reported with its type
        return f"stablehlo-opt raised {type(e).__name__}: {e}"
    if rc != 0:
        return f"stablehlo-opt exited {rc}:\n{err.getvalue()[-2000:]}"
    if not run.checks(chunk.text):
        return None  # nothing to match: FileCheck would report "no check strings found"
    fc_out = io.StringIO()
    with contextlib.redirect_stdout(fc_out), contextlib.redirect_stderr(fc_out):
        opts = parse_argv_options(
            ["filecheck", str(src), "--input-file", str(out), *run.filecheck_args]
        )
        code = Matcher.from_opts(opts).run()
    if code != 0:
        return f"FileCheck failed:\n{fc_out.getvalue()[-2000:]}"
    return None


@dataclass
class ChunkReport:
    passed: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)  # "label: reason" of known failures
    known_passing: list[str] = field(default_factory=list)  # known failures that pass now
    failures: list[str] = field(default_factory=list)  # "label: problem"

    @property
    def total(self) -> int:
        return len(self.passed) + len(self.known) + len(self.failures)

    def print_summary(self, name: str) -> None:
        print(
            f"\n{name}: {len(self.passed)}/{self.total} chunks pass, {len(self.known)} known failures"
        )
        for k in self.known:
            print("  known failure:", k)
        for p in self.known_passing:
            print("  known failure now passes (remove it from the list):", p)

    def failure_text(self) -> str:
        return f"{len(self.failures)} chunk(s) fail:\n" + "\n\n".join(self.failures)


def run_chunks(
    path: Path,
    run_line: str,
    tmp: Path,
    known_failure: Callable[[Chunk], str | None] = lambda _chunk: None,
) -> ChunkReport:
    """Run every chunk that holds code; `known_failure(chunk)` gives the reason a chunk may fail, or None."""
    run = RunLine.parse(run_line)
    report = ChunkReport()
    for chunk in split_chunks(path):
        if not chunk.has_code:
            continue
        problem = run_chunk(chunk, run, tmp)
        reason = known_failure(chunk)
        if problem is None:
            report.passed.append(chunk.label)
            if reason is not None:
                report.known_passing.append(chunk.label)
        elif reason is not None:
            report.known.append(f"{chunk.label}: {reason}")
        else:
            report.failures.append(f"{chunk.label}: {problem}")
    return report
