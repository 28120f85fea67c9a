"""The character level of the MLIR text parser (`parser.Parser` is built on `Lexer`).

What every part of the parser reads the text with: whitespace and `//` comments, bare identifiers,
keywords, integers, strings (with MLIR's escapes) and `@symbol` names, matched by regexes at a
position; the error helpers that report at an offset as `file:line:col` (`Source` maps an offset to
MLIR's line:col on demand), including where MLIR's emitWrongTokenError points; and the nesting
counter that refuses text nested too deep for the recursion.

The hot methods (`ws`, `peek`, `try_literal`, `parse_literal`, ...) inline the whitespace skip and
alias `self.text`/`self.pos` to locals: they run once per token.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable
from typing import NoReturn

from stablehlo_py.errors import ParseError

_WS = re.compile(r"(?:[ \t\r\n]+|//[^\n]*)*")
_WS_START = frozenset(" \t\r\n/")
_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_SUFFIX_ID = re.compile(r"(?:[0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)")
_INT = re.compile(r"-?(?:0x[0-9a-fA-F]+|[0-9]+)")
_FLOAT_LIKE = re.compile(r"[.eE]")
_STRING_BODY = re.compile(r'"((?:[^"\\\n]|\\.)*)"', re.DOTALL)
_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{2})|(.))", re.DOTALL)
_SYMBOL = re.compile(r'@(?:([A-Za-z_][A-Za-z0-9_$.\-]*)|"((?:[^"\\]|\\.)*)")')

_ESC = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}


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


class Lexer:
    """The scanning, position and error methods of `Parser`.  It reads the state `Parser.__init__`
    sets: `text`, `pos` (the offset the next token is looked for at), `source` (its `Source`),
    `custom_ops` (the pretty-form ops being parsed, for `op_error`'s prefix) and `nesting`."""

    text: str
    pos: int
    source: Source
    custom_ops: list[str]
    nesting: dict[str, int]

    # ------------------------------------------------------------------ positions and errors
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

    def parse_token(self, pattern: re.Pattern[str], what: str) -> str:
        """The next token (after white space), which must match ``pattern``; else the error
        `expected <what>, found ...` there."""
        self.ws()
        m = pattern.match(self.text, self.pos)
        if not m:
            self.error(f"expected {what}, found {self._found()}")
        self.pos = m.end()
        return m.group(0)

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

    # ------------------------------------------------------------------ skipping
    def _skip_balanced(self) -> None:
        """Skip a `<...>` group (also `[...]`, `{...}`: nested brackets and strings respected)."""
        end = self._bracket_end(self.pos + 1, "<([{", ">)]}", True, "unterminated string")
        if end == len(self.text):
            self.error("unbalanced '<' in dialect attribute or type", self.pos)
        self.pos = end + 1

    def _bracket_end(self, i: int, opens: str, closes: str, arrows: bool, in_string: str) -> int:
        """The index of the first closing bracket (of ``closes``) at or after ``i`` that closes no
        bracket opened (of ``opens``) since ``i``; ``len(text)`` when there is none.  Strings are
        skipped whole (``in_string``: the error for an unterminated one); with ``arrows`` the `>`
        of an arrow closes nothing (`(d0) -> (d0)` inside e.g. #sparse_tensor.encoding<{...}>)."""
        depth = 0
        text = self.text
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                m = _STRING_BODY.match(text, i)
                if not m:
                    self.error(in_string, i)
                i = m.end()
                continue
            if c in opens:
                depth += 1
            elif c in closes:
                if arrows and c == ">" and i > 0 and text[i - 1] == "-":
                    i += 1
                    continue
                if depth == 0:
                    return i
                depth -= 1
            i += 1
        return n
