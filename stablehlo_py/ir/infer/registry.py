"""The rule table of result-type inference and what a rule module needs to register with it: the
:func:`rule` decorator, :class:`InferInput` (what a rule reads), :class:`InferError` (how it fails).

A leaf: it imports nothing of ``stablehlo_py.ir.infer`` or ``stablehlo_py.ir.ops``, so every rule
family (``elementwise``, ``data_movement``, ...) and ``shapes`` import it, while the package
(``stablehlo_py.ir.infer``) imports the families and looks rules up in ``_RULES``.  Users import
these names from the package, which re-exports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xdsl.ir import Attribute, Region, SSAValue

__all__ = ["InferError", "InferInput", "Rule", "rule"]


class InferError(Exception):
    """The operands and attributes admit no result type; ``message`` is upstream's wording.

    Upstream reports most rule errors at the op's location with no op prefix
    (``emitOptionalError(location, ...)``) from result-type inference.  Two kinds differ, and say so:
    ``op_prefixed=True`` -- upstream words it as the op's own (``'stablehlo.async_start' op ...``);
    ``invariant=True`` -- upstream reports it from the op's ODS/trait checks, before inference (such a
    check sits in a rule here because the builder needs it too), so it is op-prefixed and is not
    followed by "failed to infer returned types"; ``standalone=True`` -- see below.
    ``stablehlo_py.ir.verify`` words the diagnostic."""

    def __init__(
        self,
        message: str,
        *,
        op_prefixed: bool = False,
        invariant: bool = False,
        standalone: bool = False,
    ):
        super().__init__(message)
        self.message = message
        self.op_prefixed = op_prefixed or invariant
        self.invariant = invariant
        # upstream emits it as a diagnostic of its own and lets inference go on (CHLO's broadcast
        # shape helper): bare, and no "failed to infer returned types" follows
        self.standalone = standalone


@dataclass(frozen=True)
class InferInput:
    """What a rule reads: operand types in order, attributes by name (properties and discardable
    attributes merged, as xDSL attribute objects), regions, and -- when the caller has them -- the
    operand values (for rules that look at constant shape operands, as upstream's do)."""

    operand_types: tuple[Attribute, ...]
    attributes: Mapping[str, Attribute] = field(default_factory=dict)
    regions: tuple[Region, ...] = ()
    operands: tuple[SSAValue, ...] | None = None

    def attr(self, name: str) -> Attribute | None:
        return self.attributes.get(name)


Rule = Callable[[InferInput], list[Attribute]]

_RULES: dict[str, Rule] = {}


def rule(*op_names: str) -> Callable[[Rule], Rule]:
    """Register a function as the inference rule of ``op_names`` (full names, `stablehlo.add`)."""

    def register(fn: Rule) -> Rule:
        for name in op_names:
            if name in _RULES:
                raise ValueError(f"two inference rules for {name}")
            _RULES[name] = fn
        return fn

    return register
