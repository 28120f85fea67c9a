"""What an op's location says about where it came from: the JAX name stack and the source line.

JAX writes each op's location as a name location whose name is the op's name stack and whose child
is where the Python code is (``loc("jit(f)/block0/dense/dot_general"(callsite("f.py":10:4 at
...)))``, or with older JAX ``loc("jit(f)/jit(main)/tanh"("f.py":3:0))``).  From it:

- :func:`location_name`: the name of a name location (upstream's probe ids use it);
- :func:`name_stack`: (scope, label, source): ``"jit(f)/block0/dense"``, ``"dot_general"``,
  ``"f.py:10"``;
- :func:`op_keys`: a key per op that names the same op in two versions of a program (a program and
  the program it was derived from, or a JAX model before and after a change):
  ``<scope>/<op name>#<n>``, with ``n`` counting the ops of that scope and name in walk order
  (``@<function>`` is the scope of ops without a name location).  Source lines are not part of the
  key: an edit moves them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation

from stablehlo_py.ir.text.location import TextLoc

__all__ = [
    "NameStack", "keyed_name_stacks", "location_name", "name_stack", "op_keys", "string_literal",
]

_FILE_LINE = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+)(?::\d+)?')


@dataclass(frozen=True)
class NameStack:
    scope: str
    """The name stack without its last segment (``""`` when it has one segment or none)."""
    label: str
    """The last segment (JAX's primitive name), or ``""`` without a name location."""
    source: str
    """``file:line`` of the first file location inside the location, or ``""``."""


def string_literal(text: str) -> tuple[int | None, str]:
    """(index after the closing quote, the unescaped contents) of the string literal ``text``
    starts with, as MLIR's lexer reads it (``\\"``, ``\\\\``, ``\\n``, ``\\t``, two-digit hex
    escapes); (None, "") when it is not closed."""
    close = text.find('"', 1)
    if close != -1 and "\\" not in text[1:close]:
        return close + 1, text[1:close]  # no escapes (the common case): nothing to decode
    out: list[str] = []
    raw = bytearray()
    i = 1
    while i < len(text):
        c = text[i]
        if c == '"':
            return i + 1, bytes(raw).decode("utf-8", "replace") if raw else "".join(out)
        if c == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            simple = {'"': '"', "\\": "\\", "n": "\n", "t": "\t"}
            if nxt in simple:
                raw.extend(simple[nxt].encode())
                i += 2
                continue
            hexpair = text[i + 1 : i + 3]
            if len(hexpair) == 2 and all(h in "0123456789abcdefABCDEF" for h in hexpair):
                raw.append(int(hexpair, 16))
                i += 3
                continue
        raw.extend(c.encode())
        i += 1
    return None, ""


def _loc_text(op: Operation) -> str | None:
    loc = op.location
    return loc.data.strip() if isinstance(loc, TextLoc) else None


def location_name(op: Operation) -> str | None:
    """The name of ``op``'s location when it is a name location (``loc("name")`` or
    ``loc("name"(child))``), else None (file, call-site, fused and unknown locations)."""
    text = _loc_text(op)
    if text is None or not text.startswith('"'):
        return None
    end, name = string_literal(text)
    if end is None:
        return None
    rest = text[end:].lstrip()
    if rest and not rest.startswith("("):
        return None  # `"file":line:col`
    return name


def name_stack(op: Operation) -> NameStack:
    """``op``'s name stack split into scope and label, and its source ``file:line``."""
    text = _loc_text(op) or ""
    name = location_name(op)
    child = text
    if name is not None:
        end, _ = string_literal(text)
        child = text[end or 0 :]
    match = _FILE_LINE.search(child)
    source = f"{match.group(1)}:{match.group(2)}" if match else ""
    if not name:
        return NameStack("", "", source)
    scope, _, label = name.rpartition("/")
    return NameStack(scope, label, source)


def _functions(root: Operation) -> Iterable[tuple[str, Operation]]:
    if isinstance(root, FuncOp):
        yield root.sym_name.data, root
    elif isinstance(root, ModuleOp):
        for op in root.body.block.ops:
            if isinstance(op, FuncOp):
                yield op.sym_name.data, op
            elif isinstance(op, ModuleOp):
                yield from _functions(op)


def keyed_name_stacks(
    functions: Iterable[tuple[str, Operation]],
) -> tuple[dict[Operation, str], dict[Operation, NameStack]]:
    """The op key and the name stack of every op inside ``functions`` ((symbol name, function
    op) pairs), in walk order, each location read once.  The one home of the key rule (module
    docstring): the scope is the name stack's, else a one-segment name, else ``@<function>``."""
    keys: dict[Operation, str] = {}
    stacks: dict[Operation, NameStack] = {}
    for fname, func in functions:
        seen: dict[tuple[str, str], int] = {}
        for op in func.walk():
            if op is func:
                continue
            stack = stacks[op] = name_stack(op)
            scope = stack.scope or stack.label or f"@{fname}"
            n = seen.get((scope, op.name), 0)
            seen[(scope, op.name)] = n + 1
            keys[op] = f"{scope}/{op.name}#{n}"
    return keys, stacks


def op_keys(root: Operation) -> dict[Operation, str]:
    """A key for every op inside the functions of ``root`` (a module or a function), in walk
    order (see the module docstring)."""
    return keyed_name_stacks(_functions(root))[0]
