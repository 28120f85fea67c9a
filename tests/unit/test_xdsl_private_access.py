"""Accesses to xDSL's private names (`x._operands`, `getattr(x, "_type")`, `from xdsl... import _f`)
across the package: a private name is one xDSL defines (a `_name` field, method, class or
global in the installed xdsl package), reached on anything but `self`/`cls`; reached on
`self`/`cls` when no class of ours defines that name (so it can only be an xDSL base class's, as
in a subclass of xDSL's pattern walker); or written as `x._name` inside a string literal other than
a docstring (the source of generated code, such as ir/format_print.py's printers).  Private access
couples us to xDSL's internals; issue 24 moves every one into the compat package,
stablehlo_py/ir/xdsl_compat/ (COMPAT), the one place where they are allowed and not counted.

Until then this is a ratchet per file: a file may not gain accesses (a file not listed has none),
and a file that loses some must lower its count here (the list only shrinks).
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from pathlib import Path

import xdsl

from tests.unit.import_graph import PACKAGE_DIRS, REPO

COMPAT = REPO / "stablehlo_py" / "ir" / "xdsl_compat"

# 2026-11-29: 72 accesses in 15 files (docs/plans/issue-24-restructuring.md §1.3 lists them by
# line).  Moved into COMPAT since: ir/construct.py's 13; passes/drivers/bounded_walker.py's
# walker (5 through `self`) and ir/format_print.py's generated `op._operands` (4), both counted now.
KNOWN: dict[str, int] = {}


def _defined(files: list[Path], attributes: bool) -> set[str]:
    """The `_names` the files define: functions, classes, globals (and, with `attributes`, the
    fields they store on `self`/`cls`)."""
    out: set[str] = set()
    for path in files:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                out.add(node.target.id)
            elif (attributes and isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                  and _receiver(node) in ("self", "cls")):
                out.add(node.attr)
    return {n for n in out if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))}


def _receiver(node: ast.Attribute) -> str:
    return node.value.id if isinstance(node.value, ast.Name) else ""


def _our_files() -> list[Path]:
    folders = sorted(set(PACKAGE_DIRS.values()))
    return [p for folder in folders for p in sorted((REPO / folder).rglob("*.py"))
            if not p.is_relative_to(COMPAT)]


@functools.cache
def private_names() -> frozenset[str]:
    xdsl_files = sorted(Path(xdsl.__file__).parent.rglob("*.py"))
    # not minus our own names: helpers of ours called `_type` are not reached as attributes of other
    # objects, and vhlo/records.py mirrors xDSL's `_type`/`_operands` so one code path reads both
    return frozenset(_defined(xdsl_files, attributes=True))


@functools.cache
def inherited_only() -> frozenset[str]:
    """The private xDSL names no file of ours defines: on `self`/`cls` they are an xDSL base's."""
    return private_names() - _defined(_our_files(), attributes=True)


_IN_TEXT = re.compile(r"(?:^|[\w)\]])\.(_[A-Za-z]\w*)\b")  # `x._name`, or `{x}._name` in an f-string


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}


def accesses(
    tree: ast.AST, private: frozenset[str], inherited: frozenset[str] = frozenset()
) -> list[tuple[int, str]]:
    """(line, name) of each private xDSL name the module reads, writes or imports: on any object
    but `self`/`cls`, on `self`/`cls` when the name is in `inherited`, and in the text of strings
    (generated source) other than docstrings."""
    found = []
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private and (
            _receiver(node) not in ("self", "cls") or node.attr in inherited
        ):
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found += [(node.lineno, m) for m in _IN_TEXT.findall(node.value) if m in private]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "xdsl":
            found += [(node.lineno, a.name) for a in node.names if a.name in private]
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "setattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and node.args[1].value in private):
            found.append((node.lineno, node.args[1].value))
    return found


def counts() -> Counter[str]:
    private, inherited = private_names(), inherited_only()
    out: Counter[str] = Counter()
    for path in _our_files():
        n = len(accesses(ast.parse(path.read_text(), str(path)), private, inherited))
        if n:
            out[str(path.relative_to(REPO))] = n
    return out


def test_no_new_private_xdsl_access() -> None:
    grown = {f: (n, KNOWN.get(f, 0)) for f, n in counts().items() if n > KNOWN.get(f, 0)}
    assert not grown, (
        "private xDSL names accessed (file: now, allowed); go through the xDSL compat layer instead:\n"
        + "\n".join(f"{f}: {n}, {k}" for f, (n, k) in sorted(grown.items()))
    )


def test_known_counts_are_current() -> None:
    now = counts()
    lower = {f: (now.get(f, 0), k) for f, k in KNOWN.items() if now.get(f, 0) < k}
    assert not lower, "fewer private accesses now: lower KNOWN to " + ", ".join(
        f"{f}: {n}" for f, (n, _) in sorted(lower.items())
    )


def test_the_scan_finds_private_access() -> None:
    private = private_names()
    assert {"_operands", "_first_op", "_next_op"} <= private
    tree = ast.parse("def f(op):\n    x = op._operands\n    return getattr(op, '_first_op'), op.operands\n")
    assert sorted(accesses(tree, private)) == [(2, "_operands"), (3, "_first_op")]
    # generated source (not a docstring), and an xDSL base's private reached through `self`
    tree = ast.parse(
        'def g(op):\n    """reads op._operands"""\n    src = f"x = {op}._operands[0]"\n'
        "class W(Walker):\n    def run(self):\n        self._worklist.push(self._mine)\n"
    )
    assert sorted(accesses(tree, private, frozenset({"_worklist"}))) == [(3, "_operands"), (6, "_worklist")]
    assert "_worklist" in inherited_only()  # xDSL's PatternRewriteWalker field; no class of ours has one
