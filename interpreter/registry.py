"""Op name -> impl.  An impl is `fn(evaluator, op, operand_values, env) -> list of result values`;
it unpacks attributes and calls a pure function of `semantics/`.  Impl modules live in `impls/`."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Any

Impl = Callable[[Any, Any, list[Any], dict[Any, Any]], list[Any]]

IMPLS: dict[str, Impl] = {}
_LOADED = False


def impl(*names: str) -> Callable[[Impl], Impl]:
    """Register an impl for one or more op names."""

    def deco(fn: Impl) -> Impl:
        for n in names:
            if n in IMPLS:
                raise ValueError(f"two interpreter impls for {n}")
            IMPLS[n] = fn
        return fn

    return deco


def load_impls() -> None:
    """Import every module of `stablehlo_py.interpreter.impls` once (they register themselves)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from stablehlo_py.interpreter import impls

    for info in pkgutil.iter_modules(impls.__path__):
        importlib.import_module(f"{impls.__name__}.{info.name}")
