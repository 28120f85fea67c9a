"""The one registry of custom-call targets: the built-ins (`check.*`, `shape_assertion`, the experimental
ops, JAX's sharding markers and LAPACK kernels), targets of installed plugins (entry point group
`stablehlo_py.custom_calls`, see `entry_points.py`) and targets added in-process with
`register_custom_call`.

Each target records its name, its function, where it comes from (`source`: "built-in",
"entry point <distribution>", "register_custom_call") and the plugin API version it was written
against.  Two calling conventions exist:

- `context` (the plugin API): `fn(ctx: CallContext) -> list[np.ndarray]`;
- `evaluator` (the toolkit's own targets that report check failures or call regions, and the
  deprecated 3-argument form of `register_custom_call`): `fn(evaluator, op, operand_values)`.

Version negotiation (`negotiate`): a plugin declares `API_VERSION = (major, minor)`; the major must
equal ours, the minor may be older (the struct_size rule: its record simply has trailing fields it
ignores), a newer minor is refused because it may read fields this toolkit does not fill."""

from __future__ import annotations

import inspect
import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from stablehlo_py.interpreter.custom_calls.context import API_VERSION, FIELD_SINCE

from stablehlo_py.errors import StableHLOError

CONTEXT = "context"
EVALUATOR = "evaluator"
BUILT_IN = "built-in"
REGISTER_CUSTOM_CALL = "register_custom_call"


class PluginError(StableHLOError):
    """A custom-call plugin cannot be used (import error, bad or incompatible API version, bad table)."""


PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
"""The platforms `jax.export` writes programs for (its `platforms=[...]`)."""
ANY_PLATFORM = frozenset(PLATFORMS)


@dataclass(frozen=True)
class Target:
    name: str
    fn: Callable[..., Any]
    source: str  # "built-in", "entry point <dist>", "register_custom_call", ...
    api_version: tuple[int, int] | None  # None for the evaluator convention (no plugin API)
    convention: str = CONTEXT
    platforms: frozenset[str] = ANY_PLATFORM
    """The platforms whose programs call it (JAX's lowering for them emits this name)."""
    forms: tuple[str, ...] = ()
    """The forms of the call it accepts, each with the JAX releases that wrote it (for the listing)."""

    def platform_text(self) -> str:
        if self.platforms == ANY_PLATFORM:
            return "any"
        return ",".join(p for p in PLATFORMS if p in self.platforms)

    def api_text(self) -> str:
        if self.convention == EVALUATOR:
            if self.source == BUILT_IN:
                return "evaluator-level (toolkit)"
            return "deprecated fn(evaluator, op, operands)"
        major, minor = self.api_version or API_VERSION
        return f"api {major}.{minor}"


def version_text(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def check_version_form(declared: Any, who: str) -> tuple[int, int]:
    """`declared` as (major, minor), or a PluginError saying what `API_VERSION` must look like."""
    if (
        not isinstance(declared, tuple | list)
        or len(declared) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in declared)
    ):
        raise PluginError(
            f"custom-call plugin {who} declares API_VERSION = {declared!r}; it must be a pair of "
            f"non-negative integers (major, minor), e.g. API_VERSION = {tuple(API_VERSION)!r}"
        )
    return int(declared[0]), int(declared[1])


def negotiate(declared: Any, who: str) -> tuple[int, int]:
    """The plugin API version `who` was built against, if this toolkit can load it (same major,
    same or older minor); otherwise one PluginError naming the plugin, its version and ours."""
    version = check_version_form(declared, who)
    ours = version_text(API_VERSION)
    if version[0] != API_VERSION[0]:
        raise PluginError(
            f"custom-call plugin {who} was built against plugin API {version_text(version)}, "
            f"this toolkit implements plugin API {ours}: the major versions must match; rebuild the "
            f"plugin against API {API_VERSION[0]}.x or use a stablehlo-py that implements API "
            f"{version[0]}.x"
        )
    if version[1] > API_VERSION[1]:
        raise PluginError(
            f"custom-call plugin {who} was built against plugin API {version_text(version)}, "
            f"newer than this toolkit's plugin API {ours}: its call record may need fields this "
            f"toolkit does not fill (the record has {len(FIELD_SINCE)} fields, up to API {ours}); "
            "upgrade stablehlo-py or rebuild the plugin against an API version up to "
            f"{ours}"
        )
    return version


def convention_of(fn: Any, name: str) -> str:
    """CONTEXT for `fn(ctx)`, EVALUATOR for `fn(evaluator, op, operands)`; anything else is refused."""
    if not callable(fn):
        raise PluginError(f"custom-call target '{name}' is {type(fn).__name__}, not a function")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return CONTEXT  # builtins without a signature: called with the record
    positional = [
        p
        for p in params
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or len(positional) == 1:
        return CONTEXT
    if len(positional) == 3:
        return EVALUATOR
    raise PluginError(
        f"custom-call target '{name}' takes {len(positional)} arguments; a target is fn(ctx) -> "
        "list of result arrays (or, deprecated, fn(evaluator, op, operand_values))"
    )


class Registry:
    """Targets by name, plus what the plugin loader found wrong (reported when a target is missing
    and by the listing)."""

    def __init__(self) -> None:
        self._targets: dict[str, Target] = {}
        self._builtins_loaded = False
        self._plugins_loaded = False
        # how the built-ins and the plugins are loaded (`builtins.load`, `entry_points.load_all`):
        # they import this module, so the package `custom_calls` installs them (`install_loaders`)
        self._loaders: tuple[Callable[[Registry], None], Callable[[Registry], None]] | None = None
        # plugin failures: (plugin description, message); and target name -> refusal message
        self.plugin_errors: list[tuple[str, str]] = []
        self.refused: dict[str, str] = {}
        # name prefix -> the target of every name with that prefix that has no target of its own
        # (families of names: `__cudnn$fmha...`, `__gpu$xla.gpu.triton`, ...)
        self._prefixes: dict[str, Target] = {}
        self._lock = threading.RLock()  # processes of a parallel run look targets up at once

    # ------------------------------------------------------------------ registration
    def add(self, target: Target, *, replace: bool = False) -> None:
        old = self._targets.get(target.name)
        if old is not None and not replace and old.fn is not target.fn:
            raise PluginError(
                f"custom-call target '{target.name}' from {target.source} is already registered "
                f"from {old.source}; choose another name"
            )
        self._targets[target.name] = target

    def add_all(self, targets: Iterable[Target]) -> None:
        """Register every target or none (a plugin whose table clashes is refused as a whole)."""
        targets = list(targets)
        for t in targets:
            old = self._targets.get(t.name)
            if old is not None and old.fn is not t.fn:
                raise PluginError(
                    f"custom-call target '{t.name}' from {t.source} is already registered from "
                    f"{old.source}; the plugin was not loaded (rename its target)"
                )
        for t in targets:
            self._targets[t.name] = t

    def add_prefix(self, prefix: str, target: Target) -> None:
        """`target` (its `name` is the prefix) answers every name starting with `prefix` that has
        no target of its own."""
        self._prefixes[prefix] = target

    def remove(self, name: str) -> None:
        self._targets.pop(name, None)

    def install_loaders(
        self,
        load_builtins: Callable[[Registry], None],
        load_plugins: Callable[[Registry], None],
    ) -> None:
        """What registers the built-in targets and what loads the plugins, each called once, the
        first time a target is looked up (see `get`)."""
        self._loaders = (load_builtins, load_plugins)

    # ------------------------------------------------------------------ lookup
    def _load_builtins(self) -> None:
        if not self._builtins_loaded:
            self._load_once(0, "_builtins_loaded")

    def load_plugins(self) -> None:
        """Load the entry points of group `stablehlo_py.custom_calls` (once per process)."""
        self._load_builtins()
        if not self._plugins_loaded:
            self._load_once(1, "_plugins_loaded")

    def _load_once(self, loader: int, flag: str) -> None:
        """Run `self._loaders[loader]` unless the flag attribute `flag` says it ran (under the lock,
        so two threads never both run it)."""
        if self._loaders is None:
            return
        with self._lock:
            if not getattr(self, flag):
                self._loaders[loader](self)
                setattr(self, flag, True)

    def get(self, name: str) -> Target | None:
        """The target `name`; plugins are loaded the first time a name is not a built-in."""
        self._load_builtins()
        target = self._targets.get(name)
        if target is None and not self._plugins_loaded:
            self.load_plugins()
            target = self._targets.get(name)
        if target is None:
            for prefix, t in self._prefixes.items():
                if name.startswith(prefix):
                    return t
        return target

    def peek(self, name: str) -> Target | None:
        """The target `name` if registered, without loading anything."""
        return self._targets.get(name)

    def targets(self) -> list[Target]:
        """Every registered target (built-ins and plugins loaded) and every prefix target (its name
        is the prefix followed by `*`), sorted by name."""
        self.load_plugins()
        prefixed = [replace(t, name=p + "*") for p, t in self._prefixes.items()]
        return sorted([*self._targets.values(), *prefixed], key=lambda t: t.name)

    def names(self) -> list[str]:
        return list(self._targets)

    def missing_message(self, name: str) -> str:
        """Why `name` cannot be run: refused by its plugin, or unknown (naming broken plugins)."""
        if name in self.refused:
            return self.refused[name]
        text = (
            f"unsupported custom_call target '{name}'; install a plugin that provides it (entry point "
            "group 'stablehlo_py.custom_calls') or register one with "
            "stablehlo_py.interpreter.register_custom_call(name, fn) where fn(ctx) returns the "
            "result arrays (`stablehlo-translate --interpret --list-custom-calls` lists the known "
            "targets)"
        )
        if self.plugin_errors:
            text += "; plugins that failed to load: " + "; ".join(
                msg.removeprefix("error: ") for _, msg in self.plugin_errors
            )
        return text


REGISTRY = Registry()


def builtin(
    name: str,
    convention: str = CONTEXT,
    *,
    platforms: frozenset[str],
    forms: tuple[str, ...],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for the toolkit's own targets (`convention` EVALUATOR for fn(evaluator, op,
    operands)), with the platforms whose programs call it and the forms it accepts (for the
    listing; every built-in declares both)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        api = API_VERSION if convention == CONTEXT else None
        REGISTRY.add(Target(name, fn, BUILT_IN, api, convention, platforms, forms))
        return fn

    return deco


def register_custom_call(
    name: str, fn: Callable[..., Any], *, source: str = REGISTER_CUSTOM_CALL
) -> None:
    """Make `stablehlo.custom_call @name(...)` run `fn` (replacing any target of that name).

    `fn(ctx)` gets a `CallContext` and returns the result arrays (the plugin API at this toolkit's
    version).  The old form `fn(evaluator, op, operand_values)` still works but is deprecated."""
    if not isinstance(name, str) or not name:
        raise PluginError(f"register_custom_call needs a non-empty target name, got {name!r}")
    convention = convention_of(fn, name)
    if convention == EVALUATOR and source == REGISTER_CUSTOM_CALL:
        warnings.warn(
            f"register_custom_call('{name}', fn): targets of the form fn(evaluator, op, "
            "operand_values) are deprecated; write fn(ctx) taking a "
            "stablehlo_py.interpreter.custom_calls.context.CallContext and returning the result arrays",
            DeprecationWarning,
            stacklevel=2,
        )
    REGISTRY.add(
        Target(name, fn, source, API_VERSION if convention == CONTEXT else None, convention),
        replace=True,
    )


__all__ = [
    "ANY_PLATFORM",
    "BUILT_IN",
    "CONTEXT",
    "EVALUATOR",
    "PLATFORMS",
    "REGISTRY",
    "PluginError",
    "Registry",
    "Target",
    "builtin",
    "convention_of",
    "negotiate",
    "register_custom_call",
]
