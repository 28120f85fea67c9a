"""What a VHLO op needs from a target version (upstream VhloToVersion.cpp `isLegalOperation`), and the
fork a target selects.

For an op and a target version ``plan(op, target)`` walks the op's forks (upgrades always succeed;
downgrades may be ``Blocked``) to the fork legal at the target, then checks that fork's state the way
upstream does: every attribute (inherent and discardable, recursively) and every operand/result type
must exist at the target, the op's value-dependent constraints (``CONSTRAINTS``) must hold, and the
location must be expressible.  Each problem is a ``Blocker``: the feature and the lowest version that
has it (or, for the one feature VHLO removed, the highest).

Legality is monotonic in the target (types and attributes are never removed; every fork has an
upgrade), which ``minimum_target(op)`` uses: the lowest release at which ``plan`` finds no blocker.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from stablehlo_py.vhlo import attrs as va
from stablehlo_py.vhlo import forks as fk
from stablehlo_py.vhlo import types as vt
from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Attribute, Operation

from stablehlo_py import specs
from stablehlo_py.ir.context import CONTEXT, IdentityMap
from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.swap import value_types
from stablehlo_py.version import Version, get_current_version


@dataclass(frozen=True)
class Blocker:
    """Why an op cannot be written for a target: ``feature`` exists from ``since`` (or, for a removed
    feature, up to ``until``)."""

    feature: str
    since: Version | None = None
    until: Version | None = None

    def text(self) -> str:
        if self.until is not None:
            return f"{self.feature} (only up to {self.until})"
        if self.since is None:
            return self.feature
        return f"{self.feature} (needs {self.since})"


@dataclass
class Plan:
    """The fork an op takes at a target, or why it cannot."""

    state: fk.ForkOp
    blockers: list[Blocker]


# ------------------------------------------------------------------------------ types, attributes
@lru_cache(maxsize=4096)
def _spec_min(kind: str, name: str) -> Version:
    s = specs.type_spec(name) if kind == "type" else specs.attr_spec(name)
    return s.min_version


_NEEDS = CONTEXT.identity_map("vhlo.legality.needs", 200_000)
"""``type_needs`` and ``attr_needs`` by the identity of the type or attribute (immutable and mostly
shared, so nested attributes are not re-hashed for every op).  The identity caches here keep what
they hold alive; dense tensors of more than ``SMALL_TENSOR`` bytes (a constant's data) are not
cached, so a module's large constants are freed with the module."""
_DENSE = va.TensorV1Attr

SMALL_TENSOR = 256
"""Bytes of a dense tensor a cache may keep alive (``cacheable``)."""


def cacheable(values: Iterable[Attribute]) -> bool:
    """Whether a cache may keep these attributes alive: none is a dense tensor of more than
    ``SMALL_TENSOR`` bytes (a module's constants must be freed with the module)."""
    for a in values:
        if type(a) is _DENSE and len(a.raw_data) > SMALL_TENSOR:  # type: ignore[attr-defined]
            return False
    return True


def _large(a: Attribute) -> bool:
    """A dense tensor of more than ``SMALL_TENSOR`` bytes: not kept alive by a cache.  (Small ones
    -- an op's dimensions, a reduce's init -- are kept: the ops that hold them ask again.)"""
    return type(a) is _DENSE and len(a.raw_data) > SMALL_TENSOR  # type: ignore[attr-defined]


def _type_needs(t: Attribute) -> tuple[Version, str]:
    """The lowest version a type exists at and the nested part that sets it (`!vhlo.f8E4M3_v1`)."""
    if not isinstance(t, vt.VhloType):
        return Version(999, 0, 0), f"non-VHLO type {_text(t)}"
    best = (_spec_min("type", t.SPEC_NAME), f"type {_short(t)}")
    for c in t.children():
        n = attr_needs(c) if not isinstance(c, vt.VhloType) else type_needs(c)
        if n[0] > best[0]:
            best = n
    return best


type_needs = _NEEDS.memoize(_type_needs)


def attr_needs(a: Attribute) -> tuple[Version, str]:
    """The lowest version an attribute exists at (recursively) and the part that sets it."""
    if type(a) is _DENSE and _large(a):  # (the memo must not keep a constant's data alive)
        return _attr_needs(a)
    return _attr_needs_memo(a)


def _attr_needs(a: Attribute) -> tuple[Version, str]:
    if isinstance(a, vt.VhloType):
        return type_needs(a)
    if not isinstance(a, va.VhloAttr):
        return Version(999, 0, 0), f"non-VHLO attribute {_text(a)}"
    best = (_spec_min("attr", a.SPEC_NAME), f"attribute {_short(a)}")
    for c in a.children():
        n = type_needs(c) if isinstance(c, vt.VhloType) else attr_needs(c)
        if n[0] > best[0]:
            best = n
    return best


_attr_needs_memo = _NEEDS.memoize(_attr_needs)


def _text(a: Attribute) -> str:
    from stablehlo_py.ir.text.printer import attr_to_str

    return attr_to_str(a)


def _short(a: Attribute) -> str:
    """`!vhlo.f8E4M3_v1`, `#vhlo.result_accuracy_v1`: the name without parameters."""
    if isinstance(a, vt.VhloType):
        return "!" + a.name
    if isinstance(a, va.VhloEnumAttr):
        return a.mlir_text()
    return "#" + a.name


# ------------------------------------------------------------------------------ value constraints

_V0_17 = Version(0, 17, 0)
_V1_3 = Version(1, 3, 0)
_V1_17 = Version(1, 17, 0)
_V1_9 = Version(1, 9, 0)


def _element(t: Attribute) -> Attribute:
    return vt.element_type(t)


def _promotion(op: fk.ForkOp) -> list[tuple[Version, str]]:
    """0.17.0: a reduction's result element types may differ from its inputs' (type promotion)."""
    ins = [_element(v.type) for v in op.operands]
    outs = [_element(t) for t in op.result_types]
    if any(a != b for a, b in zip(ins, outs)):
        return [
            (
                _V0_17,
                "result element types that differ from the operands' (reduction type promotion)",
            )
        ]
    return []


def _custom_call_v1(op: fk.ForkOp) -> list[tuple[Version, str]]:
    out: list[tuple[Version, str]] = []
    typed_ffi = op.prop("api_version") == va.enum("api_version_v1", "API_VERSION_TYPED_FFI")
    if typed_ffi or not isinstance(op.prop("backend_config"), va.StringV1Attr):
        out.append((_V1_3, "API_VERSION_TYPED_FFI with a dictionary backend_config"))
    types = [v.type for v in op.operands] + list(op.result_types)
    if any(isinstance(t, vt.FutureV1Type) for t in types):
        out.append((_V1_17, "!vhlo.future_v1 operands or results"))
    return out


CONSTRAINT_KINDS: dict[str, Callable[[fk.ForkOp], list[tuple[Version, str]]]] = {
    "reduction_type_promotion": _promotion,
    "custom_call_typed_ffi_and_future": _custom_call_v1,
}
"""upstream's VersionedOpConstraintInterface (VhloOps.cpp validateConstraint), by the name a fork's
``constraint`` key in ``specs/ops.toml`` gives: fork -> the versions its values need."""


def _constraints() -> dict[str, Callable[[fk.ForkOp], list[tuple[Version, str]]]]:
    out = {}
    for spec in specs.ops():
        if spec.constraint is None:
            continue
        check = CONSTRAINT_KINDS.get(spec.constraint)
        if check is None:
            raise ValueError(
                f"specs/ops.toml: {spec.name} has constraint = {spec.constraint!r}; "
                f"known: {', '.join(sorted(CONSTRAINT_KINDS))} (vhlo/legality.py CONSTRAINT_KINDS)"
            )
        out[spec.name] = check
    return out


CONSTRAINTS = _constraints()
"""Fork name -> its value-dependent check, from the ``constraint`` of its ``specs/ops.toml`` row."""

_CONSTRAINT_BY_KEY = {
    (name.rsplit("_v", 1)[0], int(name.rsplit("_v", 1)[1])): fn for name, fn in CONSTRAINTS.items()
}

_RANGE_LOC = re.compile(r'"(?:[^"\\]|\\.)*":\d+:\d+ to (?:\d+)?:\d+')


def location_needs(op: Operation) -> tuple[Version, str] | None:
    """A `file:line:col to line:col` range location needs 1.8.4 (so 1.9.0 as an X.Y.0 target)."""
    loc = op.location
    if type(loc) in _NO_RANGE:
        return None
    from stablehlo_py.ir.text.location import TextLoc

    if not isinstance(loc, TextLoc) or " to " not in loc.data:
        return None
    got = _LOC_NEEDS.get(loc.data, _UNSET)
    if got is _UNSET:
        got = None
        if _RANGE_LOC.search(loc.data):
            got = (
                _V1_9,
                "a file:line:col range location (FileLineColRange, 1.8.4+; or strip debug info)",
            )
        _LOC_NEEDS.put(loc.data, got)
    return got  # type: ignore[return-value]


_LOC_NEEDS = CONTEXT.table("vhlo.legality.location_needs", 100_000)
NO_RANGE = _NO_RANGE = (UnknownLoc,)
"""Location classes that never hold a range."""


# ------------------------------------------------------------------------------ planning


def fork_for(base: str, target: Version) -> specs.OpSpec | None:
    """The fork of ``base`` legal at ``target`` (cached)."""
    forks = _at(target).forks
    got = forks.get(base, _UNSET)
    if got is _UNSET:
        got = forks[base] = specs.fork_at(base, target)
    return got  # type: ignore[return-value]


class _Target:
    """What is cached per target version: the fork of each op family, and the attributes and
    types (by identity) known to exist at it."""

    __slots__ = ("forks", "ok", "stay", "target")

    def __init__(self, target: Version):
        self.target = target
        self.forks: dict[str, object] = {}
        self.ok = IdentityMap(f"vhlo.legality.exists_at.{target}", 200_000)
        self.stay: dict[str, object] = {}
        """fork name -> its value constraint (or None) when it is the target's fork, else _MOVES"""


class _Targets:
    """The ``_Target`` of each version asked, and the last one asked (a pass asks with one Version
    object for every op; hashing a Version costs more than the lookups it serves)."""

    __slots__ = ("by_version", "last")

    def __init__(self) -> None:
        self.by_version: dict[Version, _Target] = {}
        self.last: _Target | None = None

    def at(self, target: Version) -> _Target:
        """The cache of ``target``, found by identity first."""
        last = self.last
        if last is not None and last.target is target:
            return last
        got = self.by_version.get(target)
        if got is None:
            got = self.by_version[target] = _Target(target)
        got.target = target  # the object asked with, for the identity test above
        self.last = got
        return got

    def clear(self) -> None:
        self.by_version.clear()
        self.last = None

    def __len__(self) -> int:
        return len(self.by_version)


_TARGETS = CONTEXT.adopt("vhlo.legality.targets", _Targets())
_at = _TARGETS.at
_UNSET = object()


def stays(op: Operation, target: Version) -> bool:
    """Whether ``plan(op, target)`` keeps ``op`` as it is: it is at the target's fork and nothing
    in it needs a newer version (the common case, answered without building a plan).  False means
    "plan it"; an op of another dialect is the caller's to skip."""
    cache = _TARGETS.last  # (the cache of the target asked last, without a call: every op asks)
    if cache is None or cache.target is not target:
        cache = _at(target)
    spec = op.SPEC  # type: ignore[attr-defined]
    constraint = cache.stay.get(spec.name, _UNSET)
    if constraint is _UNSET:
        want = fork_for(spec.base, target)
        if want is None or want.name != spec.name:
            cache.stay[spec.name] = _MOVES
            return False
        constraint = cache.stay[spec.name] = _CONSTRAINT_BY_KEY.get((spec.base, spec.version))
    if constraint is _MOVES:
        return False
    if type(op.location) not in _NO_RANGE:
        loc = location_needs(op)
        if loc is not None and loc[0] > target:
            return False
    if constraint is not None and any(v > target for v, _ in constraint(op)):  # type: ignore[operator]
        return False
    props, attrs = op.properties, op.attributes
    objs = (
        *props.values(),
        *attrs.values(),
        *value_types(op.results),
        *value_types(operands_of(op)),  # type: ignore[arg-type]
    )
    ok = cache.ok
    return ok.knows_all(objs) or _all_exist(ok, target, objs, len(props) + len(attrs))


def _all_exist(ok: IdentityMap, target: Version, objs: tuple[Attribute, ...], n_attrs: int) -> bool:
    """Whether each attribute (the first ``n_attrs`` of ``objs``) and type (the rest) exists at
    ``target`` (``ok``: those known to, by identity; its ``knows_all`` answers the common case)."""
    for a in objs[:n_attrs]:
        if ok.get(a) is None:
            if attr_needs(a)[0] > target:
                return False
            if not _large(a):  # (a constant's data is not kept alive here)
                ok.put(a, True)
    for t in objs[n_attrs:]:
        if ok.get(t) is None:
            if type_needs(t)[0] > target:
                return False
            ok.put(t, True)
    return True


_MOVES = object()
"""``_Target.stay``'s mark of a fork that is not the target's."""


def plan(op: Operation, target: Version, allow_other: bool = False) -> Plan:
    """The state ``op`` takes at ``target`` (an X.Y.0 version) and what blocks it."""
    spec = op.SPEC  # type: ignore[attr-defined]
    want = fork_for(spec.base, target)
    if want is not None and want.name == spec.name:
        # already at the target's fork: its own state, no fork step to take, only the checks
        if _exists_at(op, op, target):  # type: ignore[arg-type]
            return Plan(op, [])  # type: ignore[arg-type]
        state = fk.ForkOp.of(op)
        return Plan(op, _state_blockers(state, op, target, allow_other))  # type: ignore[arg-type]
    state = fk.ForkOp.of(op)
    blockers: list[Blocker] = []
    base = state.base
    if want is None:
        family = specs.forks(base)
        first = family[0]
        if target < first.min_version:
            blockers.append(Blocker(f"op '{base}'", since=first.min_version))
        else:
            blockers.append(Blocker(f"op '{base}'", until=family[-1].max_version))
        return Plan(state, blockers)
    try:
        while state.version < want.version:
            state = fk.upgrade(state)
        while state.version > want.version:
            try:
                state = fk.downgrade(state)
            except fk.Blocked as b:
                blockers.append(Blocker(str(b), since=state.spec.min_version))
                return Plan(state, blockers)
    except fk.Blocked as b:  # an upgrade that would lose information
        blockers.append(Blocker(str(b), until=state.spec.max_version))
        return Plan(state, blockers)
    if not _exists_at(state, op, target):
        blockers.extend(_state_blockers(state, op, target, allow_other))
    return Plan(state, blockers)


def _exists_at(state: fk.ForkOp, op: Operation, target: Version) -> bool:
    """A quick yes for a fork state (an op or record at its target fork, or the state the fork
    steps made of ``op``): every attribute and type (by identity, cached per target) exists at
    ``target``, no value constraint or location needs more.  False means "look closer"
    (``_state_blockers`` finds and words the blockers)."""
    cache = _at(target)
    if type(op.location) not in _NO_RANGE:
        loc = location_needs(op)
        if loc is not None and loc[0] > target:
            return False
    spec = getattr(state, "SPEC", None)  # an op or record (a ForkOp has no table row)
    if spec is None:
        constraint = _CONSTRAINT_BY_KEY.get((state.base, state.version))
        types = state.result_types
        operands = state.operands
    else:
        constraint = _CONSTRAINT_BY_KEY.get((spec.base, spec.version))
        types = value_types(state.results)  # type: ignore[attr-defined]
        operands = operands_of(state)  # type: ignore[arg-type]
    if constraint is not None and any(v > target for v, _ in constraint(state)):
        return False
    props, attrs = state.properties, state.attributes
    objs = (*props.values(), *attrs.values(), *types, *value_types(operands))
    ok = cache.ok
    return ok.knows_all(objs) or _all_exist(ok, target, objs, len(props) + len(attrs))


def _state_blockers(
    state: fk.ForkOp, op: Operation, target: Version, allow_other: bool
) -> list[Blocker]:
    found: dict[str, Version] = {}  # feature -> version (insertion-ordered, deduplicated)
    for attrs in (state.properties, state.attributes):
        for name, a in attrs.items():
            if allow_other and not isinstance(a, (va.VhloAttr, vt.VhloType)):
                continue
            v, what = attr_needs(a)
            if v > target:
                if what.startswith("non-VHLO"):
                    if allow_other:  # inside a VHLO attribute (e.g. a dictionary's sdy.sharding)
                        continue
                    what = (
                        f"attribute '{name}' is not a VHLO attribute ({what.removeprefix('non-VHLO attribute ')}); "
                        "pass allow-other-dialects=true to keep it"
                    )
                else:
                    what = f"{what} in '{name}'"
                found.setdefault(what, v)
    for t in state.result_types:
        if allow_other and not isinstance(t, vt.VhloType):
            continue
        v, what = type_needs(t)
        if v > target:
            found.setdefault(what, v)
    for value in state.operands:
        t = value.type
        if allow_other and not isinstance(t, vt.VhloType):
            continue
        v, what = type_needs(t)
        if v > target:
            found.setdefault(what, v)
    constraint = _CONSTRAINT_BY_KEY.get((state.base, state.version))
    if constraint is not None:
        for v, what in constraint(state):
            if v > target:
                found.setdefault(what, v)
    loc = location_needs(op)
    if loc is not None and loc[0] > target:
        found.setdefault(loc[1], loc[0])
    if not found:
        return []
    return [
        Blocker(what) if v.major >= 999 else Blocker(what, since=v) for what, v in found.items()
    ]


def releases() -> tuple[Version, ...]:
    return tuple(r.version for r in specs.releases())


def minimum_target(
    op: Operation, allow_other: bool = False
) -> tuple[Version | None, list[Blocker]]:
    """The lowest release ``op`` can be written for, and the blockers one release below it (the
    features that set that floor; empty when the floor is the minimum version).  (None, blockers
    at the current version) when no release works."""
    rels = releases()
    current = plan(op, rels[-1], allow_other)
    if current.blockers:
        return None, current.blockers
    lo, hi = 0, len(rels) - 1  # plan(rels[hi]) is clean; find the first clean release
    if not plan(op, rels[0], allow_other).blockers:
        return rels[0], []
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if plan(op, rels[mid], allow_other).blockers:
            lo = mid
        else:
            hi = mid
    return rels[hi], plan(op, rels[lo], allow_other).blockers


__all__ = [
    "CONSTRAINTS",
    "cacheable",
    "CONSTRAINT_KINDS",
    "Blocker",
    "Plan",
    "attr_needs",
    "fork_for",
    "location_needs",
    "minimum_target",
    "plan",
    "type_needs",
]

_ = get_current_version
