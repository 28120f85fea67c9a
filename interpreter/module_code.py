"""The code compiled for a module, shared by its evaluators while the module is unchanged.

`run(module, ...)` makes a new `Evaluator` per call; what it compiles (each function's and region's
code, `compiled_plan.py`; the function table; the region kinds) does not depend on the call's
arguments or on the evaluator's per-run state (failures, probes, output, process context, custom
call targets: the compiled code reads them from the evaluator it is given), so evaluators of the
same module share one `ModuleCode`, kept on the module (side data `INTERP_CODE`).

It is used only while it is still valid, which an evaluator checks when a top-level call starts
(`current_code`):
- the module is unchanged since the code was compiled (`xdsl_compat.snapshot.Snapshot`: every op,
  block, region and value of the module holds what it held: an attribute replaced, an op inserted,
  erased or moved, an operand replaced, a type changed, a region body edited, a function added,
  removed or renamed all fail it);
- the interpreter's registries are as they were (`IMPLS`, the `IMPL_WRAPPERS` hooks, and what
  the evaluator adds to the key: its region-kind rule);
- the context was not cleared since (`fresh_context()` empties every cache of the process; a code
  made before does not answer after it).
Otherwise a new `ModuleCode` replaces it (compiled again as calls need it; steps of unchanged ops
are still found on the ops and in `shared_steps`).

A traced evaluator compiles its observer into its code, so its compiled blocks are its own; it checks
the module against the same `ModuleCode` (its snapshot is taken once per module state) and drops
its blocks when that changes.
"""

from __future__ import annotations

from typing import Any

from stablehlo_py.interpreter import compiled
from stablehlo_py.interpreter.registry import IMPLS
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from stablehlo_py.ir import no_gc
from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.side_data import INTERP_CODE, attach, attached
from stablehlo_py.ir.xdsl_compat.snapshot import Snapshot

__all__ = ["ModuleCode", "current_code", "functions"]

# One object per context lifetime: `fresh_context()` empties the table, and code kept on a module
# before answers no more.
_EPOCH = CONTEXT.table("interpreter.module_code_epoch", 1)


def _epoch() -> object:
    e = _EPOCH.get(0)
    if e is None:
        e = _EPOCH.put(0, object())
    return e


class ModuleCode:
    """What the evaluators of one unchanged module share (see the module doc): `code` (block ->
    compiled function), `entries` (function -> (code, arity, name)), `kinds` (region -> kind),
    `funcs` (name -> function)."""

    __slots__ = ("code", "entries", "epoch", "funcs", "impls", "kinds", "key", "snapshot")

    def __init__(self, module: Operation, key: tuple[Any, ...]) -> None:
        with no_gc():  # (what it records is alive: a collection now would free nothing)
            self.snapshot = Snapshot(module)
        self.epoch = _epoch()
        self.impls = dict(IMPLS)
        self.key = key
        self.code: dict[Any, Any] = {}
        self.entries: dict[Any, Any] = {}
        self.kinds: dict[Any, Any] = {}
        self.funcs = functions(module)

    def valid(self, key: tuple[Any, ...]) -> bool:
        """Whether this code still runs the module as it is (see the module doc)."""
        return (
            self.epoch is _EPOCH.get(0)
            and self.key == key
            and self.impls == IMPLS
            and self.snapshot.unchanged()
        )


def functions(module: Operation) -> dict[str, FuncOp]:
    """The module's functions by name."""
    funcs: dict[str, FuncOp] = {}
    if isinstance(module, ModuleOp):
        for op in module.body.ops:
            if isinstance(op, FuncOp):
                funcs[op.sym_name.data] = op
    return funcs


def current_code(module: Operation, held: ModuleCode | None, key: tuple[Any, ...]) -> ModuleCode:
    """The code an evaluator runs `module` with: `held` (what it used last) if still valid, else the
    module's kept code if valid, else new code (kept on the module).  `key`: the evaluator's part
    of what the code depends on."""
    key = (*key, *compiled.IMPL_WRAPPERS)
    if held is not None and held.valid(key):
        return held
    kept = attached(module, INTERP_CODE)
    if kept is not None and kept is not held and kept.valid(key):  # type: ignore[attr-defined]
        return kept  # type: ignore[return-value]
    code = ModuleCode(module, key)
    attach(module, INTERP_CODE, code)
    return code
