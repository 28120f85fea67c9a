"""`stablehlo-ext-refine-shapes`: XLA's extension of `stablehlo-refine-shapes`
(xla/mlir_hlo/stablehlo_ext/transforms/stablehlo_refine_shapes.cpp), the pass XLA runs on
`jax.export`'s shape-polymorphic programs.

It is `stablehlo-refine-shapes` (`passes/stablehlo_refine_shapes.py`, upstream's
`refineEntryFunction`) with upstream's "additional patterns" hook filled with the refinements of the
custom calls that stand for ops StableHLO does not have yet (upstream's ExperimentalOps, as JAX emits
them for `cumsum`/pooling, `random_bits` and `top_k` with symbolic sizes):

- `@stablehlo.dynamic_reduce_window(inputs..., init_values..., window_dimensions, window_strides,
  base_dilations, window_dilations, padding) {called_computations = [@body]}`: when the five window
  operands are constants, the results are `reduce_window`'s inferred types (the one rule,
  `stablehlo_py.ir.infer`, with the body function's region as the reducer);
- `@stablehlo.dynamic_rng_bit_generator(initial_state, output_shape)`: `output` takes the constant
  `output_shape`;
- `@stablehlo.dynamic_top_k(operand, k)`: both results take the operand's shape with the last dimension
  the constant `k`.

As XLA's, only fully constant shape operands refine (partially static ones are left alone).  The
shardy (`sdy`) refinements of XLA's pass are not modelled (stablehlo-py has no `sdy` dialect).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stablehlo_py.passes.patterns.refine_types import refine_return_components
from stablehlo_py.passes.patterns.shape_folder import constant_attr, constant_ints, op_attr
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from stablehlo_py.ir.infer import InferError, infer_result_types
from stablehlo_py.ir.infer.components import Components, components_of_type
from stablehlo_py.ir.text.dense import make_dense

__all__ = ["EXPERIMENTAL_REFINERS", "ExperimentalRefinePattern", "ext_refine_shapes", "run"]

PASS_NAME = "stablehlo-ext-refine-shapes"
SUMMARY = (
    "XLA's stablehlo-refine-shapes: also refines the experimental custom calls jax.export emits "
    "(dynamic_reduce_window, dynamic_rng_bit_generator, dynamic_top_k)"
)

_WINDOW_OPERANDS = ("window_dimensions", "window_strides", "base_dilations", "window_dilations")


def run(op: Operation, options: dict[str, object]) -> Operation:
    return ext_refine_shapes(op)


def ext_refine_shapes(module: Operation) -> Operation:
    """`stablehlo-refine-shapes` with the experimental custom calls' refinements."""
    from stablehlo_py.passes.stablehlo_refine_shapes import refine_shapes

    return refine_shapes(module, extra_patterns=(ExperimentalRefinePattern(),))


def _target(op: Operation) -> str | None:
    if op.name != "stablehlo.custom_call":
        return None
    name = op_attr(op, "call_target_name")
    return getattr(name, "data", None)


def _body_function(op: Operation) -> FuncOp | None:
    """The function named by the op's one `called_computations` entry, in the enclosing module."""
    calls = op_attr(op, "called_computations")
    if not isinstance(calls, ArrayAttr) or len(calls.data) != 1:
        return None
    ref = calls.data[0]
    if not isinstance(ref, SymbolRefAttr):
        return None
    module = op.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    if module is None:
        return None
    for f in module.ops:
        if isinstance(f, FuncOp) and f.sym_name.data == ref.root_reference.data:
            return f if f.body.blocks else None
    return None


def _refine_dynamic_reduce_window(op: Operation, rewriter: PatternRewriter) -> bool:
    n = len(op.operands) - len(_WINDOW_OPERANDS) - 1
    if n < 2 or n % 2 or len(op.results) != n // 2:
        return False
    body = _body_function(op)
    if body is None:
        return False
    half = n // 2
    inputs, inits = op.operands[:half], op.operands[half:n]
    window = [constant_ints(v) for v in op.operands[n : n + len(_WINDOW_OPERANDS)]]
    padding = constant_attr(op.operands[-1])
    if any(w is None for w in window) or padding is None:
        return False  # "expected constant window_dimensions" ... (as XLA's, no partial refinement)
    attributes = {
        name: DenseArrayBase.from_list(i64, values)  # type: ignore[arg-type]
        for name, values in zip(_WINDOW_OPERANDS, window)
    }
    pad = constant_ints(op.operands[-1])
    if pad is None:
        return False
    pad_type = TensorType(i64, padding.type.get_shape())
    attributes["padding"] = make_dense(
        pad_type, np.asarray(pad, np.int64).reshape(pad_type.get_shape())
    )
    try:
        types = infer_result_types(
            "stablehlo.reduce_window",
            [v.type for v in (*inputs, *inits)],
            attributes,
            (body.body,),
        )
    except (InferError, KeyError):
        return False  # "inferReduceWindowOp failed"
    return refine_return_components(rewriter, op, [components_of_type(t) for t in types])


def _refine_dynamic_rng_bit_generator(op: Operation, rewriter: PatternRewriter) -> bool:
    if len(op.operands) != 2 or len(op.results) != 2:
        return False
    shape = constant_ints(op.operands[1])
    if shape is None:
        return False  # "expected constant output_shape"
    state = components_of_type(op.operands[0].type)
    return refine_return_components(rewriter, op, [state, Components(tuple(shape))])


def _refine_dynamic_top_k(op: Operation, rewriter: PatternRewriter) -> bool:
    if len(op.operands) != 2 or len(op.results) != 2:
        return False
    operand_type = op.operands[0].type
    k = constant_ints(op.operands[1])
    if not isinstance(operand_type, TensorType) or not k or not operand_type.get_shape():
        return False  # "expected constant k"
    shape = (*operand_type.get_shape()[:-1], k[0])
    return refine_return_components(rewriter, op, [Components(shape), Components(shape)])


EXPERIMENTAL_REFINERS: dict[str, Callable[[Operation, PatternRewriter], bool]] = {
    "stablehlo.dynamic_reduce_window": _refine_dynamic_reduce_window,
    "stablehlo.dynamic_rng_bit_generator": _refine_dynamic_rng_bit_generator,
    "stablehlo.dynamic_top_k": _refine_dynamic_top_k,
}
"""custom call target -> its refinement (XLA's RefineDynamic*OpPattern)."""


class ExperimentalRefinePattern(RewritePattern):
    """XLA's three additional refinement patterns, by custom call target."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        target = _target(op)
        refine = EXPERIMENTAL_REFINERS.get(target) if target else None
        if refine is not None:
            refine(op, rewriter)
