"""Op forks: for every op with more than one VHLO version, one upgrade/downgrade pair per fork, side
by side, in a module named after the op:

=====================  ===========================  =====================================
module                 forks                        what changed
=====================  ===========================  =====================================
all_gather.py          all_gather v1 <-> v2         1.5.0: variadic operands/results
all_reduce.py          all_reduce v1 <-> v2         1.5.0: variadic operands/results
all_to_all.py          all_to_all v1 <-> v2         1.5.0: variadic operands/results
collective_broadcast   collective_broadcast 1<->2   1.20.0: variadic, has_dynamic_root
composite.py           composite v1 <-> v2          1.14.0: composite_regions
custom_call.py         custom_call v1 <-> v2        1.18.0: result_tilings
dot_general.py         dot_general v1 <-> v2        1.6.0: the seven algorithm attributes
dynamic_conv.py        dynamic_conv v1 <-> v2       0.20.0: `padding` attribute removed
gather.py              gather, dynamic_gather 1<->2 1.1.0: batching dims
scatter.py             scatter v1 <-> v2            1.1.0: batching dims
send_recv.py           send, recv v1 <-> v2         1.12.0: source_target_pairs
result_accuracy.py     cbrt, cosine, exponential,   1.9.0 (exponential) / 1.10.0 (others):
                       exponential_minus_one, log,  result_accuracy
                       log_plus_one, logistic,
                       rsqrt, sine, sqrt, tan, tanh
=====================  ===========================  =====================================

A pair is ``upgrade(op_vN) -> op_vN+1`` (fills the new fields with their defaults) and
``downgrade(op_vN+1) -> op_vN`` (succeeds only when the new fields hold defaults, else raises
``Blocked`` saying why; nothing is ever dropped silently).  Both work on a ``ForkOp`` snapshot (operands,
result types, properties, discardable attributes, regions) and return a new one; the
``vhlo-to-version`` pass applies the result.  ``FORKS`` maps (op, N) to the pair between vN and vN+1;
``tests/unit/vhlo/test_forks.py`` checks it covers every fork of ``specs/ops.toml``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Operation, Region, SSAValue

from stablehlo_py import specs


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


MODULES = (
    "all_gather",
    "all_reduce",
    "all_to_all",
    "collective_broadcast",
    "composite",
    "custom_call",
    "dot_general",
    "dynamic_conv",
    "gather",
    "scatter",
    "send_recv",
    "result_accuracy",
)


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


def upgrade(op: ForkOp) -> ForkOp:
    """One step up: vN -> vN+1."""
    return FORKS[(op.base, op.version)].upgrade(op)


def downgrade(op: ForkOp) -> ForkOp:
    """One step down: vN -> vN-1 (raises Blocked)."""
    return FORKS[(op.base, op.version - 1)].downgrade(op)


__all__ = ["FORKS", "Blocked", "Fork", "ForkOp", "downgrade", "upgrade"]
