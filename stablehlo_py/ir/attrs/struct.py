"""The description of a StableHLO struct attribute, and the text derived from it.

Each struct attribute (`#stablehlo.dot<...>`, `#stablehlo.gather<...>`, `#stablehlo.channel_handle<...>`
...) is described once, in `stablehlo_py/ir/attrs/<name>.py`, by two classes:

- a frozen dataclass, the attribute's value, whose fields are declared with :func:`field`: the
  field's kind (:class:`Kind`: how a value is read and written as text; its ``name`` keys the
  builder's and the bytecode codec's tables), its default (none: the field is required), when it is
  printed (``ALWAYS``, ``NONEMPTY``, ``NONDEFAULT``, as upstream's printer) and the name of the
  flat VHLO attribute that holds it where VHLO names it otherwise (``channel_id`` for ``handle``);
- the attribute class, a :class:`DescribedAttr`: its MLIR name, its value class (``STRUCT``),
  upstream's text syntax (``SYNTAX``: a :class:`KeywordList` -- upstream's parseStruct, any order,
  with the diagnostics this toolkit gives --, :class:`FixedOrder`, or a custom syntax object with
  the same two methods, as `#stablehlo.conv`'s compact form), its kind code in upstream's MLIR
  bytecode (``BYTECODE``, StablehloBytecode.cpp) and the fields' order there where it differs
  from the declaration order (``BYTECODE_ORDER``), optionally a check run when it is parsed
  (``VERIFY``: upstream's attribute verifier), and whether the IR keeps it as its text
  (``TEXT_KEPT``: `#stablehlo.mesh` prints back as written; the description reads and writes it).

:func:`describe` gives the :class:`Description` of an attribute class; everything else reads it:
`mlir_text` / `parse_body` here, the builder's converter (`stablehlo_py.builder.attrs`), the MLIR
bytecode codec (`stablehlo_py.serialization.mlirbc.stablehlo`). So a new field of a struct (as
upstream added the dot algorithm's fields, or scatter's batching dimensions) is one line in the
struct's file.
"""

from __future__ import annotations

import dataclasses
import struct as _struct
from collections.abc import Callable
from dataclasses import MISSING, dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.ir import Attribute

from stablehlo_py.ir.attributes import StructAttr
from stablehlo_py.ir.text.floats import FLOAT_SEMANTICS, format_float, hex_f64, parse_number_token
from stablehlo_py.ir.text.spelling import attr_to_str, string_literal, type_to_str
from stablehlo_py.ir.types import parse_dim_size

if TYPE_CHECKING:
    from stablehlo_py.ir.registry import Registry
    from stablehlo_py.ir.text.parser import Parser

REQUIRED: Any = MISSING
"""The default of a required field (it has none)."""

ALWAYS, NONEMPTY, NONDEFAULT = "always", "nonempty", "nondefault"
"""When a field is printed: always; when its value is not empty (upstream's printField of a list);
when it differs from its default (printField of a number, an optional parameter)."""


# ------------------------------------------------------------------------------------ kinds
@dataclass(frozen=True, eq=False)
class Kind:
    """How a field's value is read from and written to text. ``name`` is the kind the builder and the
    bytecode codec know it by (one converter, one reader and one writer per name): ``dims`` (a tuple
    of ints, -1 for `?`), ``int``, ``bool``, ``type``, ``f64`` (the value's bit pattern, so that -0.0
    is not 0.0), ``enum`` (a case name of ``enum``), ``str``, ``attr``, ``attrs`` (a tuple of
    attributes), ``sub_axis_info`` (None or ``(pre_size, size)``), ``structs`` (a tuple of another
    description's values)."""

    name: str
    parse: Callable[[Parser], Any]
    text: Callable[[Any], str]
    enum: Any = None
    """For ``enum``: the EnumAttr class whose case names the values are."""
    element: Any = None
    """For ``structs``: the :class:`Description` of the elements."""


def ints_text(xs: tuple[int, ...]) -> str:
    """`[1, 2]` (a dynamic size prints as -1)."""
    return "[" + ", ".join(str(x) for x in xs) + "]"


def dim_sizes_text(xs: tuple[int, ...]) -> str:
    """printDimSizes: `?` for a dynamic size."""
    return "[" + ", ".join("?" if x < 0 else str(x) for x in xs) + "]"


def parse_dims(p: Parser) -> tuple[int, ...]:
    """`[1, 2]` (upstream's parseDimSizes; `?` is a dynamic size)."""
    return tuple(p.parse_delimited("[", lambda: parse_dim_size(p, "a dimension or '?'"), "]"))


def parse_loose_dims(p: Parser) -> tuple[int, ...]:
    """`[1, 2]`, the commas optional (`[1 2]`): gather's and scatter's lists."""
    p.parse_literal("[")
    dims: list[int] = []
    while not p.try_literal("]"):
        dims.append(p.parse_integer())
        p.try_literal(",")
    return tuple(dims)


def parse_bool(p: Parser) -> bool:
    if p.try_keyword("true"):
        return True
    p.parse_keyword("false")
    return False


def parse_f64(p: Parser) -> float:
    """A float literal read as an f64 (MLIR's parseFloat: also integers and hex bit patterns)."""
    m = parse_number_token(p, "a floating-point number")
    tok = m.group(0)
    if "x" in tok:
        v = hex_f64(tok)
        if v is None:  # more bits than an f64 has (MLIR's parseFloat)
            p.error("hexadecimal float constant out of range for type", m.start())
        return v
    return float(tok)


def f64_bits(v: float) -> int:
    return _struct.unpack("<Q", _struct.pack("<d", v))[0]


def bits_f64(b: int) -> float:
    return _struct.unpack("<d", _struct.pack("<Q", b))[0]


def _f64_text(bits: int) -> str:
    return format_float(bits_f64(bits), FLOAT_SEMANTICS["f64"])


def _parse_sub_axis_info(p: Parser) -> tuple[int, int]:
    p.parse_literal("(")
    pre = p.parse_integer()
    p.parse_literal(")")
    return (pre, p.parse_integer())


def _sub_axis_info_text(v: tuple[int, int]) -> str:
    return f"({v[0]}){v[1]}"


def _parse_attrs(p: Parser) -> tuple[Attribute, ...]:
    return tuple(p.parse_delimited("[", p.parse_attribute, "]"))


DIMS = Kind("dims", parse_dims, ints_text)
"""A list of dimensions, `[0, 1]` (parseDimSizes: `?` reads as -1, written back as -1)."""
DIM_SIZES = Kind("dims", parse_dims, dim_sizes_text)
"""A list of dimension sizes, `[0, ?]` (printDimSizes)."""
LOOSE_DIMS = Kind("dims", parse_loose_dims, ints_text)
"""A list of dimensions whose commas are optional when read (gather's and scatter's)."""
INT = Kind("int", lambda p: p.parse_integer(), str)
BOOL = Kind("bool", parse_bool, lambda v: "true" if v else "false")
TYPE = Kind("type", lambda p: p.parse_type(), type_to_str)
F64 = Kind("f64", lambda p: f64_bits(parse_f64(p)), _f64_text)
STR = Kind("str", lambda p: p.parse_string("an axis name"), string_literal)
ATTR = Kind("attr", lambda p: p.parse_attribute(), attr_to_str)
ATTRS = Kind("attrs", _parse_attrs, lambda v: "[" + ", ".join(attr_to_str(a) for a in v) + "]")
SUB_AXIS_INFO = Kind("sub_axis_info", _parse_sub_axis_info, _sub_axis_info_text)


def enum_kind(enum_cls: Any) -> Kind:
    """A case name of ``enum_cls``, written as its attribute (`#stablehlo.result_accuracy_mode<X>`)."""
    what = f"#{enum_cls.name}"

    def parse(p: Parser) -> str:
        return p.parse_attribute_of(enum_cls, f"expected a {what}<...> attribute").data

    return Kind("enum", parse, lambda v: f"{what}<{v}>", enum_cls)


def struct_list_kind(attr_cls: Any) -> Kind:
    """A list of ``attr_cls``'s values, `[#stablehlo.mesh_axis<...>, ...]`; read also without the
    elements' name, `[<...>, ...]`, as upstream prints an ArrayRefParameter of attributes."""
    d: Description = attr_cls.DESC

    def parse(p: Parser) -> tuple[Any, ...]:
        def item() -> Any:
            p.ws()
            p.try_literal(d.what)
            return d.syntax.parse(d, p)

        return tuple(p.parse_delimited("[", item, "]"))

    return Kind("structs", parse, lambda v: "[" + ", ".join(d.text(x) for x in v) + "]", element=d)


# ------------------------------------------------------------------------------------ fields
_META = "stablehlo_py.struct"


def field(
    kind: Kind,
    default: Any = REQUIRED,
    *,
    printed: str = ALWAYS,
    key: str | None = None,
    vhlo: str | None = None,
    required: bool = False,
) -> Any:
    """A described dataclass field: its kind, default (none: required), when it is printed, upstream's
    name for it where the Python field is named otherwise (``key``: result_accuracy's ``atol`` is the
    field ``atol_bits``), its flat VHLO attribute's name where VHLO names it otherwise, and whether
    text must give it although it has a default (``required``: result_accuracy's ``mode``)."""
    assert printed in (ALWAYS, NONEMPTY, NONDEFAULT), printed
    meta = {_META: (kind, printed, key, vhlo, required)}
    if default is REQUIRED:
        return dataclasses.field(metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True, eq=False)
class Field:
    name: str
    """The dataclass field."""
    key: str
    """Upstream's name of the parameter (in text, and in VHLO unless ``vhlo`` says otherwise)."""
    kind: Kind
    default: Any
    """REQUIRED when the field has none."""
    printed: str
    vhlo: str
    """The flat VHLO attribute holding this field where VHLO flattens the struct (vhlo/flattened.py)."""
    required: bool
    """Text must give it (it has no default, or it is declared so)."""

    def is_printed(self, v: Any) -> bool:
        p = self.printed
        return p is ALWAYS or (bool(v) if p is NONEMPTY else v != self.default)


# ------------------------------------------------------------------------------------ syntax
def _ticked(names: list[str]) -> str:
    return ", ".join("`" + n + "`" for n in names)


@dataclass(frozen=True)
class KeywordList:
    """Upstream's parseStruct: `<key = value, ...>`, the keys in any order, each at most once, a
    trailing comma allowed (``trailing_comma``); printed in declaration order (printStruct).

    The messages are templates over ``what`` (`#stablehlo.dot`), ``key``, ``keys`` (`` `a`, `b` ``)
    and ``names`` (``a, b``). ``open`` is the context of a missing `<` (None: none); a key is read as
    a bare identifier (an unknown one or none is ``unknown``) or, with ``keyword_keys``, as MLIR's
    parseKeyword (its own error when there is no word)."""

    open: str | None = "to open {what}"
    unknown: str = "expected one of: {keys} in {what}"
    duplicate: str = "duplicated `{key}` entry in {what}"
    missing: str = "{what} is missing required parameter: {key}"
    keyword_keys: bool = False
    trailing_comma: bool = True

    def print_body(self, d: Description, data: Any) -> str:
        return entries_text(d, data)

    def parse(self, d: Description, p: Parser) -> Any:
        p.parse_literal("<", None if self.open is None else self.open.format(what=d.what))
        return self.parse_entries(d, p)

    def parse_entries(self, d: Description, p: Parser) -> Any:
        """The entries and the closing `>` (after `<` and whatever the syntax reads before them)."""
        by_key = d.by_key
        values: dict[str, Any] = {}
        if not p.try_literal(">"):
            while True:
                p.ws()
                pos = p.pos
                key = p.parse_keyword() if self.keyword_keys else p.try_bare_id()
                f = by_key.get(key)  # type: ignore[arg-type]
                if f is None:
                    names = list(by_key)
                    p.error(
                        self.unknown.format(
                            what=d.what, key=key, keys=_ticked(names), names=", ".join(names)
                        ),
                        pos,
                    )
                if f.name in values:
                    p.error(self.duplicate.format(what=d.what, key=key), pos)
                p.parse_literal("=")
                values[f.name] = f.kind.parse(p)
                if not p.try_literal(","):
                    p.parse_literal(">", f"to close {d.what}")
                    break
                if self.trailing_comma and p.try_literal(">"):
                    break
        for f in d.required:
            if f.name not in values:
                p.error(self.missing.format(what=d.what, key=f.key))
        return d.struct(**values)


@dataclass(frozen=True)
class FixedOrder:
    """`<a = 1, b = [2], c = 3>`: every field, in declaration order (an assembly format of
    `struct(params)` without optional parameters)."""

    def print_body(self, d: Description, data: Any) -> str:
        return entries_text(d, data)

    def parse(self, d: Description, p: Parser) -> Any:
        p.parse_literal("<", f"to open {d.what}")
        values = []
        for i, f in enumerate(d.fields):
            if i:
                p.parse_literal(",")
            p.parse_keyword(f.key)
            p.parse_literal("=")
            values.append(f.kind.parse(p))
        p.parse_literal(">", f"to close {d.what}")
        return d.struct(*values)


PARSE_STRUCT = KeywordList()
"""StablehloOps.cpp's parseStruct, with the toolkit's messages (`#stablehlo.dot`, `dot_algorithm`,
`result_accuracy`, conv's `raw` form)."""


def entries_text(d: Description, data: Any) -> str:
    """`a = 1, b = [2]`: the printed fields in declaration order."""
    parts = []
    for name, key, text, f in d.printers:
        v = getattr(data, name)
        if f is None or f.is_printed(v):
            parts.append(f"{key} = {text(v)}")
    return ", ".join(parts)


# ------------------------------------------------------------------------------- description
@dataclass(frozen=True, eq=False)
class Description:
    """Everything known about one struct attribute (see the module docstring)."""

    attr: type
    mnemonic: str
    struct: type
    fields: tuple[Field, ...]
    syntax: Any
    """KeywordList, FixedOrder or a custom object with `print_body(d, data)` and `parse(d, p)`."""
    bytecode: int | None
    """The attribute's kind code in upstream's MLIR bytecode (None: written as text)."""
    bytecode_fields: tuple[Field, ...]
    """The fields in the order upstream's bytecode writes them."""
    verify: Callable[[Any], str | None] | None
    text_kept: bool = False
    """The IR holds the attribute as its text (an OpaqueAttr, printed back as written), not as
    ``attr``: `#stablehlo.mesh`, `#stablehlo.mesh_axis`."""
    what: str = dataclasses.field(init=False)
    """`#stablehlo.<mnemonic>` (upstream's name of the attribute), as messages name it."""
    by_key: dict[str, Field] = dataclasses.field(init=False)
    """The fields by upstream's name, in declaration order."""
    required: tuple[Field, ...] = dataclasses.field(init=False)
    printers: tuple[tuple[str, str, Callable[[Any], str], Field | None], ...] = dataclasses.field(
        init=False
    )
    """(name, key, text, the field when it is not always printed), in declaration order."""

    def __post_init__(self) -> None:
        init = object.__setattr__  # a frozen dataclass's derived fields
        init(self, "what", "#" + self.attr.name.partition(".")[0] + "." + self.mnemonic)
        init(self, "by_key", {f.key: f for f in self.fields})
        init(self, "required", tuple(f for f in self.fields if f.required))
        printers = tuple(
            (f.name, f.key, f.kind.text, None if f.printed is ALWAYS else f) for f in self.fields
        )
        init(self, "printers", printers)

    def text(self, data: Any) -> str:
        """`#stablehlo.<mnemonic><...>`: the text of a value in upstream's syntax."""
        return self.what + "<" + self.syntax.print_body(self, data) + ">"

    def parse_text(self, p: Parser) -> Any:
        """The value of `#stablehlo.<mnemonic><...>` read from ``p`` (a struct kept as text)."""
        p.parse_literal(self.what)
        return self.syntax.parse(self, p)

    def values(self, data: Any) -> dict[str, Any]:
        """The fields of a value by upstream's name (``key``), in declaration order."""
        return {f.key: getattr(data, f.name) for f in self.fields}

    def build(self, **values: Any) -> Any:
        """The attribute of the fields given by upstream's name (the others take their defaults)."""
        by_key = self.by_key
        return self.attr.new(self.struct(**{by_key[k].name: v for k, v in values.items()}))


def struct_fields(struct_cls: type) -> tuple[Field, ...]:
    """The described fields of a dataclass declared with :func:`field`."""
    out = []
    for f in dataclasses.fields(struct_cls):
        kind, printed, key, vhlo, required = f.metadata[_META]
        default = f.default if f.default is not MISSING else REQUIRED
        key = key or f.name
        required = required or default is REQUIRED
        out.append(Field(f.name, key, kind, default, printed, vhlo or key, required))
    return tuple(out)


def describe(attr_cls: type) -> Description:
    """The description of a :class:`DescribedAttr` class."""
    return attr_cls.DESC  # type: ignore[attr-defined]


def _describe(cls: Any) -> Description:
    fields = struct_fields(cls.STRUCT)
    by_name = {f.name: f for f in fields}
    order = cls.BYTECODE_ORDER
    return Description(
        attr=cls,
        mnemonic=cls.name.partition(".")[2],
        struct=cls.STRUCT,
        fields=fields,
        syntax=cls.SYNTAX,
        bytecode=cls.BYTECODE,
        bytecode_fields=fields if order is None else tuple(by_name[n] for n in order),
        verify=cls.VERIFY,
        text_kept=cls.TEXT_KEPT,
    )


def describe_data(
    attr: type, mnemonic: str, struct: type, kinds: dict[str, Kind], syntax: Any, bytecode: int
) -> Description:
    """The description of an attribute class defined below this package, whose value is a plain
    dataclass (``struct``): ``kinds`` gives its fields' kinds, each required and always printed."""
    fields = tuple(Field(n, n, k, REQUIRED, ALWAYS, n, True) for n, k in kinds.items())
    return Description(attr, mnemonic, struct, fields, syntax, bytecode, fields, None)


# --------------------------------------------------------------------------------- attribute
class DescribedAttr(StructAttr):
    """A struct attribute holding a value of its described dataclass ``STRUCT`` (see the module
    docstring); its text and every other encoding are derived from :func:`describe`."""

    STRUCT: ClassVar[type]
    SYNTAX: ClassVar[Any] = PARSE_STRUCT
    BYTECODE: ClassVar[int | None] = None
    BYTECODE_ORDER: ClassVar[tuple[str, ...] | None] = None
    VERIFY: ClassVar[Callable[[Any], str | None] | None] = None
    TEXT_KEPT: ClassVar[bool] = False
    DESC: ClassVar[Description]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "STRUCT" in cls.__dict__ or "name" in cls.__dict__:
            cls.DESC = _describe(cls)
            cls.MNEMONIC = cls.DESC.mnemonic

    @classmethod
    def of(cls, data: Any) -> DescribedAttr:
        """The attribute of a value (whatever the class's own constructor takes)."""
        return cls.new(data)

    def mlir_stripped(self) -> str:
        """`<...>`: the text after the attribute's name."""
        return "<" + self.DESC.syntax.print_body(self.DESC, self.data) + ">"

    def mlir_text(self) -> str:
        return "#" + self.name + self.mlir_stripped()

    @classmethod
    def parse_body(cls, p: Parser) -> DescribedAttr:
        """`<...>`, after `#stablehlo.<mnemonic>` (or where an op's syntax writes the body alone)."""
        d = cls.DESC
        if d.verify is None:
            return cls.new(d.syntax.parse(d, p))
        p.ws()
        pos = p.pos
        data = d.syntax.parse(d, p)
        # upstream's attribute verifier runs when the attribute is built: at its location
        msg = d.verify(data)
        if msg is not None:
            p.error(msg, pos)
        return cls.new(data)


def register_parsers(reg: Registry, classes: tuple[type[DescribedAttr], ...]) -> None:
    for cls in classes:
        reg.attr_parsers[cls.name] = cls.parse_body
