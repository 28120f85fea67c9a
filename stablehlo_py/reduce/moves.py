"""The reducer's moves: candidate edits of a program, each made on a clone (:class:`~.edit.Edit`).

A move is a :class:`Move`: ``atoms(program, context)`` lists what it can act on in the current
program, ``apply(program, atoms, context)`` returns a new :class:`~.program.Program` with the edit
made on those atoms (or raises :class:`~.edit.NotApplicable`), and ``search`` says how the search
(:mod:`.ddmin`) picks atoms: ``"ddmin"`` (chunks of atoms at once, halving), ``"each"`` (one atom at
a time, atoms being alternatives) or ``"bisect"`` (the first atom, in order, that keeps the program
interesting, found by bisection).  Every candidate is cleaned up (dead ops, unused arguments and
private functions) before it is verified and tested.

Atoms are op indices in walk order (:func:`~.program.walk_ops`), which the clone shares, or names.
:data:`MOVES` lists them cheapest and largest first, as the search runs them:

1. ``dead-code``: the cleanup alone; ``drop-results``: results the test does not need;
2. ``focus``: the ops the test names (a divergence's first diverging op) returned and cut loose;
   ``return-earlier``: the entry function ends after an earlier op (returning what later ops
   used); ``return-operands``:
   a result replaced by the operands of the op computing it; ``cut``: an op's operands replaced
   by stand-ins (:meth:`~.edit.Edit.stand_in`: the value the interpreter
   computed, as a constant of at most 64 elements or a new argument fed with it);
3. ``replace-ops``: ops deleted, their uses given stand-ins; ``bypass``: ops deleted, their uses
   given an operand of the same type;
4. ``inline``, ``drop-functions``, ``flatten-regions`` (while/case/if replaced by one region's
   body, or a while by its operands);
5. ``simplify``: stablehlo-aggressive-simplification and canonicalize (with the folder first, or
   the simplification alone);
6. ``shrink-shapes``: arguments (those of one type together, or one alone) halved along one
   dimension, types re-inferred downstream;
7. ``drop-attributes`` (discardable attributes such as ``mhlo.*``, optional properties such as
   ``precision_config``), ``splat-constants``.

``strip-locations`` is not among them (a reduced program keeps the name stacks that say where its
ops came from); :data:`ALL_MOVES` has it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import UNKNOWN_LOC, DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.dialects.func import CallOp, FuncOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.irdl import OptPropertyDef
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator

from stablehlo_py.ir.text.dense import dense_values, is_splat, make_dense
from stablehlo_py.ir.text.name_stack import op_keys
from stablehlo_py.passes.drivers.pipeline import run_pipeline
from stablehlo_py.reduce.edit import Edit, NotApplicable, Recorded, is_terminator, symbol_uses
from stablehlo_py.reduce.program import Program, functions
from stablehlo_py.reduce.shrink import shrink_arguments

__all__ = ["ALL_MOVES", "MOVES", "Context", "Move", "move_named"]

Atom = Hashable


@dataclass
class Context:
    """What moves read beside the program."""

    recorded: Callable[[Program], Recorded | None] = lambda p: None
    """The values of a program's top-level ops (:func:`.values.record`, cached by the search)."""
    focus: Callable[[Program], Sequence[str]] = lambda p: ()
    """The op keys (:func:`~stablehlo_py.ir.text.name_stack.op_keys`) of a program's ops to try
    first (the test's ``focus``)."""
    cleanup: bool = True
    """Whether candidates are cleaned up (off when the cleanup alone loses the failure)."""


@dataclass(frozen=True)
class Move:
    name: str
    search: str  # "ddmin" | "each" | "bisect"
    atoms: Callable[[Program, Context], list[Atom]]
    apply: Callable[[Program, Sequence[Atom], Context], Program]
    doc: str = field(default="", compare=False)


def _done(edit: Edit, ctx: Context) -> Program:
    return edit.finish(cleanup=ctx.cleanup)


def _top(program: Program) -> Block:
    return program.entry_function().body.block


def _is_constant(op: Operation) -> bool:
    return op.name in ("stablehlo.constant", "chlo.constant", "arith.constant")


# ---------------------------------------------------------------------- 1. results, dead code
def dead_code(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The cleanup alone (dead ops, unused arguments, unused private functions)."""
    return Edit(program).finish(cleanup=True)


def result_atoms(program: Program, ctx: Context) -> list[Atom]:
    ret = program.entry_function().get_return_op()
    return list(range(len(ret.operands))) if ret is not None else []


def drop_results(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The entry function stops returning the results ``atoms`` (indices)."""
    edit = Edit(program)
    ret = edit.entry.get_return_op()
    assert ret is not None
    kept = [i for i in range(len(ret.operands)) if i not in set(atoms)]
    edit.set_results([ret.operands[i] for i in kept], kept)
    return _done(edit, ctx)


# ---------------------------------------------------------------------- 2. focus, earlier results, cuts
def _stand_ins(edit: Edit, ctx: Context) -> Callable[[SSAValue], SSAValue]:
    """A stand-in per (producing op, result), made once."""
    recorded = ctx.recorded(edit.program)
    index = {op: i for i, op in enumerate(edit.ops)}
    made: dict[SSAValue, SSAValue] = {}

    def get(v: SSAValue) -> SSAValue:
        s = made.get(v)
        if s is None:
            s = made[v] = edit.stand_in(index[v.owner], v.index, recorded)  # type: ignore[index, attr-defined]
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
        if isinstance(owner, Operation) and owner.parent is block and not _is_constant(owner):
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
    block = _top(program)
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
    return _done(edit, ctx)


def earlier_atoms(program: Program, ctx: Context) -> list[Atom]:
    block = _top(program)
    return [
        i for i, op in enumerate(program.ops)
        if op.parent is block and op.results and not _is_constant(op) and not is_terminator(op)
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
    return _done(edit, ctx)


def operand_result_atoms(program: Program, ctx: Context) -> list[Atom]:
    ret = program.entry_function().get_return_op()
    block = _top(program)
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
    return _done(edit, ctx)


def cut_atoms(program: Program, ctx: Context) -> list[Atom]:
    block = _top(program)
    out = []
    for i, op in enumerate(program.ops):
        if op.parent is not block or is_terminator(op):
            continue
        if any(
            isinstance(v.owner, Operation) and v.owner.parent is block and not _is_constant(v.owner)
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
    return _done(edit, ctx)


# ---------------------------------------------------------------------- 3. replace ops
def replace_atoms(program: Program, ctx: Context) -> list[Atom]:
    return [
        i for i, op in enumerate(program.ops)
        if not isinstance(op, (FuncOp, ModuleOp)) and not is_terminator(op)
        and not _is_constant(op)
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
    return _done(edit, ctx)


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
    return _done(edit, ctx)


# ---------------------------------------------------------------------- 4. calls, functions, regions
_INLINE = ("inline", "stablehlo-legalize-composite-to-call,inline")


def inline_atoms(program: Program, ctx: Context) -> list[Atom]:
    names = {op.name for op in program.ops}
    out: list[Atom] = []
    if CallOp.name in names:
        out.append(_INLINE[0])
    if "stablehlo.composite" in names:
        out.append(_INLINE[1])
    return out


def _pipeline(program: Program, pipeline: str, ctx: Context) -> Program:
    edit = Edit(program)
    try:
        module = run_pipeline(edit.module, pipeline)
    except Exception as e:  # a pass refusing this program (an op it does not model, ...)
        raise NotApplicable(f"{pipeline}: {e}") from None
    assert module is edit.module
    return _done(edit, ctx)


def inline(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Calls (and composites, through a call) replaced by the callee's body."""
    return _pipeline(program, str(atoms[0]), ctx)


def function_atoms(program: Program, ctx: Context) -> list[Atom]:
    used = symbol_uses(program.module)
    return [
        f.sym_name.data for f in functions(program.module)
        if f.sym_name.data != program.entry and f.sym_name.data not in used
    ]


def drop_functions(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Functions nothing refers to (public ones: the cleanup drops private ones) erased."""
    edit = Edit(program)
    for f in functions(edit.module):
        if f.sym_name.data in atoms:
            Rewriter.erase_op(f)
    return _done(edit, ctx)


_REGION_OPS = {"stablehlo.while": ("skip", "once"), "stablehlo.case": None, "stablehlo.if": (0, 1)}


def region_atoms(program: Program, ctx: Context) -> list[Atom]:
    out: list[Atom] = []
    for i, op in enumerate(program.ops):
        if op.name not in _REGION_OPS:
            continue
        choices = _REGION_OPS[op.name] or tuple(range(len(op.regions)))
        out.extend((i, c) for c in choices)
    return out


def flatten_regions(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """A while/case/if replaced by one region's body (a while's body once, or its operands: no
    iteration)."""
    edit = Edit(program)
    i, choice = atoms[0]  # type: ignore[misc]
    op = edit.ops[i]
    if choice == "skip":
        results: list[SSAValue] = list(op.operands)
    elif choice == "once":
        results = _inline_block(op.regions[1].blocks.first, op, list(op.operands))  # type: ignore[arg-type]
    else:
        results = _inline_block(op.regions[choice].blocks.first, op, [])  # type: ignore[arg-type]
    if [v.type for v in results] != [r.type for r in op.results]:
        raise NotApplicable("the region's values have other types than the op's results")
    for r, v in zip(op.results, results):
        r.replace_all_uses_with(v)
    Rewriter.erase_op(op)
    return _done(edit, ctx)


def _inline_block(block: Block | None, before: Operation, args: list[SSAValue]) -> list[SSAValue]:
    """Clones of ``block``'s ops placed before ``before`` (its arguments mapped to ``args``);
    the values its terminator gives."""
    if block is None or len(block.args) != len(args):
        raise NotApplicable("the region has no single block taking the op's operands")
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, args))
    parent = before.parent_block()
    assert parent is not None
    for op in block.ops:
        if op.has_trait(IsTerminator, value_if_unregistered=False):
            return [mapping.get(v, v) for v in op.operands]
        new = op.clone(value_mapper=mapping)
        parent.insert_op_before(new, before)
        mapping.update(zip(op.results, new.results))
    raise NotApplicable("the region has no terminator")


# ---------------------------------------------------------------------- 5. simplification
_SIMPLIFY = (
    "stablehlo-aggressive-simplification,canonicalize",
    "stablehlo-aggressive-folder,stablehlo-aggressive-simplification,canonicalize",
    "stablehlo-aggressive-simplification",
)


def simplify_atoms(program: Program, ctx: Context) -> list[Atom]:
    return list(_SIMPLIFY)


def simplify(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """One of the simplification pipelines run on the program."""
    return _pipeline(program, str(atoms[0]), ctx)


# ---------------------------------------------------------------------- 6. shapes
def shape_atoms(program: Program, ctx: Context) -> list[Atom]:
    types = list(program.entry_function().function_type.inputs.data)
    first: dict[object, int] = {}
    for a, t in enumerate(types):
        first.setdefault(t, a)

    def dims(t: object) -> list[int]:
        shape = t.get_shape() if isinstance(t, TensorType) else ()
        return [d for d, n in enumerate(shape) if n > 1]

    together = [(a, d, True) for a, t in enumerate(types) if first[t] == a for d in dims(t)]
    alone = [
        (a, d, False) for a, t in enumerate(types)
        if types.count(t) > 1 for d in dims(t)
    ]
    return [*together, *alone]


def shrink_shapes(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Arguments sliced to the first half of dimension ``d``: argument ``a`` alone, or with every
    argument of its type (``(a, d, together)``); the types downstream re-inferred
    (:func:`.shrink.shrink_arguments`)."""
    edit = Edit(program)
    a, d, together = atoms[0]  # type: ignore[misc]
    types = list(edit.entry.function_type.inputs.data)
    shrink_arguments(edit, [b for b, t in enumerate(types) if t == types[a]] if together else [a], d)
    return _done(edit, ctx)


# ---------------------------------------------------------------------- 7. attributes, constants
_KEEP_PROPERTIES = frozenset({"sym_visibility", "sym_name"})


def _optional_properties(op: Operation) -> list[str]:
    try:
        props = type(op).get_irdl_definition().properties
    except Exception:
        return []
    return [
        n for n, d in props.items()
        if isinstance(d, OptPropertyDef) and n in op.properties and n not in _KEEP_PROPERTIES
    ]


def attribute_atoms(program: Program, ctx: Context) -> list[Atom]:
    names: set[tuple[str, str]] = set()
    for op in (program.module, *program.ops):
        names.update(("attr", n) for n in op.attributes)
        names.update(("prop", n) for n in _optional_properties(op))
    return sorted(names)


def drop_attributes(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """The discardable attributes (``("attr", name)``) and optional properties (``("prop",
    name)``) of ``atoms`` removed from every op (the module's too)."""
    edit = Edit(program)
    attrs = {n for kind, n in atoms if kind == "attr"}  # type: ignore[misc]
    props = {n for kind, n in atoms if kind == "prop"}  # type: ignore[misc]
    for op in (edit.module, *edit.ops):
        for n in attrs & op.attributes.keys():
            del op.attributes[n]
        for n in props & set(_optional_properties(op)):
            del op.properties[n]
    return _done(edit, ctx)


def constant_atoms(program: Program, ctx: Context) -> list[Atom]:
    out: list[Atom] = []
    for i, op in enumerate(program.ops):
        v = op.properties.get("value") if op.name == "stablehlo.constant" else None
        if isinstance(v, DenseIntOrFPElementsAttr) and not is_splat(v) and _elements(v) > 1:
            out.append(i)
    return out


def _elements(v: DenseIntOrFPElementsAttr) -> int:
    return int(np.prod(v.type.get_shape(), dtype=np.int64))


def splat_constants(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Each constant of ``atoms`` holds its first element everywhere."""
    edit = Edit(program)
    for i in atoms:
        op = edit.ops[i]  # type: ignore[index]
        v = op.properties["value"]
        first = np.asarray(dense_values(v)).reshape(-1)[:1]
        op.properties["value"] = make_dense(v.type, np.broadcast_to(first, v.type.get_shape()))
    return _done(edit, ctx)


def location_atoms(program: Program, ctx: Context) -> list[Atom]:
    return ["all"] if any(op.location != UNKNOWN_LOC for op in program.ops) else []


def strip_locations(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Every op's location unknown (and the entry function's arguments')."""
    edit = Edit(program)
    for op in (edit.module, *edit.ops):
        op.location = UNKNOWN_LOC
    return _done(edit, ctx)


def _move(name: str, search: str, atoms: Callable, apply: Callable) -> Move:
    return Move(name, search, atoms, apply, (apply.__doc__ or "").strip())


MOVES: tuple[Move, ...] = (
    _move("dead-code", "each", lambda p, c: ["cleanup"], dead_code),
    _move("drop-results", "ddmin", result_atoms, drop_results),
    _move("focus", "each", focus_atoms, focus),
    _move("return-earlier", "bisect", earlier_atoms, return_earlier),
    _move("return-operands", "each", operand_result_atoms, return_operands),
    _move("cut", "ddmin", cut_atoms, cut),
    _move("replace-ops", "ddmin", replace_atoms, replace_ops),
    _move("bypass", "ddmin", bypass_atoms, bypass),
    _move("inline", "each", inline_atoms, inline),
    _move("drop-functions", "ddmin", function_atoms, drop_functions),
    _move("flatten-regions", "each", region_atoms, flatten_regions),
    _move("simplify", "each", simplify_atoms, simplify),
    _move("shrink-shapes", "each", shape_atoms, shrink_shapes),
    _move("drop-attributes", "ddmin", attribute_atoms, drop_attributes),
    _move("splat-constants", "ddmin", constant_atoms, splat_constants),
)
"""The moves the search runs, in order."""

ALL_MOVES: tuple[Move, ...] = (
    *MOVES, _move("strip-locations", "each", location_atoms, strip_locations),
)


def move_named(name: str) -> Move:
    for m in ALL_MOVES:
        if m.name == name:
            return m
    raise KeyError(f"no move '{name}'; moves: {', '.join(m.name for m in ALL_MOVES)}")
