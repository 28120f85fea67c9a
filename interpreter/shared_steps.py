"""Steps shared by ops of equal content: a program's 1,000 `add`s of `tensor<2x4xf32>` prepare one.

A compiler (`registry.compiler`) makes an op's `Step` from what the op holds: its class, properties,
attributes, operand types and result types (`find`).  Two ops equal in all of these get equal
steps, so a step made once serves every op of that content, unless the step holds something of its
own op.  `shareable(step)` looks through what the step's function holds (closure cells, defaults,
`functools.partial` arguments, bound methods, containers, plain objects' fields) and refuses a step
that holds an IR object (an op, value, block or region: e.g. a step that reads its op's result type
when it runs, or names it in a message), or too much to look through (`_MAX_SEEN` objects).  Arrays
a step holds are its own business: a step never returns one it keeps (a loop body runs the same
step again while earlier results live), and a constant's value, which every op of that content
returns, is read-only (else not shared).

What is kept is keyed by the op's properties and attributes (by equality: xDSL's attributes compare
exactly, signed zeros and NaN payloads included), the identities of its class and value types
(interned: equal types are mostly one object; a miss on equal but distinct ones only prepares
again), and the op's impl and the `IMPL_WRAPPERS` hooks in force: replacing an impl or adding a hook
makes new keys.  Hooks decide from the op's content (its name, attributes and types), as the ones
of quantization.py and dynamic.py do.  Ops with regions are not shared (a compiler may read its
region bodies), nor failures to prepare (the error is raised at its own op), nor constants larger
than `_MAX_SHARED_CONSTANT` bytes (the table would keep them alive).

The table is the context's (`interpreter.shared_steps`): bounded, emptied by `fresh_context()`.
Regression test: tests/unit/interpreter/test_shared_steps.py.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np
from stablehlo_py.interpreter.registry import Step
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from stablehlo_py.ir.context import CONTEXT
from stablehlo_py.ir.xdsl_compat.fields import operands_of

__all__ = ["find", "keep", "shareable"]

_SHARED = CONTEXT.identity_map("interpreter.shared_steps", 1 << 16)
_get_seq = _SHARED.get_seq
_MAX_SEEN = 256
_MAX_SHARED_CONSTANT = 1 << 12
_IR = (Operation, SSAValue, Block, Region)
_type_of = attrgetter("_type")
_BY_IDENTITY = frozenset({"stablehlo.constant"})
_NOT_SHAREABLE = object()  # kept for a content whose step holds its op: not looked through again


def find(op: Operation, impl: Any, wrappers: Sequence[Any]) -> tuple[Step | None, Any]:
    """(the shared step of `op`'s content or None, what `keep` needs to share the step made).

    Looked up by the identities of the op's attribute objects first (an op compiled again finds
    its own step without hashing anything), then by their equality (xDSL hashes an attribute by
    walking its parameters: paid once per op object).  A constant's value only by identity
    (hashing its elements would cost more than decoding them)."""
    operands = operands_of(op)
    props, attrs = op.properties, op.attributes
    head = (impl, *wrappers, type(op), *map(_type_of, operands), *map(_type_of, op.results))
    values = (*props.values(), *attrs.values())
    names = (tuple(props), tuple(attrs), len(wrappers), len(operands))
    token = (head, values, names, op.name in _BY_IDENTITY)
    step = _get_seq((*head, *values), names)
    if step is None and values and not token[3]:
        step = _get_seq(head, (names, values))
        if step is not None:  # this op's objects find it at once next time
            _SHARED.put_seq((*head, *values), step, names)
    return (None if step is _NOT_SHAREABLE else step), token


def keep(token: Any, step: Step) -> None:
    """Share `step` among the ops of `find`'s content when it is shareable (else remember that it
    is not, except for a constant: its value would be kept alive for nothing)."""
    head, values, names, by_identity = token
    value: Any = step if shareable(step) else _NOT_SHAREABLE
    if value is _NOT_SHAREABLE and step.is_constant:
        return
    _SHARED.put_seq((*head, *values), value, names)
    if values and not by_identity:
        _SHARED.put_seq(head, value, (names, values))


def shareable(step: Step) -> bool:
    """Whether `step` holds nothing of its own op (see the module doc)."""
    if step.is_constant:
        v = step.value
        if isinstance(v, np.ndarray) and (v.flags.writeable or v.nbytes > _MAX_SHARED_CONSTANT):
            return False
        return _holds_nothing_of_its_op([v])
    return _holds_nothing_of_its_op([step.fn])


def _holds_nothing_of_its_op(roots: list[Any]) -> bool:
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        x = todo.pop()
        key = id(x)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > _MAX_SEEN:
            return False
        if isinstance(x, _IR):
            return False
        t = type(x)
        if t in _LEAVES or isinstance(x, _LEAF_KINDS):
            continue
        if t is types.FunctionType:
            todo += [c.cell_contents for c in x.__closure__ or () if _filled(c)]
            todo += x.__defaults__ or ()
            todo += (x.__kwdefaults__ or {}).values()
            continue
        if t is types.MethodType:
            todo += (x.__self__, x.__func__)
            continue
        if t is functools.partial:
            todo += (x.func, *x.args, *x.keywords.values())
            continue
        if t in (tuple, list, set, frozenset):
            todo += x
            continue
        if t is dict:
            todo += (*x.keys(), *x.values())
            continue
        if t is Step:
            todo += (x.fn, x.value)
            continue
        fields = getattr(x, "__dict__", None)
        if fields is None and not hasattr(t, "__slots__"):
            continue  # a builtin object (a ufunc, a C function): holds nothing of ours
        if fields is not None:
            todo += fields.values()
        for name in getattr(t, "__slots__", ()):
            todo.append(getattr(x, name, None))
    return True


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


_LEAVES = frozenset(
    {type(None), bool, int, float, complex, str, bytes, slice, type(Ellipsis),
     types.BuiltinFunctionType, types.ModuleType, np.ufunc, np.ndarray}
)
# Immutable values and code: xDSL's attributes and types (frozen), numpy scalars, dtypes, classes.
_LEAF_KINDS = (Attribute, np.generic, np.dtype, type)
