"""A context record for the LAPACK targets built from a parsed `stablehlo.custom_call` (the fields the
custom-call context contract names), and a 3-argument adapter to run them through the legacy
`register_custom_call` hook when the toolkit's registry does not list them yet."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from stablehlo_py.ir.text.dense import dense_values


def _layouts(attr: Any) -> tuple[tuple[int, ...], ...] | None:
    if attr is None:
        return None
    return tuple(tuple(int(d) for d in dense_values(layout).ravel()) for layout in attr.data)


def context_from_op(op: Any, operands: list[Any]) -> SimpleNamespace:
    props = op.properties
    config = props.get("backend_config")
    return SimpleNamespace(
        target_name=props["call_target_name"].data,
        operands=tuple(np.asarray(v) for v in operands),
        operand_types=tuple(v.type for v in op.operands),
        result_types=tuple(r.type for r in op.results),
        backend_config=config
        if config is not None and not hasattr(config, "data")
        else getattr(config, "data", ""),
        attributes=dict(op.attributes),
        operand_layouts=_layouts(props.get("operand_layouts")),
        result_layouts=_layouts(props.get("result_layouts")),
    )


def register_lapack_if_missing() -> None:
    """Make the LAPACK targets reachable from `run` (only if the registry does not already hold them)."""
    from stablehlo_py.interpreter import custom_calls
    from stablehlo_py.interpreter.custom_calls.lapack import LAPACK_TARGETS

    registered = getattr(custom_calls, "CUSTOM_CALL_TARGETS", {})
    for name, fn in LAPACK_TARGETS.items():
        if name not in registered:
            custom_calls.register_custom_call(name, _adapter(fn))


def _adapter(fn: Any) -> Any:
    def call(ev: Any, op: Any, operands: list[Any]) -> list[Any]:
        return fn(context_from_op(op, operands))

    return call
