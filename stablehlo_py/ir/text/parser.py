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

The parser is one class, `Parser`, composed of one part per concern, each in its own file:
`lexer.Lexer` (whitespace, tokens, positions and errors), `parse_types.TypeParser` (types,
attributes, aliases), `parse_locations.LocationParser` (`loc(...)`) and `parse_ops.OpParser`
(operations, regions, blocks, values).  This module holds `Parser`'s state and the top level, and
keeps the names other modules import from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue

from stablehlo_py.ir.text.lexer import (
    _RELEASE_TEXT_ABOVE,
    MAX_ATTRIBUTE_NESTING,
    MAX_REGION_NESTING,
    MAX_TYPE_NESTING,
    Source,
    unescape,
)
from stablehlo_py.ir.text.parse_locations import LocationParser, op_source_location
from stablehlo_py.ir.text.parse_ops import OpParser, UnresolvedValue, _BlockName
from stablehlo_py.ir.text.parse_types import (
    _SIMPLE_TENSOR as _SIMPLE_TENSOR,  # format_parse's fast path matches it
)
from stablehlo_py.ir.text.parse_types import (
    MAX_INT_WIDTH,
    TypeParser,
    normalize_opaque,
    simple_tensor_type,
)
from stablehlo_py.ir.types import INDEX
from stablehlo_py.ir.xdsl_compat.side_data import IMPLICIT_SRC, attach

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry


class Parser(OpParser, LocationParser, TypeParser):
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
        # op name -> its direct fast path or None (OpParser._direct_parse)
        self.direct_ops: dict[str, object] = {}
        self._scan_aliases()

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
        attach(module, IMPLICIT_SRC, self.source)  # MLIR: loc("file":0:0)
        self._release_text()
        return module

    def _release_text(self) -> None:
        if len(self.text) > _RELEASE_TEXT_ABOVE:
            self.source.release_text()


# what other modules import from here (the names moved to the files above with their code)
__all__ = [
    "INDEX",
    "MAX_ATTRIBUTE_NESTING",
    "MAX_INT_WIDTH",
    "MAX_REGION_NESTING",
    "MAX_TYPE_NESTING",
    "Parser",
    "Source",
    "UnresolvedValue",
    "normalize_opaque",
    "op_source_location",
    "simple_tensor_type",
    "unescape",
]
