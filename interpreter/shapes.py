"""Dynamic shapes at run time: concrete values against (possibly dynamic) tensor types.

Values always carry concrete shapes.  A type's `?` dimension binds to whatever size the value has; a
static dimension must match exactly; a `#stablehlo.bounds<...>` bound caps the size; an unranked type
(`tensor<*xf32>`) accepts any shape.  `check_value` states these rules once; they serve the entry
function's arguments (`bind_arguments`), the results of every op that touches a dynamic type
(`check_results`, installed as an impl wrapper by `impls/dynamic.py`) and `resolve_shape`, which fills
a result type's `?` dimensions from sizes an impl derived from its operands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType, TupleType, UnrankedTensorType
from xdsl.ir import Attribute, Operation

from stablehlo_py.errors import InterpreterError
from stablehlo_py.ir.types import TypeExtensionsAttr

DYN = -1


def dims_and_bounds(t: Attribute) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(dimensions with -1 for `?`, bounds with -1 for none) of a ranked tensor type; None when the
    type is unranked or not a tensor."""
    if not isinstance(t, TensorType):
        return None
    dims = tuple(int(d) for d in t.get_shape())
    enc = t.encoding
    bounds = tuple(int(b) for b in enc.bounds) if isinstance(enc, TypeExtensionsAttr) else ()
    return dims, bounds or (DYN,) * len(dims)


def is_dynamic_type(t: Attribute) -> bool:
    """True for an unranked tensor type, a ranked one with a `?` dimension, or a tuple holding one."""
    if isinstance(t, UnrankedTensorType):
        return True
    if isinstance(t, TupleType):
        return any(is_dynamic_type(x) for x in t.types.data)
    if isinstance(t, TensorType):
        return any(int(d) < 0 for d in t.get_shape())
    return False


def check_value(t: Attribute, value: Any, what: str) -> None:
    """Raise InterpreterError unless `value`'s shape fits type `t` (`what` names the value, e.g.
    "argument 1 of @main")."""
    if isinstance(t, TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.types.data):
            raise InterpreterError(f"{what} should be a tuple of {len(t.types.data)} values ({t})")
        for k, (et, ev) in enumerate(zip(t.types.data, value)):
            check_value(et, ev, f"element {k} of {what}")
        return
    db = dims_and_bounds(t)
    if db is None:
        return
    dims, bounds = db
    shape = np.shape(value)
    if len(shape) != len(dims):
        raise InterpreterError(
            f"{what} has rank {len(shape)} (shape {list(shape)}) but its type {_type_str(t)} has "
            f"rank {len(dims)}"
        )
    for d, (size, want, bound) in enumerate(zip(shape, dims, bounds)):
        if want >= 0 and size != want:
            raise InterpreterError(
                f"{what}: dimension {d} is {size} but its type {_type_str(t)} says {want}"
            )
        if want < 0 and bound >= 0 and size > bound:
            raise InterpreterError(f"{what}: dimension {d} is {size} but its bound is {bound}")


def bind_arguments(func: Any, args: Sequence[Any], entry: str) -> list[Any]:
    """The arguments of `@entry` as interpreter values: numpy arrays of the parameter's element type
    whose shapes fit the parameter types (`?` dimensions take the argument's size)."""
    from stablehlo_py.semantics.ir_dtypes import dtype_of_type

    types = func.function_type.inputs.data
    if len(types) != len(args):
        hint = ""
        if types and _global_constant(func, 0) == "_platform_index":
            hint = (
                "; its first argument is JAX's `_platform_index` (a multi-platform export): pass the "
                "index of the platform to run as, in the order of the export's `platforms`, first"
            )
        note = None
        if _from_jax(func):
            note = (
                "for a program read from a JAX export, stablehlo_py.run_exported(artifact, *args) "
                "takes the exported function's arguments (all of them, as Exported.call does)"
            )
        raise InterpreterError(
            f"@{entry} takes {len(types)} arguments, {len(args)} were given{hint}", note=note
        )
    out = []
    for i, (t, a) in enumerate(zip(types, args)):
        what = f"argument {i} of @{entry}"
        if isinstance(t, TupleType) or not isinstance(t, (TensorType, UnrankedTensorType)):
            out.append(a)
            continue
        arr = np.asarray(a)
        check_value(t, arr, what)
        want = dtype_of_type(t)
        if arr.dtype != want:
            arr = arr.astype(want)
        out.append(arr)
    return out


def _from_jax(func: Any) -> bool:
    """Whether `func` looks lowered by JAX (`jax.*` argument or result attributes)."""
    from xdsl.dialects.builtin import DictionaryAttr

    for attrs in (getattr(func, "arg_attrs", None), getattr(func, "res_attrs", None)):
        for d in attrs.data if attrs is not None else ():
            if isinstance(d, DictionaryAttr) and any(k.startswith("jax.") for k in d.data):
                return True
    return False


def _global_constant(func: Any, i: int) -> str | None:
    """The `jax.global_constant` name of argument `i` of `func` (JAX's dimension and platform
    arguments), or None."""
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr

    arg_attrs = getattr(func, "arg_attrs", None)
    if arg_attrs is None or i >= len(arg_attrs.data):
        return None
    d = arg_attrs.data[i]
    a = d.data.get("jax.global_constant") if isinstance(d, DictionaryAttr) else None
    return a.data if isinstance(a, StringAttr) else None


def check_results(op: Operation, values: Sequence[Any]) -> None:
    """Each result value of `op` against its result type (static dimensions and bounds)."""
    for i, (r, v) in enumerate(zip(op.results, values)):
        check_value(r.type, v, f"result {i} of '{op.name}'")


def touches_dynamic_type(op: Operation) -> bool:
    """Whether an operand or a result of `op` has a dynamic type (its results need checking)."""
    return any(is_dynamic_type(v.type) for v in (*op.operands, *op.results))


def resolve_shape(op: Operation, i: int, derived: Sequence[int | None]) -> tuple[int, ...]:
    """Result `i`'s concrete shape: its type's static dimensions, with each `?` taken from
    `derived` (sizes the impl computed from operands and attributes; None where they do not
    determine it)."""
    t = op.results[i].type
    db = dims_and_bounds(t)
    if db is None:
        if all(d is not None for d in derived):
            return tuple(int(d) for d in derived)  # type: ignore[arg-type]
        raise InterpreterError(
            f"cannot determine the shape of result {i} of '{op.name}': its type {_type_str(t)} is "
            "unranked and the operands do not fix it (refine shapes first, e.g. with "
            "stablehlo-opt --stablehlo-refine-shapes)"
        )
    dims, _ = db
    if len(derived) != len(dims):
        raise InterpreterError(
            f"result {i} of '{op.name}' has type {_type_str(t)} of rank {len(dims)}, but its operands "
            f"give rank {len(derived)}"
        )
    out = []
    for d, (want, got) in enumerate(zip(dims, derived)):
        if want >= 0:
            out.append(want)
        elif got is None:
            raise InterpreterError(
                f"cannot determine dimension {d} of result {i} of '{op.name}': its type "
                f"{_type_str(t)} says `?` and the operands do not fix it (use the op's dynamic_* "
                "form, or refine shapes first with stablehlo-opt --stablehlo-refine-shapes)"
            )
        else:
            out.append(int(got))
    return tuple(out)


def _type_str(t: Attribute) -> str:
    from stablehlo_py.ir.text.printer import type_to_str

    try:
        return type_to_str(t)
    except Exception:  # noqa: BLE001 - a message must never fail on a type it cannot print
        return str(t)


__all__ = [
    "bind_arguments",
    "check_results",
    "check_value",
    "dims_and_bounds",
    "is_dynamic_type",
    "resolve_shape",
    "touches_dynamic_type",
]
