"""StableHLO struct attributes <-> VHLO, through their descriptions (``stablehlo_py/ir/attrs/``).

VHLO holds some StableHLO struct attributes as flat attributes of their op (`#stablehlo.conv<...>`
as `input_batch_dimension`, ..., `#stablehlo.dot_algorithm<...>` as seven attributes): which
attribute of which op is the fork row's ``flatten`` key in ``specs/ops.toml``; its fields, their
order, kinds and VHLO names are the struct's description.  ``flattening(op_name)`` joins the two;
the legalize passes read a struct's fields from the attribute's value (``struct_data``) and build
it back through its description (``build``: one attribute per value, shared).

A struct the StableHLO layer kept as text (``OpaqueAttr``, `#stablehlo.dot<...>`) is parsed into
its described class first; text that does not read as one is refused (``StructError``).  The
structs the IR always keeps as text (`#stablehlo.mesh`, `#stablehlo.mesh_axis`: ``text_kept``
descriptions) are read by their description's syntax and built back as their text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo.convert_types import to_builtin_type, to_vhlo_type
from xdsl.ir import Attribute

from stablehlo_py import specs
from stablehlo_py.errors import ParseError
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.attributes import OpaqueAttr
from stablehlo_py.ir.attrs.catalog import BY_MNEMONIC, BY_NAME
from stablehlo_py.ir.attrs.struct import DescribedAttr, Description, Field

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


class StructError(Exception):
    """A StableHLO attribute is not the expected struct, or flat VHLO attributes do not make one."""


# ------------------------------------------------------------------------------ StableHLO side
def attr_text(a: Attribute) -> str:
    """An attribute's text, as messages quote it."""
    from stablehlo_py.ir.text.printer import attr_to_str

    return attr_to_str(a)


@CONTEXT.memo("vhlo.structs.parse_attr_text", maxsize=256)
def parse_attr_text(text: str) -> Attribute:
    """An attribute from its text, read with the default registry (the specs' default values, a
    struct kept as text); cached by text."""
    return _read(text, lambda p: p.parse_attribute())


def _read(text: str, read: Callable[[Parser], Any]) -> Any:
    """``read`` applied to a parser of the whole text (with the default registry)."""
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    p = Parser(text, default_registry(), "<stablehlo-attribute>")
    got = read(p)
    if not p.at_end():
        raise StructError(f"trailing text after attribute: {text!r}")
    return got


_OPAQUE_NAME = re.compile(r"#(stablehlo\.\w+)")


def described(a: Attribute) -> Description | None:
    """The description of a StableHLO struct attribute (its class's, or the one its text names
    when it is kept as text), or None."""
    d = BY_NAME.get(a.name)
    if d is None and isinstance(a, OpaqueAttr):
        m = _OPAQUE_NAME.match(str(a.data))
        if m is not None:
            return BY_NAME.get(m.group(1))
    return d


def struct_data(a: Attribute, d: Description) -> Any:
    """The value (the description's dataclass) of a `#stablehlo.<struct>` attribute.  Raises
    StructError when it is not one (``wrong_struct``: another struct)."""
    if type(a) is d.attr:
        return a.data  # type: ignore[attr-defined]
    if isinstance(a, OpaqueAttr):
        text = str(a.data)
        if text.startswith("#stablehlo."):
            if d.text_kept:
                if text.startswith(d.what + "<"):
                    return _read_text(text, d)
            else:
                try:
                    a = parse_attr_text(text)
                except (ParseError, StructError) as e:
                    raise _unreadable(text, e) from None
                if type(a) is d.attr:
                    return a.data  # type: ignore[attr-defined]
    if isinstance(a, DescribedAttr) or is_stablehlo(a):
        raise WrongStruct(d.what)
    raise StructError(f"not a structured StableHLO attribute: {attr_text(a)}")


def _unreadable(text: str, e: Exception) -> StructError:
    why = e.message if isinstance(e, ParseError) else str(e)
    return StructError(f"cannot read {text!r}: {why}")


def _read_text(text: str, d: Description) -> Any:
    """The value of a text-kept struct, read by its description's syntax."""
    try:
        return _read(text, d.parse_text)
    except (ParseError, StructError) as e:
        raise _unreadable(text, e) from None


class WrongStruct(StructError):
    """A StableHLO attribute of another kind than the struct expected (its ``what``)."""


def is_stablehlo(a: Attribute) -> bool:
    """A `#stablehlo.*` attribute (of a StableHLO class, or kept as text)."""
    name = a.name
    if isinstance(a, OpaqueAttr):
        return str(a.data).startswith("#stablehlo.")
    return name.startswith("stablehlo.") and not name.startswith("stablehlo_py.")


_BUILT = CONTEXT.table("vhlo.structs.built", 16384)  # (attribute class, value) -> the attribute
_built_get = _BUILT.get  # bound once (emptied in place): a dict subclass's method lookup is slow


def build(d: Description, data: Any) -> Attribute:
    """The attribute of a value (one shared attribute per class and value, as the parser's
    interning shares them, so that the verifier's memos find it)."""
    key = (d.attr, data)
    got: Attribute | None = _built_get(key)
    if got is None:
        got = _BUILT.put(key, _text_kept(d.text(data)) if d.text_kept else d.attr.new(data))
    return got


def _text_kept(text: str) -> Attribute:
    """The IR's attribute of a text-kept struct: its text as the parser keeps it."""
    from stablehlo_py.ir.text.parse_types import normalize_opaque

    return OpaqueAttr(normalize_opaque(text))


# ------------------------------------------------------------------------------ field values
def _type_to_vhlo(v: Any) -> Attribute | None:
    t = to_vhlo_type(v)
    return None if t is None else va.TypeV1Attr(t)


TO_VHLO: dict[str, Callable[[Any], Attribute | None]] = {
    "dims": va.i64_tensor,
    "int": va.integer,
    "bool": va.boolean,
    "type": _type_to_vhlo,
}
"""A field's value -> its flat VHLO attribute, by the field's kind (None: no VHLO counterpart)."""


def _ints(a: Attribute) -> tuple[int, ...] | None:
    if isinstance(a, va.TensorV1Attr) and len(a.dense.type.get_shape()) == 1:
        return a.ints()
    return None


def _int(a: Attribute) -> int | None:
    return a.value if isinstance(a, va.IntegerV1Attr) else None


def _bool(a: Attribute) -> bool | None:
    return a.value if isinstance(a, va.BooleanV1Attr) else None


def _type(a: Attribute) -> Attribute | None:
    return to_builtin_type(a.value) if isinstance(a, va.TypeV1Attr) else None


FROM_VHLO: dict[str, tuple[Callable[[Attribute], Any], str]] = {
    "dims": (_ints, "1-D #vhlo.tensor_v1"),
    "int": (_int, "#vhlo.integer_v1"),
    "bool": (_bool, "#vhlo.bool_v1"),
    "type": (_type, "#vhlo.type_v1"),
}
"""A flat VHLO attribute -> the field's value, by the field's kind (None: not that kind), and the
kind of VHLO attribute it must be."""


# ------------------------------------------------------------------------------ flattening
@dataclass(frozen=True, eq=False)
class Flattened:
    """One StableHLO struct attribute of an op held as flat VHLO attributes."""

    attribute: str
    """The StableHLO attribute (`dimension_numbers`)."""
    desc: Description
    fields: tuple[tuple[str, Field], ...]
    """(VHLO attribute, field), in the description's order."""
    names: tuple[str, ...]
    """The VHLO attributes, in that order."""
    absent: tuple[Attribute, ...] | None
    """For an optional attribute: each VHLO attribute's value when it is absent (their
    ``vhlo_default``s); None: the attribute is required when any field is given."""

    def to_vhlo(self, data: Any) -> list[tuple[str, Attribute | None]]:
        """Each VHLO attribute of a value (None: the field's value has no VHLO counterpart)."""
        return [(vname, TO_VHLO[f.kind.name](getattr(data, f.name))) for vname, f in self.fields]

    def from_vhlo(self, values: list[Attribute]) -> Attribute:
        """The StableHLO attribute of the VHLO attributes (in ``names`` order).  Raises StructError
        naming a VHLO attribute of the wrong kind, or a value the struct cannot hold."""
        got = {}
        for (vname, f), v in zip(self.fields, values):
            read, kind = FROM_VHLO[f.kind.name]
            x = read(v)
            if x is None:
                raise StructError(f"'{vname}' must be a {kind}, not {attr_text(v)}")
            got[f.name] = x
        data = self.desc.struct(**got)
        check = REGROUP_CHECKS.get(self.desc.mnemonic) or self.desc.verify
        if check is not None:
            msg = check(data)
            if msg is not None:
                raise StructError(f"'{self.attribute}': {msg}")
        return build(self.desc, data)


def _conv_in_range(data: Any) -> str | None:
    """The compact form's check (every dimension in range, once): the numbers VHLO may hold."""
    groups = (
        (
            len(data.input_spatial_dimensions) + 2,
            (data.input_batch_dimension, data.input_feature_dimension),
            data.input_spatial_dimensions,
        ),
        (
            len(data.kernel_spatial_dimensions) + 2,
            (data.kernel_input_feature_dimension, data.kernel_output_feature_dimension),
            data.kernel_spatial_dimensions,
        ),
        (
            len(data.output_spatial_dimensions) + 2,
            (data.output_batch_dimension, data.output_feature_dimension),
            data.output_spatial_dimensions,
        ),
    )
    for rank, named, spatial in groups:
        seen = [False] * rank
        for pos in (*named, *spatial):
            if not 0 <= pos < rank or seen[pos]:
                return f"convolution dimension {pos} is out of range or repeated for rank {rank}"
            seen[pos] = True
    return None


REGROUP_CHECKS: dict[str, Callable[[Any], str | None]] = {"conv": _conv_in_range}
"""Checks of a struct built from VHLO beyond its description's ``verify`` (which runs otherwise)."""


@cache
def flattening(op_name: str) -> tuple[Flattened, ...]:
    """The flattened struct attributes of a StableHLO op (`stablehlo.dot_general`), from the row
    of its current fork."""
    try:
        spec = specs.op_for_stablehlo(op_name)
    except (KeyError, LookupError):
        return ()
    return _of_spec(spec)


@cache
def flattening_of_fork(fork: str) -> tuple[Flattened, ...]:
    """The same, by VHLO fork (`dot_general_v2`)."""
    return _of_spec(specs.op(fork))


def _of_spec(spec: specs.OpSpec) -> tuple[Flattened, ...]:
    out = []
    attributes = {a.name: a for a in spec.attributes}
    for entry in spec.flatten:
        d = BY_MNEMONIC[entry.struct]
        fields = tuple((f.vhlo, f) for f in d.fields)
        missing = [n for n, _ in fields if n not in attributes]
        if missing:
            raise ValueError(
                f"specs/ops.toml: {spec.name} flattens #stablehlo.{entry.struct} but has no "
                f"attribute {', '.join(missing)}"
            )
        absent = None
        if entry.optional:
            defaults = [attributes[n].vhlo_default for n, _ in fields]
            if None in defaults:
                raise ValueError(
                    f"specs/ops.toml: {spec.name}'s optional {entry.attribute} needs a "
                    "vhlo_default for each field"
                )
            absent = tuple(parse_attr_text(t) for t in defaults)  # type: ignore[arg-type]
        out.append(Flattened(entry.attribute, d, fields, tuple(n for n, _ in fields), absent))
    return tuple(out)
