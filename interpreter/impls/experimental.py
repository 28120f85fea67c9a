"""Custom calls that stand for ops StableHLO does not have yet (upstream's `ExperimentalOps`), as
`jax.export` emits them for shape-polymorphic programs, and XLA's `ApproxTopK` as JAX emits it for
`jax.lax.approx_max_k`/`approx_min_k`:

- `@stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
  base_dilations, window_dilations, padding) {called_computations = [@body]}`: `reduce_window` with
  the window given as 1-d tensors and `padding` as an Nx2 tensor;
- `@stablehlo.dynamic_rng_bit_generator(initial_state, output_shape) {rng_algorithm = ...}`:
  `rng_bit_generator` with its output shape as a tensor;
- `@stablehlo.dynamic_top_k(operand, k)`: `chlo.top_k` with `k` as a 0-d tensor;
- `@ApproxTopK(operands..., init_values..., [shape operands]) {called_computations = [@comparator],
  mhlo.backend_config = {top_k, reduction_dim, ...}}`: computed exactly (a sort by the comparator,
  then the first `top_k` along `reduction_dim`), which is XLA's CPU fallback and meets any
  `recall_target`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.registry import EVALUATOR, builtin
from stablehlo_py.interpreter.impls import _attrs as A
from stablehlo_py.interpreter.impls.reduction import reduce_window_by_region, sort_by_region
from stablehlo_py.semantics import chlo as chlo_sem
from stablehlo_py.semantics import random as rnd
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, SymbolRefAttr

from stablehlo_py.errors import InterpreterError


def _called_body(ev: Any, op: Any) -> Any:
    """The body region of the one function in `called_computations`."""
    target = op.properties["call_target_name"].data
    calls = A.attr(op, "called_computations")
    refs = list(calls.data) if isinstance(calls, ArrayAttr) else []
    if len(refs) != 1 or not isinstance(refs[0], SymbolRefAttr):
        raise InterpreterError(
            f"custom_call @{target} needs called_computations = [@body] naming one function"
        )
    name = refs[0].root_reference.data
    func = ev.funcs.get(name)
    if func is None or not func.body.blocks:
        raise InterpreterError(
            f"custom_call @{target} calls @{name}, which is not a function with a body"
        )
    return func.body


def _ints(value: Any) -> list[int]:
    return [int(x) for x in np.asarray(value).reshape(-1)]


@builtin("stablehlo.dynamic_reduce_window", EVALUATOR)
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


@builtin("stablehlo.dynamic_rng_bit_generator", EVALUATOR)
def dynamic_rng_bit_generator(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    if len(args) != 2 or len(op.results) != 2:
        raise InterpreterError(
            "custom_call @stablehlo.dynamic_rng_bit_generator takes (initial_state, output_shape) and "
            "returns (output_state, output)"
        )
    algorithm = A.enum(op, "rng_algorithm", "DEFAULT")
    state, output = rnd.rng_bit_generator(args[0], algorithm, _ints(args[1]), A.result_dtype(op, 1))
    return [state.astype(A.result_dtype(op, 0)), output]


@builtin("stablehlo.dynamic_top_k", EVALUATOR)
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


def _backend_config(op: Any) -> dict[str, Any]:
    cfg = op.attributes.get("mhlo.backend_config")
    if not isinstance(cfg, DictionaryAttr):
        raise InterpreterError(
            "custom_call @ApproxTopK needs an mhlo.backend_config dictionary (top_k, reduction_dim)"
        )
    return {k: A.value_of(v) for k, v in cfg.data.items()}


@builtin("ApproxTopK", EVALUATOR)
def approx_top_k(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    cfg = _backend_config(op)
    shape_idx = A.attr(op, "indices_of_shape_operands")
    n_shape = 0 if shape_idx is None else len(_ints(A.value_of(shape_idx)))
    n = (len(args) - n_shape) // 2
    if n < 1 or len(op.results) != n or 2 * n + n_shape != len(args):
        raise InterpreterError(
            "custom_call @ApproxTopK takes operands..., init_values... (and shape operands) and returns "
            f"one result per operand; got {len(args)} operands and {len(op.results)} results"
        )
    if "top_k" not in cfg or "reduction_dim" not in cfg:
        raise InterpreterError(
            "custom_call @ApproxTopK: mhlo.backend_config needs top_k and reduction_dim"
        )
    k, dim = int(cfg["top_k"]), int(cfg["reduction_dim"])
    if not cfg.get("aggregate_to_topk", True):
        raise InterpreterError(
            "custom_call @ApproxTopK with aggregate_to_topk = false is not supported by the interpreter"
        )
    inputs = [np.asarray(a) for a in args[:n]]
    if not 0 <= dim < inputs[0].ndim or k > inputs[0].shape[dim]:
        raise InterpreterError(
            f"custom_call @ApproxTopK: top_k = {k} along reduction_dim = {dim} does not fit operand shape "
            f"{list(inputs[0].shape)}"
        )
    ordered = sort_by_region(ev, _called_body(ev, op), inputs, dim, True, {})
    out = []
    for i, x in enumerate(ordered):
        top = np.take(np.asarray(x), np.arange(k), axis=dim)
        want = A.result_dtype(op, i)
        out.append(top if top.dtype == want else top.astype(want))
    return out


__all__ = ["approx_top_k", "dynamic_reduce_window", "dynamic_rng_bit_generator", "dynamic_top_k"]
