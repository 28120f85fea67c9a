"""Mutation fuzzing of MLIR text (shared by tests/fuzz/test_fuzz_text.py and bench/fuzz_text.py).

Seeds are upstream's programs (testdata/, verify/ split at `// -----`, dialect/, interpret/), read
from ../shared/conformance at run time.  A case applies one to three mutations to a seed:

* token level: a token deleted, duplicated, or swapped with another one;
* a number replaced by an interesting one (0, -1, 2**31, 2**63, 2**64, 1e400, nan, hex...);
* an element type or a shape replaced (i1, f8E4M3FN, complex<f64>, !stablehlo.token, tuple<...>,
  `?`, 0 and huge dimensions);
* the text truncated; random bytes (control characters, non-ASCII, NUL) inserted;
* a line of another seed spliced in;
* generated: deep nesting of regions (nested `stablehlo.if`), types (`tuple<tuple<...>>`,
  `complex<complex<...>>`), attributes (`[[[...]]]`), locations and parentheses; huge dimensions
  and splat constants of a huge declared size.

Each case goes through parse -> verify -> print -> round trip (the pretty and the generic text
parse back and print as the pretty text again), and (small programs only: no tensor over
`INTERPRET_MAX_ELEMENTS` elements, a `@main` without arguments) interpret, under a CPU-time budget.
The oracle: every failure is a StableHLOError carrying a location; any other exception (including
RecursionError and MemoryError), a StableHLOError without a location, a round trip that fails or
changes the text, and a parse, verify, print or round-trip step taking more than `STEP_SECONDS` of CPU time are findings.  An interpretation that runs out of
its budget is counted (`budget`), not a finding: a mutated loop bound may legitimately never end.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from stablehlo_py.errors import StableHLOError
from tests.fuzz.fuzzing import OutOfTime, cpu_budget

STEP_SECONDS = 1.0
INTERPRET_SECONDS = 1.0
INTERPRET_MAX_ELEMENTS = 4096
SEED_MAX_CHARS = 4000

_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'  # string
    r"|0x[0-9A-Fa-f]+"
    r"|[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"  # number
    r"|[%@^#!][\w.$\-#]*"  # value, symbol, block, attribute/type alias
    r"|[A-Za-z_][\w.$]*"  # keyword, op name, type
    r"|->|\S"
)
_NUMBER = re.compile(r"(?<![\w.%#@])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b")
_ELEM_TYPE = re.compile(r"\b(?:[iu]i?\d+|f16|bf16|f32|f64|f8E\w+|complex<\w+>|index)\b")
_SHAPE = re.compile(r"(?<=tensor<)(?:[\d?]+x)+")

INTERESTING_NUMBERS = [
    "0",
    "-1",
    "1",
    "2",
    "-2",
    "7",
    "127",
    "128",
    "255",
    "256",
    "65535",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "99999999999999999999999999999",
    "1e400",
    "-1e400",
    "1.5",
    "-0.0",
    "0x7FC00000",
    "0xFFFFFFFFFFFFFFFFFFFF",
    "nan",
    "inf",
    "3.4e38",
]
INTERESTING_TYPES = [
    "i1",
    "i2",
    "i4",
    "i8",
    "i64",
    "ui8",
    "ui64",
    "si32",
    "i0",
    "i99999999",
    "f8E4M3FN",
    "f8E5M2",
    "f4E2M1FN",
    "bf16",
    "f16",
    "f64",
    "complex<f32>",
    "complex<i32>",
    "index",
    "!stablehlo.token",
    "tuple<>",
    "tuple<tensor<f32>>",
    "none",
    "tensor<f32>",
    "f33",
    "!quant.uniform<i8:f32, 1.0:0>",
    "!quant.uniform<i8<-128:127>:f32:0, {1.0:0}>",
]
INTERESTING_SHAPES = [
    "",
    "0x",
    "?x",
    "1x",
    "2x3x",
    "999999999999x",
    "9223372036854775807x",
    "4294967297x",
    "100000x100000x100000x",
    "99999999999999999999x",
    "1x" * 70,
    "?x" * 8,
]
RANDOM_INSERTS = [
    "\x00",
    "\x7f",
    "\ufeff",
    "\u00e9",
    "\U0001f600",
    "\\",
    '"',
    "'",
    "`",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "=",
    "->",
    "%",
    "@",
    "^",
    "#",
    "!",
    "//",
    "/*",
    "\n",
    "\t",
    "\r",
    " ",
    "...",
    "#loc",
    "loc(",
    "dense<",
    "?",
    "x",
    "-",
]


# ------------------------------------------------------------------------------------- seeds
def conformance_seeds(root: Path, max_chars: int = SEED_MAX_CHARS) -> list[str]:
    """Upstream's programs under `root` (../shared/conformance), the verify/ files split at
    `// -----`, at most `max_chars` long each (longer ones are mostly constant payloads), sorted."""
    seeds: list[str] = []
    for sub in ("testdata", "verify", "dialect", "interpret", "transforms", "infer"):
        d = root / sub
        if not d.is_dir():
            continue
        for f in sorted(d.rglob("*.mlir")):
            try:
                text = f.read_text()
            except (UnicodeDecodeError, OSError):
                continue
            for chunk in text.split("// -----"):
                if 0 < len(chunk) <= max_chars and ("func" in chunk or "module" in chunk):
                    seeds.append(chunk)
    return seeds


# ------------------------------------------------------------------------------------- mutations
def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


def _delete_token(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    toks = _tokens(text)
    if not toks:
        return text
    t = rng.choice(toks)
    return text[: t.start()] + text[t.end() :]


def _duplicate_token(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    toks = _tokens(text)
    if not toks:
        return text
    t = rng.choice(toks)
    return text[: t.end()] + rng.choice(("", " ")) + t.group(0) + text[t.end() :]


def _swap_tokens(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    toks = _tokens(text)
    if len(toks) < 2:
        return text
    i = rng.randrange(len(toks) - 1)
    j = i + 1 if rng.random() < 0.5 else rng.randrange(len(toks))
    a, b = sorted((toks[i], toks[j]), key=lambda m: m.start())
    if a.start() == b.start():
        return text
    return text[: a.start()] + b.group(0) + text[a.end() : b.start()] + a.group(0) + text[b.end() :]


def _replace_a_match(
    rng: random.Random, pattern: re.Pattern[str], text: str, choices: Sequence[str]
) -> str | None:
    """One of `pattern`'s matches in `text` replaced by one of `choices`; None without a match."""
    found = list(pattern.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    return text[: m.start()] + rng.choice(choices) + text[m.end() :]


def _edit_number(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    edited = _replace_a_match(rng, _NUMBER, text, INTERESTING_NUMBERS)
    return _delete_token(rng, text, seeds) if edited is None else edited


def _edit_type(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    if rng.random() < 0.5:
        edited = _replace_a_match(rng, _SHAPE, text, INTERESTING_SHAPES)
        if edited is not None:
            return edited
    edited = _replace_a_match(rng, _ELEM_TYPE, text, INTERESTING_TYPES)
    return _edit_number(rng, text, seeds) if edited is None else edited


def _truncate(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    return text[: rng.randrange(len(text) + 1)]


def _random_bytes(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    i = rng.randrange(len(text) + 1)
    if rng.random() < 0.5:
        ins = rng.choice(RANDOM_INSERTS)
    else:
        ins = "".join(
            chr(
                rng.choice(
                    (rng.randrange(0x20), rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x3000))
                )
            )
            for _ in range(rng.randint(1, 6))
        )
    return text[:i] + ins + text[i + (rng.randint(0, 3) if rng.random() < 0.5 else 0) :]


def _splice_line(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    lines = text.split("\n")
    other = rng.choice(seeds).split("\n")
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(other))
    return "\n".join(lines)


def nested_ifs(n: int) -> str:
    """A program whose `stablehlo.if` regions nest `n` deep."""
    body = "stablehlo.return %arg0 : tensor<i1>"
    for _ in range(n):
        body = (
            f'%r = "stablehlo.if"(%arg0) ({{\n{body}\n}}, {{\nstablehlo.return %arg0 : tensor<i1>\n}}) '
            ": (tensor<i1>) -> tensor<i1>\nstablehlo.return %r : tensor<i1>"
        )
    body = body.rsplit("\n", 1)[0]
    return f"func.func @main(%arg0: tensor<i1>) -> tensor<i1> {{\n{body}\nreturn %r : tensor<i1>\n}}"


def _deep(rng: random.Random, text: str, seeds: Sequence[str]) -> str:
    """A generated program with one deeply nested construct, or huge declared sizes."""
    n = rng.choice((50, 200, 1000, 3000, 20000))
    kind = rng.randrange(9)
    if kind == 0:  # nested regions
        return nested_ifs(n)
    if kind == 1:  # nested tuple types
        t = "tuple<" * n + "tensor<f32>" + ">" * n
        return f"func.func @main(%arg0: {t}) -> {t} {{\n  return %arg0 : {t}\n}}"
    if kind == 2:  # nested complex types
        t = "complex<" * n + "f32" + ">" * n
        return f"func.func @main(%arg0: tensor<{t}>) -> tensor<{t}> {{\n  return %arg0 : tensor<{t}>\n}}"
    if kind == 3:  # nested array attributes
        a = "[" * n + "1" + "]" * n
        return f"func.func @main() attributes {{x = {a}}} {{\n  return\n}}"
    if kind == 4:  # nested parentheses / function types
        t = "(" * n + "tensor<f32>" + ")" * n
        return f"func.func @main(%arg0: tensor<f32>) -> {t} {{\n  return %arg0 : tensor<f32>\n}}"
    if kind == 5:  # nested locations
        loc = "loc(" * n + '"x"' + ")" * n
        return f"func.func @main() {{\n  return {loc}\n}}"
    if kind == 6:  # nested dense literal
        d = "[" * n + "1.0" + "]" * n
        return f"func.func @main() -> tensor<f32> {{\n  %0 = stablehlo.constant dense<{d}> : tensor<f32>\n  return %0 : tensor<f32>\n}}"
    dim = rng.choice(
        ("100000000000", "9223372036854775807", "4611686018427387904", "65536x65536x65536")
    )
    if kind == 7:  # huge splat constant, used by an op
        return (
            f"func.func @main() -> tensor<{dim}xf32> {{\n"
            f"  %0 = stablehlo.constant dense<1.0> : tensor<{dim}xf32>\n"
            f"  %1 = stablehlo.add %0, %0 : tensor<{dim}xf32>\n"
            f"  return %1 : tensor<{dim}xf32>\n}}"
        )
    op = rng.choice(
        (
            "stablehlo.iota dim = 0",
            "stablehlo.broadcast_in_dim %c, dims = []",
            "stablehlo.rng_bit_generator",
        )
    )
    if op.startswith("stablehlo.rng"):
        return (
            "func.func @main() -> tensor<2xui64> {\n"
            "  %s = stablehlo.constant dense<1> : tensor<2xui64>\n"
            f"  %0:2 = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<{dim}xui32>)\n"
            "  return %0#0 : tensor<2xui64>\n}"
        )
    return (
        f"func.func @main() -> tensor<{dim}xf32> {{\n"
        "  %c = stablehlo.constant dense<1.0> : tensor<f32>\n"
        f"  %0 = {op} : (tensor<f32>) -> tensor<{dim}xf32>\n".replace(
            "stablehlo.iota dim = 0 : (tensor<f32>) -> ", "stablehlo.iota dim = 0 : "
        )
        + f"  return %0 : tensor<{dim}xf32>\n}}"
    )


MUTATIONS: dict[str, Callable[[random.Random, str, Sequence[str]], str]] = {
    "delete_token": _delete_token,
    "duplicate_token": _duplicate_token,
    "swap_tokens": _swap_tokens,
    "number": _edit_number,
    "type": _edit_type,
    "truncate": _truncate,
    "random_bytes": _random_bytes,
    "splice_line": _splice_line,
    "deep_or_huge": _deep,
}
# how often each is drawn (relative); `deep_or_huge` replaces the text, so it is drawn alone
WEIGHTS = {
    "delete_token": 16,
    "duplicate_token": 10,
    "swap_tokens": 10,
    "number": 16,
    "type": 16,
    "truncate": 6,
    "random_bytes": 10,
    "splice_line": 6,
    "deep_or_huge": 3,
}


def mutate(rng: random.Random, seeds: Sequence[str]) -> tuple[str, list[str]]:
    """One case: the mutated text and the names of the mutations applied."""
    names, weights = zip(*WEIGHTS.items(), strict=True)
    first = rng.choices(names, weights)[0]
    if first == "deep_or_huge":
        return _deep(rng, "", seeds), [first]
    text = rng.choice(seeds)
    applied = []
    for i in range(rng.choice((1, 1, 1, 2, 3))):
        name = first if i == 0 else rng.choices(names[:-1], weights[:-1])[0]
        text = MUTATIONS[name](rng, text, seeds)
        applied.append(name)
    return text, applied


# ------------------------------------------------------------------------------------- oracle
def _max_elements(module: object) -> int:
    from xdsl.dialects.builtin import TensorType

    biggest = 0
    for op in module.walk():  # type: ignore[attr-defined]
        for v in (*op.results, *op.operands):
            t = v.type
            if isinstance(t, TensorType):
                n = 1
                for d in t.get_shape():
                    n *= max(d, 1)
                biggest = max(biggest, n)
    return biggest


def _interpretable(module: object) -> bool:
    from xdsl.dialects.func import FuncOp

    for op in module.walk():  # type: ignore[attr-defined]
        if isinstance(op, FuncOp) and op.sym_name.data == "main":
            return (
                not op.function_type.inputs.data and _max_elements(module) <= INTERPRET_MAX_ELEMENTS
            )
    return False


@dataclass
class FuzzResult:
    cases: int = 0
    accepted: int = 0  # parsed and verified
    refused: int = 0  # a located StableHLOError
    interpreted: int = 0
    budget: int = 0  # interpretations stopped by their CPU budget
    mix: dict[str, int] = field(default_factory=dict)
    messages: dict[str, int] = field(default_factory=dict)
    findings: list[tuple[str, str]] = field(default_factory=list)


def check_one(text: str, interpret: bool = True) -> tuple[str, str | None]:
    """Run one text through the pipeline.  Returns (outcome, finding or None); outcome is one of
    accepted, refused:<message head>, interpreted, budget."""
    import traceback

    from stablehlo_py.ir import parse, print_ir
    from stablehlo_py.ir.verify import verify

    step = "parse"
    try:
        with cpu_budget(STEP_SECONDS):
            module = parse(text, "fuzz.mlir")
            step = "verify"
            verify(module)
            step = "print"
            pretty = print_ir(module)
            generic = print_ir(module, generic=True)
        step = "round trip"
        with cpu_budget(STEP_SECONDS):  # its own budget: it parses and prints twice more
            problem = _round_trip(pretty, generic)
    except OutOfTime:
        return "hang", f"{step} took more than {STEP_SECONDS} s of CPU time"
    except StableHLOError as e:
        if step == "round trip":
            return "crash", f"round trip: the printed text does not parse back: {e}"[:400]
        return _refusal(e, step)
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "crash", f"{step}: {type(e).__name__}: {str(e)[:200]} at {tb.filename}:{tb.lineno}"
    if problem is not None:
        return "crash", f"round trip: {problem}"
    if not (interpret and _interpretable(module)):
        return "accepted", None
    from stablehlo_py.interpreter.api import run

    try:
        with cpu_budget(INTERPRET_SECONDS), contextlib.redirect_stdout(io.StringIO()):
            run(module)
    except OutOfTime:
        return "budget", None
    except StableHLOError as e:
        return _refusal(e, "interpret")
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return (
            "crash",
            f"interpret: {type(e).__name__}: {str(e)[:200]} at {tb.filename}:{tb.lineno}",
        )
    return "interpreted", None


def _round_trip(pretty: str, generic: str) -> str | None:
    """What breaks `print(parse(print(m))) == print(m)` for both printed forms (DESIGN.md §3), or
    None: the pretty text and the generic text must each parse back to a module whose pretty print
    is `pretty` again."""
    from stablehlo_py.ir import parse, print_ir

    for form, text in (("pretty", pretty), ("generic", generic)):
        again = print_ir(parse(text, f"roundtrip-{form}.mlir"))
        if again != pretty:
            return f"the {form} form prints back differently: {_first_difference(pretty, again)}"
    return None


def _first_difference(a: str, b: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False), 1):
        if x != y:
            return f"line {i}: {x.strip()[:150]!r} became {y.strip()[:150]!r}"
    return f"{len(la)} lines became {len(lb)}"


_WRAPPED = re.compile(
    r"\((?:RecursionError|MemoryError|OverflowError|IndexError|KeyError|TypeError|ValueError|"
    r"AttributeError|AssertionError|ZeroDivisionError)\b"
)


def _refusal(e: StableHLOError, step: str) -> tuple[str, str | None]:
    head = f"refused:{step}:{re.sub(r'[0-9]+', 'N', e.message)[:50]}"
    if not e.location and step != "interpret":
        return "unlocated", f"{step}: {type(e).__name__} without a location: {e.message[:200]}"
    if _WRAPPED.search(e.message):
        return (
            "wrapped",
            f"{step}: an internal error wrapped in {type(e).__name__}: {e.message[:200]}",
        )
    return head, None


def run(
    seeds: Sequence[str],
    cases: int,
    seed: int = 0,
    interpret: bool = True,
    keep_messages: bool = False,
    memory_limit: int | None = 4 << 30,
) -> FuzzResult:
    """Feed `cases` mutated texts through parse -> verify -> print -> interpret; collect findings."""
    import sys

    from tests.fuzz.fuzzing import _memory_limit

    rng = random.Random(seed)
    result = FuzzResult()
    old_limit = sys.getrecursionlimit()
    with _memory_limit(memory_limit), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's overflow warnings on mutated constants
        for _ in range(cases):
            text, applied = mutate(rng, seeds)
            for name in applied:
                result.mix[name] = result.mix.get(name, 0) + 1
            result.cases += 1
            outcome, finding = check_one(text, interpret)
            sys.setrecursionlimit(old_limit)
            if finding is not None:
                result.findings.append((text, finding))
            elif outcome == "accepted":
                result.accepted += 1
            elif outcome == "interpreted":
                result.accepted += 1
                result.interpreted += 1
            elif outcome == "budget":
                result.accepted += 1
                result.budget += 1
            else:
                result.refused += 1
                if keep_messages:
                    result.messages[outcome] = result.messages.get(outcome, 0) + 1
    return result
