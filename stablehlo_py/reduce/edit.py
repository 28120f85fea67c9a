"""Editing a clone of a program: what the moves are made of.

An :class:`Edit` clones a :class:`~.program.Program`'s module (the program itself is never
changed), names the clone's ops by their index in walk order (the program's own ops have the same
indices, which is how a move's atoms point into the clone) and offers the edits the moves share:
new arguments of the entry function fed with given inputs, constants, a value's stand-in
(:meth:`Edit.stand_in`: a constant, or an argument fed with the value the interpreter computed),
new results, and :meth:`Edit.cleanup` (dead ops, unused arguments of the entry function with their
inputs, unused private functions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    SymbolRefAttr,
    TensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator

from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.text.dense import make_dense
from stablehlo_py.ir.types import TokenType, storage_dtype
from stablehlo_py.passes.drivers.greedy import is_trivially_dead, own_effects
from stablehlo_py.reduce.program import Program, entry_function, functions, walk_ops

__all__ = ["SMALL_CONSTANT", "Edit", "NotApplicable", "Recorded", "is_terminator", "symbol_uses"]

SMALL_CONSTANT = 64
"""A stand-in with at most this many elements is a constant holding the recorded value (so small
reproducers need no inputs file); a larger one is a new argument fed with it."""

Recorded = Mapping[int, Sequence[np.ndarray]]
"""op index (walk order) -> the values of its results on the program's inputs (ops at the top
level of the entry function only)."""


class NotApplicable(Exception):
    """The move cannot make this candidate (a value without a stand-in, a type not inferable):
    counted, never tested."""


class Edit:
    """A clone of ``program``'s module being edited, and the entry function's inputs."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.module: ModuleOp = program.module.clone()
        self.ops = walk_ops(self.module)
        self.entry = entry_function(self.module, program.entry)
        self.inputs = list(program.inputs)

    # ------------------------------------------------------------------ arguments and results
    def add_argument(self, type_: Attribute, value: object) -> BlockArgument:
        """A new last argument of the entry function, fed with ``value``."""
        block = self.entry.body.block
        arg = block.insert_arg(type_, len(block.args))
        self.inputs.append(value)  # type: ignore[arg-type]
        attrs = self.entry.arg_attrs
        if attrs is not None:
            self.entry.arg_attrs = ArrayAttr([*attrs.data, DictionaryAttr({})])
        self.entry.update_function_type()
        return arg

    def remove_arguments(self, indices: Iterable[int]) -> None:
        """Drop unused arguments of the entry function, with their inputs."""
        block = self.entry.body.block
        attrs = self.entry.arg_attrs
        keep_attrs = list(attrs.data) if attrs is not None else None
        for i in sorted(set(indices), reverse=True):
            block.erase_arg(block.args[i])
            del self.inputs[i]
            if keep_attrs is not None:
                del keep_attrs[i]
        if keep_attrs is not None:
            self.entry.arg_attrs = ArrayAttr(keep_attrs)
        self.entry.update_function_type()

    def set_results(self, values: Sequence[SSAValue], kept: Sequence[int] | None = None) -> None:
        """The entry function returns ``values``; ``kept``: which old results they are (their
        result attributes stay), else the result attributes are dropped."""
        ret = self.entry.get_return_op()
        if ret is None:
            raise NotApplicable("the entry function has no func.return")
        ret.operands = list(values)
        res = self.entry.res_attrs
        if res is not None:
            if kept is None:
                del self.entry.properties["res_attrs"]
            else:
                self.entry.res_attrs = ArrayAttr([res.data[i] for i in kept])
        self.entry.update_function_type()

    # ------------------------------------------------------------------ constants and stand-ins
    def constant(self, type_: Attribute, value: np.ndarray | None, before: Operation) -> SSAValue:
        """A ``stablehlo.constant`` of ``type_`` holding ``value`` (zeros when None), placed
        before ``before``; ``!stablehlo.token`` is ``stablehlo.after_all()``."""
        ops = default_registry().ops
        if isinstance(type_, TokenType):
            op = ops["stablehlo.after_all"].create(result_types=[type_])
        else:
            if not isinstance(type_, TensorType) or any(d < 0 for d in type_.get_shape()):
                raise NotApplicable(f"no constant of type {type_}")
            try:
                dt = storage_dtype(type_.element_type)
            except Exception:
                raise NotApplicable(f"no constant of type {type_}") from None
            shape = tuple(type_.get_shape())
            arr = np.zeros(shape, dt) if value is None else np.asarray(value).astype(dt)
            op = ops["stablehlo.constant"].create(
                result_types=[type_], properties={"value": make_dense(type_, arr)}
            )
        _insert_before(op, before)
        return op.results[0]

    def stand_in(self, index: int, result: int, recorded: Recorded | None) -> SSAValue:
        """What replaces result ``result`` of op ``index``: its recorded value as a constant (at
        most SMALL_CONSTANT elements) or as a new argument; without a recorded value, zeros (a
        token: after_all).  Placed before the op, so it dominates every use of the value."""
        op = self.ops[index]
        value = op.results[result]
        rec = recorded.get(index) if recorded is not None else None
        if rec is not None and isinstance(value.type, TensorType):
            arr = rec[result]
            if arr.size <= SMALL_CONSTANT:
                try:
                    return self.constant(value.type, arr, op)
                except NotApplicable:
                    pass
            return self.add_argument(value.type, arr)
        return self.constant(value.type, None, op)

    # ------------------------------------------------------------------ removal
    def cleanup(self) -> None:
        """Erase dead ops (MLIR's trivially dead: no uses, no effects), the entry function's
        unused arguments (and their inputs) and unused private functions."""
        changed = True
        while changed:
            changed = False
            pure = _PureCalls(self.module)
            for op in reversed(walk_ops(self.module)):
                if isinstance(op, (FuncOp, ModuleOp)) or op.parent is None:
                    continue
                if is_trivially_dead(op) or pure.dead_call(op):
                    Rewriter.erase_op(op)
                    changed = True
            changed |= self._drop_unused_functions()
        unused = [i for i, a in enumerate(self.entry.body.block.args) if a.first_use is None]
        if unused:
            self.remove_arguments(unused)

    def _drop_unused_functions(self) -> bool:
        used = symbol_uses(self.module)
        dropped = False
        for f in functions(self.module):
            vis = f.sym_visibility.data if f.sym_visibility is not None else "public"
            if vis == "private" and f.sym_name.data not in used and f is not self.entry:
                Rewriter.erase_op(f)
                dropped = True
        return dropped

    def finish(self, cleanup: bool = True) -> Program:
        """The edited clone as a new Program (after :meth:`cleanup` unless told not to)."""
        if cleanup:
            self.cleanup()
        return Program(self.module, self.inputs, self.program.entry)


class _PureCalls:
    """Calls whose results are unused and whose callee has no effects (every op in it effect-free,
    calls included): dead to the reducer, though MLIR keeps them (func.call declares no effects)."""

    def __init__(self, module: ModuleOp) -> None:
        self.funcs = {f.sym_name.data: f for f in functions(module)}
        self.known: dict[str, bool] = {}

    def dead_call(self, op: Operation) -> bool:
        if not isinstance(op, CallOp) or any(r.first_use is not None for r in op.results):
            return False
        return self._pure(op.callee.root_reference.data)

    def _pure(self, name: str) -> bool:
        if name in self.known:
            return self.known[name]
        self.known[name] = False  # recursion: not known to be pure
        f = self.funcs.get(name)
        ok = f is not None and not f.is_declaration and all(
            self._op_pure(o) for o in f.body.walk()
        )
        self.known[name] = ok
        return ok

    def _op_pure(self, op: Operation) -> bool:
        if is_terminator(op):
            return True
        if isinstance(op, CallOp):
            return self._pure(op.callee.root_reference.data)
        if op.regions:  # its nested ops are checked by the walk
            return own_effects(op) is not True
        return own_effects(op) is False


def _insert_before(op: Operation, before: Operation) -> None:
    block = before.parent_block()
    assert block is not None
    block.insert_op_before(op, before)


def symbol_uses(module: ModuleOp) -> set[str]:
    """The root names of every symbol reference in the module's ops."""
    out: set[str] = set()

    def visit(a: Attribute) -> None:
        if isinstance(a, SymbolRefAttr):
            out.add(a.root_reference.data)
        elif isinstance(a, ArrayAttr):
            for x in a.data:
                visit(x)
        elif isinstance(a, DictionaryAttr):
            for x in a.data.values():
                visit(x)

    for op in module.walk():
        for a in (*op.properties.values(), *op.attributes.values()):
            visit(a)
    return out


def is_terminator(op: Operation) -> bool:
    return op.has_trait(IsTerminator, value_if_unregistered=False) or isinstance(op, ReturnOp)
