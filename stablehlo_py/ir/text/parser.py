"""MLIR text -> xDSL IR, for the StableHLO/CHLO/func/builtin subset.

A hand-written recursive-descent parser over the raw string (regexes matched at a position), with
types interned by their text.  It reads both the generic form (`"stablehlo.add"(%0, %1) : (...) -> ...`)
and each op's pretty form (delegated to the op class's `parse_pretty`), locations of every kind, and
attribute/type aliases (also those defined after their use, as JAX's debug output does).

Regions may hold several blocks: block labels (`^bb1(%a: T):`) are scoped per region, a successor
(`cf.br ^bb1`, generic `"cf.br"()[^bb1]`) may name a block labelled later in the region, and blocks
keep their textual order (MLIR's).  An SSA value must be defined before its first use in the text:
MLIR also accepts a use in an earlier block of a value defined in a later one (dominance permitting);
stablehlo-py does not (not supported: "use of undeclared SSA value name ... is defined further down").

It replaces xDSL's stock parser for this subset; the xDSL text-layer problems listed in DESIGN.md §3 do
not arise here by construction, and `tests/unit/test_text_workarounds.py` has one regression test each.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from xdsl.dialects.builtin import (
    ArrayAttr,
    ComplexType,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    NoneType,
    StringAttr,
    SymbolRefAttr,
    TupleType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import ParseError
from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType, TypedStringAttr
from stablehlo_py.ir.construct import append_ops
from stablehlo_py.ir.registry import FOREIGN_SYNTAX
from stablehlo_py.ir.text import dense as dense_text
from stablehlo_py.ir.text.floats import NUMBER as _NUMBER
from stablehlo_py.ir.text.location import UNKNOWN, TextLoc
from stablehlo_py.ir.text.spelling import type_to_str
from stablehlo_py.ir.types import (
    FLOAT_NAME,
    INDEX,
    TOKEN,
    simple_type,
    tensor_type,
)

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry

_WS = re.compile(r"(?:[ \t\r\n]+|//[^\n]*)*")
_WS_START = frozenset(" \t\r\n/")
_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_SUFFIX_ID = re.compile(r"(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)")
_VALUE_USE = re.compile(r"%([0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)(?:#([0-9]+))?")
_INT = re.compile(r"-?(?:0x[0-9a-fA-F]+|[0-9]+)")
_FLOAT_LIKE = re.compile(r"[.eE]")
_DIMS = re.compile(r"(?:(?:[0-9]+|\?)x)*")
_KEYWORD_TYPE = re.compile(r"[a-z][A-Za-z0-9]*")
_STRING_BODY = re.compile(r'"((?:[^"\\\n]|\\.)*)"', re.DOTALL)
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{2})|(.))", re.DOTALL)
_SIMPLE_TENSOR = re.compile(r"tensor<((?:(?:[0-9]+|\?)x)*)([a-z][A-Za-z0-9]*)>")
_ALIAS_DEF = re.compile(r"^([#!])([A-Za-z_][A-Za-z0-9_$.\-]*)[ \t]*=[ \t]*", re.MULTILINE)
# a short dense literal with a plain tensor type, as one token sequence (`Parser._parse_dense`)
_SHORT_DENSE = re.compile(
    r"dense<[^<>\"\n]{0,48}>[ \t]*:[ \t]*tensor<(?:(?:[0-9]+|\?)x)*[a-z][A-Za-z0-9]*>"
)
_DENSE_BY_TEXT: dict[str, Attribute] = {}
_DENSE_BY_TEXT_LIMIT = 10_000
# a short `array<i64: 1, 2>` (dimension lists of generic-form ops), interned as short dense literals
_SHORT_ARRAY = re.compile(r"array<[a-z0-9]+(?::[ \t0-9,\-]{0,64})?>")
# `%name = op.name` (one result) or `op.name`: the head of most ops (`Parser.parse_operation`)
_OP_HEAD = re.compile(
    r"(?:%([0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)[ \t\r\n]*=[ \t\r\n]*)?([A-Za-z_][A-Za-z0-9_$.]*)"
)
_SYMBOL = re.compile(r'@(?:([A-Za-z_][A-Za-z0-9_$.\-]*)|"((?:[^"\\]|\\.)*)")')

_ESC = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}

_I64 = IntegerType(64)
_TYPE_CACHE: dict[str, Attribute] = {}
# function types interned by their inputs and outputs (types are immutable)
_FUNCTION_TYPES: dict[tuple[int, ...], tuple[FunctionType, list[Attribute], list[Attribute]]] = {}


def simple_tensor_type(key: str, dims: str, elem_name: str) -> Attribute | None:
    """The type of a `_SIMPLE_TENSOR` match `key` (`tensor<4x?xf32>`, its groups `dims` and
    `elem_name`), interned by its text; None when the element type is unknown."""
    t = _TYPE_CACHE.get(key)
    if t is None:
        elem = simple_type(elem_name)
        if elem is None:
            return None
        shape = tuple(-1 if d == "?" else int(d) for d in dims[:-1].split("x")) if dims else ()
        t = _TYPE_CACHE[key] = tensor_type(elem, shape)
    return t


_WS_RUN = re.compile(r'("(?:[^"\\]|\\.)*")|\s+')


def normalize_opaque(text: str) -> str:
    """Unmodelled dialect attributes keep their text with whitespace runs (outside strings) collapsed,
    which is how MLIR reprints e.g. a multi-line `#sparse_tensor.encoding<{ map = ... }>`."""
    return _WS_RUN.sub(lambda m: m.group(1) or " ", text)


def unescape(body: str) -> str:
    if "\\" not in body:
        return body

    def repl(m: re.Match[str]) -> str:
        if m.group(1):
            return chr(int(m.group(1), 16))
        c = m.group(2)
        return _ESC.get(c, c)

    raw = _ESCAPE.sub(repl, body)
    try:
        # Escapes are bytes: bytes that are not UTF-8 survive as surrogates and print back as `\XX`.
        return raw.encode("latin-1").decode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return raw


# How deep the text may nest (the parser, the verifier and the printer recurse once per level).
MAX_INT_WIDTH = 16777215  # MLIR's IntegerType::kMaxWidth
MAX_REGION_NESTING = 64
MAX_TYPE_NESTING = 128
MAX_ATTRIBUTE_NESTING = 128


class Source:
    """A parsed buffer: maps an offset to `file:line:col` on demand (ops keep `(source, offset)`)."""

    __slots__ = ("_starts", "filename", "line_offset", "text")

    def __init__(self, text: str, filename: str, line_offset: int):
        self.text = text
        self.filename = filename
        self.line_offset = line_offset
        self._starts: list[int] | None = None

    def line_col(self, pos: int) -> tuple[int, int]:
        if self._starts is None:
            self._starts = _line_starts(self.text)
        line = bisect_right(self._starts, pos) - 1
        return line + 1 + self.line_offset, pos - self._starts[line] + 1

    def location(self, pos: int) -> str:
        line, col = self.line_col(pos)
        return f"{self.filename}:{line}:{col}"

    def release_text(self) -> None:
        """Keep only the line starts (8 bytes a line) instead of the text: a parsed module's ops
        refer to their Source for locations, and would otherwise keep the whole buffer alive
        (2 bytes per byte of a hex constant)."""
        if self._starts is None:
            self._starts = _line_starts(self.text)
        self.text = None  # type: ignore[assignment]


_RELEASE_TEXT_ABOVE = 1 << 20  # chars: below this, keeping the text costs less than the line starts


def _line_starts(text: str) -> array:
    starts = array("q", [0])
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def op_source_location(op: Operation) -> str | None:
    """`file:line:col` where the op was parsed, if it came from text."""
    src = getattr(op, "_src", None)
    if src is None:
        return None
    return src[0].location(src[1])


class Parser:
    """One parse of one text buffer.  Op classes use its `parse_*`/`try_*` methods in `parse_pretty`."""

    def __init__(
        self,
        text: str,
        registry: Registry,
        filename: str = "-",
        line_offset: int = 0,
        allow_unregistered: bool = False,
    ):
        self.text = text
        self.allow_unregistered = allow_unregistered
        self.pos = 0
        self.registry = registry
        self.filename = filename
        self.line_offset = line_offset
        self.source = Source(text, filename, line_offset)
        self.scopes: list[dict[str, SSAValue]] = [{}]
        self.name_pos: dict[str, int] = {}
        self.default_dialects: list[str] = [""]
        self.attr_alias_text: dict[str, int] = {}
        self.type_alias_text: dict[str, int] = {}
        self.attr_aliases: dict[str, Attribute] = {}
        self.type_aliases: dict[str, Attribute] = {}
        self._resolving: set[str] = set()
        # one table per region being parsed: block name -> its block, and where it was defined
        # (None while only referenced) and first referenced
        self.block_scopes: list[dict[str, _BlockName]] = []
        # the custom (pretty-form) ops being parsed, innermost last: MLIR's OpAsmParser prefixes
        # what a custom parser emits with `custom op 'name' `
        self.custom_ops: list[str] = []
        self.nesting: dict[str, int] = {}
        self._scan_aliases()

    # ------------------------------------------------------------------ positions and errors
    @staticmethod
    def type_text(t: Attribute) -> str:
        """A type's text, for messages of the parse functions below the text layer (types, dense)."""
        return type_to_str(t)

    normalize_opaque = staticmethod(normalize_opaque)  # for the parse functions below this module

    def location_of(self, pos: int) -> str:
        return self.source.location(pos)

    def error(
        self, message: str, pos: int | None = None, preceding: tuple[ParseError, ...] = ()
    ) -> NoReturn:
        err = ParseError(message, location=self.location_of(self.pos if pos is None else pos))
        if preceding:
            err.preceding = list(preceding)  # type: ignore[attr-defined]
        raise err

    def op_error(
        self, message: str, pos: int | None = None, preceding: tuple[ParseError, ...] = ()
    ) -> NoReturn:
        """An error a custom op parser emits (MLIR's OpAsmParser::emitError): inside a pretty-form
        op it reads `custom op 'stablehlo.add' <message>`.  `preceding` are errors MLIR emits
        before this one for the same failure (reported by --verify-diagnostics too)."""
        prefix = (
            f"custom op '{self.custom_ops[-1]}' " if self.custom_ops and self.custom_ops[-1] else ""
        )
        err = ParseError(
            prefix + message, location=self.location_of(self.pos if pos is None else pos)
        )
        if preceding:
            err.preceding = list(preceding)  # type: ignore[attr-defined]
        raise err

    def op_diagnostic(self, message: str, pos: int | None = None) -> ParseError:
        """`op_error`'s error without raising it (for a `preceding` diagnostic)."""
        prefix = (
            f"custom op '{self.custom_ops[-1]}' " if self.custom_ops and self.custom_ops[-1] else ""
        )
        return ParseError(
            prefix + message, location=self.location_of(self.pos if pos is None else pos)
        )

    def wrong_token_pos(self) -> int:
        """Where MLIR's emitWrongTokenError reports an unexpected token: right after the previous
        token (blank lines and `//` comments in between skipped), or at the token when nothing
        precedes it; at end of input, one character back."""
        self.ws()
        text, pos = self.text, self.pos
        if pos >= len(text) and pos > 0:
            pos -= 1
        original = pos
        end = pos
        while True:
            while end > 0 and text[end - 1] in " \t":
                end -= 1
            if end == 0:
                return original
            if text[end - 1] not in "\n\r":
                return end
            end -= 1
            line_start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1
            comment = text.find("//", line_start, end)
            if comment != -1 and not _in_string(text, line_start, comment):
                end = comment

    def wrong_token(self, message: str) -> NoReturn:
        """MLIR's emitWrongTokenError: `message, found <token>` right after the previous token."""
        found = self._found()
        self.error(f"{message}, found {found}", self.wrong_token_pos())

    def ws(self) -> None:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] not in _WS_START:
            return
        self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]

    def peek(self, n: int = 1) -> str:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        return text[pos : pos + n]

    def at_end(self) -> bool:
        self.ws()
        return self.pos >= len(self.text)

    def try_literal(self, lit: str) -> bool:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(lit, pos):
            self.pos = pos + len(lit)
            return True
        return False

    def parse_literal(self, lit: str, what: str | None = None) -> None:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith(lit, pos):
            self.pos = pos + len(lit)
            return
        self.wrong_token(f"expected '{lit}'{' ' + what if what else ''}")

    def _found(self) -> str:
        self.ws()
        if self.pos >= len(self.text):
            return "end of input"
        m = re.compile(r"\S+").match(self.text, self.pos)
        tok = m.group(0)[:20] if m else self.text[self.pos]
        return f"'{tok}'"

    def try_keyword(self, kw: str) -> bool:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        m = _BARE_ID.match(text, pos)
        if m and m.group(0) == kw:
            self.pos = m.end()
            return True
        return False

    def parse_keyword(self, kw: str | None = None) -> str:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        m = _BARE_ID.match(text, pos)
        if not m or (kw is not None and m.group(0) != kw):
            # MLIR's parseKeyword (an OpAsmParser error inside a custom op)
            self.op_error(f"expected {repr(kw) if kw else 'valid keyword'}, found {self._found()}")
        self.pos = m.end()
        return m.group(0)

    def try_bare_id(self) -> str | None:
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        m = _BARE_ID.match(text, pos)
        if not m:
            return None
        self.pos = m.end()
        return m.group(0)

    def parse_integer(self, what: str = "integer value") -> int:
        self.ws()
        m = _INT.match(self.text, self.pos)
        if not m or (self.pos < len(self.text) and _FLOAT_LIKE.match(self.text, m.end())):
            # MLIR's parseInteger (an OpAsmParser error inside a custom op)
            self.op_error(f"expected {what}, found {self._found()}")
        tok = m.group(0)
        value = int(tok, 16) if "x" in tok else int(tok, 10)
        if not -(1 << 63) <= value < (1 << 63):
            # MLIR's parseInteger into an int64_t
            self.op_error(f"integer value too large, found {tok}")
        self.pos = m.end()
        return value

    def try_integer(self) -> int | None:
        self.ws()
        m = _INT.match(self.text, self.pos)
        if not m:
            return None
        self.pos = m.end()
        t = m.group(0)
        return int(t, 16) if "x" in t else int(t)

    def parse_string(self, what: str = "a string") -> str:
        self.ws()
        m = _STRING_BODY.match(self.text, self.pos)
        if not m:
            if self.text.startswith('"', self.pos):
                # MLIR's lexer: an unterminated string is reported where the line (or input) ends
                end = self.pos + 1
                while end < len(self.text) and self.text[end] not in "\n\r":
                    end += 2 if self.text[end] == "\\" else 1
                self.error("expected '\"' in string literal", min(end, len(self.text)))
            self.error(f"expected {what}, found {self._found()}")
        self.pos = m.end()
        return unescape(m.group(1))

    def try_string(self) -> str | None:
        self.ws()
        if self.text.startswith('"', self.pos):
            return self.parse_string()
        return None

    def parse_comma_list(self, parse_one: Callable[[], object], close: str | None = None) -> list:
        """Parse `a, b, c` (possibly empty when `close` is given and comes next)."""
        items: list = []
        if close is not None and self.peek(len(close)) == close:
            return items
        items.append(parse_one())
        while self.try_literal(","):
            items.append(parse_one())
        return items

    def parse_delimited(self, open_: str, parse_one: Callable[[], object], close: str) -> list:
        self.parse_literal(open_)
        items = self.parse_comma_list(parse_one, close)
        self.parse_literal(close)
        return items

    def parse_symbol_name(self) -> str:
        self.ws()
        m = _SYMBOL.match(self.text, self.pos)
        if not m:
            # MLIR's parseSymbolName (an OpAsmParser error inside a custom op)
            self.op_error(f"expected valid '@'-identifier for symbol name, found {self._found()}")
        self.pos = m.end()
        return m.group(1) if m.group(1) is not None else unescape(m.group(2))

    # ------------------------------------------------------------------ nesting
    def _nested(self, kind: str, limit: int) -> None:
        """Count one more level of `kind` nesting; refuse input nested deeper than `limit` (the
        parser, verifier and printer recurse per level: a clear error instead of a RecursionError)."""
        depth = self.nesting.get(kind, 0) + 1
        if depth > limit:
            self.error(
                f"{kind} nested more than {limit} levels deep: stablehlo-py does not support deeper nesting",
            )
        self.nesting[kind] = depth

    def _unnest(self, kind: str) -> None:
        self.nesting[kind] -= 1

    def parse_type(self) -> Attribute:
        self._nested("types", MAX_TYPE_NESTING)
        try:
            return self._parse_type_impl()
        finally:
            self._unnest("types")

    def parse_attribute(self, type_hint: Attribute | None = None) -> Attribute:
        self._nested("attributes", MAX_ATTRIBUTE_NESTING)
        try:
            return self._parse_attribute_impl(type_hint)
        finally:
            self._unnest("attributes")

    def _location_inner(self) -> TextLoc:
        self._nested("locations", MAX_ATTRIBUTE_NESTING)
        try:
            return self._location_inner_impl()
        finally:
            self._unnest("locations")

    def parse_region(
        self,
        entry_args: Sequence[tuple[str, Attribute, TextLoc | None]] | None = None,
        default_dialect: str | None = None,
        isolated: bool = False,
    ) -> Region:
        """`{ ops }` or `{ ^bb0(%a: T): ops ^bb1: ... }`.  `entry_args` are names defined by the op's
        pretty syntax (function arguments, `%iterArg`s)."""
        self._nested("regions", MAX_REGION_NESTING)
        try:
            return self._parse_region_impl(entry_args, default_dialect, isolated)
        finally:
            self._unnest("regions")

    # ------------------------------------------------------------------ aliases
    def _scan_aliases(self) -> None:
        """Where each `#name = ...` / `!name = ...` definition's body starts (a definition starts a
        line): only the line starts with `#` or `!` are tried, found with `str.find`."""
        text = self.text
        for marker, table in (("#", self.attr_alias_text), ("!", self.type_alias_text)):
            starts = [0] if text.startswith(marker) else []
            needle = "\n" + marker
            i = text.find(needle)
            while i != -1:
                starts.append(i + 1)
                i = text.find(needle, i + 2)
            for start in starts:
                m = _ALIAS_DEF.match(text, start)
                if m is not None:
                    table[m.group(2)] = m.end()

    def _resolve_alias(self, kind: str, name: str, pos: int) -> Attribute:
        cache = self.attr_aliases if kind == "#" else self.type_aliases
        got = cache.get(name)
        if got is not None:
            return got
        table = self.attr_alias_text if kind == "#" else self.type_alias_text
        start = table.get(name)
        if start is None:
            self.error(
                f"undefined {'attribute' if kind == '#' else 'type'} alias '{kind}{name}'", pos
            )
        if name in self._resolving:
            self.error(f"alias '{kind}{name}' refers to itself", pos)
        self._resolving.add(name)
        saved = self.pos
        self.pos = start
        try:
            if kind == "#":
                if self.text.startswith("loc(", start):
                    value: Attribute = self.parse_location_body()
                else:
                    value = self.parse_attribute()
            else:
                value = self.parse_type()
        finally:
            self.pos = saved
            self._resolving.discard(name)
        cache[name] = value
        return value

    def _skip_alias_definition(self) -> bool:
        """At top level: skip `#name = ...` / `!name = ...` (already indexed)."""
        self.ws()
        m = _ALIAS_DEF.match(self.text, self.pos)
        if not m:
            return False
        kind, name = m.group(1), m.group(2)
        self._resolve_alias(kind, name, self.pos)
        # Re-parse to find the end of the definition.
        self.pos = m.end()
        if kind == "#":
            if self.text.startswith("loc(", self.pos):
                self.parse_location_body()
            else:
                self.parse_attribute()
        else:
            self.parse_type()
        return True

    # ------------------------------------------------------------------ types
    def _parse_type_impl(self) -> Attribute:
        self.ws()
        text, pos = self.text, self.pos
        m = _SIMPLE_TENSOR.match(text, pos)
        if m:
            t = simple_tensor_type(m.group(0), m.group(1), m.group(2))
            if t is None:
                self._check_int_width(m.group(2), m.start(2))
                self.error(f"unknown element type '{m.group(2)}'", m.start(2))
            self.pos = m.end()
            return t
        m = _KEYWORD_TYPE.match(text, pos)
        if m:
            word = m.group(0)
            if word == "tensor" and text.startswith("<", m.end()):
                self.pos = m.end() + 1
                return self._parse_tensor_body(pos)
            if word == "complex" and text.startswith("<", m.end()):
                self.pos = m.end() + 1
                inner = self.parse_type()
                self.parse_literal(">")
                if not isinstance(inner, IntegerType) and type(inner) not in FLOAT_NAME:
                    self.error(
                        "invalid element type for complex", pos
                    )  # MLIR's ComplexType::verify
                return ComplexType(inner)  # type: ignore[arg-type]
            if word == "tuple" and text.startswith("<", m.end()):
                self.pos = m.end() + 1
                items = self.parse_comma_list(self.parse_type, ">")
                self.parse_literal(">")
                # xDSL 0.74's TupleType keeps a list given to it (unhashable); pass an ArrayAttr.
                return TupleType(ArrayAttr(items))
            if word == "memref" and text.startswith("<", m.end()):
                # `memref<2x?xf32>` (StableHLO buffers, VHLO's buffer_v1); layouts and memory
                # spaces are not part of StableHLO.
                from xdsl.dialects.builtin import MemRefType, NoneAttr, UnrankedMemRefType

                self.pos = m.end() + 1
                if text.startswith("*x", self.pos):  # `memref<*xi16>`
                    self.pos += 2
                    elem = self.parse_type()
                    if self.peek() == ",":
                        self.error("memref memory spaces are not supported by stablehlo-py")
                    self.parse_literal(">", "to close the memref type")
                    return UnrankedMemRefType(elem, NoneAttr())
                dm = _DIMS.match(text, self.pos)
                dims = dm.group(0)  # type: ignore[union-attr]
                self.pos = dm.end()  # type: ignore[union-attr]
                shape = [-1 if d == "?" else int(d) for d in dims[:-1].split("x")] if dims else []
                elem = self.parse_type()
                if self.peek() == ",":
                    self.error("memref layouts and memory spaces are not supported by stablehlo-py")
                self.parse_literal(">", "to close the memref type")
                return MemRefType(elem, shape)
            t = simple_type(word)
            if t is not None:
                self.pos = m.end()
                return t
            self._check_int_width(word, pos)
            self.error(f"unknown type '{word}'", pos)
        if text.startswith("!", pos):
            return self._parse_dialect_type()
        if text.startswith("(", pos):
            return self.parse_function_type()
        self.wrong_token("expected non-function type")

    def _check_int_width(self, word: str, pos: int) -> None:
        m = re.fullmatch(r"[su]?i([0-9]+)", word)
        if m and int(m.group(1)) > MAX_INT_WIDTH:
            self.error(f"integer bitwidth is limited to {MAX_INT_WIDTH} bits", pos)  # MLIR's words

    def _parse_tensor_body(self, start: int) -> Attribute:
        text = self.text
        if text.startswith("*x", self.pos):
            self.pos += 2
            elem = self.parse_type()
            self.parse_literal(">")
            return UnrankedTensorType(elem)
        m = _DIMS.match(text, self.pos)
        dims = m.group(0)  # type: ignore[union-attr]
        self.pos = m.end()  # type: ignore[union-attr]
        shape = tuple(-1 if d == "?" else int(d) for d in dims[:-1].split("x")) if dims else ()
        elem = self.parse_type()
        encoding = None
        if self.try_literal(","):
            self.ws()
            epos = self.pos
            encoding = self.parse_attribute()
            # A VerifiableTensorEncoding (e.g. #stablehlo.bounds) checks itself against the shape.
            check = getattr(encoding, "verify_encoding", None)
            problem = check(shape) if check is not None else None
            if problem:
                self.error(problem, epos)
        self.parse_literal(">", "to close the tensor type")
        key = text[start : self.pos]
        t = _TYPE_CACHE.get(key)
        if t is None:
            try:
                t = _TYPE_CACHE[key] = tensor_type(elem, shape, encoding)
            except VerifyException as e:  # what xDSL's TensorType refuses (e.g. a tuple element)
                self.error(f"invalid tensor type: {str(e).splitlines()[-1]}", start)
        return t

    def parse_function_type(self) -> FunctionType:
        inputs = self.parse_delimited("(", self.parse_type, ")")
        self.parse_literal("->", "in function type")
        outputs = self.parse_result_types()
        # keyed by the types' identities (hashing a type hashes all its parameters); the entry
        # keeps the types alive, so their ids stay theirs
        key = (*map(id, inputs), -1, *map(id, outputs))
        entry = _FUNCTION_TYPES.get(key)
        if entry is None:
            entry = _FUNCTION_TYPES[key] = (
                FunctionType.from_lists(inputs, outputs),
                inputs,
                outputs,
            )
        return entry[0]

    def parse_result_types(self) -> list[Attribute]:
        """`T` or `(T, ...)` after `->`. A parenthesised single function type is a result too."""
        if self.peek() == "(":
            save = self.pos
            self.pos += 1
            items = self.parse_comma_list(self.parse_type, ")")
            if self.try_literal(")"):
                if self.peek(2) == "->":
                    # `(A) -> B` was a function type as the single result.
                    self.pos = save
                    return [self.parse_function_type()]
                return items
            self.pos = save
        return [self.parse_type()]

    def _parse_dialect_type(self) -> Attribute:
        self.custom_ops.append("")  # a dialect type's parser: no `custom op` prefix
        try:
            return self._parse_dialect_type_body()
        finally:
            self.custom_ops.pop()

    def _parse_dialect_type_body(self) -> Attribute:
        start = self.pos
        self.pos += 1
        m = _BARE_ID.match(self.text, self.pos)
        if not m:
            self.error("expected a dialect type name after '!'")
        name = m.group(0)
        self.pos = m.end()
        if name == "stablehlo.token":
            return TOKEN
        parser = self.registry.type_parsers.get(name)
        if parser is not None:
            return parser(self)
        if "." not in name:
            return self._resolve_alias("!", name, start)
        # Unknown dialect type: keep its text.
        if self.text.startswith("<", self.pos):
            self._skip_balanced()
        return OpaqueType(self.text[start : self.pos])

    def _skip_balanced(self) -> None:
        """Skip a `<...>` group (nested brackets and strings respected)."""
        depth = 0
        text = self.text
        i = self.pos
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                m = _STRING_BODY.match(text, i)
                if not m:
                    self.error("unterminated string", i)
                i = m.end()
                continue
            if c in "<([{":
                depth += 1
            elif c in ">)]}":
                if c == ">" and i > 0 and text[i - 1] == "-":
                    i += 1  # the arrow of `(d0) -> (d0)` inside e.g. #sparse_tensor.encoding<{map = ...}>
                    continue
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return
            i += 1
        self.error("unbalanced '<' in dialect attribute or type", self.pos)

    # ------------------------------------------------------------------ attributes
    def _parse_attribute_impl(self, type_hint: Attribute | None = None) -> Attribute:
        self.ws()
        text, pos = self.text, self.pos
        c = text[pos : pos + 1]
        if c == "#":
            return self._parse_hash_attribute()
        if c == '"':
            s = self.parse_string()
            if self.peek() == ":" and not self.text.startswith("::", self.pos):
                # A typed string (rare): MLIR's StringAttr with a type.
                save = self.pos
                self.pos += 1
                try:
                    t = self.parse_type()
                except ParseError:
                    self.pos = save
                    return StringAttr(s)
                return (
                    StringAttr(s) if isinstance(t, NoneType) else TypedStringAttr(StringAttr(s), t)
                )
            return StringAttr(s)
        if c == "[":
            self.pos += 1
            items = self.parse_comma_list(self.parse_attribute, "]")
            self.parse_literal("]")
            return ArrayAttr(items)
        if c == "{":
            return self.parse_dict_attr()
        if c == "@":
            return self.parse_symbol_ref()
        if c == "-" or c.isdigit():
            return self._parse_number_attr(type_hint)
        m = _BARE_ID.match(text, pos)
        if m:
            word = m.group(0)
            if word in ("true", "false"):
                self.pos = m.end()
                return IntegerAttr(1 if word == "true" else 0, IntegerType(1))
            if word == "unit":
                self.pos = m.end()
                return UnitAttr()
            if word == "dense" and text.startswith("<", m.end()):
                return self._parse_dense(pos, m.end())
            if word == "array" and text.startswith("<", m.end()):
                return self._parse_array(pos, m.end())
            if word in ("affine_map", "affine_set") and text.startswith("<", m.end()):
                # Kept verbatim (whitespace-normalized) like other unmodelled attributes.
                self.pos = m.end()
                self._skip_balanced()
                return OpaqueAttr(normalize_opaque(text[pos : self.pos]))
            if word in ("dense_resource", "sparse", "strided", "distinct"):
                self.error(f"'{word}' attributes are not supported by stablehlo-py")
        # A type used as an attribute.
        return self.parse_type()

    def _parse_dense(self, start: int, after_keyword: int) -> Attribute:
        """`dense<...> : type`; a short literal of a plain tensor type (`dense<0.0> : tensor<f32>`,
        recurring throughout programs) is interned by its text once it has parsed."""
        return self._interned(_SHORT_DENSE, start, after_keyword, dense_text.parse_dense)

    def _parse_array(self, start: int, after_keyword: int) -> Attribute:
        """`array<type: ...>`; a short integer list is interned by its text (equal dimension lists
        of many ops are then one object, which the verifier's memo and the passes key on)."""
        return self._interned(_SHORT_ARRAY, start, after_keyword, dense_text.parse_dense_array)

    def _interned(
        self,
        short_form: re.Pattern[str],
        start: int,
        after_keyword: int,
        parse: Callable[[Parser], Attribute],
    ) -> Attribute:
        """The attribute at `start` (its keyword ends at `after_keyword`), parsed by `parse`; when
        its text matches `short_form` whole, interned by that text (`_DENSE_BY_TEXT`)."""
        short = short_form.match(self.text, start)
        if short is not None:
            a = _DENSE_BY_TEXT.get(short.group(0))
            if a is not None:
                self.pos = short.end()
                return a
        self.pos = after_keyword
        a = parse(self)
        if short is not None and self.pos == short.end():
            if len(_DENSE_BY_TEXT) >= _DENSE_BY_TEXT_LIMIT:
                _DENSE_BY_TEXT.clear()
            _DENSE_BY_TEXT[short.group(0)] = a
        return a

    def _parse_number_attr(self, type_hint: Attribute | None) -> Attribute:
        self.ws()
        m = _NUMBER.match(self.text, self.pos)
        if not m:
            self.error(f"expected a number, found {self._found()}")
        tok = m.group(0)
        self.pos = m.end()
        ty = type_hint
        if self.peek() == ":" and not self.text.startswith("::", self.pos):
            self.pos += 1
            ty = self.parse_type()
        return dense_text.scalar_attr(self, tok, ty, m.start())

    def parse_dict_attr(self) -> DictionaryAttr:
        return DictionaryAttr(self.parse_attr_dict_body())

    def parse_attr_dict_body(self) -> dict[str, Attribute]:
        self.parse_literal("{")
        out: dict[str, Attribute] = {}

        def entry() -> None:
            self.ws()
            kpos = self.pos
            if self.text.startswith('"', self.pos):
                key = self.parse_string()
            else:
                key = self.try_bare_id()
                if key is None:
                    self.error(f"expected an attribute name, found {self._found()}")
            if key in out:
                self.error(f"duplicate attribute '{key}'", kpos)
            if self.try_literal("="):
                out[key] = self.parse_attribute()
            else:
                out[key] = UnitAttr()

        self.parse_comma_list(entry, "}")
        self.parse_literal("}", "to close the attribute dictionary")
        return out

    def try_attr_dict(self) -> dict[str, Attribute]:
        if self.peek() == "{":
            return self.parse_attr_dict_body()
        return {}

    def parse_symbol_ref(self) -> SymbolRefAttr:
        root = self.parse_symbol_name()
        nested: list[str] = []
        while self.text.startswith("::", self.pos):
            self.pos += 2
            nested.append(self.parse_symbol_name())
        return SymbolRefAttr(root, nested) if nested else SymbolRefAttr(root)

    def _parse_hash_attribute(self) -> Attribute:
        # a dialect attribute's own parser reports without the `custom op` prefix (DialectAsmParser)
        self.custom_ops.append("")
        try:
            return self._parse_hash_attribute_body()
        finally:
            self.custom_ops.pop()

    def _parse_hash_attribute_body(self) -> Attribute:
        start = self.pos
        self.pos += 1
        m = _BARE_ID.match(self.text, self.pos)
        if not m:
            self.error("expected an attribute name after '#'")
        name = m.group(0)
        self.pos = m.end()
        # `#stablehlo<comparison_direction GT>` or `#stablehlo.conv<...>`
        parser = self.registry.attr_parsers.get(name)
        if parser is not None:
            return parser(self)
        if name in self.registry.enum_dialects and self.text.startswith("<", self.pos):
            self.pos += 1
            mnemonic = self.parse_keyword()
            enum_parser = self.registry.attr_parsers.get(f"{name}.{mnemonic}")
            if enum_parser is None:
                self.error(f"unknown attribute '#{name}<{mnemonic} ...>'", start)
            value = enum_parser(self)
            self.parse_literal(">")
            return value
        if "." not in name and not self.text.startswith("<", self.pos):
            return self._resolve_alias("#", name, start)
        if self.text.startswith("<", self.pos):
            self._skip_balanced()
        return OpaqueAttr(normalize_opaque(self.text[start : self.pos]))

    # ------------------------------------------------------------------ locations
    def try_location(self) -> TextLoc | None:
        self.ws()
        if not self.text.startswith("loc(", self.pos):
            return None
        return self.parse_location_body()

    def parse_location_body(self) -> TextLoc:
        """Parse `loc(...)` and return its canonical text (aliases inlined)."""
        self.parse_literal("loc")
        self.parse_literal("(")
        inner = self._location_inner()
        self.parse_literal(")", "to close the location")
        return inner

    def _location_inner_impl(self) -> TextLoc:
        self.ws()
        text = self.text
        if text.startswith("#", self.pos):
            start = self.pos
            self.pos += 1
            m = _SUFFIX_ID.match(text, self.pos)
            if not m:
                self.error("expected a location alias")
            self.pos = m.end()
            alias = self._resolve_alias("#", m.group(0), start)
            if not isinstance(alias, TextLoc):
                self.error(f"alias '#{m.group(0)}' is not a location", start)
            return alias
        start = self.pos
        self._skip_location_expr()
        body = text[start : self.pos]
        if "#" in body:
            body = self._inline_loc_aliases(body, start)
        return TextLoc(body) if body != "unknown" else UNKNOWN

    def _skip_location_expr(self) -> None:
        depth = 0
        text = self.text
        i = self.pos
        while i < len(text):
            c = text[i]
            if c == '"':
                m = _STRING_BODY.match(text, i)
                if not m:
                    self.error("unterminated string in location", i)
                i = m.end()
                continue
            if c in "([<":
                depth += 1
            elif c in ")]>":
                if depth == 0:
                    self.pos = i
                    return
                depth -= 1
            i += 1
        self.error("unterminated location", self.pos)

    def _inline_loc_aliases(self, body: str, base: int) -> str:
        def repl(m: re.Match[str]) -> str:
            alias = self._resolve_alias("#", m.group(1), base + m.start())
            return alias.data if isinstance(alias, TextLoc) else m.group(0)

        return re.sub(r'(?<![A-Za-z0-9"])#([A-Za-z_][A-Za-z0-9_$.\-]*)', repl, body)

    # ------------------------------------------------------------------ SSA values
    def lookup_value(self, name: str, index: int | None, pos: int) -> SSAValue:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                break
        else:
            self.error(
                f"use of undeclared SSA value name '%{name}'{self._defined_later(name, pos)}", pos
            )
        if isinstance(v, tuple):
            if index is None:
                return v[0]  # as MLIR: `%name` of a result group is its first result, `%name#0`
            if index >= len(v):
                self.error(
                    f"'%{name}#{index}' is out of range: '%{name}' has {len(v)} results", pos
                )
            return v[index]
        if index not in (None, 0):
            self.error(f"'%{name}' is a single value; '#{index}' is out of range", pos)
        return v

    def use_type_error(
        self, value: SSAValue, declared: Attribute, start: int, end: int | None = None
    ) -> NoReturn:
        """MLIR's OperationParser::resolveSSAUse for an operand written with another type than its
        value's: the error at the operand's first use in the op's text (`start` to `end`, by default
        the current position), a note at the value's definition ("prior use here")."""
        pos = self.value_use_position(value, start, end)
        m = _VALUE_USE.match(self.text, pos)
        name = m.group(0) if m else "%?"
        note = None
        defined = self._definition_position(value, m.group(1) if m else None)
        if defined is not None:
            note = f"prior use here ({self.location_of(defined)})"
        raise ParseError(
            f"use of value '{name}' expects different type than prior uses: "
            f"'{type_to_str(declared)}' vs '{type_to_str(value.type)}'",
            location=self.location_of(pos),
            note=note,
        )

    def value_use_position(self, value: SSAValue, start: int, end: int | None = None) -> int:
        """Where `value` is first written as an operand between `start` and `end` (default: here);
        `start` when it is not found."""
        for m in _VALUE_USE.finditer(self.text, start, self.pos if end is None else end):
            if self.text.startswith("=", _WS.match(self.text, m.end()).end()):  # type: ignore[union-attr]
                continue  # a result name being defined
            idx = m.group(2)
            try:
                found = self.lookup_value(m.group(1), int(idx) if idx else None, m.start())
            except ParseError:
                continue
            if found is value:
                return m.start()
        return start

    def _definition_position(self, value: SSAValue, name: str | None) -> int | None:
        """Where `value`'s name was defined in the text: a block argument's `%name`, an op result's
        `%name` before its op's `=`."""
        owner = value.op if isinstance(value, OpResult) else value
        src = owner.__dict__.get("_src")
        if src is None or src[0] is not self.source:
            return None
        pos = src[1]
        if isinstance(value, OpResult) and name is not None:
            line_start = self.text.rfind("\n", 0, pos) + 1
            found = re.compile(rf"%{re.escape(name)}(?![A-Za-z0-9_$.\-])").search(
                self.text, line_start, pos
            )
            if found is not None:
                return found.start()
        return pos

    def _defined_later(self, name: str, pos: int) -> str:
        """For the error message, in a region with several blocks: a hint when `%name` is defined
        further down (MLIR accepts a use in one block of a value defined in a later one)."""
        if not (self.block_scopes and self.block_scopes[-1]):
            return ""
        n = re.escape(name)
        later = re.compile(rf"%{n}(?::[0-9]+)?\s*(?:,\s*%[^=\n]*)?=[^=]|\^[\w$.\-]*\([^)]*%{n}\s*:")
        if later.search(self.text, pos):
            return (
                f"; '%{name}' is defined further down: stablehlo-py does not support a use before the "
                "definition (MLIR allows it across blocks), put the defining block first"
            )
        return ""

    def parse_operand(self, deferred: bool = False) -> SSAValue:
        """`%name` or `%name#i`.  `deferred`: as MLIR's OpAsmParser::parseOperand, an undefined name
        is reported only when the op's operands are resolved (after its types are parsed), so the
        value is then an `UnresolvedValue` holding that error (see `resolve`)."""
        self.ws()
        m = _VALUE_USE.match(self.text, self.pos)
        if not m:
            self.error(f"expected an SSA value like %0, found {self._found()}")
        self.pos = m.end()
        idx = m.group(2)
        index = int(idx) if idx is not None else None
        if deferred:
            try:
                return self.lookup_value(m.group(1), index, m.start())
            except ParseError as e:
                return UnresolvedValue(e)
        return self.lookup_value(m.group(1), index, m.start())

    @staticmethod
    def resolve(value: SSAValue) -> SSAValue:
        """A deferred operand as a value; its lookup error when it was not defined."""
        if isinstance(value, UnresolvedValue):
            raise value.error
        return value

    def try_operand(self) -> SSAValue | None:
        self.ws()
        if self.text.startswith("%", self.pos):
            return self.parse_operand()
        return None

    def parse_operand_list(self, close: str | None = None) -> list[SSAValue]:
        return self.parse_comma_list(self.parse_operand, close)

    def parse_value_def_name(self) -> str:
        """`%name` where a block argument or an iteration variable is defined."""
        self.ws()
        m = _VALUE_USE.match(self.text, self.pos)
        if not m or m.group(2) is not None:
            self.error(f"expected a value name like %arg0, found {self._found()}")
        self.name_pos[m.group(1)] = m.start()
        self.pos = m.end()
        return m.group(1)

    def define(
        self, name: str, value: SSAValue | tuple[SSAValue, ...], pos: int | None = None
    ) -> None:
        scope = self.scopes[-1]
        if name in scope:
            self.error(f"redefinition of SSA value '%{name}'", pos)
        scope[name] = value  # type: ignore[assignment]

    # ------------------------------------------------------------------ regions and blocks
    def _parse_region_impl(
        self,
        entry_args: Sequence[tuple[str, Attribute, TextLoc | None]] | None = None,
        default_dialect: str | None = None,
        isolated: bool = False,
    ) -> Region:
        """`{ ops }` or `{ ^bb0(%a: T): ops ^bb1: ... }`.  `entry_args` are names defined by the op's
        pretty syntax (function arguments, `%iterArg`s)."""
        self.parse_literal("{", "to open a region")
        self.scopes.append({})
        saved_scopes = None
        if isolated:
            saved_scopes = self.scopes
            self.scopes = [{}]
        self.default_dialects.append(
            self.default_dialects[-1] if default_dialect is None else default_dialect
        )
        self.block_scopes.append({})
        try:
            region = Region()
            if self.peek() == "}":
                self.pos += 1
                if entry_args:
                    block = Block(arg_types=[t for _, t, _ in entry_args])
                    region.add_block(block)
                return region
            first = True
            while True:
                self.ws()
                if self.text.startswith("^", self.pos):
                    if first and entry_args:
                        self.error(
                            "a region with named entry arguments cannot start with a block label"
                        )
                    block = self._parse_block_header()
                elif first:
                    args = entry_args or []
                    block = Block(arg_types=[t for _, t, _ in args])
                    for (name, _, loc), arg in zip(args, block.args):
                        if name in self.scopes[-1]:  # MLIR's parseRegion, at the argument
                            self.error(
                                f"region entry argument '%{name}' is already in use",
                                self.name_pos.get(name),
                            )
                        self.define(name, arg)
                        if loc is not None:
                            arg.location = loc  # type: ignore[assignment]
                        else:
                            self._arg_source(arg, self.name_pos.get(name))
                else:  # end of input: MLIR's emitWrongTokenError position
                    self.wrong_token("expected a block label or '}'")
                first = False
                region.add_block(block)
                self._parse_block_ops(block)
                if self.peek() == "}":
                    self._check_blocks_defined()
                    self.pos += 1
                    return region
        finally:
            self.block_scopes.pop()
            self.default_dialects.pop()
            if saved_scopes is not None:
                self.scopes = saved_scopes
            else:
                self.scopes.pop()

    def _check_blocks_defined(self) -> None:
        """At a region's `}`: every block a successor named is defined in the region (MLIR's
        "reference to an undefined block", at the first reference)."""
        missing = [b.first_use for b in self.block_scopes[-1].values() if b.defined_at is None]
        if missing:
            self.error("reference to an undefined block", min(missing))

    def _block_label(self) -> tuple[str, int]:
        """`^name` -> (name, position of the `^`)."""
        self.ws()
        pos = self.pos
        if not self.text.startswith("^", pos):
            self.error(f"expected a block name like ^bb1, found {self._found()}")
        m = _SUFFIX_ID.match(self.text, pos + 1)
        if not m:
            self.error("expected a block name after '^'", pos)
        self.pos = m.end()
        return m.group(0), pos

    def parse_successor(self) -> Block:
        """`^name`: a block of the region being parsed, defined before or after this use."""
        name, pos = self._block_label()
        if not self.block_scopes:
            self.error("a block name can only be used inside a region", pos)
        scope = self.block_scopes[-1]
        entry = scope.get(name)
        if entry is None:
            entry = scope[name] = _BlockName(Block(), None, pos)
        return entry.block

    def parse_successor_list(self) -> list[Block]:
        """`[^bb1, ^bb2]` (the generic form's successor list)."""
        return self.parse_delimited("[", self.parse_successor, "]")

    def _parse_block_header(self) -> Block:
        label, label_pos = self._block_label()
        scope = self.block_scopes[-1]
        entry = scope.get(label)
        if entry is not None and entry.defined_at is not None:
            self.error(f"redefinition of block '^{label}'", label_pos)
        names: list[tuple[str, int]] = []
        types: list[Attribute] = []
        locs: list[TextLoc | None] = []
        if self.try_literal("("):

            def arg() -> None:
                self.ws()
                p = self.pos
                names.append((self.parse_value_def_name(), p))
                self.parse_literal(":")
                types.append(self.parse_type())
                locs.append(self.try_location())

            self.parse_comma_list(arg, ")")
            self.parse_literal(")")
        self.parse_literal(":", "after the block label")
        if entry is None:
            block = Block(arg_types=types)
            scope[label] = _BlockName(block, label_pos, label_pos)
        else:  # referenced by a successor before its label: the block exists, without arguments
            block = entry.block
            for t in types:
                block.insert_arg(t, len(block.args))
            entry.defined_at = label_pos
        for (name, p), a, loc in zip(names, block.args, locs):
            self.define(name, a, p)
            if loc is not None:
                a.location = loc  # type: ignore[assignment]
            else:
                self._arg_source(a, p)
        return block

    def _arg_source(self, arg: SSAValue, pos: int | None) -> None:
        """A block argument without `loc(...)` is where its name was written (MLIR's default)."""
        if pos is not None:
            arg._src = (self.source, pos)  # type: ignore[attr-defined]

    def _parse_block_ops(self, block: Block) -> None:
        ops: list[Operation] = []
        while True:
            self.ws()
            c = self.text[self.pos : self.pos + 1]
            if c == "}" or c == "^" or c == "":
                break
            ops.append(self.parse_operation())
        append_ops(block, ops)

    # ------------------------------------------------------------------ operations
    def parse_operation(self) -> Operation:
        self.ws()
        start = self.pos
        result_defs: list[tuple[str, int, int]] = []
        head = _OP_HEAD.match(self.text, start)
        if head is not None:
            # the common head in one match: `%name = op.name` or `op.name`
            if head.group(1) is not None:
                result_defs.append((head.group(1), 1, start))
            word: str | None = head.group(2)
            name_pos = head.start(2)
            self.pos = head.end()
            return self._parse_custom_op(word, name_pos, start, result_defs)
        if self.text.startswith("%", self.pos):

            def one() -> None:
                self.ws()
                p = self.pos
                m = _VALUE_USE.match(self.text, self.pos)
                if not m or m.group(2) is not None:
                    self.error(f"expected a result name, found {self._found()}")
                self.pos = m.end()
                count = 1
                if (
                    self.text.startswith(":", self.pos)
                    and self.text[self.pos + 1 : self.pos + 2].isdigit()
                ):
                    self.pos += 1
                    count = self.parse_integer()
                result_defs.append((m.group(1), count, p))

            self.parse_comma_list(one)
            self.parse_literal("=", "after the result names")
        self.ws()
        name_pos = self.pos
        if self.text.startswith('"', self.pos):
            op_name = self.parse_string()
            cls = self.registry.ops.get(op_name)
            if cls is None:
                cls = self._unregistered(op_name, name_pos)
            self.custom_ops.append("")  # the generic form: no custom parser, no prefix
            try:
                op = self._parse_generic(cls, op_name)
            finally:
                self.custom_ops.pop()
        else:
            return self._parse_custom_op(self.try_bare_id(), name_pos, start, result_defs)
        return self._finish_operation(op, name_pos, start, result_defs)

    def _parse_custom_op(
        self, word: str | None, name_pos: int, start: int, result_defs: list[tuple[str, int, int]]
    ) -> Operation:
        """The rest of an op in its pretty form, after its name `word` (None: no name there)."""
        if word is None:
            self.wrong_token("expected an operation")
        cls = self.registry.ops.get(word)
        if cls is None and "." not in word:
            dd = self.default_dialects[-1]
            cls = self.registry.ops.get(f"{dd}.{word}" if dd else f"builtin.{word}")
            if cls is None:
                cls = self.registry.ops.get(f"builtin.{word}")
        if cls is None:
            self.error(f"unknown operation '{word}'", name_pos)
        foreign = FOREIGN_SYNTAX.get(cls)
        self.custom_ops.append(cls.name)
        try:
            op = foreign.parse(self) if foreign is not None else cls.parse_pretty(self)
        finally:
            self.custom_ops.pop()
        return self._finish_operation(op, name_pos, start, result_defs)

    def _finish_operation(
        self, op: Operation, name_pos: int, start: int, result_defs: list[tuple[str, int, int]]
    ) -> Operation:
        """An op's trailing location, source position and result names."""
        # a custom parser may locate its op elsewhere than at the name (upstream's reduce)
        op._src = (self.source, op.__dict__.pop("_loc_pos", name_pos))  # type: ignore[attr-defined]
        loc = self.try_location()
        if loc is not None:
            op.location = loc  # type: ignore[assignment]
        results = op.results
        if len(result_defs) == 1 and result_defs[0][1] == len(results):
            name, _, p = result_defs[0]  # the common case: one name for all results
            self.define(name, tuple(results), p)
            return op
        n_results = sum(c for _, c, _ in result_defs)
        if n_results != len(results):
            self.error(
                f"operation '{op.name}' defines {len(op.results)} results but {n_results} names were given",
                start,
            )
        i = 0
        for name, count, p in result_defs:
            vals = tuple(op.results[i : i + count])
            self.define(name, vals, p)
            i += count
        return op

    def _unregistered(self, op_name: str, pos: int) -> type[Operation]:
        """The class of a generic-form op no dialect of ours defines: refused, unless the parse
        allows unregistered dialects (MLIR's --allow-unregistered-dialect) and the op's dialect is
        not one we know (MLIR refuses unknown ops of a registered dialect either way)."""
        if not self.allow_unregistered:
            self.error(f"unknown operation '{op_name}'", pos)
        dialect = op_name.partition(".")[0]
        if "." not in op_name or not dialect:
            self.error(f"unknown operation '{op_name}': an op name is 'dialect.op'", pos)
        if dialect in self.registry.dialects():
            self.error(
                f"unregistered operation '{op_name}' found in dialect ('{dialect}') that does not "
                "allow unknown operations",
                pos,
            )
        from stablehlo_py.ir.registry import unregistered_op_class

        return unregistered_op_class(op_name)

    def _parse_generic(self, cls: type[Operation], op_name: str) -> Operation:
        operands_pos = self.pos
        operands = self.parse_delimited("(", self.parse_operand, ")")
        successors = self.parse_successor_list() if self.peek() == "[" else []
        properties: dict[str, Attribute] = {}
        if self.try_literal("<"):
            self.ws()
            properties = self.parse_attr_dict_body()
            self.parse_literal(">", "to close the properties")
        regions: list[Region] = []
        if self.peek(2) == "({" or (
            self.peek() == "(" and self.text[self.pos + 1 :].lstrip().startswith("{")
        ):
            self.parse_literal("(")
            foreign = FOREIGN_SYNTAX.get(cls)
            isolated = foreign.isolated if foreign is not None else getattr(cls, "ISOLATED", False)
            regions = self.parse_comma_list(
                lambda: self.parse_region(default_dialect="", isolated=isolated), ")"
            )
            self.parse_literal(")")
        attributes = self.try_attr_dict()
        self.parse_literal(":", "before the operation's function type")
        self.ws()
        ftype_pos = self.pos
        ftype = self.parse_function_type()
        inputs = ftype.inputs.data
        if len(inputs) != len(operands):
            # MLIR's parseGenericOperation, at the function type
            self.error(f"expected {len(operands)} operand types but had {len(inputs)}", ftype_pos)
        for v, t in zip(operands, inputs):
            if v.type != t:
                self.use_type_error(v, t, operands_pos, ftype_pos)
        build = getattr(cls, "build_generic", None) or cls.create
        if successors:
            return build(
                operands=operands,
                result_types=list(ftype.outputs.data),
                properties=properties,
                attributes=attributes,
                regions=regions,
                successors=successors,
            )
        return build(
            operands=operands,
            result_types=list(ftype.outputs.data),
            properties=properties,
            attributes=attributes,
            regions=regions,
        )

    # ------------------------------------------------------------------ top level
    def parse_top_level(self) -> Operation:
        """A file: aliases plus either one `module` op or a list of ops (wrapped in a new module)."""
        from xdsl.dialects.builtin import ModuleOp

        ops: list[Operation] = []
        while True:
            self.ws()
            if self.pos >= len(self.text):
                break
            if self._skip_alias_definition():
                continue
            if self.text.startswith("{-#", self.pos):
                self.error("file metadata blocks ({-# ... #-}) are not supported by stablehlo-py")
            ops.append(self.parse_operation())
        if len(ops) == 1 and isinstance(ops[0], ModuleOp):
            self._release_text()
            return ops[0]
        module = ModuleOp(ops)
        module._implicit_src = self.source  # type: ignore[attr-defined]  # MLIR: loc("file":0:0)
        self._release_text()
        return module

    def _release_text(self) -> None:
        if len(self.text) > _RELEASE_TEXT_ABOVE:
            self.source.release_text()


class UnresolvedValue(SSAValue):
    """An operand name a custom op parser read that is not defined (MLIR's UnresolvedOperand): its
    error is raised when the op's operands are resolved against their types."""

    def __init__(self, error: ParseError):
        super().__init__(NoneType())
        self.error = error

    @property
    def owner(self) -> Operation:  # type: ignore[override]
        raise self.error


def _in_string(text: str, start: int, pos: int) -> bool:
    """Whether `pos` on the line starting at `start` is inside a string literal."""
    inside = False
    i = start
    while i < pos:
        c = text[i]
        if c == "\\" and inside:
            i += 2
            continue
        if c == '"':
            inside = not inside
        i += 1
    return inside


class _BlockName:
    """A block label of the region being parsed: the block, where its label is (None while it is
    only referenced by successors) and where it was first named."""

    __slots__ = ("block", "defined_at", "first_use")

    def __init__(self, block: Block, defined_at: int | None, first_use: int):
        self.block = block
        self.defined_at = defined_at
        self.first_use = first_use


__all__ = ["INDEX", "Parser", "unescape"]
