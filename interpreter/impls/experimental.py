"""Custom calls that stand for ops StableHLO does not have yet (upstream's `ExperimentalOps`), as
`jax.export` emits them for shape-polymorphic programs, and XLA's `ApproxTopK` as JAX emits it for
`jax.lax.approx_max_k`/`approx_min_k`:

- `@stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
  base_dilations, window_dilations, padding) {called_computations = [@body]}`: `reduce_window` with
  the window given as 1-d tensors and `padding` as an Nx2 tensor;
- `@stablehlo.dynamic_rng_bit_generator(initial_state, output_shape) {rng_algorithm = ...}`:
  `rng_bit_generator` with its output shape as a tensor;
- `@stablehlo.dynamic_top_k(operand, k)`: `chlo.top_k` with `k` as a 0-d tensor;
- `@ApproxTopK(operand, iota, init_value, init_arg, [shape operands]) {called_computations =
  [@comparator], mhlo.backend_config = {top_k, reduction_dim, recall_target, aggregate_to_topk,
  reduction_input_size_override[, is_fallback]}}` (`jax/_src/lax/ann.py:321-349`, JAX's lowering of
  `approx_max_k`/`approx_min_k` for every platform; TPU's without `is_fallback`) and
  `@stablehlo.dynamic_approx_top_k(operand, iota, init_value, init_arg, k, [shape operands])` (the
  same with `k` a symbolic size: the scalar operand `k` instead of `top_k`, `ann.py:350-358`; JAX
  >= 0.4.29): one computation.  The results are exact: a stable sort by the comparator along
  `reduction_dim`, then its first `k` (values and their indices).  That is what XLA's CPU/GPU fallback
  computes (the lowering marks it `is_fallback`), and it is a valid answer of the TPU's approximate
  algorithm too: that algorithm promises the true top k with recall >= `recall_target` (expected
  fraction of the true top k it returns), and the exact answer has recall 1.  The TPU's own answer
  may differ on elements its bucketed reduction drops and in the order of ties, so compare TPU
  programs by recall, not by position.  `reduction_input_size_override` only changes the TPU's recall
  estimate and is ignored.  With `aggregate_to_topk = false` the result keeps R >= k elements along
  `reduction_dim` (R from the result type, or from its shape operand when dynamic, XLA's
  `ApproxTopKReductionOutputSize`): the exact top R, sorted, which contains the true top k (a valid
  partial reduction) and equals XLA CPU's answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.jax_targets import called_function, split_shape_operands
from stablehlo_py.interpreter.custom_calls.registry import ANY_PLATFORM, EVALUATOR, builtin
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.reduction import reduce_window_by_region, sort_by_region
from stablehlo_py.semantics import chlo as chlo_sem
from stablehlo_py.semantics import random as rnd
from xdsl.dialects.builtin import DictionaryAttr

from stablehlo_py.errors import InterpreterError


def _called_body(ev: Any, op: Any) -> Any:
    """The body region of the one function in `called_computations`."""
    return called_function(ev, op).body


def _ints(value: Any) -> list[int]:
    return [int(x) for x in np.asarray(value).reshape(-1)]


@builtin(
    "stablehlo.dynamic_reduce_window",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        "inputs..., init_values..., window_dimensions, window_strides, base_dilations, "
        "window_dilations i32[r], padding i32[r,2] -> results..., called_computations = [@reducer], "
        "api 2 (jax >= 0.4.13)",
    ),
)
def dynamic_reduce_window(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if len(args) < 7 or (len(args) - 5) % 2:
        raise InterpreterError(
            "custom_call @stablehlo.dynamic_reduce_window takes inputs..., init_values..., "
            f"window_dimensions, window_strides, base_dilations, window_dilations, padding; got {len(args)} operands"
        )
    n = (len(args) - 5) // 2
    inputs, inits = list(args[:n]), list(args[n : 2 * n])
    dims, strides, base, dil, padding = args[2 * n :]
    return reduce_window_by_region(
        ev,
        op,
        _called_body(ev, op),
        inputs,
        inits,
        np.asarray(padding, dtype=np.int64).reshape(-1, 2),
        {},
        window_dimensions=_ints(dims),
        window_strides=_ints(strides),
        base_dilations=_ints(base),
        window_dilations=_ints(dil),
    )


@builtin(
    "stablehlo.dynamic_rng_bit_generator",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        "(initial_state, output_shape i32[r]) -> (output_state, output), rng_algorithm attribute, "
        "api 2 (jax >= 0.4.13)",
    ),
)
def dynamic_rng_bit_generator(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if len(args) != 2 or len(op.results) != 2:
        raise InterpreterError(
            "custom_call @stablehlo.dynamic_rng_bit_generator takes (initial_state, output_shape) and "
            "returns (output_state, output)"
        )
    algorithm = A.enum(op, "rng_algorithm", "DEFAULT")
    state, output = rnd.rng_bit_generator(args[0], algorithm, _ints(args[1]), A.result_dtype(op, 1))
    return [state.astype(A.result_dtype(op, 0)), output]


@builtin(
    "stablehlo.dynamic_top_k",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=("(operand, k i32/i64[]) -> (values, indices i32), api 2 (jax >= 0.4.15)",),
)
def dynamic_top_k(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if len(args) != 2 or len(op.results) != 2:
        raise InterpreterError(
            "custom_call @stablehlo.dynamic_top_k takes (operand, k) and returns (values, indices)"
        )
    k = int(np.asarray(args[1]))
    if k < 0 or np.ndim(args[0]) == 0 or k > np.shape(args[0])[-1]:
        raise InterpreterError(
            f"custom_call @stablehlo.dynamic_top_k: k = {k} is outside [0, {np.shape(args[0])[-1:] or 0}] "
            "(the operand's last dimension)"
        )
    values, indices = chlo_sem.top_k(args[0], k)
    return [values, indices.astype(A.result_dtype(op, 1))]


def _backend_config(op: Any, target: str) -> dict[str, Any]:
    cfg = op.attributes.get("mhlo.backend_config")
    if not isinstance(cfg, DictionaryAttr):
        raise InterpreterError(
            f"custom_call @{target} needs an mhlo.backend_config dictionary (reduction_dim, ...)"
        )
    return {k: A.value_of(v) for k, v in cfg.data.items()}


def _result_size(op: Any, shapes: list[Any], dim: int, target: str) -> int:
    """The size of result 0 along `dim`: its type's, or its shape operand's when dynamic."""
    size = op.results[0].type.get_shape()[dim]
    if size >= 0:
        return int(size)
    if not shapes:
        raise InterpreterError(
            f"custom_call @{target}: result 0 has a dynamic size along reduction_dim = {dim} and no "
            "shape operand (indices_of_shape_operands) gives it"
        )
    return _ints(shapes[0])[dim]


_APPROX_TOP_K = (
    "(operands..., init_values...{}) -> one result per operand, called_computations = "
    "[@comparator], mhlo.backend_config {}; the exact top k (recall 1)"
)
_APPROX_TOP_K_CONFIG = (
    "{top_k, reduction_dim, recall_target, aggregate_to_topk, reduction_input_size_override"
    "[, is_fallback]}"
)


def _top_k(ev: Any, op: Any, args: list[Any], target: str, k_operand: bool) -> list[Any]:
    """`ApproxTopK` (`k_operand` false: k is `top_k` in the config) and
    `stablehlo.dynamic_approx_top_k` (k is the operand after the init values)."""
    cfg = _backend_config(op, target)
    operands, shapes = split_shape_operands(args, A.get(op, "indices_of_shape_operands"))
    k_arg = operands.pop() if k_operand and operands else None
    n = len(operands) // 2
    if n < 1 or len(op.results) != n or 2 * n != len(operands):
        raise InterpreterError(
            f"custom_call @{target} takes operands..., init_values...{', k' if k_operand else ''} "
            "(and shape operands) and returns one result per operand; got "
            f"{len(args)} operands and {len(op.results)} results"
        )
    if k_arg is None and "top_k" not in cfg or "reduction_dim" not in cfg:
        raise InterpreterError(
            f"custom_call @{target}: mhlo.backend_config needs "
            f"{'' if k_operand else 'top_k and '}reduction_dim"
        )
    if k_arg is not None and np.ndim(k_arg) != 0:
        raise InterpreterError(
            f"custom_call @{target}: k must be a 0-d integer tensor, got shape {list(np.shape(k_arg))}"
        )
    k = int(np.asarray(k_arg if k_arg is not None else cfg["top_k"]))
    dim = int(cfg["reduction_dim"])
    inputs = [np.asarray(a) for a in operands[:n]]
    if not 0 <= dim < inputs[0].ndim or not 0 <= k <= inputs[0].shape[dim]:
        raise InterpreterError(
            f"custom_call @{target}: k = {k} along reduction_dim = {dim} does not fit operand shape "
            f"{list(inputs[0].shape)}"
        )
    size = k if cfg.get("aggregate_to_topk", True) else _result_size(op, shapes, dim, target)
    if not k <= size <= inputs[0].shape[dim]:
        raise InterpreterError(
            f"custom_call @{target} with aggregate_to_topk = false: the results keep {size} elements "
            f"along reduction_dim = {dim}, outside [k = {k}, {inputs[0].shape[dim]}]"
        )
    ordered = sort_by_region(ev, _called_body(ev, op), inputs, dim, True, {})
    out = []
    for i, x in enumerate(ordered):
        top = np.take(np.asarray(x), np.arange(size), axis=dim)
        want = A.result_dtype(op, i)
        out.append(top if top.dtype == want else top.astype(want))
    return out


@builtin(
    "ApproxTopK",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        _APPROX_TOP_K.format("", _APPROX_TOP_K_CONFIG)
        + " (TPU artifacts since 2023-04; is_fallback on other platforms, jax >= 0.4.10)",
    ),
)
def approx_top_k(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    return _top_k(ev, op, args, "ApproxTopK", False)


@builtin(
    "stablehlo.dynamic_approx_top_k",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        _APPROX_TOP_K.format(
            ", k i32[], result shapes (indices_of_shape_operands)", "as ApproxTopK's without top_k"
        )
        + " (jax >= 0.4.29)",
    ),
)
def dynamic_approx_top_k(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    return _top_k(ev, op, args, "stablehlo.dynamic_approx_top_k", True)


__all__ = [
    "approx_top_k",
    "dynamic_approx_top_k",
    "dynamic_reduce_window",
    "dynamic_rng_bit_generator",
    "dynamic_top_k",
]
