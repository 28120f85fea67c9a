"""Op forks: for every op with more than one VHLO version, one upgrade/downgrade pair per fork, side
by side, in a module named after the op (or after what a group of ops gained in the same release,
``result_accuracy``, ``send_recv``).

The modules are found, not listed: every module of this folder but ``base`` (what they are written
with) and private ones, in name order, so a new fork is one new file.  Each module's docstring names
its forks and the release that made them (``specs/ops.toml`` has every op version and its release);
``python -c "from stablehlo_py.vhlo import forks; print(forks.MODULES)"`` lists them.

A pair is ``upgrade(op_vN) -> op_vN+1`` (fills the new fields with their defaults) and
``downgrade(op_vN+1) -> op_vN`` (succeeds only when the new fields hold defaults, else raises
``Blocked`` saying why; nothing is ever dropped silently).  Both work on a ``ForkOp`` snapshot (operands,
result types, properties, discardable attributes, regions) and return a new one; the
``vhlo-to-version`` pass applies the result.  ``FORKS`` maps (op, N) to the pair between vN and vN+1;
``tests/unit/vhlo/test_forks.py`` checks it covers every fork of ``specs/ops.toml``.
"""

from __future__ import annotations

import importlib
import pkgutil

from stablehlo_py.vhlo.forks.base import Blocked, Fork, ForkOp

MODULES: tuple[str, ...] = tuple(
    sorted(
        m.name
        for m in pkgutil.iter_modules(__path__)
        if m.name != "base" and not m.name.startswith("_")
    )
)
"""The fork modules (every module of this folder but ``base`` and private ones), in name order."""


def _load() -> dict[tuple[str, int], Fork]:
    table: dict[tuple[str, int], Fork] = {}
    for name in MODULES:
        mod = importlib.import_module(f"{__name__}.{name}")
        for f in mod.FORKS:
            key = (f.op, f.version)
            if key in table:
                raise ValueError(f"fork {f.op} v{f.version}<->v{f.version + 1} defined twice")
            table[key] = f
    return table


FORKS: dict[tuple[str, int], Fork] = _load()
"""(op base name, N) -> the upgrade/downgrade pair between vN and vN+1."""


def _pair(base: str, version: int) -> Fork:
    pair = FORKS.get((base, version))
    if pair is None:
        raise LookupError(
            f"no upgrade/downgrade pair between {base}_v{version} and {base}_v{version + 1}: "
            f"add Fork({base!r}, {version}, upgrade_v{version}, downgrade_v{version + 1}) to FORKS "
            f"in vhlo/forks/<{base}>.py (docs/adding-a-version.md)"
        )
    return pair


def upgrade(op: ForkOp) -> ForkOp:
    """One step up: vN -> vN+1."""
    return _pair(op.base, op.version).upgrade(op)


def downgrade(op: ForkOp) -> ForkOp:
    """One step down: vN -> vN-1 (raises Blocked)."""
    return _pair(op.base, op.version - 1).downgrade(op)


__all__ = ["FORKS", "Blocked", "Fork", "ForkOp", "downgrade", "upgrade"]
