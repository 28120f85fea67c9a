"""Result-type inference as upstream's (``TypeInference.cpp``): one rule per op, written once, serving
the verifiers (the declared result types must be compatible with the inferred ones), the builder
(``stablehlo_py.builder`` fills result types in) and shape refinement.

A rule takes what upstream's ``inferReturnTypes`` / ``inferReturnTypeComponents`` take -- the operand
types, the op's attributes and its regions (and, for the few rules that read constant shape operands,
the operand values) -- as one :class:`InferInput`, and returns the result types, or raises
:class:`InferError` with upstream's message (without location: the caller adds the op's).

Rules live in one module per op family (``elementwise``, ``data_movement``, ``reduction``, ``linalg``,
``control_flow``, ``collectives``, ``quantization``, ``misc``, ``chlo``), each registering with
:func:`rule`; ``shapes`` holds what they share (upstream's ``hlo::`` helpers: dimension and type
compatibility, the most specific type, bounds).  The modules are imported on first use.

    from stablehlo_py.ir.infer import infer_result_types, infer_op
    infer_result_types("stablehlo.add", [t, t])            # -> [t]
    infer_op(op)                                           # the types an existing op's rule gives
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Attribute, Operation, Region, SSAValue

__all__ = [
    "FAMILIES",
    "InferError",
    "InferInput",
    "Rule",
    "has_rule",
    "infer_op",
    "infer_result_types",
    "rule",
    "rules",
    "verify_inferred",
]


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

FAMILIES = (
    "elementwise",
    "data_movement",
    "reduction",
    "linalg",
    "control_flow",
    "collectives",
    "quantization",
    "misc",
    "chlo",
)
"""The modules of rules, one per op family (as ``stablehlo_py/ir/ops/``)."""

_RULES: dict[str, Rule] = {}
_LOADED = False


def rule(*op_names: str) -> Callable[[Rule], Rule]:
    """Register a function as the inference rule of ``op_names`` (full names, `stablehlo.add`)."""

    def register(fn: Rule) -> Rule:
        for name in op_names:
            if name in _RULES:
                raise ValueError(f"two inference rules for {name}")
            _RULES[name] = fn
        return fn

    return register


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for family in FAMILIES:
        importlib.import_module(f"{__name__}.{family}")


def rules() -> dict[str, Rule]:
    """Op name -> rule, for every op with one."""
    _load()
    return dict(_RULES)


def has_rule(op_name: str) -> bool:
    _load()
    return op_name in _RULES


def infer_result_types(
    op_name: str,
    operand_types: Sequence[Attribute],
    attributes: Mapping[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
    operands: Sequence[SSAValue] | None = None,
) -> list[Attribute]:
    """The result types upstream infers for ``op_name`` with these operands and attributes; raises
    InferError (upstream's message), or KeyError when the op has no rule."""
    _load()
    fn = _RULES.get(op_name)
    if fn is None:
        raise KeyError(f"{op_name} has no result-type inference rule")
    return fn(
        InferInput(
            tuple(operand_types),
            dict(attributes or {}),
            tuple(regions),
            None if operands is None else tuple(operands),
        )
    )


def infer_op(op: Operation) -> list[Attribute]:
    """The result types ``op``'s rule gives for its operands, attributes and regions."""
    attrs: dict[str, Any] = dict(op.attributes)
    attrs.update(op.properties)
    return infer_result_types(
        op.name, [v.type for v in op.operands], attrs, tuple(op.regions), tuple(op.operands)
    )


def verify_inferred(op: Operation) -> None:
    """upstream's InferTypeOpInterface verification: the op's rule must succeed (its InferError is
    the op's diagnostic) and the declared result types must be compatible with the inferred ones
    (``shapes.types_compatible``); raises xDSL's VerifyException with upstream's words."""
    from xdsl.utils.exceptions import VerifyException

    from stablehlo_py.ir.infer.shapes import types_compatible
    from stablehlo_py.ir.text.printer import type_to_str

    try:
        inferred = infer_op(op)
    except InferError as e:
        raise VerifyException(e.message) from None
    declared = [r.type for r in op.results]
    if not types_compatible(inferred, declared):
        raise VerifyException(
            "inferred type(s) "
            + ", ".join(f"'{type_to_str(t)}'" for t in inferred)
            + " are incompatible with return type(s) of operation "
            + ", ".join(f"'{type_to_str(t)}'" for t in declared)
        )
