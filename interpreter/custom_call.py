"""Registry of `stablehlo.custom_call` targets.  The `check.*` targets upstream's testdata uses are
built in; register your own with `register_custom_call(name, fn)` where
`fn(evaluator, op, operand_values) -> list of result values`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

CustomCallFn = Callable[[Any, Any, list[Any]], list[Any]]
CUSTOM_CALL_TARGETS: dict[str, CustomCallFn] = {}


def register_custom_call(name: str, fn: CustomCallFn) -> None:
    """Make `stablehlo.custom_call @name(...)` run `fn` in every evaluator created afterwards."""
    CUSTOM_CALL_TARGETS[name] = fn


def custom_call_target(name: str) -> Callable[[CustomCallFn], CustomCallFn]:
    def deco(fn: CustomCallFn) -> CustomCallFn:
        register_custom_call(name, fn)
        return fn

    return deco
