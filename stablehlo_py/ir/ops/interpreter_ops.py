"""The `interpreter` dialect of upstream's reference interpreter (stablehlo/reference/InterpreterOps.td):
ops outside the spec that the interpreter's tests use.

- `interpreter.run_parallel`: runs a `num_replicas x num_partitions` grid of processes, `programs`
  giving one function per process (rows are replicas, columns partitions); `inputs` and `results`
  are the processes' arguments and results concatenated in row-major process order; `infeed` lists
  functions whose results feed the `infeed` ops in order.  Generic syntax only.
- `interpreter.print %x : tensor<...>`: prints the value to stdout.
- `interpreter.probe %x, probe_id = "id" : tensor<...>`: serializes the value (NumPy format) to the
  probe output directory and returns it.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import operand_def, result_def, var_operand_def, var_result_def
from xdsl.utils.exceptions import VerifyException

from stablehlo_py.ir.ops.base import ARRAY_ATTR, STR_ATTR, StableHLOOp, op_def, prop


def _module_funcs(op: Operation) -> dict[str, FuncOp] | None:
    parent = op.parent_op()
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent_op()
    if parent is None:
        return None
    out: dict[str, FuncOp] = {}
    for o in parent.regions[0].block.ops:  # type: ignore[union-attr]
        if isinstance(o, FuncOp):
            out[o.sym_name.data] = o
    return out


def _function(funcs: dict[str, FuncOp] | None, ref: Attribute, what: str) -> FuncOp | None:
    """The function `ref` names (None when the op is outside a module); `<what> must be function
    symbols` when `ref` is not a symbol."""
    if not isinstance(ref, SymbolRefAttr):
        raise VerifyException(f"{what} must be function symbols, got {ref}")
    if funcs is None:
        return None
    func = funcs.get(ref.root_reference.data)
    if func is None:
        raise VerifyException(f"Function {ref.root_reference.data} not found")
    return func


@op_def
class RunParallelOp(StableHLOOp):
    """Runs a two-dimensional grid of `num_replicas` by `num_partitions` StableHLO processes based on
    the programs specified by the two-dimensional grid of `programs`."""

    name = "interpreter.run_parallel"
    inputs = var_operand_def()
    infeed = prop(ARRAY_ATTR, optional=True)
    programs = prop(ARRAY_ATTR)
    results_ = var_result_def()
    FORMAT: ClassVar[str | None] = None

    def verify_(self) -> None:
        programs = self.properties["programs"]
        assert isinstance(programs, ArrayAttr)
        rows = programs.data
        if not rows or not isinstance(rows[0], ArrayAttr) or not rows[0].data:
            raise VerifyException("`programs` attribute cannot be empty")
        num_partitions = len(rows[0].data)
        funcs = _module_funcs(self)
        num_args = num_results = 0
        for row in rows:
            if not isinstance(row, ArrayAttr):
                raise VerifyException("`programs` must be an array of arrays of function symbols")
            if len(row.data) != num_partitions:
                raise VerifyException(
                    f"Sizes of second dimension of `programs` should all match {num_partitions} "
                    f"but got {len(row.data)}"
                )
            for program in row.data:
                func = _function(funcs, program, "`programs` entries")
                if func is None:
                    continue
                num_args += len(func.function_type.inputs.data)
                num_results += len(func.function_type.outputs.data)
        if funcs is None:
            return
        if len(self.inputs) != num_args:
            raise VerifyException(
                f"Number of inputs ({len(self.inputs)}) should match the sum of the number of inputs "
                f"of all programs ({num_args})"
            )
        if len(self.results) != num_results:
            raise VerifyException(
                f"Number of results ({len(self.results)}) should match the sum of the number of "
                f"results of all programs ({num_results})"
            )
        infeed = self.properties.get("infeed")
        if infeed is not None:
            assert isinstance(infeed, ArrayAttr)
            if not infeed.data:
                raise VerifyException("infeed attribute is optional or should not be empty")
            for f in infeed.data:
                func = _function(funcs, f, "infeed entries")
                assert func is not None and isinstance(f, SymbolRefAttr)
                if len(func.function_type.outputs.data) != 1:
                    raise VerifyException(
                        f"Function {f.root_reference.data} should return 1 tensor but returns "
                        f"{len(func.function_type.outputs.data)}"
                    )


@op_def
class PrintOp(StableHLOOp):
    """Print the value to stdout (no result: `interpreter.print %x : tensor<2xi32>`)."""

    name = "interpreter.print"
    operand = operand_def()
    FORMAT: ClassVar[str | None] = "$operand attr-dict `:` type($operand)"


@op_def
class ProbeOp(StableHLOOp):
    """Probe and store the values of the input tensor at runtime, using the NumPy file format."""

    name = "interpreter.probe"
    operand = operand_def()
    probe_id = prop(STR_ATTR)
    result = result_def()
    FORMAT: ClassVar[str | None] = (
        "$operand `,` `probe_id` `=` $probe_id attr-dict `:` type($result)"
    )


OPS = (RunParallelOp, PrintOp, ProbeOp)
