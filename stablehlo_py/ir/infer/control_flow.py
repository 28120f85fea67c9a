"""Result-type inference rules of the control flow ops (upstream's TypeInference.cpp `infer*Op`):
if and case (the least specific type of what the branches return), while and optimization_barrier
(the operand types), after_all and create_token (a token)."""

from __future__ import annotations

import re

from xdsl.dialects.builtin import FunctionType, IntegerType, TensorType
from xdsl.ir import Attribute, Region
from xdsl.traits import IsTerminator

from stablehlo_py.ir.infer.registry import InferError, InferInput, rule
from stablehlo_py.ir.infer.shapes import infer_least_specific_type, types_compatible
from stablehlo_py.ir.types import TokenType


def types_text(types: list[Attribute] | tuple[Attribute, ...]) -> str:
    """A type range as MLIR streams it into a diagnostic: `'T1', 'T2'` (types are quoted)."""
    from stablehlo_py.ir.text.printer import type_to_str

    return ", ".join(f"'{type_to_str(t)}'" for t in types)


def terminator_types(region: Region) -> list[Attribute]:
    """The operand types of the terminator of the region's first block."""
    block = region.blocks.first
    if block is None or block.last_op is None:
        return []
    return [v.type for v in block.last_op.operands]


def _conditional(inp: InferInput) -> list[Attribute]:
    """upstream's inferConditionalOp (if and case)."""
    operand = inp.operand_types[0] if inp.operand_types else None
    # case_i1, if_i1
    if isinstance(operand, TensorType) and len(operand.get_shape()) != 0:
        raise InferError(f"operand should be rank 0 tensor but got rank {len(operand.get_shape())}")
    branches = inp.regions
    # case_c1
    if not branches:
        raise InferError("expect at least one branch")
    for region in branches:
        if not region.blocks:
            raise InferError("expect non-empty region")
    outs0 = terminator_types(branches[0])
    outs = [terminator_types(r) for r in branches]
    for i, region in enumerate(branches):
        nargs = len(region.blocks.first.args)  # type: ignore[union-attr]
        # case_c2, if_c1
        if nargs:
            raise InferError(f"branch {i} must have 0 arguments, but found {nargs}")
        # case_c3, if_c2
        if not types_compatible(outs0, outs[i]):
            raise InferError(
                f"branch 0 and branch {i} have mismatched return types: "
                f"{types_text(outs0)} vs {types_text(outs[i])}"
            )
    # case_c4, if_c3
    return [infer_least_specific_type([o[k] for o in outs]) for k in range(len(outs0))]


@rule("stablehlo.if", "stablehlo.case")
def infer_conditional(inp: InferInput) -> list[Attribute]:
    return _conditional(inp)


@rule("stablehlo.while", "stablehlo.optimization_barrier")
def infer_operand_types(inp: InferInput) -> list[Attribute]:
    """while_c3, optimization_barrier_c1: the results have the operands' types."""
    return list(inp.operand_types)


def verify_while(operand_types: list[Attribute], cond: Region, body: Region) -> None:
    """upstream's verifyWhileOp, in its order: the operands against cond's and body's arguments,
    body's terminator and its operands, then cond's single `tensor<i1>` result.  The regions hold one
    block each (checked before, as upstream's `SizedRegion<1>`)."""
    cond_args = [a.type for a in cond.blocks.first.args]  # type: ignore[union-attr]
    body_args = [a.type for a in body.blocks.first.args]  # type: ignore[union-attr]

    def expect_compatible(types: list[Attribute], what: str) -> None:
        if not types_compatible(operand_types, types):
            raise InferError(
                f"expect operands to be compatible with {what} but got "
                f"{types_text(operand_types)} vs {types_text(types)}"
            )

    expect_compatible(cond_args, "condition block arguments")  # while_c1
    expect_compatible(body_args, "body block arguments")  # while_c2
    last = body.blocks.first.last_op  # type: ignore[union-attr]
    if last is None or not last.has_trait(IsTerminator):
        raise InferError("The while body-region expected to have a terminator")
    # while_c2
    expect_compatible([v.type for v in last.operands], "body block return types")
    # while_c1 (upstream reads the operands of cond's last op, terminator or not)
    cond_last = cond.blocks.first.last_op  # type: ignore[union-attr]
    cond_returns = [v.type for v in cond_last.operands] if cond_last is not None else []
    if len(cond_returns) != 1:
        raise InferError(
            f"expect condition body returns a single value but got {len(cond_returns)}"
        )
    pred = cond_returns[0]
    if not (
        isinstance(pred, TensorType)
        and len(pred.get_shape()) == 0
        and pred.element_type == IntegerType(1)
    ):
        raise InferError(
            f"expect condition block return a zero-ranked tensor of i1 but got {types_text([pred])}"
        )


COMPOSITE_NAME = r"^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$"
"""upstream's regular expression for a composite's name (composite_c1)."""


def verify_composite(
    name: str,
    decomposition: str,
    decomposition_type: FunctionType | None,
    operand_types: list[Attribute],
    result_types: list[Attribute],
) -> None:
    """upstream's verifyCompositeOp (run as a symbol-use check); `decomposition_type` is the type
    of the `func.func` the decomposition names, None when there is none."""
    # composite_c1
    if re.match(COMPOSITE_NAME, name) is None:
        raise InferError(
            "name must be a valid namespaced op name, i.e. it must match the following regular "
            f'expression: {COMPOSITE_NAME} e.g. "my_namespace.my_op"'
        )
    # composite_c2
    if decomposition_type is None:
        raise InferError(f"'{decomposition}' does not reference a valid function")
    checks = (
        ("operand", operand_types, list(decomposition_type.inputs.data)),  # composite_c3
        ("result", result_types, list(decomposition_type.outputs.data)),  # composite_c4
    )
    for what, types, decomposed in checks:
        if len(types) != len(decomposed):
            raise InferError(f"has {len(types)} {what}(s), but decomposition has {len(decomposed)}")
        for i, (t, d) in enumerate(zip(types, decomposed)):
            if t != d:
                raise InferError(
                    f"{what} at index {i} has type {types_text([t])}, but decomposition has type "
                    f"{types_text([d])}"
                )


@rule("stablehlo.after_all", "stablehlo.create_token")
def infer_token(inp: InferInput) -> list[Attribute]:
    return [TokenType()]
