"""What both tools share: MLIR-style flags, input/output, `--split-input-file`, `--verify-diagnostics`,
and turning every error into `file:line:col: error: message` with a non-zero exit (never a traceback)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stablehlo_py.errors import StableHLOError

if TYPE_CHECKING:
    from xdsl.ir import Operation

SPLIT_MARKER = "// -----"


@dataclass(frozen=True)
class TextOptions:
    """How stablehlo-opt reads and prints a module's text (`--allow-unregistered-dialect`,
    `--mlir-print-op-generic`, `--mlir-print-debuginfo`, not `--mlir-print-local-scope`); its
    artifact modes (cli/artifacts.py) print with the first two."""

    allow_unregistered: bool
    generic: bool
    debuginfo: bool
    location_aliases: bool

    def print(self, module: Operation) -> str:
        from stablehlo_py.ir import print_ir

        return print_ir(
            module,
            generic=self.generic,
            debuginfo=self.debuginfo,
            location_aliases=self.location_aliases,
        )


def normalize_argv(argv: Sequence[str], short_flags: set[str]) -> list[str]:
    """LLVM's command line accepts `-flag` and `--flag` alike; click wants `--flag`."""
    out = []
    for a in argv:
        if (
            a.startswith("-")
            and not a.startswith("--")
            and len(a) > 2
            and a.split("=")[0] not in short_flags
        ):
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


def is_binary(data: bytes) -> bool:
    """MLIR bytecode, a portable artifact (msgpack, or JAX's serialized ``Exported``) or legacy IR
    bytecode, by their magic numbers (an ``Exported``, a flatbuffer without one, by its structure
    when the input is not UTF-8 text).  UTF-8 text is none of them (each magic number holds a byte
    that UTF-8 text cannot have there), so text, the common case, is told apart without importing
    the serialization package."""
    try:
        data.decode("utf-8")
        return False
    except UnicodeDecodeError:
        pass
    from stablehlo_py.ir.bytecode import is_ir_bytecode
    from stablehlo_py.serialization.format import MAGIC as ARTIFACT_MAGIC
    from stablehlo_py.serialization.jax_export import is_jax_exported
    from stablehlo_py.serialization.mlirbc import MAGIC as MLIR_MAGIC

    if data.startswith((MLIR_MAGIC, ARTIFACT_MAGIC)) or is_ir_bytecode(data):
        return True
    return is_jax_exported(data)


def read_stablehlo_binary(data: bytes, name: str) -> object:
    """The StableHLO module of binary input (``is_binary``): a portable artifact of either format
    or a JAX ``Exported`` deserialized (converted to the current StableHLO), MLIR bytecode of the
    stablehlo dialect as it is, legacy IR bytecode."""
    from stablehlo_py.ir.bytecode import is_ir_bytecode, read_ir_bytecode

    if is_ir_bytecode(data):
        return read_ir_bytecode(data, name)
    from stablehlo_py.serialization import deserialize_portable_artifact

    return deserialize_portable_artifact(data, name=name)


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


FORMAT_ENV = "STABLEHLO_PY_ARTIFACT_FORMAT"
"""The artifact format `--serialize` writes when `--format` is not given: `msgpack` (unset, this
toolkit's default) or `mlir` (upstream's MLIR bytecode, what upstream's tools write: e.g. to run
upstream's `stablehlo-translate --serialize ... | diff X.mlir.bc -` RUN lines as written)."""


def artifact_format(explicit: object) -> str:
    """The format for `--serialize`: `--format` if given, else $STABLEHLO_PY_ARTIFACT_FORMAT, else
    msgpack (an unknown name is refused by the writer, naming the formats)."""
    if explicit:
        return str(explicit)
    return os.environ.get(FORMAT_ENV) or "msgpack"


def split_chunks(text: str, split: bool) -> list[tuple[int, str]]:
    """(line offset, chunk) pairs; one chunk unless `split`."""
    if not split:
        return [(0, text)]
    chunks = []
    line = 0
    for part in re.split(r"^// -----.*$", text, flags=re.MULTILINE):
        chunks.append((line, part))
        line += part.count("\n")
    return chunks


def tool_main(
    prog: str, argv: Sequence[str] | None, args: list[str], run: Callable[[list[str]], object]
) -> int:
    """The entry of each tool: ``run(args)`` (a click command's main) with click's exits turned into
    exit codes and its usage errors into one-line errors (:func:`run_guarded`); exits the process
    when called as a script (``argv`` None), else returns the exit code."""
    import click

    def body() -> int:
        try:
            rc = run(args)
        except click.exceptions.Exit as e:
            return e.exit_code
        except click.UsageError as e:
            raise StableHLOError(f"{e.format_message()}; see {prog} --help") from None
        return rc if isinstance(rc, int) else 0

    code = run_guarded(body)
    if argv is None:
        sys.exit(code)
    return code


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
    except Exception as e:
        if os.environ.get("STABLEHLO_PY_DEBUG", "0") not in ("", "0"):
            raise
        print(
            f"error: internal error in stablehlo-py ({type(e).__name__}: {e}); please report it with the "
            "input (set STABLEHLO_PY_DEBUG=1 for a traceback)",
            file=sys.stderr,
        )
        return 2


# ----------------------------------------------------------------------- verify-diagnostics
# MLIR's SourceMgrDiagnosticVerifierHandler (mlir/lib/IR/Diagnostics.cpp), rewritten: the designator
# pattern is searched in every line (so `// @expected-error@+1 {{...}}` counts too), spaces only between
# its parts, the text runs from the first `{{` to the `}}` that ends the line.
_DESIGNATOR = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$"
)
_LOCATION = re.compile(r"^(.*):(\d+):(\d+)$")


@dataclass
class Expected:
    """One `expected-<kind>` designator: the line it applies to (None: `@unknown`), its text, and
    where the designator itself is written (`designator` line, `column`) for MLIR's messages."""

    kind: str
    line: int | None
    text: str
    regex: re.Pattern[str] | None
    designator: int
    column: int
    seen: bool = False

    def matches(self, message: str) -> bool:
        return bool(self.regex.search(message)) if self.regex is not None else self.text in message


def mlir_regex(text: str) -> str:
    """An `expected-<kind>-re` text as one regex: text outside `{{...}}` is literal, each `{{...}}`
    piece is a regex (in a group).  Raises ValueError with MLIR's message when malformed."""
    out = []
    rest = text
    while rest:
        start = rest.find("{{")
        if start < 0:
            out.append(re.escape(rest))
            break
        out.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            raise ValueError("found start of regex with no end '}}'")
        piece = rest[:end]
        try:
            re.compile(piece)
        except re.error as e:
            raise ValueError(f"invalid regex: {e}") from None
        out.append(f"({piece})")
        rest = rest[end + 2 :]
    return "".join(out)


class DiagnosticVerifier:
    """`--verify-diagnostics` for one chunk (`line_offset` lines into file `name`): collect the
    designators, match each produced diagnostic (`process`), then report what was not produced
    (`finish`).  Problems are MLIR's messages, as `file:line:col: error: ...` lines."""

    def __init__(self, chunk: str, name: str, line_offset: int = 0):
        self.name = name
        self.offset = line_offset
        self.expected: list[Expected] = []
        self.unknown: list[Expected] = []
        self.problems: list[str] = []
        self._scan(chunk.split("\n"))

    def _scan(self, lines: list[str]) -> None:
        last_plain = 0  # the last line (0-based in the chunk) that holds no designator
        pending: list[Expected] = []  # `@below` designators waiting for the next such line
        for i, raw in enumerate(lines):
            m = _DESIGNATOR.search(raw.rstrip())
            if m is None:
                for e in pending:
                    e.line = i + 1 + self.offset
                pending.clear()
                last_plain = i
                continue
            kind, is_re, at, text = m.group(1), m.group(2), m.group(4), m.group(5)
            here = i + 1 + self.offset
            regex = None
            if is_re:
                try:
                    regex = re.compile(mlir_regex(text))
                except ValueError as err:
                    self.problems.append(f"{self.name}:{here}:{m.start() + 1}: error: {err}")
                    continue
            e = Expected(kind, here, text, regex, here, m.start() + 1)
            if at == "unknown":
                e.line = None
                self.unknown.append(e)
                continue
            if at == "above":
                e.line = last_plain + 1 + self.offset
            elif at == "below":
                e.line = len(lines) + self.offset  # MLIR's value for one left dangling
                pending.append(e)
            elif at:
                e.line = here + int(at)
            self.expected.append(e)

    def line_of(self, location: str | None) -> int | None:
        """The file line of a diagnostic location; None for an unknown one.  A location that names
        only the file is MLIR's implicit top module's `file:0:0` (the chunk's line 0)."""
        if not location:
            return None
        m = _LOCATION.match(location)
        if m:
            return int(m.group(2))
        return self.offset

    def process(self, kind: str, message: str, location: str | None) -> None:
        """Match one diagnostic; an unmatched one is reported as MLIR does."""
        line = self.line_of(location)
        pool = self.unknown if line is None else self.expected
        near = None
        for e in pool:
            if line is not None and e.line != line:
                continue
            if e.matches(message):
                if e.kind == kind:
                    e.seen = True
                    return
                near = e
        if near is not None:
            self.problems.append(
                f"{self.name}:{near.designator}:{near.column}: error: '{kind}' diagnostic emitted when "
                f"expecting a '{near.kind}'"
            )
        else:
            where = f"{location}: " if location else ""
            self.problems.append(f"{where}error: unexpected {kind}: {message}")

    def process_error(self, err: StableHLOError) -> None:
        """An error, then its note.  Our notes are hints upstream does not emit (how to fix the input):
        one meets an `expected-note` written for it and is not reported otherwise, so that upstream's
        files, which expect none, pass."""
        self.process("error", err.message, err.location)
        if err.note:
            self.try_match(err.note, err.location, "note")

    def try_match(self, message: str, location: str | None, kind: str = "error") -> None:
        """Meet an expectation written for this diagnostic if there is one; report nothing otherwise."""
        line = self.line_of(location)
        for e in self.unknown if line is None else self.expected:
            if e.kind == kind and (line is None or e.line == line) and e.matches(message):
                e.seen = True
                return

    def finish(self) -> list[str]:
        """The problems: each produced diagnostic not expected, then each expected one not produced."""
        for e in [*self.expected, *self.unknown]:
            if not e.seen:
                where = f"{self.name}:{e.designator}:{e.column}: " if e.line is not None else ""
                self.problems.append(f'{where}error: expected {e.kind} "{e.text}" was not produced')
        return self.problems
