"""What dynamic programs need beyond the ops' own impls.

- Every op with a dynamic operand or result type gets its results checked against its result types
  (static dimensions and `#stablehlo.bounds`), installed once per op as an `IMPL_WRAPPERS` hook: a
  `?` dimension binds to whatever the op computed, a static one must match.
- `stablehlo.custom_call @shape_assertion(%assert_what, %error_message_inputs...)`, which
  `jax.export` emits for shape-polymorphic functions, is checked at run time as upstream's
  `stablehlo-check-shape-assertions` checks it at compile time: a false `assert_what` raises
  InterpreterError with `error_message` formatted by `llvm::formatv` rules (`{0}` is the first error
  message input, `{{` a literal brace).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
from stablehlo_py.interpreter.custom_calls.registry import ANY_PLATFORM, EVALUATOR, builtin
from stablehlo_py.interpreter.evaluator import IMPL_WRAPPERS
from stablehlo_py.interpreter.registry import Impl
from stablehlo_py.interpreter.shapes import check_results, touches_dynamic_type
from xdsl.dialects.builtin import StringAttr

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.ops.data_movement import ComplexOp
from stablehlo_py.ir.ops.elementwise import SAME_SHAPE_BASES, CompareOp
from stablehlo_py.ir.types import MLIR_DYNAMIC

MAX_ERROR_MESSAGE_INPUTS = 32  # upstream's maxErrorMessageInputs
_SPEC = re.compile(r"\{\{|\{(\s*\d+)\s*(?:,[^:}]*)?(?::[^}]*)?\}")


# Ops whose operands and results have one shape (upstream's SameOperandsAndResultShape trait): with a
# `?` dimension the verifier cannot check it, so it is checked on the values (numpy would broadcast
# a size-1 operand silently).
SAME_SHAPE_OPS = (*SAME_SHAPE_BASES, CompareOp, ComplexOp)


def _check_same_shapes(op: Any, args: list[Any]) -> None:
    shapes = [np.shape(a) for a in args]
    if any(s != shapes[0] for s in shapes[1:]):
        shown = ", ".join(str(list(s)) for s in shapes)
        raise InterpreterError(
            f"the operands of '{op.name}' have shapes {shown} at run time: the op needs one shape "
            "for all operands and its result, so a `?` dimension must have the same size in every "
            "operand (broadcast the smaller one first, e.g. with stablehlo.dynamic_broadcast_in_dim)"
        )


def _check_dynamic_results(op: Any, fn: Impl | None) -> Impl | None:
    """IMPL_WRAPPERS hook: check the results of ops that touch a dynamic type (and the operand
    shapes of ops that need equal ones)."""
    if fn is None or not op.results or not touches_dynamic_type(op):
        return fn
    inner = fn
    same_shape = isinstance(op, SAME_SHAPE_OPS)

    def checked(ev: Any, op: Any, args: list[Any], env: dict) -> list[Any]:
        if same_shape:
            _check_same_shapes(op, args)
        out = inner(ev, op, args, env)
        check_results(op, out)
        return out

    return checked


IMPL_WRAPPERS.append(_check_dynamic_results)


def format_error_message(message: str, inputs: list[int]) -> str:
    """`llvm::formatv(message, inputs...)` as upstream's shape-assertion check formats it: `{i}`
    (with optional `,layout` and `:format`, which are ignored) is input `i` (-1 past the last one,
    as upstream passes), `{{` is `{`."""

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "{{":
            return "{"
        i = int(m.group(1))
        return str(inputs[i]) if i < len(inputs) else "-1"

    return _SPEC.sub(sub, message)


@builtin(
    "shape_assertion",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=(
        "assert_what i1, error_message_inputs i32/i64... -> (), error_message attribute, "
        "has_side_effect, api 2 (jax >= 0.4.14)",
    ),
)
def shape_assertion(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    """Raise InterpreterError with the formatted `error_message` when `assert_what` is false."""
    if not 1 <= len(args) <= 1 + MAX_ERROR_MESSAGE_INPUTS:
        raise InterpreterError(
            f"shape_assertion expects 1 <= size(operands) <= {1 + MAX_ERROR_MESSAGE_INPUTS}, got {len(args)}"
        )
    if op.results:
        raise InterpreterError("shape_assertion expects size(results) = 0")
    what = np.asarray(args[0])
    if what.shape != () or what.dtype != np.bool_:
        raise InterpreterError(
            "shape_assertion expects assert_what (operand #0) to be a tensor<i1>, "
            f"got a value of shape {list(what.shape)} and type {what.dtype}"
        )
    inputs = []
    for k, a in enumerate(args[1:], start=1):
        v = np.asarray(a)
        if v.shape != () or v.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise InterpreterError(
                f"shape_assertion expects error_message_input (operand #{k}) to be a tensor<i32> or "
                f"tensor<i64>, got a value of shape {list(v.shape)} and type {v.dtype}"
            )
        inputs.append(int(v))
    msg = op.attributes.get("error_message", op.properties.get("error_message"))
    if not isinstance(msg, StringAttr):
        raise InterpreterError("shape_assertion expects an error_message attribute")
    if bool(what):
        return []
    raise InterpreterError(format_error_message(msg.data, inputs))


__all__ = ["format_error_message", "shape_assertion"]




@builtin(
    "stablehlo.shape_refinement_operand_wrapper",
    EVALUATOR,
    platforms=ANY_PLATFORM,
    forms=("(operand, shape i64[r]) -> operand, written by stablehlo-refine-arguments",),
)
def shape_refinement_operand_wrapper(ev: Any, op: Any, args: list[Any]) -> list[Any]:
    """What `stablehlo-refine-arguments` wraps a refined argument in (until `stablehlo-refine-shapes`
    removes it): the operand itself, whose shape must be the shape operand's (`?` entries match any
    size)."""
    if len(args) != 2 or len(op.results) != 1:
        raise InterpreterError(
            "stablehlo.shape_refinement_operand_wrapper takes (operand, shape) and has one result, "
            f"got {len(args)} operands and {len(op.results)} results"
        )
    value = np.asarray(args[0])
    shape = [int(d) for d in np.asarray(args[1]).reshape(-1)]
    if len(shape) != value.ndim or any(
        d != MLIR_DYNAMIC and d != -1 and d != s for d, s in zip(shape, value.shape)
    ):
        shown = ["?" if d in (MLIR_DYNAMIC, -1) else str(d) for d in shape]
        raise InterpreterError(
            f"stablehlo.shape_refinement_operand_wrapper: the operand has shape {list(value.shape)}, "
            f"the refined argument type says [{', '.join(shown)}]"
        )
    return [args[0]]
