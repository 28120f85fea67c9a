"""What the fork modules are written with: ``ForkOp`` (the snapshot of a VHLO op a fork step takes
and returns), ``Fork`` (one upgrade/downgrade pair), ``Blocked`` (a downgrade that cannot be taken)
and the checks ``require`` and ``require_single``.

A leaf: the fork modules import it, and the package (``stablehlo_py.vhlo.forks``) imports them and
re-exports these names; nothing here imports the package.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Operation, Region, SSAValue

from stablehlo_py import specs

__all__ = ["Blocked", "Fork", "ForkOp", "Step", "require", "require_single"]


class Blocked(Exception):
    """A fork step cannot be taken; the message names the feature that blocks it."""


@dataclass
class ForkOp:
    """A VHLO op as the fork functions see it: which fork, and its parts."""

    base: str
    version: int
    operands: tuple[SSAValue, ...]
    result_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute] = field(default_factory=dict)
    regions: tuple[Region, ...] = ()

    @classmethod
    def of(cls, op: Operation) -> ForkOp:
        spec = op.SPEC  # type: ignore[attr-defined]
        return cls(
            spec.base,
            spec.version,
            tuple(op.operands),
            tuple(r.type for r in op.results),
            dict(op.properties),
            dict(op.attributes),
            tuple(op.regions),
        )

    @property
    def spec(self) -> specs.OpSpec:
        return specs.op(f"{self.base}_v{self.version}")

    def prop(self, name: str) -> Attribute | None:
        return self.properties.get(name)

    def to(
        self,
        version: int,
        *,
        set_props: dict[str, Attribute] | None = None,
        drop: Iterable[str] = (),
        regions: tuple[Region, ...] | None = None,
    ) -> ForkOp:
        """The same op at fork ``version`` with properties added/removed."""
        dropped = frozenset(drop)
        props = {k: v for k, v in self.properties.items() if k not in dropped}
        if set_props:
            props.update(set_props)
        return ForkOp(
            self.base,
            version,
            self.operands,
            self.result_types,
            props,
            dict(self.attributes),
            self.regions if regions is None else regions,
        )


Step = Callable[[ForkOp], ForkOp]


def require_single(op: ForkOp, what: str) -> None:
    """Downgrading a variadic fork to a single-operand one: exactly one operand and one result."""
    if len(op.operands) != 1 or len(op.result_types) != 1:
        raise Blocked(f"{len(op.operands)} operands and {len(op.result_types)} results ({what})")


def require(op: ForkOp, name: str, default: Attribute, feature: str) -> None:
    """Downgrading past the fork that added ``name``: it must hold its default."""
    value = op.properties.get(name)
    if value is not None and value is not default and value != default:
        from stablehlo_py.ir.text.printer import attr_to_str

        raise Blocked(f"{feature} ({name} = {attr_to_str(value)})")


@dataclass(frozen=True)
class Fork:
    """The pair between ``op`` vN and vN+1."""

    op: str
    version: int
    upgrade: Step
    downgrade: Step
