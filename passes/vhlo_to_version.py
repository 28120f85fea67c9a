"""`vhlo-to-version{target=X}`: upgrade or downgrade every VHLO op to the fork legal at X
(upstream VhloToVersion.cpp).

``target`` is `X.Y.Z` (a patch is treated as 0), `current` or `minimum`.  The pass first plans every
op (``stablehlo_py.vhlo.legality.plan``), and only if no op is blocked rewrites the module: a failed
downgrade leaves the module untouched and raises one ``DowngradeError`` listing every blocking op with
its location, the blocking feature and the lowest version that has it.

Options: ``allow-other-dialects`` leaves ops of other dialects and non-VHLO attributes alone instead of
reporting them.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, replace

from stablehlo_py.passes.drivers._common import carry_location, gc_paused, op_location
from stablehlo_py.passes.drivers.options import ALLOW_OTHER_DIALECTS, PassOption
from stablehlo_py.vhlo import legality
from stablehlo_py.vhlo.forks import ForkOp
from stablehlo_py.vhlo.in_place import retype_op, retype_value, walk
from stablehlo_py.vhlo.ops import VhloOp, op_class
from stablehlo_py.vhlo.records import VOp
from xdsl.ir import Operation, Region

from stablehlo_py import specs
from stablehlo_py.errors import VersionError
from stablehlo_py.version import Version, get_current_version, get_minimum_version, validate_target

PASS_NAME = "vhlo-to-version"
SUMMARY = "Convert between versions of VHLO for compatibility."
OPTIONS = (
    PassOption("target", "string", "", "The target version. Must be a version of the form #.#.# ."),
    ALLOW_OTHER_DIALECTS,
)


@dataclass(frozen=True)
class BlockedOp:
    """One op that cannot be written for the target."""

    op_name: str
    location: str | None
    blockers: tuple[legality.Blocker, ...]
    expandable: tuple[str, ...] | None = None
    """What stablehlo-compatibility-expander would rewrite to remove every blocker (None: it
    cannot remove them all)."""

    def message(self) -> str:
        why = "; ".join(b.text() for b in self.blockers)
        return f"failed to legalize operation '{self.op_name}' that was explicitly marked illegal: {why}"

    def line(self) -> str:
        return f"{self.location}: {self.message()}" if self.location else self.message()


class DowngradeError(VersionError):
    """A module cannot be written for a target version; ``blocked`` lists every op and why."""

    def __init__(self, target: Version, blocked: list[BlockedOp], location: str | None):
        self.target = target
        self.blocked = blocked
        lows = [b.since for op in blocked for b in op.blockers if b.since is not None]
        highs = [b.until for op in blocked for b in op.blockers if b.until is not None]
        n = len(blocked)
        message = (
            f"failed to convert VHLO to v{target}: {n} operation{'s' if n != 1 else ''} "
            f"cannot be expressed at {target}"
        )
        note = None
        if lows and not highs:
            note = f"the lowest target these operations allow is {max(lows)}"
        elif highs and not lows:
            note = f"these operations need a target no newer than {min(highs)}"
        self.hint = _expander_hint(target, blocked)
        super().__init__(message, location=location, note=note)
        # the error upstream's dialect conversion emits before this one: at the first op (in walk
        # order) it cannot legalize, where it stops (--verify-diagnostics matches each)
        self.preceding = [VersionError(b.message(), location=b.location) for b in blocked[:1]]

    def render(self) -> str:
        head = (
            f"{self.location}: error: {self.message}" if self.location else f"error: {self.message}"
        )
        lines = [head] + ["  " + b.line() for b in getattr(self, "blocked", ())]
        if self.note:
            lines.append(f"{self.location + ': ' if self.location else ''}note: {self.note}")
        if getattr(self, "hint", None):
            lines.append(f"{self.location + ': ' if self.location else ''}note: {self.hint}")
        return "\n".join(lines)


def _expander_hint(target: Version, blocked: list[BlockedOp]) -> str | None:
    """A note when stablehlo-compatibility-expander would remove blockers (None otherwise)."""
    fixable = [b for b in blocked if b.expandable]
    if not fixable:
        return None
    what: list[str] = []
    for b in fixable:
        what.extend(w for w in b.expandable or () if w not in what)
    scope = (
        "every one of these blockers"
        if len(fixable) == len(blocked)
        else f"the blockers of {len(fixable)} of these operations"
    )
    return (
        f"stablehlo-compatibility-expander removes {scope} ({', '.join(what)}): run "
        f"--stablehlo-compatibility-expander='target={target}' first, or serialize with --expand "
        "(expand=True)"
    )


def parse_target(text: str | None) -> Version:
    """upstream's validateTargetVersion, plus `current` and `minimum`."""
    if text is None or text == "":
        raise VersionError(
            "No target version specified.\nTarget version must be of the form `#.#.#`.",
            note=f"use target=X.Y.Z between {get_minimum_version()} and {get_current_version()}, "
            "or target=current / target=minimum",
        )
    if text not in ("current", "minimum"):
        try:
            Version.from_string(text)
        except VersionError:
            raise VersionError(
                f"Invalid target version argument '{text}'\nTarget version must be of the form `#.#.#`.",
                note=f"use target=X.Y.Z between {get_minimum_version()} and {get_current_version()}, "
                "or target=current / target=minimum",
            ) from None
    return validate_target(text)


def run(op: Operation, options: dict[str, object]) -> Operation:
    target = parse_target(str(options["target"]))
    return to_version(op, target, allow_other_dialects=bool(options["allow-other-dialects"]))


def to_version(
    module: Operation, target: Version | str, allow_other_dialects: bool = False
) -> Operation:
    """Convert every VHLO op of ``module`` to the fork legal at ``target`` (in place)."""
    version = validate_target(target) if isinstance(target, (str, Version)) else target
    with gc_paused():
        return _to_version(module, version, allow_other_dialects)


def _to_version(module: Operation, version: Version, allow_other_dialects: bool) -> Operation:
    plans: list[tuple[VhloOp, ForkOp]] = []
    blocked: list[BlockedOp] = []
    records = isinstance(module, VOp)
    current = version == get_current_version()
    stays = legality.stays
    memo = _TRANSITIONS.setdefault((version, allow_other_dialects), {})
    if len(memo) >= 100_000:
        memo.clear()
    for op in module.walk() if records else walk(module):
        if records:
            if op.SPEC is None:
                continue  # builtin.module
            if current and op.SPEC.stablehlo and not op.attributes:
                # already the current fork, every attribute VHLO (a record holds nothing else in
                # its properties): nothing to upgrade, nothing that could block
                continue
        elif not _is_vhlo(type(op)):
            continue
        if stays(op, version):
            continue
        key = None if records else _transition_key(op)
        if key is not None:
            got = memo.get(key)
            if got is not None:
                plans.append((op, got[1]))
                continue
        p = legality.plan(op, version, allow_other_dialects)
        if p.blockers:
            # the error path only
            from stablehlo_py.passes.patterns.compat_expansions import removable

            expandable = removable(op, [b.feature for b in p.blockers], version)
            blocked.append(BlockedOp(op.name, op_location(op), tuple(p.blockers), expandable))
        elif _changed(op, p.state):
            plans.append((op, p.state))
            if key is not None:
                # (without the operands: ``_apply`` uses the op's own, and a memo keeps no IR alive)
                memo[key] = (_alive(op), replace(p.state, operands=()))
    if blocked:
        where = op_location(module)
        first = blocked[0].location
        if where is None and first and _FILE_LINE_COL.fullmatch(first):
            # MLIR's implicit top module is at `file:0:0` (only for a plain `file:line:col`: a
            # JAX name or call-site location names no file the module could be at)
            where = first.rsplit(":", 2)[0] + ":0:0"
        raise DowngradeError(version, blocked, where)
    apply = _apply_record if records else _apply
    for op, state in plans:
        apply(op, state)
    return module


_FILE_LINE_COL = re.compile(r'[^"()]+:\d+:\d+')


def _transition_key(op: VhloOp) -> tuple[object, ...] | None:
    """What ``legality.plan`` reads of an op without regions and without a location that needs a
    version -- its fork, its attributes and its operand and result types (by identity) -- so that
    ops alike share one fork state (``_TRANSITIONS``); None for any other op."""
    if op.regions or legality.location_needs(op) is not None:
        return None
    pv, av = op.properties, op.attributes
    return (
        type(op),
        tuple(pv),
        tuple(map(id, pv.values())),
        tuple(av),
        tuple(map(id, av.values())),
        tuple([id(r._type) for r in op.results]),
        tuple([id(v._type) for v in op._operands]),
    )


def _alive(op: VhloOp) -> tuple[object, ...]:
    """What a ``_transition_key`` names by identity, kept alive while the key is in the memo."""
    return (
        *op.properties.values(),
        *op.attributes.values(),
        *(r._type for r in op.results),
        *(v._type for v in op._operands),
    )


_TRANSITIONS: dict[tuple[Version, bool], dict[tuple[object, ...], tuple[object, ForkOp]]] = {}
"""(target, allow-other-dialects) -> ``_transition_key`` -> the fork state its ops take (one
without blockers that changes the op; its dicts are copied onto each op)."""


def _is_vhlo(cls: type) -> bool:
    got = _VHLO_CLASS.get(cls)
    if got is None:
        got = _VHLO_CLASS[cls] = issubclass(cls, VhloOp)
    return got


_VHLO_CLASS: dict[type, bool] = {}


def _apply_record(op: VOp, state: ForkOp) -> None:
    """A record takes its new fork in place (its results, and so their uses, stay)."""
    spec = specs.op(f"{state.base}_v{state.version}")
    op.name = f"vhlo.{spec.name}"
    op.SPEC = spec
    op.properties = state.properties
    op.attributes = state.attributes
    assert len(state.result_types) == len(op.results)  # forks never change the results' number
    for r, t in zip(op.results, state.result_types):
        r.type = t
    op.regions = list(state.regions)
    for r in op.regions:
        r.parent = op
    op.__dict__["_vhlo_replaced"] = True  # the MLIR bytecode writer replays upstream's use-lists


def _changed(op: VhloOp, state: ForkOp) -> bool:
    return state is not op and (
        state.version != op.SPEC.version
        or state.properties != op.properties
        or state.regions != tuple(op.regions)
    )


def _apply(op: VhloOp, state: ForkOp) -> None:
    """The op takes its new fork: in place (``vhlo.in_place``) when it keeps its regions, as every
    fork step but composite's does; else rebuilt."""
    cls = op_class(f"{state.base}_v{state.version}")
    results = op.results
    if state.regions == tuple(op.regions) and len(state.result_types) == len(results):
        for r, t in zip(results, state.result_types):
            retype_value(r, t)
        new = retype_op(op, cls, dict(state.properties), dict(state.attributes))
        new.__dict__["_vhlo_replaced"] = (
            True  # the MLIR bytecode writer replays upstream's use-lists
        )
        return
    regions: list[Region] = []
    for r in state.regions:
        if r.parent is op:
            op.detach_region(r)
        regions.append(r)
    for r in op.regions:  # regions the new fork drops (only ever empty ones)
        assert not r.blocks or r in state.regions
    # The op's current operands: an earlier replacement may have rewired them since planning
    # (forks never change which values an op uses).
    new = cls.create(
        operands=list(op.operands),
        result_types=list(state.result_types),
        properties=state.properties,
        attributes=state.attributes,
        regions=regions,
    )
    carry_location(new, op)
    new.__dict__["_vhlo_replaced"] = True  # the MLIR bytecode writer replays upstream's use-lists
    block = op.parent
    assert block is not None
    block.insert_op_before(new, op)
    for old, nr in zip(op.results, new.results):
        old.replace_all_uses_with(nr)
    block.erase_op(op)


__all__ = ["PASS_NAME", "DowngradeError", "parse_target", "run", "to_version"]
