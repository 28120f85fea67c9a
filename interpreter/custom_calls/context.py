"""The record a custom-call target receives: `CallContext`, and the plugin API version it belongs to.

A target is `fn(ctx: CallContext) -> list[np.ndarray]` (results in result order, dtypes as the
result types say).

The struct_size rule (as in C plugin interfaces that pass `struct_size` in every struct):
- fields are only ever appended; a field never moves and is never removed;
- a deprecated field keeps its place and keeps being filled (`DEPRECATED_FIELDS` says which);
- `ctx.struct_size` is the number of fields the toolkit filled, so a plugin checks for a field with
  `ctx.has_field("name")` (or `FIELDS.index("name") < ctx.struct_size`) before reading it;
- a plugin built against an older minor version gets the same record and simply ignores the
  trailing fields it does not know; a plugin built against a newer minor than `API_VERSION` may need
  fields this toolkit cannot fill, so it is refused when it is loaded (see `registry.py`).

`FIELD_SINCE` records the API version that introduced each field."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

# (major, minor) of the custom-call plugin API this toolkit implements.
API_VERSION: tuple[int, int] = (1, 1)


@dataclass(frozen=True)
class CallContext:
    struct_size: int  # number of fields the toolkit filled (the struct_size rule)
    api_version: tuple[int, int]  # (major, minor) of the toolkit's plugin API
    target_name: str
    operands: tuple[np.ndarray, ...]  # operand values (numpy arrays, ml_dtypes for low floats)
    operand_types: tuple[Any, ...]  # xDSL type attributes
    result_types: tuple[Any, ...]
    backend_config: object  # dict (typed-FFI dictionary attribute -> python values) or str
    attributes: dict[str, object] = field(default_factory=dict)  # other attributes, python values
    operand_layouts: tuple[tuple[int, ...], ...] | None = None  # minor-to-major, None when absent
    result_layouts: tuple[tuple[int, ...], ...] | None = None
    api_version_attr: int = 1  # the op's custom_call api_version (1..4)
    has_side_effect: bool = False
    # -- API 1.1 --
    process_id: int = 0
    num_processes: int = 1
    replica_id: int = 0
    partition_id: int = 0

    def has_field(self, name: str) -> bool:
        """Whether this record carries field `name` (the struct_size rule's per-field presence)."""
        return name in FIELD_INDEX and FIELD_INDEX[name] < self.struct_size


# Field order is part of the contract: append only.
FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CallContext))
FIELD_INDEX: dict[str, int] = {name: i for i, name in enumerate(FIELDS)}

# The API version that introduced each field.
FIELD_SINCE: dict[str, tuple[int, int]] = {
    **{name: (1, 0) for name in FIELDS[: FIELD_INDEX["process_id"]]},
    **{name: (1, 1) for name in FIELDS[FIELD_INDEX["process_id"] :]},
}

# Deprecated fields keep their place and are still filled; the value says what to use instead.
DEPRECATED_FIELDS: dict[str, str] = {}


def fields_of_version(version: tuple[int, int]) -> tuple[str, ...]:
    """The fields a plugin built against API `version` (same major) knows about."""
    return tuple(name for name in FIELDS if FIELD_SINCE[name] <= version)


__all__ = [
    "API_VERSION",
    "DEPRECATED_FIELDS",
    "FIELDS",
    "FIELD_INDEX",
    "FIELD_SINCE",
    "CallContext",
    "fields_of_version",
]
