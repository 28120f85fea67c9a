"""Custom-call targets from installed packages: entry point group `stablehlo_py.custom_calls`.

A plugin package declares, in its pyproject.toml,

    [project.entry-points."stablehlo_py.custom_calls"]
    my_targets = "my_package.targets"          # a module, or "my_package.targets:PLUGIN" (an object)

and the object the entry point names declares the plugin API version it was built against and its
targets, in one of two forms:

    API_VERSION = (1, 0)                        # (major, minor) of stablehlo_py's plugin API
    TARGETS = {"my_target": my_target}          # a table: name -> fn(ctx) -> list of arrays

    API_VERSION = (1, 0)
    def register(api):                          # or a callable object carrying API_VERSION
        api.register("my_target", my_target)    # api.version is the toolkit's (major, minor)

Entry points are loaded lazily, once per process: the first time a program calls a target that is
not built in, or when the targets are listed.  A plugin that cannot be imported, declares no or an
incompatible `API_VERSION` (see `registry.negotiate`), or whose table is malformed is not loaded; its
one-line error is reported when one of its targets is used (or any unknown target, when its target
names cannot be known) and by `stablehlo-translate --interpret --list-custom-calls`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from stablehlo_py.interpreter.custom_calls.context import API_VERSION
from stablehlo_py.interpreter.custom_calls.registry import (
    CONTEXT,
    PluginError,
    Registry,
    Target,
    convention_of,
    negotiate,
)

GROUP = "stablehlo_py.custom_calls"


class PluginAPI:
    """What `register(api)` receives: the toolkit's API version and `register(name, fn)`."""

    def __init__(self, who: str, source: str, plugin_version: tuple[int, int]) -> None:
        self.version: tuple[int, int] = API_VERSION
        self.plugin_version = plugin_version
        self._who = who
        self._source = source
        self.targets: list[Target] = []

    def register(self, name: str, fn: Callable[..., Any]) -> None:
        self.targets.append(_target(name, fn, self._who, self._source, self.plugin_version))


def _target(name: Any, fn: Any, who: str, source: str, version: tuple[int, int]) -> Target:
    if not isinstance(name, str) or not name:
        raise PluginError(
            f"custom-call plugin {who} registers a target named {name!r}; names are non-empty strings"
        )
    try:
        convention = convention_of(fn, name)
    except PluginError as exc:
        raise PluginError(f"custom-call plugin {who}: {exc.message}") from None
    if convention != CONTEXT:
        raise PluginError(
            f"custom-call plugin {who}: target '{name}' takes (evaluator, op, operands); plugin "
            "targets take the call record: fn(ctx) -> list of result arrays"
        )
    return Target(name, fn, source, version, CONTEXT)


def describe(ep: Any) -> tuple[str, str]:
    """(how errors name the plugin, the `source` its targets are listed with)."""
    dist = getattr(ep, "dist", None)
    if dist is not None:
        dist_name = dist.metadata["Name"] or dist.name
        return (
            f"'{ep.name}' ({ep.value}, from {dist_name} {dist.version})",
            f"entry point {dist_name}",
        )
    return f"'{ep.name}' ({ep.value})", f"entry point {ep.name}"


def targets_of(obj: Any, who: str, source: str) -> list[Target]:
    """The targets plugin object `obj` declares, after negotiating its API_VERSION."""
    if not hasattr(obj, "API_VERSION"):
        raise PluginError(
            f"custom-call plugin {who} declares no API_VERSION; add API_VERSION = "
            f"{tuple(API_VERSION)!r} (the stablehlo_py plugin API it was written against)"
        )
    version = negotiate(obj.API_VERSION, who)
    table = getattr(obj, "TARGETS", None)
    if table is not None:
        if not isinstance(table, Mapping):
            raise PluginError(
                f"custom-call plugin {who}: TARGETS is {type(table).__name__}; it must be a dict "
                "name -> fn(ctx)"
            )
        return [_target(name, fn, who, source, version) for name, fn in table.items()]
    register = getattr(obj, "register", None)
    if not callable(register) and callable(obj):
        register = obj
    if not callable(register):
        raise PluginError(
            f"custom-call plugin {who} declares neither TARGETS (a dict name -> fn(ctx)) nor "
            "register(api)"
        )
    api = PluginAPI(who, source, version)
    try:
        register(api)
    except PluginError:
        raise
    except Exception as exc:  # noqa: BLE001 - the plugin's own bug, reported as one line
        raise PluginError(
            f"custom-call plugin {who}: register(api) failed: {type(exc).__name__}: {exc}"
        ) from None
    return api.targets


def declared_names(obj: Any) -> list[str]:
    """Target names a (refused) plugin declares, when its table says them without running it."""
    table = getattr(obj, "TARGETS", None)
    if isinstance(table, Mapping):
        return [name for name in table if isinstance(name, str)]
    return []


def load_entry_point(registry: Registry, ep: Any) -> None:
    who, source = describe(ep)
    try:
        obj = ep.load()
    except Exception as exc:  # noqa: BLE001 - the plugin's import error, reported as one line
        message = (
            f"error: custom-call plugin {who} cannot be imported: {type(exc).__name__}: {exc}; "
            "fix or uninstall the package"
        )
        registry.plugin_errors.append((who, message))
        return
    try:
        registry.add_all(targets_of(obj, who, source))
    except PluginError as exc:
        registry.plugin_errors.append((who, str(exc)))
        for name in declared_names(obj):
            registry.refused.setdefault(name, exc.message)


def load_all(registry: Registry) -> None:
    """Load every entry point of GROUP into `registry` (errors recorded, never raised)."""
    try:
        eps = list(metadata.entry_points(group=GROUP))
    except Exception as exc:  # noqa: BLE001 - broken package metadata must not stop a run
        registry.plugin_errors.append(
            ("entry points", f"error: cannot read the installed entry points ({exc})")
        )
        return
    for ep in sorted(eps, key=lambda e: (e.name, e.value)):
        load_entry_point(registry, ep)


__all__ = ["GROUP", "PluginAPI", "declared_names", "load_all", "load_entry_point", "targets_of"]
