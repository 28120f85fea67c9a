"""The `check` dialect and the `custom_call @check.*` targets of upstream's testdata."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter import checks
from stablehlo_py.interpreter.custom_calls.registry import ANY_PLATFORM, EVALUATOR, builtin
from stablehlo_py.interpreter.registry import impl
from stablehlo_py.interpreter.values import array_from_attr


def _float_prop(op: Any, name: str, default: float) -> float:
    a = op.properties.get(name, op.attributes.get(name))
    if a is None:
        return default
    v = getattr(a, "value", None)
    return float(v.data) if v is not None else float(a.data)


def _int_prop(op: Any, name: str, default: int) -> int:
    a = op.properties.get(name, op.attributes.get(name))
    return default if a is None else int(a.value.data)


_TESTDATA = "upstream's interpreter testdata: (actual, expected) -> (), has_side_effect"


def _report(ev: Any, op: Any, problem: str | None) -> list[Any]:
    if problem is not None:
        ev.fail(op, problem)
    return []


@impl("check.expect_eq")
def _expect_eq(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return _report(ev, op, checks.expect_eq(args[0], args[1]))


@impl("check.expect_eq_const")
def _expect_eq_const(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    return _report(ev, op, checks.expect_eq(args[0], array_from_attr(op.properties["value"])))


@impl("check.expect_almost_eq")
def _expect_almost_eq(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    tol = _float_prop(op, "tolerance", 1e-4)
    return _report(ev, op, checks.expect_almost_eq(args[0], args[1], tol))


@impl("check.expect_almost_eq_const")
def _expect_almost_eq_const(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    tol = _float_prop(op, "tolerance", 1e-4)
    return _report(ev, op, checks.expect_almost_eq(args[0], array_from_attr(op.properties["value"]), tol))


@impl("check.expect_close")
def _expect_close(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
    mx = _int_prop(op, "max_ulp_difference", 1)
    mn = _int_prop(op, "min_ulp_difference", 0)
    return _report(ev, op, checks.expect_close(args[0], args[1], mx, mn))


@builtin("check.expect_eq", EVALUATOR, platforms=ANY_PLATFORM, forms=(f"{_TESTDATA}, exact",))
def _cc_expect_eq(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    return _report(ev, op, checks.expect_eq(args[0], args[1]))


@builtin(
    "check.expect_close", EVALUATOR, platforms=ANY_PLATFORM, forms=(f"{_TESTDATA}, within 3 ULP",)
)
def _cc_expect_close(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    return _report(ev, op, checks.expect_close(args[0], args[1], 3, 0))


@builtin(
    "check.expect_almost_eq",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(f"{_TESTDATA}, within 1e-3",),
)
def _cc_expect_almost_eq(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    return _report(ev, op, checks.expect_almost_eq(args[0], args[1], 1e-3))


@builtin(
    "check.eq",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        "upstream's interpreter: (actual, expected) -> tensor<i1>, integers exact, floats within "
        "1e-4",
    ),
)
def _cc_eq(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    a = np.asarray(args[0])
    from stablehlo_py.semantics import dtypes

    if dtypes.is_float(a.dtype) or dtypes.is_complex(a.dtype):
        ok = checks.expect_almost_eq(args[0], args[1], 1e-4) is None
    else:
        ok = checks.expect_eq(args[0], args[1]) is None
    return [np.array(ok, dtype=np.bool_)]
