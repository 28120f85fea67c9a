"""Moves that cut the program around what the failure needs (moves 2 and 3 of :mod:`.moves`):
``focus``, ``return-earlier``, ``return-operands``, ``cut``, ``replace-ops``, ``bypass``."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.reduce.edit import Edit, is_terminator
from stablehlo_py.reduce.move import Atom, Context, done, entry_block, is_constant
from stablehlo_py.reduce.program import Program

def _stand_ins(edit: Edit, ctx: Context) -> Callable[[SSAValue], SSAValue]:
    """A stand-in per (producing op, result), made once."""
    recorded = ctx.recorded(edit.program)
    index = {op: i for i, op in enumerate(edit.ops)}
    made: dict[SSAValue, SSAValue] = {}

    def get(v: SSAValue) -> SSAValue:
        s = made.get(v)
        if s is None:
            owner = index[v.owner]  # type: ignore[index]
            s = made[v] = edit.stand_in(owner, v.index, recorded)  # type: ignore[attr-defined]
        return s

    return get


def _cut_operands(edit: Edit, op: Operation, stand_in: Callable[[SSAValue], SSAValue]) -> bool:
    """Replace each operand of ``op`` made by a non-constant op of the entry function's body by
    its stand-in; whether there was one."""
    block = edit.entry.body.block
    new = []
    cut = False
    for v in op.operands:
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent is block and not is_constant(owner):
            new.append(stand_in(v))
            cut = True
        else:
            new.append(v)
    if cut:
        op.operands = new
    return cut


def focus_atoms(program: Program, ctx: Context) -> list[Atom]:
    wanted = set(ctx.focus(program))
    if not wanted:
        return []
    block = entry_block(program)
    keys = op_keys(program.module)
    return [
        i for i, op in enumerate(program.ops)
        if op.parent is block and keys.get(op) in wanted and op.results
    ]


def focus(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The entry function returns the results of op ``atoms[0]``, whose operands are cut."""
    edit = Edit(program)
    op = edit.ops[atoms[0]]  # type: ignore[index]
    edit.set_results(list(op.results))
    _cut_operands(edit, op, _stand_ins(edit, ctx))
    return done(edit, ctx)


def earlier_atoms(program: Program, ctx: Context) -> list[Atom]:
    block = entry_block(program)
    return [
        i for i, op in enumerate(program.ops)
        if op.parent is block and op.results and not is_constant(op) and not is_terminator(op)
    ]


def return_earlier(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The entry function ends after op ``atoms[0]``: it returns that op's results and every value
    computed up to it that a later op uses (so everything up to it stays, and everything after it
    dies: whether the failure survives is monotonic in the op chosen, which the bisection needs);
    ``drop-results`` then drops the results the failure does not need."""
    edit = Edit(program)
    block = edit.entry.body.block
    last = edit.ops[atoms[0]]  # type: ignore[index]
    order = {op: n for n, op in enumerate(block.ops)}
    end = order[last]

    def position(user: Operation) -> int:
        while user.parent is not block:
            parent = user.parent_op()
            assert parent is not None
            user = parent
        return order[user]

    frontier = [
        r for op in block.ops if order[op] <= end
        for r in op.results
        if op is last or any(position(u.operation) > end for u in r.uses)
    ]
    edit.set_results(frontier)
    return done(edit, ctx)


def operand_result_atoms(program: Program, ctx: Context) -> list[Atom]:
    ret = program.entry_function().get_return_op()
    block = entry_block(program)
    return [
        i for i, v in enumerate(ret.operands if ret is not None else ())
        if isinstance(v.owner, Operation) and v.owner.parent is block and v.owner.operands
    ]


def return_operands(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Result ``atoms[0]`` of the entry function replaced by the operands of the op computing it
    (walking up from a result towards what the failure needs, after ``return-earlier`` landed
    past it)."""
    edit = Edit(program)
    ret = edit.entry.get_return_op()
    assert ret is not None
    i = atoms[0]
    values = list(ret.operands)
    owner = values[i].owner  # type: ignore[index]
    assert isinstance(owner, Operation)
    edit.set_results([*values[:i], *owner.operands, *values[i + 1 :]])  # type: ignore[index, misc]
    return done(edit, ctx)


def cut_atoms(program: Program, ctx: Context) -> list[Atom]:
    block = entry_block(program)
    out = []
    for i, op in enumerate(program.ops):
        if op.parent is not block or is_terminator(op):
            continue
        if any(
            isinstance(v.owner, Operation) and v.owner.parent is block and not is_constant(v.owner)
            for v in op.operands
        ):
            out.append(i)
    return out


def cut(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Each op of ``atoms`` takes stand-ins for its operands (what computed them may die)."""
    edit = Edit(program)
    get = _stand_ins(edit, ctx)
    for i in atoms:
        _cut_operands(edit, edit.ops[i], get)  # type: ignore[index]
    return done(edit, ctx)


# ---------------------------------------------------------------------- 3. replace ops
def replace_atoms(program: Program, ctx: Context) -> list[Atom]:
    return [
        i for i, op in enumerate(program.ops)
        if not isinstance(op, (FuncOp, ModuleOp)) and not is_terminator(op)
        and not is_constant(op)
    ]


def replace_ops(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The ops ``atoms`` are deleted; each use of their results takes a stand-in."""
    edit = Edit(program)
    chosen = {edit.ops[i] for i in atoms}  # type: ignore[index]
    recorded = ctx.recorded(program)
    for i in sorted(atoms):  # type: ignore[type-var]
        op = edit.ops[i]  # type: ignore[index]
        if _ancestor_in(op, chosen):
            continue
        for k, r in enumerate(op.results):
            if r.first_use is not None:
                r.replace_all_uses_with(edit.stand_in(i, k, recorded))  # type: ignore[arg-type]
        Rewriter.erase_op(op)
    return done(edit, ctx)


def _ancestor_in(op: Operation, ops: set[Operation]) -> bool:
    p = op.parent_op()
    while p is not None:
        if p in ops:
            return True
        p = p.parent_op()
    return False


def _bypass_operand(op: Operation, result: SSAValue) -> SSAValue | None:
    return next((v for v in op.operands if v.type == result.type), None)


def bypass_atoms(program: Program, ctx: Context) -> list[Atom]:
    return [
        i for i, op in enumerate(program.ops)
        if not isinstance(op, (FuncOp, ModuleOp)) and not is_terminator(op) and op.results
        and all(_bypass_operand(op, r) is not None for r in op.results)
    ]


def bypass(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The ops ``atoms`` are deleted; each of their results is replaced by their first operand of
    its type (what lies between two ops the failure needs goes, the two stay connected)."""
    edit = Edit(program)
    for i in sorted(atoms):  # type: ignore[type-var]
        op = edit.ops[i]  # type: ignore[index]
        for r in op.results:
            v = _bypass_operand(op, r)
            assert v is not None
            r.replace_all_uses_with(v)
        Rewriter.erase_op(op)
    return done(edit, ctx)
