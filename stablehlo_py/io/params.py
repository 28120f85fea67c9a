"""The parameters a program's inputs are given for: their types, and the names files may use.

A plain function's parameters are its block arguments: named by their location when it is a name
location (JAX writes ``loc("x")``, ``loc("params['w1']")``) and by a ``jax.arg_info`` argument
attribute (older JAX).  A JAX export's are the exported function's flattened arguments (one per
``in_avals`` entry, unused ones included, as ``Exported.call`` takes them): each kept argument is
named as its ``@main`` parameter is, and an argument JAX dropped from the module is named by the
path of its leaf in the input tree under the name of its top-level argument, learned from a kept
sibling (``state['steps']`` beside ``state['b1']``).  ``arg<k>`` always means position ``k``.

Results are named by ``jax.result_info`` (:func:`result_names`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Operation

from stablehlo_py.errors import StableHLOError
from stablehlo_py.interpreter.shapes import check_value
from stablehlo_py.io.errors import InputError
from stablehlo_py.ir.text.location import TextLoc
from stablehlo_py.ir.text.name_stack import string_literal
from stablehlo_py.ir.text.printer import type_to_str
from stablehlo_py.semantics.ir_dtypes import dtype_of_type

__all__ = ["Param", "entry_function", "exported_params", "function_params", "result_names"]


@dataclass(frozen=True)
class Param:
    """One input a file can give."""

    index: int
    label: str
    """``parameter 0 of @main`` / ``argument 2 of the exported function predict``."""
    type_text: str
    """``tensor<2xf32>`` / ``float32[2,3]``."""
    dtype: np.dtype[Any] | None
    """The element dtype; None when a file cannot hold the input (a token or tuple parameter), or
    for an export's aval NumPy has no dtype for (``float0``, PRNG keys: checked by the export)."""
    names: tuple[str, ...] = ()
    ir_type: Attribute | None = None
    shape: tuple[int | str, ...] | None = None
    """An export's aval shape (ints, or symbolic names checked by the export)."""
    loadable: bool = True

    @property
    def target(self) -> str:
        return f"{self.label} is {self.type_text}"

    def describe(self) -> str:
        names = " or ".join(repr(n) for n in self.names)
        return f"{self.label} ({self.type_text}{', named ' + names if names else ''})"

    def check_shape(self, value: np.ndarray, where: str) -> None:
        """InputError naming ``where`` when ``value``'s shape does not fit the parameter."""
        if self.ir_type is not None:
            try:
                check_value(self.ir_type, value, f"{where} (for {self.label})")
            except StableHLOError as e:
                raise InputError(e.message) from None
            return
        if self.shape is None:
            return
        fits = value.ndim == len(self.shape) and all(
            not isinstance(d, int) or d == s for d, s in zip(self.shape, value.shape)
        )
        if not fits:
            raise InputError(
                f"has shape {list(value.shape)} but {self.target}", location=where
            )


def entry_function(func_or_module: Any, entry: str = "main") -> FuncOp:
    """The function ``@entry`` of a module (or of module text, parsed and verified), or the
    function itself."""
    if isinstance(func_or_module, FuncOp):
        return func_or_module
    if isinstance(func_or_module, str):
        from stablehlo_py.interpreter.entry_inputs import as_module

        func_or_module = as_module(func_or_module)
    if not isinstance(func_or_module, ModuleOp):
        raise InputError(
            "inputs are loaded for a module, its text or a func.func, not "
            f"{type(func_or_module).__name__}"
        )
    funcs = {
        op.sym_name.data: op for op in func_or_module.body.block.ops if isinstance(op, FuncOp)
    }
    if entry not in funcs:
        raise InputError(
            f"no function @{entry} to load inputs for (have: {', '.join('@' + f for f in funcs)})"
        )
    return funcs[entry]


def _loc_name(loc: Attribute | None) -> str | None:
    """The name of a name location (``"x"`` or ``"x"(child)``), else None."""
    if not isinstance(loc, TextLoc) or not loc.data.startswith('"'):
        return None
    end, name = string_literal(loc.data)
    if end is None:
        return None
    rest = loc.data[end:].lstrip()
    return name if (not rest or rest.startswith("(")) and name else None


def _attr_string(attrs: Any, i: int, key: str) -> str | None:
    if attrs is None or i >= len(attrs.data):
        return None
    d = attrs.data[i]
    a = d.data.get(key) if isinstance(d, DictionaryAttr) else None
    return a.data if isinstance(a, StringAttr) else None


def _param_names(func: FuncOp, i: int) -> tuple[str, ...]:
    names = []
    if func.body.blocks and i < len(func.body.block.args):
        names.append(_loc_name(func.body.block.args[i].location))
    names.append(_attr_string(getattr(func, "arg_attrs", None), i, "jax.arg_info"))
    return tuple(dict.fromkeys(n for n in names if n))


def function_params(func: FuncOp) -> list[Param]:
    """The parameters of a function, in order."""
    out = []
    for i, t in enumerate(func.function_type.inputs.data):
        label = f"parameter {i} of @{func.sym_name.data}"
        loadable = isinstance(t, (TensorType, UnrankedTensorType))
        out.append(
            Param(
                i,
                label,
                type_to_str(t),
                dtype_of_type(t) if loadable else None,
                _param_names(func, i),
                ir_type=t if loadable else None,
                loadable=loadable,
            )
        )
    return out


def _leaf_paths(tree: Any) -> list[tuple[Any, ...]] | None:
    """The path of each leaf of a ``JaxPyTree`` (ints for sequence positions, strings for dict
    keys), or None when a custom node hides its children's keys."""
    if tree.kind == "leaf":
        return [()]
    if tree.kind == "none":
        return []
    if tree.kind not in ("tuple", "list", "dict"):
        return None
    keys = list(tree.keys or ()) if tree.kind == "dict" else list(range(len(tree.children)))
    out: list[tuple[Any, ...]] = []
    for key, child in zip(keys, tree.children):
        sub = _leaf_paths(child)
        if sub is None:
            return None
        out += [(key, *p) for p in sub]
    return out


def _keystr(path: tuple[Any, ...]) -> str:
    """JAX's ``keystr``: ``['b1'][0]``."""
    return "".join(f"[{k!r}]" for k in path)


def _export_names(exported: Any, func: FuncOp) -> list[tuple[str, ...]]:
    """Names of the exported function's flattened arguments (see the module docstring)."""
    n = len(exported.in_avals)
    kept = list(exported.module_kept_var_idx)
    offset = len(func.function_type.inputs.data) - len(kept)
    names: list[tuple[str, ...]] = [
        _param_names(func, offset + kept.index(i)) if i in kept else () for i in range(n)
    ]
    paths = _leaf_paths(exported.in_tree)
    if paths is None or len(paths) != n:
        return names
    prefixes: dict[Any, str] = {}  # (0, position) or (1, keyword) -> the argument's name
    for i, path in enumerate(paths):
        if len(path) < 2 or path[0] not in (0, 1):
            continue
        if path[0] == 1:
            prefixes[path[:2]] = str(path[1])
        for name in names[i]:
            suffix = _keystr(path[2:])
            if name.endswith(suffix) and len(name) > len(suffix):
                prefixes.setdefault(path[:2], name[: len(name) - len(suffix)])
    for i, path in enumerate(paths):
        if not names[i] and len(path) >= 2 and path[:2] in prefixes:
            names[i] = (prefixes[path[:2]] + _keystr(path[2:]),)
    return names


def _aval_dtype(name: str) -> np.dtype[Any] | None:
    try:
        return np.dtype(name)
    except TypeError:
        return None


def exported_params(exported: Any, func: FuncOp) -> list[Param]:
    """The flattened arguments of a JAX export (``JaxExported``) whose module's ``@main`` is
    ``func``, in ``in_avals`` order."""
    names = _export_names(exported, func)
    out = []
    for i, aval in enumerate(exported.in_avals):
        dtype = _aval_dtype(aval.dtype)
        out.append(
            Param(
                i,
                f"argument {i} of the exported function {exported.function_name}",
                str(aval),
                dtype,
                names[i],
                shape=tuple(aval.shape) if dtype is not None else None,
            )
        )
    return out


def result_names(func: FuncOp, count: int | None = None) -> list[str | None]:
    """``jax.result_info`` of each result of ``func`` (None where absent); with ``count``, of its
    last ``count`` results (a JAX export's module returns its effects' tokens first)."""
    n = len(func.function_type.outputs.data)
    names = [_attr_string(getattr(func, "res_attrs", None), i, "jax.result_info") for i in range(n)]
    return names if count is None else names[n - count :]
