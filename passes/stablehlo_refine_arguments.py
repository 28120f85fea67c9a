"""`stablehlo-refine-arguments{types=T0,T1,...}`: upstream's StablehloRefineArguments.cpp.

Gives the arguments of the module's function to refine (its only function, else `@main`) the types
`types`, one per argument.  Every argument whose type changes is wrapped, for its uses, in

    %c = stablehlo.constant dense<[d0, d1, ...]> : tensor<Nxi64>
    %0 = stablehlo.custom_call @stablehlo.shape_refinement_operand_wrapper(%arg, %c)
           {indices_of_shape_operands = dense<1> : tensor<1xi64>} : (refined, tensor<Nxi64>) -> old

so that the program stays valid until `stablehlo-refine-shapes` propagates the new types (and
`stablehlo-canonicalize-dynamism` drops the wrappers).  A refinement keeps the element type and the
rank and may only make dynamic dimensions static (an unranked argument takes any ranked type); the
diagnostics are upstream's, at the function:

    'func.func' op invalid refinement for argument 1, refinement rank must match operand rank in ...

Python API: `refine_arguments(module, types)` with types as xDSL attributes or type strings.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from stablehlo_py.passes.drivers._common import carry_arg_location
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from stablehlo_py.errors import StableHLOError, VerifyError
from stablehlo_py.ir.ops.misc import ConstantOp, CustomCallOp
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.ir.types import MLIR_DYNAMIC, tensor_type
from stablehlo_py.ir.verify import op_location
from stablehlo_py.ir.xdsl_compat.fields import retype_values
from stablehlo_py.passes.drivers.options import PassOption
from stablehlo_py.passes.patterns.refine_patterns import OPERAND_WRAPPER

__all__ = [
    "OPERAND_WRAPPER",
    "refine_arguments",
    "refine_shapes_target",
    "run",
    "validate_refined_types",
]

PASS_NAME = "stablehlo-refine-arguments"
SUMMARY = "Refines the argument shapes of the main function."
OPTIONS = (
    PassOption(
        "types",
        "list",
        [],
        "The new types to be used for the main function's arguments, specified as an MLIR "
        "TypeRange 'tensor<1x2xf32>, ...'",
    ),
)

def run(op: Operation, options: dict[str, object]) -> Operation:

    func = refine_shapes_target(op)
    types = [_parse_type(op, text) for text in options["types"]]
    _refine(func, types)
    return op


def refine_arguments(
    module: Operation, types: Sequence[Attribute | str] | Attribute | str
) -> Operation:
    """Refine the argument types of `module`'s function to refine (see `refine_shapes_target`) to
    `types` in place, as the pass does; returns `module`.  Raises VerifyError (upstream's wording)
    when a type is not a valid refinement of its argument."""
    if isinstance(types, (str, Attribute)):
        types = [types]  # one argument's type
    for i, t in enumerate(types):
        if not isinstance(t, (str, Attribute)):
            raise StableHLOError(
                f"refine_arguments: refinement {i} is {t!r}; give an MLIR type, as text "
                "('tensor<3x4xf32>') or as an xDSL type attribute"
            )
    func = refine_shapes_target(module)
    _refine(func, [_parse_type(module, t) if isinstance(t, str) else t for t in types])
    return module


def refine_shapes_target(module: Operation) -> FuncOp:
    """upstream's getStablehloRefineShapesTarget: the module's only function, or its `@main` when it
    has several; that function must have exactly one block."""
    if not isinstance(module, ModuleOp):
        raise StableHLOError(f"shape refinement runs on a builtin.module, not on '{module.name}'")
    funcs = [o for o in module.ops if isinstance(o, FuncOp)]
    if not funcs:
        raise VerifyError(
            "'builtin.module' op has no func.func to refine; shape refinement refines the module's "
            "only function or its @main",
            location=op_location(module),
        )
    if len(funcs) == 1:
        result: FuncOp | None = funcs[0]
    else:
        result = next((f for f in funcs if f.sym_name.data == "main"), None)
    if result is None:
        raise VerifyError(
            "'builtin.module' op must have no more than one function or a `main` function to clearly "
            "identify which function will be refined",
            location=op_location(module),
        )
    if len(result.body.blocks) != 1:
        raise VerifyError(
            "'func.func' op must have exactly one block", location=op_location(result)
        )
    return result


def validate_refined_types(
    op: Operation, arg_types: Sequence[Attribute], refined: Sequence[Attribute]
) -> None:
    """upstream's validateRefinedTypes: raises VerifyError at `op` unless each refined type equals its
    argument type or is a ranked tensor of the same element type and rank whose static dimensions
    match the argument's (any ranked type for an unranked argument)."""
    if len(arg_types) != len(refined):
        _fail(
            op,
            f"number of refinements must match number of op operands {len(refined)} vs {len(arg_types)}",
        )
    for i, (t, r) in enumerate(zip(arg_types, refined)):
        if t == r:
            continue
        if not isinstance(t, (TensorType, UnrankedTensorType)) or not isinstance(
            r, (TensorType, UnrankedTensorType)
        ):
            _refinement_error(op, i, t, r, "must be a tensor")
        if t.element_type != r.element_type:
            _refinement_error(op, i, t, r, "element types must match")
        if isinstance(r, UnrankedTensorType):
            _refinement_error(op, i, t, r, "must be ranked")
        if isinstance(t, UnrankedTensorType):
            continue
        shape, refined_shape = t.get_shape(), r.get_shape()  # type: ignore[union-attr]
        if len(shape) != len(refined_shape):
            _refinement_error(op, i, t, r, "rank must match operand rank")
        if any(d >= 0 and d != rd for d, rd in zip(shape, refined_shape)):
            _refinement_error(op, i, t, r, "dimension sizes must match for static dimensions")


# ------------------------------------------------------------------------------------ internals
def _refine(func: FuncOp, refined: list[Attribute]) -> None:
    block = func.body.blocks[0]
    validate_refined_types(func, [a.type for a in block.args], refined)
    _wrap_refined_operands(block, refined)
    retype_values(block.args, refined)  # MLIR's BlockArgument::setType: the value stays
    func.function_type = FunctionType.from_lists(refined, list(func.function_type.outputs.data))


def _wrap_refined_operands(block: Block, refined: list[Attribute]) -> None:
    """upstream's wrapRefinedOperands: a constant of the refined shape and the wrapper custom call
    per refined argument, in argument order at the start of the block; the argument's uses move to
    the wrapper."""
    insert_at = InsertPoint.at_start(block)
    for arg, r in zip(block.args, refined):
        if arg.type == r:
            continue
        assert isinstance(r, TensorType)  # validate_refined_types let only ranked tensors through
        # MLIR's getI64TensorAttr(refinedType.getShape()): a dynamic dimension is ShapedType::kDynamic
        shape = tuple(MLIR_DYNAMIC if d < 0 else d for d in r.get_shape())
        shape_type = tensor_type(IntegerType(64), (len(shape),))
        constant = ConstantOp.create(
            properties={"value": make_dense(shape_type, np.asarray(shape, dtype=np.int64))},
            result_types=[shape_type],
        )
        wrapper = CustomCallOp.create(
            operands=[arg, constant.results[0]],
            result_types=[arg.type],
            properties={"call_target_name": StringAttr(OPERAND_WRAPPER)},
            attributes={
                "indices_of_shape_operands": make_dense(
                    tensor_type(IntegerType(64), (1,)), np.asarray([1], dtype=np.int64)
                )
            },
        )
        for new in (constant, wrapper):  # upstream builds both at operand.getLoc()
            carry_arg_location(new, arg)
        Rewriter.insert_op([constant, wrapper], insert_at)
        insert_at = InsertPoint.after(wrapper)
        arg.replace_uses_with_if(wrapper.results[0], lambda use, w=wrapper: use.operation is not w)


def _parse_type(module: Operation, text: str) -> Attribute:
    """upstream's parseRefinedTypes: one MLIR type per string, or "Invalid type string: <text>"."""
    from stablehlo_py.ir.attributes import OpaqueType
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.parser import Parser

    try:
        p = Parser(text, default_registry(), "types")
        t = p.parse_type()
        ok = p.at_end() and not isinstance(t, OpaqueType)
    except StableHLOError:
        ok = False
    if not ok:
        raise VerifyError(
            f"'builtin.module' op Invalid type string: {text} (the types= option of "
            f"{PASS_NAME} takes one MLIR type per argument, e.g. types=tensor<2xf32>,tensor<f32>)",
            location=op_location(module),
        )
    return t


def _refinement_error(op: Operation, i: int, t: Attribute, r: Attribute, msg: str) -> None:
    _fail(
        op,
        f"invalid refinement for argument {i}, refinement {msg} in {type_to_str(t)} -> {type_to_str(r)}",
    )


def _fail(op: Operation, message: str) -> None:
    raise VerifyError(f"'{op.name}' op {message}", location=op_location(op))
