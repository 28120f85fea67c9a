"""upstream's result-type inference tests (`infer/infer_stablehlo.mlir`, run through `--hlo-test-infer`).

The file's RUN line (`stablehlo-opt --hlo-test-infer --allow-unregistered-dialect --split-input-file
--verify-diagnostics %s | FileCheck %s`) is run once as a subprocess over the whole file (it must
pass), and then chunk by chunk (`// -----`), each chunk with our stablehlo-opt (in-process: one
interpreter start instead of 127) and FileCheck on its own CHECK lines, so that each chunk passes or
fails on its own.

A chunk passes, or is a known failure with its reason:
* "no rule yet for X": computed at test time from `has_rule`, so the list shrinks as rules land;
* `PENDING`: chunks whose ops all have rules but whose verifier does not go through the rule yet
  (work in progress of the op families); a pending chunk that passes is reported, not failed.
Any other failing chunk fails the test.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conformance.runlines import execute, run_lines
from tests.conftest import CONFORMANCE

INFER = CONFORMANCE / "infer" / "infer_stablehlo.mlir"

# ops that upstream infers nothing for (terminators): they never need a rule
NOT_INFERRED = frozenset({"stablehlo.return", "chlo.return"})

# chunk (function name) -> why it fails although its ops have rules; shrinks as verifiers adopt rules
PENDING: dict[str, str] = {}

_OP = re.compile(r"(?<![#!\w.])((?:stablehlo|chlo)\.[a-z_0-9]+)")
_FUNC = re.compile(r"func\.func @([\w.$-]+)")
_SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)


@dataclass
class Chunk:
    index: int
    line: int  # 1-based line of the chunk's first line in the file
    text: str

    @property
    def name(self) -> str:
        m = _FUNC.search(self.text)
        return m.group(1) if m else f"chunk{self.index}"

    @property
    def ops(self) -> set[str]:
        code = "\n".join(line.split("//", 1)[0] for line in self.text.splitlines())
        return set(_OP.findall(code))


def _chunks() -> list[Chunk]:
    text = INFER.read_text()
    out, line = [], 1
    for i, part in enumerate(_SPLIT.split(text)):
        out.append(Chunk(i, line, part))
        line += part.count("\n")
    return out


def _opt_args(run_line: str) -> list[str]:
    """The stablehlo-opt flags of the RUN line (`stablehlo-opt <flags> %s | FileCheck %s`)."""
    opt = run_line.split("|", 1)[0].split()
    assert opt[0] == "stablehlo-opt", run_line
    return [a for a in opt[1:] if a != "%s"]


def _run_chunk(chunk: Chunk, args: list[str], tmp: Path) -> str | None:
    """None when the chunk passes its RUN line, else what failed."""
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    from stablehlo_py.cli.opt import main

    src = tmp / f"chunk{chunk.index}.mlir"
    out = tmp / f"chunk{chunk.index}.out"
    src.write_text("\n" * (chunk.line - 1) + chunk.text)  # diagnostics keep the file's line numbers
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main([*args, str(src), "-o", str(out)])
    if rc != 0:
        return f"stablehlo-opt exited {rc}:\n{err.getvalue()[-2000:]}"
    if not re.search(r"//\s*CHECK", chunk.text):
        return None
    fc_out = io.StringIO()
    with contextlib.redirect_stdout(fc_out), contextlib.redirect_stderr(fc_out):
        opts = parse_argv_options(["filecheck", str(src), "--input-file", str(out)])
        code = Matcher.from_opts(opts).run()
    if code != 0:
        return f"FileCheck failed:\n{fc_out.getvalue()[-2000:]}"
    return None


def _known_failure(chunk: Chunk) -> str | None:
    from stablehlo_py.ir.infer import has_rule

    missing = sorted(op for op in chunk.ops if op not in NOT_INFERRED and not has_rule(op))
    if missing:
        return "no rule yet for " + ", ".join(missing)
    return None


@pytest.mark.skipif(not INFER.is_file(), reason="../shared/conformance/infer is absent")
def test_run_line_over_the_whole_file(tmp_path: Path) -> None:
    """The RUN line as lit runs it passes: every chunk, diagnostics and CHECK lines included."""
    (line,) = run_lines(INFER)
    r = execute(line, INFER, tmp_path / "t")
    assert "internal error" not in r.stderr, r.stderr[-3000:]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode == 0, r.stderr[-3000:]


@pytest.mark.skipif(not INFER.is_file(), reason="../shared/conformance/infer is absent")
def test_infer_chunks(tmp_path: Path) -> None:
    (line,) = run_lines(INFER)
    args = _opt_args(line)
    passed, known, pending_passing, failures = [], [], [], []
    for chunk in _chunks():
        if not chunk.text.strip() or not _FUNC.search(chunk.text):
            continue
        problem = _run_chunk(chunk, args, tmp_path)
        reason = _known_failure(chunk)
        label = f"{chunk.name} (line {chunk.line})"
        if problem is None:
            passed.append(label)
            if chunk.name in PENDING:
                pending_passing.append(label)
        elif reason is not None:
            known.append(f"{label}: {reason}")
        elif chunk.name in PENDING:
            known.append(f"{label}: {PENDING[chunk.name]}")
        else:
            failures.append(f"{label}: {problem}")
    print(f"\ninfer_stablehlo.mlir: {len(passed)} chunks pass, {len(known)} known failures")
    for k in known:
        print("  known failure:", k)
    for p in pending_passing:
        print("  PENDING chunk now passes (remove it from PENDING):", p)
    assert not failures, f"{len(failures)} chunk(s) fail:\n" + "\n\n".join(failures)
