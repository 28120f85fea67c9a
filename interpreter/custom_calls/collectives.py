"""JAX's collectives written as custom calls, run with the interpreter's collectives
(`interpreter/impls/collectives.py`: the same process groups, rendezvous and arithmetic as the
StableHLO ops), so they run in a partitioned run (`spmd.run_spmd`) or `run_parallel`:

- `@ragged_all_to_all(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes)`
  (`jax.lax.ragged_all_to_all`): api_version 4, `backend_config = {replica_groups[, channel_id]}`
  (a dictionary); XLA's RaggedAllToAll, see `impls.collectives.ragged_all_to_all`;
- JAX's asynchronous collectives (`jax.lax.psum_scatter_start` and `all_gather_start`,
  `psum_start`, `all_to_all_start`, `ppermute_start` of `jax._src.lax.parallel`, each with its
  `.done()`): `@"all-gather-start"`, `@"all-reduce-start"`, `@"reduce-scatter-start"`,
  `@"all-to-all-start"`, `@"collective-permute-start"` take the operand and carry the collective's
  parameters as JSON in `mhlo.frontend_attributes.async_collective_config` (the reducer of the
  reductions in `called_computations`); their result (the "future") has the type of the
  collective's result.  `@"...-done"(future)` gives that value.  So a start computes the
  collective, and a done passes its operand through.

Evidence (jax 0.12.0.1, `jax/_src/lax/parallel.py`): ragged_all_to_all's lowering lines
1774-1803 (first in jax 0.4.38, 2024-12); the async lowering `_emit_async_start_custom_call` and
`_async_done_lowering` lines 3205-3250, the targets lines 1139, 1233, 1636, 2087, 2322, 3303-3308
(jax commit c584808950, 2026-07-31, after jax 0.11.0).  jax 0.10.0-0.11.0 wrote the same async
collectives as `stablehlo.async_start`/`async_done` ops (`interpreter/impls/misc.py`).  None of
these targets is on jax.export's list of stable custom calls: an artifact holds them only when
exported with `disabled_checks=[jax.export.DisabledSafetyCheck.custom_call(<target>)]`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.jax_targets import called_function
from stablehlo_py.interpreter.custom_calls.registry import ANY_PLATFORM
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls import collectives as C
from xdsl.dialects.builtin import DictionaryAttr, StringAttr

from stablehlo_py.errors import InterpreterError


def _target(op: Any) -> str:
    return op.properties["call_target_name"].data


def ragged_all_to_all(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    config = op.properties.get("backend_config") or op.attributes.get("mhlo.backend_config")
    if not isinstance(config, DictionaryAttr) or "replica_groups" not in config.data:
        raise InterpreterError(
            "custom_call @ragged_all_to_all needs backend_config = {replica_groups = dense<...>"
            "[, channel_id = ...]} (a dictionary, api_version = 4, as jax.lax.ragged_all_to_all "
            f"writes it), got {config}"
        )
    values = {k: A.value_of(v) for k, v in config.data.items()}
    return _checked(op, C.ragged_all_to_all(ev, op, _spec(op, values, what="backend_config"), args))


def _checked(op: Any, results: list[Any]) -> list[Any]:
    """The collective's one value, checked against the op's one result type."""
    if len(results) != 1 or len(op.results) != 1:
        raise InterpreterError(
            f"custom_call @{_target(op)} has one result, got {len(op.results)} result types"
        )
    want = tuple(op.results[0].type.get_shape())
    got = np.shape(results[0])
    if len(want) != len(got) or any(w >= 0 and w != g for w, g in zip(want, got)):
        raise InterpreterError(
            f"custom_call @{_target(op)}: the collective gives a value of shape {list(got)}, the "
            f"result type is {op.results[0].type}"
        )
    return results


# ------------------------------------------------------------------------ async collectives


def _config(op: Any) -> dict[str, Any]:
    """The start's `async_collective_config` (JSON in `mhlo.frontend_attributes`)."""
    attrs = op.attributes.get("mhlo.frontend_attributes")
    text = attrs.data.get("async_collective_config") if isinstance(attrs, DictionaryAttr) else None
    if not isinstance(text, StringAttr):
        raise InterpreterError(
            f"custom_call @{_target(op)} needs mhlo.frontend_attributes = "
            "{async_collective_config = \"<JSON>\"} (the collective's parameters, as JAX writes "
            "them)"
        )
    try:
        config = json.loads(text.data)
    except ValueError as e:
        raise InterpreterError(
            f"custom_call @{_target(op)}: async_collective_config is not JSON ({e}): {text.data!r}"
        ) from None
    if not isinstance(config, dict):
        raise InterpreterError(
            f"custom_call @{_target(op)}: async_collective_config must be a JSON object, got "
            f"{text.data!r}"
        )
    return config


_CONFIG = "async_collective_config"


def _int(op: Any, config: dict[str, Any], key: str, what: str = _CONFIG) -> int:
    """`config[key]`, an integer, else a clear error (`what` names the configuration)."""
    value = config.get(key)
    if not isinstance(value, int | np.integer) or isinstance(value, bool):
        raise InterpreterError(
            f"custom_call @{_target(op)}: {what} needs an integer {key!r}, got {value!r}"
        )
    return int(value)


def _spec(
    op: Any, config: dict[str, Any], groups: str = "replica_groups", what: str = _CONFIG
) -> C.Spec:
    """Who takes part: the groups (`groups` names them), `channel_id` (absent: none) and
    `use_global_device_ids` of a collective's configuration `config` (`what` names it)."""
    try:
        rows = C.groups_of(config.get(groups))
    except (TypeError, ValueError):
        raise InterpreterError(
            f"custom_call @{_target(op)}: {what}'s {groups!r} must be a list of lists of "
            f"integers, got {config.get(groups)!r}"
        ) from None
    channel = _int(op, config, "channel_id", what) if "channel_id" in config else 0
    return C.Spec(rows, channel, bool(config.get("use_global_device_ids", False)))


def _reducer(ev: Any, op: Any) -> tuple[Any, Any]:
    """The reduction of an all-reduce / reduce-scatter start: the function in its
    `called_computations`, as a vectorized body, and its arguments' element type."""
    body = called_function(ev, op).body
    return ev.region_body(body, None), A.region_arg_dtypes(body)[-1]


def _reduce_scatter(ev: Any, op: Any, config: dict[str, Any], args: list[Any]) -> list[Any]:
    if config.get("tiled", True) is not True:
        raise InterpreterError(
            f"custom_call @{_target(op)}: only the tiled form exists (JAX lowers "
            f"psum_scatter_start with tiled=True only), got tiled = {config.get('tiled')!r}"
        )
    dim = _int(op, config, "scatter_dimension")
    return C.reduce_scatter(ev, op, _spec(op, config), *_reducer(ev, op), dim, args)


def _all_to_all(ev: Any, op: Any, config: dict[str, Any], args: list[Any]) -> list[Any]:
    dims = [_int(op, config, k) for k in ("split_dimension", "concat_dimension", "split_count")]
    return C.all_to_all(ev, op, _spec(op, config), *dims, args)


StartFn = Callable[[Any, Any, dict[str, Any], list[Any]], list[Any]]
STARTS: dict[str, StartFn] = {
    "all-gather-start": lambda ev, op, config, args: C.all_gather(
        ev, op, _spec(op, config), _int(op, config, "all_gather_dimension"), args
    ),
    "all-reduce-start": lambda ev, op, config, args: C.all_reduce(
        ev, op, _spec(op, config), *_reducer(ev, op), args
    ),
    "reduce-scatter-start": _reduce_scatter,
    "all-to-all-start": _all_to_all,
    "collective-permute-start": lambda ev, op, config, args: C.collective_permute(
        ev, _spec(op, config, "permutation"), args
    ),
}
"""Start target -> the collective it starts (`fn(evaluator, op, config, operands)`)."""

_REDUCING = ("all-reduce-start", "reduce-scatter-start")
"""The starts whose reduction is a function of the program (`called_computations`)."""
DONES = {name.removesuffix("-start") + "-done": name for name in STARTS}
"""Done target -> its start."""


def async_start(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if len(args) != 1 or len(op.results) != 1:
        raise InterpreterError(
            f"custom_call @{_target(op)} takes one operand and has one result (the future), got "
            f"{len(args)} operands and {len(op.results)} results"
        )
    return _checked(op, STARTS[_target(op)](ev, op, _config(op), args))


def async_done(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    """The started collective's value (the future, which already holds it)."""
    name = _target(op)
    if len(args) != 1 or len(op.results) != 1:
        raise InterpreterError(
            f"custom_call @{name} takes one operand (the future of @{DONES[name]}) and has one "
            f"result, got {len(args)} operands and {len(op.results)} results"
        )
    return list(args)


_ASYNC_FORM = (
    "x -> future (the result's type), config JSON in mhlo.frontend_attributes."
    "async_collective_config{}; jax > 0.11 (2026-07), exported with "
    "DisabledSafetyCheck.custom_call"
)
COLLECTIVE_TARGETS: dict[str, Callable[[Any, Any, list[Any]], list[Any]]] = {
    "ragged_all_to_all": ragged_all_to_all,
    **dict.fromkeys(STARTS, async_start),
    **dict.fromkeys(DONES, async_done),
}
FORMS: dict[str, tuple[str, ...]] = {
    "ragged_all_to_all": (
        "(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes) -> output, "
        "api_version 4, backend_config {replica_groups[, channel_id]} (jax >= 0.4.38; exported "
        "with DisabledSafetyCheck.custom_call)",
    ),
    **{
        name: (_ASYNC_FORM.format(", reducer in called_computations" if name in _REDUCING else ""),)
        for name in STARTS
    },
    **{
        name: (f"future of @{start} -> its value (jax > 0.11, 2026-07)",)
        for name, start in DONES.items()
    },
}
COLLECTIVE_FAMILIES = tuple(
    ({name: fn}, ANY_PLATFORM, FORMS[name]) for name, fn in COLLECTIVE_TARGETS.items()
)
"""(targets, platforms, forms) for `builtins.load` (evaluator convention: they meet other
processes and call functions of the program)."""

__all__ = ["COLLECTIVE_FAMILIES", "COLLECTIVE_TARGETS", "DONES", "STARTS"]
