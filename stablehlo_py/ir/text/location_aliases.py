"""Location aliases, as MLIR's printer writes them with `--mlir-print-debuginfo` (and without
`--mlir-print-local-scope`): every location becomes `#loc`, `#loc1`, ... (the builtin dialect's
alias for any LocationAttr), an op's trailing location is `loc(#locN)`, and the definitions
`#locN = loc(...)` follow the module -- or precede it for a location a block argument uses, which
MLIR's alias collection cannot defer; the argument itself prints its location inline (MLIR:
"TODO: We should allow location aliases on block arguments"), the locations nested in it as
aliases (`loc("name"(#loc61))`).

Numbering follows MLIR's AliasInitializer: locations are collected as the printer goes (an op's
location when it starts printing the op, so before its regions; each block argument it prints; a
location before the locations nested in it; nothing the printer leaves out, e.g. the body of a
compact `reduce`), then stably sorted by nesting depth (a location without nested ones first), and
numbered in that order.  The printer writes a slot for each op location and fills it with the
alias name once every location is known (``finish``).  A nested location prints as its alias inside its parent's definition
(`#loc7 = loc("name"(#loc1))`, `loc(callsite(#loc7 at #loc8))`, `loc(fused[#loc1, #loc2])`).

Locations are kept as their text (stablehlo_py.ir.text.location.TextLoc); this module reads that
text back into its nesting to find the nested locations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stablehlo_py.ir.text.location_print import printed_location

__all__ = ["LocationAliases"]

_FILE_TAIL = re.compile(r":\d+(?::\d+)?(?: to (?:\d+)?:\d+)?")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass
class _Loc:
    """A location: its full text, its alias-form template (``{0}``... for nested locations;
    braces of the text doubled) and the nested locations."""

    text: str
    template: str
    children: list[_Loc] = field(default_factory=list)


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self) -> ValueError:
        return ValueError(f"unreadable location {self.text!r} at {self.pos}")

    def lit(self, s: str) -> bool:
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def balanced(self, open_: str, close: str) -> str:
        """Text from an opening bracket to its match (strings skipped)."""
        start, depth = self.pos, 0
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == '"':
                m = _STRING.match(self.text, self.pos)
                if m is None:
                    raise self.error()
                self.pos = m.end()
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.pos += 1
                    return self.text[start : self.pos]
            self.pos += 1
        raise self.error()

    def loc(self) -> _Loc:
        start = self.pos
        if self.lit("callsite("):
            callee = self.loc()
            self.ws()
            if not self.lit("at"):
                raise self.error()
            self.ws()
            caller = self.loc()
            if not self.lit(")"):
                raise self.error()
            return _Loc(self.text[start : self.pos], "callsite({0} at {1})", [callee, caller])
        if self.lit("fused"):
            meta = self.balanced("<", ">") if self.text.startswith("<", self.pos) else ""
            if not self.lit("["):
                raise self.error()
            parts: list[_Loc] = []
            self.ws()
            while not self.lit("]"):
                parts.append(self.loc())
                self.ws()
                self.lit(",")
                self.ws()
            holes = ", ".join(f"{{{i}}}" for i in range(len(parts)))
            return _Loc(self.text[start : self.pos], f"fused{_esc(meta)}[{holes}]", parts)
        m = _STRING.match(self.text, self.pos)
        if m is None:
            word = re.compile(r"[A-Za-z_][\w.$-]*").match(self.text, self.pos)
            if word is None:
                raise self.error()
            self.pos = word.end()
            text = self.text[start : self.pos]
            return _Loc(text, _esc(text))
        self.pos = m.end()
        tail = _FILE_TAIL.match(self.text, self.pos)
        if tail is not None:
            self.pos = tail.end()
            text = self.text[start : self.pos]
            return _Loc(text, _esc(printed_location(text)))
        if self.lit("("):
            child = self.loc()
            if not self.lit(")"):
                raise self.error()
            return _Loc(
                self.text[start : self.pos], _esc(printed_location(m.group(0))) + "({0})", [child]
            )
        text = self.text[start : self.pos]
        return _Loc(text, _esc(printed_location(text)))


def _esc(s: str) -> str:
    return s.replace("{", "{{").replace("}", "}}")


def _parse(text: str) -> _Loc:
    r = _Reader(text)
    try:
        got = r.loc()
        if r.pos != len(text):
            raise r.error()
        return got
    except ValueError:
        return _Loc(text, _esc(text))  # an unmodelled form: one opaque location, no nesting


@dataclass
class _Alias:
    loc: _Loc
    index: int
    depth: int = 0
    deferrable: bool = True
    children: list[str] = field(default_factory=list)
    name: str = ""


class LocationAliases:
    """The aliases of the locations a printer visits (see the module docstring)."""

    def __init__(self) -> None:
        self._aliases: dict[str, _Alias] = {}
        self._parsed: dict[str, _Loc] = {}
        self._ordered: list[_Alias] = []

    def visit(self, text: str, deferrable: bool) -> None:
        """A location the printer prints: an op's (deferrable) or a block argument's (not)."""
        self._visit(text, deferrable)

    def _visit(self, text: str, deferrable: bool) -> _Alias:
        got = self._aliases.get(text)
        if got is not None:
            if not deferrable:
                self._mark_non_deferrable(got)
            return got
        loc = self._parsed.pop(text, None) or _parse(text)
        alias = _Alias(loc, len(self._aliases), deferrable=deferrable)
        self._aliases[text] = alias
        depth = 0
        for child in loc.children:
            self._parsed.setdefault(child.text, child)
            c = self._visit(child.text, deferrable)
            alias.children.append(child.text)
            depth = max(depth, c.depth + 1)
        alias.depth = depth
        return alias

    def _mark_non_deferrable(self, alias: _Alias) -> None:
        if not alias.deferrable:
            return
        alias.deferrable = False
        for c in alias.children:
            self._mark_non_deferrable(self._aliases[c])

    def finish(self) -> None:
        """Number the aliases (after the last visit)."""
        ordered = sorted(self._aliases.values(), key=lambda a: (a.depth, a.index))
        for i, a in enumerate(ordered):
            a.name = "#loc" if i == 0 else f"#loc{i}"
        self._ordered = ordered

    def name(self, text: str) -> str:
        """`#locN` of a visited location's text (after ``finish``)."""
        return self._aliases[text].name

    def inline(self, text: str) -> str:
        """A block argument's location as MLIR prints it: inline, its nested locations as aliases
        (after ``finish``)."""
        a = self._aliases[text]
        if not a.children:
            return printed_location(text)
        return a.loc.template.format(*(self._aliases[c].name for c in a.children))

    def _definition(self, a: _Alias) -> str:
        return f"{a.name} = loc({self.inline(a.loc.text)})\n"

    def head(self) -> str:
        """The definitions printed before the module (block-argument locations)."""
        return "".join(self._definition(a) for a in self._ordered if not a.deferrable)

    def tail(self) -> str:
        """The definitions printed after the module."""
        return "".join(self._definition(a) for a in self._ordered if a.deferrable)
