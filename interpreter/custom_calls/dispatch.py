"""Running a `stablehlo.custom_call`: find its target (the evaluator's own overrides first, then the
registry), build the `CallContext` record for plugin-API targets and check what they return against
the op's result types."""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.attributes import layouts, python_value
from stablehlo_py.interpreter.custom_calls.context import API_VERSION, FIELDS, CallContext
from stablehlo_py.interpreter.custom_calls.registry import (
    CONTEXT,
    REGISTRY,
    Target,
    convention_of,
)
from xdsl.dialects.builtin import TensorType, TupleType

from stablehlo_py.errors import InterpreterError, StableHLOError

# properties with a field of their own in the record (the rest go to `attributes`)
_OWN_FIELDS = (
    "call_target_name",
    "backend_config",
    "operand_layouts",
    "result_layouts",
    "api_version",
    "has_side_effect",
)


def make_context(ev: Any, op: Any, operands: list[Any]) -> CallContext:
    props = op.properties
    config = props.get("backend_config")
    attributes = {
        k: python_value(v) for k, v in {**op.attributes, **props}.items() if k not in _OWN_FIELDS
    }
    api = props.get("api_version")
    side = props.get("has_side_effect")
    process = getattr(ev, "process", None)
    replica = int(getattr(process, "replica_id", 0))
    partition = int(getattr(process, "partition_id", 0))
    partitions = int(getattr(process, "num_partitions", 1))
    replicas = int(getattr(process, "num_replicas", 1))
    return CallContext(
        struct_size=len(FIELDS),
        api_version=API_VERSION,
        target_name=props["call_target_name"].data,
        operands=tuple(v if isinstance(v, np.ndarray) else np.asarray(v) for v in operands),
        operand_types=tuple(v.type for v in op.operands),
        result_types=tuple(r.type for r in op.results),
        backend_config="" if config is None else python_value(config),
        attributes=attributes,
        operand_layouts=layouts(props.get("operand_layouts")),
        result_layouts=layouts(props.get("result_layouts")),
        api_version_attr=int(python_value(api)) if api is not None else 1,
        has_side_effect=bool(python_value(side)) if side is not None else False,
        process_id=replica * partitions + partition,
        num_processes=replicas * partitions,
        replica_id=replica,
        partition_id=partition,
    )


def _fits(value: Any, t: Any) -> bool:
    """Whether array `value` has the shape of tensor type `t` (`?` matches any size)."""
    shape = tuple(t.get_shape())
    return len(shape) == value.ndim and all(d < 0 or d == s for d, s in zip(shape, value.shape))


def _without_ones(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(d for d in shape if d != 1)


def _check_results(target: Target, op: Any, operands: tuple[Any, ...], results: Any) -> list[Any]:
    where = f"custom_call @{target.name} (from {target.source})"
    if not isinstance(results, list | tuple):
        raise InterpreterError(
            f"{where} returned {type(results).__name__}; a target returns a list of result arrays"
        )
    types = [r.type for r in op.results]
    packed = len(types) == 1 and isinstance(types[0], TupleType) and len(results) != 1
    if packed:
        # one tuple-typed result (2023's TPU artifacts: `-> tuple<...>` with an `xla_shape`): the
        # target's results are its elements
        types = list(types[0].types.data)
    if len(results) != len(types):
        raise InterpreterError(
            f"{where} returned {len(results)} values, the op has "
            + (f"a tuple result of {len(types)} elements" if packed else f"{len(types)} results")
        )
    # inside a reduction body the evaluator may pass stacked operands (several reductions at once);
    # results then follow the operands' stacking, so only element types are checked
    stacked = any(
        isinstance(v.type, TensorType) and isinstance(x, np.ndarray) and not _fits(x, v.type)
        for v, x in zip(op.operands, operands)
    )
    out = [_checked(where, i, value, t, stacked) for i, (value, t) in enumerate(zip(results, types))]
    return [tuple(out)] if packed else out


def _checked(where: str, i: int, value: Any, t: Any, stacked: bool) -> Any:
    """Result #i of a target against its type `t`: the element type, and the shape unless stacked."""
    if not isinstance(t, TensorType):
        return value
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    arr = np.asarray(value)
    want = dtype_of_type(t)
    if arr.dtype != want:
        raise InterpreterError(
            f"{where}: result #{i} has element type {arr.dtype}, the op's result type {t} says {want}"
        )
    if not stacked and not _fits(arr, t):
        shape = tuple(t.get_shape())
        if all(d >= 0 for d in shape) and _without_ones(arr.shape) == _without_ones(shape):
            return arr.reshape(shape)  # e.g. an `info` of shape [1] for a tensor<i32>
        raise InterpreterError(
            f"{where}: result #{i} has shape {list(arr.shape)}, the op's result type is {t}"
        )
    return arr


def resolve(ev: Any, name: str) -> Target:
    overrides = getattr(ev, "custom_calls", None) or {}
    fn = overrides.get(name)
    if fn is not None:
        if isinstance(fn, Target):
            return fn
        convention = convention_of(fn, name)
        return Target(
            name,
            fn,
            "Evaluator(custom_calls=...)",
            API_VERSION if convention == CONTEXT else None,
            convention,
        )
    target = REGISTRY.get(name)
    if target is None:
        raise InterpreterError(REGISTRY.missing_message(name))
    return target


def call_custom(ev: Any, op: Any, operands: list[Any]) -> list[Any]:
    """Run `op` (a stablehlo.custom_call) on `operands`."""
    name = op.properties["call_target_name"].data
    target = resolve(ev, name)
    if target.convention != CONTEXT:
        return target.fn(ev, op, operands)
    ctx = make_context(ev, op, operands)
    try:
        results = target.fn(ctx)
    except StableHLOError:
        raise
    except Exception as exc:  # a plugin's own bug: say whose, not a traceback
        if target.source.startswith("built-in"):
            raise
        raise InterpreterError(
            f"custom_call @{name} (from {target.source}) failed: {type(exc).__name__}: {exc}"
        ) from exc
    return _check_results(target, op, ctx.operands, results)
