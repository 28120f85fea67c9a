"""How ops are laid out in MLIR bytecode: names, properties, attribute dictionaries, locations.

An :class:`OpEncoder` answers, for each op, what MLIR's writer would take from it:

* its name (dialect, name without the dialect, registered);
* from bytecode version 5 its *properties* record: for a VHLO op one attribute reference per
  inherent attribute in alphabetical order of the names (ODS' generated ``writeProperties``; all VHLO
  attributes are required); for ``builtin.module`` the optional ``sym_name`` and ``sym_visibility``;
* its attribute dictionary: the discardable attributes (version >= 5) or all of them merged (< 5),
  as a builtin DictionaryAttr sorted by name; ``None`` when empty;
* its location, and each block argument's location.

Problems (an op that is not VHLO, an attribute without an encoding) are collected and raised
together by :meth:`OpEncoder.check` as one :class:`NotEncodable` listing each with its location.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from stablehlo_py.serialization import codes
from stablehlo_py.serialization.entries import codec_for
from stablehlo_py.serialization.mlirbc import builtin, vhlo
from stablehlo_py.serialization.mlirbc.builtin import Loc, NotEncodable
from stablehlo_py.serialization.mlirbc.encoding import BytecodeError, Reader
from stablehlo_py.serialization.mlirbc.model import Entry, Interner
from stablehlo_py.serialization.reader import _op_shape
from stablehlo_py.vhlo import sinks
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Attribute, Operation

from stablehlo_py import specs
from stablehlo_py.ir.text.location import TextLoc, source_position

__all__ = ["OpEncoder", "OpInfo", "VhloOpEncoder"]

_MAX_PROBLEMS = 50
_UNSET: Any = object()


@dataclass
class OpInfo:
    full_name: str
    dialect: str
    short_name: str
    registered: bool
    attr_dict: Entry | None
    props: tuple[tuple[str, Any], ...] | None
    refs: tuple[Entry, ...] = field(init=False)
    """The entries the op refers to, in numbering order: its attribute dictionary, then each
    attribute or type of its properties record."""

    def __post_init__(self) -> None:
        refs = [] if self.attr_dict is None else [self.attr_dict]
        if self.props is not None:
            refs.extend(
                v for tag, v in self.props if v is not None and tag in ("A", "oA", "T")
            )
        self.refs = tuple(refs)


class OpEncoder:
    """Base: locations, builtin values and problem collection; subclasses describe their ops."""

    keeps_use_lists = True
    """Whether the values' use-list orders are written (``uselists``); not by an encoder that
    describes ops as what a conversion would make of them (``direct``)."""

    def __init__(self, version: int, strip_debuginfo: bool = False):
        self.version = version
        self.strip = strip_debuginfo
        self.interner = Interner()
        self.problems: list[str] = []
        self._unknown = self.interner.attr("builtin", ("v", builtin.UNKNOWN_LOC))
        self._file_names: dict[int, str] = {}
        # id -> (the object, its entry): keeps the object alive, so its id is not reused
        self._type_ids: dict[int, tuple[Attribute, Entry]] = {}
        self._attr_ids: dict[int, tuple[Attribute, Entry]] = {}

    # -- problems
    def problem(self, text: str) -> None:
        if len(self.problems) < _MAX_PROBLEMS:
            self.problems.append(text)

    def check(self) -> None:
        if self.problems:
            more = (
                "" if len(self.problems) < _MAX_PROBLEMS else f"\n  (stopped after {_MAX_PROBLEMS})"
            )
            raise NotEncodable("\n  ".join(self.problems) + more)

    def where(self, op: Operation | None) -> str:
        if op is None:
            return ""
        from stablehlo_py.ir.text.printer import location_text

        try:
            return f" at loc({location_text(op)})"
        except Exception:  # noqa: BLE001 - only for the message
            return ""

    # -- values
    def type_entry(self, t: Attribute, op: Operation | None) -> Entry:
        # by identity first: attributes are immutable and mostly shared, and hashing a nested
        # one (as the interner's memo does) costs more than the rest of the lookup
        got = self._type_ids.get(id(t))
        if got is not None and got[0] is t:
            return got[1]
        return self._new_entry(t, self._type_ids, builtin.type_entry, op, None)

    def value_entry(self, a: Attribute, op: Operation | None, name: str) -> Entry:
        got = self._attr_ids.get(id(a))
        if got is not None and got[0] is a:
            return got[1]
        return self._new_entry(a, self._attr_ids, builtin.attr_entry, op, name)

    def _new_entry(
        self,
        a: Attribute,
        ids: dict[int, tuple[Attribute, Entry]],
        builtin_entry: Callable[[Interner, Attribute], Entry],
        op: Operation | None,
        name: str | None,
    ) -> Entry:
        """The entry of a type (``name`` None) or of attribute ``name`` not met before: VHLO's
        codec or the builtin one; a problem (and the unknown location's entry) if neither fits."""
        try:
            if codec_for(a) is not None:
                e = vhlo.entry(self.interner, a)
            else:
                e = builtin_entry(self.interner, a)
            ids[id(a)] = (a, e)
            return e
        except NotEncodable as e:
            if name is None:
                self.problem(f"{e} (in {op.name if op else 'a block'}{self.where(op)})")
            else:
                self.problem(f"attribute '{name}' of {op.name if op else '?'}{self.where(op)}: {e}")
            return self._unknown

    def dictionary(self, attrs: dict[str, Attribute], op: Operation) -> Entry | None:
        if not attrs:
            return None
        return builtin.dictionary_entry(
            self.interner, [(k, self.value_entry(v, op, k)) for k, v in attrs.items()]
        )

    # -- locations
    def location_text_entry(self, text: str, op: Operation | None) -> Entry:
        try:
            return builtin.location_entry(self.interner, text)
        except NotEncodable as e:
            self.problem(f"{e} (in {op.name if op else 'a block argument'})")
            return self._unknown

    def op_location(self, op: Any) -> Entry:
        """An op's or block argument's location; without `loc(...)`, where it was parsed."""
        if self.strip:
            return self._unknown
        loc = getattr(op, "location", None)
        if type(loc) is TextLoc:
            return self.location_text_entry(loc.data, op if isinstance(op, Operation) else None)
        pos = source_position(op)
        if pos is not None:
            return builtin.file_line_col_entry(self.interner, *pos)
        if loc is None or isinstance(loc, UnknownLoc):
            return self._unknown
        self.problem(f"unsupported location kind {loc.name} (in {getattr(op, 'name', 'a block')})")
        return self._unknown

    arg_location = op_location

    # -- ops
    def trait_isolated(self, op: Operation) -> bool:
        return op.name == "builtin.module"

    def describe(self, op: Operation) -> OpInfo:  # pragma: no cover - abstract
        raise NotImplementedError

    def module_info(self, op: ModuleOp) -> OpInfo:
        sym = op.properties.get("sym_name")
        vis = op.properties.get("sym_visibility") or op.attributes.get("sym_visibility")
        discardable = {
            k: v for k, v in op.attributes.items() if k not in ("sym_name", "sym_visibility")
        }
        if self.version >= 5:
            props = (
                ("oA", None if sym is None else self.value_entry(sym, op, "sym_name")),
                ("oA", None if vis is None else self.value_entry(vis, op, "sym_visibility")),
            )
            return OpInfo(
                "builtin.module", "builtin", "module", True, self.dictionary(discardable, op), props
            )
        merged = dict(discardable)
        if sym is not None:
            merged["sym_name"] = sym
        if vis is not None:
            merged["sym_visibility"] = vis
        return OpInfo(
            "builtin.module", "builtin", "module", True, self.dictionary(merged, op), None
        )


class VhloOpEncoder(OpEncoder):
    """A ``builtin.module`` of VHLO ops, as upstream's portable artifacts hold."""

    def __init__(self, version: int, strip_debuginfo: bool = False):
        super().__init__(version, strip_debuginfo)
        self._specs: dict[str, tuple[str, ...] | None] = {}

    def _inherent(self, name: str) -> tuple[str, ...] | None:
        got = self._specs.get(name, _UNSET)
        if got is not _UNSET:
            return got  # type: ignore[return-value]
        try:
            names: tuple[str, ...] | None = tuple(sorted(specs.op(name).attribute_names))
        except KeyError:
            names = None
        self._specs[name] = names
        return names

    def describe(self, op: Operation) -> OpInfo:
        if op.name == "builtin.module":
            return self.module_info(op)  # type: ignore[arg-type]
        name = op.name
        inherent = self._inherent(name) if name.startswith("vhlo.") else None
        if inherent is None:
            self.problem(
                f"op {name}{self.where(op)} is not a VHLO op; portable artifacts hold only VHLO "
                "(run stablehlo-legalize-to-vhlo first; other dialects are not supported)"
            )
            return OpInfo(name, name.split(".", 1)[0], name.split(".", 1)[-1], False, None, None)
        props_src = op.properties
        attrs_src = op.attributes
        if (
            self.version >= 5
            and not attrs_src
            and len(props_src) == len(inherent)
            and all(k in props_src for k in inherent)
        ):  # the common case: exactly the inherent attributes, as properties
            props = tuple(("A", self.value_entry(props_src[k], op, k)) for k in inherent)
            return OpInfo(name, "vhlo", name[5:], True, None, props or None)
        values: dict[str, Attribute] = {}
        for k in inherent:
            a = props_src.get(k)
            if a is None:
                a = attrs_src.get(k)
            if a is None:
                self.problem(f"op {name}{self.where(op)} has no '{k}' attribute")
                continue
            values[k] = a
        discardable = {k: v for k, v in attrs_src.items() if k not in values}
        discardable.update((k, v) for k, v in props_src.items() if k not in values)
        short = name[5:]
        if self.version >= 5:
            props = tuple(
                ("A", self.value_entry(values[k], op, k)) for k in inherent if k in values
            )
            return OpInfo(
                name, "vhlo", short, True, self.dictionary(discardable, op), props or None
            )
        merged = dict(discardable)
        merged.update(values)
        return OpInfo(name, "vhlo", short, True, self.dictionary(merged, op), None)


_ = StringAttr


# =============================================================================================
# Reader side


# dialects a portable artifact may hold beside VHLO (allow_other_dialects: JAX's Shardy content, CHLO;
# read as xDSL ops, not records: `holds_other_dialects`)
OTHER_DIALECTS = ("sdy", "chlo")


def build_vhlo_op(
    rd: Any,
    dialect: str,
    name: str,
    pos: int,
    location: Any,
    attr_dict: dict[str, Attribute],
    props_rec: Any,
    result_types: list[Attribute],
    operands: list[Any],
    regions: list[Any],
    sink: Any = None,
) -> Operation:
    """Build one op of a VHLO artifact (``builtin.module`` or a VHLO op) from its decoded parts;
    ``rd`` is the bytecode reader (for attribute references in properties).  The ops of other
    dialects beside the VHLO (``OTHER_DIALECTS``) are built by ``dialect_ops.build_dialect_op``,
    which builds VHLO ops with this function: ``mlirbc.read_vhlo`` picks one of the two per op.
    ``sink``: where the checked parts go (``vhlo.sinks``; by default the reader's choice of
    records or xDSL ops; ``serialization.direct_read`` builds StableHLO ops)."""
    if sink is None:
        sink = sinks.of_records(rd.records)
    full = f"{dialect}.{name}"
    props: dict[str, Attribute] = {}
    if full == "builtin.module":
        if props_rec is not None:
            (start, end), at = props_rec
            r = Reader(rd.data, start, end, "properties")
            for key in ("sym_name", "sym_visibility"):
                v = r.varint()
                if v & 1:
                    rd._pos = at
                    a = rd.attr(v >> 1)
                    if not isinstance(a, StringAttr):
                        raise BytecodeError(f"module {key} must be a string", at)
                    props[key] = a
                elif v:
                    raise BytecodeError(f"invalid optional reference {v}", at)
            if not r.at_end():
                raise BytecodeError("trailing bytes in the module's properties", start)
        attrs = dict(attr_dict)
        for key in ("sym_name", "sym_visibility"):
            if key in attrs:
                props[key] = attrs.pop(key)
        if result_types or operands or len(regions) != 1:
            raise BytecodeError("builtin.module must have one region, no operands or results", pos)
        if len(regions[0].blocks) != 1 or regions[0].blocks.first.args:
            raise BytecodeError("the module body must be one block without arguments", pos)
        if any(isinstance(v, Loc) for v in attrs.values()):
            raise BytecodeError("a module attribute is a location", pos)
        return sink.module(props, attrs, regions, location)  # type: ignore[no-any-return]
    if dialect != "vhlo":
        raise BytecodeError(
            f"op {full} is not a VHLO op; portable artifacts hold only VHLO "
            "(artifacts written with allow_other_dialects are not supported)",
            pos,
        )
    try:
        code = codes.op_code(name)
    except KeyError:
        ver = rd.producer
        raise BytecodeError(
            f"unknown VHLO op vhlo.{name} (the artifact's producer is '{ver}'; this toolkit knows "
            "VHLO up to StableHLO " + str(_current()) + ")",
            pos,
        ) from None
    shape = _op_shape(code)
    names = _sorted_names(code)
    attrs = dict(attr_dict)
    if props_rec is not None:
        (start, end), at = props_rec
        r = Reader(rd.data, start, end, "properties")
        for key in names:
            rd._pos = r.pos
            props[key] = rd.attr(r.varint())
        if not r.at_end():
            raise BytecodeError(f"vhlo.{name}'s properties record has trailing bytes", start)
    else:
        for key in names:
            if key in attrs:
                props[key] = attrs.pop(key)
    fresh = props_rec is not None  # read from a properties record: not counted yet
    for key, a in props.items():
        if isinstance(a, Loc) or codec_for(a) is None:
            raise BytecodeError(f"attribute '{key}' of vhlo.{name} is not a VHLO attribute", pos)
        what = f"attribute '{key}' of vhlo.{name}"
        rd.charge(a, pos, what, fresh, elements=not (shape.constant and key == "value"))
    for key, a in attrs.items():
        if isinstance(a, Loc):
            raise BytecodeError(f"attribute '{key}' of vhlo.{name} is a location", pos)
        rd.charge(a, pos, f"attribute '{key}' of vhlo.{name}", nodes=False, elements=True)
    if shape.counts != (len(operands), len(result_types), len(regions), len(props)):
        problem = shape.problem(len(operands), len(result_types), len(regions), props)
        if problem is not None:
            raise BytecodeError(f"invalid vhlo.{name}: {problem}", pos)
    for t in result_types:
        if codec_for(t) is None:
            raise BytecodeError(f"a result type of vhlo.{name} is not a VHLO type", pos)
    return sink.op(None, shape.cls, operands, result_types, props, attrs, regions, location)  # type: ignore[no-any-return]


@cache
def _sorted_names(code: int) -> tuple[str, ...]:
    """An op fork's attribute names in the order of its properties record (alphabetical)."""
    return tuple(sorted(_op_shape(code).spec.attribute_names))


def _current() -> Any:
    from stablehlo_py.version import get_current_version

    return get_current_version()
