"""Moves on the program's structure (moves 4 to 6 of :mod:`.moves`): ``inline``,
``drop-functions``, ``flatten-regions``, ``simplify``, ``shrink-shapes``."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.dialects.func import CallOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import Rewriter
from xdsl.traits import IsTerminator

from stablehlo_py.passes.drivers.pipeline import run_pipeline
from stablehlo_py.reduce.edit import Edit, NotApplicable, symbol_uses
from stablehlo_py.reduce.move import Atom, Context, done
from stablehlo_py.reduce.program import Program, functions
from stablehlo_py.reduce.shrink import shrink_arguments

# ------------------------------------------------------------------ 4. calls, functions, regions
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
    return done(edit, ctx)


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
    return done(edit, ctx)


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
        body = op.regions[1].blocks.first
        results = _inline_block(body, op, list(op.operands))
    else:
        results = _inline_block(op.regions[choice].blocks.first, op, [])
    if [v.type for v in results] != [r.type for r in op.results]:
        raise NotApplicable("the region's values have other types than the op's results")
    for r, v in zip(op.results, results):
        r.replace_all_uses_with(v)
    Rewriter.erase_op(op)
    return done(edit, ctx)


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
    which = [b for b, t in enumerate(types) if t == types[a]] if together else [a]
    shrink_arguments(edit, which, d)
    return done(edit, ctx)
