"""The caches of stablehlo-py, owned by one object with a clear lifetime (issue 24).

A `Context` owns named, bounded caches:
- interning tables (`table`): equal types and attributes built once, so that they are one object
  (`ir/types.tensor_type`, the parser's types and short dense literals, VHLO's constructors);
- memos of pure functions (`table`, `memo`): a type's text, a dtype of a type, a parsed text;
- class memos (`class_memo`): what a class is (a VHLO type?), plain dicts read per value;
- identity maps (`identity_map`): memos keyed by xDSL objects, where hashing the key would cost
  more than the memo saves (xDSL recomputes an attribute's hash recursively on every call); the
  map class lives in `stablehlo_py/ir/xdsl_compat/identity.py`, the one place that keys by `id()`;
- any other object with a `clear()` (`adopt`), e.g. a verifier's memos of verdicts.

Lifetime.  `CONTEXT` is the default instance, which every module uses.  An entry lives until its
cache is full (the cache is then emptied: every cache has a bound) or until `CONTEXT.clear()`.
`with fresh_context():` empties every cache on entry and again on exit: tests that count a memo's
entries, and mutation runs (tools/mutation.py: a verdict reached by the unmutated code must not
answer for a mutant; tests/conftest.py resets by it, never by a module's names).

Speed.  A module takes its cache once, at import, and keeps it in a module name:
`_TYPES = CONTEXT.table("ir.types.tensor", 1 << 16)`.  Clearing empties the same object in
place, so the hot path stays one dict lookup; a miss stores with `_TYPES.put(key, value)`, which
keeps the bound.  A table is a dict subclass, and on CPython 3.12 `t.get(k)` and `k in t` cost more
on a subclass than on a plain dict (the interpreter's fast paths check for the exact type): a path
that runs per op or per value binds the lookup once, `_types_get = _TYPES.get`, whose calls cost a
plain dict's (clearing keeps the same object, so the bound method stays the table's).  `memo` is functools.lru_cache (C speed) whose
`cache_clear` the context calls.  An identity map's `memoize` makes the whole lookup one function.

Keys are values, never `id()` outside the identity map: the cache keeps its keys, so an id is
never answered for another object.

Migrating a module's cache:
- `_X: dict = {}` written by a function -> `_X = CONTEXT.table("area.what", LIMIT)`, reads stay
  `_X.get(k)`, writes become `_X.put(k, v)` (drop the module's own `len(...) >= LIMIT` clear);
- `@lru_cache(maxsize=N)` / `@cache` on a function of run-time values ->
  `@CONTEXT.memo("area.what", maxsize=N)`;
- `_X[id(obj)] = (obj, v)` -> `_X = CONTEXT.identity_map("area.what", LIMIT)` with `_X.get(obj)` /
  `_X.put(obj, v)`, `get_seq`/`put_seq` for a key of several objects (names as `extra=`), or
  `f = _X.memoize(compute)` for a hot path; an object of its own with `clear()` ->
  `CONTEXT.adopt("area.what", obj)`.  Then delete its line in tests/unit/test_module_caches.py.

What stays outside a context (tests/unit/test_module_caches.py lists each with its reason, and
fails on a new module-level cache): registries filled at import (op classes, the interpreter's
implementations), and pure lazy constants of the static spec tables (`@cache` on a function of
the specs, e.g. `specs._tables`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TypeVar

from stablehlo_py.ir.xdsl_compat import construct, swap
from stablehlo_py.ir.xdsl_compat.identity import IdentityMap

__all__ = ["CONTEXT", "Context", "Flag", "IdentityMap", "Table", "fresh_context"]

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound="Clearable")


class Clearable(Protocol):
    def clear(self) -> None: ...


class Table(dict):  # type: ignore[type-arg]
    """A dict with a bound: `put` empties it when full.  Reads are a dict's (`get`, `in`)."""

    __slots__ = ("name", "limit")

    def __init__(self, name: str, limit: int) -> None:
        super().__init__()
        self.name = name
        self.limit = limit

    def put(self, key: Any, value: Any) -> Any:
        """Store `value` under `key` (emptying the table first when it is full); returns `value`."""
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value


class Flag(list):  # type: ignore[type-arg]
    """`[False]` until something is seen (`flag[0] = True`); `clear()` puts False back, in place."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        super().__init__([False])
        self.name = name

    def clear(self) -> None:
        self[:] = [False]


class _Memo:
    """A function under functools.lru_cache, cleared through the context."""

    __slots__ = ("function",)

    def __init__(self, function: Any) -> None:
        self.function = function

    def clear(self) -> None:
        self.function.cache_clear()

    def __len__(self) -> int:
        return int(self.function.cache_info().currsize)


class Context:
    """Named caches with one lifetime (see the module's docstring).  Each name is created once;
    asking again for a name (a module imported again) gives the same cache."""

    def __init__(self) -> None:
        self._caches: dict[str, Any] = {}

    def _named(self, name: str, kind: type, make: Callable[[], Any]) -> Any:
        got = self._caches.get(name)
        if got is None:
            got = self._caches[name] = make()
        elif type(got) is not kind:  # (exactly: a Table is a dict too)
            raise ValueError(f"cache {name!r} is a {type(got).__name__}, not a {kind.__name__}")
        return got

    def table(self, name: str, limit: int) -> Table:
        """A bounded dict (interning table, memo keyed by values)."""
        return self._named(name, Table, lambda: Table(name, limit))  # type: ignore[no-any-return]

    def class_memo(self, name: str) -> dict[type, Any]:
        """A plain dict keyed by classes (a memo of what a class is: one entry per class, so
        small and unbounded).  Plain, not a `Table`: a per-value check reads it with `k in t` and
        `t[k]`, which take the interpreter's fast paths only on an exact dict."""
        return self._named(name, dict, dict)  # type: ignore[no-any-return]

    def identity_map(self, name: str, limit: int) -> IdentityMap:
        """A bounded memo keyed by the identity of xDSL objects (ir/xdsl_compat/identity.py)."""
        made = self._named(name, IdentityMap, lambda: IdentityMap(name, limit))
        return made  # type: ignore[no-any-return]

    def flag(self, name: str) -> Flag:
        """`[False]`, set once something is seen; cleared with the caches it describes."""
        return self._named(name, Flag, lambda: Flag(name))  # type: ignore[no-any-return]

    def memo(self, name: str, maxsize: int) -> Callable[[F], F]:
        """Decorator: `functools.lru_cache(maxsize)` owned by this context (a function defined
        again under the same name replaces the previous one)."""

        def decorate(function: F) -> F:
            cached = functools.lru_cache(maxsize=maxsize)(function)
            self._caches[name] = _Memo(cached)
            return cached  # type: ignore[return-value]

        return decorate

    def adopt(self, name: str, cache: C) -> C:
        """Own `cache` (any object with `clear()`) under `name`; returns it."""
        self._caches[name] = cache
        return cache

    def clear(self) -> None:
        """Empty every cache, in place."""
        for cache in self._caches.values():
            cache.clear()

    def names(self) -> list[str]:
        return sorted(self._caches)

    def __getitem__(self, name: str) -> Any:
        """The cache named `name` (for tests: `len(CONTEXT["text.attribute_text"])`)."""
        return self._caches[name]

    def sizes(self) -> dict[str, int]:
        """Entries per cache (an adopted object without `len`: omitted)."""
        out = {}
        for name, cache in sorted(self._caches.items()):
            try:
                out[name] = len(cache)
            except TypeError:
                continue
        return out


CONTEXT = Context()
"""The default context: every module's caches."""

# The compat package imports xDSL only, so its class-keyed memos are adopted here.
CONTEXT.adopt("xdsl_compat.construct.class_defaults", construct.CLASS_DEFAULTS)
CONTEXT.adopt("xdsl_compat.swap.swappable", swap.SWAPPABLE)


@contextmanager
def fresh_context(context: Context | None = None) -> Iterator[Context]:
    """Run a block with every cache of `context` (default `CONTEXT`) empty, and empty them again
    after it (what the block computed does not outlive it)."""
    ctx = CONTEXT if context is None else context
    ctx.clear()
    try:
        yield ctx
    finally:
        ctx.clear()
