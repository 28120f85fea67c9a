"""The builtin dialect's bytecode encodings (MLIR's ``BuiltinDialectBytecode.td``), both directions.

Writer side: ``attr_entry`` / ``type_entry`` / ``location_entry`` turn the toolkit's builtin
attributes, types and location texts into interned :class:`~.model.Entry` values.  Reader side:
``decode_attr`` / ``decode_type`` turn an entry's bytes back into xDSL builtin attributes, types and
:class:`Loc` (a location as MLIR prints it).

Kind codes (``kArrayAttr = 0`` ...) are MLIR's and never change; the float type codes after 20 were
appended by later MLIR releases (checked against jaxlib's writer).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.model import Entry, Interner, counted
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    NoneType,
    Signedness,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    TupleType,
    TypeAttribute,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.types import FLOAT_NAME, FLOAT_TYPES, MLIR_DYNAMIC, storage_dtype

__all__ = [
    "FLOAT_TYPE_CODES",
    "Loc",
    "attr_entry",
    "decode_attr",
    "decode_type",
    "location_entry",
    "string_entry",
    "type_entry",
]

B = "builtin"

# attribute codes
ARRAY, DICT, STRING, STRING_TYPED, FLAT_SYMREF, SYMREF, TYPE_ATTR, UNIT = range(8)
INTEGER, FLOAT, CALLSITE, FILE_LINE_COL, FUSED, FUSED_META, NAME_LOC, UNKNOWN_LOC = range(8, 16)
DENSE_RESOURCE, DENSE_ARRAY, DENSE, DENSE_STRING, SPARSE, DISTINCT, FILE_RANGE = range(16, 23)

# type codes
T_INT, T_INDEX, T_FUNC = 0, 1, 2
T_COMPLEX, T_NONE, T_TENSOR, T_TENSOR_ENC, T_TUPLE, T_UNRANKED = 9, 12, 13, 14, 15, 18
FLOAT_TYPE_CODES: dict[str, int] = {
    "bf16": 3,
    "f16": 4,
    "f32": 5,
    "f64": 6,
    "f80": 7,
    "f128": 8,
    "tf32": 21,
    "f8E5M2": 22,
    "f8E4M3": 23,
    "f8E4M3FN": 24,
    "f8E5M2FNUZ": 25,
    "f8E4M3FNUZ": 26,
    "f8E4M3B11FNUZ": 27,
    "f8E3M4": 28,
    "f4E2M1FN": 29,
    "f6E2M3FN": 30,
    "f6E3M2FN": 31,
    "f8E8M0FNU": 32,
}
_FLOAT_BY_CODE = {c: n for n, c in FLOAT_TYPE_CODES.items()}
_FLOAT_WIDTH = {
    "bf16": 16,
    "f16": 16,
    "f32": 32,
    "f64": 64,
    "tf32": 19,
    "f4E2M1FN": 4,
    "f6E2M3FN": 6,
    "f6E3M2FN": 6,
}
_SIGNEDNESS = {Signedness.SIGNLESS: 0, Signedness.SIGNED: 1, Signedness.UNSIGNED: 2}
_SIGNEDNESS_BACK = {v: k for k, v in _SIGNEDNESS.items()}


class NotEncodable(Exception):
    """An attribute or type this writer has no encoding for (the message says which)."""


_DYNAMIC = MLIR_DYNAMIC  # what MLIR writes for `?`


def float_width(name: str) -> int:
    return _FLOAT_WIDTH.get(name, 8)


# =============================================================================================
# Writer side


def string_entry(it: Interner, s: str | bytes) -> Entry:
    raw = s if isinstance(s, bytes) else s.encode("utf-8", "surrogateescape")
    return it.attr(B, ("v", STRING), ("str", raw))


def type_entry(it: Interner, t: Attribute) -> Entry:
    got = it.memo.get(t)
    return got if got is not None else it.remember(t, _type_entry(it, t))


def _type_entry(it: Interner, t: Attribute) -> Entry:
    if isinstance(t, IntegerType):
        return it.type(B, ("v", T_INT), ("v", t.width.data << 2 | _SIGNEDNESS[t.signedness.data]))
    name = FLOAT_NAME.get(type(t))
    if name is not None:
        return it.type(B, ("v", FLOAT_TYPE_CODES[name]))
    if isinstance(t, IndexType):
        return it.type(B, ("v", T_INDEX))
    if isinstance(t, NoneType):
        return it.type(B, ("v", T_NONE))
    if isinstance(t, ComplexType):
        return it.type(B, ("v", T_COMPLEX), ("T", type_entry(it, t.element_type)))
    if isinstance(t, TensorType):
        shape = tuple(("s", _DYNAMIC if d < 0 else d) for d in t.get_shape())
        elem = ("T", type_entry(it, t.element_type))
        enc = t.encoding
        if enc is None or isinstance(enc, (NoneType, NoneAttr)):
            return it.type(B, ("v", T_TENSOR), ("v", len(shape)), *shape, elem)
        return it.type(
            B, ("v", T_TENSOR_ENC), ("A", attr_entry(it, enc)), ("v", len(shape)), *shape, elem
        )
    if isinstance(t, UnrankedTensorType):
        return it.type(B, ("v", T_UNRANKED), ("T", type_entry(it, t.element_type)))
    if isinstance(t, FunctionType):
        ins = counted("T", [type_entry(it, x) for x in t.inputs])
        outs = counted("T", [type_entry(it, x) for x in t.outputs])
        return it.type(B, ("v", T_FUNC), *ins, *outs)
    if isinstance(t, TupleType):
        return it.type(B, ("v", T_TUPLE), *counted("T", [type_entry(it, x) for x in t.types]))
    if it.fallback is not None:
        return it.fallback(it, t)
    raise NotEncodable(f"type {_text(t)} has no MLIR bytecode encoding in this toolkit")


def _text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str, type_to_str

    try:
        return type_to_str(a) if isinstance(a, TypeAttribute) else attr_to_str(a)
    except Exception:  # noqa: BLE001 - only for a message
        return a.name


def float_bits(value: float, name: str) -> int:
    """The bit pattern of ``value`` in the float type ``name`` (as APFloat::bitcastToAPInt)."""
    dtype = storage_dtype(FLOAT_TYPES[name])
    arr = np.asarray(value, dtype=np.float64).astype(dtype)
    return int.from_bytes(arr.tobytes(), "little")


def attr_entry(it: Interner, a: Attribute) -> Entry:
    """The entry of a builtin attribute (dictionary keys, module attributes, dense data ...)."""
    # a type used as an attribute (TypeAttr) is the same object as the type: its own memo key
    key = ("A", a) if isinstance(a, TypeAttribute) else a
    got = it.memo.get(key)
    return got if got is not None else it.remember(key, _attr_entry(it, a))


def _attr_entry(it: Interner, a: Attribute) -> Entry:
    if isinstance(a, StringAttr):
        return string_entry(it, a.data)
    if isinstance(a, IntegerAttr):
        t = a.type
        if isinstance(t, IndexType):
            width = 64
        elif isinstance(t, IntegerType):
            width = t.width.data
        else:
            raise NotEncodable(f"integer attribute of type {_text(t)}")
        return it.attr(B, ("v", INTEGER), ("T", type_entry(it, t)), ("ap", (width, a.value.data)))
    if isinstance(a, FloatAttr):
        name = FLOAT_NAME.get(type(a.type))
        if name is None or name not in _FLOAT_WIDTH and not name.startswith("f8"):
            raise NotEncodable(f"float attribute of type {_text(a.type)}")
        bits = float_bits(a.value.data, name)
        return it.attr(
            B, ("v", FLOAT), ("T", type_entry(it, a.type)), ("ap", (float_width(name), bits))
        )
    if isinstance(a, UnitAttr):
        return it.attr(B, ("v", UNIT))
    if isinstance(a, ArrayAttr):
        return it.attr(B, ("v", ARRAY), *counted("A", [attr_entry(it, x) for x in a.data]))
    if isinstance(a, DictionaryAttr):
        return dictionary_entry(it, a.data.items())
    if isinstance(a, SymbolRefAttr):
        root = ("A", string_entry(it, a.root_reference.data))
        if not a.nested_references.data:
            return it.attr(B, ("v", FLAT_SYMREF), root)
        nested = [
            ("A", it.attr(B, ("v", FLAT_SYMREF), ("A", string_entry(it, n.data))))
            for n in a.nested_references.data
        ]
        return it.attr(B, ("v", SYMREF), root, ("v", len(nested)), *nested)
    if isinstance(a, TypeAttribute):
        return it.attr(B, ("v", TYPE_ATTR), ("T", type_entry(it, a)))
    if isinstance(a, DenseIntOrFPElementsAttr):
        return it.attr(B, ("v", DENSE), ("T", type_entry(it, a.type)), ("blob", dense_blob(a)))
    if isinstance(a, DenseArrayBase):
        n = len(a)
        raw = a.data.data
        if a.elt_type == _I1:  # xDSL keeps true as 0xFF; MLIR's bool storage is 0/1
            raw = bytes(1 if b else 0 for b in raw)
        return it.attr(
            B,
            ("v", DENSE_ARRAY),
            ("T", type_entry(it, a.elt_type)),
            ("v", n),
            ("blob", raw),
        )
    if it.fallback is not None and not isinstance(a, _BUILTIN_ATTRS):
        return it.fallback(it, a)
    raise NotEncodable(f"attribute {_text(a)} has no MLIR bytecode encoding in this toolkit")


_I1 = IntegerType(1)
_BUILTIN_ATTRS = (
    StringAttr,
    IntegerAttr,
    FloatAttr,
    UnitAttr,
    ArrayAttr,
    DictionaryAttr,
    SymbolRefAttr,
)


def dense_blob(a: DenseIntOrFPElementsAttr) -> bytes:
    """MLIR's raw data of a dense elements attribute (``DenseIntOrFPElementsAttr::getRawData``)
    from the toolkit's storage: a uniform tensor is a splat (one element); i1 is bit-packed LSB
    first, a splat being ``ff`` or ``00``; sub-byte integers hold their bits without sign extension.
    """
    t = a.type
    raw = a.data.data
    elem = t.element_type
    n = 1
    for d in t.get_shape():
        n *= d
    if elem == _I1:
        if len(raw) == 1:  # a splat, or a single element: one byte, all bits alike
            return b"\xff" if raw[0] else b"\x00"
        bits = np.frombuffer(raw, np.uint8) != 0
        if bits.size and (bits.all() or not bits.any()):
            return b"\xff" if bits[0] else b"\x00"
        return np.packbits(bits, bitorder="little").tobytes()
    if isinstance(elem, IntegerType) and elem.width.data < 8 and raw:
        mask = (1 << elem.width.data) - 1
        raw = (np.frombuffer(raw, np.uint8) & mask).tobytes()
    if n > 1:
        size = storage_dtype(elem).itemsize
        if len(raw) > size and raw == raw[:size] * (len(raw) // size):
            return raw[:size]
    return raw


def dictionary_entry(it: Interner, items: Any) -> Entry:
    """A builtin DictionaryAttr: entries sorted by name (MLIR keeps dictionaries sorted)."""
    pairs = sorted(((k if isinstance(k, str) else k.data), v) for k, v in items)
    flat: list[tuple[str, Any]] = [("v", DICT), ("v", len(pairs))]
    for k, v in pairs:
        flat.append(("A", string_entry(it, k)))
        flat.append(("A", v if isinstance(v, Entry) else attr_entry(it, v)))
    return it.attr(B, *flat)


# -- locations (the toolkit keeps them as MLIR text)

_INT = re.compile(r"[0-9]+")


class LocationSyntax(Exception):
    pass


def location_entry(it: Interner, text: str) -> Entry:
    """The entry of a location given as the text inside ``loc(...)``."""
    got = it.memo.get(("loc", text))
    if got is not None:
        return got
    if text == "unknown":
        e = it.attr(B, ("v", UNKNOWN_LOC))
    else:
        try:
            e, end = _loc(it, text, 0)
        except LocationSyntax as ex:
            raise NotEncodable(f"location 'loc({text})' cannot be encoded: {ex}") from None
        if end != len(text):
            raise NotEncodable(f"location 'loc({text})' cannot be encoded: trailing text")
    it.memo[("loc", text)] = e
    return e


def file_line_col_entry(it: Interner, file: str, line: int, col: int) -> Entry:
    return it.attr(B, ("v", FILE_LINE_COL), ("A", string_entry(it, file)), ("v", line), ("v", col))


def _string(text: str, pos: int) -> tuple[str, int]:
    from stablehlo_py.ir.text.parser import unescape

    if not text.startswith('"', pos):
        raise LocationSyntax(f"expected a string at offset {pos}")
    i = pos + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return unescape(text[pos + 1 : i]), i + 1
        i += 1
    raise LocationSyntax("unterminated string")


def _int(text: str, pos: int) -> tuple[int, int]:
    m = _INT.match(text, pos)
    if m is None:
        raise LocationSyntax(f"expected an integer at offset {pos}")
    return int(m.group(0)), m.end()


def _ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\n\r":
        pos += 1
    return pos


def _loc(it: Interner, text: str, pos: int) -> tuple[Entry, int]:
    pos = _ws(text, pos)
    if text.startswith('"', pos):
        s, pos = _string(text, pos)
        if text.startswith(":", pos):
            line, pos = _int(text, pos + 1)
            if not text.startswith(":", pos):
                # `"file":line` -- a range covering a whole line
                return _range(it, s, [line]), pos
            col, pos = _int(text, pos + 1)
            if not text.startswith(" to ", pos):
                return file_line_col_entry(it, s, line, col), pos
            pos += 4
            if text.startswith(":", pos):
                end_col, pos = _int(text, pos + 1)
                return _range(it, s, [line, col, end_col]), pos
            end_line, pos = _int(text, pos)
            if not text.startswith(":", pos):
                raise LocationSyntax("expected ':' in a location range")
            end_col, pos = _int(text, pos + 1)
            return _range(it, s, [line, col, end_line, end_col]), pos
        child = it.attr(B, ("v", UNKNOWN_LOC))
        if text.startswith("(", pos):
            child, pos = _loc(it, text, pos + 1)
            pos = _ws(text, pos)
            if not text.startswith(")", pos):
                raise LocationSyntax("expected ')' after a name location's child")
            pos += 1
        return it.attr(B, ("v", NAME_LOC), ("A", string_entry(it, s)), ("A", child)), pos
    if text.startswith("callsite(", pos):
        callee, pos = _loc(it, text, pos + 9)
        pos = _ws(text, pos)
        if not text.startswith("at", pos):
            raise LocationSyntax("expected 'at' in a callsite location")
        caller, pos = _loc(it, text, pos + 2)
        pos = _ws(text, pos)
        if not text.startswith(")", pos):
            raise LocationSyntax("expected ')' to close a callsite location")
        return it.attr(B, ("v", CALLSITE), ("A", callee), ("A", caller)), pos + 1
    if text.startswith("fused", pos):
        pos += 5
        meta = None
        if text.startswith("<", pos):
            from stablehlo_py.ir.dialects import default_registry
            from stablehlo_py.ir.text.parser import Parser

            depth, j = 0, pos
            while j < len(text):
                if text[j] == "<":
                    depth += 1
                elif text[j] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            try:
                meta = attr_entry(
                    it, Parser(text[pos + 1 : j], default_registry(), "<loc>").parse_attribute()
                )
            except NotEncodable:
                raise
            except Exception as e:  # noqa: BLE001 - reported as a location problem
                raise LocationSyntax(f"fused location metadata: {e}") from None
            pos = j + 1
        if not text.startswith("[", pos):
            raise LocationSyntax("expected '[' in a fused location")
        parts: list[Entry] = []
        pos = _ws(text, pos + 1)
        if not text.startswith("]", pos):
            while True:
                e, pos = _loc(it, text, pos)
                parts.append(e)
                pos = _ws(text, pos)
                if text.startswith(",", pos):
                    pos += 1
                    continue
                break
        if not text.startswith("]", pos):
            raise LocationSyntax("expected ']' to close a fused location")
        items = [("A", p) for p in parts]
        if meta is None:
            return it.attr(B, ("v", FUSED), ("v", len(items)), *items), pos + 1
        return it.attr(B, ("v", FUSED_META), ("v", len(items)), *items, ("A", meta)), pos + 1
    if text.startswith("unknown", pos):
        return it.attr(B, ("v", UNKNOWN_LOC)), pos + 7
    raise LocationSyntax(f"unexpected text at offset {pos}")


def _range(it: Interner, file: str, nums: list[int]) -> Entry:
    """FileLineColRange (code 22) as MLIR's writeFileLineColRangeLocs: a count, then 0 numbers
    (all zero), 1 (line, when the start column is 0 on one line: the end column is dropped), 2
    (line, col: an empty range), 3 (line, col, end col) or 4."""
    if len(nums) == 1:
        sl, sc, el, ec = nums[0], 0, nums[0], 0
    elif len(nums) == 3:
        sl, sc, el, ec = nums[0], nums[1], nums[0], nums[2]
    else:
        sl, sc, el, ec = nums
    if sl == sc == el == ec == 0:
        nums = []
    elif sc == 0 and sl == el:
        nums = [sl]
    elif sl == el and sc == ec:
        nums = [sl, sc]
    elif sl == el:
        nums = [sl, sc, ec]
    else:
        nums = [sl, sc, el, ec]
    return it.attr(
        B,
        ("v", FILE_RANGE),
        ("A", string_entry(it, file)),
        ("v", len(nums)),
        *(("v", n) for n in nums),
    )


# =============================================================================================
# Reader side


class Loc:
    """A decoded location: the text MLIR prints inside ``loc(...)``."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


def _quote(s: str) -> str:
    from stablehlo_py.ir.text.printer import string_literal

    return string_literal(s)


Resolver = Callable[[int], Any]


class DecodeContext:
    """What an entry decoder needs: references to other attributes/types and strings."""

    def __init__(self, attr: Resolver, type_: Resolver, string: Callable[[int], bytes]):
        self.attr = attr
        self.type = type_
        self.string = string
        self.loc_budget = 1 << 26  # characters of location text (shared sub-locations expand)

    def read_attr(self, r: Reader) -> Any:
        return self.attr(r.varint())

    def read_type(self, r: Reader) -> Any:
        return self.type(r.varint())

    def read_str(self, r: Reader) -> str:
        return self.string(r.varint()).decode("utf-8", "surrogateescape")


def _expect(ok: bool, r: Reader, what: str, pos: int) -> None:
    if not ok:
        raise BytecodeError(what, pos)


def decode_type(r: Reader, ctx: DecodeContext) -> Attribute:
    pos = r.pos
    try:
        return _decode_type(r, ctx)
    except _CONSTRUCTION_ERRORS as e:  # xDSL refusing the parameters (complex<tensor<...>> ...)
        raise BytecodeError(f"invalid builtin type: {_first_line(e)}", pos) from None


def decode_attr(r: Reader, ctx: DecodeContext) -> Any:
    pos = r.pos
    try:
        return _decode_attr(r, ctx)
    except _CONSTRUCTION_ERRORS as e:
        raise BytecodeError(f"invalid builtin attribute: {_first_line(e)}", pos) from None


def _first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[-1] if text else type(e).__name__


def _decode_type(r: Reader, ctx: DecodeContext) -> Attribute:
    from stablehlo_py.ir.types import tensor_type

    pos = r.pos
    code = r.varint()
    if code == T_INT:
        v = r.varint()
        width, sig = v >> 2, v & 3
        _expect(sig in _SIGNEDNESS_BACK and width <= 1 << 24, r, f"invalid integer type {v}", pos)
        return IntegerType(width, _SIGNEDNESS_BACK[sig])
    name = _FLOAT_BY_CODE.get(code)
    if name is not None:
        t = FLOAT_TYPES.get(name)
        _expect(t is not None, r, f"float type {name} is not supported", pos)
        return t  # type: ignore[return-value]
    if code == T_INDEX:
        return IndexType()
    if code == T_NONE:
        return NoneType()
    if code == T_COMPLEX:
        return ComplexType(_as_type(ctx.read_type(r), r, pos))
    if code in (T_TENSOR, T_TENSOR_ENC):
        enc = ctx.read_attr(r) if code == T_TENSOR_ENC else None
        n = r.count(1, "dimensions")
        shape = []
        for _ in range(n):
            d = r.svarint()
            _expect(d >= -1 or d == -(1 << 63), r, f"invalid dimension size {d}", pos)
            shape.append(-1 if d < 0 else d)
        elem = _as_type(ctx.read_type(r), r, pos)
        return tensor_type(elem, tuple(shape), enc)
    if code == T_UNRANKED:
        return UnrankedTensorType(_as_type(ctx.read_type(r), r, pos))
    if code == T_FUNC:
        ins = [_as_type(ctx.read_type(r), r, pos) for _ in range(r.count(1, "types"))]
        outs = [_as_type(ctx.read_type(r), r, pos) for _ in range(r.count(1, "types"))]
        return FunctionType.from_lists(ins, outs)
    if code == T_TUPLE:
        ts = [_as_type(ctx.read_type(r), r, pos) for _ in range(r.count(1, "types"))]
        return TupleType(ArrayAttr(ts))  # xDSL 0.74 keeps a list as is (unhashable)
    raise BytecodeError(f"builtin type code {code} is not supported", pos)


_CONSTRUCTION_ERRORS = (VerifyException, ValueError, TypeError, OverflowError, AssertionError)


def _as_type(t: Any, r: Reader, pos: int) -> Attribute:
    if not isinstance(t, TypeAttribute):
        raise BytecodeError("expected a type reference", pos)
    return t  # type: ignore[return-value]


def _as_loc(a: Any, pos: int) -> Loc:
    if not isinstance(a, Loc):
        raise BytecodeError("expected a location reference", pos)
    return a


def _as_string_attr(a: Any, pos: int) -> StringAttr:
    if not isinstance(a, StringAttr):
        raise BytecodeError("expected a string attribute reference", pos)
    return a


def _decode_attr(r: Reader, ctx: DecodeContext) -> Any:
    pos = r.pos
    code = r.varint()
    if code == STRING:
        return StringAttr(ctx.read_str(r))
    if code == FILE_LINE_COL:
        f = _as_string_attr(ctx.read_attr(r), pos)
        line, col = r.varint(), r.varint()
        return _loc_text(ctx, f"{_quote(f.data)}:{line}:{col}", pos)
    if code == FILE_RANGE:
        f = _as_string_attr(ctx.read_attr(r), pos)
        n = r.varint()
        _expect(n <= 4, r, f"a file location range has {n} numbers (at most 4)", pos)
        nums = [r.varint() for _ in range(n)]
        q = _quote(f.data)
        if n == 0:
            text = f"{q}:0:0"
        elif n == 1:
            text = f"{q}:{nums[0]}"
        elif n == 2:
            text = f"{q}:{nums[0]}:{nums[1]}"
        elif n == 3:
            text = f"{q}:{nums[0]}:{nums[1]} to :{nums[2]}"
        else:
            text = f"{q}:{nums[0]}:{nums[1]} to {nums[2]}:{nums[3]}"
        return _loc_text(ctx, text, pos)
    if code == NAME_LOC:
        name = _as_string_attr(ctx.read_attr(r), pos)
        child = _as_loc(ctx.read_attr(r), pos)
        if child.text == "unknown":
            return _loc_text(ctx, _quote(name.data), pos)
        return _loc_text(ctx, f"{_quote(name.data)}({child.text})", pos)
    if code == CALLSITE:
        callee = _as_loc(ctx.read_attr(r), pos)
        caller = _as_loc(ctx.read_attr(r), pos)
        return _loc_text(ctx, f"callsite({callee.text} at {caller.text})", pos)
    if code in (FUSED, FUSED_META):
        locs = [_as_loc(ctx.read_attr(r), pos) for _ in range(r.count(1, "locations"))]
        meta = ""
        if code == FUSED_META:
            from stablehlo_py.ir.text.printer import attr_to_str

            m = ctx.read_attr(r)
            _expect(isinstance(m, Attribute), r, "fused location metadata is not an attribute", pos)
            meta = f"<{attr_to_str(m)}>"
        return _loc_text(ctx, f"fused{meta}[{', '.join(x.text for x in locs)}]", pos)
    if code == UNKNOWN_LOC:
        return Loc("unknown")
    if code == DICT:
        entries: dict[str, Attribute] = {}
        for _ in range(r.count(2, "dictionary entries")):
            k = _as_string_attr(ctx.read_attr(r), pos)
            v = ctx.read_attr(r)
            _expect(
                isinstance(v, Attribute) and not isinstance(v, Loc), r, "bad dictionary value", pos
            )
            entries[k.data] = v
        return DictionaryAttr(entries)
    if code == ARRAY:
        items = []
        for _ in range(r.count(1, "array elements")):
            v = ctx.read_attr(r)
            _expect(isinstance(v, Attribute), r, "bad array element", pos)
            items.append(v)
        return ArrayAttr(items)
    if code == UNIT:
        return UnitAttr()
    if code == TYPE_ATTR:
        return _as_type(ctx.read_type(r), r, pos)
    if code == INTEGER:
        t = _as_type(ctx.read_type(r), r, pos)
        if isinstance(t, IndexType):
            width, signed = 64, True
        elif isinstance(t, IntegerType):
            width, signed = t.width.data, t.signedness.data != Signedness.UNSIGNED
        else:
            raise BytecodeError("integer attribute with a non-integer type", pos)
        v = r.apint(width)
        if width == 1:
            return BoolAttr(bool(v), IntegerType(1))  # type: ignore[arg-type]
        if signed and width and v >> (width - 1):
            v -= 1 << width
        return IntegerAttr(v, t)
    if code == FLOAT:
        t = _as_type(ctx.read_type(r), r, pos)
        name = FLOAT_NAME.get(type(t))
        _expect(name is not None, r, "float attribute with a non-float type", pos)
        bits = r.apint(float_width(name))  # type: ignore[arg-type]
        try:
            dtype = storage_dtype(t)
        except StableHLOError:  # tf32: no value representation in this toolkit
            raise BytecodeError(f"a float attribute of type {name} is not supported", pos) from None
        value = float(np.frombuffer(bits.to_bytes(dtype.itemsize, "little"), dtype)[0])
        return FloatAttr(value, t)  # type: ignore[arg-type]
    if code == FLAT_SYMREF:
        return SymbolRefAttr(_as_string_attr(ctx.read_attr(r), pos).data)
    if code == SYMREF:
        root = _as_string_attr(ctx.read_attr(r), pos).data
        nested = []
        for _ in range(r.count(1, "symbol references")):
            n = ctx.read_attr(r)
            _expect(isinstance(n, SymbolRefAttr), r, "bad nested symbol reference", pos)
            nested.append(n.root_reference.data)
        return SymbolRefAttr(root, nested)
    if code == DENSE:
        t = _as_type(ctx.read_type(r), r, pos)
        blob = r.bytes(r.varint())
        return _dense(t, blob, pos)
    if code == DENSE_ARRAY:
        t = _as_type(ctx.read_type(r), r, pos)
        n = r.varint()
        blob = r.bytes(r.varint())
        return _dense_array(t, n, blob, pos)
    raise BytecodeError(f"builtin attribute code {code} is not supported", pos)


def _loc_text(ctx: DecodeContext, text: str, pos: int) -> Loc:
    ctx.loc_budget -= len(text)
    if ctx.loc_budget < 0:
        raise BytecodeError("the locations expand to more than 64 MiB of text", pos)
    return Loc(text)


def _dense_array(t: Attribute, n: int, blob: bytes, pos: int) -> Attribute:
    from xdsl.dialects.builtin import BytesAttr

    if t == _I1:
        if len(blob) != n:
            raise BytecodeError(f"a dense bool array of {n} elements has {len(blob)} bytes", pos)
        return DenseArrayBase.from_list(_I1, [1 if b else 0 for b in blob])
    if not isinstance(t, (IntegerType, *(type(f) for f in FLOAT_TYPES.values()))):
        raise BytecodeError("a dense array's element type must be an integer or float type", pos)
    try:
        size = storage_dtype(t).itemsize
    except Exception:  # noqa: BLE001
        raise BytecodeError("a dense array of an unsupported element type", pos) from None
    if len(blob) != n * size:
        raise BytecodeError(
            f"a dense array of {n} elements has {len(blob)} bytes, expected {n * size}", pos
        )
    return DenseArrayBase(t, BytesAttr(blob))  # type: ignore[arg-type]


def _dense(t: Attribute, blob: bytes, pos: int) -> Attribute:
    from xdsl.dialects.builtin import BytesAttr

    if not isinstance(t, TensorType):
        raise BytecodeError("dense elements attribute without a ranked tensor type", pos)
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        raise BytecodeError("dense elements attribute with a dynamic shape", pos)
    try:
        dtype = storage_dtype(t.element_type)
    except Exception:  # noqa: BLE001
        raise BytecodeError("dense elements of an unsupported element type", pos) from None
    n = 1
    for d in shape:
        n *= d
    elem = t.element_type
    if elem == _I1:
        blob = _unpack_bool(blob, n, pos)
    size = dtype.itemsize
    if not (len(blob) == n * size or (n != 1 and len(blob) == size)):
        raise BytecodeError(
            f"dense data has {len(blob)} bytes, expected {n * size} (or {size} for a splat)", pos
        )
    if isinstance(elem, IntegerType) and 1 < elem.width.data < 8 and blob:
        w = elem.width.data
        v = np.frombuffer(blob, np.uint8)
        if (v >> w).any():
            raise BytecodeError(f"dense data of i{w} elements has bytes wider than {w} bits", pos)
        if elem.signedness.data != Signedness.UNSIGNED:  # the toolkit sign-extends
            blob = (
                ((v.astype(np.int16) ^ (1 << (w - 1))) - (1 << (w - 1))).astype(np.int8).tobytes()
            )
    return DenseIntOrFPElementsAttr(t, BytesAttr(blob))  # type: ignore[arg-type]


def _unpack_bool(blob: bytes, n: int, pos: int) -> bytes:
    """i1 data: bit-packed LSB first (a single ``ff``/``00`` byte is a splat), or one byte per
    element (as MLIR builds that store bools unpacked write it)."""
    if len(blob) == 1 and blob[0] in (0, 0xFF):  # a splat (as MLIR's isValidRawBuffer)
        return b"\x01" if blob[0] else b"\x00"
    if len(blob) == (n + 7) // 8 and (len(blob) != n or n == 1):
        bits = np.unpackbits(np.frombuffer(blob, np.uint8), bitorder="little")
        if bits[n:].any():
            raise BytecodeError("packed i1 data has bits set past the last element", pos)
        return bits[:n].astype(np.uint8).tobytes()
    if len(blob) == n:
        if n and np.frombuffer(blob, np.uint8).max() > 1:
            raise BytecodeError("i1 data holds a byte other than 0 or 1", pos)
        return blob
    raise BytecodeError(f"i1 data of {n} elements has {len(blob)} bytes", pos)
