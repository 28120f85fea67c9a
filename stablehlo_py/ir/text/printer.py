"""xDSL IR -> MLIR text, byte-identical to upstream's printer.

Value names follow MLIR's `SSANameState`: a region is numbered whole (block arguments, then results),
then its nested regions, each starting from where the parent region stopped (so sibling regions reuse
numbers); op-suggested names (`%cst`, `%c`, `%iterArg`) are uniqued with one shared `_N` counter per
naming context.  Ops print themselves through `print_pretty(printer)`; `generic=True` prints every op in
generic form (as `--mlir-print-op-generic`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TextIO

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.registry import FOREIGN_SYNTAX
from stablehlo_py.ir.text import dense as dense_text
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.text.location_print import printed_location
from stablehlo_py.ir.text.spelling import (  # noqa: F401  (re-exported: the printer's public names)
    _SEEN_ALIASED,
    _TEXT_MEMO,
    ALIASED_ATTRIBUTES,
    attr_to_str,
    dict_to_str,
    escape_string,
    function_type_to_str,
    memo_text,
    result_types_to_str,
    string_literal,
    symbol_text,
    type_to_str,
)
from stablehlo_py.ir.xdsl_compat.fields import block_ops

if TYPE_CHECKING:
    from stablehlo_py.ir.text.location_aliases import LocationAliases

_LARGE_DENSE_BYTES = 1 << 20
_ARG_SLOT = re.compile("\x00(\\d+)\x00")
_SANITIZE = re.compile(r"[^A-Za-z0-9_$.]")
_OP_NAMES = CONTEXT.table("text.op_names", 4096)  # (default dialect, op name) -> the name printed
# The tables' `get` bound once (they are emptied in place, so it stays the context's): looking a
# method up on a dict subclass at each call costs about as much as the lookup itself.
_op_name_get = _OP_NAMES.get
_NEWLINES = ["\n" + "  " * i for i in range(32)]

# ------------------------------------------------------------------------------------ SSA names
_SANITIZED = CONTEXT.table("text.sanitized_names", 1 << 14)  # suggested name -> a valid SSA name
_sanitized_get = _SANITIZED.get


def ops_of(block: Block) -> list[Operation]:
    """A block's ops as a list (xdsl_compat's walk of xDSL's linked list: its iterator is slow)."""
    if not isinstance(block, Block):
        return list(block.ops)  # the printer's wrapper around the top-level op
    return block_ops(block)


class _Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: _Scope | None):
        self.names: set[str] = set()
        self.parent = parent

    def __contains__(self, name: str) -> bool:
        s: _Scope | None = self
        while s is not None:
            if name in s.names:
                return True
            s = s.parent
        return False


class Namer:
    """MLIR's SSANameState."""

    def __init__(self, top: Operation, generic: bool):
        self.generic = generic
        self.names: dict[int, str] = {}
        """`id(value)` -> `%name` (the values live as long as the printed op, so ids are stable)."""
        self.groups: dict[Operation, str] = {}
        self.result_groups: dict[Operation, list[tuple[str, int]]] = {}
        self.block_ids: dict[Block, int] = {}
        self.next_value = 0
        self.next_arg = 0
        self.next_conflict = 0
        self.suggests: dict[type, bool] = {}  # op class -> has `asm_result_names`
        self.block_ops: dict[int, list[Operation]] = {}
        """`id(block)` -> its ops, listed once while numbering (the printer walks the same lists)."""
        self.scope: _Scope = _Scope(None)
        stack: list[tuple[Region, int, int, int, _Scope]] = [
            (r, 0, 0, 0, self.scope) for r in top.regions
        ]
        while stack:
            region, nv, na, nc, parent = stack.pop()
            if not generic:
                # Each region restarts from the counters its parent region ended with (sibling regions
                # reuse numbers); generic form prints unique SSA ids (MLIR's printUniqueSSAIDs), so the
                # counters just run on, in stack (last-in-first-out) order.
                self.next_value, self.next_arg, self.next_conflict = nv, na, nc
            self.scope = _Scope(parent)
            nested = self._number_region(region)
            counters = (self.next_value, self.next_arg, self.next_conflict, self.scope)
            for op in nested:
                for r in op.regions:
                    stack.append((r, *counters))

    def _unique(self, name: str) -> str:
        clean = _sanitized_get(name)
        if clean is None:
            clean = _SANITIZE.sub("_", name)
            if clean[:1].isdigit():
                clean = "_" + clean
            _SANITIZED.put(name, clean)
        name = clean
        if name not in self.scope:
            self.scope.names.add(name)
            return name
        while True:
            probe = f"{name}_{self.next_conflict}"
            self.next_conflict += 1
            if probe not in self.scope:
                self.scope.names.add(probe)
                return probe

    def _set(self, value: SSAValue, name: str | None) -> None:
        if not name:
            self.names[id(value)] = f"%{self.next_value}"
            self.next_value += 1
        else:
            self.names[id(value)] = "%" + self._unique(name)

    def _number_region(self, region: Region) -> list[Operation]:
        """Number a region's values; returns its ops that have regions, in order."""
        nested: list[Operation] = []
        parent = region.parent
        arg_name = None
        if parent is not None and not self.generic:
            fn = getattr(parent, "asm_block_arg_name", None)
            if fn is not None:
                arg_name = fn(region)
        for i, block in enumerate(region.blocks):
            self.block_ids[block] = i
            entry = i == 0
            # `asm_block_arg_name` gives one name for every argument, or one name per entry-block
            # argument (a list, as getAsmBlockArgumentNames names each: scan's %input/%carry).
            per_arg = arg_name if isinstance(arg_name, (list, tuple)) and entry else None
            for j, arg in enumerate(block.args):
                if per_arg is not None and j < len(per_arg):
                    self._set(arg, per_arg[j])
                elif arg_name is not None and not isinstance(arg_name, (list, tuple)):
                    self._set(arg, arg_name)
                elif entry:
                    self._set(arg, f"arg{self.next_arg}")
                    self.next_arg += 1
                else:
                    self._set(arg, None)
            ops = ops_of(block)
            self.block_ops[id(block)] = ops
            number_op = self._number_op
            names = self.names
            suggests = self.suggests
            generic = self.generic
            for op in ops:
                results = op.results
                if len(results) == 1:
                    cls = type(op)
                    named = suggests.get(cls)
                    if named is None:
                        named = suggests[cls] = hasattr(cls, "asm_result_names")
                    if generic or not named:
                        # the common case of `_number_op`: one unnamed result, `%N`
                        for r in results:
                            names[id(r)] = f"%{self.next_value}"
                        self.next_value += 1
                    else:
                        number_op(op)
                elif results:
                    number_op(op)
                if op.regions:
                    nested.append(op)
        return nested

    def _number_op(self, op: Operation) -> None:
        results = op.results
        if not results:
            return
        suggested = None
        if not self.generic:
            cls = type(op)
            named = self.suggests.get(cls)
            if named is None:
                named = self.suggests[cls] = hasattr(cls, "asm_result_names")
            if named:
                suggested = op.asm_result_names()  # type: ignore[attr-defined]
        if suggested:
            if isinstance(suggested, (list, tuple)):
                self._number_named_results(op, suggested)
                return
            # A str names the whole op (result 0); a list names results one by one.
            base = self._unique(suggested)
        else:
            if isinstance(suggested, (list, tuple)):
                self._number_named_results(op, suggested)
                return
            base = str(self.next_value)
            self.next_value += 1
        if len(results) == 1:
            for r in results:
                self.names[id(r)] = "%" + base
        else:
            self.groups[op] = base
            for i, r in enumerate(results):
                self.names[id(r)] = f"%{base}#{i}"

    def _number_named_results(self, op: Operation, names: Sequence[str | None]) -> None:
        """getAsmResultNames naming some results: each named result starts a result group
        (`%values, %indices = ...`); the others join the group before them (`%name#k`)."""
        results = op.results
        starts = [0] + [i for i in range(1, len(results)) if i < len(names) and names[i]]
        bases: list[str] = []
        for k, start in enumerate(starts):
            name = names[start] if start < len(names) else None
            if name:
                bases.append(self._unique(name))
            else:
                bases.append(str(self.next_value))
                self.next_value += 1
        spans = []
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(results)
            spans.append((bases[k], end - start))
            for i in range(start, end):
                self.names[id(results[i])] = (
                    "%" + bases[k] if end - start == 1 else f"%{bases[k]}#{i - start}"
                )
        if len(spans) > 1:
            self.result_groups[op] = spans
        elif spans[0][1] > 1:
            self.groups[op] = spans[0][0]


def location_text(op: Operation | object) -> str:
    """The location of an op or a block argument: its own, else where it was parsed (MLIR's
    default: an op at its name, an argument at its `%name`, the implicit module at 0:0)."""
    from stablehlo_py.ir.text.location import source_position

    loc = getattr(op, "location", None)
    if isinstance(loc, TextLoc):
        return loc.data
    pos = source_position(op)
    if pos is not None:
        return f"{string_literal(pos[0])}:{pos[1]}:{pos[2]}"
    return "unknown"


# ------------------------------------------------------------------------------------- printer
class Printer:
    """Accumulates text.  Ops call `write`, `operand`, `type`, `attr`, `region`, ..."""

    def __init__(
        self,
        top: Operation,
        generic: bool = False,
        debuginfo: bool = False,
        location_aliases: LocationAliases | None = None,
    ):
        self.generic = generic
        self.debuginfo = debuginfo
        self.location_aliases = location_aliases
        self.location_slots: list[tuple[int, str]] = []  # (index in out, location text)
        self.arg_slots: list[str] = []  # block-argument locations with nested ones, by number
        self.namer = Namer(top, generic)
        self.out: list[str] = []
        self.indent = 0
        self.default_dialects: list[str] = ["builtin"]
        self.pretty: set[type] = set()  # op classes seen to have `print_pretty`

    # -- primitives
    def write(self, s: str) -> None:
        self.out.append(s)

    def newline(self) -> None:
        self.out.append(_NEWLINES[self.indent] if self.indent < 32 else "\n" + "  " * self.indent)

    @staticmethod
    def type_text(t: Attribute) -> str:
        """A type's text (`type_to_str`, for directives that cannot import this module)."""
        return type_to_str(t)

    @staticmethod
    def memo_text(kind: str, type_text: str, data: bytes, compute: Callable[[], str]) -> str:
        """`memo_text` of this module (for directives that cannot import it)."""
        return memo_text(kind, type_text, data, compute)

    def value(self, v: SSAValue) -> str:
        return self.namer.names.get(id(v), "%<<UNKNOWN SSA VALUE>>")

    def operand(self, v: SSAValue) -> None:
        self.out.append(self.value(v))

    def operands(self, vs: Iterable[SSAValue]) -> None:
        self.out.append(", ".join(self.value(v) for v in vs))

    def type(self, t: Attribute) -> None:
        self.out.append(type_to_str(t))

    def types(self, ts: Iterable[Attribute]) -> None:
        self.out.append(", ".join(type_to_str(t) for t in ts))

    def attr(self, a: Attribute) -> None:
        if type(a) is DenseIntOrFPElementsAttr:
            # `dense<body> : type` as pieces: a large constant's body is not copied into a
            # concatenation before the module's text is joined
            type_text = type_to_str(a.type)
            self.out.append("dense<")
            if len(a.data.data) > _LARGE_DENSE_BYTES:  # in chunks: never joined before the output
                self.out.extend(dense_text.dense_body_pieces(a))
            else:
                self.out.append(
                    memo_text("dense", type_text, a.data.data, lambda: dense_text.dense_body(a))
                )
            self.out.extend(("> : ", type_text))
            return
        self.out.append(attr_to_str(a))

    def attr_dict(
        self, attrs: dict[str, Attribute], elided: Iterable[str] = (), keyword: bool = False
    ) -> None:
        """MLIR's printOptionalAttrDict(WithKeyword): ` {..}` or nothing."""
        skip = set(elided)
        items = [(k, v) for k, v in attrs.items() if k not in skip]
        if not items:
            return
        self.out.append(" attributes " if keyword else " ")
        self.out.append(dict_to_str(items))

    def location(self, op: Operation) -> None:
        """` loc(...)` with --mlir-print-debuginfo: the op's own location, else where it was parsed
        (MLIR's parser gives every op its file:line:col), else unknown."""
        if self.debuginfo:
            if self.location_aliases is not None:  # filled by fill_location_slots
                self.location_slots.append((len(self.out), location_text(op)))
                self.out.append("")
            else:
                self.out.append(f" loc({printed_location(location_text(op))})")

    def arg_location(self, arg: object) -> str:
        """The text of a block argument's location, printed inline (MLIR prints no alias for a
        block argument, but collects one)."""
        text = location_text(arg)
        if self.location_aliases is not None:
            self.location_aliases.visit(text, False)
            if "(" in text:  # nested locations print as aliases: filled in by fill_location_slots
                self.arg_slots.append(text)
                return f"\x00{len(self.arg_slots) - 1}\x00"
        return printed_location(text)

    def fill_location_slots(self) -> None:
        """Write each op's ` loc(#locN)` once every location is known."""
        locs = self.location_aliases
        if locs is None:
            return
        locs.finish()
        for i, text in self.location_slots:
            self.out[i] = f" loc({locs.name(text)})"
        if self.arg_slots:
            inline = [locs.inline(t) for t in self.arg_slots]
            out = self.out
            for i, piece in enumerate(out):
                if "\x00" in piece:
                    out[i] = _ARG_SLOT.sub(lambda m: inline[int(m[1])], piece)

    # -- ops
    def op_name(self, name: str) -> str:
        dd = self.default_dialects[-1]
        key = (dd, name)
        short = _op_name_get(key)
        if short is None:
            short = name
            if dd and name.startswith(dd + ".") and name.count(".") >= 1:
                short = name[len(dd) + 1 :]
            _OP_NAMES.put(key, short)
        return short

    def print_op(self, op: Operation) -> None:
        if self.location_aliases is not None:  # MLIR collects an op's location before its body
            self.location_aliases.visit(location_text(op), True)
        results = op.results
        if len(results) == 1:
            # one result is never a group (`%0:2`) nor named in spans
            for r in results:
                self.out.append(self.namer.names.get(id(r), "%<<UNKNOWN SSA VALUE>>") + " = ")
        elif results:
            grp = self.namer.groups.get(op)
            spans = self.namer.result_groups.get(op)
            if spans is not None:
                self.out.append(
                    ", ".join(f"%{b}" if n == 1 else f"%{b}:{n}" for b, n in spans) + " = "
                )
            elif grp is not None:
                self.out.append(f"%{grp}:{len(results)} = ")
            else:
                self.out.append(self.value(results[0]) + " = ")
        if self.generic:
            self.print_generic(op)
        elif type(op) in self.pretty:
            op.print_pretty(self)  # type: ignore[attr-defined]
        elif hasattr(op, "print_pretty"):
            self.pretty.add(type(op))
            op.print_pretty(self)  # type: ignore[attr-defined]
        else:
            foreign = FOREIGN_SYNTAX.get(type(op))
            if foreign is None:
                self.print_generic(op)
            else:
                foreign.print(op, self)
        if self.debuginfo:
            self.location(op)

    def print_generic(self, op: Operation) -> None:
        out = self.out
        out.append(string_literal(op.name))
        out.append("(" + ", ".join(self.value(v) for v in op.operands) + ")")
        if op.successors:
            out.append("[" + ", ".join(self.block_name(b) for b in op.successors) + "]")
        if op.properties:
            out.append(" <" + dict_to_str(op.properties) + ">")
        if op.regions:
            out.append(" (")
            for i, r in enumerate(op.regions):
                if i:
                    out.append(", ")
                self.region(r, print_entry_args=True, print_empty_block=True, default_dialect="")
            out.append(")")
        if op.attributes:
            out.append(" " + dict_to_str(op.attributes))
        out.append(
            " : "
            + function_type_to_str([v.type for v in op.operands], [r.type for r in op.results])
        )

    def region(
        self,
        region: Region,
        print_entry_args: bool = True,
        print_terminators: bool = True,
        print_empty_block: bool = False,
        default_dialect: str | None = None,
    ) -> None:
        out = self.out
        out.append("{")
        self.default_dialects.append(
            self.default_dialects[-1] if default_dialect is None else default_dialect
        )
        self.indent += 1
        blocks = list(region.blocks)
        for i, block in enumerate(blocks):
            show_header = (
                i > 0
                or (print_entry_args and len(block.args) > 0)
                or (print_empty_block and not block.ops and i == 0 and len(blocks) >= 1 and False)
            )
            if show_header:
                self.indent -= 1
                self.newline()
                self._block_header(block)
                self.indent += 1
            ops = self.namer.block_ops.get(id(block))
            if ops is None:
                ops = ops_of(block)
            if not print_terminators and ops and ops[-1].has_trait(IsTerminator):
                ops = ops[:-1]
            nl = "\n" + "  " * self.indent
            print_op = self.print_op
            for op in ops:
                out.append(nl)
                print_op(op)
        self.indent -= 1
        self.default_dialects.pop()
        self.newline()
        out.append("}")

    def block_name(self, block: Block) -> str:
        """`^bbN`: a block's position in its region (MLIR's SSANameState numbers blocks so)."""
        return f"^bb{self.namer.block_ids.get(block, 0)}"

    def _block_header(self, block: Block) -> None:
        out = self.out
        out.append(self.block_name(block))
        if block.args:
            parts = []
            for a in block.args:
                s = f"{self.value(a)}: {type_to_str(a.type)}"
                if self.debuginfo:
                    s += f" loc({self.arg_location(a)})"  # `loc(unknown)` too, as MLIR
                parts.append(s)
            out.append("(" + ", ".join(parts) + ")")
        out.append(":")
        out.append(self._predecessors_comment(block))

    def _predecessors_comment(self, block: Block) -> str:
        """The comment MLIR's printer puts after a block label: `  // pred: ^bb0`, `  // 2 preds:
        ^bb0, ^bb1` (one per branch, ordered by block position) or `  // no predecessors` (a block
        after the entry block that nothing branches to)."""
        preds = [use.operation.parent_block() for use in block.uses]
        if not preds:
            region = block.parent
            entry = region is None or region.blocks.first is block
            return "" if entry else "  // no predecessors"
        if len(preds) == 1:
            return "  // pred: " + self.block_name(preds[0])  # type: ignore[arg-type]
        names = sorted(self.namer.block_ids.get(b, 0) for b in preds)  # type: ignore[arg-type]
        return f"  // {len(names)} preds: " + ", ".join(f"^bb{n}" for n in names)

    def text(self) -> str:
        return "".join(self.out)


def _location_aliases(debuginfo: bool, aliases: bool) -> LocationAliases | None:
    if not (debuginfo and aliases):
        return None
    from stablehlo_py.ir.text.location_aliases import LocationAliases

    return LocationAliases()


def _print_top(
    op: Operation, generic: bool, debuginfo: bool, location_aliases: bool
) -> tuple[Printer, LocationAliases | None]:
    """A top-level op printed with a trailing newline (print_module, write_module), and its location
    aliases (None without ``location_aliases``), their slots filled."""
    locs = _location_aliases(debuginfo, location_aliases)
    p = Printer(_Wrapper(op), generic=generic, debuginfo=debuginfo, location_aliases=locs)
    p.print_op(op)
    p.write("\n")
    if locs is not None:
        p.fill_location_slots()
    return p, locs


def print_module(
    op: Operation, generic: bool = False, debuginfo: bool = False, location_aliases: bool = False
) -> str:
    """Print a top-level op (usually `builtin.module`) and a trailing newline.  With
    ``location_aliases`` (and ``debuginfo``) locations print as `#loc` aliases, as MLIR's printer
    without `--mlir-print-local-scope` (ir/text/location_aliases.py)."""
    p, locs = _print_top(op, generic, debuginfo, location_aliases)
    if locs is not None:
        return _with_aliases(op, locs.head() + p.text() + locs.tail())
    return _with_aliases(op, p.text())


def print_nested_op(op: Operation) -> str:
    """An op inside a module as MLIR's ``op->print()`` prints it (what ``str(op)`` gives in MLIR's
    Python bindings): its pretty form at indentation 0, without a trailing newline, its values named
    as the whole top-level op would name them (MLIR numbers from the top-level ancestor), its own name
    unabbreviated (no enclosing op supplies a default dialect: `func.return`)."""
    top = op
    while (parent := top.parent_op()) is not None:
        top = parent
    p = Printer(_Wrapper(top))
    p.print_op(op)
    return p.text()


def write_module(
    op: Operation,
    stream: TextIO,
    generic: bool = False,
    debuginfo: bool = False,
    location_aliases: bool = False,
) -> None:
    """`print_module`'s text written to `stream` piece by piece: the text is never held whole
    (a module with a 1 GiB constant prints through 2 GiB of pieces, not 4)."""
    p, locs = _print_top(op, generic, debuginfo, location_aliases)
    if locs is not None:
        p.out.insert(0, locs.head())
        p.write(locs.tail())
    if _SEEN_ALIASED[0] and _attribute_aliases(op):
        stream.write(_with_aliases(op, p.text()))
        return
    out, p.out = p.out, []
    out.reverse()  # written from the end of the list: each piece is freed once written
    while out:
        stream.write(out.pop())


def _with_aliases(op: Operation, text: str) -> str:
    """The text with sparse encodings written through their `#sparse` aliases."""
    aliases = _attribute_aliases(op) if _SEEN_ALIASED[0] else {}
    if aliases:
        head = []
        for value, name in aliases.items():
            text = text.replace(value, name)
            head.append(f"{name} = {value}\n")
        text = "".join(head) + text
    return text


def _attribute_aliases(top: Operation) -> dict[str, str]:
    """`#sparse`, `#sparse1`, ... for sparse encodings, in order of first use (as MLIR's AliasState)."""
    found: dict[str, str] = {}
    counts: dict[str, int] = {}
    for op in top.walk():
        types = [v.type for v in op.results] + [
            v.type for r in op.regions for b in r.blocks for v in b.args
        ]
        ft = op.properties.get("function_type")
        if isinstance(ft, FunctionType):
            types += list(ft.inputs.data) + list(ft.outputs.data)
        for t in types:
            enc = getattr(t, "encoding", None)
            if isinstance(enc, OpaqueAttr) and enc.data not in found:
                for prefix, stem in ALIASED_ATTRIBUTES.items():
                    if str(enc.data).startswith(prefix):
                        n = counts.get(stem, 0)
                        counts[stem] = n + 1
                        found[str(enc.data)] = stem if n == 0 else f"{stem}{n}"
    return found


class _Wrapper:
    """Lets the namer treat the top-level op as a region child (so its own results are numbered)."""

    def __init__(self, op: Operation):
        self.regions = (_FakeRegion(op),)


class _FakeRegion:
    def __init__(self, op: Operation):
        self.blocks = (_FakeBlock(op),)
        self.parent = None


class _FakeBlock:
    def __init__(self, op: Operation):
        self.args = ()
        self.ops = (op,)


__all__ = [
    "BlockArgument",
    "BoolAttr",
    "Printer",
    "attr_to_str",
    "dict_to_str",
    "print_module",
    "print_nested_op",
    "string_literal",
    "symbol_text",
    "type_to_str",
]
