"""What the testing helpers take as a program, made into a module and arguments.

A program is one of

- a JAX function (any other callable): lowered with
  ``jax.jit(fn, keep_unused=True).lower(*args).as_text(debug_info=True)``, so locations carry JAX's
  name stacks and source lines (the caller's, not this package's); its arguments are flattened as
  JAX flattens them (pytrees);
- a builder ``Module`` (``stablehlo_py.builder``);
- an xDSL ``ModuleOp``;
- MLIR text (parsed and verified).

The arguments are bound to the entry function's parameter types as ``interpreter.run`` binds them
(a float64 array for an ``f32`` parameter is cast), so a backend gets exactly what the interpreter
gets.  jax is imported only for a JAX function; a missing jax raises `BackendUnavailable`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from stablehlo_py.backends import BackendUnavailable
from stablehlo_py.errors import StableHLOError

__all__ = ["Program", "entry_function", "lower_jax", "module_of", "program_of"]


@dataclass
class Program:
    """A program ready to run: its module, its arguments bound to ``entry``'s parameters."""

    module: ModuleOp
    args: list[Any]
    entry: str
    what: str
    """What it was made from, for messages: ``the JAX function f``, ``the builder module @m``."""


def _jax() -> Any:
    try:
        return importlib.import_module("jax")
    except ImportError:
        raise BackendUnavailable(
            "jax is not installed, and a Python function is lowered to StableHLO by jax",
            note="pip install jax (or stablehlo-py's `oracle` extra)",
        ) from None


def _hide_own_frames() -> None:
    """JAX's locations name the first Python frame outside jax as an op's source, and list the
    user frames above it: this package's frames (the test helpers calling ``jax.jit``) are not
    the user's, so they are registered as JAX's own, once (`source_info_util.register_exclusion`
    and ``is_user_filename``, in jax 0.4 to 0.12; without them the locations keep these frames)."""
    try:
        from jax._src import source_info_util
    except ImportError:  # pragma: no cover - another jax
        return
    here = os.path.abspath(__file__)
    user = getattr(source_info_util, "is_user_filename", None)
    register = getattr(source_info_util, "register_exclusion", None)
    if user is not None and register is not None and user(here):
        register(os.path.dirname(here) + os.sep)


def lower_jax(fn: Any, args: Sequence[Any]) -> tuple[str, list[np.ndarray]]:
    """``fn`` lowered by ``jax.jit`` for ``args`` (text with debug info), and the arguments
    flattened as the lowered ``@main`` takes them."""
    jax = _jax()
    _hide_own_frames()
    lowered = jax.jit(fn, keep_unused=True).lower(*args)
    flat = [np.asarray(a) for a in jax.tree_util.tree_leaves(list(args))]
    return lowered.as_text(debug_info=True), flat


def _what_callable(fn: Any) -> str:
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return f"the JAX function {name}"


def module_of(program: Any, args: Sequence[Any] = ()) -> tuple[ModuleOp, list[Any], str]:
    """(module, arguments, what it was made from): the arguments as given, or flattened for a
    JAX function (which needs them to be lowered)."""
    from stablehlo_py.builder.module import Function, Module
    from stablehlo_py.interpreter.entry_inputs import as_module

    if isinstance(program, Module):
        name = program.op.sym_name.data if program.op.sym_name is not None else None
        return program.op, list(args), "the builder module" + (f" @{name}" if name else "")
    if isinstance(program, ModuleOp):
        return program, list(args), "the module"
    if isinstance(program, str):
        return as_module(program), list(args), "the MLIR text"  # type: ignore[return-value]
    if isinstance(program, Function):
        raise TypeError(
            f"got the builder function @{program.sym_name}: pass its Module (and entry= to run "
            "another function than @main)"
        )
    if isinstance(program, Operation):
        raise TypeError(f"got a {program.name} op: pass the builtin.module that holds it")
    if callable(program):
        text, flat = lower_jax(program, args)
        return as_module(text), flat, _what_callable(program)  # type: ignore[return-value]
    raise TypeError(
        "a program is a JAX function, a builder Module, an xDSL ModuleOp or MLIR text; got "
        f"{type(program).__name__}"
    )


def entry_function(module: ModuleOp, entry: str) -> FuncOp:
    """``module``'s function ``entry`` (a StableHLOError naming the functions there if none)."""
    funcs = [op for op in module.body.block.ops if isinstance(op, FuncOp)]
    for f in funcs:
        if f.sym_name.data == entry:
            return f
    have = ", ".join("@" + f.sym_name.data for f in funcs) or "none"
    raise StableHLOError(f"the program has no function @{entry} (functions: {have})")


def program_of(program: Any, args: Sequence[Any], entry: str = "main") -> Program:
    """``program`` (see the module doc) and ``args`` as a `Program` running ``entry``."""
    from stablehlo_py.interpreter.shapes import bind_arguments

    module, flat, what = module_of(program, args)
    bound = bind_arguments(entry_function(module, entry), flat, entry)
    return Program(module, bound, entry, what)
