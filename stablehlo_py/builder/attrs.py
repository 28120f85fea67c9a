"""Python values -> attributes: one converter per kind of attribute an op declares.

The kind of an op's attribute is read from the op class itself: the in-format syntax each property
is declared with (``stablehlo_py.ir.ops.base.I64_ATTR``, ``DENSE_I64_ARRAY``, ``enum_syntax(...)``, ...)
or, for the few kinds that syntax does not tell apart, the attribute class of its constraint.  So
the table below (``_BY_SYNTAX``, ``_BY_CLASS``, ``_BY_NAME``) covers every attribute of every op,
and a new op with an attribute of a known kind needs nothing here.

What each kind accepts (every kind also accepts a ready xDSL attribute, used as is, and -- except
where a string is itself the natural value -- MLIR attribute text, read with the same syntax the
op's parser uses, e.g. ``"#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>"``):

=====================  =======================================================================
kind                   Python value
=====================  =======================================================================
i64 / i32 integer      ``int`` (or numpy integer)
bool                   ``bool``
string                 ``str``
symbol                 ``str`` (``"f"`` or ``"@f"``) or a builder ``Function``
i64 / bool array       sequence of ints / bools -> ``array<i64: ...>`` / ``array<i1: ...>``
dense elements         nested sequence or numpy array of ints -> ``dense<...> : tensor<...xi64>``
float                  ``float`` (in the element type the op declares, e.g. f32 for epsilon)
enum                   case name (``"GT"``, ``"FLOAT"``) or a member of the builder's ``enum.Enum``
                       classes (``ComparisonDirection.GT``)
dimension numbers      ``dict`` of the attribute's fields (``{"lhs_contracting_dimensions": [1],
                       ...}``), the matching dataclass, or text; convolution also takes upstream's
                       short form ``"[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]"``
result_accuracy        mode name (``"HIGHEST"``) or ``dict(atol=..., rtol=..., ulps=..., mode=...)``
unit                   ``True`` (present) / ``False`` (absent)
dictionary             ``dict`` of plain values (see :func:`to_attribute`)
replica_groups /       2-D nested sequence or array of ints -> ``dense<...> : tensor<NxMxi64>``
source_target_pairs,
padding
channel_handle         ``int`` handle (type 0), ``(handle, type)`` or ``dict(handle=, type=)``
precision_config       sequence of precision names (``["DEFAULT", "HIGHEST"]``)
called_computations    sequence of symbols
operand/result_layouts sequence of int sequences -> ``[dense<...> : tensor<Nxindex>, ...]``
result_tilings         per result, a sequence of int sequences -> ``[[dense<...> : ...>, ...]]``
layout (infeed)        sequence of int sequences -> ``[[1, 0], ...]``
=====================  =======================================================================
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.builder.errors import BuildError
from stablehlo_py.builder.numbers import NumberError, describe, to_element, type_name
from stablehlo_py.ir.attrs.catalog import STRUCTS
from stablehlo_py.ir.attrs.channel_handle import ChannelHandleAttr
from stablehlo_py.ir.attrs.conv import ConvDimensionNumbersAttr
from stablehlo_py.ir.attrs.output_operand_alias import OutputOperandAliasAttr
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracyAttr
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.enums import ENUM_CLASSES, EnumAttr
from stablehlo_py.ir.ops import base
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import FLOAT_NAME, tensor_type

I1, I32, I64 = IntegerType(1), IntegerType(32), IntegerType(64)


class Bad(Exception):
    """A converter's complaint: what it expected (the caller adds the op and attribute)."""


# ------------------------------------------------------------------------------- enum members
def _enum_class_name(dialect: str, mnemonic: str) -> str:
    name = "".join(w.capitalize() for w in mnemonic.split("_"))
    return ("Chlo" + name) if dialect == "chlo" else name


ENUMS: dict[str, type[enum.Enum]] = {
    _enum_class_name(*key): enum.Enum(_enum_class_name(*key), {c: c for c in cls.CASES})  # type: ignore[misc]
    for key, cls in ENUM_CLASSES.items()
}
"""Python ``enum.Enum`` classes generated from the dialects' enum table: ``ComparisonDirection.GT``,
``ComparisonType.FLOAT``, ``Precision.HIGHEST``, ``FftType.RFFT``, ``RngDistribution.NORMAL``,
``RngAlgorithm.THREE_FRY``, ``Transpose.ADJOINT`` (and ``ChloComparisonDirection``, ...); a member's
value is its case name, so members and strings are interchangeable."""
_ENUM_NAMES = {cls: _enum_class_name(*key) for key, cls in ENUM_CLASSES.items()}
"""The name in ENUMS of each enum attribute class (the kind its converter shows)."""


# ----------------------------------------------------------------------------- plain helpers
_I64_MIN, _I64_MAX = -(2**63), 2**63 - 1


def _int(v: Any, what: str = "an int", bits: int = 64) -> int:
    """An int of the ``bits``-bit signed range (the attribute's integer type): never wrapped."""
    if isinstance(v, bool) or not isinstance(v, int | np.integer):
        raise Bad(f"expects {what}")
    i = int(v)
    if not -(2 ** (bits - 1)) <= i < 2 ** (bits - 1):
        raise Bad(f"expects {what} of the i{bits} range; {i} does not fit")
    return i


def _sequence(v: Any, what: str) -> Sequence[Any]:
    """`v` when it is a sequence (not a string), else `expects <what>`."""
    if not isinstance(v, Sequence) or isinstance(v, str):
        raise Bad(f"expects {what}")
    return v


def _ints(v: Any, what: str = "a sequence of ints") -> tuple[int, ...]:
    if v.__class__ in (list, tuple) and all(
        x.__class__ is int and _I64_MIN <= x <= _I64_MAX for x in v
    ):
        return tuple(v)
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, int | np.integer) and not isinstance(v, bool):
        raise Bad(f"expects {what} (wrap a single value in a list: [{v}])")
    return tuple(_int(x, what) for x in _sequence(v, what))


def _int_matrix(v: Any, what: str) -> DenseIntOrFPElementsAttr:
    try:
        arr = np.asarray(v)
    except ValueError:
        raise Bad(f"expects {what} (rows of equal length)") from None
    if arr.size == 0 and arr.ndim == 1:
        arr = arr.reshape(0, 0)
    if arr.ndim != 2 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        raise Bad(f"expects {what}")
    return make_dense(tensor_type(I64, arr.shape), arr.astype(np.int64))


@CONTEXT.memo("builder.attribute_text", maxsize=1024)
def _parse(syntax: base.AttrSyntax, text: str) -> Attribute:
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<attribute>")
    a = syntax.parse(p)
    p.ws()
    if p.pos != len(p.text):
        p.error(f"unexpected text after the attribute: {p.text[p.pos :]!r}")
    return a


def _text(syntax: base.AttrSyntax, v: str) -> Attribute:
    try:
        return _parse(syntax, v)
    except Exception as e:  # noqa: BLE001 -- the parser's message is the explanation
        raise Bad(f"cannot read {v!r} as this attribute: {getattr(e, 'message', e)}") from None


# -------------------------------------------------------------------------------- converters
@dataclass(frozen=True)
class Ctx:
    """What a converter may need beyond the value: the op (for messages and the dialect of enum
    cases) and its operand types by spec name (chlo.constant_like's value takes the operand's
    element type)."""

    op_name: str
    attr_name: str
    syntax: base.AttrSyntax | None
    operand_types: Mapping[str, Sequence[Attribute]]
    constraint: Any = None
    """The property's xDSL constraint: an attribute given as is or as text must satisfy it."""


Converter = Callable[[Any, Ctx], Attribute]


def _kind(conv: Converter, label: str) -> Converter:
    """Tag a converter with the kind of Python value it takes, as the builder's signatures show it
    (``int``, ``[int]``, ``ComparisonDirection``, ``dict``; ``kind_of``)."""
    conv.kind = label  # type: ignore[attr-defined]
    return conv


def _kinded(label: str) -> Callable[[Converter], Converter]:
    return lambda conv: _kind(conv, label)


def kind_of(conv: Converter) -> str:
    """The kind of Python value a converter takes (help() and docs/builder-ops.md show it)."""
    return getattr(conv, "kind", "attribute")


_INTEGERS = CONTEXT.table("builder.integers", 10_000)  # (width, value) -> the interned attribute


def _integer(width: IntegerType) -> Converter:
    bits = width.width.data

    def conv(v: Any, ctx: Ctx) -> Attribute:
        i = _int(v, bits=bits)
        a = _INTEGERS.get((bits, i))
        if a is None:  # one object per value, so that memos by identity (the builder's) hit
            a = _INTEGERS.put((bits, i), IntegerAttr(i, width))
        return a

    return _kind(conv, "int")


@_kinded("bool")
def _bool(v: Any, ctx: Ctx) -> Attribute:
    if not isinstance(v, bool | np.bool_):
        raise Bad("expects a bool")
    return IntegerAttr(int(bool(v)), I1)


@_kinded("str")
def _string(v: Any, ctx: Ctx) -> Attribute:
    if not isinstance(v, str):
        raise Bad("expects a str")
    return StringAttr(v)


@_kinded("symbol")
def _symbol(v: Any, ctx: Ctx) -> Attribute:
    name = getattr(v, "sym_name", v)  # a builder Function
    if not isinstance(name, str) or not name.lstrip("@"):
        raise Bad("expects a function name (str) or a builder Function")
    return SymbolRefAttr(name.lstrip("@"))


_I64_ARRAYS = CONTEXT.table("builder.i64_arrays", 10_000)  # values -> the interned attribute


@_kinded("[int]")
def _i64_array(v: Any, ctx: Ctx) -> Attribute:
    key = _ints(v)
    a = _I64_ARRAYS.get(key)
    if a is None:
        a = _I64_ARRAYS.put(key, DenseArrayBase.from_list(I64, key))
    return a


@_kinded("[bool]")
def _bool_array(v: Any, ctx: Ctx) -> Attribute:
    if not isinstance(v, Sequence | np.ndarray) or isinstance(v, str):
        raise Bad("expects a sequence of bools")
    if not all(isinstance(x, bool | np.bool_) for x in v):
        raise Bad("expects a sequence of bools")
    return DenseArrayBase.from_list(I1, [int(bool(x)) for x in v])


@_kinded("[[int]]")
def _elements(v: Any, ctx: Ctx) -> Attribute:
    return _int_matrix(v, "a 2-D sequence of ints (one [low, high] pair per dimension)")


@_kinded("float")
def _float(v: Any, ctx: Ctx) -> Attribute:
    if isinstance(v, bool) or not isinstance(v, float | int | np.floating | np.integer):
        raise Bad("expects a float")
    assert ctx.syntax is not None
    t = _parse(ctx.syntax, "0.0").type  # the float type the op declares (f32 for epsilon)
    try:  # by the number rule: a finite value that overflows t is refused, nan and inf pass
        x = to_element(v.item() if isinstance(v, np.generic) else v, t, "the attribute is")
    except NumberError as e:
        raise Bad(f"is {describe(v)}, {e.reason}") from None
    return FloatAttr(float(x), t)


@_kinded("flag")
def _unit(v: Any, ctx: Ctx) -> Attribute:
    if not isinstance(v, bool):
        raise Bad("expects True (present) or False (absent)")
    return UnitAttr()


@_kinded("dict")
def _dictionary(v: Any, ctx: Ctx) -> Attribute:
    if not isinstance(v, Mapping):
        raise Bad("expects a dict")
    return _plain(v)


def _plain(v: Any) -> Attribute:
    """``to_attribute(v)``, its complaint as the converter's."""
    try:
        return to_attribute(v)
    except BuildError as e:
        raise Bad(f"holds a value that is not an attribute: {e.message}") from None


def _enum(cls: type[EnumAttr]) -> Converter:
    def conv(v: Any, ctx: Ctx) -> Attribute:
        case = v.value if isinstance(v, enum.Enum) else v
        if not isinstance(case, str) or case not in cls.CASES:
            raise Bad(f"expects one of {', '.join(cls.CASES)}")
        return cls.get_case(case)

    conv.takes_strings = True  # type: ignore[attr-defined]
    return _kind(conv, _ENUM_NAMES.get(cls, "str"))


def _field_bool(x: Any, name: str) -> bool:
    if not isinstance(x, bool):
        raise Bad(f"expects {name} to be a bool")
    return x


def _field_type(x: Any, name: str) -> Attribute:
    from stablehlo_py.builder.types import element_type_of

    try:
        return element_type_of(x)
    except BuildError as e:
        raise Bad(f"expects {name} to be an element type: {e.message}") from None


def _field_attrs(x: Any, name: str) -> tuple[Attribute, ...]:
    if not isinstance(x, Sequence) or not all(isinstance(a, Attribute) for a in x):
        raise Bad(f"expects {name} to be a sequence of attributes")
    return tuple(x)


def _field_sub_axis_info(x: Any, name: str) -> tuple[int, ...] | None:
    if x is None:
        return None
    v = _ints(x, f"{name} to be None or (pre_size, size)")
    if len(v) != 2:
        raise Bad(f"expects {name} to be None or (pre_size, size)")
    return v


_FIELD_CONVERTERS: dict[str, Callable[[Any, str], Any]] = {
    "dims": lambda x, name: _ints(x, f"{name} to be a sequence of ints"),
    "int": lambda x, name: _int(x, f"{name} to be an int"),
    "bool": _field_bool,
    "type": _field_type,
    "attrs": _field_attrs,
    "sub_axis_info": _field_sub_axis_info,
}
"""A struct field's kind (stablehlo_py.ir.attrs.struct.Kind.name) -> its value from Python; a
field of another kind takes its value as given."""


def _as_is(x: Any, name: str) -> Any:
    return x


def struct_converter(
    attr_cls: type, data_cls: type | None = None, fields_: tuple[tuple[str, str], ...] = ()
) -> Converter:
    """A struct attribute from a dict of its fields (or from its value): a described attribute's
    value class, fields and kinds come from its description (stablehlo_py.ir.attrs); another's are
    ``data_cls`` and ``fields_`` ((name, kind) pairs)."""
    make: Callable[[Any], Attribute] = attr_cls
    if data_cls is None:
        d = attr_cls.DESC  # type: ignore[attr-defined]
        data_cls, make = d.struct, attr_cls.new  # type: ignore[attr-defined]
        fields_ = tuple((f.name, f.kind.name) for f in d.fields)
    names = [n for n, _ in fields_]
    convs = [(n, _FIELD_CONVERTERS.get(k, _as_is)) for n, k in fields_]

    def conv(v: Any, ctx: Ctx) -> Attribute:
        if isinstance(v, data_cls):
            return make(v)
        if not isinstance(v, Mapping):
            raise Bad(f"expects a dict with keys among {', '.join(names)}")
        unknown = [k for k in v if k not in names]
        if unknown:
            raise Bad(f"has no field {unknown[0]!r} (fields: {', '.join(names)})")
        vals = {n: c(v[n], n) for n, c in convs if n in v}
        try:
            return make(data_cls(**vals))
        except TypeError as e:
            raise Bad(f"is incomplete: {e}") from None

    return _kind(conv, "dict")


_CONV = struct_converter(ConvDimensionNumbersAttr)


_OWN_SYNTAX = (ConvDimensionNumbersAttr, ResultAccuracyAttr, ChannelHandleAttr)
"""Described structs whose converter also takes a shorter value than a dict: conv's short form, an
accuracy's mode name, a channel's handle (channel_handle is a kind by name, in _BY_NAME)."""


@_kinded("dict or str")
def _conv_dims(v: Any, ctx: Ctx) -> Attribute:
    if isinstance(v, str) and not v.lstrip().startswith("#"):
        return _text(ctx.syntax, f"#stablehlo.conv<{v}>")  # type: ignore[arg-type]
    return _CONV(v, ctx)


def _ragged_dot_dims() -> Converter:
    from stablehlo_py.ir.ops.chlo import RaggedDotDimensionNumbersAttr, RaggedDotDims

    return struct_converter(
        RaggedDotDimensionNumbersAttr,
        RaggedDotDims,
        tuple((f.name, "dims") for f in fields(RaggedDotDims)),
    )


@_kinded("str or dict")
def _accuracy(v: Any, ctx: Ctx) -> Attribute:
    if isinstance(v, str | enum.Enum):
        v = {"mode": v.value if isinstance(v, enum.Enum) else v}
    if not isinstance(v, Mapping):
        raise Bad(
            "expects a mode name (DEFAULT, HIGHEST, TOLERANCE) or dict(atol=, rtol=, ulps=, mode=)"
        )
    if "ulps" in v:
        v = {**v, "ulps": _int(v["ulps"], "ulps to be an int")}
    try:
        return ResultAccuracyAttr(**v)
    except (TypeError, ValueError) as e:
        raise Bad(f"is not a result accuracy: {e}") from None


@_kinded("[Precision]")
def _precision_config(v: Any, ctx: Ctx) -> Attribute:
    dialect = ctx.op_name.split(".", 1)[0]
    conv = _enum(ENUM_CLASSES[(dialect if dialect == "chlo" else "stablehlo", "precision")])
    v = _sequence(v, "a sequence of precisions (DEFAULT, HIGH, HIGHEST)")
    out = []
    for i, x in enumerate(v):
        try:
            out.append(conv(x, ctx))
        except Bad as e:
            raise Bad(f"item #{i} {e}; got {x!r} in") from None
    return ArrayAttr(out)


def _array_of(item: Converter, what: str, item_kind: str | None = None) -> Converter:
    """The converter of a sequence (else `expects <what>`) into an array of `item`'s attributes."""

    def conv(v: Any, ctx: Ctx) -> Attribute:
        return ArrayAttr([item(x, ctx) for x in _sequence(v, what)])

    return _kind(conv, f"[{item_kind or kind_of(item)}]")


_symbols = _array_of(_symbol, "a sequence of function names")


@_kinded("[int]")
def _layout(v: Any, ctx: Ctx) -> Attribute:
    """One layout (ints, minor-to-major) as a 1-d index tensor."""
    dims = np.asarray(_ints(v), dtype=np.int64)
    return make_dense(tensor_type(IndexType(), (len(dims),)), dims)


_layouts = _array_of(_layout, "a sequence of layouts (each a sequence of ints, minor-to-major)")
_tilings = _array_of(_layouts, "a sequence of tilings (per result, a sequence of int sequences)")
_infeed_layout = _array_of(
    lambda x, ctx: ArrayAttr([IntegerAttr(d, I64) for d in _ints(x)]),
    "a sequence of layouts (each a sequence of ints)",
    "[int]",
)
_aliases = _array_of(
    lambda x, ctx: _BY_CLASS[OutputOperandAliasAttr](x, ctx),
    "a sequence of output-operand aliases (dicts)",
    "dict",
)


@_kinded("int or (handle,type)")
def _channel_handle(v: Any, ctx: Ctx) -> Attribute:
    if isinstance(v, Mapping):
        return ChannelHandleAttr(_int(v.get("handle", 0)), _int(v.get("type", 0)))
    if isinstance(v, tuple) and len(v) == 2:
        return ChannelHandleAttr(_int(v[0]), _int(v[1]))
    return ChannelHandleAttr(_int(v, "an int handle, (handle, type) or dict(handle=, type=)"), 0)


def _groups(what: str) -> Converter:
    def conv(v: Any, ctx: Ctx) -> Attribute:
        return _int_matrix(v, what)

    return _kind(conv, "[[int]]")


@_kinded("number")
def _constant_like_value(v: Any, ctx: Ctx) -> Attribute:
    (t,) = ctx.operand_types.get("operand", (None,))
    from stablehlo_py.ir.types import element_type

    if t is None or isinstance(v, bool) or not isinstance(v, int | float | np.number):
        raise Bad("expects a number (it takes the operand's element type)")
    e = element_type(t)
    if not isinstance(e, IntegerType) and type(e) not in FLOAT_NAME:
        raise Bad(f"takes an integer or float operand; the operand's elements are {type_name(e)}")
    try:  # by the number rule: never truncated, wrapped or overflowed
        x = to_element(v.item() if isinstance(v, np.generic) else v, e, "the operand is")
    except NumberError as err:
        raise Bad(f"is {describe(v)}, {err.reason}") from None
    if isinstance(e, IntegerType):
        return IntegerAttr(int(x), e)
    return FloatAttr(float(x), e)  # type: ignore[arg-type]


@_kinded("str or dict")
def _backend_config(v: Any, ctx: Ctx) -> Attribute:
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, Mapping):
        return _plain(v)
    raise Bad("expects a str or a dict")


_BY_SYNTAX: tuple[tuple[base.AttrSyntax, Converter], ...] = (
    (base.I64_ATTR, _integer(I64)),
    (base.I32_ATTR, _integer(I32)),
    (base.BOOL_ATTR, _bool),
    (base.STR_ATTR, _string),
    (base.SYMBOL_ATTR, _symbol),
    (base.DENSE_I64_ARRAY, _i64_array),
    (base.DENSE_BOOL_ARRAY, _bool_array),
    (base.ELEMENTS_ATTR, _elements),
    (base.DICT_ATTR, _dictionary),
    (base.UNIT_ATTR, _unit),
)
"""Kinds told apart by the property's in-format syntax (that object itself: matched by identity)."""

_BY_PARSE: dict[Any, Converter] = {base._dense_i64_array_parse: _i64_array}
"""Kinds told apart by the parse function of an op-specific syntax object."""

_BY_CLASS: dict[type, Converter] = {
    FloatAttr: _float,
    **{c: struct_converter(c) for c in STRUCTS if c not in _OWN_SYNTAX},
    ConvDimensionNumbersAttr: _conv_dims,
    ResultAccuracyAttr: _accuracy,
    StringAttr: _string,
}
"""Kinds told apart by the attribute class of the property's constraint."""

_BY_NAME: dict[str, Converter] = {
    "precision_config": _precision_config,
    "called_computations": _symbols,
    "operand_layouts": _layouts,
    "result_layouts": _layouts,
    "result_tilings": _tilings,
    "output_operand_aliases": _aliases,
    "layout": _infeed_layout,
    "channel_handle": _channel_handle,
    "replica_groups": _groups("a 2-D sequence of replica ids (one row per group)"),
    "source_target_pairs": _groups("a sequence of [source, target] pairs"),
    "padding": _groups("a 2-D sequence of ints (one [low, high] pair per dimension)"),
    "backend_config": _backend_config,
    "value": _constant_like_value,
}
"""Array-valued and untyped (AnyAttr) properties, whose kind is their name (the same name means
the same kind in every op that has it)."""


def converter_for(
    attr_name: str, syntax: base.AttrSyntax | None, constraint_cls: type | None
) -> Converter:
    """The converter of one property of an op class (decided once, when the op table is built)."""
    if syntax is not None:
        conv = next((c for s, c in _BY_SYNTAX if s is syntax), None) or _BY_PARSE.get(syntax.parse)
        if conv is not None:
            return conv
    cls = constraint_cls if constraint_cls is not None else getattr(syntax, "constraint", None)
    if isinstance(cls, type):
        if issubclass(cls, EnumAttr):
            return _enum(cls)
        if cls.__name__ == "RaggedDotDimensionNumbersAttr":
            return _ragged_dot_dims()
        for klass, conv in _BY_CLASS.items():
            if issubclass(cls, klass):
                return conv
    conv = _BY_NAME.get(attr_name)
    if conv is not None:
        return conv
    return _unknown


@_kinded("attribute")
def _unknown(v: Any, ctx: Ctx) -> Attribute:
    raise Bad("takes an xDSL attribute or MLIR attribute text")


def convert(conv: Converter, value: Any, ctx: Ctx) -> Attribute:
    """Apply a converter: attributes pass, text is parsed with the op's syntax where a string is not
    itself a value of the kind, and a complaint becomes BuildError naming the op and attribute."""
    if isinstance(value, Attribute):
        return _declared(value, value, ctx)
    as_text = (
        isinstance(value, str)
        and ctx.syntax is not None
        and conv not in _STRING_KINDS
        and not getattr(conv, "takes_strings", False)
    )
    try:
        try:
            return conv(value, ctx)
        except Bad:
            if not as_text:
                raise
            assert ctx.syntax is not None
            return _declared(_text(ctx.syntax, value), value, ctx)
    except Bad as e:
        got = "" if as_text else f"; got {value!r}"
        raise BuildError(
            f"{ctx.op_name}: attribute '{ctx.attr_name}' {e}{got}",
            note="see stablehlo_py.builder.attrs for the values each kind of attribute takes",
        ) from None


_STRING_KINDS: tuple[Converter, ...] = (_string, _symbol)


def _declared(attr: Attribute, value: Any, ctx: Ctx) -> Attribute:
    """``attr`` (given as is, or read from text) when it satisfies the property's constraint."""
    if ctx.constraint is None:
        return attr
    try:
        ctx.constraint.verify(attr, VerificationContext())
    except VerifyException as e:
        raise BuildError(
            f"{ctx.op_name}: attribute '{ctx.attr_name}' is not of the kind the op declares: "
            f"{' '.join(str(e).split())}; got {value!r}",
            note="see stablehlo_py.builder.attrs for the values each kind of attribute takes",
        ) from None
    return attr


# ------------------------------------------------------------------------- generic attributes
def to_attribute(v: Any) -> Attribute:
    """A plain Python value as an attribute, for dictionaries (function argument/result attributes,
    module attributes, composite_attributes, custom_call backend_config dicts):
    ``bool`` -> ``true``/``false``; ``int`` -> ``i64``; numpy integers and floats keep their width
    (``np.int32(1)`` -> ``1 : i32``); ``float`` -> ``f64`` (MLIR's untyped float); ``str`` ->
    string; a sequence -> ``[...]`` of converted items; ``dict`` -> ``{...}``; a numpy array ->
    ``dense<...>``; ``None`` -> unit; an xDSL attribute as is."""
    from xdsl.dialects.builtin import Float64Type

    from stablehlo_py.builder.types import element_type_of

    if isinstance(v, Attribute):
        return v
    if isinstance(v, bool | np.bool_):
        return IntegerAttr(int(bool(v)), I1)
    if isinstance(v, np.integer):
        return IntegerAttr(int(v), element_type_of(v.dtype))  # type: ignore[arg-type]
    if isinstance(v, int):
        if not _I64_MIN <= v <= _I64_MAX:
            raise BuildError(
                f"cannot make an attribute of {v}: an int attribute is an i64",
                note="give a numpy integer of a wider unsigned type, or a string",
            )
        return IntegerAttr(v, I64)
    if isinstance(v, np.floating):
        return FloatAttr(float(v), element_type_of(v.dtype))  # type: ignore[arg-type]
    if isinstance(v, float):
        return FloatAttr(v, Float64Type())
    if isinstance(v, str):
        return StringAttr(v)
    if v is None:
        return UnitAttr()
    if isinstance(v, np.ndarray):
        e = element_type_of(v.dtype)
        from stablehlo_py.ir.types import storage_dtype

        return make_dense(tensor_type(e, v.shape), v.astype(storage_dtype(e)))
    if isinstance(v, Mapping):
        return DictionaryAttr({str(k): to_attribute(x) for k, x in v.items()})
    if isinstance(v, Sequence):
        return ArrayAttr([to_attribute(x) for x in v])
    if is_dataclass(v):
        raise BuildError(f"{v!r} is not an attribute value; pass it where an op expects it")
    sym = getattr(v, "sym_name", None)
    if isinstance(sym, str):
        return SymbolRefAttr(sym)
    raise BuildError(
        f"cannot make an attribute of {v!r}",
        note="use bool, int, float, str, list, dict, a numpy value or an xDSL attribute",
    )
