"""The version tables: every VHLO op, type and attribute, and the dated release log, as data.

The facts live in three TOML files next to this module (the single source of truth; nothing else in
the toolkit hard-codes a version):

* ``ops.toml`` — every VHLO op fork (``add_v1``, ``all_gather_v2``, ...): version range, operands,
  attributes in declaration order with their defaults, results, regions, the StableHLO op it maps to;
* ``types.toml`` — VHLO types and attributes/enums with version ranges, parameters, bytecode codes;
* ``releases.toml`` — StableHLO 0.9.0 ... 1.22.0, one entry per minor version, dated by upstream's
  vX.Y.0 tags (``tagged = false`` and no date for a minor without one), with upstream's version log.

They are read once (``tomllib``, cached) into frozen dataclasses.  Legality is a range test
(``min <= target <= max`` with the target's patch treated as 0, where ``max = "current"`` means
the newest release); "the current fork"
of an op is derived (the fork whose range reaches the current version).

Lookups::

    from stablehlo_py import specs
    specs.op("add_v1")                      # by VHLO name (``vhlo.`` prefix optional)
    specs.op_for_stablehlo("stablehlo.add")  # the fork a StableHLO/func op legalizes to
    specs.forks("all_gather")               # every fork, oldest first
    specs.fork_at("all_gather", Version(1, 4, 0))
    specs.ops_legal_at("1.4.0")
    specs.type_spec("f8E4M3_v1"), specs.attr_spec("comparison_direction_v1")
    specs.releases(), specs.release("1.7.0")
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from stablehlo_py.version_numbers import Version

_Row = TypeVar("_Row")

__all__ = [
    "AttrSpec",
    "EnumCase",
    "FlattenSpec",
    "OpAttributeSpec",
    "OpSpec",
    "Release",
    "TypeSpec",
    "ValueSpec",
    "attr_spec",
    "attrs",
    "attrs_legal_at",
    "current_fork",
    "fork_at",
    "forks",
    "op",
    "op_for_stablehlo",
    "ops",
    "ops_legal_at",
    "release",
    "releases",
    "type_spec",
    "types",
    "types_legal_at",
]

CURRENT = "current"
"""The spelling of an open upper bound in the tables (upstream's ``VHLO_Op<..., "current">``)."""

DEFAULT_RULES = frozenset(
    {
        "ones(num_spatial_dims)",
        "falses(num_spatial_dims)",
        "zeros(num_spatial_dims, 2)",
        "ones(num_window_dims)",
        "zeros(num_window_dims, 2)",
    }
)
"""Shape-dependent defaults: a tensor of ones/zeros/falses with one entry (or one pair) per spatial
dimension (convolutions) or per window dimension (reduce_window, select_and_scatter)."""


def _current_version() -> Version:
    # The newest release: what stablehlo_py.version.get_current_version answers (it reads this log;
    # computed here so this module does not import that one back).
    return releases()[-1].version


def _resolve_max(text: str) -> Version:
    return _current_version() if text == CURRENT else Version.from_string(text)


def _as_version(version: Version | str) -> Version:
    if isinstance(version, Version):
        return version
    return _current_version() if version == CURRENT else Version.from_string(version)


class _Ranged:
    """Mixin for table rows with ``min``/``max`` version bounds (strings as written in the TOML)."""

    min: str
    max: str

    @property
    def min_version(self) -> Version:
        return Version.from_string(self.min)

    @property
    def max_version(self) -> Version:
        """The upper bound; ``"current"`` resolves to the current version."""
        return _resolve_max(self.max)

    @property
    def is_current(self) -> bool:
        """Whether the row is still legal at the current version."""
        return self.max == CURRENT

    def is_legal_at(self, version: Version | str) -> bool:
        """The range test ``min <= version <= max``, with the version's patch treated as 0.

        Bounds are always X.Y.0 releases and patches never change the opset, so ``1.4.1`` has the
        1.4.0 opset (upstream's vhlo_to_version_downgrade_patch.mlir: target 1.4.1 selects
        ``all_to_all_v1``, whose max is 1.4.0).
        """
        target = _as_version(version).with_zero_patch()
        return self.min_version <= target <= self.max_version


@dataclass(frozen=True)
class ValueSpec:
    """An operand, result or region of an op: its name and whether it is variadic."""

    name: str
    variadic: bool = False


@dataclass(frozen=True)
class FlattenSpec:
    """A StableHLO struct attribute that VHLO keeps as flat attributes of the op (a row's ``flatten``
    entry): ``attribute`` of the StableHLO op is the struct `#stablehlo.<struct>`, one VHLO attribute
    per field of its description (``stablehlo_py/ir/attrs/``), named by the field's VHLO name.

    ``optional``: the StableHLO attribute may be absent, written in VHLO as every field holding its
    ``vhlo_default`` (dot_general's `algorithm`: seven `none` types); VHLO fields all at their
    defaults read back as no attribute."""

    attribute: str
    struct: str
    optional: bool = False


@dataclass(frozen=True)
class OpAttributeSpec:
    """One attribute of a VHLO op, with StableHLO's default where one exists.

    ``default`` is the default value in StableHLO text (``false``, ``0 : i64``, ``[]``,
    ``#stablehlo<comparison_type NOTYPE>``); ``default_rule`` replaces it when the value depends
    on the operand shapes (see :data:`DEFAULT_RULES`).  ``vhlo_default`` is the same value as
    upstream's ``stablehlo-legalize-to-vhlo`` writes it (``N`` stands for the dimension count).
    An attribute with neither ``default`` nor ``default_rule`` nor ``vhlo_default`` is required.
    """

    name: str
    default: str | None = None
    default_rule: str | None = None
    vhlo_default: str | None = None
    note: str | None = None
    stablehlo_field: tuple[str, str] | None = None
    """(StableHLO struct attribute, field): the VHLO attribute is that one field of the struct, whose
    other fields take their defaults (the collectives' ``channel_id``: ``channel_handle.handle``)."""
    integer_enum: str | None = None
    """The VHLO enum whose integer value StableHLO writes as an i32 (custom_call's ``api_version``)."""
    vhlo_default_when: tuple[str, str, str] | None = None
    """(attribute, value, default): ``vhlo_default`` is ``default`` instead while the op's
    ``attribute`` holds ``value`` (VHLO text; custom_call's ``backend_config`` with the typed FFI)."""

    @property
    def has_default(self) -> bool:
        return (
            self.default is not None
            or self.default_rule is not None
            or (self.vhlo_default is not None)
        )


@dataclass(frozen=True)
class _TableRow(_Ranged):
    """What every row of ``ops.toml`` and ``types.toml`` has: its VHLO name (with the version suffix:
    ``add_v1``, ``f32_v1``), upstream's TableGen definition and its version range."""

    name: str
    td_def: str
    min: str
    max: str


@dataclass(frozen=True)
class _DialectRow(_TableRow):
    """A row of ``types.toml`` (a type or an attribute): its C++ class, its parameters in upstream's
    order and its code in upstream's MLIR bytecode."""

    cpp: str
    parameters: tuple[str, ...]
    bytecode_code: int


@dataclass(frozen=True)
class OpSpec(_TableRow):
    """One VHLO op fork, e.g. ``all_gather_v2`` (its ``name``)."""

    base: str
    """Name without the suffix, shared by all forks, e.g. ``add``."""
    version: int
    code: int
    """Wire code in this toolkit's msgpack artifacts (append-only; ``serialization/codes.py``)."""
    mnemonic: str
    """Full op name, e.g. ``vhlo.add_v1``."""
    stablehlo: tuple[str, ...]
    """StableHLO/func ops this fork maps to directly (empty for forks reached only by upgrade)."""
    operands: tuple[ValueSpec, ...]
    attributes: tuple[OpAttributeSpec, ...]
    results: tuple[ValueSpec, ...]
    regions: tuple[ValueSpec, ...]
    traits: tuple[str, ...] = ()
    assembly_format: bool = False
    constraint: str | None = None
    """The value-dependent legality check of this fork (``vhlo/legality.py`` ``CONSTRAINT_KINDS``)."""
    note: str | None = None
    flatten: tuple[FlattenSpec, ...] = ()
    """The StableHLO struct attributes this fork holds as flat attributes (read for the forks that
    map to StableHLO: ``vhlo/structs.py``)."""

    def attribute(self, name: str) -> OpAttributeSpec:
        for attribute in self.attributes:
            if attribute.name == name:
                return attribute
        raise KeyError(f"VHLO op {self.mnemonic} has no attribute {name!r}")

    @property
    def attribute_names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.attributes)


@dataclass(frozen=True)
class TypeSpec(_DialectRow):
    """A VHLO type, e.g. ``f8E4M3_v1`` (``!vhlo.f8E4M3_v1``)."""

    mnemonic: str


@dataclass(frozen=True)
class EnumCase:
    name: str
    value: int


@dataclass(frozen=True)
class AttrSpec(_DialectRow):
    """A VHLO attribute (``kind == "attr"``) or enum attribute (``kind == "enum"``)."""

    kind: str
    cases: tuple[EnumCase, ...]

    def case(self, name: str) -> EnumCase:
        for case in self.cases:
            if case.name == name:
                return case
        raise KeyError(f"VHLO enum {self.name} has no case {name!r}")


@dataclass(frozen=True)
class Release:
    """One minor release of StableHLO (X.Y.0)."""

    version: Version
    date: datetime.date | None
    """The day upstream's vX.Y.0 tag was made; None for an untagged release."""
    tagged: bool
    """False for a minor version upstream never tagged (0.20.0, 1.17.0) or has not tagged yet
    (1.20.0, 1.21.0, 1.22.0).  Such a release has no date and is never a WEEK_4 / WEEK_12 answer (upstream measures
    those from tag dates only; see releases.toml); it is a release in every other sense."""
    mlir_bytecode_version: int
    changes: tuple[str, ...]
    patch_tags: tuple[tuple[int, datetime.date], ...] = ()
    """Upstream's vX.Y.Z patch tags of this release as (Z, day), oldest first."""

    def tags(self) -> tuple[tuple[Version, datetime.date], ...]:
        """Every tag of this release, vX.Y.0 (when tagged) and its patch tags, with their days."""
        v = self.version
        head = ((v, self.date),) if self.date is not None else ()
        return head + tuple((Version(v.major, v.minor, z), day) for z, day in self.patch_tags)


# --------------------------------------------------------------------------------------------
# Loading


def _read(filename: str) -> dict[str, Any]:
    text = resources.files(__name__).joinpath(filename).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _values(rows: list[dict[str, Any]]) -> tuple[ValueSpec, ...]:
    return tuple(ValueSpec(r["name"], bool(r.get("variadic", False))) for r in rows)


def _field(row: dict[str, Any], a: dict[str, Any]) -> tuple[str, str] | None:
    text = a.get("stablehlo_field")
    if text is None:
        return None
    parts = tuple(text.split("."))
    _check(
        len(parts) == 2 and all(p.isidentifier() for p in parts),
        f"{row['name']}.{a['name']}: stablehlo_field must be '<attribute>.<field>', not {text!r}",
    )
    return parts  # type: ignore[return-value]


def _default_when(row: dict[str, Any], a: dict[str, Any]) -> tuple[str, str, str] | None:
    when = a.get("vhlo_default_when")
    if when is None:
        return None
    keys = ("attribute", "equals", "default")
    _check(
        isinstance(when, dict) and set(when) == set(keys),
        f"{row['name']}.{a['name']}: vhlo_default_when needs exactly {', '.join(keys)}",
    )
    names = {b["name"] for b in row["attributes"]}
    _check(
        when["attribute"] in names and when["attribute"] != a["name"],
        f"{row['name']}.{a['name']}: vhlo_default_when names {when['attribute']!r}, "
        "which is not another attribute of the op",
    )
    return (when["attribute"], when["equals"], when["default"])


_Spec = TypeVar("_Spec", bound=_TableRow)


def _from_row(cls: type[_Spec], row: dict[str, Any], **converted: Any) -> _Spec:
    """``cls`` from a TOML row: the ``converted`` fields as given, every other field the row's value
    of its name, as written."""
    plain = (f.name for f in dataclasses.fields(cls) if f.name not in converted)
    return cls(**{name: row[name] for name in plain}, **converted)


def _dialect_row(cls: type[_Spec], row: dict[str, Any], **converted: Any) -> _Spec:
    return _from_row(cls, row, parameters=tuple(row.get("parameters", ())), **converted)


def _cases(row: dict[str, Any]) -> tuple[EnumCase, ...]:
    return tuple(EnumCase(c["name"], c["value"]) for c in row.get("cases", ()))


def _op(row: dict[str, Any]) -> OpSpec:
    return _from_row(
        OpSpec,
        row,
        stablehlo=tuple(row["stablehlo"]),
        operands=_values(row["operands"]),
        attributes=tuple(
            OpAttributeSpec(
                name=a["name"],
                default=a.get("default"),
                default_rule=a.get("default_rule"),
                vhlo_default=a.get("vhlo_default"),
                note=a.get("note"),
                stablehlo_field=_field(row, a),
                integer_enum=a.get("integer_enum"),
                vhlo_default_when=_default_when(row, a),
            )
            for a in row["attributes"]
        ),
        results=_values(row["results"]),
        regions=_values(row["regions"]),
        traits=tuple(row.get("traits", ())),
        assembly_format=bool(row.get("assembly_format", False)),
        constraint=row.get("constraint"),
        note=row.get("note"),
        flatten=tuple(
            FlattenSpec(f["attribute"], f["struct"], bool(f.get("optional", False)))
            for f in row.get("flatten", ())
        ),
    )


@dataclass(frozen=True)
class _Tables:
    ops: tuple[OpSpec, ...]
    types: tuple[TypeSpec, ...]
    attrs: tuple[AttrSpec, ...]
    releases: tuple[Release, ...]
    op_by_name: dict[str, OpSpec]
    forks_by_base: dict[str, tuple[OpSpec, ...]]
    op_by_stablehlo: dict[str, OpSpec]
    type_by_name: dict[str, TypeSpec]
    attr_by_name: dict[str, AttrSpec]
    release_by_version: dict[Version, Release]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(f"stablehlo_py.specs: inconsistent table: {message}")


@cache
def _releases() -> tuple[Release, ...]:
    """The release log alone (stablehlo_py.version needs it without the op tables)."""
    rows = _read("releases.toml")["release"]
    result = tuple(
        Release(
            version=Version.from_string(r["version"]),
            date=r.get("date"),
            tagged=r.get("tagged", True),
            mlir_bytecode_version=r["mlir_bytecode_version"],
            changes=tuple(r["changes"]),
            patch_tags=tuple((int(z), day) for z, day in r.get("patch_tags", {}).items()),
        )
        for r in rows
    )
    _check(len(result) > 0, "the release log is empty")
    for earlier, later in itertools.pairwise(result):
        _check(earlier.version < later.version, f"{later.version} listed after {earlier.version}")
    for r in result:
        _check(r.version.patch == 0, f"release {r.version} is not an X.Y.0 version")
        _check(isinstance(r.tagged, bool), f"release {r.version}: tagged must be true or false")
        if r.tagged:
            _check(type(r.date) is datetime.date, f"release {r.version} has no date (a day)")
        else:
            _check(r.date is None, f"release {r.version} is not tagged but has a date")
        for z, day in r.patch_tags:
            _check(z > 0 and type(day) is datetime.date, f"release {r.version}: bad patch tag {z}")
        days = [day for _, day in r.tags()]
        _check(days == sorted(days), f"release {r.version}: patch tags out of date order")
    dated = [r for r in result if r.date is not None]
    for earlier, later in itertools.pairwise(dated):
        _check(earlier.date <= later.date, f"{later.version} dated before {earlier.version}")
    return result


@cache
def _tables() -> _Tables:
    release_log = _releases()
    op_rows = tuple(_op(r) for r in _read("ops.toml")["op"])
    ta = _read("types.toml")
    type_rows = tuple(_dialect_row(TypeSpec, r) for r in ta["type"])
    attr_rows = tuple(_dialect_row(AttrSpec, r, cases=_cases(r)) for r in ta["attr"])

    op_by_name = {o.name: o for o in op_rows}
    _check(len(op_by_name) == len(op_rows), "duplicate op names")
    by_code: dict[int, list[str]] = {}
    for o in op_rows:
        by_code.setdefault(o.code, []).append(o.name)
    twice = {c: names for c, names in by_code.items() if len(names) > 1}
    _check(not twice, f"ops share a wire code: {twice} (a new fork takes the next free code)")
    _check(
        set(by_code) == set(range(len(op_rows))),
        f"op wire codes must be 0..{len(op_rows) - 1}; outside or missing: "
        f"{sorted(set(by_code) ^ set(range(len(op_rows))))}",
    )
    forks: dict[str, list[OpSpec]] = {}
    for o in op_rows:
        forks.setdefault(o.base, []).append(o)
    forks_by_base = {b: tuple(sorted(fs, key=lambda o: o.version)) for b, fs in forks.items()}
    op_by_stablehlo: dict[str, OpSpec] = {}
    for o in op_rows:
        for name in o.stablehlo:
            _check(name not in op_by_stablehlo, f"{name} maps to two VHLO ops")
            op_by_stablehlo[name] = o
    type_by_name = {t.name: t for t in type_rows}
    attr_by_name = {a.name: a for a in attr_rows}
    _check(len(type_by_name) == len(type_rows), "duplicate type names")
    _check(len(attr_by_name) == len(attr_rows), "duplicate attribute names")
    for row in (*op_rows, *type_rows, *attr_rows):
        _check(row.min_version <= row.max_version, f"{row.name} has min above max")
        _check(
            release_log[0].version <= row.min_version,
            f"{row.name} starts before the first release",
        )
    for o in op_rows:
        for a in o.attributes:
            _check(
                a.default_rule is None or a.default_rule in DEFAULT_RULES,
                f"{o.name}.{a.name} has unknown default_rule {a.default_rule!r}",
            )
            _check(
                a.integer_enum is None
                or (a.integer_enum in attr_by_name and attr_by_name[a.integer_enum].kind == "enum"),
                f"{o.name}.{a.name}: integer_enum {a.integer_enum!r} is not a VHLO enum of types.toml",
            )
    return _Tables(
        ops=op_rows,
        types=type_rows,
        attrs=attr_rows,
        releases=release_log,
        op_by_name=op_by_name,
        forks_by_base=forks_by_base,
        op_by_stablehlo=op_by_stablehlo,
        type_by_name=type_by_name,
        attr_by_name=attr_by_name,
        release_by_version={r.version: r for r in release_log},
    )


# --------------------------------------------------------------------------------------------
# Lookups


def _lookup(table: dict[Any, _Row], key: Any, missing: str, *args: object) -> _Row:
    """``table[key]``, else a KeyError of the message ``missing.format(*args)`` (alone, without
    the lookup's own KeyError)."""
    try:
        return table[key]
    except KeyError:
        raise KeyError(missing.format(*args)) from None


def _legal_at(rows: tuple[_Row, ...], version: Version | str) -> tuple[_Row, ...]:
    """The rows whose range contains ``version``."""
    target = _as_version(version)
    return tuple(r for r in rows if r.is_legal_at(target))  # type: ignore[attr-defined]


def ops() -> tuple[OpSpec, ...]:
    """Every VHLO op fork, in table order (alphabetical by upstream's VhloOps.td)."""
    return _tables().ops


def op(name: str) -> OpSpec:
    """The op fork with VHLO name ``name`` (``add_v1`` or ``vhlo.add_v1``)."""
    key = name.removeprefix("vhlo.")
    missing = "no VHLO op named {!r} (expected e.g. 'add_v1')"
    return _lookup(_tables().op_by_name, key, missing, name)


def _base_of(name: str) -> str:
    t = _tables()
    if name in t.forks_by_base:
        return name
    if name in t.op_by_stablehlo:
        return t.op_by_stablehlo[name].base
    key = name.removeprefix("vhlo.")
    if key in t.op_by_name:
        return t.op_by_name[key].base
    raise KeyError(f"no VHLO op family for {name!r}")


def forks(name: str) -> tuple[OpSpec, ...]:
    """Every fork of an op, oldest first.

    ``name`` may be the base name (``all_gather``), any fork's VHLO name (``all_gather_v1``) or the
    StableHLO op it maps to (``stablehlo.all_gather``).
    """
    return _tables().forks_by_base[_base_of(name)]


def current_fork(name: str) -> OpSpec:
    """The fork legal at the current version (accepts the same names as :func:`forks`)."""
    family = forks(name)
    for fork in family:
        if fork.is_current:
            return fork
    raise KeyError(f"VHLO op {family[0].base!r} has no fork at the current version")


def fork_at(name: str, version: Version | str) -> OpSpec | None:
    """The fork legal at ``version``, or None when the op does not exist at that version."""
    for fork in forks(name):
        if fork.is_legal_at(version):
            return fork
    return None


def op_for_stablehlo(name: str) -> OpSpec:
    """The VHLO fork a StableHLO (or func) op legalizes to, e.g. ``stablehlo.add`` → ``add_v1``."""
    return _lookup(_tables().op_by_stablehlo, name, "no VHLO op maps to {!r}", name)


def ops_legal_at(version: Version | str) -> tuple[OpSpec, ...]:
    """Every op fork whose range contains ``version``."""
    return _legal_at(ops(), version)


def types() -> tuple[TypeSpec, ...]:
    return _tables().types


def type_spec(name: str) -> TypeSpec:
    """A VHLO type by name (``f32_v1`` or ``!vhlo.f32_v1``)."""
    key = name.removeprefix("!vhlo.")
    return _lookup(_tables().type_by_name, key, "no VHLO type named {!r}", name)


def types_legal_at(version: Version | str) -> tuple[TypeSpec, ...]:
    return _legal_at(types(), version)


def attrs() -> tuple[AttrSpec, ...]:
    return _tables().attrs


def attr_spec(name: str) -> AttrSpec:
    """A VHLO attribute or enum by name (``integer_v1``, ``comparison_direction_v1``)."""
    key = name.removeprefix("#vhlo.")
    return _lookup(_tables().attr_by_name, key, "no VHLO attribute named {!r}", name)


def attrs_legal_at(version: Version | str) -> tuple[AttrSpec, ...]:
    return _legal_at(attrs(), version)


def releases() -> tuple[Release, ...]:
    """The release log, oldest first."""
    return _releases()


def release(version: Version | str) -> Release:
    """The release entry of a minor version (a patch is ignored: ``1.7.3`` → 1.7.0's entry)."""
    target = _as_version(version).with_zero_patch()
    table = _tables().release_by_version
    return _lookup(table, target, "no StableHLO release {} in the release log", target)
