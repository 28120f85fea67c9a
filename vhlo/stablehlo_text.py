"""StableHLO's structured attributes read and written through their upstream text.

VHLO flattens or mirrors a handful of StableHLO attributes (`#stablehlo.channel_handle`, `#stablehlo.conv`,
`#stablehlo.dot`, `#stablehlo.dot_algorithm`, `#stablehlo.gather`, `#stablehlo.scatter`,
`#stablehlo.output_operand_alias`, `#stablehlo.result_accuracy`, `#stablehlo.replica_group_mesh_axes`,
`#stablehlo.axis_ref`, `#stablehlo.mesh`, `#stablehlo.mesh_axis`).  Their upstream text is a stable,
documented interface, so the conversion reads a StableHLO attribute's fields from its text
(``attr_to_str``) and builds a StableHLO attribute by parsing upstream-canonical text with the
default registry.  The VHLO layer thus never depends on how the StableHLO layer stores an
attribute (a dedicated class, or the text-preserving ``OpaqueAttr`` for one not modelled yet).

``read(attr)`` returns ``(mnemonic, fields)``; ``write(mnemonic, fields)`` returns the attribute.
Field names are upstream's (``handle``, ``lhs_batching_dimensions``, ``output_tuple_indices``...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute

from stablehlo_py.errors import ParseError
from stablehlo_py.ir.dialects import default_registry

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


class StructTextError(Exception):
    """A StableHLO attribute's text could not be read as the expected struct."""


def attr_text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str

    return attr_to_str(a)


def mnemonic_of(a: Attribute) -> str | None:
    """`channel_handle` for `#stablehlo.channel_handle<...>` (any representation), else None."""
    name = a.name
    if name.startswith("stablehlo.") and not name.startswith("stablehlo_py."):
        return name.removeprefix("stablehlo.")
    if name == "stablehlo_py.opaque_attr":
        text = str(a.data)  # type: ignore[attr-defined]
        if text.startswith("#stablehlo."):
            end = len(text)
            for i, c in enumerate(text[11:], 11):
                if not (c.isalnum() or c == "_"):
                    end = i
                    break
            return text[11:end]
    return None


@lru_cache(maxsize=4096)
def parse_attr(text: str) -> Attribute:
    """Parse upstream text with the default registry (cached)."""
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<stablehlo-attribute>")
    a = p.parse_attribute()
    if not p.at_end():
        raise StructTextError(f"trailing text after attribute: {text!r}")
    return a


@lru_cache(maxsize=1024)
def parse_type(text: str) -> Attribute:
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<stablehlo-type>")
    t = p.parse_type()
    if not p.at_end():
        raise StructTextError(f"trailing text after type: {text!r}")
    return t


def _parser(text: str) -> Parser:
    from stablehlo_py.ir.text.parser import Parser

    return Parser(text, default_registry(), "<stablehlo-attribute>")


def _ints(p: Parser) -> tuple[int, ...]:
    return tuple(p.parse_delimited("[", p.parse_integer, "]"))


def _int(p: Parser) -> int:
    return p.parse_integer()


def _bool(p: Parser) -> bool:
    if p.try_keyword("true"):
        return True
    p.parse_keyword("false")
    return False


def _float(p: Parser) -> float:
    from stablehlo_py.vhlo.types import _parse_float

    return _parse_float(p)


def _kv(p: Parser, what: str, fields: dict[str, Callable[[Parser], Any]]) -> dict[str, Any]:
    """`<k = v, ...>` in any order (upstream's parseStruct), each field at most once."""
    p.parse_literal("<")
    return _kv_body(p, what, fields)


def _kv_body(p: Parser, what: str, fields: dict[str, Callable[[Parser], Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.try_literal(">"):
        return out
    while True:
        p.ws()
        pos = p.pos
        key = p.try_bare_id()
        if key not in fields:
            p.error(f"unexpected field {key!r} in {what}", pos)
        if key in out:
            p.error(f"duplicate field {key!r} in {what}", pos)
        p.parse_literal("=")
        out[key] = fields[key](p)
        if not p.try_literal(","):
            break
    p.parse_literal(">", f"to close {what}")
    return out


# --------------------------------------------------------------------------------------- readers


def _conv_dims(p: Parser) -> dict[str, Any]:
    """`#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` or `<raw k = v, ...>`."""
    p.parse_literal("<")
    if p.try_keyword("raw"):
        return _kv_body(p, "#stablehlo.conv", _CONV_FIELDS)

    def dims(letters: str) -> tuple[dict[str, int], list[int]]:
        named: dict[str, int] = {}
        spatial: dict[int, int] = {}
        items = p.parse_delimited("[", lambda: _dim_item(p), "]")
        for pos, item in enumerate(items):
            if isinstance(item, int):
                spatial[item] = pos
            else:
                if item not in letters:
                    p.error(f"unexpected dimension label '{item}' in #stablehlo.conv")
                named[item] = pos
        return named, [spatial[i] for i in sorted(spatial)]

    lhs, lhs_sp = dims("bf")
    p.parse_literal("x")
    rhs, rhs_sp = dims("io")
    p.parse_literal("->")
    out, out_sp = dims("bf")
    p.parse_literal(">", "to close #stablehlo.conv")
    return {
        "input_batch_dimension": lhs["b"],
        "input_feature_dimension": lhs["f"],
        "input_spatial_dimensions": tuple(lhs_sp),
        "kernel_input_feature_dimension": rhs["i"],
        "kernel_output_feature_dimension": rhs["o"],
        "kernel_spatial_dimensions": tuple(rhs_sp),
        "output_batch_dimension": out["b"],
        "output_feature_dimension": out["f"],
        "output_spatial_dimensions": tuple(out_sp),
    }


_CONV_FIELDS = {
    "input_batch_dimension": _int,
    "input_feature_dimension": _int,
    "input_spatial_dimensions": _ints,
    "kernel_input_feature_dimension": _int,
    "kernel_output_feature_dimension": _int,
    "kernel_spatial_dimensions": _ints,
    "output_batch_dimension": _int,
    "output_feature_dimension": _int,
    "output_spatial_dimensions": _ints,
}


def _dim_item(p: Parser) -> int | str:
    i = p.try_integer()
    if i is not None:
        return i
    word = p.try_bare_id()
    if word is None:
        p.error("expected a dimension number or label in #stablehlo.conv")
    return word


def _type(p: Parser) -> Attribute:
    return p.parse_type()


def _attr(p: Parser) -> Attribute:
    return p.parse_attribute()


def _mesh_axis(p: Parser) -> Attribute:
    """An element of a mesh's axes: `#stablehlo.mesh_axis<name = "x", size = 2>`, or
    `<name = "x", size = 2>` as upstream prints it (its ArrayRefParameter elides the mnemonic)."""
    p.ws()
    if p.peek() != "<":
        return p.parse_attribute()
    start = p.pos
    _kv(p, "#stablehlo.mesh_axis", {"name": lambda p: p.parse_string(), "size": _int})
    return parse_attr("#stablehlo.mesh_axis" + p.text[start : p.pos])


def _axis_ref(p: Parser) -> dict[str, Any]:
    def sub(p: Parser) -> tuple[int, int]:
        p.parse_literal("(")
        pre = p.parse_integer()
        p.parse_literal(")")
        size = p.parse_integer()
        return pre, size

    return _kv(p, "#stablehlo.axis_ref", {"name": lambda p: p.parse_string(), "sub_axis_info": sub})


_READERS: dict[str, Callable[[Parser], dict[str, Any]]] = {
    "channel_handle": lambda p: _kv(p, "#stablehlo.channel_handle", {"handle": _int, "type": _int}),
    "conv": _conv_dims,
    "dot": lambda p: _kv(
        p,
        "#stablehlo.dot",
        {
            "lhs_batching_dimensions": _ints,
            "rhs_batching_dimensions": _ints,
            "lhs_contracting_dimensions": _ints,
            "rhs_contracting_dimensions": _ints,
        },
    ),
    "dot_algorithm": lambda p: _kv(
        p,
        "#stablehlo.dot_algorithm",
        {
            "lhs_precision_type": _type,
            "rhs_precision_type": _type,
            "accumulation_type": _type,
            "lhs_component_count": _int,
            "rhs_component_count": _int,
            "num_primitive_operations": _int,
            "allow_imprecise_accumulation": _bool,
        },
    ),
    "gather": lambda p: _kv(
        p,
        "#stablehlo.gather",
        {
            "offset_dims": _ints,
            "collapsed_slice_dims": _ints,
            "operand_batching_dims": _ints,
            "start_indices_batching_dims": _ints,
            "start_index_map": _ints,
            "index_vector_dim": _int,
        },
    ),
    "scatter": lambda p: _kv(
        p,
        "#stablehlo.scatter",
        {
            "update_window_dims": _ints,
            "inserted_window_dims": _ints,
            "input_batching_dims": _ints,
            "scatter_indices_batching_dims": _ints,
            "scatter_dims_to_operand_dims": _ints,
            "index_vector_dim": _int,
        },
    ),
    "output_operand_alias": lambda p: _kv(
        p,
        "#stablehlo.output_operand_alias",
        {"output_tuple_indices": _ints, "operand_index": _int, "operand_tuple_indices": _ints},
    ),
    "result_accuracy": lambda p: _kv(
        p,
        "#stablehlo.result_accuracy",
        {"atol": _float, "rtol": _float, "ulps": _int, "mode": _attr},
    ),
    "replica_group_mesh_axes": lambda p: _kv(
        p,
        "#stablehlo.replica_group_mesh_axes",
        {"mesh": _attr, "axes": lambda p: p.parse_delimited("[", p.parse_attribute, "]")},
    ),
    "axis_ref": _axis_ref,
    "mesh": lambda p: _kv(
        p,
        "#stablehlo.mesh",
        {"axes": lambda p: p.parse_delimited("[", lambda: _mesh_axis(p), "]"), "device_ids": _attr},
    ),
    "mesh_axis": lambda p: _kv(
        p, "#stablehlo.mesh_axis", {"name": lambda p: p.parse_string(), "size": _int}
    ),
    "type_extensions": lambda p: _kv(
        p,
        "#stablehlo.type_extensions",
        {"bounds": lambda p: tuple(p.parse_delimited("[", lambda: _int_or_q(p), "]"))},
    ),
    "bounds": lambda p: {"bounds": tuple(p.parse_delimited("<", lambda: _int_or_q(p), ">"))},
    "result_accuracy_mode": lambda p: {"mode": _enum_body(p)},
}


def _enum_body(p: Parser) -> str:
    p.parse_literal("<")
    word = p.parse_keyword()
    p.parse_literal(">")
    return word


def _int_or_q(p: Parser) -> int:
    if p.try_literal("?"):
        return -1
    return p.parse_integer()


def read(a: Attribute) -> tuple[str, dict[str, Any]]:
    """The mnemonic and fields of a StableHLO struct attribute (defaults filled by upstream's
    rules: empty lists, zeros, DEFAULT mode).  Raises StructTextError when it is not one.
    Cached per attribute (a fresh dict is returned each time)."""
    try:
        got = _READ_CACHE.get(a)
    except TypeError:
        return _read(a)
    if got is None:
        got = _read(a)
        if len(_READ_CACHE) < 16384:
            _READ_CACHE[a] = got
    return got[0], dict(got[1])


_READ_CACHE: dict[Attribute, tuple[str, dict[str, Any]]] = {}


def _read(a: Attribute) -> tuple[str, dict[str, Any]]:
    mnemonic = mnemonic_of(a)
    reader = _READERS.get(mnemonic or "")
    if reader is None:
        raise StructTextError(f"not a structured StableHLO attribute: {attr_text(a)}")
    text = attr_text(a)
    prefix = f"#stablehlo.{mnemonic}"
    if not text.startswith(prefix):
        raise StructTextError(f"unexpected text for #stablehlo.{mnemonic}: {text!r}")
    p = _parser(text)
    p.pos = len(prefix)
    try:
        fields = reader(p)
    except ParseError as e:
        raise StructTextError(f"cannot read {text!r}: {e.message}") from None
    return mnemonic, _with_defaults(mnemonic, fields)  # type: ignore[arg-type]


_LIST_DEFAULTS = {
    "dot": (
        "lhs_batching_dimensions",
        "rhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "rhs_contracting_dimensions",
    ),
    "gather": (
        "offset_dims",
        "collapsed_slice_dims",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
    ),
    "scatter": (
        "update_window_dims",
        "inserted_window_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
    ),
    "output_operand_alias": ("output_tuple_indices", "operand_tuple_indices"),
}


def _with_defaults(mnemonic: str, f: dict[str, Any]) -> dict[str, Any]:
    for k in _LIST_DEFAULTS.get(mnemonic, ()):
        f.setdefault(k, ())
    if mnemonic in ("gather", "scatter"):
        f.setdefault("index_vector_dim", 0)
    if mnemonic == "output_operand_alias":
        f.setdefault("operand_index", 0)
    if mnemonic == "result_accuracy":
        f.setdefault("atol", 0.0)
        f.setdefault("rtol", 0.0)
        f.setdefault("ulps", 0)
        f.setdefault("mode", None)
    if mnemonic == "channel_handle":
        f.setdefault("handle", 0)
        f.setdefault("type", 0)
    return f


# --------------------------------------------------------------------------------------- writers


def _list(v: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(x)) for x in v) + "]"


def _fmt_float(v: float) -> str:
    from stablehlo_py.vhlo.types import format_f64

    return format_f64(v)


def write(mnemonic: str, f: dict[str, Any]) -> Attribute:
    """Build a StableHLO struct attribute from upstream-canonical text."""
    return parse_attr(text_of(mnemonic, f))


def text_of(mnemonic: str, f: dict[str, Any]) -> str:
    from stablehlo_py.ir.text.printer import string_literal, type_to_str

    if mnemonic == "channel_handle":
        return f"#stablehlo.channel_handle<handle = {f['handle']}, type = {f['type']}>"
    if mnemonic == "conv":
        return "#stablehlo.conv<" + _conv_text(f) + ">"
    if mnemonic in ("dot", "gather", "scatter"):
        parts = []
        for k in _LIST_DEFAULTS[mnemonic]:
            if f.get(k):
                parts.append(f"{k} = {_list(f[k])}")
        if mnemonic != "dot":
            parts.append(f"index_vector_dim = {f['index_vector_dim']}")
        return f"#stablehlo.{mnemonic}<" + ", ".join(parts) + ">"
    if mnemonic == "dot_algorithm":
        return (
            "#stablehlo.dot_algorithm<"
            f"lhs_precision_type = {type_to_str(f['lhs_precision_type'])}, "
            f"rhs_precision_type = {type_to_str(f['rhs_precision_type'])}, "
            f"accumulation_type = {type_to_str(f['accumulation_type'])}, "
            f"lhs_component_count = {f['lhs_component_count']}, "
            f"rhs_component_count = {f['rhs_component_count']}, "
            f"num_primitive_operations = {f['num_primitive_operations']}, "
            f"allow_imprecise_accumulation = {'true' if f['allow_imprecise_accumulation'] else 'false'}>"
        )
    if mnemonic == "output_operand_alias":
        return (
            f"#stablehlo.output_operand_alias<output_tuple_indices = {_list(f['output_tuple_indices'])}, "
            f"operand_index = {f['operand_index']}, "
            f"operand_tuple_indices = {_list(f['operand_tuple_indices'])}>"
        )
    if mnemonic == "result_accuracy":
        parts = []
        if f["atol"] != 0.0:
            parts.append(f"atol = {_fmt_float(f['atol'])}")
        if f["rtol"] != 0.0:
            parts.append(f"rtol = {_fmt_float(f['rtol'])}")
        if f["ulps"] != 0:
            parts.append(f"ulps = {f['ulps']}")
        parts.append(f"mode = #stablehlo.result_accuracy_mode<{f['mode']}>")
        return "#stablehlo.result_accuracy<" + ", ".join(parts) + ">"
    if mnemonic == "axis_ref":
        tail = ""
        if f.get("sub_axis_info") is not None:
            pre, size = f["sub_axis_info"]
            tail = f", sub_axis_info = ({pre}){size}"
        return f"#stablehlo.axis_ref<name = {string_literal(f['name'])}{tail}>"
    if mnemonic == "replica_group_mesh_axes":
        return f"#stablehlo.replica_group_mesh_axes<mesh = {f['mesh']}, axes = [{', '.join(f['axes'])}]>"
    if mnemonic == "mesh_axis":
        return f"#stablehlo.mesh_axis<name = {string_literal(f['name'])}, size = {f['size']}>"
    if mnemonic == "mesh":
        tail = "" if f.get("device_ids") is None else f", device_ids = {f['device_ids']}"
        return f"#stablehlo.mesh<axes = [{', '.join(f['axes'])}]{tail}>"
    raise StructTextError(f"cannot write #stablehlo.{mnemonic}")


def _conv_text(f: dict[str, Any]) -> str:
    def dims(rank: int, named: dict[str, int], spatial: Sequence[int]) -> str:
        labels = ["?"] * rank
        for label, pos in [*named.items(), *((str(i), p) for i, p in enumerate(spatial))]:
            if not 0 <= pos < rank or labels[pos] != "?":
                raise StructTextError(
                    f"convolution dimension {pos} is out of range or repeated for rank {rank}"
                )
            labels[pos] = label
        return "[" + ", ".join(labels) + "]"

    n = len(f["input_spatial_dimensions"]) + 2
    lhs = dims(
        n,
        {"b": f["input_batch_dimension"], "f": f["input_feature_dimension"]},
        f["input_spatial_dimensions"],
    )
    rhs = dims(
        len(f["kernel_spatial_dimensions"]) + 2,
        {"i": f["kernel_input_feature_dimension"], "o": f["kernel_output_feature_dimension"]},
        f["kernel_spatial_dimensions"],
    )
    out = dims(
        len(f["output_spatial_dimensions"]) + 2,
        {"b": f["output_batch_dimension"], "f": f["output_feature_dimension"]},
        f["output_spatial_dimensions"],
    )
    return f"{lhs}x{rhs}->{out}"
