"""Constants, calls and custom_call dispatch."""

from __future__ import annotations

from typing import Any

from stablehlo_py.errors import InterpreterError
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.interpreter.values import array_from_attr


@impl("stablehlo.constant")
def _constant(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    cache = op.__dict__.get("_interp_value")
    if cache is None:
        cache = array_from_attr(op.properties["value"])
        cache.flags.writeable = False
        op.__dict__["_interp_value"] = cache
    return [cache]


@impl("func.call", "stablehlo.call")
def _call(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return ev.call(op.properties["callee"].root_reference.data, args)


@impl("stablehlo.custom_call")
def _custom_call(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    target = op.properties["call_target_name"].data
    fn = ev.custom_calls.get(target)
    if fn is None:
        raise InterpreterError(
            f"unsupported custom_call target '{target}'; register one with "
            "stablehlo_py.interpreter.register_custom_call(name, fn) where "
            "fn(evaluator, op, operand_values) returns the result values"
        )
    return fn(ev, op, args)
