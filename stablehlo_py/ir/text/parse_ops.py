"""Operations, regions, blocks and SSA values in MLIR text: the part of `parser.Parser` that reads
them.

An op is read in its generic form (`"stablehlo.add"(%0, %1) : (...) -> ...`) or its pretty form
(delegated to the op class's `parse_pretty`, or to `FOREIGN_SYNTAX`).  SSA names are scoped per
region (`scopes`; an isolated region starts afresh); block labels per region (`block_scopes`), a
successor may name a block labelled later in its region.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import NoReturn

from xdsl.dialects.builtin import NoneType
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue

from stablehlo_py.errors import ParseError
from stablehlo_py.ir.registry import FOREIGN_SYNTAX
from stablehlo_py.ir.text.lexer import _SUFFIX_ID, _WS, _WS_START, MAX_REGION_NESTING, Lexer
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.text.spelling import type_to_str
from stablehlo_py.ir.xdsl_compat.construct import append_ops
from stablehlo_py.ir.xdsl_compat.side_data import LOC_POS, SRC, attach, data_of

_EntryArg = tuple[str, Attribute, TextLoc | None]
"""A region argument the op's pretty syntax names: (name, type, location)."""
_VALUE_USE = re.compile(r"%([0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)(?:#([0-9]+))?")
# `%name = op.name` (one result) or `op.name`: the head of most ops (`Parser.parse_operation`)
_OP_HEAD = re.compile(
    r"(?:%([0-9]+|[A-Za-z_$.\-][A-Za-z0-9_$.\-]*)[ \t\r\n]*=[ \t\r\n]*)?([A-Za-z_][A-Za-z0-9_$.]*)"
)


_UNKNOWN: object = object()  # `direct_ops` has no entry for the name yet


class OpParser(Lexer):
    """Operations, regions, blocks and SSA values (`Parser` mixes it in).  It reads the state
    `Parser.__init__` sets: `registry`, `allow_unregistered`, `scopes`, `name_pos`,
    `default_dialects`, `block_scopes`, `direct_ops`; types, attributes and locations are read with
    `TypeParser`'s and `LocationParser`'s methods."""

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
        src = data_of(owner).get(SRC)
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
    def parse_region(
        self,
        entry_args: Sequence[_EntryArg] | None = None,
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

    def _parse_region_impl(
        self, entry_args: Sequence[_EntryArg] | None, default_dialect: str | None, isolated: bool
    ) -> Region:
        """parse_region's work, inside its nesting count."""
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
            attach(arg, SRC, (self.source, pos))

    def _parse_block_ops(self, block: Block) -> None:
        ops: list[Operation] = []
        text = self.text
        parse_operation = self.parse_operation
        while True:
            pos = self.pos
            if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
                pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            c = text[pos : pos + 1]
            if c == "}" or c == "^" or c == "":
                break
            ops.append(parse_operation())
        append_ops(block, ops)

    # ------------------------------------------------------------------ operations
    def parse_operation(self) -> Operation:
        text, start = self.text, self.pos
        if start < len(text) and text[start] in _WS_START:  # self.ws(), inline (hot path)
            start = self.pos = _WS.match(text, start).end()  # type: ignore[union-attr]
        result_defs: list[tuple[str, int, int]] = []
        head = _OP_HEAD.match(text, start)
        if head is not None:
            # the common head in one match: `%name = op.name` or `op.name`
            name, word = head.groups()
            name_pos, self.pos = head.span(2)
            direct = self.direct_ops.get(word, _UNKNOWN)
            if direct is _UNKNOWN:
                direct = self._direct_parse(word)
            if direct is not None:
                op = direct(self)
                if op is not None:
                    return self._finish_direct(op, name, name_pos, start)
            if name is not None:
                result_defs.append((name, 1, start))
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

    def _direct_parse(self, word: str) -> Callable[[OpParser], Operation | None] | None:
        """The one-regex fast path of the op named `word` (`StableHLOOp.direct_parse`), tried
        before the usual dispatch, memoized in `direct_ops`; None when it has none (or `word`
        names no op directly: the usual dispatch resolves and reports it)."""
        cls = self.registry.ops.get(word)
        direct = None
        if cls is not None and FOREIGN_SYNTAX.get(cls) is None:
            get = getattr(cls, "direct_parse", None)
            direct = get() if get is not None else None
        self.direct_ops[word] = direct
        return direct

    def _finish_direct(
        self, op: Operation, name: str | None, name_pos: int, start: int
    ) -> Operation:
        """`_finish_operation` for an op its direct fast path built (no custom location position),
        with the common cases inline: one name for its one result, or no name and no result."""
        setattr(op, SRC, (self.source, name_pos))
        text, pos = self.text, self.pos
        if pos < len(text) and text[pos] in _WS_START:  # self.ws(), inline (hot path)
            pos = self.pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
        if text.startswith("loc(", pos):
            op.location = self.parse_location_body()  # type: ignore[assignment]
        results = tuple(op.results)
        if name is not None and len(results) == 1:
            scope = self.scopes[-1]  # self.define, inline
            if name in scope:
                self.error(f"redefinition of SSA value '%{name}'", start)
            scope[name] = results
        elif name is not None or results:
            self._define_results(op, start, [(name, 1, start)] if name is not None else [])
        return op

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
        d = data_of(op)
        d[SRC] = (self.source, d.pop(LOC_POS, name_pos))
        loc = self.try_location()
        if loc is not None:
            op.location = loc  # type: ignore[assignment]
        results = op.results
        if len(result_defs) == 1 and result_defs[0][1] == len(results):
            name, _, p = result_defs[0]  # the common case: one name for all results
            self.define(name, tuple(results), p)
            return op
        self._define_results(op, start, result_defs)
        return op

    def _define_results(
        self, op: Operation, start: int, result_defs: list[tuple[str, int, int]]
    ) -> None:
        """Define the result names `result_defs` ((name, count, position)) of `op`, after checking
        that they name all its results."""
        results = op.results
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
        # successors only when there are some: build_generic overrides take no `successors`
        more = {"successors": successors} if successors else {}
        return build(
            operands=operands,
            result_types=list(ftype.outputs.data),
            properties=properties,
            attributes=attributes,
            regions=regions,
            **more,
        )


class UnresolvedValue(SSAValue):
    """An operand name a custom op parser read that is not defined (MLIR's UnresolvedOperand): its
    error is raised when the op's operands are resolved against their types."""

    def __init__(self, error: ParseError):
        super().__init__(NoneType())
        self.error = error

    @property
    def owner(self) -> Operation:  # type: ignore[override]
        raise self.error


class _BlockName:
    """A block label of the region being parsed: the block, where its label is (None while it is
    only referenced by successors) and where it was first named."""

    __slots__ = ("block", "defined_at", "first_use")

    def __init__(self, block: Block, defined_at: int | None, first_use: int):
        self.block = block
        self.defined_at = defined_at
        self.first_use = first_use

