"""Types and attributes in MLIR text: the part of `parser.Parser` that reads them.

Builtin types (`tensor<4x?xf32>`, `complex<f32>`, `tuple<...>`, `memref<...>`, function types) and
dialect types (`!stablehlo.token`, a registered dialect's own parser, or kept as opaque text);
attributes (strings, arrays, dictionaries, symbol references, numbers, `dense<...>` and `array<...>`
literals, `#dialect.attr<...>` through the registry's parsers, affine maps kept as text); and the
`#name = ...` / `!name = ...` aliases, resolved on first use (also when defined further down).

Types are interned by their text (`_TYPE_CACHE`), function types by their parts' identities
(`_FUNCTION_TYPES`), short dense and array literals by their text (`_DENSE_BY_TEXT`): equal types
and dimension lists are then one object.  The tables are the context's (`stablehlo_py.ir.context`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Self

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
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import ParseError
from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType, TypedStringAttr
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text import dense as dense_text
from stablehlo_py.ir.text.floats import parse_number_token
from stablehlo_py.ir.text.lexer import (
    _BARE_ID,
    _WS,
    _WS_START,
    MAX_ATTRIBUTE_NESTING,
    MAX_TYPE_NESTING,
    Lexer,
)
from stablehlo_py.ir.text.spelling import type_to_str
from stablehlo_py.ir.types import (
    FLOAT_NAME,
    TOKEN,
    simple_type,
    tensor_type,
)

_DIMS = re.compile(r"(?:(?:[0-9]+|\?)x)*")
_KEYWORD_TYPE = re.compile(r"[a-z][A-Za-z0-9]*")
_SIMPLE_TENSOR = re.compile(r"tensor<((?:(?:[0-9]+|\?)x)*)([a-z][A-Za-z0-9]*)>")
_ALIAS_DEF = re.compile(r"^([#!])([A-Za-z_][A-Za-z0-9_$.\-]*)[ \t]*=[ \t]*", re.MULTILINE)
# a short dense literal with a plain tensor type, as one token sequence (`Parser._parse_dense`)
_SHORT_DENSE = re.compile(
    r"dense<[^<>\"\n]{0,48}>[ \t]*:[ \t]*tensor<(?:(?:[0-9]+|\?)x)*[a-z][A-Za-z0-9]*>"
)
_DENSE_BY_TEXT = CONTEXT.table("text.dense_by_text", 10_000)
# a short `array<i64: 1, 2>` (dimension lists of generic-form ops), interned as short dense literals
_SHORT_ARRAY = re.compile(r"array<[a-z0-9]+(?::[ \t0-9,\-]{0,64})?>")
_TYPE_CACHE = CONTEXT.table("text.type_by_text", 1 << 16)
# an alias reference inside a type's text: `!name` / `#name` without a dialect prefix (a dialect's
# types and attributes are `!dialect.name`, `#dialect.name`; alias names have no dot)
_ALIAS_USE = re.compile(r"[!#][A-Za-z_][\w$]*(?![\w$.])")
# function types interned by their inputs and outputs (types are immutable; hashing a type hashes
# all its parameters, so by identity: the map keeps the types alive)
_FUNCTION_TYPES = CONTEXT.identity_map("text.function_types", 1 << 14)
_SYMBOL_REFS = CONTEXT.table("text.symbol_refs", 1 << 14)  # `@name` -> its SymbolRefAttr


def simple_tensor_type(key: str, dims: str, elem_name: str) -> Attribute | None:
    """The type of a `_SIMPLE_TENSOR` match `key` (`tensor<4x?xf32>`, its groups `dims` and
    `elem_name`), interned by its text; None when the element type is unknown."""
    t = _TYPE_CACHE.get(key)
    if t is None:
        elem = simple_type(elem_name)
        if elem is None:
            return None
        shape = tuple(-1 if d == "?" else int(d) for d in dims[:-1].split("x")) if dims else ()
        t = _TYPE_CACHE.put(key, tensor_type(elem, shape))
    return t


_WS_RUN = re.compile(r'("(?:[^"\\]|\\.)*")|\s+')


def normalize_opaque(text: str) -> str:
    """Unmodelled dialect attributes keep their text with whitespace runs (outside strings) collapsed,
    which is how MLIR reprints e.g. a multi-line `#sparse_tensor.encoding<{ map = ... }>`."""
    return _WS_RUN.sub(lambda m: m.group(1) or " ", text)


MAX_INT_WIDTH = 16777215  # MLIR's IntegerType::kMaxWidth


class TypeParser(Lexer):
    """Types, attributes and their aliases (`Parser` mixes it in).  A `#name` alias may stand for a
    location: `_resolve_alias` then reads it with `LocationParser.parse_location_body`."""

    # ------------------------------------------------------------------ for parse_pretty and co.
    @staticmethod
    def type_text(t: Attribute) -> str:
        """A type's text, for messages of the parse functions below the text layer (types, dense)."""
        return type_to_str(t)

    normalize_opaque = staticmethod(normalize_opaque)  # for the parse functions below this module

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
    def parse_written_type(self, what: str | None = None) -> tuple[Attribute, int]:
        """`: T` after an op's operands and attributes: T, and where it is written (for an error
        about it); `what` completes the error when the ':' is missing."""
        self.parse_literal(":", what)
        self.ws()
        pos = self.pos
        return self.parse_type(), pos

    def parse_type(self) -> Attribute:
        self._nested("types", MAX_TYPE_NESTING)
        try:
            return self._parse_type_impl()
        finally:
            self._unnest("types")

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
            return self._dialect_parser(self._parse_dialect_type_body)
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
        # a text naming an alias (`tensor<4x!t>`, `tensor<?xf32, #enc>`) means what this file's
        # alias means: it is not interned by its text (another file may define `!t` otherwise)
        interned = not ("!" in key or "#" in key) or _ALIAS_USE.search(key) is None
        t = _TYPE_CACHE.get(key) if interned else None
        if t is None:
            try:
                t = tensor_type(elem, shape, encoding)
            except VerifyException as e:  # what xDSL's TensorType refuses (e.g. a tuple element)
                self.error(f"invalid tensor type: {str(e).splitlines()[-1]}", start)
            if interned:
                _TYPE_CACHE.put(key, t)
        return t

    def parse_function_type(self) -> FunctionType:
        inputs = self.parse_delimited("(", self.parse_type, ")")
        self.parse_literal("->", "in function type")
        outputs = self.parse_result_types()
        key = (*inputs, None, *outputs)  # None: where the inputs end
        t = _FUNCTION_TYPES.get_seq(key)
        if t is None:
            t = _FUNCTION_TYPES.put_seq(key, FunctionType.from_lists(inputs, outputs))
        return t

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

    def _sigil_name(self, what: str) -> tuple[int, str]:
        """At `!` or `#`: where the sigil stands and the name after it (`expected <what>` if none)."""
        start = self.pos
        self.pos += 1
        m = _BARE_ID.match(self.text, self.pos)
        if not m:
            self.error(f"expected {what}")
        self.pos = m.end()
        return start, m.group(0)

    def _dialect_parser(self, body: Callable[[], Attribute]) -> Attribute:
        """`body()` as a dialect's own type or attribute parser: its errors read without the
        `custom op` prefix (MLIR's DialectAsmParser)."""
        self.custom_ops.append("")
        try:
            return body()
        finally:
            self.custom_ops.pop()

    def _parse_dialect_type_body(self) -> Attribute:
        start, name = self._sigil_name("a dialect type name after '!'")
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

    # ------------------------------------------------------------------ attributes
    def parse_attribute(self, type_hint: Attribute | None = None) -> Attribute:
        self._nested("attributes", MAX_ATTRIBUTE_NESTING)
        try:
            return self._parse_attribute_impl(type_hint)
        finally:
            self._unnest("attributes")

    def parse_attribute_of(
        self, kind: type[Attribute] | tuple[type[Attribute], ...], expected: str
    ) -> Attribute:
        """An attribute that must be a ``kind`` (a struct field's verifier); else the error
        ``expected`` at the attribute's start."""
        self.ws()
        pos = self.pos
        a = self.parse_attribute()
        if not isinstance(a, kind):
            self.error(expected, pos)
        return a

    def _parse_attribute_impl(self, type_hint: Attribute | None = None) -> Attribute:
        self.ws()
        text, pos = self.text, self.pos
        c = text[pos : pos + 1]
        if c == "#":
            return self._dialect_parser(self._parse_hash_attribute_body)
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

    def try_interned_dense(self) -> Attribute | None:
        """The short `dense<...> : tensor<...>` literal here (after white space) when it was
        interned already (`_interned`): what `parse_attribute` returns for it, the parser moved
        past it; else None, the parser unmoved (a fast path of constant ops)."""
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if not text.startswith("dense<", pos):
            return None
        short = _SHORT_DENSE.match(text, pos)
        if short is None:
            return None
        a = _DENSE_BY_TEXT.get(short.group(0))
        if a is not None:
            self.pos = short.end()
        return a

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
        parse: Callable[[Self], Attribute],
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
            _DENSE_BY_TEXT.put(short.group(0), a)
        return a

    def _parse_number_attr(self, type_hint: Attribute | None) -> Attribute:
        m = parse_number_token(self, "a number")
        tok = m.group(0)
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
        if nested:
            return SymbolRefAttr(root, nested)
        ref = _SYMBOL_REFS.get(root)  # `@f`, one object per name (a call's callee, ...)
        if ref is None:
            ref = _SYMBOL_REFS.put(root, SymbolRefAttr(root))
        return ref

    def _parse_hash_attribute_body(self) -> Attribute:
        start, name = self._sigil_name("an attribute name after '#'")
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
