"""The stablehlo, chlo and quant dialects' bytecode encodings, both directions.

Sources: upstream's ``StablehloBytecode.cpp`` and ``ChloBytecode.cpp`` (kind codes "must not be
changed"), MLIR's ``QuantDialectBytecode.td``; checked byte for byte against jaxlib's
``write_bytecode``.  Anything without a custom encoding (``#chlo.ragged_dot<...>``,
``#chlo<precision ...>``, ``#arith.fastmath<...>``, attributes of unmodelled dialects) is written as
MLIR does it: its assembly text, NUL-terminated (:func:`text_entry`), and read back with the
toolkit's text parser.

Writer side: :func:`dialect_entry` is the interner's fallback for everything that is not builtin
(``builtin.py`` calls it for a tensor's encoding, a quantized element type, a dictionary value ...).
Reader side: :func:`decode` turns a custom entry of the stablehlo, chlo or quant dialect into the
toolkit's own attribute and type classes (the ones its text parser builds), :func:`decode_text` a
textual entry.

Enums are ``varint(value)`` with the values of ``StablehloEnums.td`` / ``ChloEnums.td`` (note
``rng_distribution`` starts at 1).  ``writeOwnedBool`` is one raw byte.  Dynamic sizes (``?``, the
toolkit's -1) are MLIR's ``kDynamic`` (INT64_MIN) on the wire.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stablehlo_py.serialization.mlirbc.builtin import (
    ARRAY,
    DecodeContext,
    NotEncodable,
    attr_entry,
    type_entry,
)
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.model import Entry, Interner, counted
from xdsl.dialects.builtin import ArrayAttr, IntegerType
from xdsl.ir import Attribute, TypeAttribute

from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.attrs.catalog import STRUCTS, TEXT_KEPT
from stablehlo_py.ir.attrs.result_accuracy import ResultAccuracyModeAttr
from stablehlo_py.ir.attrs.struct import DescribedAttr, Description, Field
from stablehlo_py.ir.enums import ENUM_CLASSES, EnumAttr
from stablehlo_py.ir.future_type import FutureType
from stablehlo_py.ir.mesh import read_text_kept
from stablehlo_py.ir.types import (
    MLIR_DYNAMIC,
    QuantParams,
    TokenType,
    TypeExtensionsAttr,
    UniformQuantizedType,
)

__all__ = ["decode", "decode_text", "dialect_entry", "text_entry"]

S, C, Q = "stablehlo", "chlo", "quant"

# StablehloBytecode.cpp: stablehlo_encoding::AttributeCode / TypeCode
CHANNEL_HANDLE = 1
COMPARISON_DIRECTION = 2
COMPARISON_TYPE = 3
CONV_DIMENSION_NUMBERS = 4
DOT_DIMENSION_NUMBERS = 5
FFT_TYPE = 6
GATHER_DIMENSION_NUMBERS = 7
PRECISION = 8
RNG_ALGORITHM = 9
RNG_DISTRIBUTION = 10
SCATTER_DIMENSION_NUMBERS = 11
TRANSPOSE = 12
TYPE_EXTENSIONS = 13
OUTPUT_OPERAND_ALIAS = 14
DOT_ALGORITHM = 15
RESULT_ACCURACY_MODE = 16
RESULT_ACCURACY = 17
REPLICA_GROUP_MESH_AXES = 18
SUB_AXIS_INFO = 19
AXIS_REF = 20
MESH_AXIS = 21
MESH = 22
T_TOKEN, T_FUTURE = 0, 1
# ChloBytecode.cpp: chlo_encoding::AttributeCode
CHLO_COMPARISON_DIRECTION, CHLO_COMPARISON_TYPE = 0, 1
# QuantDialectBytecode.td: QuantDialectTypes
Q_UNIFORM, Q_PER_AXIS = 4, 5
Q_SIGNED = 1  # QuantizationFlags::Signed

_DYNAMIC = MLIR_DYNAMIC

# (dialect, enum mnemonic) -> (kind code, first enum value); the cases count up from it in the
# order of the toolkit's CASES (the .td order).
_ENUM_CODES: dict[tuple[str, str], tuple[int, int]] = {
    (S, "comparison_direction"): (COMPARISON_DIRECTION, 0),
    (S, "comparison_type"): (COMPARISON_TYPE, 0),
    (S, "fft_type"): (FFT_TYPE, 0),
    (S, "precision"): (PRECISION, 0),
    (S, "rng_algorithm"): (RNG_ALGORITHM, 0),
    (S, "rng_distribution"): (RNG_DISTRIBUTION, 1),
    (S, "transpose"): (TRANSPOSE, 0),
    (S, "result_accuracy_mode"): (RESULT_ACCURACY_MODE, 0),
    (C, "comparison_direction"): (CHLO_COMPARISON_DIRECTION, 0),
    (C, "comparison_type"): (CHLO_COMPARISON_TYPE, 0),
}
_ENUM_BY_CODE: dict[tuple[str, int], tuple[type[EnumAttr], int]] = {}
for (_d, _m), (_code, _first) in _ENUM_CODES.items():
    _cls = ResultAccuracyModeAttr if _m == "result_accuracy_mode" else ENUM_CLASSES[(_d, _m)]
    _ENUM_BY_CODE[(_d, _code)] = (_cls, _first)

# Struct attributes (stablehlo_py/ir/attrs): the kind code and fields of their descriptions, each
# field written by the writer of its kind (below), in upstream's order (Description.bytecode_fields).
# The IR keeps some as their text (TEXT_KEPT: `#stablehlo.mesh<...>`): written from the value their
# description reads from that text, read back as that text (Description.text).
_STRUCT_BY_CODE: dict[int, Description] = {
    c.DESC.bytecode: c.DESC for c in STRUCTS + TEXT_KEPT if c.DESC.bytecode is not None
}
_TEXT_KEPT_BY_PREFIX: dict[str, Description] = {
    c.DESC.what + "<": c.DESC for c in TEXT_KEPT if c.DESC.bytecode is not None
}
_TEXT_KEPT_PREFIXES = tuple(_TEXT_KEPT_BY_PREFIX)


# =============================================================================================
# Writer side


def _dims(xs: tuple[int, ...] | list[int]) -> list[tuple[str, Any]]:
    """``writeSignedVarInts``: a count, then each value (``?`` is kDynamic)."""
    out: list[tuple[str, Any]] = [("v", len(xs))]
    out.extend(("s", _DYNAMIC if x == -1 else int(x)) for x in xs)
    return out


def _s(x: int) -> tuple[str, Any]:
    return ("s", int(x))


def _f64(bits: int) -> tuple[str, Any]:
    return ("ap", (64, bits))


def _sub_axis_info(it: Interner, v: tuple[int, int] | None) -> list[tuple[str, Any]]:
    """A flag, then ``#stablehlo.sub_axis_info`` (kind 19) when there is one."""
    if v is None:
        return [("b", 0)]
    return [("b", 1), ("A", it.attr(S, ("v", SUB_AXIS_INFO), _s(v[0]), _s(v[1])))]


def _attr_items(it: Interner, v: Attribute | None, f: Field) -> list[tuple[str, Any]]:
    """An attribute; an optional one (default None: an OptionalParameter, a mesh's `device_ids`)
    after a flag (``writeOwnedBool``), the attribute only when there is one."""
    if f.default is not None:
        return [("A", attr_entry(it, v))]  # type: ignore[arg-type]
    return [("b", 0)] if v is None else [("b", 1), ("A", attr_entry(it, v))]


def _structs_items(it: Interner, v: tuple[Any, ...], f: Field) -> list[tuple[str, Any]]:
    """A list of struct values (a mesh's axes): a builtin array of the element struct's entries."""
    d = f.kind.element
    entries = [struct_entry(it, d, x) for x in v]
    return [("A", it.attr("builtin", ("v", ARRAY), *counted("A", entries)))]


_FIELD_WRITERS: dict[str, Callable[[Interner, Any, Field], list[tuple[str, Any]]]] = {
    "dims": lambda it, v, f: _dims(v),
    "int": lambda it, v, f: [_s(v)],
    "bool": lambda it, v, f: [("b", 1 if v else 0)],
    "type": lambda it, v, f: [("T", type_entry(it, v))],
    "f64": lambda it, v, f: [_f64(v)],
    "enum": lambda it, v, f: [("A", _custom_entry(it, f.kind.enum.get_case(v)))],
    "str": lambda it, v, f: [("str", v.encode("utf-8", "surrogateescape"))],
    "attr": _attr_items,
    "attrs": lambda it, v, f: counted("A", [attr_entry(it, x) for x in v]),
    "sub_axis_info": lambda it, v, f: _sub_axis_info(it, v),
    "structs": _structs_items,
}
"""Field kind (stablehlo_py.ir.attrs.struct.Kind.name) -> its items in upstream's bytecode."""


def struct_entry(it: Interner, d: Description, data: Any) -> Entry:
    """A described struct attribute: its kind code, then each field by the writer of its kind."""
    items: list[tuple[str, Any]] = [("v", d.bytecode)]
    for f in d.bytecode_fields:
        items += _FIELD_WRITERS[f.kind.name](it, getattr(data, f.name), f)
    return it.attr(S, *items)


def dialect_entry(it: Interner, a: Attribute) -> Entry:
    """The entry of any non-builtin attribute or type: a custom encoding of stablehlo, chlo, quant
    or VHLO, else its assembly text (as MLIR's writer falls back to)."""
    e = _custom_entry(it, a)
    if e is not None:
        return e
    from stablehlo_py.serialization.entries import codec_for

    if codec_for(a) is not None:
        from stablehlo_py.serialization.mlirbc import vhlo

        return vhlo.entry(it, a)
    if isinstance(a, OpaqueAttr) and a.data.startswith("#sdy"):
        from stablehlo_py.serialization.mlirbc import sdy

        e = sdy.entry(it, a)  # Shardy's own encoding (None: an sdy attribute kept as text)
        if e is not None:
            return e
    return text_entry(it, a)


def _custom_entry(it: Interner, a: Attribute) -> Entry | None:
    if isinstance(a, EnumAttr):
        got = _ENUM_CODES.get((a.DIALECT, a.MNEMONIC))
        if got is None:
            return None
        code, first = got
        return it.attr(a.DIALECT, ("v", code), ("v", first + a.CASES.index(a.data)))
    if isinstance(a, DescribedAttr) and a.DESC.bytecode is not None:
        return struct_entry(it, a.DESC, a.data)
    if isinstance(a, TypeExtensionsAttr):
        return it.attr(S, ("v", TYPE_EXTENSIONS), *_dims(a.bounds))
    if isinstance(a, OpaqueAttr) and str(a.data).startswith(_TEXT_KEPT_PREFIXES):
        return _text_kept_entry(it, str(a.data))
    if isinstance(a, TokenType):
        return it.type(S, ("v", T_TOKEN))
    if isinstance(a, FutureType):
        return it.type(S, ("v", T_FUTURE), *counted("T", [type_entry(it, t) for t in a.types]))
    if isinstance(a, UniformQuantizedType):
        q: QuantParams = a.params
        head = (
            ("v", Q_SIGNED if q.signed else 0),
            ("T", type_entry(it, q.storage_type)),
            ("T", type_entry(it, q.expressed_type)),
        )
        from stablehlo_py.serialization.mlirbc.encoding import f64_bits

        if q.quantized_dimension is None:
            return it.type(
                Q,
                ("v", Q_UNIFORM),
                *head,
                _f64(f64_bits(q.scales[0])),
                _s(q.zero_points[0]),
                _s(q.storage_min),
                _s(q.storage_max),
            )
        return it.type(
            Q,
            ("v", Q_PER_AXIS),
            *head,
            ("v", q.quantized_dimension),
            _s(q.storage_min),
            _s(q.storage_max),
            ("v", len(q.scales)),
            *(_f64(f64_bits(x)) for x in q.scales),
            ("v", len(q.zero_points)),
            *(_s(z) for z in q.zero_points),
        )
    return None


def _text_kept_entry(it: Interner, text: str) -> Entry:
    """A struct the IR keeps as its text (`#stablehlo.mesh<...>`, `#stablehlo.mesh_axis<...>`): its
    value read by its description, written as any described struct."""
    from stablehlo_py.errors import StableHLOError

    d = _TEXT_KEPT_BY_PREFIX[text[: text.index("<") + 1]]
    try:
        data = read_text_kept(d, text)
    except StableHLOError as ex:
        raise NotEncodable(f"{text} cannot be encoded: {ex.message}") from None
    return struct_entry(it, d, data)


def text_entry(it: Interner, a: Attribute) -> Entry:
    """An entry without a custom encoding: the assembly text MLIR prints for it, NUL-terminated
    (the dialect is the text's prefix: ``#chlo.ragged_dot<...>`` is chlo, ``#chlo<...>`` too)."""
    from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

    is_type = isinstance(a, TypeAttribute)
    try:
        text = type_to_str(a) if is_type else attr_to_str(a)
    except Exception as e:  # noqa: BLE001 - reported as not encodable
        raise NotEncodable(f"{a.name} cannot be printed ({e})") from None
    return it.get(_text_dialect(text), is_type, (("txt", text.encode("utf-8", "surrogateescape")),))


def _text_dialect(text: str) -> str:
    body = text[1:] if text[:1] in "#!" else text
    if text[:1] not in "#!":
        return "builtin"
    end = len(body)
    for i, ch in enumerate(body):
        if not (ch.isalnum() or ch == "_"):
            end = i
            break
    return body[:end] or "builtin"


# =============================================================================================
# Reader side


def _read_dims(r: Reader) -> tuple[int, ...]:
    n = r.count(1, "integers")
    return tuple(-1 if v == _DYNAMIC else v for v in (r.svarint() for _ in range(n)))


def _read_bool(r: Reader, pos: int) -> bool:
    b = r.byte()
    if b > 1:
        raise BytecodeError(f"a boolean must be 0 or 1, found {b}", r.pos - 1)
    return bool(b)


def _read_f64(r: Reader) -> int:
    return r.apint(64)


def _type(ctx: DecodeContext, r: Reader, pos: int) -> Attribute:
    t = ctx.read_type(r)
    if not isinstance(t, TypeAttribute):
        raise BytecodeError("expected a type reference", pos)
    return t


def _attr(ctx: DecodeContext, r: Reader, pos: int) -> Attribute:
    from stablehlo_py.serialization.mlirbc.builtin import Loc

    a = ctx.read_attr(r)
    if not isinstance(a, Attribute) or isinstance(a, Loc):
        raise BytecodeError("expected an attribute reference", pos)
    return a


def decode(r: Reader, ctx: DecodeContext, dialect: str, is_type: bool) -> Attribute:
    """A custom entry of the stablehlo, chlo or quant dialect."""
    pos = r.pos
    code = r.varint()
    try:
        if dialect == Q:
            if not is_type:
                raise BytecodeError("the quant dialect has no attribute encodings", pos)
            return _decode_quant(r, ctx, code, pos)
        if is_type:
            if dialect == S and code == T_TOKEN:
                return TokenType()
            if dialect == S and code == T_FUTURE:
                return FutureType([_type(ctx, r, pos) for _ in range(r.count(1, "types"))])
            raise BytecodeError(f"unknown {dialect} type code {code}", pos)
        enum = _ENUM_BY_CODE.get((dialect, code))
        if enum is not None:
            cls, first = enum
            v = r.varint() - first
            if not 0 <= v < len(cls.CASES):
                raise BytecodeError(f"invalid {cls.name} value {v + first}", pos)
            return cls.get_case(cls.CASES[v])
        if dialect != S:
            raise BytecodeError(f"unknown {dialect} attribute code {code}", pos)
        return _decode_stablehlo(r, ctx, code, pos)
    except (ValueError, TypeError) as e:
        raise BytecodeError(f"invalid {dialect} attribute or type: {e}", pos) from None


def _read_enum(ctx: DecodeContext, r: Reader, pos: int, f: Field, d: Description) -> str:
    a = _attr(ctx, r, pos)
    enum = f.kind.enum
    if not isinstance(a, enum):
        what, kind = d.mnemonic.replace("_", " "), enum.MNEMONIC.replace("_", " ")
        raise BytecodeError(f"the {f.key} of a {what} is not a {kind}", pos)
    return a.data  # type: ignore[no-any-return]


def _read_sub_axis_info(ctx: DecodeContext, r: Reader, pos: int) -> tuple[int, int] | None:
    if not _read_bool(r, pos):
        return None
    info = ctx.read_attr(r)
    if not isinstance(info, _SubAxisInfo):
        raise BytecodeError("the sub-axis info of an axis_ref is not a sub_axis_info", pos)
    return (info.pre_size, info.size)


def _read_attr(ctx: DecodeContext, r: Reader, pos: int, f: Field, d: Description) -> Any:
    """The inverse of _attr_items: an optional attribute after its flag."""
    if f.default is None and not _read_bool(r, pos):
        return None
    return _attr(ctx, r, pos)


def _read_structs(ctx: DecodeContext, r: Reader, pos: int, f: Field, d: Description) -> Any:
    """The inverse of _structs_items: an array of the element struct's attributes (kept as their
    text: its values read back by its description)."""
    e = f.kind.element
    items = _attr(ctx, r, pos)
    prefix = e.what + "<"
    if not isinstance(items, ArrayAttr) or not all(
        isinstance(x, OpaqueAttr) and str(x.data).startswith(prefix) for x in items.data
    ):
        raise BytecodeError(f"the {f.key} of a {d.what} are not {e.what} attributes", pos)
    return tuple(read_text_kept(e, str(x.data)) for x in items.data)  # type: ignore[attr-defined]


_FieldReader = Callable[[DecodeContext, Reader, int, Field, Description], Any]
_FIELD_READERS: dict[str, _FieldReader] = {
    "dims": lambda ctx, r, pos, f, d: _read_dims(r),
    "int": lambda ctx, r, pos, f, d: r.svarint(),
    "bool": lambda ctx, r, pos, f, d: _read_bool(r, pos),
    "type": lambda ctx, r, pos, f, d: _type(ctx, r, pos),
    "f64": lambda ctx, r, pos, f, d: _read_f64(r),
    "enum": _read_enum,
    "str": lambda ctx, r, pos, f, d: ctx.read_str(r),
    "attr": _read_attr,
    "attrs": lambda ctx, r, pos, f, d: tuple(
        _attr(ctx, r, pos) for _ in range(r.count(1, f.key))
    ),
    "sub_axis_info": lambda ctx, r, pos, f, d: _read_sub_axis_info(ctx, r, pos),
    "structs": _read_structs,
}
"""Field kind -> its reader (the inverse of _FIELD_WRITERS)."""


def decode_struct(r: Reader, ctx: DecodeContext, d: Description, pos: int) -> Attribute:
    """A described struct attribute's fields (after its kind code), in upstream's order."""
    values = {f.name: _FIELD_READERS[f.kind.name](ctx, r, pos, f, d) for f in d.bytecode_fields}
    data = d.struct(**values)
    if d.text_kept:
        return OpaqueAttr(d.text(data))
    return d.attr.new(data)  # type: ignore[no-any-return]


def _decode_stablehlo(r: Reader, ctx: DecodeContext, code: int, pos: int) -> Attribute:
    d = _STRUCT_BY_CODE.get(code)
    if d is not None:
        return decode_struct(r, ctx, d, pos)
    if code == TYPE_EXTENSIONS:
        return TypeExtensionsAttr(_read_dims(r))
    if code == SUB_AXIS_INFO:
        return _SubAxisInfo(r.svarint(), r.svarint())  # type: ignore[return-value]
    raise BytecodeError(f"unknown stablehlo attribute code {code}", pos)


class _SubAxisInfo:
    """``#stablehlo.sub_axis_info`` while reading: the toolkit keeps it inside its axis_ref."""

    __slots__ = ("pre_size", "size")

    def __init__(self, pre_size: int, size: int):
        self.pre_size = pre_size
        self.size = size


def _decode_quant(r: Reader, ctx: DecodeContext, code: int, pos: int) -> Attribute:
    if code not in (Q_UNIFORM, Q_PER_AXIS):
        raise BytecodeError(f"quant type code {code} is not supported by stablehlo-py", pos)
    from stablehlo_py.serialization.mlirbc.encoding import bits_f64

    flags = r.varint()
    storage = _type(ctx, r, pos)
    expressed = _type(ctx, r, pos)
    if not isinstance(storage, IntegerType):
        raise BytecodeError("the storage type of a quantized type is not an integer type", pos)
    if code == Q_UNIFORM:
        scale = bits_f64(_read_f64(r))
        zp = r.svarint()
        smin, smax = r.svarint(), r.svarint()
        params = QuantParams(
            storage, smin, smax, expressed, (scale,), (zp,), None, bool(flags & Q_SIGNED)
        )
    else:
        axis = r.varint()
        smin, smax = r.svarint(), r.svarint()
        scales = tuple(bits_f64(_read_f64(r)) for _ in range(r.count(1, "scales")))
        zps = tuple(r.svarint() for _ in range(r.count(1, "zero points")))
        if len(scales) != len(zps):
            raise BytecodeError(
                f"{len(scales)} scales but {len(zps)} zero points in a per-axis quantized type", pos
            )
        params = QuantParams(
            storage, smin, smax, expressed, scales, zps, axis, bool(flags & Q_SIGNED)
        )
    return UniformQuantizedType(params)


def decode_text(text: str, is_type: bool, pos: int) -> Attribute:
    """A textual entry, parsed by the toolkit's text parser."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    what = "type" if is_type else "attribute"
    try:
        p = Parser(text, default_registry(), "<bytecode>")
        a = p.parse_type() if is_type else p.parse_attribute()
        p.ws()
        if p.pos != len(text):
            raise BytecodeError(f"trailing text after the {what} '{text}'", pos)
    except StableHLOError as e:
        raise BytecodeError(f"textual {what} '{text}' cannot be parsed: {e.message}", pos) from None
    except Exception as e:  # noqa: BLE001 - the text parser on arbitrary bytes
        raise BytecodeError(f"textual {what} '{text}' cannot be parsed ({e})", pos) from None
    return a
