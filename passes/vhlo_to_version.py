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

from stablehlo_py.passes.drivers._common import gc_paused, op_location
from stablehlo_py.passes.drivers.options import ALLOW_OTHER_DIALECTS, PassOption
from stablehlo_py.vhlo import legality, sinks
from stablehlo_py.vhlo.forks import ForkOp
from stablehlo_py.vhlo.ops import VhloOp
from xdsl.ir import Operation

from stablehlo_py.errors import VersionError
from stablehlo_py.ir.context import CONTEXT, IdentityMap
from stablehlo_py.ir.xdsl_compat.fields import operands_of
from stablehlo_py.ir.xdsl_compat.swap import value_types
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
    sink = sinks.sink_of(module)  # records or xDSL ops: how they are walked and take a new fork
    current = version == get_current_version()
    stays = legality.stays
    memo = _transitions(version, allow_other_dialects)
    get = memo.get_seq
    location_needs = legality.location_needs
    cacheable = legality.cacheable
    for op in sink.vhlo_ops(module, current):
        # The decision's key (``_transitions``): what ``legality.stays`` and ``legality.plan``
        # read of an op without regions and without a location that needs a version -- its fork,
        # its attributes and its operand and result types: the objects (by identity) and names.
        key: tuple[tuple[object, ...], tuple[object, ...]] | None = None
        if not op.regions and (type(op.location) in _NO_RANGE or location_needs(op) is None):
            pv, av = op.properties, op.attributes
            results = op.results
            objs = (
                *pv.values(),
                *av.values(),
                *value_types(results),
                *value_types(operands_of(op)),
            )
            names = (op.name, tuple(pv), tuple(av), len(results))
            got = get(objs, names)
            if got is not None:
                if got is not _STAYS:
                    plans.append((op, got))
                continue
            key = objs, names
        if stays(op, version):
            if key is not None and cacheable((*op.properties.values(), *op.attributes.values())):
                memo.put_seq(key[0], _STAYS, key[1])
            continue
        p = legality.plan(op, version, allow_other_dialects)
        if p.blockers:
            # the error path only
            from stablehlo_py.passes.patterns.compat_expansions import removable

            expandable = removable(op, [b.feature for b in p.blockers], version)
            blocked.append(BlockedOp(op.name, op_location(op), tuple(p.blockers), expandable))
        elif _changed(op, p.state):
            plans.append((op, p.state))
            if key is not None and legality.cacheable((*op.properties.values(), *op.attributes.values())):
                # (without the operands: ``refork`` uses the op's own, and a memo keeps no IR alive
                # -- nor a constant's data)
                memo.put_seq(key[0], replace(p.state, operands=()), key[1])
    if blocked:
        where = op_location(module)
        first = blocked[0].location
        if where is None and first and _FILE_LINE_COL.fullmatch(first):
            # MLIR's implicit top module is at `file:0:0` (only for a plain `file:line:col`: a
            # JAX name or call-site location names no file the module could be at)
            where = first.rsplit(":", 2)[0] + ":0:0"
        raise DowngradeError(version, blocked, where)
    for op, state in plans:
        sink.refork(op, state)
    return module


_FILE_LINE_COL = re.compile(r'[^"()]+:\d+:\d+')


def _transitions(version: Version, allow_other_dialects: bool) -> IdentityMap:
    """An op's key (``_to_version``) -> what ops alike do at ``version``: ``_STAYS`` (``legality.stays``: they
    are left as they are), or the fork state they take (one without blockers that changes the op;
    its dicts are copied onto each op)."""
    return CONTEXT.identity_map(
        f"vhlo.to_version.transitions.{version}.{int(allow_other_dialects)}", 100_000
    )


_STAYS = "stays"
"""``_transitions``' mark of ops that stay as they are at the target."""

_NO_RANGE = legality.NO_RANGE


def _changed(op: VhloOp, state: ForkOp) -> bool:
    return state is not op and (
        state.version != op.SPEC.version
        or state.properties != op.properties
        or state.regions != tuple(op.regions)
    )


__all__ = ["PASS_NAME", "DowngradeError", "parse_target", "run", "to_version"]
