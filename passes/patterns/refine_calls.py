"""Shape refinement across `func.call` (upstream's RefinementKey, RefineShapeState,
FunctionEffectAnalysis, RefineCallOpPattern and refineFunction in StablehloRefineShapes.cpp).

A call refines its callee in the call's context -- the *refinement key*: the leading `!stablehlo.token`
operands, then the *global constants* (leading scalar integer constants: the values of symbolic
dimensions, which JAX passes as arguments) and the types of the remaining, *functional*, operands.
Refining a function replaces its global-constant arguments by constants, drops them, gives the other
arguments the call's types (through refine-arguments' operand wrappers) and runs the refinement
patterns on its body.  A function is refined once: another call with another key is an error
("refined with incompatible refinement keys"), and so is recursion.  The call then drops its global
constant operands, takes the callee's result types, and -- when the callee returns constants and has
no memory effects, even transitively -- is replaced by those constants (constant results of other
calls are still propagated to their users).

Refining a function runs the refinement patterns on it (`apply_refinement_patterns`, upstream's
applyShapeRefinementPatterns), and one of them is the call pattern, which refines the callee: the
two call each other, so both live here; `stablehlo_refine_shapes` is the pass around them.

Errors are collected as diagnostics (upstream emits them and goes on): see `RefineState.diagnostics`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from stablehlo_py.passes.drivers.bounded_walker import BoundedRewriteWalker, ConstantUniquer
from stablehlo_py.passes.patterns.refine_patterns import RefineInferredPattern, RefineOpPattern
from stablehlo_py.passes.patterns.refine_types import refine_return_types
from stablehlo_py.passes.patterns.shape_folder import (
    FoldOptions,
    ShapeFolderPattern,
    constant_attr,
    constant_ints,
    make_constant,
    op_attr,
)
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import RecursiveMemoryEffect, get_effects

from stablehlo_py.errors import VerifyError
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import TokenType, storage_dtype
from stablehlo_py.ir.verify import op_location

__all__ = [
    "MAX_ITERATIONS",
    "RefineCallPattern",
    "RefineState",
    "RefinementKey",
    "apply_refinement_patterns",
    "refine_function",
]

MAX_ITERATIONS = 2
"""upstream's GreedyRewriteConfig::setMaxIterations(2)."""

SHAPE_FOLD_OPTIONS = FoldOptions(optimize_float=False, fold_op_element_limit=(1 << 63) - 1)
"""upstream: no float folding, and fold as much as possible."""


# ------------------------------------------------------------------------------- the key
@dataclass
class RefinementKey:
    func: FuncOp
    leading_tokens: int
    global_constants: list[int]
    functional_types: list[Attribute]

    @classmethod
    def from_call(cls, call: CallOp, state: RefineState) -> RefinementKey | None:
        operands = list(call.operands)
        tokens = 0
        for v in operands:
            if not isinstance(v.type, TokenType):
                break
            tokens += 1
        constants: list[int] = []
        for v in operands[tokens:]:
            t = v.type
            if (
                not isinstance(t, TensorType)
                or t.get_shape()
                or not isinstance(t.element_type, IntegerType)
            ):
                break
            ints = constant_ints(v)
            if ints is None:
                break
            constants.append(ints[0])
        functional = [v.type for v in operands[tokens + len(constants) :]]
        callee = state.lookup(call)
        if callee is None:
            state.emit(call, f"'{call.name}' op cannot resolve function call")
            return None
        return cls(callee, tokens, constants, functional)

    def non_global_types(self) -> list[Attribute]:
        return [TokenType()] * self.leading_tokens + list(self.functional_types)

    def __str__(self) -> str:
        return (
            f"RefinementKey({self.func.sym_name.data}, toks={self.leading_tokens}, "
            f"dim_args=[{', '.join(str(c) for c in self.global_constants)}], "
            f"fn_args=[{', '.join(type_to_str(t) for t in self.functional_types)}])"
        )


# ------------------------------------------------------------------------------- effects
def _custom_call_effect_free(op: Operation) -> bool:
    flag = op_attr(op, "has_side_effect")
    return not (flag is not None and getattr(getattr(flag, "value", None), "data", 0))


class FunctionEffects:
    """upstream's FunctionEffectAnalysis: whether a function (and what it calls) is free of memory
    effects.  Ops without a known effect model count as effectful, as MLIR's isMemoryEffectFree."""

    def __init__(self, module: ModuleOp | None):
        self.module = module
        self.state: dict[str, bool | None] = {}  # None: being visited

    def is_effect_free(self, func: FuncOp) -> bool:
        name = func.sym_name.data
        if name in self.state:
            return bool(self.state[name])
        self.state[name] = None
        free = bool(func.body.blocks) and all(
            self._op_free(op) for op in func.body.walk() if op is not func
        )
        self.state[name] = free
        return free

    def _op_free(self, op: Operation) -> bool:
        if op.name == "func.call":
            callee = _lookup(self.module, op)
            return callee is not None and self.is_effect_free(callee)
        if op.name == "stablehlo.custom_call":
            return _custom_call_effect_free(op)
        if op.name in ("func.return", "func.func"):
            return True
        if op.has_trait(RecursiveMemoryEffect):
            return True  # its nested ops are judged on their own (the walk reaches them)
        effects = get_effects(op)
        return effects is not None and not effects


def _lookup(module: ModuleOp | None, call: Operation) -> FuncOp | None:
    if module is None:
        return None
    callee = op_attr(call, "callee")
    name = getattr(getattr(callee, "root_reference", None), "data", None)
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    return None


# ------------------------------------------------------------------------------- state
@dataclass
class RefineState:
    module: ModuleOp | None
    contexts: dict[str, RefinementKey] = field(default_factory=dict)
    being_refined: list[str] = field(default_factory=list)
    diagnostics: list[VerifyError] = field(default_factory=list)
    effects: FunctionEffects | None = None
    extra_patterns: list[RewritePattern] = field(
        default_factory=list
    )  # upstream's additional patterns

    def __post_init__(self) -> None:
        self.effects = FunctionEffects(self.module)

    def lookup(self, call: Operation) -> FuncOp | None:
        return _lookup(self.module, call)

    def emit(self, op: Operation, message: str) -> None:
        """An error diagnostic at ``op`` (upstream's emitOpError/emitError; the pass goes on).  A
        pattern that fails again on a later sweep does not repeat its diagnostic."""
        location = op_location(op)
        if any(d.message == message and d.location == location for d in self.diagnostics):
            return
        self.diagnostics.append(VerifyError(message, location=location))

    def is_effect_free(self, func: FuncOp) -> bool:
        assert self.effects is not None
        return self.effects.is_effect_free(func)

    def validate(self, key: RefinementKey) -> bool | None:
        """upstream's validateFunctionRefinement: None on error (emitted), True when the function
        was already refined in this context, False when it is to be refined."""
        name = key.func.sym_name.data
        prev = self.contexts.get(name)
        if prev is None:
            return False
        if (key.global_constants and prev.global_constants != key.global_constants) or (
            key.non_global_types() != prev.non_global_types()
        ):
            self.emit(
                key.func,
                f"'func.func' op refined with incompatible refinement keys:\n  curr={key}\n  prev={prev}",
            )
            return None
        if name in self.being_refined:
            self.emit(key.func, f"'func.func' op Function {name} is being refined recursively\n")
            return None
        return True


# ------------------------------------------------------------------------------- refining
def refine_function(state: RefineState, key: RefinementKey) -> bool:
    """upstream's refineFunction: False on failure (diagnosed)."""
    from stablehlo_py.passes.stablehlo_refine_arguments import _refine, validate_refined_types

    already = state.validate(key)
    if already is None:
        return False
    if already:
        return True
    func = key.func
    name = func.sym_name.data
    state.being_refined.append(name)
    state.contexts.setdefault(name, key)
    try:
        if len(func.body.blocks) != 1:
            state.emit(func, "'func.func' op must have exactly one block")
            return False
        block = func.body.blocks[0]
        first = key.leading_tokens
        constants = key.global_constants
        for i, dim in enumerate(constants):
            arg = block.args[first + i]
            t = arg.type
            if not isinstance(t, TensorType):
                state.emit(func, "'func.func' op expected global constant argument to be shaped")
                return False
            c = make_constant(make_dense(t, np.asarray(dim).astype(storage_dtype(t.element_type))))
            Rewriter.insert_op(c, InsertPoint.at_start(block))
            arg.replace_all_uses_with(c.results[0])
        if constants:
            _erase_arguments(func, range(first, first + len(constants)))
        refined = key.non_global_types()
        try:
            validate_refined_types(func, [a.type for a in block.args], refined)
            _refine(func, refined)
        except VerifyError as e:
            state.diagnostics.append(e)
            return False
        return apply_refinement_patterns(func, state)
    finally:
        state.being_refined.pop()


def _erase_arguments(func: FuncOp, indices: range) -> None:
    block = func.body.blocks[0]
    for i in reversed(indices):
        block.erase_arg(block.args[i])
    inputs = [t for i, t in enumerate(func.function_type.inputs.data) if i not in indices]
    func.function_type = FunctionType.from_lists(inputs, list(func.function_type.outputs.data))
    if func.arg_attrs is not None:
        func.arg_attrs = ArrayAttr(
            [a for i, a in enumerate(func.arg_attrs.data) if i not in indices]
        )


def constant_results(func: FuncOp) -> list[DenseIntOrFPElementsAttr | None]:
    """upstream's getConstantResults: per returned value, its integer constant or None."""
    ret = func.body.blocks[0].last_op if func.body.blocks else None
    if ret is None or ret.name != "func.return":
        return []
    out: list[DenseIntOrFPElementsAttr | None] = []
    for v in ret.operands:
        attr = constant_attr(v)
        ok = attr is not None and isinstance(attr.type.element_type, (IntegerType, IndexType))
        out.append(attr if ok else None)
    return out


class RefineCallPattern(RewritePattern):
    """upstream's RefineCallOpPattern."""

    def __init__(self, state: RefineState):
        self.state = state

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, CallOp):
            return
        key = RefinementKey.from_call(op, self.state)
        if key is None or not refine_function(self.state, key):
            return
        callee = key.func
        results = constant_results(callee)
        callee_types = list(callee.function_type.outputs.data)
        if all(r is not None for r in results) and self.state.is_effect_free(callee):
            constants = [make_constant(r) for r in results]  # type: ignore[arg-type]
            rewriter.replace(op, constants, new_results=[c.results[0] for c in constants])
            return
        changed = False
        if [r.type for r in op.results] != callee_types:
            if not refine_return_types(rewriter, op, callee_types):
                return
            changed = True
        if key.global_constants:
            operands = list(op.operands)
            first = key.leading_tokens
            kept = operands[:first] + operands[first + len(key.global_constants) :]
            dropped = operands[first : first + len(key.global_constants)]
            op.operands = kept
            arg_attrs = op.attributes.get(
                "arg_attrs"
            )  # upstream's inherent arg_attrs lose them too
            if isinstance(arg_attrs, ArrayAttr):
                entries = list(arg_attrs.data)
                n = len(key.global_constants)
                op.attributes["arg_attrs"] = ArrayAttr(entries[:first] + entries[first + n :])
            rewriter.handle_operation_modification(op)
            for (
                value
            ) in dropped:  # their producers may be dead now (revisit them, as MLIR's driver)
                if isinstance(value.owner, Operation):
                    rewriter.handle_operation_modification(value.owner)
            rewriter.has_done_action = True
            changed = True
        used = [
            (res, attr)
            for res, attr in zip(op.results, results)
            if attr is not None and res.first_use
        ]
        if used:
            at = InsertPoint.after(op)
            for res, attr in used:
                c = make_constant(attr)  # type: ignore[arg-type]
                rewriter.insert(c, at)
                at = InsertPoint.after(c)
                rewriter.replace_all_uses_with(res, c.results[0])
            rewriter.has_done_action = True
            return
        if changed:
            return
        refine_return_types(rewriter, op, callee_types)


def apply_refinement_patterns(func: FuncOp, state: RefineState) -> bool:
    """upstream's applyShapeRefinementPatterns: run the patterns on ``func`` until nothing changes
    (at most MAX_ITERATIONS sweeps; not converging is diagnosed, and is not a failure)."""
    applier = GreedyRewritePatternApplier(
        [
            ConstantUniquer(),
            RefineOpPattern(),
            RefineCallPattern(state),
            *state.extra_patterns,
            ShapeFolderPattern(SHAPE_FOLD_OPTIONS),
            RefineInferredPattern(),
        ],
        dce_enabled=True,
    )
    walker = BoundedRewriteWalker(applier, max_iterations=MAX_ITERATIONS)
    walker.rewrite_region(func.body)
    if not walker.converged:
        state.emit(func, f"Failed to converge StablehloRefineShapes in {MAX_ITERATIONS} iterations")
    return True
