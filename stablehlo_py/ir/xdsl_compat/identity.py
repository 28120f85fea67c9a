"""`IdentityMap`: a bounded table keyed by object identity, for caches whose keys are xDSL
attributes and types.  The one place where stablehlo-py keys a cache by `id()`.

Why: xDSL 0.74's attributes are frozen dataclasses whose `__hash__` is recomputed on every call,
recursively (hashing `tensor<4x8xf32>` hashes its shape's ArrayAttr, each IntAttr, its element
type, ... in Python: about 1 us against 0.04 us for an id).  A cache keyed by the attribute itself
pays that walk on each lookup, more than the hot memos (a type's text, a verdict) save.  Our
parser and constructors intern types and attributes (equal ones are usually one object), so
identity is the cheap key, and a miss on an equal but distinct object only computes again.

An id is an object's only while the object lives.  So each entry holds strong references to the
objects of its key: while an entry is in the table its ids cannot be given to other objects, and
a hit is always the same object.  The table is bounded: when it is full it is emptied (the
objects are then released).  The caches that use it belong to `stablehlo_py.ir.context.Context`,
which creates them by name and clears them.

Regression test: tests/unit/ir/test_xdsl_compat.py (xDSL still recomputes an attribute's hash on
every call -- when it caches hashes, plain dicts keyed by the attributes will do and this can go;
an entry keeps its objects alive, so an id is never answered for another object; the bound).
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable


class IdentityMap:
    """`object -> value` by identity (`get`/`put`/`memoize`), or `objects -> value` by the
    identities of several objects in order (`get_seq`/`put_seq`; use one kind per map)."""

    __slots__ = ("name", "limit", "_table")

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self._table: dict[Any, tuple[Any, Any]] = {}  # id(s) -> (the object(s), value)

    def __len__(self) -> int:
        return len(self._table)

    def clear(self) -> None:
        self._table.clear()  # in place: `memoize`'s functions hold the dict

    def _store(self, key: Any, objs: Any, value: Any) -> Any:
        table = self._table
        if len(table) >= self.limit:
            table.clear()
        table[key] = (objs, value)
        return value

    def get(self, obj: object, default: Any = None) -> Any:
        hit = self._table.get(id(obj))
        return default if hit is None else hit[1]

    def put(self, obj: object, value: Any) -> Any:
        """Remember `value` for `obj` (kept alive with it); returns `value`."""
        return self._store(id(obj), obj, value)

    def get_seq(self, objs: Iterable[object], extra: Hashable = (), default: Any = None) -> Any:
        """The value for the objects `objs` in that order, and the hashable `extra` (names, ...:
        equal, not identical, values) when given."""
        key = tuple(map(id, objs))
        hit = self._table.get((key, extra) if extra else key)
        return default if hit is None else hit[1]

    def put_seq(self, objs: Iterable[object], value: Any, extra: Hashable = ()) -> Any:
        """Remember `value` for the objects `objs` in that order (kept alive with it) and `extra`."""
        objs = tuple(objs)
        key = tuple(map(id, objs))
        return self._store((key, extra) if extra else key, objs, value)

    def knows_all(self, objs: Iterable[object]) -> bool:
        """Whether each object of `objs` has an entry (`put`): one loop, for a hot path's common
        case (everything seen before)."""
        table = self._table
        for o in objs:
            if id(o) not in table:
                return False
        return True

    def memoize(
        self, compute: Callable[[Any], Any], keep: Callable[[Any], bool] | None = None
    ) -> Callable[[Any], Any]:
        """`compute` remembered here by its argument's identity: the whole lookup in one function
        (a hot path pays one call, as it did for `compute`).  `keep(value)` False: not remembered
        (e.g. large values, which would keep their argument alive for nothing)."""
        table = self._table
        store = self._store

        def memoized(obj: Any) -> Any:
            hit = table.get(id(obj))
            if hit is not None:
                return hit[1]
            value = compute(obj)
            if keep is None or keep(value):
                store(id(obj), obj, value)
            return value

        memoized.__name__ = compute.__name__
        memoized.__qualname__ = compute.__qualname__
        memoized.__doc__ = compute.__doc__
        memoized.__module__ = compute.__module__
        memoized.__wrapped__ = compute  # type: ignore[attr-defined]
        return memoized
