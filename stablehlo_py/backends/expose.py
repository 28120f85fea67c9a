"""A program changed to return what it computes on the way: every tensor result of every op at
the top level of its entry function becomes an extra result, so that one run on a backend gives
the values a per-op trace of the interpreter records (``--compare-to=xla|iree``).

Values inside regions (a ``while`` body, a reduction's combiner) and inside called functions are
not exposed: they are compared at the op that holds or calls them.  More results may change what a
backend fuses; a divergence that only fusion causes can then disappear (said in the docs).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, TensorType
from xdsl.dialects.func import FuncOp

from stablehlo_py.errors import StableHLOError
from stablehlo_py.ir.text.name_stack import op_keys


@dataclass(frozen=True)
class Exposed:
    module: ModuleOp
    """The changed copy: ``entry`` returns its own results, then the exposed values."""
    results: int
    """How many results ``entry`` had before."""
    keys: tuple[tuple[str, int], ...]
    """Per exposed value (in the order returned after the original results): the op key of the op
    that computes it, and which of the op's results it is."""


def expose(module: ModuleOp, entry: str = "main") -> Exposed:
    """``module`` with every top-level tensor value of ``entry`` returned (module docstring)."""
    copy = module.clone()
    keys = op_keys(module)
    original = next(
        (op for op in module.body.block.ops if isinstance(op, FuncOp) and op.sym_name.data == entry),
        None,
    )
    func = next(
        (op for op in copy.body.block.ops if isinstance(op, FuncOp) and op.sym_name.data == entry),
        None,
    )
    if func is None or original is None or not func.body.blocks:
        raise StableHLOError(f"the module has no function @{entry} with a body")
    ret = func.body.block.last_op
    assert ret is not None
    exposed, where = [], []
    for op, op_copy in zip(original.body.block.ops, func.body.block.ops):
        if op_copy is ret:
            break
        for i, value in enumerate(op_copy.results):
            if isinstance(value.type, TensorType):
                exposed.append(value)
                where.append((keys[op], i))
    before = len(ret.operands)
    ret.operands = (*ret.operands, *exposed)
    outputs = (*func.function_type.outputs.data, *(v.type for v in exposed))
    func.function_type = FunctionType.from_lists(list(func.function_type.inputs.data), list(outputs))
    if func.res_attrs is not None:
        func.res_attrs = ArrayAttr([*func.res_attrs.data, *(DictionaryAttr({}) for _ in exposed)])
    return Exposed(copy, before, tuple(where))
