"""Dense element attributes (`dense<...> : tensor<...>`), dense arrays (`array<i64: 1, 2>`) and scalar
number attributes: parsing, storage and MLIR-exact printing.

Storage: xDSL's `DenseIntOrFPElementsAttr(type, BytesAttr)` holding numpy little-endian bytes in the
dtype of `types.storage_dtype`.  A splat holds exactly one element (as MLIR does), so
`dense<1.0> : tensor<4096x4096xf32>` costs 4 bytes, not 67 MB.  `dense_values(attr)` gives a
zero-copy numpy view (broadcast for a splat).
"""

from __future__ import annotations

import io
import re
import string
from typing import TYPE_CHECKING

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute

from stablehlo_py.errors import NotSupportedError
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float, parse_float_text
from stablehlo_py.ir.types import FLOAT_NAME, element_type_name, num_elements, storage_dtype

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser

_TOKENS = re.compile(r"[\[\]()]|[^\s,\[\]()]+")
_HEX_CHUNK = 1 << 22
"""Hex digits (an even number) decoded or encoded at a time: a large literal costs its bytes once
more, not a copy of its text (a 1 GB constant is 2 GB of hex)."""
_I64 = IntegerType(64)
FLOAT_TYPES_F64 = Float64Type()
_F64_NAME = "f64"


# --------------------------------------------------------------------------------------- storage
def make_dense(type_: TensorType, values: np.ndarray) -> DenseIntOrFPElementsAttr:
    """Build a dense attribute from an array of the storage dtype; stores a splat when all equal."""
    flat = np.ascontiguousarray(values).reshape(-1)
    raw = flat.tobytes()
    return _new_dense(type_, _splat_or_all(raw, flat.itemsize))


def _splat_or_all(raw: bytes, size: int) -> bytes:
    """The first element when all `size`-byte elements of `raw` are equal, else `raw`.  (Counting
    the first element's non-overlapping occurrences needs no temporary the size of the data.)"""
    n = len(raw) // size
    if n > 1 and raw[-size:] == raw[:size] and raw.count(raw[:size]) == n:
        return raw[:size]
    return raw


_SMALL_DENSE = CONTEXT.table("text.small_dense", 100_000)  # (type, bytes) -> the attribute


def _new_dense(type_: TensorType, raw: bytes) -> DenseIntOrFPElementsAttr:
    """Build the attribute; small ones (splats, short lists) are interned, since attributes are
    immutable and the same constants recur throughout a program."""
    if len(raw) > 64:
        return DenseIntOrFPElementsAttr(type_, BytesAttr(raw))
    key = (type_, raw)
    a = _SMALL_DENSE.get(key)
    if a is None:
        a = _SMALL_DENSE.put(key, DenseIntOrFPElementsAttr(type_, BytesAttr(raw)))
    return a


def is_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    dt = storage_dtype(attr.type.element_type)
    return len(attr.data.data) == dt.itemsize and num_elements(attr.type.get_shape()) != 1


def dense_values(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements as a read-only numpy array of the attribute's shape (zero-copy)."""
    dt = storage_dtype(attr.type.element_type)
    flat = np.frombuffer(attr.data.data, dtype=dt)
    shape = attr.type.get_shape()
    if flat.size == 1 and num_elements(shape) != 1:
        return np.broadcast_to(flat.reshape(()), shape)
    return flat.reshape(shape)


# --------------------------------------------------------------------------------------- parsing
_PUNCT = frozenset("()[],")
_INT_TOKEN = re.compile(r"[-+]?(?:0x[0-9a-fA-F]+|[0-9]+)")
_HEX_TOKEN = re.compile(r"0x[0-9a-fA-F]+")


def _int_range(t: IntegerType) -> tuple[int, int]:
    w = t.width.data
    s = t.signedness.data
    if w == 0:
        return 0, 0
    if s == Signedness.UNSIGNED:
        return 0, (1 << w) - 1
    if s == Signedness.SIGNED:
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return -(1 << (w - 1)), (1 << w) - 1  # signless: either reading of the bits


def _wrap_signless(values: list[int], t: IntegerType) -> list[int]:
    w = t.width.data
    if t.signedness.data != Signedness.SIGNLESS or w == 0:
        return values
    half = 1 << (w - 1)
    full = 1 << w
    return [v - full if v >= half else v for v in values]


def _convert_scalars(p: Parser, toks: list[str], elem: Attribute, pos: int) -> np.ndarray:
    """Token strings -> numpy array of the storage dtype for element type `elem`."""
    dt = storage_dtype(elem)
    if isinstance(elem, IntegerType):
        if elem.width.data == 1:
            out = []
            for t in toks:
                if t == "true" or t == "1":
                    out.append(True)
                elif t == "false" or t == "0":
                    out.append(False)
                else:
                    p.error(
                        f"expected a boolean (true or false) for an i1 element, found '{t}'", pos
                    )
            return np.array(out, dtype=np.bool_)
        try:
            ints = [int(t, 16) if "x" in t else int(t) for t in toks]
        except ValueError:
            bad = next(t for t in toks if not re.fullmatch(r"-?(0x[0-9a-fA-F]+|[0-9]+)", t))
            if bad in ("true", "false"):  # MLIR's words
                p.error("expected i1 type for 'true' or 'false' values", pos)
            p.error(
                f"expected an integer for a {element_type_name(elem)} element, found '{bad}'", pos
            )
        lo, hi = _int_range(elem)
        if ints and (min(ints) < lo or max(ints) > hi):
            bad_v = min(ints) if min(ints) < lo else max(ints)
            p.error(
                f"integer {bad_v} does not fit in {element_type_name(elem)} (range {lo}..{hi})", pos
            )
        return np.array(_wrap_signless(ints, elem), dtype=dt)
    if isinstance(elem, IndexType):
        bad = next((t for t in toks if not _INT_TOKEN.fullmatch(t)), None)
        if bad is not None:
            p.error(f"expected an integer for an index element, found '{bad}'", pos)
        ints = [int(t, 16) if "x" in t else int(t, 10) for t in toks]
        bad_v = next((v for v in ints if not -(1 << 63) <= v < (1 << 63)), None)
        if bad_v is not None:
            p.error(f"integer {bad_v} does not fit in index (64 bits)", pos)
        return np.array(ints, dtype=np.int64)
    name = FLOAT_NAME.get(type(elem))
    if name is not None:
        sem = FLOAT_SEMANTICS[name]
        if any("x" in t for t in toks):
            vals = []
            bits_dt = np.dtype(f"uint{max(8, sem.bits)}")
            for t in toks:
                if "x" in t:
                    if not _HEX_TOKEN.fullmatch(t):
                        p.error(
                            f"expected a floating-point literal for a {name} element, found '{t}'",
                            pos,
                        )
                    if int(t, 16) >> sem.bits:
                        p.error(f"hexadecimal float constant out of range for type {name}", pos)
                    raw = np.array([int(t, 16)], dtype=bits_dt)
                    vals.append(
                        raw.view(dt)[0]
                        if bits_dt.itemsize == dt.itemsize
                        else np.array(int(t, 16), np.uint8).view(dt)
                    )
                else:
                    vals.append(_float_token(p, t, sem, pos))
            return np.array(vals, dtype=dt)
        return np.array([_float_token(p, t, sem, pos) for t in toks], dtype=dt)
    if isinstance(elem, ComplexType):
        inner_name = element_type_name(elem.element_type)
        sem = FLOAT_SEMANTICS.get(inner_name)  # type: ignore[arg-type]
        if sem is None:
            p.error(
                f"dense literals of complex<{inner_name}> are not supported by stablehlo-py", pos
            )
        parts = []
        for t in toks:
            if "x" in t:
                if not _HEX_TOKEN.fullmatch(t) or int(t, 16) >> sem.bits:
                    p.error(f"expected a {inner_name} part of a complex element, found '{t}'", pos)
                bits_dt = np.dtype(f"uint{sem.bits}")
                parts.append(float(np.array([int(t, 16)], dtype=bits_dt).view(sem.dtype)[0]))
            else:
                parts.append(_float_token(p, t, sem, pos))
        arr = np.array(parts, dtype=sem.dtype).reshape(-1, 2)
        out = np.empty(arr.shape[0], dtype=dt)
        out.real = arr[:, 0]
        out.imag = arr[:, 1]
        return out
    p.error(f"dense elements of type {element_type_name(elem) or elem} are not supported", pos)


def _float_token(p: Parser, t: str, sem, pos: int) -> float:
    try:
        return parse_float_text(t, sem)
    except ValueError:
        p.error(f"expected a floating-point literal for a {sem.name} element, found '{t}'", pos)


def parse_dense(p: Parser) -> DenseIntOrFPElementsAttr:
    """After the `dense` keyword: `<...> : type`."""
    text = p.text
    start = p.pos - len("dense")
    p.parse_literal("<")
    p.ws()
    body_toks: list[str] | None = None
    hex_raw = _hex_literal(p, text, p.pos)
    if hex_raw is not None:
        p.parse_literal(">")
    elif _STRING_BODY.match(text, p.pos):
        return _parse_dense_strings(p, start)
    else:
        end = text.find(">", p.pos)
        if end < 0:
            p.error("unterminated dense literal", start)
        body_toks = _TOKENS.findall(text, p.pos, end)
        p.pos = end + 1
    p.parse_literal(":", "and a type after a dense literal")
    tpos = p.pos
    ty = p.parse_type()
    if not isinstance(ty, TensorType):
        p.error("a dense literal needs a ranked tensor type", tpos)
    if any(d < 0 for d in ty.get_shape()):
        p.error("elements literal type must have static shape", tpos)  # MLIR's words
    elem = ty.element_type
    n = num_elements(ty.get_shape())
    if isinstance(elem, IntegerType) and elem.width.data == 0:
        p.error("dense literals of i0 elements are not supported by stablehlo-py", tpos)
    try:
        dt = storage_dtype(elem)
    except NotSupportedError as e:
        p.error(str(e), tpos)
    if hex_raw is not None:
        return _from_hex(p, ty, hex_raw, dt, start)
    assert body_toks is not None
    shape, scalars = _structure(p, body_toks, isinstance(elem, ComplexType), start)
    if shape is None:  # splat scalar
        values = _convert_scalars(p, scalars, elem, start)
        # an empty tensor keeps its splat value, as MLIR does (it prints and serializes it)
        return _new_dense(ty, values.tobytes())
    if not shape and not scalars:
        if n != 0:
            p.error(f"empty dense literal for a type with {n} elements", start)
        return _new_dense(ty, b"")
    if tuple(shape) != ty.get_shape():
        p.error(
            f"dense literal has shape [{', '.join(map(str, shape))}] but the type "
            f"has shape [{', '.join(map(str, ty.get_shape()))}]",
            start,
        )
    values = _convert_scalars(p, scalars, elem, start)
    return make_dense(ty, values)


_STRING_BODY = re.compile(r'[\[\s]*"')
_STRING_OR_CLOSE = re.compile(r'"(?:[^"\\]|\\.)*"|>')


def _parse_dense_strings(p: Parser, start: int) -> Attribute:
    """`dense<"a"> : tensor<!dialect.string>` (MLIR's DenseStringElementsAttr), after `dense<`.  Only
    a foreign dialect's element type can hold strings; such an attribute is kept as its text (an
    OpaqueAttr, as other unmodelled attributes: it prints back as written, nothing evaluates it)."""
    from stablehlo_py.ir.attributes import OpaqueAttr, OpaqueType

    text = p.text
    m = _STRING_OR_CLOSE.search(text, p.pos)
    while m is not None and m.group(0) != ">":
        m = _STRING_OR_CLOSE.search(text, m.end())
    if m is None:
        p.error("unterminated dense literal", start)
    p.pos = m.end()
    p.parse_literal(":", "and a type after a dense literal")
    tpos = p.pos
    ty = p.parse_type()
    if not (isinstance(ty, TensorType) and isinstance(ty.element_type, OpaqueType)):
        p.error(
            "dense string elements are supported by stablehlo-py only for tensors of another "
            f"dialect's element type (e.g. tensor<!tf_type.string>), not {p.type_text(ty)}",
            tpos,
        )
    return OpaqueAttr(p.normalize_opaque(text[start : p.pos]))


def _hex_literal(p: Parser, text: str, pos: int) -> bytes | None:
    """The bytes of `"0x<hex digits>"` at `pos` (then `p.pos` is after it), or None when the text
    there is not one.  Decoded a chunk at a time, without copying the digits out of the text."""
    if not text.startswith('"0x', pos):
        return None
    start = pos + 3
    end = text.find('"', start)
    if end < 0:
        return None
    stop = end - (end - start) % 2  # an odd last digit is checked alone below
    # the chunks go into one growing buffer whose bytes `getvalue` hands over without a copy
    # (a list of chunks joined at the end would hold the data twice)
    out = io.BytesIO()
    for i in range(start, stop, _HEX_CHUNK):
        j = min(i + _HEX_CHUNK, stop)
        try:
            chunk = bytes.fromhex(text[i:j])
        except ValueError:  # not a hex digit
            return None
        if 2 * len(chunk) != j - i:  # fromhex skips white space
            return None
        out.write(chunk)
    if stop != end:
        if text[stop] not in string.hexdigits:
            return None
        p.error("hex dense literal has an odd number of digits", pos)
    p.pos = end + 1
    return out.getvalue()


def _from_hex(
    p: Parser, ty: TensorType, raw: bytes, dt: np.dtype, pos: int
) -> DenseIntOrFPElementsAttr:
    n = num_elements(ty.get_shape())
    size = dt.itemsize
    if len(raw) != n * size and len(raw) != size:
        p.error(
            f"hex dense literal has {len(raw)} bytes; the type needs {n * size} (or {size} for a splat)",
            pos,
        )
    elem = ty.element_type
    if isinstance(elem, IntegerType) and elem.width.data < 8:
        arr = np.frombuffer(raw, dtype=np.uint8)
        w = elem.width.data
        if w == 1:
            arr = (arr & 1).astype(np.bool_)
        else:
            arr = arr & ((1 << w) - 1)
            if elem.signedness.data != Signedness.UNSIGNED:
                arr = np.where(arr >= (1 << (w - 1)), arr.astype(np.int16) - (1 << w), arr).astype(
                    np.int8
                )
        raw = arr.tobytes()
    return _new_dense(ty, raw)


def _structure(
    p: Parser, toks: list[str], is_complex: bool, pos: int
) -> tuple[list[int] | None, list[str]]:
    """Nested-list tokens -> (shape or None for a bare scalar, flat scalar tokens)."""
    if not toks:
        return [], []
    if toks[0] != "[":
        # Bare scalar (or a complex pair) = splat.
        if is_complex:
            if len(toks) != 4 or toks[0] != "(" or toks[3] != ")":
                p.error("expected a complex literal '(re, im)'", pos)
            return None, [toks[1], toks[2]]
        if len(toks) != 1:
            p.error("malformed dense literal", pos)
        return None, toks
    scalars: list[str] = []
    shape: list[int] = []
    counts: list[int] = []
    depth = 0
    max_depth_seen = -1
    i = 0
    nt = len(toks)
    while i < nt:
        t = toks[i]
        if t == "[":
            depth += 1
            if depth > len(counts):
                counts.append(0)
            counts[depth - 1] = 0
            i += 1
        elif t == "]":
            if depth == 0:
                p.error("unbalanced brackets in dense literal", pos)
            n = counts[depth - 1]
            if len(shape) < depth:
                shape.extend([-1] * (depth - len(shape)))
            if shape[depth - 1] == -1:
                shape[depth - 1] = n
            elif shape[depth - 1] != n:
                p.error("dense literal is not rectangular", pos)
            depth -= 1
            if depth > 0:
                counts[depth - 1] += 1
            i += 1
        else:
            if max_depth_seen == -1:
                max_depth_seen = depth
            elif depth != max_depth_seen:
                p.error("dense literal mixes scalars and lists at one level", pos)
            if is_complex:
                if (
                    t != "("
                    or i + 3 >= nt
                    or toks[i + 3] != ")"
                    or toks[i + 1] in _PUNCT
                    or toks[i + 2] in _PUNCT
                ):
                    p.error("expected a complex literal '(re, im)'", pos)
                scalars.append(toks[i + 1])
                scalars.append(toks[i + 2])
                i += 4
            else:
                scalars.append(t)
                i += 1
            counts[depth - 1] += 1
    if depth != 0:
        p.error("unbalanced brackets in dense literal", pos)
    if max_depth_seen != -1 and max_depth_seen != len(shape):
        p.error("dense literal is not rectangular", pos)
    return shape, scalars


def parse_dense_array(p: Parser) -> DenseArrayBase:
    """After `array`: `<i64: 1, 2>` or `<i64>`."""
    p.parse_literal("<")
    p.ws()
    tpos = p.pos
    elt = p.parse_type()
    if not isinstance(elt, IntegerType) and type(elt) not in FLOAT_NAME:
        p.error(f"expected integer or float type, got: {p.type_text(elt)}", tpos)
    values: list[str] = []
    if p.try_literal(":"):
        end = p.text.find(">", p.pos)
        values = [t for t in _TOKENS.findall(p.text, p.pos, end)]
        p.pos = end
    p.parse_literal(">")
    if isinstance(elt, IntegerType):
        nums: list[int] = []
        for t in values:
            if t == "true":
                nums.append(1)
            elif t == "false":
                nums.append(0)
            else:
                if not _INT_TOKEN.fullmatch(t):
                    p.error(f"expected an integer in array<>, found '{t}'", tpos)
                nums.append(int(t, 16) if "x" in t else int(t, 10))
        lo, hi = _int_range(elt)
        bad = next((v for v in nums if not lo <= v <= hi), None)
        if bad is not None:
            p.error(f"integer constant out of range for type {p.type_text(elt)}: {bad}", tpos)
        if elt.width.data not in (1, 8, 16, 32, 64):
            p.error(
                f"array<{p.type_text(elt)}: ...> is not supported by stablehlo-py (integer elements of "
                "1, 8, 16, 32 or 64 bits)",
                tpos,
            )
        return DenseArrayBase.from_list(elt, nums)
    try:
        return DenseArrayBase.from_list(elt, [float(t) for t in values])  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError, OverflowError):
        p.error(
            f"array<{p.type_text(elt)}: ...> is not supported by stablehlo-py with these values "
            "(float arrays hold f32 or f64 numbers)",
            tpos,
        )


def scalar_attr(p: Parser, tok: str, ty: Attribute | None, pos: int) -> Attribute:
    """A number token with an optional type: IntegerAttr or FloatAttr."""
    is_float_text = any(c in tok for c in ".eE") and not tok.lstrip("-+").startswith("0x")
    if ty is None:
        ty = FLOAT_TYPES_F64 if is_float_text else _I64
    name = FLOAT_NAME.get(type(ty))
    if name is not None:
        sem = FLOAT_SEMANTICS[name]
        if "x" in tok:
            if tok.startswith(("-", "+")):
                p.error(
                    "hexadecimal float literal should not have a leading minus", pos
                )  # MLIR's words
            bits = int(tok, 16)
            if bits >> sem.bits:
                p.error(f"hexadecimal float constant out of range for type {name}", pos)
            v = (
                float(np.array([bits], dtype=f"uint{max(sem.bits, 8)}").view(sem.dtype)[0])
                if sem.bits >= 8
                else 0.0
            )
        else:
            v = parse_float_text(tok, sem)
        return FloatAttr(v, ty)  # type: ignore[arg-type]
    if isinstance(ty, (IntegerType, IndexType)):
        if is_float_text:
            p.error(f"expected an integer for type {element_type_name(ty)}, found '{tok}'", pos)
        v = int(tok, 16) if "x" in tok else int(tok)
        if isinstance(ty, IntegerType):
            lo, hi = _int_range(ty)
            if v < lo or v > hi:
                p.error(f"integer {v} does not fit in {element_type_name(ty)}", pos)
            v = _wrap_signless([v], ty)[0]
        return IntegerAttr(v, ty)
    p.error(f"a number cannot have type {element_type_name(ty) or ty}", pos)


# --------------------------------------------------------------------------------------- printing
def format_element(v: object, elem: Attribute) -> str:
    if isinstance(elem, IntegerType):
        if elem.width.data == 1:
            return "true" if v else "false"
        return str(int(v))  # type: ignore[call-overload]
    if isinstance(elem, IndexType):
        return str(int(v))  # type: ignore[call-overload]
    name = FLOAT_NAME.get(type(elem))
    if name is not None:
        return format_float(v, FLOAT_SEMANTICS[name])  # type: ignore[arg-type]
    if isinstance(elem, ComplexType):
        sem = FLOAT_SEMANTICS[element_type_name(elem.element_type)]  # type: ignore[index]
        c = complex(v)  # type: ignore[arg-type]
        re_ = np.asarray(c.real, dtype=sem.dtype)[()]
        im_ = np.asarray(c.imag, dtype=sem.dtype)[()]
        return f"({format_float(re_, sem)},{format_float(im_, sem)})"
    raise ValueError(f"cannot print element of type {elem}")


def _hex_bytes(attr: DenseIntOrFPElementsAttr) -> str:
    elem = attr.type.element_type
    raw = attr.data.data
    if isinstance(elem, IntegerType) and 1 < elem.width.data < 8:
        arr = np.frombuffer(raw, dtype=np.uint8) & ((1 << elem.width.data) - 1)
        raw = arr.astype(np.uint8).tobytes()
    return "".join(_hex_pieces(raw))


def _hex_pieces(raw: bytes) -> list[str]:
    """`"0x<HEX>"` as pieces of at most _HEX_CHUNK digits."""
    view = memoryview(raw)
    step = _HEX_CHUNK // 2
    return ['"0x', *(view[i : i + step].hex().upper() for i in range(0, len(raw), step)), '"']


def dense_body_pieces(attr: DenseIntOrFPElementsAttr) -> list[str]:
    """`dense_body(attr)` as pieces whose concatenation is it: a large hex body stays in chunks
    (the printer writes them one after the other, never joined into one more copy)."""
    elem = attr.type.element_type
    raw = attr.data.data
    if len(raw) > _HEX_CHUNK and not (isinstance(elem, IntegerType) and elem.width.data < 8):
        n = num_elements(attr.type.get_shape())
        if n > 100 and len(raw) != storage_dtype(elem).itemsize:
            return _hex_pieces(raw)
    return [dense_body(attr)]


def dense_body(attr: DenseIntOrFPElementsAttr) -> str:
    """The text between `dense<` and `>`."""
    ty = attr.type
    elem = ty.element_type
    shape = ty.get_shape()
    n = num_elements(shape)
    dt = storage_dtype(elem)
    if n == 0 and len(attr.data.data) != dt.itemsize:
        return ""
    flat = np.frombuffer(attr.data.data, dtype=dt)
    if flat.size == 1:
        return format_element(flat[0], elem)
    if n > 100:
        return _hex_bytes(attr)
    items = (
        [format_element(v, elem) for v in flat.tolist()]
        if not _needs_scalar(elem)
        else [format_element(v, elem) for v in flat]
    )
    return _nest(items, shape)


def _needs_scalar(elem: Attribute) -> bool:
    # Float formatting needs the typed numpy scalar (for hex bits of NaN/inf of narrow types).
    return FLOAT_NAME.get(type(elem)) is not None or isinstance(elem, ComplexType)


def _nest(items: list[str], shape: tuple[int, ...]) -> str:
    if len(shape) == 0:
        return items[0]
    for d in reversed(shape):
        items = ["[" + ", ".join(items[i : i + d]) + "]" for i in range(0, len(items), d)]
    return items[0]


def dense_array_text(attr: DenseArrayBase) -> str:
    elt = attr.elt_type
    elt_text = element_type_name(elt)  # an integer or float type
    vals = attr.get_values()
    if not vals:
        return f"array<{elt_text}>"
    if isinstance(elt, IntegerType):
        if elt.width.data == 1:
            body = ", ".join("true" if v else "false" for v in vals)
        else:
            body = ", ".join(str(int(v)) for v in vals)
    else:
        sem = FLOAT_SEMANTICS[FLOAT_NAME[type(elt)]]
        body = ", ".join(format_float(np.asarray(v, dtype=sem.dtype)[()], sem) for v in vals)
    return f"array<{elt_text}: {body}>"
