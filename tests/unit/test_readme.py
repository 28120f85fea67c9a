"""README.md's examples (and those of the pages in DOCS it links, such as docs/building.md) run as
written and print what they show.

Every ```python block and every command line of every ```sh block in README.md (and in DOCS) is run
from the repository root, as a user runs it after the README's install command:

* a ```python block runs in its own Python subprocess (this interpreter, cwd = the repository root);
* each line of a ```sh block runs through ``bash -c`` with this interpreter's ``bin`` directory first
  on ``PATH`` (so ``python``, ``stablehlo-opt`` and ``stablehlo-translate`` are the installed ones);
  a line continued with a trailing backslash is one command.  Every command must exit 0.

What the README shows as output is checked exactly:

* ``code  # -> OUTPUT`` on a command line: the command's stdout, stripped, equals OUTPUT;
* ``expression  # -> OUTPUT`` after a top-level Python statement: ``repr`` of the expression's value
  equals OUTPUT (what Python's prompt shows); for ``print(...)``, what it prints equals OUTPUT;
* a ```text block right after a ```python or ```sh block (nothing but blank lines between): the
  whole stdout of that block equals the text (trailing newlines aside).  Every ```text block must
  belong to a code block, so no shown output goes unchecked.

Markers and the few things not re-run:

* ``# needs: jax`` (any importable module names, comma-separated) as the first line of a block:
  the block runs only when those modules import here; otherwise the test is skipped with the reason.
  The README's JAX examples carry ``# needs: jax``; the examples reading a JAX export carry
  ``# needs: flatbuffers`` (the ``[jax]`` extra).
* Install commands (``python -m pip install ...``, ``pip install ...``) are not re-run; in
  ``python -m pip install -e . && CMD`` only CMD runs.  ``python -m pytest ...`` (the README's test
  command, i.e. this suite itself) is not re-run either: CI runs it (``.ci/run``).
* Paths under ``/tmp/`` in a block (``-o /tmp/add.shlo``) are redirected to a fresh temporary
  directory per block, so runs in parallel do not collide; a block that writes a file and reads it
  back does both within the block.

Each block is one test (``README.md:LINE``), so pytest-xdist spreads them.  A ```toml block is a
configuration snippet and is not run; any other fence language fails the test (it would go
unchecked).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ("README.md", "docs/building.md", "docs/tools.md")
"""The documents whose examples run: the README and the pages it links that show code."""

RUN_LANGUAGES = ("python", "sh")
OUTPUT_LANGUAGE = "text"
UNRUN_LANGUAGES = ("toml",)  # configuration snippets
NEEDS = re.compile(r"^#\s*needs:\s*(?P<modules>[\w.]+(?:\s*,\s*[\w.]+)*)\s*$")
SH_OUTPUT_MARK = re.compile(r"\s+#\s->\s(?P<output>.*?)\s*$")
PY_OUTPUT_MARK = re.compile(r"^#\s->\s(?P<output>.*?)\s*$")
INSTALL_PREFIX = re.compile(r"^(?:python\s+-m\s+)?pip\s+install\b[^&;|]*(?:&&\s*)?")
NOT_RERUN = re.compile(r"^python\s+-m\s+pytest\b")  # the README's test command: this suite
TMP = "/tmp/"
TIMEOUT = 120


@dataclass(frozen=True)
class Block:
    language: str
    line: int  # line of the opening fence in the document (1-based)
    body: str
    output: str | None  # the ```text block that follows, if any
    output_line: int | None
    doc: str = "README.md"  # the document, relative to the repository root

    @property
    def lines(self) -> list[str]:
        return self.body.splitlines()

    @property
    def needs(self) -> tuple[str, ...]:
        first = self.lines[0].strip() if self.lines else ""
        match = NEEDS.match(first)
        if match is None:
            return ()
        return tuple(m.strip() for m in match.group("modules").split(","))


def read_blocks(text: str, doc: str = "README.md") -> list[Block]:
    """The fenced blocks of a Markdown text, a ```text block attached to the block before it."""
    fences: list[tuple[str, int, str, int]] = []  # language, open line, body, close line
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^```(\S*)\s*$", lines[i])
        if match is None:
            i += 1
            continue
        start = i
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        if i == len(lines):
            raise AssertionError(f"{doc}:{start + 1}: unclosed ``` fence")
        fences.append((match.group(1), start + 1, "\n".join(lines[start + 1 : i]) + "\n", i + 1))
        i += 1
    blocks: list[Block] = []
    for k, (language, line, body, close) in enumerate(fences):
        if language == OUTPUT_LANGUAGE:
            continue
        output = output_line = None
        if k + 1 < len(fences) and fences[k + 1][0] == OUTPUT_LANGUAGE:
            nxt = fences[k + 1]
            between = lines[close : nxt[1] - 1]
            if all(not s.strip() for s in between):
                output, output_line = nxt[2], nxt[1]
        blocks.append(Block(language, line, body, output, output_line, doc))
    attached = {b.output_line for b in blocks}
    for language, line, _, _ in fences:
        if language == OUTPUT_LANGUAGE and line not in attached:
            raise AssertionError(
                f"{doc}:{line}: a ```text block must directly follow the ```python or ```sh "
                "block whose output it shows (nothing but blank lines between)"
            )
        if language not in (*RUN_LANGUAGES, OUTPUT_LANGUAGE, *UNRUN_LANGUAGES):
            raise AssertionError(
                f"{doc}:{line}: fence language {language!r} is neither run nor known "
                f"(run: {', '.join(RUN_LANGUAGES)}; not run: {', '.join(UNRUN_LANGUAGES)})"
            )
    return blocks


BLOCKS = [b for d in DOCS for b in read_blocks((ROOT / d).read_text(encoding="utf-8"), d)]
RUN_BLOCKS = [b for b in BLOCKS if b.language in RUN_LANGUAGES]


# --- shell blocks ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Command:
    line: int
    text: str  # what bash runs
    output: str | None  # the `# -> OUTPUT` mark


def shell_commands(block: Block) -> list[Command]:
    """The commands of a ```sh block: comment lines skipped, continuations joined, the install part
    of a line dropped, the test command left out (see the module docstring)."""
    commands: list[Command] = []
    pending: list[str] = []
    pending_line = 0
    for offset, raw in enumerate(block.lines):
        line = block.line + 1 + offset
        if not pending:
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            pending_line = line
        if raw.rstrip().endswith("\\"):
            pending.append(raw.rstrip()[:-1])
            continue
        pending.append(raw)
        text = " ".join(s.strip() for s in pending)
        pending = []
        output = None
        mark = SH_OUTPUT_MARK.search(text)
        if mark is not None:
            output = mark.group("output")
            text = text[: mark.start()]
        text = INSTALL_PREFIX.sub("", text.strip()).strip()
        if not text or NOT_RERUN.match(text):
            continue
        commands.append(Command(pending_line, text, output))
    assert not pending, f"{block.doc}:{block.line}: a ```sh block ends in a line continuation"
    return commands


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("STABLEHLO_PY_ARTIFACT_FORMAT", None)  # the README's defaults
    env.pop("PYTHONPATH", None)
    return env


def redirect_tmp(text: str, tmp: Path) -> str:
    return text.replace(TMP, f"{tmp}/")


def run_shell(block: Block, tmp: Path) -> str:
    stdout = []
    for command in shell_commands(block):
        proc = subprocess.run(
            ["bash", "-c", redirect_tmp(command.text, tmp)],
            cwd=ROOT,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        where = f"{block.doc}:{command.line}: `{command.text}`"
        assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{proc.stderr}{proc.stdout}"
        assert "Traceback" not in proc.stderr, f"{where} printed a traceback:\n{proc.stderr}"
        if command.output is not None:
            assert proc.stdout.strip() == command.output, (
                f"{where} prints {proc.stdout.strip()!r}; {block.doc} shows {command.output!r}"
            )
        stdout.append(proc.stdout)
    return "".join(stdout)


# --- Python blocks --------------------------------------------------------------------------------

# Runs in the subprocess: executes the block statement by statement in one namespace, checking the
# `# -> OUTPUT` marks (a statement's line -> OUTPUT, from the README).
DRIVER = r'''
import ast, contextlib, io, json, sys
source, marks, first_line, doc = json.loads(sys.stdin.read())
marks = {first_line + int(k) - 1: v for k, v in marks.items()}  # by the document's line
tree = ast.parse(source)
ast.increment_lineno(tree, first_line - 1)  # tracebacks name the document's lines
namespace = {"__name__": "__main__"}
failures = []
for stmt in tree.body:
    readme_line = stmt.lineno
    expected = marks.pop(stmt.end_lineno, None)
    if expected is None:
        code = compile(ast.Module([stmt], []), doc, "exec")
        exec(code, namespace)
        continue
    if not isinstance(stmt, ast.Expr):
        failures.append(f"{doc}:{readme_line}: a `# ->` mark follows an expression, not this statement")
        continue
    call = stmt.value
    is_print = isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print"
    code = compile(ast.Expression(stmt.value), doc, "eval")
    if is_print:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            eval(code, namespace)
        got = buffer.getvalue()
        sys.stdout.write(got)
        got = got.strip()
    else:
        got = repr(eval(code, namespace))
    if got != expected:
        failures.append(f"{doc}:{readme_line}: shows {expected!r}, prints {got!r}")
for line in marks:
    failures.append(f"{doc}:{line}: a `# ->` mark after no statement's last line")
if failures:
    sys.stderr.write("\n".join(failures) + "\n")
    sys.exit(3)
'''


def python_marks(source: str) -> dict[int, str]:
    """`# -> OUTPUT` comments of a Python block, by line (1-based, in the block)."""
    marks: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            match = PY_OUTPUT_MARK.match(token.string)
            if match is not None:
                marks[token.start[0]] = match.group("output")
    return marks


def run_python(block: Block, tmp: Path) -> str:
    source = redirect_tmp(block.body, tmp)
    payload = json.dumps([source, python_marks(source), block.line + 1, block.doc])
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=payload,
        cwd=ROOT,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, (
        f"{block.doc}:{block.line}: the ```python block fails:\n{proc.stderr}{proc.stdout[-2000:]}"
    )
    return proc.stdout


# --- the tests ------------------------------------------------------------------------------------


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is missing (iree.runtime)
        return False


def missing_modules(block: Block) -> list[str]:
    return [name for name in block.needs if not _importable(name)]


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=[f"{b.doc}:{b.line}" for b in RUN_BLOCKS])
def test_readme_block(block: Block, tmp_path: Path) -> None:
    missing = missing_modules(block)
    if missing:
        pytest.skip(f"{block.doc}:{block.line} needs {', '.join(missing)} (not installed)")
    stdout = run_python(block, tmp_path) if block.language == "python" else run_shell(block, tmp_path)
    if block.output is not None:
        assert stdout.rstrip("\n") == block.output.rstrip("\n"), (
            f"{block.doc}:{block.line}: prints\n{stdout}\nwhile {block.doc}:{block.output_line} shows\n"
            f"{block.output}"
        )


def test_readme_has_examples() -> None:
    """The reader above finds what the README shows (a guard against a silently empty test)."""
    readme = [b for b in RUN_BLOCKS if b.doc == "README.md"]
    assert sum(b.language == "python" for b in readme) >= 5
    commands = [c for b in readme if b.language == "sh" for c in shell_commands(b)]
    assert len(commands) >= 15
    assert any(c.output is not None for c in commands)
    assert any(python_marks(b.body) for b in readme if b.language == "python")
    assert any(b.output is not None for b in readme)
    assert any(b.needs == ("jax",) for b in readme)
    for doc in DOCS[1:]:  # every other document has examples that run, and the README links it
        assert sum(b.doc == doc for b in RUN_BLOCKS) >= 3, doc
        assert f"]({doc})" in README.read_text(encoding="utf-8"), f"README.md does not link {doc}"


FILE_MENTION = re.compile(r"(?<![\w./-])((?:examples|/tmp)/[\w./-]*\w)")
PROGRAM_FILE = re.compile(r"(?<![\w./-])([\w./-]+\.(?:mlir|mlir\.bc|bc|shlo|jax_exported|bin))(?![\w.])")


def test_readme_files_are_bundled() -> None:
    """Every `examples/...` file a runnable block names exists, and every program or artifact file it
    names is one of them or a `/tmp/` output of the block (no `program.mlir` the reader lacks)."""
    named = {m.group(1) for b in RUN_BLOCKS for m in FILE_MENTION.finditer(b.body)}
    missing = sorted(n for n in named if not n.startswith(TMP) and not (ROOT / n).exists())
    assert not missing, f"README examples name files not in the repository: {missing}"
    programs = {m.group(1) for b in RUN_BLOCKS for m in PROGRAM_FILE.finditer(b.body)}
    elsewhere = sorted(p for p in programs if not p.startswith(("examples/", TMP)))
    assert not elsewhere, f"README examples name files outside examples/ and /tmp/: {elsewhere}"


@dataclass(frozen=True)
class _Case:
    text: str
    expected: object


@pytest.mark.parametrize(
    "case",
    [
        _Case("python -m pip install -e . && stablehlo-opt x.mlir", ["stablehlo-opt x.mlir"]),
        _Case('python -m pip install -e ".[test]" && python -m pytest -n 2', []),
        _Case("pip install flatbuffers", []),
        _Case("stablehlo-translate --print-stablehlo-version   # -> 1.22.0", ["stablehlo-translate --print-stablehlo-version"]),
        _Case("stablehlo-opt \\\n  --inline x.mlir   # a comment", ["stablehlo-opt --inline x.mlir   # a comment"]),
        _Case("# only a comment", []),
    ],
)
def test_shell_command_reader(case: _Case) -> None:
    block = Block("sh", 1, case.text + "\n", None, None)
    assert [c.text for c in shell_commands(block)] == case.expected


def test_output_marks_are_read() -> None:
    block = Block("sh", 10, "a   # -> 1.0\nb  # plain comment\n", None, None)
    assert [(c.line, c.text, c.output) for c in shell_commands(block)] == [(11, "a", "1.0"), (12, "b  # plain comment", None)]
    assert python_marks("x = 1\nx + 1  # -> 2\ns = '# -> no'\n") == {2: "2"}


def test_needs_of_a_missing_package_skip() -> None:
    block = Block("python", 1, "# needs: no_such_package.sub, numpy\nprint(1)\n", None, None)
    assert missing_modules(block) == ["no_such_package.sub"]


def test_text_blocks_attach_to_the_block_before() -> None:
    text = "```sh\necho hi\n```\n\n```text\nhi\n```\n\n```python\nprint(1)\n```\n"
    blocks = read_blocks(text)
    assert [(b.language, b.output) for b in blocks] == [("sh", "hi\n"), ("python", None)]
    with pytest.raises(AssertionError, match="must directly follow"):
        read_blocks("```sh\necho hi\n```\nprose\n```text\nhi\n```\n")
    with pytest.raises(AssertionError, match="neither run nor known"):
        read_blocks("```bash\necho hi\n```\n")


def test_python_driver_checks_marks(tmp_path: Path) -> None:
    """The driver fails a block whose shown output differs (so the README test can fail)."""
    good = Block("python", 1, "x = [1]\nx  # -> [1]\nprint('a')  # -> a\n", None, None)
    assert run_python(good, tmp_path) == "a\n"
    bad = Block("python", 1, "x = [1]\nx  # -> [2]\n", None, None)
    with pytest.raises(AssertionError, match=r"shows '\[2\]', prints '\[1\]'"):
        run_python(bad, tmp_path)
