"""Wire codes of portable artifacts: append-only enums.

* **Op codes** are this module's own enum, written as ``code = N`` in each fork's row of
  ``specs/ops.toml`` (:data:`OP_CODES` lists the forks by code).  Upstream's MLIR bytecode names ops
  by string, so there is no upstream code to reuse.  The codes were given once (stablehlo-py 0.1.0,
  StableHLO 1.20.0) and are **append-only**: a new fork takes the next code; a fork's row is never
  deleted (an op that leaves the opset gets a ``max``), so every artifact ever written keeps
  decoding.  The first 120 codes went to the forks that were current then (msgpack writes codes
  below 128 in one byte), the 25 older forks followed.
* **Type and attribute codes** are upstream's ``TypeCode`` / ``AttributeCode`` enums from
  VhloBytecode.cpp, recorded per row of ``specs/types.toml`` as ``bytecode_code`` (also append-only
  upstream).  Types and attributes are two namespaces, told apart by each entry's kind.

``tests/unit/serialization/test_codes.py`` checks that every op, type and attribute of the spec tables
has exactly one code, and the schema lint (``serialization/schema_lint.py``) checks that no code moved
relative to the committed fingerprint.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from stablehlo_py import specs

__all__ = [
    "OP_CODES",
    "attr_code",
    "attr_name_for_code",
    "op_code",
    "op_name_for_code",
    "type_code",
    "type_name_for_code",
]

OP_CODES: tuple[str, ...] = tuple(o.name for o in sorted(specs.ops(), key=lambda o: o.code))
"""VHLO op forks by wire code (code = index), from the ``code`` of each ``specs/ops.toml`` row."""


@cache
def _op_index() -> dict[str, int]:
    return {name: code for code, name in enumerate(OP_CODES)}


def op_code(name: str) -> int:
    """The wire code of a VHLO op fork (``add_v1`` or ``vhlo.add_v1``); KeyError if it has none."""
    return _op_index()[name.removeprefix("vhlo.")]


def op_name_for_code(code: int) -> str | None:
    """The fork with wire code ``code``, or None for a code this toolkit does not know."""
    return OP_CODES[code] if 0 <= code < len(OP_CODES) else None


def _both_ways(rows: Iterable[Any], what: str) -> tuple[dict[str, int], dict[int, str]]:
    """name -> bytecode_code and back, for the rows of specs/types.toml (``what``: their kind)."""
    by_name = {r.name: r.bytecode_code for r in rows}
    by_code = {c: n for n, c in by_name.items()}
    if len(by_code) != len(by_name):
        raise ValueError(f"specs/types.toml gives two {what} the same bytecode_code")
    return by_name, by_code


@cache
def _type_codes() -> tuple[dict[str, int], dict[int, str]]:
    return _both_ways(specs.types(), "types")


@cache
def _attr_codes() -> tuple[dict[str, int], dict[int, str]]:
    return _both_ways(specs.attrs(), "attributes")


def type_code(name: str) -> int:
    """Upstream's TypeCode of a VHLO type (``tensor_v1``)."""
    return _type_codes()[0][name]


def type_name_for_code(code: int) -> str | None:
    return _type_codes()[1].get(code)


def attr_code(name: str) -> int:
    """Upstream's AttributeCode of a VHLO attribute or enum (``integer_v1``)."""
    return _attr_codes()[0][name]


def attr_name_for_code(code: int) -> str | None:
    return _attr_codes()[1].get(code)
