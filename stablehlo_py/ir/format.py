"""MLIR's declarative assembly format, interpreted.

Each op class carries upstream's `assemblyFormat` string verbatim (`FORMAT`); this module compiles it
once per class into elements and interprets them to parse and to print, reproducing MLIR's
OpFormatGen spacing rules exactly (`shouldEmitSpaceBefore`, `lastWasPunctuation`).  Upstream's
`custom<Name>(...)` directives are Python functions registered in `CUSTOM_DIRECTIVES`
(see `stablehlo_py.ir.directives`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, Operation, Region, SSAValue

from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text.spelling import attr_to_str, function_type_to_str, type_to_str
from stablehlo_py.ir.xdsl_compat.construct import inherent_as_properties

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer


# ------------------------------------------------------------------------------------ elements
@dataclass
class Lit:
    value: str


@dataclass
class Space:
    value: str  # " " or "" or "\\n"


@dataclass
class Var:
    name: str
    kind: str = ""  # operand | attr | region | result  (resolved against the op definition)
    variadic: bool = False
    optional: bool = False


@dataclass
class TypeOf:
    target: Var | str  # Var, or "operands" / "results"


@dataclass
class FuncType:
    inputs: Var | str
    outputs: Var | str


@dataclass
class AttrDict:
    keyword: bool


@dataclass
class Custom:
    name: str
    args: list[Any]  # Var | TypeOf | Ref


@dataclass
class Ref:
    inner: Any


@dataclass
class Optional_:
    then: list[Any]
    else_: list[Any] | None
    anchor: Any


@dataclass
class Regions:
    pass


@dataclass
class Operands:
    pass


_TOK = re.compile(r"\s*(`[^`]*`|\$[A-Za-z_][A-Za-z0-9_]*|[A-Za-z][A-Za-z0-9_-]*|[()<>?^:,])")


class FormatError(Exception):
    pass


def compile_format(fmt: str, op_cls: type) -> list[Any]:
    toks: list[str] = []
    pos = 0
    while pos < len(fmt):
        m = _TOK.match(fmt, pos)
        if not m:
            if fmt[pos:].strip() == "":
                break
            raise FormatError(f"bad format near {fmt[pos : pos + 20]!r} in {op_cls.__name__}")
        toks.append(m.group(1))
        pos = m.end()
    it = _Stream(toks)
    kinds = _field_kinds(op_cls)
    elems = _parse_elems(it, kinds, top=True)
    if it.i != len(toks):
        raise FormatError(f"unparsed format tail {toks[it.i :]} in {op_cls.__name__}")
    return elems


class _Stream:
    def __init__(self, toks: list[str]):
        self.toks = toks
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> str:
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, t: str) -> None:
        got = self.next()
        if got != t:
            raise FormatError(f"expected {t!r} in format, got {got!r}")


def _field_kinds(op_cls: type) -> dict[str, tuple[str, bool, bool]]:
    """name -> (kind, variadic, optional) from the IRDL definition."""
    from xdsl.irdl import OptionalDef, VariadicDef

    d = op_cls.get_irdl_definition()  # type: ignore[attr-defined]
    out: dict[str, tuple[str, bool, bool]] = {}
    for n, o in d.operands:
        out[n] = (
            "operand",
            isinstance(o, VariadicDef) and not isinstance(o, OptionalDef),
            isinstance(o, OptionalDef),
        )
    for n, r in d.results:
        out[n] = (
            "result",
            isinstance(r, VariadicDef) and not isinstance(r, OptionalDef),
            isinstance(r, OptionalDef),
        )
    for n, r in d.regions:
        out[n] = ("region", isinstance(r, VariadicDef), isinstance(r, OptionalDef))
    for n, pdef in d.properties.items():
        out[n] = ("attr", False, isinstance(pdef, OptionalDef))
    for n, adef in d.attributes.items():
        out[n] = ("attr", False, isinstance(adef, OptionalDef))
    return out


def _var(tok: str, kinds: dict[str, tuple[str, bool, bool]]) -> Var:
    name = tok[1:]
    if name not in kinds:
        raise FormatError(f"format names unknown field ${name}")
    k, var, opt = kinds[name]
    return Var(name, k, var, opt)


def _parse_arg(it: _Stream, kinds: dict) -> Any:
    t = it.next()
    if t.startswith("$"):
        return _var(t, kinds)
    if t == "type":
        it.expect("(")
        a = it.next()
        it.expect(")")
        return TypeOf(_var(a, kinds) if a.startswith("$") else a)
    if t == "ref":
        it.expect("(")
        inner = _parse_arg(it, kinds)
        it.expect(")")
        return Ref(inner)
    if t == "qualified":
        it.expect("(")
        inner = _parse_arg(it, kinds)
        it.expect(")")
        return inner
    if t in ("operands", "results"):
        return t
    raise FormatError(f"bad directive argument {t!r}")


def _maybe_anchor(it: _Stream, e: Any) -> Any:
    """`e`, or `("anchor", e)` when a `^` follows it (the anchor of an optional group)."""
    if it.peek() == "^":
        it.next()
        return ("anchor", e)
    return e


def _parse_elems(it: _Stream, kinds: dict, top: bool = False) -> list[Any]:
    out: list[Any] = []
    while True:
        t = it.peek()
        if t is None or t == ")":
            return out
        it.next()
        if t.startswith("`"):
            v = t[1:-1]
            if v in ("", " ", "\\n"):
                out.append(Space(v))
            else:
                out.append(Lit(v))
        elif t.startswith("$"):
            out.append(_maybe_anchor(it, _var(t, kinds)))
        elif t == "type" or t == "qualified":
            it.i -= 1
            out.append(_maybe_anchor(it, _parse_arg(it, kinds)))
        elif t == "functional-type":
            it.expect("(")
            a = _parse_arg(it, kinds)
            it.expect(",")
            b = _parse_arg(it, kinds)
            it.expect(")")
            out.append(FuncType(a, b))
        elif t == "attr-dict":
            out.append(AttrDict(False))
        elif t == "attr-dict-with-keyword":
            out.append(AttrDict(True))
        elif t == "custom":
            it.expect("<")
            name = it.next()
            it.expect(">")
            it.expect("(")
            args = []
            if it.peek() != ")":
                args.append(_parse_arg(it, kinds))
                while it.peek() == ",":
                    it.next()
                    args.append(_parse_arg(it, kinds))
            it.expect(")")
            out.append(_maybe_anchor(it, Custom(name, args)))
        elif t == "regions":
            out.append(Regions())
        elif t == "operands":
            out.append(Operands())
        elif t == "(":
            inner = _parse_elems(it, kinds)
            it.expect(")")
            else_: list[Any] | None = None
            if it.peek() == ":":
                it.next()
                it.expect("(")
                else_ = _parse_elems(it, kinds)
                it.expect(")")
            it.expect("?")
            anchor = None
            clean: list[Any] = []
            for e in inner:
                if isinstance(e, tuple) and e[0] == "anchor":
                    anchor = e[1]
                    clean.append(e[1])
                else:
                    clean.append(e)
            out.append(Optional_(clean, else_, anchor))
        elif t in (",", ":"):
            raise FormatError(f"unexpected {t!r} in format")
        else:
            raise FormatError(f"unknown format directive {t!r}")


# --------------------------------------------------------------------------------- directives
@dataclass
class CustomDirective:
    print: Callable[..., None]
    parse: Callable[..., tuple | None]
    # optional regex fast path for the compiled format (stablehlo_py.ir.format_parse): (pattern,
    # number of groups, build(*groups) -> one value per argument, or None to interpret instead)
    fast: tuple[str, int, Callable[..., tuple | None]] | None = None


CUSTOM_DIRECTIVES: dict[str, CustomDirective] = {}


def custom_directive(name: str):
    """Register `print(pr, op, *args)` / `parse(p, state, *args)` for `custom<name>(...)` (and the
    class's optional `FAST` regex path)."""

    def deco(cls):
        CUSTOM_DIRECTIVES[name] = CustomDirective(cls.print, cls.parse, getattr(cls, "FAST", None))
        return cls

    return deco


# ------------------------------------------------------------------------------------ printing
def _should_space_before(value: str, last_punct: bool) -> bool:
    if len(value) != 1 and value != "->":
        return True
    if last_punct:
        return value[0] not in ">)}],"
    return value[0] not in "<>(){}[],"


class _PState:
    __slots__ = ("space", "punct")

    def __init__(self) -> None:
        self.space = True
        self.punct = False


def print_format(elems: list[Any], op: Operation, pr: Printer) -> None:
    st = _PState()
    _print_elems(elems, op, pr, st)


def _present(e: Any, op: Operation) -> bool:
    if isinstance(e, Var):
        v = _get(op, e)
        if e.kind == "attr":
            if v is None:
                return False
            # A default-valued attribute anchors its group only when it differs from the default
            # (MLIR's OpFormatGen: `attr && attr != default`).
            if prop_defaults(type(op)).get(e.name) == v:
                return False
            from xdsl.dialects.builtin import UnitAttr

            return True if not isinstance(v, UnitAttr) else True
        if e.kind == "region":
            return bool(v.blocks) if isinstance(v, Region) else bool(v)
        if isinstance(v, (list, tuple)):
            return len(v) > 0
        return v is not None
    if isinstance(e, TypeOf):
        return _present(e.target, op) if isinstance(e.target, Var) else True
    if isinstance(e, Custom):
        return any(
            _present(a.inner if isinstance(a, Ref) else a, op)
            for a in e.args
            if not isinstance(a, str)
        )
    return True


def _print_elems(elems: list[Any], op: Operation, pr: Printer, st: _PState) -> None:
    out = pr.out
    for e in elems:
        if isinstance(e, Lit):
            v = e.value
            if st.space and _should_space_before(v, st.punct):
                out.append(" ")
            out.append(v)
            st.space = len(v) != 1 or v[0] not in "<({["
            st.punct = v[0] != "_" and not v[0].isalpha()
            continue
        if isinstance(e, Space):
            if e.value == "\\n":
                pr.newline()
            elif e.value:
                out.append(" ")
                st.punct = False
            else:
                st.punct = True
            st.space = False
            continue
        if isinstance(e, Optional_):
            if _present(e.anchor, op):
                from xdsl.dialects.builtin import UnitAttr

                elems_ = [
                    x
                    for x in e.then
                    if not (
                        x is e.anchor
                        and isinstance(x, Var)
                        and x.kind == "attr"
                        and isinstance(_get(op, x), UnitAttr)
                    )
                ]
                _print_elems(elems_, op, pr, st)
            elif e.else_ is not None:
                _print_elems(e.else_, op, pr, st)
            continue
        if isinstance(e, AttrDict):
            pr.attr_dict(
                _discardable_and_extra_props(op), elided=_elided_props(op), keyword=e.keyword
            )
            st.punct = False
            continue
        if st.space or not st.punct:
            out.append(" ")
        st.punct = False
        st.space = True
        _print_value_elem(e, op, pr)


def _print_value_elem(e: Any, op: Operation, pr: Printer) -> None:
    if isinstance(e, Var):
        v = _get(op, e)
        if e.kind == "operand" or e.kind == "result":
            if isinstance(v, (list, tuple)):
                pr.operands(v)
            elif v is not None:
                pr.operand(v)
        elif e.kind == "attr":
            pr.write(attr_in_format(v))
        elif e.kind == "region":
            # MLIR's printRegion pushes the parent op's default dialect ("" unless it declares one).
            dd = getattr(type(op), "DEFAULT_DIALECT", None) or ""
            if isinstance(v, (list, tuple)):
                for i, r in enumerate(v):
                    if i:
                        pr.write(", ")
                    pr.region(r, default_dialect=dd)
            else:
                pr.region(v, default_dialect=dd)
        return
    if isinstance(e, TypeOf):
        pr.write(", ".join(type_to_str(t) for t in _types_of(op, e.target)))
        return
    if isinstance(e, FuncType):
        pr.write(function_type_to_str(_types_of(op, e.inputs), _types_of(op, e.outputs)))
        return
    if isinstance(e, Custom):
        d = CUSTOM_DIRECTIVES.get(e.name)
        if d is None:
            raise FormatError(f"custom directive {e.name} is not implemented")
        d.print(pr, op, *[_custom_arg_value(op, a) for a in e.args])
        return
    if isinstance(e, Regions):
        dd = getattr(type(op), "DEFAULT_DIALECT", None) or ""
        for i, r in enumerate(op.regions):
            if i:
                pr.write(", ")
            pr.region(r, default_dialect=dd)
        return
    if isinstance(e, Operands):
        pr.operands(op.operands)
        return
    raise FormatError(f"cannot print {e}")


def _custom_arg_value(op: Operation, a: Any) -> Any:
    if isinstance(a, Ref):
        a = a.inner
    if isinstance(a, TypeOf):
        ts = _types_of(op, a.target)
        if (
            isinstance(a.target, Var)
            and not a.target.variadic
            and a.target.kind in ("operand", "result")
        ):
            return ts[0] if ts else None
        return ts
    if isinstance(a, Var):
        return _get(op, a)
    if a == "operands":
        return list(op.operands)
    if a == "results":
        return list(op.results)
    return a


def _get(op: Operation, v: Var) -> Any:
    if v.kind == "attr":
        return op.properties.get(v.name, op.attributes.get(v.name))
    val = getattr(op, v.name)
    if v.kind in ("operand", "result") and v.variadic:
        return list(val)
    return val


def _types_of(op: Operation, target: Var | str) -> list[Attribute]:
    if target == "operands":
        return [x.type for x in op.operands]
    if target == "results":
        return [x.type for x in op.results]
    assert isinstance(target, Var)
    v = _get(op, target)
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [x.type for x in v]
    return [v.type]


def _elided_props(op: Operation) -> set[str]:
    return set(getattr(type(op), "_FORMAT_ATTRS", ()))


def _discardable_and_extra_props(op: Operation) -> dict[str, Attribute]:
    """attr-dict prints the properties the format does not mention (except those equal to their
    declared default, as MLIR's printer elides them), plus discardable attributes."""
    used = _elided_props(op)
    defaults = prop_defaults(type(op))
    merged = {k: v for k, v in op.properties.items() if k not in used and defaults.get(k) != v}
    merged.update(op.attributes)
    return merged


_DEFAULTS = CONTEXT.table("format.prop_defaults", 4096)  # op class -> its defaults


def prop_defaults(cls: type) -> dict[str, Attribute]:
    """Declared default of each property (from the IRDL definition), cached per class."""
    d = _DEFAULTS.get(cls)
    if d is None:
        get_def = getattr(cls, "get_irdl_definition", None)
        declared = get_def().properties if get_def is not None else {}
        d = {n: pd.default_value for n, pd in declared.items() if pd.default_value is not None}
        _DEFAULTS.put(cls, d)
    return d  # type: ignore[no-any-return]


def attr_in_format(a: Attribute) -> str:
    """An attribute variable in a format prints in its stripped form when it has one."""
    from xdsl.dialects.builtin import DenseArrayBase, FloatAttr, IntegerAttr, IntegerType

    stripped = getattr(a, "mlir_stripped", None)
    if stripped is not None:
        return stripped()
    if isinstance(a, IntegerAttr):
        if isinstance(a.type, IntegerType) and a.type.width.data == 1:
            return "true" if a.value.data else "false"
        return str(a.value.data)
    if isinstance(a, FloatAttr):
        return attr_to_str(a, elide_type=True)
    if isinstance(a, DenseArrayBase):
        text = attr_to_str(a)
        body = text[text.index(":") + 2 : -1] if ":" in text else ""
        return f"[{body}]"
    return attr_to_str(a)


# ------------------------------------------------------------------------------------- parsing
@dataclass
class ParseState:
    op_cls: type
    start_pos: int | None = None  # where operand resolution errors point
    operands: dict[str, Any] = field(default_factory=dict)
    operand_types: dict[str, Any] = field(default_factory=dict)
    result_types: dict[str, Any] = field(default_factory=dict)
    props: dict[str, Attribute] = field(default_factory=dict)
    attrs: dict[str, Attribute] = field(default_factory=dict)
    regions: dict[str, Any] = field(default_factory=dict)
    all_operands: list[SSAValue] | None = None
    all_result_types: list[Attribute] | None = None
    all_regions: list[Region] | None = None


def parse_format(elems: list[Any], p: Parser, op_cls: type) -> Operation:
    st = ParseState(op_cls)
    p.ws()
    st.start_pos = p.pos
    _parse_elems_run(elems, p, st)
    return build_from_state(st, p)


def _verify_inherent_attrs(p: Parser, st: ParseState, pos: int) -> None:
    """MLIR's verifyInherentAttrs after a pretty form's attr-dict: an op class may define
    `attr_dict_error(attrs) -> str | None` (the ODS constraints of the inherent attributes the
    dictionary gives); its message is reported at the dictionary, prefixed by `'<op>' op `."""
    check = getattr(st.op_cls, "attr_dict_error", None)
    if check is not None:
        msg = check(st.attrs)
        if msg:
            p.error(f"'{st.op_cls.name}' op {msg}", pos)


def _parse_elems_run(elems: list[Any], p: Parser, st: ParseState) -> None:
    for e in elems:
        _parse_one(e, p, st)


def _starts_present(e: Any, p: Parser) -> bool:
    """Does the optional group starting with element `e` appear next in the input?"""
    if isinstance(e, Lit):
        v = e.value
        if v[0].isalpha() or v[0] == "_":
            save = p.pos
            ok = p.try_keyword(v)
            p.pos = save
            return ok
        return p.peek(len(v)) == v
    if isinstance(e, Var):
        if e.kind == "operand":
            return p.peek() == "%"
        if e.kind == "region":
            return p.peek() == "{"
        if e.kind == "attr":
            parser = _property_parser(p, e.name)
            return parser is not None and parser.can_start(p)
    if isinstance(e, TypeOf):
        return True
    if isinstance(e, Custom):
        d = CUSTOM_DIRECTIVES.get(e.name)
        starts = getattr(d, "starts", None) if d else None
        return bool(starts and starts(p))
    return False


def _parse_one(e: Any, p: Parser, st: ParseState) -> None:
    if isinstance(e, Lit):
        v = e.value
        if v[0].isalpha() or v[0] == "_":
            p.parse_keyword(v)
        else:
            p.parse_literal(v)
        return
    if isinstance(e, Space):
        return
    if isinstance(e, Optional_):
        first = e.then[0]
        if _starts_present(first, p):
            _parse_elems_run(e.then, p, st)
            anchor = e.anchor
            if isinstance(anchor, Var) and anchor.kind == "attr" and anchor.name not in st.props:
                from xdsl.dialects.builtin import UnitAttr

                st.props[anchor.name] = UnitAttr()
        elif e.else_ is not None:
            _parse_elems_run(e.else_, p, st)
        return
    if isinstance(e, AttrDict):
        p.ws()
        pos = p.pos
        if e.keyword:
            if p.try_keyword("attributes"):
                st.attrs.update(p.parse_attr_dict_body())
        else:
            st.attrs.update(p.try_attr_dict())
        _verify_inherent_attrs(p, st, pos)
        return
    if isinstance(e, Var):
        if e.kind == "operand":
            if e.variadic:
                st.operands[e.name] = _deferred_operands(p) if p.peek() == "%" else []
            elif e.optional:
                st.operands[e.name] = [p.parse_operand(deferred=True)] if p.peek() == "%" else []
            else:
                st.operands[e.name] = p.parse_operand(deferred=True)
        elif e.kind == "attr":
            ap = _property_parser(p, e.name)
            st.props[e.name] = ap.parse(p) if ap is not None else p.parse_attribute()
        elif e.kind == "region":
            if e.variadic:
                regs = []
                if p.peek() == "{":
                    regs.append(p.parse_region())
                    while p.try_literal(","):
                        regs.append(p.parse_region())
                st.regions[e.name] = regs
            else:
                st.regions[e.name] = p.parse_region()
        return
    if isinstance(e, TypeOf):
        _parse_types_into(p, st, e.target)
        return
    if isinstance(e, FuncType):
        ins = p.parse_delimited("(", p.parse_type, ")")
        p.parse_literal("->")
        outs = p.parse_result_types()
        _assign_types(p, st, e.inputs, ins)
        _assign_types(p, st, e.outputs, outs)
        return
    if isinstance(e, Custom):
        d = CUSTOM_DIRECTIVES.get(e.name)
        if d is None:
            p.error(f"custom directive {e.name} is not implemented")
        d.parse(p, st, *e.args)
        return
    if isinstance(e, Regions):
        regs = []
        if p.peek() == "{":
            regs.append(p.parse_region())
            while p.try_literal(","):
                regs.append(p.parse_region())
        st.all_regions = regs
        return
    if isinstance(e, Operands):
        st.all_operands = _deferred_operands(p) if p.peek() == "%" else []
        return
    p.error(f"cannot parse format element {e}")


def _deferred_operands(p: Parser) -> list[Any]:
    """Operand names, resolved later in `build_from_state` (MLIR: after the types are parsed)."""
    return p.parse_comma_list(lambda: p.parse_operand(deferred=True))


def _parse_types_into(p: Parser, st: ParseState, target: Var | str) -> None:
    if isinstance(target, Var) and not target.variadic:
        if target.optional:
            ts = [p.parse_type()] if _type_may_start(p) else []
        else:
            ts = [p.parse_type()]
    else:
        ts = p.parse_comma_list(p.parse_type) if _type_may_start(p) else []
    _assign_types(p, st, target, ts)


def _type_may_start(p: Parser) -> bool:
    c = p.peek()
    return c != "" and (c.isalpha() or c in "!(")


def _assign_types(p: Parser, st: ParseState, target: Any, ts: list[Attribute]) -> None:
    if isinstance(target, Ref):
        return
    if target == "operands":
        st.operand_types["*"] = ts
        return
    if target == "results":
        st.all_result_types = ts
        return
    assert isinstance(target, Var)
    if target.kind == "result":
        st.result_types[target.name] = ts if (target.variadic or target.optional) else ts[0]
    elif target.kind == "operand":
        st.operand_types[target.name] = ts if (target.variadic or target.optional) else ts[0]


def set_slot(st: ParseState, arg: Any, value: Any) -> None:
    """Store what a custom directive parsed into the slot its argument names."""
    if isinstance(arg, Ref):
        return
    if isinstance(arg, TypeOf):
        t = arg.target
        if t == "operands":
            st.operand_types["*"] = value
        elif t == "results":
            st.all_result_types = value
        elif t.kind == "result":
            st.result_types[t.name] = value
        else:
            st.operand_types[t.name] = value
        return
    if isinstance(arg, Var):
        if arg.kind == "attr":
            if value is not None:
                st.props[arg.name] = value
        elif arg.kind == "operand":
            st.operands[arg.name] = value
        elif arg.kind == "region":
            st.regions[arg.name] = value
        return
    if arg == "operands":
        st.all_operands = value


def get_slot(st: ParseState, arg: Any) -> Any:
    """Read an already-parsed slot (for `ref(...)` arguments and types of parsed operands)."""
    if isinstance(arg, Ref):
        arg = arg.inner
    if isinstance(arg, TypeOf):
        t = arg.target
        if t == "operands":
            return st.operand_types.get("*") or [v.type for v in _ordered_operands(st)]
        if t == "results":
            return st.all_result_types
        if t.kind == "operand":
            if t.name in st.operand_types:
                return st.operand_types[t.name]
            v = st.operands.get(t.name)
            if isinstance(v, list):
                return [x.type for x in v]
            return v.type if v is not None else None
        return st.result_types.get(t.name)
    if isinstance(arg, Var):
        if arg.kind == "attr":
            return st.props.get(arg.name)
        if arg.kind == "operand":
            return st.operands.get(arg.name)
        if arg.kind == "region":
            return st.regions.get(arg.name)
    if arg == "operands":
        return _ordered_operands(st)
    return None


def _ordered_operands(st: ParseState) -> list[SSAValue]:
    if st.all_operands is not None:
        return list(st.all_operands)
    d = st.op_cls.get_irdl_definition()
    out: list[SSAValue] = []
    for n, _ in d.operands:
        v = st.operands.get(n)
        if v is None:
            continue
        out.extend(v if isinstance(v, list) else [v])
    return out


class PropertyParser:
    """How a property named in a format (`$dimension`) is read: `parse` reads it, `can_start` says
    whether the text at the parser's position starts one (for optional groups)."""

    def __init__(self, parse: Callable[[Parser], Attribute], can_start: Callable[[Parser], bool]):
        self.parse = parse
        self.can_start = can_start


def _no_property_parser(p: Parser, name: str) -> PropertyParser | None:
    return None


_property_parser: Callable[[Parser, str], PropertyParser | None] = _no_property_parser
"""The syntax of a property of the op being parsed, or None (read a generic attribute); set by
`register_property_parser`.  A module global, not an attribute lookup: the parser reads it for every
property it parses."""


def register_property_parser(lookup: Callable[[Parser, str], PropertyParser | None]) -> None:
    """Give the format engine the op layer's property syntaxes: `lookup(parser, name)` is the
    `PropertyParser` of the property `name` of the op being parsed, or None.  Called once, by
    `stablehlo_py.ir.ops.base` when it is imported (this module sits below the ops and cannot
    import them); until then every property reads as a generic attribute."""
    global _property_parser
    _property_parser = lookup


def build_from_state(st: ParseState, p: Parser) -> Operation:
    cls = st.op_cls
    d = cls.get_irdl_definition()
    # operands in definition order, checked against the types the format gave
    operands: list[SSAValue] = []
    segment_sizes: list[int] = []
    if st.all_operands is not None:
        operands = list(st.all_operands)
    else:
        for n, _ in d.operands:
            v = st.operands.get(n, [])
            vs = v if isinstance(v, list) else [v]
            segment_sizes.append(len(vs))
            operands.extend(vs)
    declared = st.operand_types.get("*")
    if declared is None:
        declared = []
        for n, _ in d.operands:
            if n in st.operand_types:
                t = st.operand_types[n]
                declared.extend(t if isinstance(t, list) else [t])
            else:
                v = st.operands.get(n, [])
                declared.extend(x.type for x in (v if isinstance(v, list) else [v]))
    if len(declared) != len(operands):
        # MLIR's OpAsmParser::resolveOperands
        p.op_error(
            f"number of operands and types do not match: got {len(operands)} operands and {len(declared)} types",
            st.start_pos,
        )
    for i, (v, t) in enumerate(zip(operands, declared)):
        operands[i] = v = p.resolve(v)
        if v.type != t:  # at the operand, as MLIR's resolveOperand
            p.use_type_error(v, t, st.start_pos if st.start_pos is not None else p.pos)
    if st.all_result_types is not None:
        result_types = list(st.all_result_types)
    else:
        result_types = []
        for n, _ in d.results:
            t = st.result_types.get(n)
            if t is None:
                continue
            result_types.extend(t if isinstance(t, list) else [t])
    if st.all_regions is not None:
        regions = st.all_regions
    else:
        regions = []
        for n, _ in d.regions:
            r = st.regions.get(n)
            if r is None:
                regions.append(Region())
            elif isinstance(r, list):
                regions.extend(r)
            else:
                regions.append(r)
    props, attrs = inherent_as_properties(dict(st.props), dict(st.attrs), d.properties)
    return cls.build_generic(
        operands=operands,
        result_types=result_types,
        properties=props,
        attributes=attrs,
        regions=regions,
    )
