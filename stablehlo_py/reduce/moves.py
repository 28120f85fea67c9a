"""The reducer's moves: candidate edits of a program, each made on a clone (:class:`~.edit.Edit`).

A move is a :class:`~.move.Move`: ``atoms(program, context)`` lists what it can act on in the
current program, ``apply(program, atoms, context)`` returns a new :class:`~.program.Program` with
the edit made on those atoms (or raises :class:`~.edit.NotApplicable`), and ``search`` says how the
search (:mod:`.ddmin`) picks atoms: ``"ddmin"`` (chunks of atoms at once, halving), ``"each"`` (one
atom at a time, atoms being alternatives) or ``"bisect"`` (the first atom, in order, that keeps the
program interesting, found by bisection). Every candidate is cleaned up (dead ops, unused arguments
and private functions) before it is verified and tested.

Atoms are op indices in walk order (:func:`~.program.walk_ops`), which the clone shares, or names.
:data:`MOVES` lists them cheapest and largest first, as the search runs them:

1. ``dead-code``: the cleanup alone; ``drop-results``: results the test does not need;
2. ``focus``: the ops the test names (a divergence's first diverging op) returned and cut loose;
   ``return-earlier``: the entry function ends after an earlier op (returning what later ops
   used); ``return-operands``: a result replaced by the operands of the op computing it;
   ``cut``: an op's operands replaced by stand-ins (:meth:`~.edit.Edit.stand_in`: the value the
   interpreter computed, as a constant of at most 64 elements or a new argument fed with it);
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

Moves 2 and 3 are in :mod:`.cutting`, 4 to 6 in :mod:`.structure`, the others here.
``strip-locations`` is not among them (a reduced program keeps the name stacks that say where its
ops came from); :data:`ALL_MOVES` has it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import UNKNOWN_LOC, DenseIntOrFPElementsAttr
from xdsl.ir import Operation
from xdsl.irdl import OptPropertyDef

from stablehlo_py.ir.text.dense import dense_values, is_splat, make_dense
from stablehlo_py.reduce import cutting, structure
from stablehlo_py.reduce.edit import Edit
from stablehlo_py.reduce.move import Atom, Context, Move, done
from stablehlo_py.reduce.program import Program

__all__ = ["ALL_MOVES", "MOVES", "Context", "Move", "dead_code", "move_named"]


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
    return done(edit, ctx)


# ---------------------------------------------------------------------- 7. attributes, constants
_KEEP_PROPERTIES = frozenset({"sym_visibility", "sym_name", "is_stable"})
"""Never dropped: a function's name and visibility, and a sort's ``is_stable`` (without it equal
keys may come out in any order, so a program showing a backend's unstable stable sort would no
longer show a bug)."""


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
    return done(edit, ctx)


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
    return done(edit, ctx)


def location_atoms(program: Program, ctx: Context) -> list[Atom]:
    return ["all"] if any(op.location != UNKNOWN_LOC for op in program.ops) else []


def strip_locations(program: Program, atoms: Sequence[Atom], ctx: Context) -> Program:
    """Every op's location unknown (and the entry function's arguments')."""
    edit = Edit(program)
    for op in (edit.module, *edit.ops):
        op.location = UNKNOWN_LOC
    return done(edit, ctx)


def _move(name: str, search: str, atoms: Callable, apply: Callable) -> Move:
    return Move(name, search, atoms, apply, (apply.__doc__ or "").strip())


MOVES: tuple[Move, ...] = (
    _move("dead-code", "each", lambda p, c: ["cleanup"], dead_code),
    _move("drop-results", "ddmin", result_atoms, drop_results),
    _move("focus", "each", cutting.focus_atoms, cutting.focus),
    _move("return-earlier", "bisect", cutting.earlier_atoms, cutting.return_earlier),
    _move("return-operands", "each", cutting.operand_result_atoms, cutting.return_operands),
    _move("cut", "ddmin", cutting.cut_atoms, cutting.cut),
    _move("replace-ops", "ddmin", cutting.replace_atoms, cutting.replace_ops),
    _move("bypass", "ddmin", cutting.bypass_atoms, cutting.bypass),
    _move("inline", "each", structure.inline_atoms, structure.inline),
    _move("drop-functions", "ddmin", structure.function_atoms, structure.drop_functions),
    _move("flatten-regions", "each", structure.region_atoms, structure.flatten_regions),
    _move("simplify", "each", structure.simplify_atoms, structure.simplify),
    _move("shrink-shapes", "each", structure.shape_atoms, structure.shrink_shapes),
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
