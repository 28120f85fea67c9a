"""Accesses to xDSL's private names (`x._operands`, `getattr(x, "_type")`, `from xdsl... import _f`)
across the package: a private name is one xDSL defines (a `_name` field, method, class or
global in the installed xdsl package), reached on anything but `self`/`cls`.  Private access
couples us to xDSL's internals; issue 24 moves every one into the compat package,
stablehlo_py/ir/xdsl_compat/ (COMPAT), the one place where they are allowed and not counted.

Until then this is a ratchet per file: a file may not gain accesses (a file not listed has none),
and a file that loses some must lower its count here (the list only shrinks).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from pathlib import Path

import xdsl

from tests.unit.import_graph import PACKAGE_DIRS, REPO

COMPAT = REPO / "stablehlo_py" / "ir" / "xdsl_compat"

# 2026-11-29: 72 accesses in 15 files (docs/plans/issue-24-restructuring.md §1.3 lists them by
# line).  Not counted here: a subclass reaching its xDSL base's privates through `self`
# (passes/drivers/bounded_walker.py's walker: 5) and `op._operands` inside the source text that
# ir/format_print.py generates (4).  Moved into COMPAT since: ir/construct.py's 13.
KNOWN: dict[str, int] = {
    "interpreter/compiled.py": 2,
    "passes/chlo_legalize_to_stablehlo.py": 3,
    "passes/stablehlo_legalize_to_vhlo.py": 2,
    "passes/stablehlo_refine_arguments.py": 1,
    "passes/vhlo_legalize_to_stablehlo.py": 4,
    "passes/vhlo_to_version.py": 6,
    "serialization/writer.py": 6,
    "stablehlo_py/ir/text/printer.py": 2,
    "vhlo/in_place.py": 8,
    "vhlo/legality.py": 6,
    "vhlo/ops.py": 5,
    "vhlo/records.py": 5,
}


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


def accesses(tree: ast.AST, private: frozenset[str]) -> list[tuple[int, str]]:
    """(line, name) of each private xDSL name the module reads, writes or imports."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private and _receiver(node) not in ("self", "cls"):
            found.append((node.lineno, node.attr))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "xdsl":
            found += [(node.lineno, a.name) for a in node.names if a.name in private]
        elif (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "setattr", "hasattr")
              and len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
              and node.args[1].value in private):
            found.append((node.lineno, node.args[1].value))
    return found


def counts() -> Counter[str]:
    private = private_names()
    out: Counter[str] = Counter()
    for path in _our_files():
        n = len(accesses(ast.parse(path.read_text(), str(path)), private))
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
