"""The evaluator: runs functions and regions of a StableHLO module on numpy values.

Dispatch is one dict lookup by op name (`registry.IMPLS`); each impl is a thin wrapper that unpacks the
op's attributes and calls a pure numpy function of `semantics/`.  Values are numpy arrays (of the dtypes
in `dtypes.py`), `Token` for `!stablehlo.token`, and Python tuples for tuple types.  Region-bodied ops get
their region as a `RegionBody` that evaluates the region on whole arrays (never per element).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue

from stablehlo_py.errors import InterpreterError, NotSupportedError
from stablehlo_py.interpreter.registry import IMPLS, load_impls
from stablehlo_py.interpreter.semantics.regions import RegionBody, make_body

RETURN_OPS = frozenset({"func.return", "stablehlo.return", "chlo.return"})
# Hooks `(op, impl) -> impl` applied once per op when it first runs (e.g. impls/quantization.py
# wraps ops on quantized tensors as dequantize -> op -> quantize).
IMPL_WRAPPERS: list[Any] = []
_KIND_OPS = {
    "stablehlo.add": "add",
    "stablehlo.multiply": "mul",
    "stablehlo.maximum": "max",
    "stablehlo.minimum": "min",
    "stablehlo.and": "and",
    "stablehlo.or": "or",
    "stablehlo.xor": "xor",
}


class Token:
    """The value of a `!stablehlo.token`."""

    _instance: Token | None = None

    def __new__(cls) -> Token:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "token"


TOKEN = Token()


@dataclass
class CheckFailure:
    function: str
    op: str
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: error: check failed in @{self.function}: {self.op}: {self.message}"


@dataclass
class ProcessContext:
    """Where this evaluator runs in the replica x partition grid (collectives, ids, feeds)."""

    replica_id: int = 0
    partition_id: int = 0
    num_replicas: int = 1
    num_partitions: int = 1
    grid: Any = None  # impls.collectives.ProcessGrid (shared by the processes of a run_parallel)
    infeed: list[Any] = field(default_factory=list)
    outfeed: list[Any] = field(default_factory=list)


class Evaluator:
    def __init__(self, module: Operation, process: ProcessContext | None = None, custom_calls: dict | None = None):
        load_impls()
        self.module = module
        self.process = process or ProcessContext()
        self.funcs: dict[str, FuncOp] = {}
        if isinstance(module, ModuleOp):
            for op in module.body.ops:
                if isinstance(op, FuncOp):
                    self.funcs[op.sym_name.data] = op
        self.failures: list[CheckFailure] = []
        self.output: list[str] = []
        self.probes: dict[str, Any] = {}
        from stablehlo_py.interpreter.custom_call import CUSTOM_CALL_TARGETS

        self.custom_calls = dict(CUSTOM_CALL_TARGETS)
        if custom_calls:
            self.custom_calls.update(custom_calls)
        self.current_function = ""
        self._plans: dict[Block, list[Any]] = {}

    # ----------------------------------------------------------------------- functions
    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        func = self.funcs.get(name)
        if func is None:
            raise InterpreterError(f"no function @{name} in the module (have: {', '.join('@' + f for f in self.funcs)})")
        return self.run_func(func, args)

    def run_func(self, func: FuncOp, args: Sequence[Any]) -> list[Any]:
        if not func.body.blocks:
            raise InterpreterError(f"function @{func.sym_name.data} has no body (external functions cannot run)")
        block = func.body.blocks.first
        assert block is not None
        if len(args) != len(block.args):
            raise InterpreterError(
                f"@{func.sym_name.data} takes {len(block.args)} arguments, {len(args)} were given"
            )
        saved = self.current_function
        self.current_function = func.sym_name.data
        self.call_depth = getattr(self, "call_depth", 0) + 1
        try:
            if self.call_depth > MAX_CALL_DEPTH:
                raise InterpreterError(
                    f"calls nested more than {MAX_CALL_DEPTH} deep (at @{func.sym_name.data}): "
                    "the program recurses without end, or deeper than the interpreter supports"
                )
            return self.run_block(block, list(args), {})
        finally:
            self.call_depth -= 1
            self.current_function = saved

    # ------------------------------------------------------------------------- regions
    def run_region(self, region: Region, args: Sequence[Any], env: dict[SSAValue, Any]) -> list[Any]:
        block = region.blocks.first
        if block is None:
            raise InterpreterError("cannot run an empty region")
        return self.run_block(block, list(args), env)

    def run_block(self, block: Block, args: list[Any], env: dict[SSAValue, Any]) -> list[Any]:
        for a, v in zip(block.args, args):
            env[a] = v
        plan = self._plans.get(block)
        if plan is None:
            plan = self._plans[block] = self._plan(block)
        for fn, op, operand_values, results in plan:
            try:
                operands = [env[v] for v in operand_values]
            except KeyError:
                raise InterpreterError(f"'{op.name}' uses a value that was not computed", location=_loc(op)) from None
            if fn is None:  # a return-like terminator
                return operands
            try:
                out = fn(self, op, operands, env)
            except (InterpreterError, NotSupportedError) as e:
                if e.location is None:
                    e.location = _loc(op)
                    e.args = (e.render(),)
                raise
            except (ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError, MemoryError) as e:
                raise InterpreterError(f"'{op.name}' failed: {type(e).__name__}: {e}", location=_loc(op)) from None
            if len(results) == 1:
                env[results[0]] = out[0]
            else:
                for r, v in zip(results, out):
                    env[r] = v
        return []

    def _plan(self, block: Block) -> list[tuple[Any, Operation, tuple[SSAValue, ...], tuple[SSAValue, ...]]]:
        """The block as a list of (impl, op, operands, results), resolved once per evaluator: a loop
        body runs its plan on every iteration without looking anything up again."""
        plan = []
        for op in block.ops:
            name = op.name
            if name in RETURN_OPS:
                plan.append((None, op, tuple(op.operands), ()))
                break
            fn = op.__dict__.get("_interp_impl")
            if fn is None:
                fn = IMPLS.get(name)
                for wrap in IMPL_WRAPPERS:
                    fn = wrap(op, fn)
                if fn is None:
                    raise NotSupportedError(f"the interpreter does not support '{name}' yet", location=_loc(op))
                op.__dict__["_interp_impl"] = fn
            plan.append((fn, op, tuple(op.operands), tuple(op.results)))
        return plan

    def region_body(self, region: Region, env: dict[SSAValue, Any]) -> RegionBody:
        """The region as a vectorized body (with its `kind` when it is a single known binary op)."""

        def fn(*arrays: Any) -> tuple[Any, ...]:
            return tuple(self.run_region(region, arrays, env))

        return make_body(fn, kind=region_kind(region))

    # -------------------------------------------------------------------------- checks
    def fail(self, op: Operation, message: str) -> None:
        self.failures.append(CheckFailure(self.current_function, op.name, _loc(op) or "<unknown>", message))


MAX_CALL_DEPTH = 64  # nested func.call levels (each recurses through the evaluator)


def region_kind(region: Region) -> str | None:
    """'add'/'max'/... when the region is `return op(arg0, arg1)` for a known commutative op."""
    block = region.blocks.first
    if block is None or len(block.args) != 2:
        return None
    ops = list(block.ops)
    if len(ops) != 2:
        return None
    body, ret = ops
    kind = _KIND_OPS.get(body.name)
    if kind is None or ret.name not in RETURN_OPS or list(ret.operands) != [body.results[0]]:
        return None
    if set(body.operands) != set(block.args) or len(body.operands) != 2:
        return None
    return kind


def _loc(op: Operation) -> str | None:
    from stablehlo_py.ir.verify import op_location

    return op_location(op)


__all__ = ["Evaluator", "ProcessContext", "CheckFailure", "TOKEN", "Token", "region_kind", "np"]
