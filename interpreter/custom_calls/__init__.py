"""Custom-call targets: the versioned plugin API (`context.CallContext`, `registry`, `entry_points`),
the built-in JAX targets (`jax_targets`, with `spmd.run_spmd` for programs with shard_map regions) and
JAX's CPU LAPACK targets (`lapack`).  See README "Custom calls: built-in targets and plugins".

The public names of the registry:
- `register_custom_call(name, fn)` (also `stablehlo_py.interpreter.register_custom_call`): make
  `stablehlo.custom_call @name(...)` run `fn(ctx)` (a `CallContext` -> the result arrays); the old
  form `fn(evaluator, op, operand_values)` still works and is deprecated;
- `custom_call_target(name)`: the same as a decorator;
- `CUSTOM_CALL_TARGETS`: a live name -> function view of every registered target."""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from stablehlo_py.interpreter.custom_calls.context import API_VERSION, CallContext
from stablehlo_py.interpreter.custom_calls.registry import (
    ANY_PLATFORM,
    REGISTRY,
    Registry,
    builtin,
    convention_of,
    register_custom_call,
)

CustomCallFn = Callable[..., Any]


def _load_builtins(registry: Registry) -> None:
    from stablehlo_py.interpreter.custom_calls import builtins

    builtins.load(registry)


def _load_plugins(registry: Registry) -> None:
    from stablehlo_py.interpreter.custom_calls import entry_points

    entry_points.load_all(registry)


# builtins and entry_points import the registry, so the registry is told how to load them from here
# (above all three; imported lazily, as before, to keep `import stablehlo_py.interpreter` light)
REGISTRY.install_loaders(_load_builtins, _load_plugins)


class _TargetsView(MutableMapping[str, CustomCallFn]):
    """`CUSTOM_CALL_TARGETS`: reads and writes go to the one registry."""

    def __getitem__(self, name: str) -> CustomCallFn:
        target = REGISTRY.get(name)
        if target is None:
            raise KeyError(name)
        return target.fn

    def __setitem__(self, name: str, fn: CustomCallFn) -> None:
        register_custom_call(name, fn)

    def __delitem__(self, name: str) -> None:
        if REGISTRY.peek(name) is None:
            raise KeyError(name)
        REGISTRY.remove(name)

    def __iter__(self) -> Iterator[str]:
        return iter([t.name for t in REGISTRY.targets()])

    def __len__(self) -> int:
        return len(REGISTRY.targets())


CUSTOM_CALL_TARGETS: MutableMapping[str, CustomCallFn] = _TargetsView()


def custom_call_target(
    name: str, *, platforms: frozenset[str] = ANY_PLATFORM, forms: tuple[str, ...] = ()
) -> Callable[[CustomCallFn], CustomCallFn]:
    """Decorator form of `register_custom_call`; functions of the toolkit's own modules are
    registered as built-ins (with the `platforms` and `forms` the listing shows)."""

    def deco(fn: CustomCallFn) -> CustomCallFn:
        if getattr(fn, "__module__", "").startswith("stablehlo_py."):
            builtin(name, convention_of(fn, name), platforms=platforms, forms=forms)(fn)
        else:
            register_custom_call(name, fn)
        return fn

    return deco


__all__ = [
    "API_VERSION",
    "CUSTOM_CALL_TARGETS",
    "REGISTRY",
    "CallContext",
    "CustomCallFn",
    "custom_call_target",
    "register_custom_call",
]
