"""Constants, calls and custom_call dispatch.

Compiled: a constant is its value (decoded once, read-only), a call names its callee once."""

from __future__ import annotations

from typing import Any

from stablehlo_py.interpreter.registry import Step, compiler, constant_step, impl
from stablehlo_py.interpreter.values import constant_from_attr


@compiler("stablehlo.constant")
def _constant(op: Any) -> Step:
    return constant_step(constant_from_attr(op.properties["value"]))


@compiler("func.call", "stablehlo.call")
def _call(op: Any) -> Step:
    callee = op.properties["callee"].root_reference.data

    def run(ev: Any, *args: Any) -> list[Any]:
        return ev.call(callee, args)

    return Step(run, ev=True, multi=True)


@impl("stablehlo.custom_call")
def _custom_call(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    from stablehlo_py.interpreter.custom_calls.dispatch import call_custom

    return call_custom(ev, op, args)
