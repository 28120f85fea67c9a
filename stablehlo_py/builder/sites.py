"""Where a builder error points: the user's line, and whether a callable takes the arguments it
will be given.

Both are computed only when something is wrong (or, for the arity, once per region or function
built), never per op on the success path.

- ``site()``: ``file:line:col`` of the innermost Python frame outside the toolkit's packages
  (``stablehlo_py`` and the folders mapped into its namespace: ``vhlo/``, ``passes/``,
  ``interpreter/``, ``serialization/``), i.e. the producer's call of an op function, ``call`` or
  ``Module.func``;
- ``arity_problem(fn, n)``: None when ``fn`` can be called with ``n`` positional arguments, else
  what it takes (a plain function is read from its code object; any other callable through
  ``inspect.signature``).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import types
from typing import Any

from stablehlo_py.ir.context import CONTEXT

_MAPPED = ("vhlo", "passes", "interpreter", "serialization")
"""Subpackages that live in their own top-level folders (pyproject's package-dir)."""

_INSIDE = CONTEXT.table("builder.sites.inside", 4096)  # co_filename -> inside the toolkit?
_ROOTS = CONTEXT.table("builder.sites.roots", 1)  # "roots" -> the toolkit's folders


def _roots() -> tuple[str, ...]:
    roots = _ROOTS.get("roots")
    if roots is None:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # stablehlo_py/
        found = [here]
        for sub in _MAPPED:
            try:
                spec = importlib.util.find_spec(f"stablehlo_py.{sub}")
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.submodule_search_locations:
                found.extend(os.path.abspath(p) for p in spec.submodule_search_locations)
        roots = _ROOTS.put("roots", tuple(os.path.join(r, "") for r in found))
    return roots  # type: ignore[no-any-return]


def inside_toolkit(filename: str) -> bool:
    """Whether code from ``filename`` is the toolkit's own (not the producer's)."""
    hit = _INSIDE.get(filename)
    if hit is None:
        path = os.path.abspath(filename)
        hit = _INSIDE.put(filename, any(path.startswith(r) for r in _roots()))
    return hit  # type: ignore[no-any-return]


def user_frame() -> types.FrameType | None:
    """The innermost frame outside the toolkit (None when every frame is the toolkit's)."""
    f: types.FrameType | None = sys._getframe(1)
    inside = _INSIDE
    while f is not None:
        name = f.f_code.co_filename
        known = inside.get(name)
        if known is None:
            known = inside_toolkit(name)
        if not known:
            return f
        f = f.f_back
    return None


_COLUMNS = CONTEXT.identity_map("builder.sites.columns", 1 << 14)  # code, extra lasti -> col


def column(code: types.CodeType, lasti: int) -> int:
    """The 1-based column of the instruction at ``lasti`` in ``code`` (1 when unknown),
    remembered per instruction."""
    hit = _COLUMNS.get_seq((code,), lasti + 1)  # + 1: an `extra` of 0 would mean none
    if hit is not None:
        return hit  # type: ignore[no-any-return]
    col = 1
    i = lasti // 2
    for k, pos in enumerate(code.co_positions()):
        if k == i:
            if pos[2] is not None:
                col = pos[2] + 1
            break
    _COLUMNS.put_seq((code,), col, lasti + 1)
    return col


def site() -> str | None:
    """``file:line:col`` (1-based column) of the producer's line that is building, or None."""
    f = user_frame()
    if f is None:
        return None
    return f"{f.f_code.co_filename}:{f.f_lineno}:{column(f.f_code, f.f_lasti)}"


def defined_at(fn: Any) -> str | None:
    """``file:line`` where a Python callable was defined (its ``def`` or ``lambda``), or None."""
    code = getattr(inspect.unwrap(fn), "__code__", None) if callable(fn) else None
    if code is None:
        return None
    return f"{code.co_filename}:{code.co_firstlineno}"


def _count(n: int) -> str:
    return f"{n} argument{'' if n == 1 else 's'}"


def arity_problem(fn: Any, n: int) -> str | None:
    """None when ``fn(*n values)`` binds, else what ``fn`` takes (``takes 1 argument``)."""
    if type(fn) is types.FunctionType:
        code = fn.__code__
        total = code.co_argcount
        required = total - len(fn.__defaults__ or ())
        varargs = bool(code.co_flags & inspect.CO_VARARGS)
        kw_required = [
            k
            for k in code.co_varnames[total : total + code.co_kwonlyargcount]
            if k not in (fn.__kwdefaults__ or {})
        ]
        if required <= n and (varargs or n <= total) and not kw_required:
            return None
        if kw_required:
            return f"needs the keyword-only argument(s) {', '.join(kw_required)}"
        if varargs:
            return f"takes at least {_count(required)}"
        if required == total:
            return f"takes {_count(total)}"
        return f"takes {required} to {_count(total)}"
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # not introspectable (a builtin): the call itself will tell
    try:
        sig.bind(*([None] * n))
    except TypeError:
        return f"takes {sig}"
    return None


def explicit_location(loc: Any, op_name: str) -> Any:
    """``loc=`` of an op function: a TextLoc, or MLIR location text (what ``loc(...)`` holds:
    ``'"model.py":3:1'``, ``'"name"'``, ``'unknown'``), checked by the text parser so that the
    module prints as text that parses back; anything else is a BuildError."""
    from stablehlo_py.builder.errors import BuildError
    from stablehlo_py.errors import StableHLOError
    from stablehlo_py.ir.dialects import default_registry
    from stablehlo_py.ir.text.location import TextLoc
    from stablehlo_py.ir.text.parser import Parser

    if isinstance(loc, TextLoc):
        return loc
    hint = """write MLIR location text, such as loc='"model.py":3:1' or loc='"name"'"""
    if not isinstance(loc, str) or not loc.strip():
        raise BuildError(f"{op_name}: loc= is {loc!r}; {hint}")
    p = Parser(f"loc({loc})", default_registry())
    try:
        out = p.try_location()
        p.ws()
        if out is None or p.pos != len(p.text):
            raise BuildError(f"{op_name}: loc={loc!r} is not an MLIR location; {hint}")
    except StableHLOError as e:
        if isinstance(e, BuildError):
            raise
        raise BuildError(
            f"{op_name}: loc={loc!r} is not an MLIR location ({e.message}); {hint}"
        ) from None
    return out
