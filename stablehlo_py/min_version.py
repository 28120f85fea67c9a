"""`minimum_version(module)`: the lowest StableHLO version a program can be written for, and the op and
feature that set that floor (upstream has no such API; users asked for it).

The module may be StableHLO (it is legalized to VHLO on a copy) or VHLO.  Every op's floor is the
lowest release at which ``vhlo-to-version`` would accept it (``stablehlo_py.vhlo.legality``: its fork
chain, attribute and type versions, value-dependent constraints); the module's floor is the highest of
them, never below the minimum supported version.

    >>> from stablehlo_py import minimum_version
    >>> floor = minimum_version(module)
    >>> floor.version, floor.op, floor.feature
    (Version(1, 1, 0), 'stablehlo.gather', 'batching dimensions need 1.1.0 (...)')

This module sits above the IR, VHLO and passes layers and imports them only when called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from stablehlo_py.version import Version, get_minimum_version

if TYPE_CHECKING:
    from xdsl.ir import Operation


@dataclass(frozen=True)
class MinimumVersion:
    """The floor of a program: ``version`` is the lowest target it can be written for; ``op`` (its
    StableHLO name when the input was StableHLO), ``location`` and ``feature`` say what set it (None
    when nothing needs more than the minimum version)."""

    version: Version
    op: str | None = None
    location: str | None = None
    feature: str | None = None

    def __iter__(self):  # allows `version, op, feature = minimum_version(m)`
        return iter((self.version, self.op, self.feature))

    def __str__(self) -> str:
        if self.op is None:
            return f"{self.version} (the minimum supported version)"
        where = f" at {self.location}" if self.location else ""
        return f"{self.version}: '{self.op}'{where} uses {self.feature}"


def minimum_version(module: Operation, allow_other_dialects: bool = False) -> MinimumVersion:
    """The lowest version ``module`` (StableHLO or VHLO) can be written for, and why.

    Raises ``VersionError`` when the module cannot be written even for the current version (e.g. an
    upgrade would lose information), and ``StableHLOError`` when it cannot be legalized to VHLO.
    """
    from stablehlo_py.errors import VersionError
    from stablehlo_py.ir.xdsl_compat.side_data import SRC, attach, attached
    from stablehlo_py.passes.drivers._common import op_location
    from stablehlo_py.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo
    from stablehlo_py.vhlo import legality
    from stablehlo_py.vhlo.ops import VhloOp

    if any(op.name.startswith(("stablehlo.", "func.")) for op in module.walk()):
        copy = module.clone()
        for a, b in zip(module.walk(), copy.walk()):  # keep parse positions for diagnostics
            src = attached(a, SRC)
            if src is not None:
                attach(b, SRC, src)
        module = legalize_to_vhlo(copy, allow_other_dialects=allow_other_dialects)
    best = MinimumVersion(get_minimum_version())
    for op in module.walk():
        if not isinstance(op, VhloOp):
            continue
        floor, blockers = legality.minimum_target(op, allow_other_dialects)
        if floor is None:
            raise VersionError(
                f"'{op.name}' cannot be written for any version: "
                + "; ".join(b.text() for b in blockers),
                location=op_location(op),
            )
        if floor > best.version:
            feature = "; ".join(b.text() for b in blockers) if blockers else None
            best = MinimumVersion(floor, _stablehlo_name(op), op_location(op), feature)
    return best


def _stablehlo_name(op: Operation) -> str:
    spec = getattr(op, "SPEC", None)
    if spec is not None and spec.stablehlo:
        if spec.base == "return":
            return "return"
        return spec.stablehlo[0]
    return op.name


__all__ = ["MinimumVersion", "minimum_version"]
