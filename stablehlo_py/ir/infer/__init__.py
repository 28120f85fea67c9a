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
compatibility, the most specific type, bounds).  The modules are imported on first use.  The rule
table, :func:`rule`, :class:`InferInput` and :class:`InferError` live in the leaf ``registry``, which
the families import (never this package: it imports them); they are re-exported here.

    from stablehlo_py.ir.infer import infer_result_types, infer_op
    infer_result_types("stablehlo.add", [t, t])            # -> [t]
    infer_op(op)                                           # the types an existing op's rule gives
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.ir import Attribute, Operation, Region, SSAValue

from stablehlo_py.ir.infer.registry import _RULES, InferError, InferInput, Rule, rule

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

_LOADED = False


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    # the families of FAMILIES, in its order: importing one registers its rules
    from stablehlo_py.ir.infer import (  # noqa: F401
        elementwise,
        data_movement,
        reduction,
        linalg,
        control_flow,
        collectives,
        quantization,
        misc,
        chlo,
    )


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
