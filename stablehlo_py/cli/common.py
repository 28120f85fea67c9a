"""What both tools share: MLIR-style flags, input/output, `--split-input-file`, `--verify-diagnostics`,
and turning every error into `file:line:col: error: message` with a non-zero exit (never a traceback)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stablehlo_py.errors import StableHLOError

SPLIT_MARKER = "// -----"


def normalize_argv(argv: Sequence[str], short_flags: set[str]) -> list[str]:
    """LLVM's command line accepts `-flag` and `--flag` alike; click wants `--flag`."""
    out = []
    for a in argv:
        if a.startswith("-") and not a.startswith("--") and len(a) > 2 and a.split("=")[0] not in short_flags:
            out.append("-" + a)
        else:
            out.append(a)
    return out


def read_input(path: str) -> tuple[str, str]:
    """(text, name used in diagnostics)."""
    data, name = read_input_bytes(path)
    return decode_text(data, name), name


def decode_text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise StableHLOError(
            f"input is not UTF-8 text (byte {e.start}); binary artifacts are read with "
            "`stablehlo-translate --deserialize`",
            location=name,
        ) from None


def read_input_bytes(path: str) -> tuple[bytes, str]:
    if path == "-":
        return sys.stdin.buffer.read(), "<stdin>"
    try:
        with open(path, "rb") as f:
            return f.read(), path
    except OSError as e:
        raise StableHLOError(f"cannot open input file '{path}': {e.strerror}") from None


def write_output(path: str | None, data: str | bytes) -> None:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if path is None or path == "-":
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
        return
    try:
        with open(path, "wb") as f:
            f.write(raw)
    except OSError as e:
        raise StableHLOError(f"cannot write output file '{path}': {e.strerror}") from None


def split_chunks(text: str, split: bool) -> list[tuple[int, str]]:
    """(line offset, chunk) pairs; one chunk unless `split`."""
    if not split:
        return [(0, text)]
    chunks = []
    line = 0
    for part in re.split(r"^// -----.*$", text, flags=re.M):
        chunks.append((line, part))
        line += part.count("\n")
    return chunks


def run_guarded(body: Callable[[], int]) -> int:
    """Run a tool body; print StableHLOError messages (not tracebacks) and return the exit code."""
    try:
        return body()
    except StableHLOError as e:
        sys.stdout.flush()
        print(str(e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    except RecursionError:
        print("error: input is nested too deeply", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - last-resort guard: report, never a traceback
        if os.environ.get("STABLEHLO_PY_DEBUG"):
            raise
        print(
            f"error: internal error in stablehlo-py ({type(e).__name__}: {e}); please report it with the "
            "input (set STABLEHLO_PY_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 2


# ----------------------------------------------------------------------- verify-diagnostics
# (MLIR's expectedRegex is not anchored: `// @expected-error@+1 {{...}}` counts too)
_EXPECT = re.compile(
    r"//\s*@?expected-(error|warning|remark|note)(-re)?\s*(?:@(above|below|[+-]\d+))?\s*\{\{(.*?)\}\}"
)


@dataclass
class Expected:
    kind: str
    line: int
    text: str
    regex: bool
    seen: bool = False


def expected_diagnostics(chunk: str, line_offset: int) -> list[Expected]:
    out = []
    for i, line in enumerate(chunk.splitlines()):
        for m in _EXPECT.finditer(line):
            at = m.group(3)
            target = i + 1 + line_offset
            if at == "above":
                target -= 1
            elif at == "below":
                target += 1
            elif at:
                target += int(at)
            out.append(Expected(m.group(1), target, m.group(4), bool(m.group(2))))
    return out


def check_diagnostic(expected: list[Expected], err: StableHLOError, name: str) -> list[str]:
    """Match one produced error against the expectations; return problems (empty = matched)."""
    loc = err.location or ""
    m = re.search(r":(\d+):(\d+)$", loc)
    line = int(m.group(1)) if m else -1
    for e in expected:
        if e.kind != "error" or e.seen or e.line != line:
            continue
        ok = re.search(_mlir_regex(e.text), err.message) if e.regex else e.text in err.message
        if ok:
            e.seen = True
            return []
    return [f"{loc or name}: error: unexpected error: {err.message}"]


def _mlir_regex(text: str) -> str:
    # expected-error-re: text with {{regex}} pieces; we accept the whole as a regex after escaping literals.
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return "".join(re.escape(p) if i % 2 == 0 else p for i, p in enumerate(parts))


def unmet(expected: list[Expected], name: str) -> list[str]:
    return [
        f"{name}:{e.line}: error: expected {e.kind} \"{e.text}\" was not produced"
        for e in expected
        if not e.seen and e.kind == "error"
    ]
