"""Schema lint: a definition in ``specs/`` may only change the way compatibility allows.

A committed *fingerprint* (``tests/golden/schema.lock.json``) records, for every VHLO op fork, type and
attribute, its version range, wire code and a hash of everything the wire format depends on (operand,
result and region groups; attributes in order with their defaults; type/attribute parameters), plus
the release log and the artifact records' fields.  :func:`lint` compares the tables of today with the
fingerprint and reports every change that would break artifacts already written:

* an existing fork's definition, minimum version or code changed -- a change needs a **new fork**
  (``add_v2``) instead; a fork is never removed;
* an existing fork's maximum moved from ``current`` to a version, but no newer fork of the op starts
  right after it;
* a new fork (or type, attribute) without a **version bump** (its minimum must be a release newer
  than the fingerprint's current version), without an appended wire code, without **upgrade and
  downgrade patterns** between it and the fork it replaces, or without a **golden artifact** for its
  version;
* a release removed or changed; a new release without a golden artifact;
* an artifact record whose fields were removed, renamed or reordered, or a new field without a new
  format version.

When every change is of the allowed kind, ``python .ci/schema_lint.py --update`` rewrites the
fingerprint (and the commit shows the change).  The lint runs in CI as ``tests/test_schema_lint.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stablehlo_py.serialization import codes
from stablehlo_py.serialization.format import CURRENT_SCHEMA, Schema

from stablehlo_py import specs
from stablehlo_py.version import Version

__all__ = [
    "LintContext",
    "current_fingerprint",
    "fork_patterns",
    "lint",
    "load_fingerprint",
    "save_fingerprint",
]

LOCK_VERSION = 1


def _digest(obj: Any) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _op_definition(o: specs.OpSpec) -> dict[str, Any]:
    return {
        "operands": [[v.name, v.variadic] for v in o.operands],
        "results": [[v.name, v.variadic] for v in o.results],
        "regions": [[v.name, v.variadic] for v in o.regions],
        "attributes": [[a.name, a.default, a.default_rule, a.vhlo_default] for a in o.attributes],
    }


def _row(spec: Any, code: Any, definition: Any) -> dict[str, Any]:
    """The fingerprint of one op, type or attribute: its version range, wire code and definition."""
    return {"min": spec.min, "max": spec.max, "code": code, "definition": _digest(definition)}


def current_fingerprint(schema: Schema = CURRENT_SCHEMA) -> dict[str, Any]:
    """The fingerprint of the tables as they are now."""
    ops = {o.name: _row(o, codes.op_code(o.name), _op_definition(o)) for o in specs.ops()}
    types = {t.name: _row(t, t.bytecode_code, list(t.parameters)) for t in specs.types()}
    attrs = {
        a.name: _row(
            a, a.bytecode_code, [a.kind, list(a.parameters), [[c.name, c.value] for c in a.cases]]
        )
        for a in specs.attrs()
    }
    return {
        "lock_version": LOCK_VERSION,
        "current_version": str(specs.releases()[-1].version),
        "releases": {str(r.version): str(r.date) for r in specs.releases()},
        "format_versions": {str(k): str(v) for k, v in sorted(schema.first_target.items())},
        "records": {
            name: [f.name for f in rec.fields] for name, rec in sorted(schema.records.items())
        },
        "op_codes": list(codes.OP_CODES),
        "ops": ops,
        "types": types,
        "attrs": attrs,
    }


def load_fingerprint(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def save_fingerprint(path: Path, fingerprint: dict[str, Any]) -> None:
    path.write_text(json.dumps(fingerprint, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def fork_patterns() -> set[tuple[str, str]] | None:
    """(older fork, newer fork) pairs that ``vhlo-to-version`` upgrades and downgrades between
    (``vhlo/forks``: ``FORKS[(op, N)]`` is the pair between ``op_vN`` and ``op_vN+1``), or None when
    the table cannot be loaded."""
    try:
        from stablehlo_py.vhlo.forks import FORKS
    except ImportError:
        return None
    pairs = set()
    for (op, n), fork in FORKS.items():
        if callable(getattr(fork, "upgrade", None)) and callable(getattr(fork, "downgrade", None)):
            pairs.add((f"{op}_v{n}", f"{op}_v{n + 1}"))
    return pairs


@dataclass
class LintContext:
    golden_versions: set[str] = field(default_factory=set)
    """Versions that have a committed golden artifact (``tests/golden/MANIFEST.json``)."""
    patterns: set[tuple[str, str]] | None = None
    """Fork pairs with upgrade/downgrade patterns (None: cannot be checked, reported as a problem
    only for new forks)."""


def _v(text: str) -> Version:
    return Version.from_string(text)


def _base(name: str) -> str:
    return name.rsplit("_v", 1)[0]


def lint(locked: dict[str, Any], current: dict[str, Any], ctx: LintContext) -> list[str]:
    """Every incompatible change from ``locked`` to ``current`` (empty: compatible)."""
    problems: list[str] = []
    old_current = _v(locked["current_version"])
    new_current = _v(current["current_version"])

    # -- releases
    for version, date in locked["releases"].items():
        if version not in current["releases"]:
            problems.append(f"release {version} was removed from specs/releases.toml")
        elif current["releases"][version] != date:
            problems.append(
                f"release {version} changed its date ({date} -> {current['releases'][version]})"
            )
    new_releases = sorted(_v(v) for v in current["releases"] if v not in locked["releases"])
    for v in new_releases:
        if v <= old_current:
            problems.append(
                f"release {v} was inserted before the locked current version {old_current}"
            )
        if str(v) not in ctx.golden_versions:
            problems.append(
                f"release {v} has no golden artifact (run tests/golden/generate.py --version {v})"
            )

    # -- wire codes of ops are append-only
    old_codes, new_codes = locked["op_codes"], current["op_codes"]
    if new_codes[: len(old_codes)] != old_codes:
        for i, (a, b) in enumerate(zip(old_codes, new_codes)):
            if a != b:
                problems.append(f"op code {i} moved from {a} to {b}: codes are append-only")
                break
        if len(new_codes) < len(old_codes):
            problems.append("op codes were removed: codes are append-only")

    # -- ops, types, attributes
    for table, what in (("ops", "op"), ("types", "type"), ("attrs", "attribute")):
        old_rows, new_rows = locked[table], current[table]
        for name, old in old_rows.items():
            new = new_rows.get(name)
            if new is None:
                problems.append(
                    f"{what} {name} was removed; forks are never removed (set its max instead)"
                )
                continue
            if new["definition"] != old["definition"]:
                problems.append(
                    f"{what} {name} changed its definition without a new fork: restore it and add "
                    f"{_base(name)}_v{_next_fork(name, new_rows)} with min = the new version"
                )
            if new["min"] != old["min"]:
                problems.append(
                    f"{what} {name} changed its minimum version {old['min']} -> {new['min']}"
                )
            if new["code"] != old["code"]:
                problems.append(
                    f"{what} {name} changed its wire code {old['code']} -> {new['code']}"
                )
            if new["max"] != old["max"]:
                problems.extend(_check_max(what, name, old, new, new_rows, current))
        for name, new in new_rows.items():
            if name in old_rows:
                continue
            problems.extend(
                _check_new(what, name, new, old_rows, locked, current, ctx, new_current)
            )

    # -- artifact records
    old_fv = max(int(k) for k in locked["format_versions"])
    for version, first in locked["format_versions"].items():
        if current["format_versions"].get(version) != first:
            problems.append(
                f"format version {version} (first target {first}) was changed or removed"
            )
    for rec, fields in locked["records"].items():
        now = current["records"].get(rec)
        if now is None:
            problems.append(f"artifact record '{rec}' was removed")
        elif now[: len(fields)] != fields:
            problems.append(
                f"artifact record '{rec}' changed its fields {fields} -> {now}: fields are append-only"
            )
        elif len(now) > len(fields) and max(int(k) for k in current["format_versions"]) <= old_fv:
            problems.append(
                f"artifact record '{rec}' gained fields {now[len(fields) :]} without a new format version "
                "(add it to FORMAT_VERSIONS with the first target that writes it)"
            )
    return problems


def _next_fork(name: str, rows: dict[str, Any]) -> int:
    base = _base(name)
    versions = [
        int(n.rsplit("_v", 1)[1])
        for n in rows
        if _base(n) == base and n.rsplit("_v", 1)[1].isdigit()
    ]
    return max(versions, default=1) + 1


def _check_max(
    what: str,
    name: str,
    old: dict[str, Any],
    new: dict[str, Any],
    rows: dict[str, Any],
    current: dict[str, Any],
) -> Iterable[str]:
    if old["max"] != "current":
        yield f"{what} {name} changed its maximum version {old['max']} -> {new['max']}"
        return
    releases = sorted(_v(r) for r in current["releases"])
    last = _v(new["max"])
    after = [r for r in releases if r > last]
    successor = [
        n
        for n, row in rows.items()
        if _base(n) == _base(name) and n != name and after and _v(row["min"]) == after[0]
    ]
    if what != "op":
        if not after:
            yield f"{what} {name} ends at {last} but no later release exists"
        return
    if not successor:
        yield (
            f"op {name} now ends at {last}, but no newer fork of {_base(name)} starts at the next release "
            f"({after[0] if after else 'none'})"
        )


def _check_new(
    what: str,
    name: str,
    new: dict[str, Any],
    old_rows: dict[str, Any],
    locked: dict[str, Any],
    current: dict[str, Any],
    ctx: LintContext,
    new_current: Version,
) -> Iterable[str]:
    old_current = _v(locked["current_version"])
    first = _v(new["min"])
    if first <= old_current:
        yield (
            f"new {what} {name} starts at {first}, which is not newer than the locked current version "
            f"{old_current}: add a release (version bump) and start it there"
        )
    if new["min"] not in current["releases"]:
        yield f"new {what} {name} starts at {new['min']}, which is not a release in specs/releases.toml"
    if str(first) not in ctx.golden_versions:
        yield f"new {what} {name}: no golden artifact for {first} (run tests/golden/generate.py --version {first})"
    if what == "op":
        if name not in current["op_codes"][len(locked["op_codes"]) :]:
            yield f"new op {name} has no appended wire code (give its specs/ops.toml row code = N, the next free code after {len(locked['op_codes']) - 1})"
        older = sorted((n for n in old_rows if _base(n) == _base(name)), key=lambda n: n)
        if older:
            prev = older[-1]
            if ctx.patterns is None:
                yield f"new op {name}: cannot check upgrade/downgrade patterns ({prev} <-> {name}): vhlo-to-version publishes no FORK_PAIRS"
            elif (prev, name) not in ctx.patterns:
                yield f"new op {name} has no upgrade/downgrade patterns from {prev} in vhlo-to-version"
    _ = new_current
