"""The VHLO dialect's bytecode encodings (upstream's ``VhloBytecode.cpp``), both directions.

Each VHLO type and attribute has one codec in ``serialization/entries.py`` (shared with the msgpack
format): ``encode`` gives its field values in upstream's order, ``decode`` checks them and builds
the object, and each field says its msgpack wire kind and its MLIR bytecode kind there, in one row
(``Codec.bytecode``: the layout), so a new VHLO type or attribute is added in one place.  This
module writes and reads the bytecode kinds.

Bytecode kinds (``Codec.bytecode`` lists ``(field index, kind)`` in bytecode order):

=========== ================================================================================
``T``/``A`` a type / attribute reference
``oA``      optional attribute: 0, or (index << 1) | 1           (``writeOptionalAttribute``)
``hasA``    varint 0, or varint 1 then the attribute             (axis_ref's sub_axis_info)
``Ts``/``As`` a list of references (count, then references)
``v``/``s`` varint / signed varint;  ``ss`` a list of signed varints
``bool``    varint 0 or 1
``str``     a string reference
``f64``/``f64s`` an f64 APFloat (as a 64-bit APInt) / a list of them
``int@0``   an APInt whose width is given by the integer type in field 0
``float@0`` an APFloat whose semantics are given by the float type in field 0
``dense@0`` dense data of the tensor type in field 0 (blob; i1 bit-packed LSB first, a true
            splat is ``ff``: upstream's ``writeVhloTensorV1Attr``)
``pairs``   a flat [key, value, ...] list written as count, then key/value references
=========== ================================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.serialization import entries as codecs
from stablehlo_py.serialization.entries import ATTR, TYPE, DecodeProblem
from stablehlo_py.serialization.mlirbc.builtin import (
    DecodeContext,
    NotEncodable,
    attr_entry,
    float_bits,
    float_width,
)
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.model import Entry, Interner
from stablehlo_py.vhlo import types as vt

from stablehlo_py.ir.types import MLIR_DYNAMIC

__all__ = ["decode", "entry"]

V = "vhlo"

TENSOR_WITH_ENCODING = 21

# what MLIR writes for a `?` dimension or bound (the toolkit's VHLO uses -1)
_DYNAMIC = MLIR_DYNAMIC


def _int_width(t: Any) -> int:
    name = getattr(t, "SPEC_NAME", "")
    if name == "index_v1":
        return 64
    digits = name.removeprefix("u").removeprefix("i").removesuffix("_v1")
    if name.startswith(("i", "ui")) and digits.isdigit() and int(digits) >= 4:
        return int(digits)
    raise NotEncodable(
        f"#vhlo.integer_v1 of type {t.mlir_text()} cannot be written as MLIR bytecode "
        "(upstream's writer supports 4- to 64-bit integers and index)"
    )


def _float_name(t: Any) -> str:
    from stablehlo_py.vhlo.convert import to_builtin_type

    from stablehlo_py.ir.types import FLOAT_NAME

    name = FLOAT_NAME.get(type(to_builtin_type(t)))
    if name is None:
        raise NotEncodable(f"{t.mlir_text()} is not a float type")
    return name


def _pack_bool(raw: bytes, n: int) -> bytes:
    if len(raw) == 1 and n > 1:  # splat
        return b"\xff" if raw[0] else b"\x00"
    return np.packbits(np.frombuffer(raw, np.uint8).astype(bool), bitorder="little").tobytes()


def _sub_byte_width(t: Any) -> int | None:
    """The width of a tensor's i2/i4/ui2/ui4 elements, else None."""
    name = getattr(t.element_type, "SPEC_NAME", None)
    return codecs.SUBBYTE_INT_BITS.get(name) if isinstance(name, str) else None


def _sub_byte_bits(t: Any, raw: bytes) -> bytes:
    """MLIR's raw data of i2/i4 (and ui2/ui4) elements: each byte holds the element's bits only
    (``dense<-2> : tensor<i2>`` is ``02``, not the toolkit's sign-extended ``fe``)."""
    width = _sub_byte_width(t)
    if width is None or not raw:
        return raw
    return (np.frombuffer(raw, np.uint8) & ((1 << width) - 1)).tobytes()


def _sign_extended(t: Any, blob: bytes) -> bytes:
    """The toolkit's storage of MLIR's raw i2/i4 data (signed elements sign-extended); bytes with
    bits above the width are left for the decoder's range check to refuse."""
    width = _sub_byte_width(t)
    if width is None or not blob or t.element_type.SPEC_NAME.startswith("u"):
        return blob
    v = np.frombuffer(blob, np.uint8)
    if (v >> width).any():
        return blob
    sign = 1 << (width - 1)
    return ((v.astype(np.int16) ^ sign) - sign).astype(np.int8).tobytes()


def _splat(raw: bytes, size: int) -> bytes:
    """MLIR stores a uniform tensor as a splat (one element).  (Counting the first element's
    non-overlapping occurrences finds a uniform tensor without building a copy to compare.)"""
    n, rest = divmod(len(raw), size)
    if n > 1 and not rest and raw.count(raw[:size]) == n:
        return raw[:size]
    return raw


def _itemsize(t: Any) -> int:
    from stablehlo_py.vhlo.convert import to_builtin_type

    from stablehlo_py.ir.types import storage_dtype

    return storage_dtype(to_builtin_type(t).element_type).itemsize


def entry(it: Interner, a: Any) -> Entry:
    """The entry of a VHLO type or attribute (NotEncodable if ``a`` is neither)."""
    got = it.memo.get(a)
    if got is not None:
        return got
    codec = codecs.codec_for(a)
    if codec is None:
        if it.fallback is not None:  # another dialect's attribute inside a VHLO one
            # (allow-other-dialects: `#sdy.sharding` in arg_attrs, a builtin `array<i32: ...>` in
            # composite_attributes): a builtin one in the builtin dialect's encoding, as MLIR's
            # writer does; others through the fallback
            return attr_entry(it, a)
        raise NotEncodable(f"{a.name} is not a VHLO type or attribute")
    values = codec.encode(a)
    items: list[tuple[str, Any]] = []
    code = codec.code
    layout = codec.bytecode
    if codec.kind == TYPE and codec.name == "tensor_v1" and values[2] is not None:
        code = TENSOR_WITH_ENCODING
        items.append(("A", entry(it, values[2])))
    for i, kind in layout:
        v = values[i]
        if kind == "T" or kind == "A":
            items.append((kind, entry(it, v)))
        elif kind == "oA":
            items.append(("oA", None if v is None else entry(it, v)))
        elif kind == "hasA":
            if v is None:
                items.append(("v", 0))
            else:
                items.append(("v", 1))
                items.append(("A", entry(it, v)))
        elif kind == "Ts" or kind == "As":
            items.append(("v", len(v)))
            k = kind[0]
            items.extend((k, entry(it, x)) for x in v)
        elif kind == "pairs":
            items.append(("v", len(v) // 2))
            items.extend(("A", entry(it, x)) for x in v)
        elif kind == "v" or kind == "s":
            items.append((kind, int(v)))
        elif kind == "bool":
            items.append(("v", 1 if v else 0))
        elif kind == "ss":
            items.append(("v", len(v)))
            items.extend(("s", int(x)) for x in v)
        elif kind == "dims":  # the toolkit's -1 for `?` is MLIR's kDynamic on the wire
            items.append(("v", len(v)))
            items.extend(("s", _DYNAMIC if int(x) == -1 else int(x)) for x in v)
        elif kind == "str":
            items.append(("str", v.encode("utf-8", "surrogateescape")))
        elif kind == "f64":
            items.append(("ap", (64, float_bits(v, "f64"))))
        elif kind == "f64s":
            items.append(("v", len(v)))
            items.extend(("ap", (64, float_bits(x, "f64"))) for x in v)
        elif kind == "int@0":
            items.append(("ap", (_int_width(values[0]), int(v))))
        elif kind == "float@0":
            name = _float_name(values[0])
            items.append(("ap", (float_width(name), float_bits(v, name))))
        elif kind == "dense@0":
            t = values[0]
            raw = bytes(v)
            n = 1
            for d in t.shape:
                n *= d
            if t.element_type == vt.BOOL:
                raw = _pack_bool(_splat(raw, 1), n)
            else:
                raw = _sub_byte_bits(t, raw)
                if n > 1:
                    raw = _splat(raw, _itemsize(t))
            items.append(("blob", raw))
        else:  # pragma: no cover - the layout table is checked by the tests
            raise AssertionError(kind)
    e = it.get(V, codec.kind == TYPE, (("v", code), *items))
    it.memo[a] = e
    return e


# ---------------------------------------------------------------------------------------------
# Reader side


def _read_field(r: Reader, ctx: DecodeContext, kind: str, fields: list[Any], pos: int) -> Any:
    if kind == "T":
        return _typed(ctx.read_type(r), TYPE, pos)
    if kind == "A":
        return _typed(ctx.read_attr(r), ATTR, pos)
    if kind == "oA":
        v = r.varint()
        if not v & 1:
            if v:
                raise BytecodeError(f"invalid optional attribute reference {v}", pos)
            return None
        return _typed(ctx.attr(v >> 1), ATTR, pos)
    if kind == "hasA":
        flag = r.varint()
        if flag > 1:
            raise BytecodeError(f"presence flag must be 0 or 1, found {flag}", pos)
        return _typed(ctx.read_attr(r), ATTR, pos) if flag else None
    if kind == "Ts":
        return [_typed(ctx.read_type(r), TYPE, pos) for _ in range(r.count(1, "types"))]
    if kind == "As":
        return [_typed(ctx.read_attr(r), ATTR, pos) for _ in range(r.count(1, "attributes"))]
    if kind == "pairs":
        n = r.count(2, "dictionary entries")
        return [_typed(ctx.read_attr(r), ATTR, pos) for _ in range(2 * n)]
    if kind == "v":
        return r.varint()
    if kind == "s":
        return r.svarint()
    if kind == "bool":
        v = r.varint()
        if v > 1:
            raise BytecodeError(f"a boolean must be 0 or 1, found {v}", pos)
        return bool(v)
    if kind == "ss":
        return [r.svarint() for _ in range(r.count(1, "integers"))]
    if kind == "dims":
        dims = [r.svarint() for _ in range(r.count(1, "integers"))]
        for d in dims:
            if d < 0 and d != _DYNAMIC:
                raise BytecodeError(
                    f"invalid dimension size {d} (sizes are >= 0, or kDynamic for '?')", pos
                )
        return [-1 if d == _DYNAMIC else d for d in dims]
    if kind == "str":
        return ctx.read_str(r)
    if kind == "f64":
        return _f64(r.apint(64))
    if kind == "f64s":
        return [_f64(r.apint(64)) for _ in range(r.count(1, "floats"))]
    if kind == "int@0":
        t = fields[0]
        try:
            width = _int_width(t)
        except NotEncodable as e:
            raise BytecodeError(str(e), pos) from None
        v = r.apint(width)
        if not t.SPEC_NAME.startswith("u") and v >> (width - 1):
            v -= 1 << width
        return v
    if kind == "float@0":
        try:
            name = _float_name(fields[0])
        except NotEncodable as e:
            raise BytecodeError(str(e), pos) from None
        from stablehlo_py.ir.types import FLOAT_TYPES, storage_dtype

        dtype = storage_dtype(FLOAT_TYPES[name])
        bits = r.apint(float_width(name))
        return float(np.frombuffer(bits.to_bytes(dtype.itemsize, "little"), dtype)[0])
    if kind == "dense@0":
        t = fields[0]
        blob = r.bytes(r.varint())
        if isinstance(t, vt.TensorV1Type) and t.element_type == vt.BOOL:
            blob = _unpack_bool(blob, t)
        elif isinstance(t, vt.TensorV1Type):
            blob = _sign_extended(t, blob)
        return blob
    raise AssertionError(kind)  # pragma: no cover


def _unpack_bool(blob: bytes, t: vt.TensorV1Type) -> bytes:
    n = 1
    for d in t.shape:
        n *= max(d, 0)
    if len(blob) == 1 and blob[0] == 0xFF:
        return b"\x01"
    if len(blob) == (n + 7) // 8 and len(blob) != n:
        bits = np.unpackbits(np.frombuffer(blob, np.uint8), bitorder="little")[:n]
        blob = bits.astype(np.uint8).tobytes()
    if n > 1 and len(blob) == n and blob.count(blob[:1]) == n:
        return blob[:1]  # uniform: a splat, as MLIR keeps it (`dense<false>` reads back as written)
    return blob  # unpacked (written by builds of March 2026) or a splat of 0/1


def _f64(bits: int) -> float:
    return float(np.frombuffer(bits.to_bytes(8, "little"), np.float64)[0])


def _is_other_dialect(obj: Any, kind: int) -> bool:
    """An attribute of another dialect inside a VHLO one, kept as it is: upstream's VHLO-to-StableHLO
    conversion allows other dialects (`VhloTypeConverter(allowOtherDialects=true)`, whose
    `convertUnknownAttribute` returns the attribute unchanged).  JAX's `sdy.sharding` argument
    attributes (read as their text) are in the function's VHLO dictionaries, and jaxlib 0.12 writes
    a GPU `cumsum`'s `chlo.scan` composite with builtin `array<i32: 1, 1>` segment sizes in its
    `composite_attributes`.  A type or a location is never one."""
    from xdsl.ir import Attribute

    return kind == ATTR and isinstance(obj, Attribute)  # (a location is no xDSL Attribute here)


def _typed(obj: Any, kind: int, pos: int) -> Any:
    from xdsl.ir import Attribute, TypeAttribute

    is_type = isinstance(obj, TypeAttribute)
    if (kind == TYPE) != is_type:
        raise BytecodeError(
            f"expected a {'type' if kind == TYPE else 'attribute'} reference, found "
            f"{'a type' if is_type else 'an attribute'}",
            pos,
        )
    if codecs.codec_for(obj) is None and not _is_other_dialect(obj, kind):
        # a builtin value or a location inside a VHLO one
        found = (
            "a location"
            if not is_type and not isinstance(obj, Attribute)
            else f"builtin {obj.name}"
        )
        raise BytecodeError(
            f"expected a VHLO {'type' if kind == TYPE else 'attribute'} reference, found {found}",
            pos,
        )
    return obj


def decode(r: Reader, ctx: DecodeContext, is_type: bool) -> Any:
    pos = r.pos
    code = r.varint()
    kind = TYPE if is_type else ATTR
    encoding = None
    if is_type and code == TENSOR_WITH_ENCODING:
        encoding = _typed(ctx.read_attr(r), ATTR, pos)
        code = codecs.codec_for_code(TYPE, 20).code  # type: ignore[union-attr]
    codec = codecs.codec_for_code(kind, code)
    if codec is None:
        what = "type" if is_type else "attribute"
        raise BytecodeError(f"unknown VHLO {what} code {code} (written by a newer StableHLO?)", pos)
    layout = codec.bytecode
    fields: list[Any] = [None] * len(codec.wire)
    for i, k in layout:
        fields[i] = _read_field(r, ctx, k, fields, pos)
    if codec.name == "tensor_v1" and is_type:
        fields[2] = encoding
    try:
        return codec.decode(fields)
    except DecodeProblem as e:
        raise BytecodeError(f"invalid vhlo.{codec.name}: {e}", pos) from None
