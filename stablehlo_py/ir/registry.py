"""The one table of what the text layer knows: op name -> class, attribute and type parsers.

A dialect may be registered lazily (:meth:`Registry.add_lazy`): its module is imported and added the
first time a name of that dialect is looked up (`vhlo.add_v1`, `!vhlo.tensor_v1`, `#vhlo<...>`), or
when a table is listed whole.  So a program without VHLO never imports VHLO's 145 op classes,
types and attributes (about 0.05-0.08 s of every tool start and MPI rank).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, Operation
from xdsl.ir.core import OpTraits
from xdsl.traits import NoTerminator

from stablehlo_py.ir.context import CONTEXT

if TYPE_CHECKING:
    from stablehlo_py.ir.text.parser import Parser


_MISSING: Any = object()
# one load at a time: a second thread that misses a name of a dialect being loaded waits for it
_LOAD_LOCK = threading.RLock()


class _Table(dict):  # type: ignore[type-arg]
    """A table of the registry: a name of a lazily registered dialect that is not there yet loads
    that dialect, then is looked up again; listing the table (iteration, len) loads every lazy
    dialect first.  Otherwise a plain dict."""

    __slots__ = ("_registry",)

    def __init__(self, registry: Registry, items: dict[str, Any]) -> None:
        super().__init__(items)
        self._registry = registry

    def __missing__(self, key: str) -> Any:
        if self._registry._load_for(key):
            value = dict.get(self, key, _MISSING)
            if value is not _MISSING:
                return value
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        value = dict.get(self, key, _MISSING)
        if value is _MISSING and self._registry._load_for(key):
            value = dict.get(self, key, _MISSING)
        return default if value is _MISSING else value

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return isinstance(key, str) and self._registry._load_for(key) and dict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        self._registry.load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._registry.load_all()
        return dict.__len__(self)

    def keys(self):  # type: ignore[override]
        self._registry.load_all()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._registry.load_all()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._registry.load_all()
        return dict.items(self)


@dataclass
class Registry:
    ops: dict[str, type[Operation]] = field(default_factory=dict)
    # `#name<...>` / `#name` -> parser called after the name (e.g. "stablehlo.conv", "stablehlo.bounds").
    # Enum attributes `#stablehlo<comparison_direction GT>` are registered as "stablehlo.comparison_direction"
    # and called after the mnemonic.  (The parser looks `#name` up in attr_parsers before it asks
    # enum_dialects, so a lazy dialect's enums are known by then.)
    attr_parsers: dict[str, Callable[[Parser], Attribute]] = field(default_factory=dict)
    type_parsers: dict[str, Callable[[Parser], Attribute]] = field(default_factory=dict)
    enum_dialects: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.ops = _Table(self, self.ops)
        self.attr_parsers = _Table(self, self.attr_parsers)
        self.type_parsers = _Table(self, self.type_parsers)
        self._lazy: dict[str, Callable[[Registry], None]] = {}  # dialect -> its loader, until loaded
        self._lazy_names: frozenset[str] = frozenset()  # every dialect ever added lazily
        self._loaded: set[str] = set()

    def add_lazy(self, dialect: str, load: Callable[[Registry], None]) -> None:
        """Register `dialect` lazily: `load(registry)` adds its ops and parsers the first time one of
        its names is looked up (or a table is listed)."""
        if dialect in self._lazy_names:
            raise ValueError(f"dialect {dialect} registered lazily twice")
        self._lazy[dialect] = load
        self._lazy_names = self._lazy_names | {dialect}

    def _load_for(self, name: str) -> bool:
        """Load the lazy dialect of `name` (`dialect.rest` or `dialect`) if it is one; True when the
        name should be looked up again (its dialect is loaded now, here or by another thread)."""
        dialect = name.partition(".")[0]
        if dialect not in self._lazy_names:
            return False
        with _LOAD_LOCK:
            if dialect in self._loaded:
                return True
            load = self._lazy.pop(dialect, None)
            if load is None:  # this thread is loading it: the loader's own lookups see it absent
                return False
            try:
                load(self)
            finally:
                self._loaded.add(dialect)
            return True

    def load_all(self) -> None:
        """Load every lazy dialect not loaded yet (for whoever lists a table whole)."""
        if self._lazy:
            for dialect in list(self._lazy):
                self._load_for(dialect)

    def dialects(self) -> frozenset[str]:
        """The dialects whose ops are registered (`stablehlo`, `chlo`, `func`, ...)."""
        known = self.__dict__.get("_dialects")
        if known is None or known[0] != len(self.ops):
            known = (len(self.ops), frozenset(n.partition(".")[0] for n in self.ops))
            self.__dict__["_dialects"] = known
        return known[1]

    def add_ops(self, *classes: type[Operation]) -> None:
        for c in classes:
            if c.name in self.ops:
                raise ValueError(f"op {c.name} registered twice")
            self.ops[c.name] = c


@dataclass(frozen=True)
class ForeignSyntax:
    """Pretty syntax for an op class we do not own (xDSL's `func.func`, `builtin.module`, ...)."""

    parse: Callable[[Parser], Operation]
    print: Callable[[Operation, object], None]
    isolated: bool = False


FOREIGN_SYNTAX: dict[type, ForeignSyntax] = {}


class UnregisteredOp(Operation):
    """An op of a dialect the toolkit does not know, read with `allow_unregistered` (as MLIR's
    `--allow-unregistered-dialect`): its name, operands, results, properties, attributes and regions
    are kept as written; it prints back in generic form, verification skips it, and the interpreter
    and serializers refuse it.  One subclass per op name (`unregistered_op_class`), so `op.name` is
    the name it was written with."""

    name = "builtin.unregistered"
    # MLIR does not require the blocks of an unregistered op to end with a terminator
    traits = OpTraits(lambda: (NoTerminator(),))
    UNREGISTERED = True

    def verify(self, verify_nested_ops: bool = True) -> None:
        # MLIR knows nothing of an unregistered op's constraints (it may even terminate a block):
        # only what it contains is verified.
        if verify_nested_ops:
            for region in self.regions:
                region.verify()

    def verify_(self) -> None:
        return None


_UNREGISTERED = CONTEXT.table("ir.unregistered_op_classes", 4096)  # op name -> its class


def unregistered_op_class(op_name: str) -> type[UnregisteredOp]:
    """The (cached) class of the unregistered op `op_name` (`"dialect.op"`)."""
    cls = _UNREGISTERED.get(op_name)
    if cls is None:
        cls = type("UnregisteredOp", (UnregisteredOp,), {"name": op_name, "__module__": __name__})
        _UNREGISTERED.put(op_name, cls)
    return cls


def is_unregistered(op: Operation) -> bool:
    return isinstance(op, UnregisteredOp)
