"""The evaluator: runs functions and regions of a StableHLO module on numpy values.

Each function (and each region run on its own) is compiled once per module: the code is shared by
the module's evaluators while the module is unchanged (`module_code.py`, checked when each
top-level call starts).  A block's first calls run as a plan of prepared steps when it has no
regions, later ones as generated Python (`compiled_plan.py`, `compiled.py`).  Ops with a compiler
run as steps prepared at compile time, the others through their impl (`registry.IMPLS`), a thin
wrapper that unpacks the op's attributes and calls a pure numpy function of
`stablehlo_py/semantics/`.  Values are numpy arrays (of the dtypes in
`stablehlo_py/semantics/dtypes.py`), `Token` for `!stablehlo.token`, and Python tuples for tuple
types.  Region-bodied ops get their region as a `RegionBody` that evaluates the region on whole
arrays (never per element).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from stablehlo_py.interpreter.compiled import (
    IMPL_WRAPPERS,
    RETURN_OPS,
    RegionClosures,
    run_located,
)
from stablehlo_py.interpreter.compiled_plan import compile_block
from stablehlo_py.interpreter.module_code import ModuleCode, current_code, functions
from stablehlo_py.interpreter.observe import check_observer
from stablehlo_py.interpreter.registry import load_impls
from stablehlo_py.semantics.regions import RegionBody, make_body
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.types import UniformQuantizedType

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
        return (
            f"{self.location}: error: check failed in @{self.function}: {self.op}: {self.message}"
        )


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
    # interpreter.shard_plan.ShardPlan when the entry's tile-fed arguments arrive as this
    # process's tiles and its tile-kept results stay tiles (None: every value global)
    shard_plan: Any = None


class Evaluator:
    def __init__(
        self,
        module: Operation,
        process: ProcessContext | None = None,
        custom_calls: dict | None = None,
        observer: Any = None,
    ):
        load_impls()
        self.module = module
        # told about each op as it runs (observe.py); fixed for the evaluator's life, as the code
        # compiled for it calls it
        self.observer = None if observer is None else check_observer(observer)
        self.process = process or ProcessContext()
        self.failures: list[CheckFailure] = []
        self.output: list[str] = []
        self.probes: dict[str, Any] = {}
        # targets of this evaluator only, looked up before the registry (custom_calls/dispatch.py)
        self.custom_calls = dict(custom_calls or {})
        self.current_function = ""
        self.call_depth = 0
        self.funcs: dict[str, FuncOp] = functions(module)
        # the module's compiled code (module_code.py): shared with the module's other evaluators
        # (a traced one compiles its own blocks); checked against the module when each top-level
        # call starts
        self._held: ModuleCode | None = None
        self._code: dict[Block, Any] = {}
        self._entries: dict[FuncOp, tuple[Any, int, str]] = {}
        self._kinds: dict[Region, str | None] = {}

    def _bind_code(self) -> None:
        """Use code that runs the module as it is now (module_code.current_code)."""
        held = self._held
        code = current_code(self.module, held, (region_kind,))
        if code is not held:
            self._held = code
            self.funcs = code.funcs
            if self.observer is None:
                self._code, self._entries, self._kinds = code.code, code.entries, code.kinds
            else:  # its observer is compiled into its code: its own blocks
                self._code, self._entries, self._kinds = {}, {}, {}

    # ----------------------------------------------------------------------- functions
    def call(self, name: str, args: Sequence[Any]) -> list[Any]:
        if self.call_depth == 0:
            self._bind_code()
        func = self.funcs.get(name)
        if func is None:
            raise InterpreterError(
                f"no function @{name} in the module (have: {', '.join('@' + f for f in self.funcs)})"
            )
        return self._run_func(func, args)

    def run_func(self, func: FuncOp, args: Sequence[Any]) -> list[Any]:
        if self.call_depth == 0:
            self._bind_code()
        return self._run_func(func, args)

    def _run_func(self, func: FuncOp, args: Sequence[Any]) -> list[Any]:
        entry = self._entries.get(func)
        if entry is None:
            entry = self._entry(func)
        fn, arity, name = entry
        if len(args) != arity:
            raise InterpreterError(f"@{name} takes {arity} arguments, {len(args)} were given")
        saved = self.current_function
        self.current_function = name
        depth = self.call_depth = self.call_depth + 1
        try:
            if depth > MAX_CALL_DEPTH:
                raise InterpreterError(
                    f"calls nested more than {MAX_CALL_DEPTH} deep (at @{name}): "
                    "the program recurses without end, or deeper than the interpreter supports"
                )
            if depth == 1:
                # numpy's floating-point warnings are off for the whole program (the semantics
                # define every result; the prepared steps skip their own np.errstate)
                with np.errstate(all="ignore"):
                    return run_located(fn, self, *args)
            return run_located(fn, self, *args)
        finally:
            self.call_depth -= 1
            self.current_function = saved

    def _entry(self, func: FuncOp) -> tuple[Any, int, str]:
        """The function compiled, its arity and name (once per module code)."""
        name = func.sym_name.data
        block = func.body.blocks.first
        if block is None:
            raise InterpreterError(f"function @{name} has no body (external functions cannot run)")
        entry = self._entries[func] = (self._compiled(block, "@" + name), len(block.args), name)
        return entry

    # ------------------------------------------------------------------------- regions
    def run_region(self, region: Region, args: Sequence[Any], env: Any) -> list[Any]:
        """Run `region` on `args`.  `env` is what an impl received: in compiled code, the closures
        of its op's regions (which see the values of the enclosing blocks); any other region runs
        on its own, compiled once."""
        if type(env) is RegionClosures:
            fn = env.get(region)
            if fn is not None:
                return fn(*args)
        if self.call_depth == 0:
            self._bind_code()
        block = region.blocks.first
        if block is None:
            raise InterpreterError("cannot run an empty region")
        return run_located(self._compiled(block, "region"), self, *args)

    def _compiled(self, block: Block, name: str) -> Any:
        """`block` compiled (once per module code) into `f(evaluator, *block_args) -> results`."""
        fn = self._code.get(block)
        if fn is None:
            fn = self._code[block] = compile_block(block, name, self.observer)
        return fn

    def region_body(self, region: Region, env: Any) -> RegionBody:
        """The region as a vectorized body (with its `kind` when it is a single known binary op)."""

        def fn(*arrays: Any) -> tuple[Any, ...]:
            return tuple(self.run_region(region, arrays, env))

        kind = self._kinds.get(region, _UNKNOWN)
        if kind is _UNKNOWN:
            kind = self._kinds[region] = region_kind(region)
        return make_body(fn, kind=kind)

    # -------------------------------------------------------------------------- checks
    def fail(self, op: Operation, message: str) -> None:
        self.failures.append(
            CheckFailure(self.current_function, op.name, _loc(op) or "<unknown>", message)
        )


_UNKNOWN = object()
MAX_CALL_DEPTH = 64  # nested func.call levels (each recurses through the evaluator)


def region_kind(region: Region) -> str | None:
    """'add'/'max'/... when the region is `return op(arg0, arg1)` for a known commutative op."""
    block = region.blocks.first
    if block is None or len(block.args) != 2:
        return None
    if any(
        isinstance(getattr(a.type, "element_type", None), UniformQuantizedType) for a in block.args
    ):
        return None  # a quantized op dequantizes and requantizes each step: no numpy ufunc
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


__all__ = [
    "IMPL_WRAPPERS",
    "RETURN_OPS",
    "TOKEN",
    "CheckFailure",
    "Evaluator",
    "ProcessContext",
    "Token",
    "np",
    "region_kind",
]
