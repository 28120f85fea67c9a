"""Records of VHLO types and attributes: one codec per row of ``specs/types.toml``.

An entry of the artifact's entries table is ``[kind, code, *fields]``: ``kind`` is :data:`TYPE` or
:data:`ATTR`, ``code`` upstream's bytecode code of the type or attribute (``specs/types.toml``
``bytecode_code``) and the fields are the type's or attribute's parameters in upstream's order, each
with a *wire kind* that says how it is written and checked:

=========  ================================================  ===========================
wire kind  value on the wire                                 reader checks
=========  ================================================  ===========================
``T``      index of an earlier entry that is a type          range, kind
``A``      index of an earlier entry that is an attribute    range, kind
``A?``     like ``A``, or nil when absent                    range, kind
``Ts``     list of ``T``                                     each element
``As``     list of ``A``                                     each element
``i``      integer                                           int (not bool)
``is``     list of integers                                  each element
``f``      float64 (exact, NaN payloads and -0.0 kept)       float
``fs``     list of float64                                   each element
``s``      string (UTF-8, surrogates passed through)         str
``b``      raw bytes (dense data: little-endian elements)    bytes, length vs. the type
``?``      boolean                                           bool
=========  ================================================  ===========================

**Other dialects.**  An artifact written with ``allow_other_dialects`` (JAX's exports: Shardy's
``#sdy.sharding`` ... attributes, the builtin tensor types of ``sdy`` ops and of the
``builtin.unrealized_conversion_cast`` between them and the VHLO) holds types and attributes no
codec covers.  Each is a *text entry*, ``[kind, TEXT_CODE, text]``: :data:`TEXT_CODE` (-1, never a
VHLO code) and its MLIR assembly text, read back by the toolkit's text parser
(:func:`text_of` / :func:`from_text`).  A reader that predates them refuses the code, naming it.

References always point backwards (children are written before their parents), so a reader builds
each entry once from already-built ones and a reference cycle cannot be expressed.  Entries are
deduplicated by their encoded form, so each distinct type or attribute is written and rebuilt once.

Each field also names its kind in upstream's MLIR bytecode (``serialization/mlirbc/vhlo.py``), so
both formats are written and read from this one table.

Each codec's fields form a :class:`~stablehlo_py.serialization.format.Record` (the struct_size rule
applies per entry).  ``COVERAGE`` in the tests checks that the codecs cover every type and attribute
of the table exactly.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from stablehlo_py.serialization import codes
from stablehlo_py.serialization.format import Field, Record
from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import types as vt
from xdsl.ir import Attribute

from stablehlo_py import specs

__all__ = [
    "ATTR",
    "CODECS",
    "TEXT_CODE",
    "TYPE",
    "Codec",
    "DecodeProblem",
    "codec_for",
    "codec_for_code",
    "from_text",
    "text_of",
]

TYPE = 0
ATTR = 1
KIND_NAMES = {TYPE: "type", ATTR: "attribute"}


class DecodeProblem(Exception):
    """Raised by a codec's decoder with a sentence saying what is wrong with the entry's fields; the
    reader adds where (entry index, byte offset)."""


Encoder = Callable[[Any], list[Any]]
"""attribute -> field values (nested types/attributes as objects; the writer turns them into refs)."""
Decoder = Callable[[list[Any]], Attribute]
"""field values (references already resolved to objects, wire kinds checked) -> attribute."""


@dataclass(frozen=True)
class Codec:
    kind: int
    name: str
    """Table name (``tensor_v1``)."""
    code: int
    cls: type
    wire: tuple[str, ...]
    """Wire kind of each field (see the module docstring)."""
    bytecode: tuple[tuple[int, str], ...]
    """MLIR bytecode layout: (field index, bytecode kind) in upstream's writing order
    (``serialization/mlirbc/vhlo.py`` lists the kinds)."""
    record: Record
    encode: Encoder
    decode: Decoder

    @property
    def spec(self) -> specs.TypeSpec | specs.AttrSpec:
        return specs.type_spec(self.name) if self.kind == TYPE else specs.attr_spec(self.name)


_CODECS: list[Codec] = []


_ZERO: dict[str, Any] = {
    "T": None,
    "A": None,
    "A?": None,
    "Ts": (),
    "As": (),
    "i": 0,
    "is": (),
    "f": 0.0,
    "fs": (),
    "s": "",
    "b": b"",
    "?": False,
}
"""The default of an optional field, by wire kind (always a zero value)."""


Field3 = tuple[str, str, str | None]
"""A field of a type or attribute: its name, its wire kind (msgpack) and its MLIR bytecode kind
(None: not written as a field; the tensor type's encoding selects another code instead)."""


def _fields(wire: Sequence[Field3], optional: Sequence[str] = ()) -> Record:
    """Record of an entry's fields: all required unless named in ``optional`` (default nil / 0 /
    empty), all present since format 1."""
    out = []
    for name, kind, _ in wire:
        if name in optional:
            default: Any = _ZERO[kind]
            out.append(Field(name, default=default))
        else:
            out.append(Field(name, required=True))
    return Record("entry fields", tuple(out))


def _register(
    kind: int,
    name: str,
    cls: type,
    wire: Sequence[Field3],
    encode: Encoder,
    decode: Decoder,
    optional: Sequence[str] = (),
    bytecode_order: Sequence[int] | None = None,
) -> None:
    """One type or attribute: its fields (name, msgpack wire kind, MLIR bytecode kind) in
    upstream's order, and ``bytecode_order`` where upstream's bytecode writes them in another."""
    code = codes.type_code(name) if kind == TYPE else codes.attr_code(name)
    order = range(len(wire)) if bytecode_order is None else bytecode_order
    bytecode = tuple((i, bk) for i in order if (bk := wire[i][2]) is not None)
    _CODECS.append(
        Codec(
            kind,
            name,
            code,
            cls,
            tuple(k for _, k, _ in wire),
            bytecode,
            _fields(wire, optional),
            encode,
            decode,
        )
    )


# --------------------------------------------------------------------------------------------
# Types


def _simple_decoder(inst: Attribute) -> Decoder:
    return lambda _f: inst


for _name, _cls in vt.SIMPLE_CLASSES.items():
    _register(TYPE, _name, _cls, (), lambda _t: [], _simple_decoder(vt.SIMPLE[_name]))


def _check_shape(shape: Sequence[int], what: str) -> tuple[int, ...]:
    for d in shape:
        if d < -1:
            raise DecodeProblem(f"{what} has dimension size {d}; sizes are >= 0, or -1 for '?'")
    return tuple(shape)


def _dec_tensor_type(f: list[Any]) -> Attribute:
    shape, elem, enc = f
    if enc is not None and not isinstance(enc, va.TypeExtensionsV1Attr):
        raise DecodeProblem(
            f"the encoding of a tensor type must be #vhlo.type_extensions_v1, not {enc.name}"
        )
    return vt.tensor_type(_check_shape(shape, "a tensor type"), elem, enc)


_register(
    TYPE,
    "tensor_v1",
    vt.TensorV1Type,
    (("shape", "is", "dims"), ("elementType", "T", "T"), ("encoding", "A?", None)),
    lambda t: [list(t.shape), t.element_type, t.encoding],
    _dec_tensor_type,
    optional=("encoding",),
)
_register(
    TYPE,
    "buffer_v1",
    vt.BufferV1Type,
    (("shape", "is", "dims"), ("elementType", "T", "T")),
    lambda t: [list(t.shape), t.element_type],
    lambda f: vt.BufferV1Type((_check_shape(f[0], "a buffer type"), f[1])),
)


def _one_decoder(cls: type) -> Decoder:
    return lambda f: cls(f[0])


def _list_decoder(cls: type) -> Decoder:
    return lambda f: cls(tuple(f[0]))


for _name, _cls in (
    ("complex_v1", vt.ComplexV1Type),
    ("unranked_tensor_v1", vt.UnrankedTensorV1Type),
):
    _register(
        TYPE,
        _name,
        _cls,
        (("elementType", "T", "T"),),
        lambda t: [t.element_type],
        _one_decoder(_cls),
    )
for _name, _cls in (("tuple_v1", vt.TupleV1Type), ("future_v1", vt.FutureV1Type)):
    _register(
        TYPE,
        _name,
        _cls,
        (("types", "Ts", "Ts"),),
        lambda t: [list(t.types)],
        _list_decoder(_cls),
        optional=("types",),
    )
_register(
    TYPE,
    "func_v1",
    vt.FuncV1Type,
    (("inputs", "Ts", "Ts"), ("outputs", "Ts", "Ts")),
    lambda t: [list(t.inputs), list(t.outputs)],
    lambda f: vt.func_type(f[0], f[1]),
    optional=("inputs", "outputs"),
)


def _check_quant(flags: int, lo: int, hi: int) -> None:
    if flags not in (0, 1):
        raise DecodeProblem(f"quantized type flags must be 0 or 1, not {flags}")
    if lo > hi:
        raise DecodeProblem(f"quantized type storage range {lo}:{hi} is empty")


def _dec_quant(f: list[Any]) -> Attribute:
    flags, storage, expressed, scale, zp, lo, hi = f
    _check_quant(flags, lo, hi)
    return vt.QuantV1Type(vt.QuantParams(flags, storage, expressed, (scale,), (zp,), lo, hi))


def _quant_wire(*middle: Field3) -> tuple[Field3, ...]:
    """The fields of a quantized type: flags, storage and expressed types, ``middle`` (the
    per-tensor or per-axis parameters), the storage range."""
    return (
        ("flags", "i", "v"),
        ("storageType", "T", "T"),
        ("expressedType", "T", "T"),
        *middle,
        ("storageTypeMin", "i", "s"),
        ("storageTypeMax", "i", "s"),
    )


def _enc_quant(p: vt.QuantParams, *middle: Any) -> list[Any]:
    return [p.flags, p.storage_type, p.expressed_type, *middle, p.storage_min, p.storage_max]


_register(
    TYPE,
    "quant_v1",
    vt.QuantV1Type,
    _quant_wire(("scale", "f", "f64"), ("zeroPoint", "i", "s")),
    lambda t: _enc_quant(t.params, t.params.scales[0], t.params.zero_points[0]),
    _dec_quant,
)


def _dec_quant_axis(f: list[Any]) -> Attribute:
    flags, storage, expressed, dim, scales, zps, lo, hi = f
    _check_quant(flags, lo, hi)
    if len(scales) != len(zps):
        raise DecodeProblem(
            f"per-axis quantized type has {len(scales)} scales but {len(zps)} zero points"
        )
    if dim < 0:
        raise DecodeProblem(f"per-axis quantized type has quantized dimension {dim}")
    return vt.QuantPerAxisV1Type(
        vt.QuantParams(flags, storage, expressed, tuple(scales), tuple(zps), lo, hi, dim)
    )


_register(
    TYPE,
    "quant_per_axis_v1",
    vt.QuantPerAxisV1Type,
    _quant_wire(
        ("quantizedDimension", "i", "v"), ("scales", "fs", "f64s"), ("zeroPoints", "is", "ss")
    ),
    lambda t: _enc_quant(
        t.params, t.params.quantized_dimension, list(t.params.scales), list(t.params.zero_points)
    ),
    _dec_quant_axis,
    bytecode_order=(0, 1, 2, 3, 6, 7, 4, 5),  # upstream writes the storage range before the scales
)


# --------------------------------------------------------------------------------------------
# Attributes


def _enum_decoder(cls: type[va.VhloEnumAttr]) -> Decoder:
    def decode(f: list[Any]) -> Attribute:
        try:
            return cls.from_value(f[0])
        except ValueError:
            cases = ", ".join(f"{n}={v}" for n, v in cls.VALUES.items())
            raise DecodeProblem(
                f"{f[0]} is not a value of #vhlo<{cls.SPEC_NAME}> ({cases})"
            ) from None

    return decode


for _name, _ecls in va.ENUM_CLASSES.items():
    _register(ATTR, _name, _ecls, (("value", "i", "v"),), lambda a: [a.value], _enum_decoder(_ecls))

_register(
    ATTR,
    "array_v1",
    va.ArrayV1Attr,
    (("value", "As", "As"),),
    lambda a: [list(a.value)],
    lambda f: va.array(f[0]),
    optional=("value",),
)
_register(
    ATTR,
    "bool_v1",
    va.BooleanV1Attr,
    (("value", "?", "bool"),),
    lambda a: [bool(a.value)],
    lambda f: va.boolean(f[0]),
)


def _dec_dict(f: list[Any]) -> Attribute:
    flat = f[0]
    if len(flat) % 2:
        raise DecodeProblem(f"a dictionary lists {len(flat)} keys and values; they come in pairs")
    return va.dictionary([(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)])


_register(
    ATTR,
    "dict_v1",
    va.DictionaryV1Attr,
    (("value", "As", "pairs"),),
    lambda a: [[x for kv in a.value for x in kv]],
    _dec_dict,
    optional=("value",),
)

_FLOAT_TYPES = frozenset(
    n for n in vt.SIMPLE if n.startswith(("f", "bf", "tf")) and n not in ("future_v1",)
)
_INT_TYPES: dict[str, tuple[int, int]] = {}
for _w in (2, 4, 8, 16, 32, 64):
    _INT_TYPES[f"i{_w}_v1"] = (-(1 << (_w - 1)), (1 << _w) - 1)  # signless: either reading
    _INT_TYPES[f"ui{_w}_v1"] = (0, (1 << _w) - 1)
_INT_TYPES["bool_v1"] = (0, 1)
_INT_TYPES["index_v1"] = (-(1 << 63), (1 << 64) - 1)


def _simple_name(t: Attribute) -> str | None:
    return t.SPEC_NAME if isinstance(t, vt.SimpleVhloType) else None  # type: ignore[attr-defined]


def _dec_integer(f: list[Any]) -> Attribute:
    t, value = f
    name = _simple_name(t)
    bounds = _INT_TYPES.get(name or "")
    if bounds is None:
        raise DecodeProblem(
            f"the type of #vhlo.integer_v1 must be an integer type, not {t.mlir_text()}"
        )
    if not bounds[0] <= value <= bounds[1]:
        raise DecodeProblem(f"integer {value} does not fit {t.mlir_text()}")
    return va.integer(value, t)


_register(
    ATTR,
    "integer_v1",
    va.IntegerV1Attr,
    (("type", "T", "T"), ("value", "i", "int@0")),
    lambda a: [a.type, int(a.value)],
    _dec_integer,
)


def _dec_float(f: list[Any]) -> Attribute:
    t, value = f
    if _simple_name(t) not in _FLOAT_TYPES:
        raise DecodeProblem(f"the type of #vhlo.float_v1 must be a float type, not {t.mlir_text()}")
    return va.FloatV1Attr((t, value))


_register(
    ATTR,
    "float_v1",
    va.FloatV1Attr,
    (("type", "T", "T"), ("value", "f", "float@0")),
    lambda a: [a.type, float(a.value)],
    _dec_float,
)
_register(
    ATTR,
    "string_v1",
    va.StringV1Attr,
    (("value", "s", "str"),),
    lambda a: [a.value],
    lambda f: va.string(f[0]),
    optional=("value",),
)
_register(
    ATTR,
    "type_v1",
    va.TypeV1Attr,
    (("value", "T", "T"),),
    lambda a: [a.value],
    lambda f: va.TypeV1Attr(f[0]),
)
_register(
    ATTR,
    "type_extensions_v1",
    va.TypeExtensionsV1Attr,
    (("bounds", "is", "dims"),),
    lambda a: [list(a.bounds)],
    lambda f: va.TypeExtensionsV1Attr(_check_shape(f[0], "a bounds list")),
    optional=("bounds",),
)


def _dec_alias(f: list[Any]) -> Attribute:
    out, idx, opnd = f
    if idx < 0 or any(i < 0 for i in (*out, *opnd)):
        raise DecodeProblem("output_operand_alias indices must be non-negative")
    return va.OutputOperandAliasV1Attr((tuple(out), idx, tuple(opnd)))


_register(
    ATTR,
    "output_operand_alias_v1",
    va.OutputOperandAliasV1Attr,
    (
        ("outputTupleIndices", "is", "ss"),
        ("operandIndex", "i", "s"),
        ("operandTupleIndices", "is", "ss"),
    ),
    lambda a: [list(a.data[0]), a.data[1], list(a.data[2])],
    _dec_alias,
    optional=("outputTupleIndices", "operandIndex", "operandTupleIndices"),
)


def _dec_accuracy(f: list[Any]) -> Attribute:
    atol, rtol, ulps, mode = f
    if not isinstance(mode, va.ENUM_CLASSES["result_accuracy_mode_v1"]):
        raise DecodeProblem(
            f"result_accuracy mode must be #vhlo<result_accuracy_mode_v1>, not {mode.name}"
        )
    return va.ResultAccuracyV1Attr((atol, rtol, ulps, mode))


_register(
    ATTR,
    "result_accuracy_v1",
    va.ResultAccuracyV1Attr,
    (("atol", "f", "f64"), ("rtol", "f", "f64"), ("ulps", "i", "s"), ("mode", "A", "A")),
    lambda a: [float(a.data[0]), float(a.data[1]), int(a.data[2]), a.data[3]],
    _dec_accuracy,
)


def _plain_codec(cls: type, fields: Sequence[Field3]) -> tuple[Encoder, Decoder]:
    """Encoder and decoder of an attribute whose fields are its ``data`` tuple as they are."""
    convert = [_PLAIN_CONVERT.get(wk) for _, wk, _ in fields]

    def encode(a: Any) -> list[Any]:
        return [x if c is None else c(x) for c, x in zip(convert, a.data)]

    return encode, lambda f: cls(tuple(f))


_PLAIN_CONVERT: dict[str, Callable[[Any], Any]] = {"i": int, "f": float}

# Sharding attributes (name, class, fields, optional fields): nothing to check beyond the wire kinds.
_PLAIN_ATTRS: tuple[tuple[str, type, tuple[Field3, ...], tuple[str, ...]], ...] = (
    ("sub_axis_info_v1", va.SubAxisInfoV1Attr, (("pre_size", "i", "s"), ("size", "i", "s")), ()),
    (
        "axis_ref_v1",
        va.AxisRefV1Attr,
        (("name", "A", "A"), ("sub_axis_info", "A?", "hasA")),
        ("sub_axis_info",),
    ),
    (
        "replica_group_mesh_axes_v1",
        va.ReplicaGroupMeshAxesV1Attr,
        (("mesh", "A", "A"), ("axes", "A", "A")),
        (),
    ),
    ("mesh_axis_v1", va.MeshAxisV1Attr, (("name", "A", "A"), ("size", "i", "s")), ()),
    (
        "mesh_v1",
        va.MeshV1Attr,
        (("axes", "A", "A"), ("device_ids", "A?", "oA")),
        ("device_ids",),
    ),
)
for _name, _pcls, _pfields, _optional in _PLAIN_ATTRS:
    _register(ATTR, _name, _pcls, _pfields, *_plain_codec(_pcls, _pfields), optional=_optional)


# -- tensor_v1: dense data as raw bytes


SUBBYTE_INT_BITS = {"i2_v1": 2, "i4_v1": 4, "ui2_v1": 2, "ui4_v1": 4}
"""Integer element types narrower than their one-byte storage: the toolkit (and this format)
sign-extends the signed ones; MLIR's raw data holds only their bits (mlirbc/vhlo.py converts)."""
_SUBBYTE_FLOAT_BITS = {"f4E2M1FN_v1": 4, "f6E2M3FN_v1": 6, "f6E3M2FN_v1": 6}


def _dec_tensor(f: list[Any]) -> Attribute:
    from stablehlo_py.vhlo.convert import to_builtin_type
    from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr

    from stablehlo_py.ir.types import storage_dtype

    t, raw = f
    if not isinstance(t, vt.TensorV1Type):
        raise DecodeProblem(
            f"the type of #vhlo.tensor_v1 must be a tensor type, not {t.mlir_text()}"
        )
    if any(d < 0 for d in t.shape):
        raise DecodeProblem(f"the type of #vhlo.tensor_v1 must be static, not {t.mlir_text()}")
    try:
        builtin = to_builtin_type(t)
        dtype = storage_dtype(builtin.element_type)  # type: ignore[attr-defined]
    except Exception as e:  # noqa: BLE001 - any type without dense storage
        raise DecodeProblem(f"{t.mlir_text()} cannot hold dense data ({e})") from None
    n = 1
    for d in t.shape:
        n *= d
    size = dtype.itemsize
    if n == 0:
        ok = len(raw) in (0, size)  # an empty tensor may keep a splat value (MLIR does)
    else:
        ok = len(raw) == size * n or (len(raw) == size and n != 1)
    if not ok:
        expected = "0 bytes" if n == 0 else f"{size * n} bytes (or {size} for a splat)"
        raise DecodeProblem(
            f"dense data of {t.mlir_text()} has {len(raw)} bytes, expected {expected}"
        )
    _check_storage(raw, dtype, _simple_name(t.element_type) or "")
    return va.TensorV1Attr((t, DenseIntOrFPElementsAttr(builtin, BytesAttr(raw))))  # type: ignore[arg-type]


def _check_storage(raw: bytes, dtype: np.dtype, elem: str) -> None:
    """Bytes that the in-memory form never holds (a bool other than 0/1, an i4 outside -8..7, an f4
    with high bits set) would print as something else and re-serialize differently: refuse them."""
    if not raw:
        return
    if elem == "bool_v1":
        if np.frombuffer(raw, np.uint8).max() > 1:
            raise DecodeProblem("dense data of an i1 tensor holds a byte other than 0 or 1")
        return
    bits = SUBBYTE_INT_BITS.get(elem)
    if bits is not None:
        values = np.frombuffer(raw, dtype)
        lo, hi = (
            (0, (1 << bits) - 1)
            if elem.startswith("u")
            else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        )
        if values.min() < lo or values.max() > hi:
            raise DecodeProblem(
                f"dense data of a {elem[:-3]} tensor holds values outside {lo}..{hi}"
            )
        return
    bits = _SUBBYTE_FLOAT_BITS.get(elem)
    if bits is not None and np.frombuffer(raw, np.uint8).max() >= (1 << bits):
        raise DecodeProblem(
            f"dense data of a {elem[:-3]} tensor holds bytes wider than {bits} bits"
        )


_register(
    ATTR,
    "tensor_v1",
    va.TensorV1Attr,
    (("type", "T", "T"), ("data", "b", "dense@0")),
    lambda a: [a.type, a.raw_data],
    _dec_tensor,
)


# --------------------------------------------------------------------------------------------
# Lookup tables

CODECS: tuple[Codec, ...] = tuple(_CODECS)
_BY_CLASS: dict[type, Codec] = {c.cls: c for c in CODECS}
_BY_CODE: dict[tuple[int, int], Codec] = {(c.kind, c.code): c for c in CODECS}


def codec_for(a: Attribute) -> Codec | None:
    """The codec of a VHLO type or attribute, or None when ``a`` is not one."""
    return _BY_CLASS.get(type(a))


def codec_for_code(kind: int, code: int) -> Codec | None:
    return _BY_CODE.get((kind, code))


TEXT_CODE = -1
"""The code of a text entry: a type or attribute that is not VHLO (another dialect's, or a builtin
one that VHLO does not cover), as its MLIR text (``allow_other_dialects``)."""


def text_of(a: Attribute, kind: int) -> str:
    """The MLIR text a text entry stores for ``a`` (a type, or an attribute)."""
    from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

    return type_to_str(a) if kind == TYPE else attr_to_str(a)


def from_text(text: str, kind: int) -> Attribute:
    """A text entry's type or attribute, parsed as the text parser reads it (DecodeProblem when the
    text is not one)."""
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    what = KIND_NAMES[kind]
    try:
        p = Parser(text, default_registry(), "<artifact>")
        a = p.parse_type() if kind == TYPE else p.parse_attribute()
        p.ws()
        if p.pos != len(text):
            raise DecodeProblem(f"trailing text after the {what} in '{text}'")
    except StableHLOError as e:
        raise DecodeProblem(f"the {what} text '{text}' cannot be parsed: {e.message}") from None
    except DecodeProblem:
        raise
    except Exception as e:  # noqa: BLE001 - the text parser on arbitrary input
        raise DecodeProblem(f"the {what} text '{text}' cannot be parsed ({e})") from None
    return a


_PACK_D = struct.Struct("<d").pack


def float_key(value: float) -> bytes:
    """Hashable identity of a float for deduplication: its bits (0.0 and -0.0 differ, NaN == NaN)."""
    return _PACK_D(value)
