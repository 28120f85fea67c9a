"""Locations in MLIR text: the part of `parser.Parser` that reads `loc(...)`.

A location is kept as its canonical text (`TextLoc`, location aliases inlined; `loc(unknown)` is
`UNKNOWN`), not modelled attribute by attribute.  `op_source_location` is the other kind of place:
where in the parsed text an op was written (`file:line:col`).
"""

from __future__ import annotations

import re

from xdsl.ir import Operation

from stablehlo_py.ir.text.lexer import _SUFFIX_ID, MAX_ATTRIBUTE_NESTING, Lexer
from stablehlo_py.ir.text.location import UNKNOWN, TextLoc
from stablehlo_py.ir.xdsl_compat.side_data import SRC, attached


def op_source_location(op: Operation) -> str | None:
    """`file:line:col` where the op was parsed, if it came from text."""
    src = attached(op, SRC)
    if src is None:
        return None
    return src[0].location(src[1])


class LocationParser(Lexer):
    """`loc(...)` (`Parser` mixes it in); a `#name` in a location is resolved with
    `TypeParser._resolve_alias`."""

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

    def _location_inner(self) -> TextLoc:
        """The inside of `loc(...)`: an alias, or the location's text with the aliases in it
        inlined; read one level deeper in "locations" nesting (an alias may name others)."""
        self._nested("locations", MAX_ATTRIBUTE_NESTING)
        try:
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
            # up to the `)` that closes `loc(` (strings skipped whole)
            end = self._bracket_end(start, "([<", ")]>", False, "unterminated string in location")
            if end == len(text):
                self.error("unterminated location", start)
            self.pos = end
            body = text[start:end]
            if "#" in body:
                body = self._inline_loc_aliases(body, start)
            return TextLoc(body) if body != "unknown" else UNKNOWN
        finally:
            self._unnest("locations")

    def _inline_loc_aliases(self, body: str, base: int) -> str:
        def repl(m: re.Match[str]) -> str:
            alias = self._resolve_alias("#", m.group(1), base + m.start())
            return alias.data if isinstance(alias, TextLoc) else m.group(0)

        return re.sub(r'(?<![A-Za-z0-9"])#([A-Za-z_][A-Za-z0-9_$.\-]*)', repl, body)
