"""What every op of the toolkit shares: construction from parsed parts, pretty parse/print through
upstream's assembly format (or hand-written `parse_custom`/`print_custom`), and typed property syntax.

Concrete ops subclass `StableHLOOp` (or an undecorated family base) and are decorated with `op_def`,
which records how each property is written inside the op's format and then applies xDSL's
`irdl_op_definition`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParamAttrConstraint,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
)
from xdsl.traits import Pure

from stablehlo_py.ir import format as fmt
from stablehlo_py.ir.attributes import TypedStringAttr
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.construct import new_op, new_plain_op
from stablehlo_py.ir.xdsl_compat.side_data import SYNTAX, attach, attached
from stablehlo_py.ir.format_print import compiled_printer as _compiled_printer
from stablehlo_py.ir.verify.driver import op_verifier

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser
    from stablehlo_py.ir.text.printer import Printer

I1 = IntegerType(1)
I32 = IntegerType(32)
I64 = IntegerType(64)


# --------------------------------------------------------------------------- property syntax
@dataclass(frozen=True)
class AttrSyntax:
    """How a property is written where an op's format names it (`$dimension`)."""

    constraint: Any
    parse: Callable[[Parser], Attribute]
    can_start: Callable[[Parser], bool]


def _int_syntax(t: IntegerType) -> AttrSyntax:
    from xdsl.utils.exceptions import VerifyException

    cache: dict[int, IntegerAttr] = {}

    def parse(p: Parser) -> Attribute:
        p.ws()
        pos = p.pos
        v = p.parse_integer()
        a = cache.get(v)
        if a is None:
            try:
                a = cache[v] = IntegerAttr(v, t)
            except (ValueError, VerifyException):
                p.error(
                    f"integer constant out of range for attribute of type i{t.width.data}: {v}", pos
                )
        return a

    return AttrSyntax(_integer_of(t), parse, lambda p: p.peek() == "-" or p.peek().isdigit())


def _integer_of(t: IntegerType) -> ParamAttrConstraint:
    """ODS's `I64Attr`/`I32Attr`/`BoolAttr`: an integer attribute of exactly the type `t`."""
    return ParamAttrConstraint(IntegerAttr, (AnyAttr(), EqAttrConstraint(t)))


def _bool_parse(p: Parser) -> Attribute:
    if p.try_keyword("true"):
        return IntegerAttr(1, I1)
    p.parse_keyword("false")
    return IntegerAttr(0, I1)


_I64_ARRAYS = CONTEXT.table("ops.i64_arrays", 1 << 14)  # values -> the interned attribute


def i64_array_attr(values: Sequence[int]) -> DenseArrayBase:
    """`array<i64: values>`, interned (attributes are immutable; the same dimension lists recur
    throughout a program and xDSL's from_list is slow)."""
    key = tuple(values)
    a = _I64_ARRAYS.get(key)
    if a is None:
        a = _I64_ARRAYS.put(key, DenseArrayBase.from_list(I64, key))
    return a


def _dense_i64_array_parse(p: Parser) -> Attribute:
    return i64_array_attr(p.parse_delimited("[", p.parse_integer, "]"))


def _dense_bool_array_parse(p: Parser) -> Attribute:
    def one() -> int:
        if p.try_keyword("true"):
            return 1
        p.parse_keyword("false")
        return 0

    return DenseArrayBase.from_list(I1, p.parse_delimited("[", one, "]"))


def _float_parse(t: Attribute) -> Callable[[Parser], Attribute]:
    def parse(p: Parser) -> Attribute:
        # The type is known from the op definition, so (as MLIR's parseAttribute(type)) a
        # following `:` is not read as the attribute's type: `tolerance = 0.1 : tensor<f64>`.
        from stablehlo_py.ir.text import dense as dense_text
        from stablehlo_py.ir.text.floats import NUMBER as _NUMBER

        text = p.parse_token(_NUMBER, "a floating-point number")
        return dense_text.scalar_attr(p, text, t, p.pos - len(text))

    return parse


I64_ATTR = _int_syntax(I64)
I32_ATTR = _int_syntax(I32)
BOOL_ATTR = AttrSyntax(_integer_of(I1), _bool_parse, lambda p: p.peek(1) in ("t", "f"))
# ODS's StrAttr: a string attribute of any type (`"foo"` or `"foo" : tensor<3xf32>`)
STR_ATTR = AttrSyntax(
    AnyOf((BaseAttr(StringAttr), BaseAttr(TypedStringAttr))),
    lambda p: StringAttr(p.parse_string()),
    lambda p: p.peek() == '"',
)
SYMBOL_ATTR = AttrSyntax(SymbolRefAttr, lambda p: p.parse_symbol_ref(), lambda p: p.peek() == "@")
# ODS's DenseI64ArrayAttr: an array<i64: ...> (a float or other-width array fails the property check)
DENSE_I64_ARRAY = AttrSyntax(
    ParamAttrConstraint(DenseArrayBase, (EqAttrConstraint(I64), AnyAttr())),
    _dense_i64_array_parse,
    lambda p: p.peek() == "[",
)
# ODS's DenseBoolArrayAttr: an array<i1: ...>
DENSE_BOOL_ARRAY = AttrSyntax(
    ParamAttrConstraint(DenseArrayBase, (EqAttrConstraint(I1), AnyAttr())),
    _dense_bool_array_parse,
    lambda p: p.peek() == "[",
)
ANY_ATTR = AttrSyntax(Attribute, lambda p: p.parse_attribute(), lambda p: True)
ELEMENTS_ATTR = AttrSyntax(
    DenseIntOrFPElementsAttr, lambda p: p.parse_attribute(), lambda p: p.peek(5) == "dense"
)
ARRAY_ATTR = AttrSyntax(ArrayAttr, lambda p: p.parse_attribute(), lambda p: p.peek() == "[")


def array_of(element: type[Attribute]) -> AttrSyntax:
    """ODS's `TypedArrayAttrBase<element>`: an array attribute of `element` attributes only."""
    return AttrSyntax(
        ArrayAttr.constr(BaseAttr(element)),
        lambda p: p.parse_attribute(),
        lambda p: p.peek() == "[",
    )


DICT_ATTR = AttrSyntax(DictionaryAttr, lambda p: p.parse_attribute(), lambda p: p.peek() == "{")
UNIT_ATTR = AttrSyntax(UnitAttr, lambda p: UnitAttr(), lambda p: False)


def float_attr(t: Attribute) -> AttrSyntax:
    return AttrSyntax(FloatAttr, _float_parse(t), lambda p: p.peek() in "-0123456789")


def enum_syntax(cls: Any) -> AttrSyntax:
    """A StableHLO enum attribute class with `parse_stripped`."""
    return AttrSyntax(cls, cls.parse_stripped, cls.can_start)


def attribute_syntax(cls: Any) -> AttrSyntax:
    """An attribute property written whole (`#stablehlo.dot<...>`, `#stablehlo.gather<...>`): read
    by the attribute parser, where the text starts with `#`."""
    return AttrSyntax(cls, lambda p: p.parse_attribute(), lambda p: p.peek() == "#")


def prop(syntax: AttrSyntax, *, optional: bool = False, default: Attribute | None = None) -> Any:
    """An inherent attribute (stored as an xDSL property) with its in-format syntax."""
    constraint = syntax.constraint
    if optional or default is not None:
        d = opt_prop_def(constraint, default) if default is not None else opt_prop_def(constraint)
    else:
        d = prop_def(constraint)
    attach(d, SYNTAX, syntax)
    return d


OpT = TypeVar("OpT", bound=type)


def op_def(cls: OpT) -> OpT:
    """Record property syntaxes (also those inherited from family bases) and apply irdl_op_definition."""
    syntaxes: dict[str, AttrSyntax] = {}
    for klass in reversed(cls.__mro__):
        for k, v in vars(klass).items():
            s = attached(v, SYNTAX)
            if isinstance(s, AttrSyntax):
                syntaxes[k] = s
    cls.verify_ = op_verifier(cls)  # type: ignore[attr-defined]  # + the declared INFER_CHECK
    cls = irdl_op_definition(cls)  # type: ignore[assignment]
    cls._PROP_SYNTAX = syntaxes  # type: ignore[attr-defined]
    _attach_ods_messages(cls)
    return cls


def _attach_ods_messages(cls: type) -> None:
    """Each property whose constraint is one ODS attribute kind fails with MLIR's message
    (`attribute 'x' failed to satisfy constraint: <summary>`, ods_types), instead of xDSL's."""
    from dataclasses import replace

    from xdsl.irdl import MessageConstraint

    from stablehlo_py.ir.verify.ods_types import attr_constraint_failure, property_summary

    properties = cls.get_irdl_definition().properties  # type: ignore[attr-defined]
    for name, d in list(properties.items()):
        summary = property_summary(cls.name, name, d.constr)  # type: ignore[attr-defined]
        if summary is not None:
            message = attr_constraint_failure(name, summary)
            properties[name] = replace(d, constr=MessageConstraint(d.constr, message))


def op_class_name(op_name: str) -> str:
    """`round_nearest_afz` -> `RoundNearestAfzOp`."""
    return "".join(w.capitalize() for w in op_name.split("_")) + "Op"


def define_op(base: type, name: str, doc: str, **attrs: Any) -> Any:
    """`op_def` of a subclass of `base` for the op `name` (`stablehlo.round_nearest_afz`), named after
    it (`RoundNearestAfzOp`): ops of a family that differ only in name, documentation and the class
    attributes `attrs` (field definitions, or UPPER_CASE class constants)."""
    ns: dict[str, Any] = {"name": name, "__doc__": doc, "__module__": base.__module__, **attrs}
    consts = {k: ClassVar[Any] for k in attrs if k.isupper()}
    if consts:
        ns["__annotations__"] = consts
    return op_def(type(op_class_name(name.split(".", 1)[1]), (base,), ns))


def family_op(
    table: dict[str, Any],
    classes: dict[str, type],
    base: type,
    name: str,
    row: Any,
    doc: str,
    **attrs: Any,
) -> Any:
    """`define_op(base, name, doc, **attrs)` for one row of an op family's table: the row goes into
    `table` and the class into `classes`, both keyed by the op's name without its dialect.  The
    family modules assign each result to its class name (`AddOp = _binary("add", ...)`), so that
    `grep "AddOp ="` finds where the class is made."""
    short = name.split(".", 1)[1]
    table[short] = row
    classes[short] = cls = define_op(base, name, doc, **attrs)
    return cls


def _property_parser(p: Parser, name: str) -> Any:
    """The syntax of the property `name` of the op being parsed, as `prop` recorded it (None: the
    property has none, and the format engine reads a generic attribute)."""
    cls = p._current_op_cls  # type: ignore[attr-defined]
    s = cls._PROP_SYNTAX.get(name)
    if s is None:
        return None
    return fmt.PropertyParser(s.parse, s.can_start)


fmt.register_property_parser(_property_parser)  # the format engine asks ops for property syntax


_UNCOMPILED: Any = object()
PlainBuilder = Callable[[list[SSAValue], list[Attribute], dict[str, Attribute]], Operation]
"""(operands, result types, properties) -> op: `StableHLOOp.plain_builder`'s functions."""


# -------------------------------------------------------------------------------------- base
class StableHLOOp(IRDLOperation):
    """Undecorated base of every op in the toolkit's dialects."""

    FORMAT: ClassVar[str | None] = None
    """Upstream's `assemblyFormat`, verbatim; None when the op has a hand-written syntax."""
    ISOLATED: ClassVar[bool] = False
    DEFAULT_DIALECT: ClassVar[str | None] = None
    _PROP_SYNTAX: ClassVar[dict[str, AttrSyntax]] = {}
    _COMPILED: ClassVar[list[Any] | None] = None
    _FAST_PARSE: ClassVar[Callable[[Parser], Operation | None] | None]
    _FORMAT_ATTRS: ClassVar[tuple[str, ...]] = ()
    INHERENT_EXTRA: ClassVar[tuple[str, ...]] = ()
    """Inherent attributes that are not declared properties (e.g. `operandSegmentSizes`): read from
    the attribute dictionary of the generic form as properties too."""
    POPULATED_DEFAULTS: ClassVar[dict[str, Attribute]] = {}
    """DefaultValued attributes that MLIR populates when the op is created, so that the generic form
    prints them even when the input did not give them."""
    INFER_CHECK: ClassVar[str | None] = None
    """When the verifier runs upstream's InferTypeOpInterface check among the op's own checks: None
    (never), "before" or "after" its `verify_`, ... (the keys of
    `stablehlo_py.ir.verify.driver.INFER_CHECKS`, where the order is described, and composed by
    `op_def`, in one place); `ODS_CHECK` (a function of the op) runs first, a
    `verify_after_inference_` method last."""
    ODS_CHECK: ClassVar[Callable[[Operation], None] | None] = None

    @classmethod
    def build_generic(
        cls,
        operands: list[SSAValue],
        result_types: list[Attribute],
        properties: dict[str, Attribute],
        attributes: dict[str, Attribute],
        regions: list[Region],
    ) -> Operation:
        # As MLIR does for ops with properties: inherent attributes written in the attribute
        # dictionary of the generic form (`{dimension = 1 : i64}`) are the op's properties.
        if attributes:
            declared = cls.get_irdl_definition().properties  # type: ignore[attr-defined]
            extra = cls.INHERENT_EXTRA
            if any(k in declared or k in extra for k in attributes):
                properties = dict(properties)
                attributes = dict(attributes)
                for k in [
                    *(k for k in extra if k in attributes),
                    *(k for k in attributes if k in declared),
                ]:
                    properties[k] = attributes.pop(k)
        op = new_op(cls, operands, result_types, properties, regions, attributes)
        for k, v in cls.POPULATED_DEFAULTS.items():
            op.properties.setdefault(k, v)
        return op

    @classmethod
    def plain_builder(cls) -> PlainBuilder:
        """``build_generic(operands, result_types, properties, {}, [])`` as one call for the
        parser's fast paths (``properties`` a new dict the op keeps): ``new_plain_op`` and the
        populated defaults, or ``build_generic`` itself where a class overrides it.  Made once
        per class."""
        made = cls.__dict__.get("_PLAIN_BUILDER")
        if made is None:
            made = cls._PLAIN_BUILDER = cls._make_plain_builder()
        return made  # type: ignore[no-any-return]

    @classmethod
    def _make_plain_builder(cls) -> PlainBuilder:
        own = StableHLOOp.__dict__["build_generic"].__func__
        if cls.build_generic.__func__ is not own:  # type: ignore[attr-defined]
            build = cls.build_generic
            return lambda operands, results, props: build(operands, results, props, {}, [])
        populated = tuple(cls.POPULATED_DEFAULTS.items())
        if not populated:
            return lambda operands, results, props: new_plain_op(cls, operands, results, props)

        def build_populated(
            operands: list[SSAValue], results: list[Attribute], props: dict[str, Attribute]
        ) -> Operation:
            op = new_plain_op(cls, operands, results, props)
            for k, v in populated:
                props.setdefault(k, v)
            return op

        return build_populated

    @classmethod
    def direct_parse(cls) -> Callable[[Parser], Operation | None] | None:
        """The format's one-regex fast path (`format_parse`) when `parse_pretty` tries it first:
        it builds the op, or returns None with the parser unmoved, and raises nothing, so the
        parser may call it before dispatching to `parse_pretty` (None: no such path)."""
        if cls.FORMAT is None:
            return None
        own = StableHLOOp.__dict__["parse_pretty"].__func__
        if cls.parse_pretty.__func__ is not own:  # type: ignore[attr-defined]
            return None
        fast = cls.fast_parse()
        return fast if getattr(fast, "direct", False) else None

    @classmethod
    def compiled_format(cls) -> list[Any]:
        c = cls.__dict__.get("_COMPILED")
        if c is None:
            assert cls.FORMAT is not None, cls
            c = fmt.compile_format(cls.FORMAT, cls)
            cls._COMPILED = c
            cls._FORMAT_ATTRS = tuple(_format_attr_names(c))
        return c

    @classmethod
    def fast_parse(cls) -> Callable[[Parser], Operation | None] | None:
        """The format's compiled fast path (`stablehlo_py.ir.format_parse`), made on first use."""
        d = cls.__dict__
        if "_FAST_PARSE" in d:
            return d["_FAST_PARSE"]
        from stablehlo_py.ir.format_parse import compile_fast_parse

        f = compile_fast_parse(cls.compiled_format(), cls)
        cls._FAST_PARSE = f
        return f

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        if cls.FORMAT is None:
            return cls.parse_custom(p)
        fast = cls.__dict__.get("_FAST_PARSE", _UNCOMPILED)
        if fast is _UNCOMPILED:
            fast = cls.fast_parse()
        if fast is not None:
            op = fast(p)
            if op is not None:
                return op
        elems = cls.compiled_format()
        saved = getattr(p, "_current_op_cls", None)
        p._current_op_cls = cls  # type: ignore[attr-defined]
        try:
            return fmt.parse_format(elems, p, cls)
        finally:
            p._current_op_cls = saved  # type: ignore[attr-defined]

    def print_pretty(self, pr: Printer) -> None:
        cls = type(self)
        if cls.FORMAT is None and cls.print_custom is StableHLOOp.print_custom:
            # No pretty syntax upstream (e.g. chlo.ragged_dot): the generic form, name included.
            pr.print_generic(self)
            return
        if cls.FORMAT is None:
            pr.write(pr.op_name(self.name))
            self.print_custom(pr)
            return
        compiled = _compiled_printer(cls, True)  # name and format (ir/format_print.py)
        if compiled is not None:
            compiled(self, pr)
        else:
            pr.write(pr.op_name(self.name))
            fmt.print_format(cls.compiled_format(), self, pr)

    @classmethod
    def parse_custom(cls, p: Parser) -> Operation:
        p.error(f"'{cls.name}' has no pretty syntax; write it in generic form")

    def print_custom(self, pr: Printer) -> None:
        pr.print_generic(self)


class GenericSyntaxOp(StableHLOOp):
    """An op upstream prints in generic form only (`"stablehlo.if"(%p) ({..}, {..}) : ...`)."""

    FORMAT: ClassVar[str | None] = None  # also where a family base of the op declares one
    GENERIC_ONLY: ClassVar[str] = (
        "'{name}' has no pretty syntax; write it in generic form (\"{name}\"(...) ... : type)"
    )
    """The parse error for the pretty form."""

    @classmethod
    def parse_pretty(cls, p: Parser) -> Operation:
        p.error(cls.GENERIC_ONLY.format(name=cls.name))

    def print_pretty(self, pr: Printer) -> None:
        pr.print_generic(self)


class PureOp(StableHLOOp):
    """An op with MLIR's Pure trait whose InferTypeOpInterface check runs after its `verify_` (the
    most common declaration, made once; a class overrides `INFER_CHECK` where upstream differs)."""

    traits = traits_def(Pure())
    INFER_CHECK: ClassVar[str | None] = "after"


class NoAssemblyFormatOp(GenericSyntaxOp):
    """A GenericSyntaxOp of data_movement or linalg (which word the parse error this way)."""

    GENERIC_ONLY: ClassVar[str] = (
        "'{name}' has no custom assembly form; write it in generic form "
        '("{name}"(...) ... : (...) -> ...)'
    )


def parse_attr_dict_and_typed_value(
    p: Parser,
    untyped_error: str = "expected a dense elements attribute (e.g. dense<1.0> : tensor<f32>)",
) -> tuple[dict[str, Attribute], Attribute, Attribute, int]:
    """`attr-dict $value` of a constant op: the attributes, the value, its type (the result type)
    and where the value starts; `untyped_error` is reported for a value without a type."""
    attrs = p.try_attr_dict()
    p.ws()
    pos = p.pos
    value = p.parse_attribute()
    t = getattr(value, "type", None)
    if t is None:
        p.error(untyped_error, pos)
    return attrs, value, t, pos


def check_written_types(
    p: Parser,
    pos: int,
    op: str,
    operands: Sequence[SSAValue],
    types: Sequence[Attribute],
    noun: str = "operand",
    count: str = "{op} has {n} {noun}s but its type lists {m}",
    written: str = "is written as",
) -> None:
    """A custom syntax's operands against the types it writes for them (reduce, while, composite,
    chlo.scan): their number (the `count` message), then each operand's type, reported at `pos`."""
    if len(types) != len(operands):
        p.error(count.format(op=op, n=len(operands), noun=noun, m=len(types)), pos)
    for i, (v, t) in enumerate(zip(operands, types)):
        if v.type != t:
            from stablehlo_py.ir.verify.constraints import t2s

            p.error(f"{noun} #{i} of {op} has type {t2s(v.type)} but {written} {t2s(t)}", pos)


def print_region_argument(pr: Printer, arg: Any) -> None:
    """OpAsmPrinter::printRegionArgument: `%name: type` (+ ` loc(...)` with debug info)."""
    from stablehlo_py.ir.text.printer import type_to_str

    pr.write(f"{pr.value(arg)}: {type_to_str(arg.type)}")
    if pr.debuginfo:
        pr.write(f" loc({pr.arg_location(arg)})")


def _format_attr_names(elems: list[Any]) -> list[str]:
    out: list[str] = []

    def walk(es: list[Any]) -> None:
        for e in es:
            if isinstance(e, fmt.Var) and e.kind == "attr":
                out.append(e.name)
            elif isinstance(e, fmt.Ref):
                continue
            elif isinstance(e, fmt.Custom):
                for a in e.args:
                    if isinstance(a, fmt.Var) and a.kind == "attr":
                        out.append(a.name)
            elif isinstance(e, fmt.Optional_):
                walk(e.then)
                if e.else_:
                    walk(e.else_)

    walk(elems)
    return out
