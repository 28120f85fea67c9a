"""Fidelity to upstream's ODS: every stablehlo and chlo op of upstream's StablehloOps.td and
ChloOps.td (in ../shared/reference/upstream/dialect, read at test time) has, in our dialect, the
same operands (names; single, variadic or optional), inherent attributes (names; required or
optional; the default value of DefaultValued(Optional)Attr and whether MLIR populates it; UnitAttr)
results and regions (count; single, variadic or optional).

The .td files are read by a small TableGen reader of our own (below): enough of the language for
upstream's op definitions (`class`/`def` records with template arguments and defaults, `let`
overrides, `#` concatenation, dags, nested comments, code blocks).  Anything it does not
understand fails the test: no op is skipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, StringAttr
from xdsl.irdl import (
    OptAttributeDef,
    OptOperandDef,
    OptPropertyDef,
    OptRegionDef,
    OptResultDef,
    VarOperandDef,
    VarRegionDef,
    VarResultDef,
)

from tests.conftest import REFERENCE

DIALECT_DIR = REFERENCE / "upstream" / "dialect"
OP_FILES = ("StablehloOps.td", "ChloOps.td")
DIALECTS = ("stablehlo", "chlo")


class TableGenError(Exception):
    pass


# ==================================================================================== lexer
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<line_comment>//[^\n]*)
  | (?P<preproc>^\#(?:ifndef|ifdef|define|endif|else)\b[^\n]*)
  | (?P<code>\[\{.*?\}\])
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<var>\$[A-Za-z_][A-Za-z0-9_]*)
  | (?P<bang>![a-z]+)
  | (?P<id>[A-Za-z_0-9]+)
  | (?P<punct>[<>()\[\]{},:;=\#?.\-])
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    line: int


def tokenize(text: str, where: str) -> list[Tok]:
    out: list[Tok] = []
    pos, line, n = 0, 1, len(text)
    while pos < n:
        if text.startswith("/*", pos):  # block comments nest in TableGen
            depth, i = 0, pos
            while i < n:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                    if depth == 0:
                        break
                else:
                    i += 1
            if depth:
                raise TableGenError(f"{where}:{line}: unterminated block comment")
            line += text.count("\n", pos, i)
            pos = i
            continue
        m = _TOKEN.match(text, pos)
        if m is None:
            raise TableGenError(f"{where}:{line}: cannot read {text[pos : pos + 20]!r}")
        kind = m.lastgroup
        assert kind is not None
        if kind not in ("ws", "line_comment", "preproc"):
            out.append(Tok(kind, m.group(0), line))
        line += m.group(0).count("\n")
        pos = m.end()
    return out


# =================================================================================== parser
# Values are tuples:
#   ("id", name, args | None)   a name, with its template arguments when written `Name<...>`
#   ("str", text) / ("code", text) / ("int", value)
#   ("list", [values]) / ("concat", [values])   (`a # b`) / ("bang", "!op", [values])
#   ("dag", (operator, None), [(value | None, name | None), ...])
#   ("field", value, name)      `value.name`
Value = tuple


@dataclass
class Record:
    name: str
    is_class: bool
    params: list[tuple[str, Value | None]]  # (name, default)
    parents: list[tuple[str, list[Value]]]  # (class name, template arguments)
    body: list[tuple[str, str, Value | None]]  # ("let" | "field", name, value)
    where: str


@dataclass
class TdParser:
    toks: list[Tok]
    where: str
    i: int = 0
    includes: list[str] = field(default_factory=list)

    def peek(self) -> Tok | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at(self, text: str) -> bool:
        t = self.peek()
        return t is not None and t.text == text and t.kind != "str"

    def error(self, msg: str) -> TableGenError:
        t = self.peek()
        at = f"{self.where}:{t.line}" if t else f"{self.where}:end"
        return TableGenError(f"{at}: {msg}, found {t.text if t else 'the end'!r}")

    def expect(self, text: str) -> None:
        if not self.at(text):
            raise self.error(f"expected {text!r}")
        self.i += 1

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def take(self, kind: str) -> str:
        t = self.peek()
        if t is None or t.kind != kind:
            raise self.error(f"expected a {kind}")
        self.i += 1
        return t.text

    def parse_file(self) -> list[Record]:
        records: list[Record] = []
        while (t := self.peek()) is not None:
            if t.text == "include":
                self.i += 1
                self.includes.append(_unquote(self.take("str")))
            elif t.text in ("class", "def"):
                records.append(self.parse_record())
            else:  # defm, multiclass, foreach, let ... in, defvar, ...: not upstream's today
                raise self.error("expected `include`, `class` or `def` (not understood)")
        return records

    def parse_record(self) -> Record:
        line = self.toks[self.i].line
        is_class = self.take("id") == "class"
        name = self.take("id")
        params: list[tuple[str, Value | None]] = []
        if is_class and self.accept("<"):
            while True:
                self.parse_type()
                pname = self.take("id")
                params.append((pname, self.parse_value() if self.accept("=") else None))
                if self.accept(">"):
                    break
                self.expect(",")
        parents: list[tuple[str, list[Value]]] = []
        if self.accept(":"):
            while True:
                pname = self.take("id")
                parents.append((pname, self.parse_args() if self.at("<") else []))
                if not self.accept(","):
                    break
        body: list[tuple[str, str, Value | None]] = []
        if self.accept("{"):
            while not self.accept("}"):
                body.append(self.parse_body_item())
        else:
            self.expect(";")
        return Record(name, is_class, params, parents, body, f"{self.where}:{line}")

    def parse_type(self) -> None:
        self.take("id")
        if self.at("<"):
            self.parse_args()

    def parse_body_item(self) -> tuple[str, str, Value | None]:
        if self.accept("let"):
            name = self.take("id")
            self.expect("=")
            value = self.parse_value()
            self.expect(";")
            return ("let", name, value)
        t = self.peek()
        if t is None or t.kind != "id" or t.text in ("defvar", "assert", "foreach", "if", "def"):
            raise self.error("expected `let` or a field declaration (not understood)")
        self.accept("field")
        self.parse_type()
        name = self.take("id")
        value = self.parse_value() if self.accept("=") else None
        self.expect(";")
        return ("field", name, value)

    def parse_args(self) -> list[Value]:
        self.expect("<")
        return self.parse_sequence(">", self.parse_value)

    def parse_sequence(self, close: str, item: Any) -> list[Any]:
        out: list[Any] = []
        while not self.accept(close):
            out.append(item())
            if not self.accept(","):
                self.expect(close)
                break
        return out

    def parse_value(self) -> Value:
        parts = [self.parse_simple()]
        while self.accept("#"):
            parts.append(self.parse_simple())
        return parts[0] if len(parts) == 1 else ("concat", parts)

    def parse_simple(self) -> Value:
        t = self.peek()
        if t is None:
            raise self.error("expected a value")
        v: Value
        if t.kind == "str":
            s = ""
            while (u := self.peek()) is not None and u.kind == "str":  # "a" "b" is "ab"
                s += _unquote(u.text)
                self.i += 1
            v = ("str", s)
        elif t.kind == "code":
            self.i += 1
            v = ("code", t.text[2:-2])
        elif t.text == "-" or t.text.isdigit():
            neg = self.accept("-")
            digits = self.take("id")
            if not digits.isdigit():
                raise self.error("expected an integer")
            v = ("int", -int(digits) if neg else int(digits))
        elif t.kind == "bang":
            self.i += 1
            if self.at("<"):
                self.parse_args()  # `!cast<T>(...)`
            self.expect("(")
            v = ("bang", t.text, self.parse_sequence(")", self.parse_value))
        elif t.text == "[":
            self.i += 1
            v = ("list", self.parse_sequence("]", self.parse_value))
            if self.at("<"):  # `[...]<type>`
                self.parse_args()
        elif t.text == "(":
            self.i += 1
            v = ("dag", self.parse_dag_item(), [])
            self.accept(",")
            v[2].extend(self.parse_sequence(")", self.parse_dag_item))
        elif t.kind == "id":
            self.i += 1
            v = ("id", t.text, self.parse_args() if self.at("<") else None)
        else:
            raise self.error("expected a value")
        while self.accept("."):
            v = ("field", v, self.take("id"))
        return v

    def parse_dag_item(self) -> tuple[Value | None, str | None]:
        t = self.peek()
        if t is not None and t.kind == "var":
            self.i += 1
            return (None, t.text[1:])
        value = self.parse_value()
        if not self.accept(":"):
            return (value, None)
        return (value, self.take("var")[1:])


def _unquote(s: str) -> str:
    return s[1:-1].encode().decode("unicode_escape")


# =============================================================================== evaluation
def subst(v: Value | None, env: dict[str, Value]) -> Any:
    """`v` with the template parameters bound in `env` replaced by their values."""
    if v is None:
        return None
    k = v[0]
    if k == "id":
        if v[2] is None and v[1] in env:
            return env[v[1]]
        return ("id", v[1], None if v[2] is None else [subst(a, env) for a in v[2]])
    if k in ("list", "concat"):
        return (k, [subst(a, env) for a in v[1]])
    if k == "bang":
        return (k, v[1], [subst(a, env) for a in v[2]])
    if k == "dag":
        return (k, v[1], [(subst(a, env), n) for a, n in v[2]])
    if k == "field":
        return (k, subst(v[1], env), v[2])
    return v


def _empty_dag(operator: str) -> Value:
    return ("dag", (("id", operator, None), None), [])


class Records:
    """The classes and defs of a set of .td files; `fields` evaluates a record's inheritance."""

    def __init__(self, records: list[Record]) -> None:
        self.classes: dict[str, Record] = {}
        self.defs: dict[str, Record] = {}
        for r in records:
            table = self.classes if r.is_class else self.defs
            if r.name in table:
                raise TableGenError(f"{r.where}: {r.name} is defined twice")
            table[r.name] = r

    def fields(self, rec: Record, env: dict[str, Value]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for pname, args in rec.parents:
            args = [subst(a, env) for a in args]
            if pname == "Op":  # MLIR's Op<Dialect dialect, string mnemonic, list<Trait> props>
                if len(args) < 2:
                    raise TableGenError(f"{rec.where}: Op<...> without a mnemonic")
                out.update(
                    __op__=True,
                    opDialect=args[0],
                    opName=args[1],
                    arguments=_empty_dag("ins"),
                    results=_empty_dag("outs"),
                    regions=_empty_dag("region"),
                )
                continue
            cls = self.classes.get(pname)
            if cls is None:
                continue  # one of MLIR's classes (Dialect, AttrDef, ...): not an op
            if len(args) > len(cls.params):
                raise TableGenError(f"{rec.where}: too many template arguments for {pname}")
            bound: dict[str, Value] = {}
            for i, (param, default) in enumerate(cls.params):
                if i < len(args):
                    bound[param] = args[i]
                elif default is not None:
                    bound[param] = subst(default, bound)
                else:
                    raise TableGenError(f"{rec.where}: {pname}<...> lacks `{param}`")
            out.update(self.fields(cls, bound))
        for _kind, name, value in rec.body:
            if value is not None:
                out[name] = subst(value, env)
        return out

    def base(self, name: str) -> str:
        """The first of `name`'s ancestors that the .td files do not define (one of MLIR's)."""
        seen = name
        while (rec := self.defs.get(seen) or self.classes.get(seen)) is not None:
            if not rec.parents:
                raise TableGenError(f"{rec.where}: {seen} has no base to classify {name} by")
            seen = rec.parents[0][0]
        return seen

    def string_field(self, rec_name: str, fname: str) -> str:
        rec = self.defs[rec_name]
        v = self.fields(rec, {}).get(fname)
        if v is None or v[0] != "str":
            raise TableGenError(f"{rec.where}: {rec_name} has no string `{fname}`")
        return v[1]


def read_td(paths: list[Path]) -> tuple[Records, dict[str, int]]:
    """Read `paths` and the dialect's .td files they include (MLIR's own are not shipped).
    Also returns, per file, the number of `def`s it holds (textually, for a cross-check)."""
    records: list[Record] = []
    defs_in_text: dict[str, int] = {}
    todo, done = list(paths), set()
    while todo:
        p = todo.pop(0)
        if p.name in done:
            continue
        done.add(p.name)
        text = p.read_text()
        parser = TdParser(tokenize(text, p.name), p.name)
        recs = parser.parse_file()
        if parser.i != len(parser.toks):
            raise TableGenError(f"{p.name}: trailing text")
        records += recs
        defs_in_text[p.name] = len(re.findall(r"^\s*def\s", _strip_comments(text), re.M))
        if sum(1 for r in recs if not r.is_class) != defs_in_text[p.name]:
            raise TableGenError(f"{p.name}: {defs_in_text[p.name]} defs written, read fewer")
        for inc in parser.includes:
            if inc.startswith("stablehlo/dialect/"):
                todo.append(p.parent / inc.rsplit("/", 1)[1])
            elif not inc.startswith("mlir/"):
                raise TableGenError(f"{p.name}: include of {inc!r} not understood")
    return Records(records), defs_in_text


def _strip_comments(text: str) -> str:
    text = re.sub(r"\[\{.*?\}\]", "", text, flags=re.S)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


# ================================================================================ ODS model
@dataclass(frozen=True)
class Attr:
    optional: bool
    default: str | None = None  # the C++ default of DefaultValued(Optional)Attr
    populated: bool = False  # DefaultValuedAttr: MLIR sets it when the op is created
    unit: bool = False
    spelled: str = ""  # upstream's constraint, for messages


@dataclass(frozen=True)
class OdsOp:
    name: str
    where: str
    operands: tuple[tuple[str, str], ...]  # (name, "single" | "variadic" | "optional")
    attributes: dict[str, Attr]
    results: tuple[str, ...]  # kinds
    regions: tuple[str, ...]  # kinds


# MLIR's constraint classes and defs that upstream's op arguments derive from (OpBase.td,
# CommonAttrConstraints.td, CommonTypeConstraints.td, BuiltinAttributes.td).
MLIR_ATTRS = frozenset(
    "Attr AttrDef EnumAttr I32EnumAttr AnyAttrOf TypedArrayAttrBase TypedAttrInterface ArrayAttr "
    "BoolAttr DenseBoolArrayAttr DenseI64ArrayAttr DictionaryAttr ElementsAttr F32Attr "
    "FlatSymbolRefAttr I32Attr I64Attr I64ElementsAttr StrAttr SymbolRefAttr".split()
)
MLIR_TYPES = frozenset(
    "Type TypeAlias AnyTypeOf RankedTensorOf TensorOf 0DTensorOf 1DTensorOf StaticShapeTensorOf "
    "MemRefOf NestedTupleOf TupleOf AnyTensor AnyRankedTensor Index".split()
)
MLIR_REGIONS = {"AnyRegion": "single", "SizedRegion": "single", "VariadicRegion": "variadic"}


def _show(v: Value | None) -> str:
    if v is None:
        return "?"
    k = v[0]
    if k == "id":
        return v[1] + ("" if v[2] is None else "<" + ", ".join(_show(a) for a in v[2]) + ">")
    if k == "str":
        return f'"{v[1]}"'
    if k == "list":
        return "[" + ", ".join(_show(a) for a in v[1]) + "]"
    return k


class Classifier:
    def __init__(self, recs: Records, where: str) -> None:
        self.recs, self.where = recs, where

    def fail(self, v: Value, why: str) -> TableGenError:
        return TableGenError(f"{self.where}: {why}: {_show(v)}")

    def argument(self, v: Value) -> tuple[str, Any]:
        """("operand", kind) or ("attr", Attr) for one entry of `arguments`."""
        if v[0] != "id":
            raise self.fail(v, "argument constraint not understood")
        head, args = v[1], v[2] or []

        def nth(i: int) -> Value:
            if len(args) <= i:
                raise self.fail(v, f"{head} needs {i + 1} template arguments")
            return args[i]

        def default(i: int) -> str:
            d = nth(i)
            if d[0] not in ("str", "code"):
                raise self.fail(v, "default value not understood")
            return d[1]

        if head in ("Arg", "Res"):
            return self.argument(nth(0))
        if head in ("Variadic", "Optional"):
            if self.argument(nth(0))[0] != "operand":
                raise self.fail(v, f"{head} of an attribute")
            return ("operand", "variadic" if head == "Variadic" else "optional")
        if head == "ConfinedAttr":
            return self._attr(nth(0), v, Attr(optional=False))
        if head == "OptionalAttr":
            inner = self._attr(nth(0), v, Attr(optional=True))[1]
            return ("attr", Attr(True, inner.default, False, inner.unit, _show(v)))
        if head == "DefaultValuedAttr":
            return self._attr(nth(0), v, Attr(False, default(1), True))
        if head == "DefaultValuedStrAttr":  # DefaultValuedAttr<attr, "\"" # val # "\"">
            return self._attr(nth(0), v, Attr(False, '"' + default(1) + '"', True))
        if head == "DefaultValuedOptionalAttr":
            return self._attr(nth(0), v, Attr(True, default(1), False))
        if head == "UnitAttr":  # MLIR's UnitAttr is optional (absent means false)
            return ("attr", Attr(True, None, False, True, "UnitAttr"))
        base = self.recs.base(head)
        if base in MLIR_ATTRS or base.endswith("Attr"):
            return ("attr", Attr(False, spelled=_show(v)))
        if base in MLIR_TYPES:
            return ("operand", "single")
        raise self.fail(v, f"constraint based on {base!r} is neither a known attribute nor type")

    def _attr(self, inner: Value, outer: Value, attr: Attr) -> tuple[str, Attr]:
        kind, a = self.argument(inner)
        if kind != "attr":
            raise self.fail(outer, "attribute wrapper around a type")
        if a.unit and (attr.default is not None or not attr.optional):
            raise self.fail(outer, "UnitAttr wrapped")
        return ("attr", Attr(attr.optional, attr.default, attr.populated, a.unit, _show(outer)))

    def result(self, v: Value) -> str:
        kind, k = self.argument(v)
        if kind != "operand":
            raise self.fail(v, "an attribute among the results")
        return k

    def region(self, v: Value) -> str:
        if v[0] != "id" or v[1] not in MLIR_REGIONS:
            raise self.fail(v, "region constraint not understood")
        return MLIR_REGIONS[v[1]]


def _dag(fields: dict[str, Any], key: str, operator: str, where: str) -> list[tuple[Any, Any]]:
    d = fields.get(key)
    if d is None or d[0] != "dag" or d[1][0] != ("id", operator, None):
        raise TableGenError(f"{where}: `{key}` is not a ({operator} ...) dag")
    return d[2]


@cache
def upstream_ops() -> dict[str, OdsOp]:
    recs, _ = read_td([DIALECT_DIR / f for f in OP_FILES])
    ops: dict[str, OdsOp] = {}
    for name, rec in recs.defs.items():
        f = recs.fields(rec, {})
        if not f.get("__op__"):
            continue
        dialect_def, mnemonic = f["opDialect"], f["opName"]
        if dialect_def[0] != "id" or mnemonic[0] != "str":
            raise TableGenError(f"{rec.where}: {name}'s dialect or mnemonic not understood")
        op_name = recs.string_field(dialect_def[1], "name") + "." + mnemonic[1]
        c = Classifier(recs, f"{rec.where} ({op_name})")
        operands: list[tuple[str, str]] = []
        attrs: dict[str, Attr] = {}
        for v, n in _dag(f, "arguments", "ins", rec.where):
            if v is None or n is None:
                raise TableGenError(f"{rec.where}: an argument without a constraint or name")
            kind, what = c.argument(v)
            if kind == "operand":
                operands.append((n, what))
            else:
                attrs[n] = what
        results = tuple(c.result(v) for v, _ in _dag(f, "results", "outs", rec.where))
        regions = tuple(c.region(v) for v, _ in _dag(f, "regions", "region", rec.where))
        if op_name in ops:
            raise TableGenError(f"{rec.where}: {op_name} defined twice")
        ops[op_name] = OdsOp(op_name, rec.where, tuple(operands), attrs, results, regions)
    return ops


def _load() -> tuple[dict[str, OdsOp] | None, str | None]:
    if not DIALECT_DIR.is_dir():
        return None, None
    try:
        return upstream_ops(), None
    except TableGenError as e:
        return None, str(e)


UPSTREAM, READ_ERROR = _load()
SKIP_NO_SHARED = pytest.mark.skipif(
    not DIALECT_DIR.is_dir(),
    reason="../shared/reference/upstream is absent (user clone): ODS fidelity not checked",
)


# ================================================================================ our side
def _kind(d: Any) -> str:
    if isinstance(d, (OptOperandDef, OptResultDef, OptRegionDef)):
        return "optional"
    if isinstance(d, (VarOperandDef, VarResultDef, VarRegionDef)):
        return "variadic"
    return "single"


def _ours_name(name: str) -> str:
    # xDSL reserves `results`, `operands`, ... as field names: ours are `results_`, ...
    return name[:-1] if name.endswith("_") else name


def _default_matches(upstream: str, ours: Any, recs_enums: dict[str, dict[str, int]]) -> bool:
    """Whether our default attribute is the C++ default value `upstream` of the ODS."""
    from stablehlo_py.ir.op_attrs import ResultAccuracyAttr

    if isinstance(ours, IntegerAttr):
        v = ours.value.data
        if upstream in ("true", "false"):
            # (xDSL stores an i1 true as -1)
            return ours.type.width.data == 1 and bool(v) == (upstream == "true")  # type: ignore[attr-defined]
        if re.fullmatch(r"-?\d+", upstream):
            return v == int(upstream)
    if isinstance(ours, StringAttr) and upstream.startswith('"'):
        return f'"{ours.data}"' == upstream
    if upstream == "{}" and isinstance(ours, (ArrayAttr, DictionaryAttr)):
        return len(ours.data) == 0
    m = re.fullmatch(r"::mlir::\w+::(\w+)::(\w+)", upstream)
    if m:
        cases = recs_enums.get(m.group(1), {})
        case = m.group(2)
        if isinstance(ours, IntegerAttr):  # I32EnumAttr: stored as its i32 value
            return cases.get(case) == ours.value.data
        if isinstance(ours, ResultAccuracyAttr):  # its constBuilderCall: zero tolerances
            a = ours.accuracy
            return (a.mode, a.atol_bits, a.rtol_bits, a.ulps) == (case, 0, 0, 0)
        return getattr(ours, "data", None) == case and case in cases
    raise AssertionError(f"default {upstream!r} vs {ours}: comparison not understood")


@cache
def _enum_cases() -> dict[str, dict[str, int]]:
    """C++ enum name -> {case: value}, from the I32EnumAttr defs of the .td files."""
    recs, _ = read_td([DIALECT_DIR / f for f in OP_FILES])
    out: dict[str, dict[str, int]] = {}
    for rec in recs.defs.values():
        if not rec.parents or rec.parents[0][0] != "I32EnumAttr":
            continue
        args = rec.parents[0][1]
        cases: dict[str, int] = {}
        for c in args[2][1]:
            case = recs.defs[c[1]].parents[0][1]
            cases[case[0][1]] = case[1][1]
        out.setdefault(args[0][1], {}).update(cases)
    return out


# what MLIR's AttrSizedOperandSegments / AttrSizedResultSegments traits add as inherent attributes
SEGMENT_SIZES = ("operandSegmentSizes", "resultSegmentSizes")


def differences(up: OdsOp, cls: Any) -> list[str]:
    d = cls.get_irdl_definition()
    out: list[str] = []

    def seq(what: str, theirs: list[str], ours: list[str]) -> None:
        if theirs != ours:
            out.append(f"{what}: upstream ({', '.join(theirs)}), ours ({', '.join(ours)})")

    def show(n: str, k: str) -> str:
        return n + {"single": "", "variadic": "*", "optional": "?"}[k]

    seq(
        "operands",
        [show(n, k) for n, k in up.operands],
        [show(_ours_name(n), _kind(o)) for n, o in d.operands],
    )
    seq("results", list(up.results), [_kind(r) for _, r in d.results])
    seq("regions", list(up.regions), [_kind(r) for _, r in d.regions])

    ours = {**d.attributes, **d.properties}
    populated = getattr(cls, "POPULATED_DEFAULTS", {})
    for name, a in up.attributes.items():
        mine = ours.get(name)
        if mine is None:
            out.append(f"attribute '{name}' ({a.spelled}) is missing")
            continue
        if name in d.attributes:
            out.append(f"attribute '{name}' is a discardable attribute, upstream's a property")
        # an attribute may be absent when it is optional or default-valued (xDSL: an optional
        # definition, with its default)
        optional = isinstance(mine, (OptPropertyDef, OptAttributeDef))
        if optional != (a.optional or a.default is not None):
            out.append(
                f"attribute '{name}' ({a.spelled}) is {'optional' if optional else 'required'}"
            )
        dv = getattr(mine, "default_value", None)
        if a.default is None and dv is not None:
            out.append(f"attribute '{name}' ({a.spelled}) has a default ({dv}), upstream none")
        elif a.default is not None and dv is None:
            out.append(f"attribute '{name}' ({a.spelled}) has no default")
        elif a.default is not None and not _default_matches(a.default, dv, _enum_cases()):
            out.append(f"attribute '{name}' ({a.spelled}) has the default {dv}")
        if a.populated != (name in populated):
            out.append(
                f"attribute '{name}' ({a.spelled}): MLIR "
                + ("populates" if a.populated else "does not populate")
                + " its default on creation, ours "
                + ("does not" if a.populated else "does")
            )
        if a.unit and "UnitAttr" not in repr(mine.constr):
            out.append(f"attribute '{name}' is UnitAttr upstream, ours {mine.constr}")
    for name in ours:
        if name not in up.attributes and name not in SEGMENT_SIZES:
            out.append(f"attribute '{name}' is ours only")
    return out


# Ops of ours that upstream's ODS at this release does not define, each with its reason.
OURS_ONLY: dict[str, str] = {
    "chlo.minimum_broadcast_shapes": (
        "deleted from CHLO in StableHLO 0.19.10 (openxla/stablehlo#2287); kept so that programs "
        "of older producers still read (chlo-legalize-to-stablehlo refuses it clearly)"
    ),
}

# Differences on purpose: (op, difference) -> why.
EXCEPTIONS: dict[tuple[str, str], str] = {}


def _ours() -> dict[str, Any]:
    from stablehlo_py.ir.dialects import default_registry

    return {
        n: c for n, c in default_registry().ops.items() if n.split(".", 1)[0] in DIALECTS
    }


# ==================================================================================== tests
@SKIP_NO_SHARED
def test_reader_reads_every_op_file() -> None:
    assert READ_ERROR is None, READ_ERROR
    assert UPSTREAM is not None
    _, defs = read_td([DIALECT_DIR / f for f in OP_FILES])
    # every file the op files include was read, and StableHLO's and CHLO's ops are all there
    assert {"StablehloOps.td", "ChloOps.td", "Base.td", "StablehloEnums.td"} <= set(defs)
    for dialect in DIALECTS:
        n = sum(1 for name in UPSTREAM if name.startswith(dialect + "."))
        assert n > 40, (dialect, n)


@SKIP_NO_SHARED
@pytest.mark.parametrize("op_name", sorted(UPSTREAM or ()))
def test_op_matches_upstream_ods(op_name: str) -> None:
    assert UPSTREAM is not None
    up = UPSTREAM[op_name]
    ours = _ours()
    assert op_name in ours, f"{op_name} ({up.where}) is not in our dialect"
    found = differences(up, ours[op_name])
    unexpected = [d for d in found if (op_name, d) not in EXCEPTIONS]
    assert not unexpected, f"{op_name} differs from {up.where}:\n  " + "\n  ".join(unexpected)


@SKIP_NO_SHARED
def test_exceptions_are_current() -> None:
    assert UPSTREAM is not None
    ours = _ours()
    for (op_name, diff), why in EXCEPTIONS.items():
        assert why, (op_name, diff)
        assert op_name in UPSTREAM and op_name in ours, op_name
        assert diff in differences(UPSTREAM[op_name], ours[op_name]), (op_name, diff)


@SKIP_NO_SHARED
def test_ours_only_ops_are_listed() -> None:
    assert UPSTREAM is not None
    extra = sorted(set(_ours()) - set(UPSTREAM))
    assert extra == sorted(OURS_ONLY), extra
    assert all(OURS_ONLY.values())


# ----------------------------------------------------------------------- the reader itself
def test_reader_on_a_small_file(tmp_path: Path) -> None:
    td = tmp_path / "X.td"
    td.write_text(
        """
include "mlir/IR/OpBase.td"
def X_Dialect : Dialect { let name = "x"; }
class X_Op<string mnemonic, list<Trait> traits = []> : Op<X_Dialect, mnemonic, traits>;
/* a /* nested */ comment */
class X_Unary<string mnemonic, Type T, Type R = T> : X_Op<mnemonic, [Pure] # [NoMemoryEffect]> {
  let arguments = (ins T:$operand);
  let results = (outs R:$result);
}
def X_NegOp : X_Unary<"neg", AnyTensor>;
def X_FooOp : X_Op<"foo"> {
  let summary = "foo" "bar";
  let description = [{ `let arguments = (ins)` in a code block }];
  let arguments = (ins
    Arg<Variadic<AnyTensor>, [{doc}]>:$inputs,
    Optional<AnyTensor>:$maybe,
    ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
    OptionalAttr<DenseI64ArrayAttr>:$dims,
    DefaultValuedAttr<I64Attr, "-1">:$a,
    DefaultValuedStrAttr<StrAttr, "">:$config,
    DefaultValuedOptionalAttr<BoolAttr, "true">:$stable, // comment
    UnitAttr:$flag
  );
  let results = (outs Variadic<AnyTensor>, AnyTensor:$r);
  let regions = (region SizedRegion<1>:$body, VariadicRegion<AnyRegion>:$branches);
}
"""
    )
    recs, defs = read_td([td])
    assert defs == {"X.td": 3}
    c = Classifier(recs, "X.td")
    neg = recs.fields(recs.defs["X_NegOp"], {})
    assert neg["opName"] == ("str", "neg")
    assert [c.argument(v) for v, _ in neg["arguments"][2]] == [("operand", "single")]
    assert [c.result(v) for v, _ in neg["results"][2]] == ["single"]
    foo = recs.fields(recs.defs["X_FooOp"], {})
    assert foo["summary"] == ("str", "foobar")
    args = {n: c.argument(v) for v, n in foo["arguments"][2]}
    assert args["inputs"] == ("operand", "variadic")
    assert args["maybe"] == ("operand", "optional")
    assert args["dim"][1].optional is False and args["dim"][1].default is None
    assert args["dims"][1].optional is True
    assert (args["a"][1].default, args["a"][1].populated, args["a"][1].optional) == (
        "-1",
        True,
        False,
    )
    assert args["config"][1].default == '""'
    assert (args["stable"][1].default, args["stable"][1].populated) == ("true", False)
    assert args["flag"][1].unit and args["flag"][1].optional
    assert [c.result(v) for v, _ in foo["results"][2]] == ["variadic", "single"]
    assert [c.region(v) for v, _ in foo["regions"][2]] == ["single", "variadic"]


@pytest.mark.parametrize(
    "text",
    [
        "defm Foo : Bar;",  # not understood: fails, never skips
        "def X : Y<",
        "class C<int a> { let x = ; }",
        "def X { foreach i = [1] in { } }",
        "/* unterminated",
    ],
)
def test_reader_refuses_what_it_does_not_understand(tmp_path: Path, text: str) -> None:
    td = tmp_path / "Bad.td"
    td.write_text(text)
    with pytest.raises(TableGenError):
        read_td([td])


def test_unknown_constraint_fails(tmp_path: Path) -> None:
    td = tmp_path / "Y.td"
    td.write_text('def Y_Dialect : Dialect { let name = "y"; }\n')
    recs, _ = read_td([td])
    with pytest.raises(TableGenError, match="neither a known attribute nor type"):
        Classifier(recs, "Y.td").argument(("id", "SomethingNew", None))
