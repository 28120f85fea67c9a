"""Import cycles across the whole package, counting what runs: imports inside functions, relative
imports, `importlib.import_module("...")` with a literal or an f-string over a package's own
submodules (`f"{__name__}.{name}"`), and string constants that name a package module (modules
loaded by name from a table).  `if TYPE_CHECKING:` blocks never run and are skipped.

Issue 24 asks for zero cycles.  Until then this is a ratchet: every cycle (strongly connected
component of the import graph) must lie inside one of KNOWN's, so no new cycle can appear; and a
KNOWN entry that no longer holds a cycle must be deleted (the list only shrinks).  The end state is
KNOWN = [].
"""

from __future__ import annotations

import ast
import functools
import sys
import tomllib

from tests.conftest import REPO

PACKAGE_DIRS: dict[str, str] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"][
    "setuptools"
]["package-dir"]

# The cycles of 2026-11-29 (9, as docs/plans/issue-24-restructuring.md §1.2 counts them with imports
# by name), without the "stablehlo_py." prefix.  Delete a module (or a whole entry) when a change breaks its cycle.
KNOWN: list[frozenset[str]] = [
    frozenset(s.split()) for s in (
        # the interpreter's registry loads impls/* by name; they (and custom_calls) import it back
        """interpreter.compiled interpreter.compiled_plan interpreter.custom_call
        interpreter.custom_calls.builtins interpreter.custom_calls.dispatch
        interpreter.custom_calls.entry_points interpreter.custom_calls.jax_targets
        interpreter.custom_calls.lapack interpreter.custom_calls.lapack.cholesky
        interpreter.custom_calls.lapack.common interpreter.custom_calls.lapack.eig
        interpreter.custom_calls.lapack.eigh interpreter.custom_calls.lapack.hessenberg
        interpreter.custom_calls.lapack.lu interpreter.custom_calls.lapack.qr
        interpreter.custom_calls.lapack.schur interpreter.custom_calls.lapack.svd
        interpreter.custom_calls.lapack.triangular interpreter.custom_calls.lapack.tridiagonal
        interpreter.custom_calls.registry interpreter.evaluator interpreter.impls._attrs
        interpreter.impls.check interpreter.impls.chlo interpreter.impls.collectives
        interpreter.impls.control_flow interpreter.impls.core interpreter.impls.data_movement
        interpreter.impls.dynamic interpreter.impls.elementwise interpreter.impls.experimental
        interpreter.impls.interpreter_ops interpreter.impls.linalg interpreter.impls.misc
        interpreter.impls.quantization interpreter.impls.random interpreter.impls.reduction
        interpreter.impls.sdy interpreter.printing interpreter.registry interpreter.shapes
        interpreter.values""",
        # ir/infer/__init__ loads the rule families by name; they import `rule`/InferError from it
        """ir.infer ir.infer.chlo ir.infer.collectives ir.infer.components ir.infer.control_flow
        ir.infer.data_movement ir.infer.elementwise ir.infer.linalg ir.infer.misc
        ir.infer.quantization ir.infer.reduction ir.infer.reify ir.infer.shapes ir.ops.base
        ir.ops.collectives ir.ops.constraints ir.ops.elementwise ir.ops.ods_traits ir.ops.ods_types
        ir.ops.region_utils""",
        # vhlo/forks/__init__ loads each fork module by name; each imports Fork from the package
        """vhlo.forks vhlo.forks.all_gather vhlo.forks.all_reduce vhlo.forks.all_to_all
        vhlo.forks.collective_broadcast vhlo.forks.composite vhlo.forks.custom_call
        vhlo.forks.dot_general vhlo.forks.dynamic_conv vhlo.forks.gather vhlo.forks.result_accuracy
        vhlo.forks.scatter vhlo.forks.send_recv""",
        # ir/dialects names "stablehlo_py.vhlo" (an upward edge); vhlo imports ir back
        """ir ir.dialects ir.ops.control_flow ir.ops.data_movement ir.ops.region_order ir.verify
        ir.xdsl_workarounds vhlo vhlo.attrs vhlo.convert vhlo.ops vhlo.stablehlo_text""",
        # serialization/__init__ <-> compat, reader; mlirbc's modules import each other
        """serialization serialization.compat serialization.mlir_artifact serialization.mlirbc
        serialization.mlirbc.dialect_ops serialization.mlirbc.ops serialization.mlirbc.reader
        serialization.mlirbc.writer serialization.reader""",
        "specs version",
        "interpreter.api interpreter.custom_calls.spmd",
        "passes.canonicalize passes.mlir_folds",
        "passes.refine_calls passes.stablehlo_refine_shapes",
    )
]


def _modules() -> dict[str, object]:
    paths = {}
    for package, folder in PACKAGE_DIRS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            # a subpackage mapped to its own folder is listed under that mapping only
            if name not in paths or folder != "stablehlo_py":
                paths[name] = path
    return paths


def _skipped(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _aliases(tree: ast.AST, base: str) -> dict[str, str]:
    """Names bound to modules by the module's imports (``from a import b`` binds b to a.b)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            name = _absolute(node, base)
            out.update({a.asname or a.name: f"{name}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            out.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                        for a in node.names})
    return out


def _absolute(node: ast.ImportFrom, base: str) -> str:
    name = node.module or ""
    if node.level:
        up = base
        for _ in range(node.level - 1):
            up = up.rsplit(".", 1)[0]
        name = f"{up}.{name}" if name else up
    return name


def _imported(node: ast.AST, module: str, base: str, paths: dict, aliases: dict) -> list[str]:
    """The dotted names an AST node imports (or loads by name)."""
    if isinstance(node, ast.ImportFrom):
        name = _absolute(node, base)
        # `from pkg import sub` imports pkg.sub when that is a module, else pkg
        subs = [f"{name}.{a.name}" for a in node.names if f"{name}.{a.name}" in paths]
        return subs if len(subs) == len(node.names) else [*subs, name]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module" and node.args:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return [arg.value]
        head = arg.values[0] if isinstance(arg, ast.JoinedStr) and arg.values else None
        if isinstance(head, ast.FormattedValue):
            # f"{__name__}.{x}" / f"{pkg.__name__}.{x}": any direct submodule of that package
            text = ast.unparse(head.value)
            package = module if text == "__name__" else aliases.get(text.removesuffix(".__name__"))
            if package is not None:
                return [m for m in paths if m.startswith(package + ".") and "." not in m[len(package) + 1:]]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in paths:
        return [node.value]
    return []


@functools.cache
def import_graph() -> dict[str, set[str]]:
    paths = _modules()

    def owner(name: str) -> str | None:
        while name not in paths:
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]
        return name

    graph: dict[str, set[str]] = {m: set() for m in paths}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = _skipped(tree)
        base = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        aliases = _aliases(tree, base)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            for name in _imported(node, module, base, paths, aliases):
                target = owner(name) if name.startswith("stablehlo_py") else None
                if target is not None and target != module:
                    graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(frozenset(comp))

    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def _short(names: frozenset[str]) -> str:
    return ", ".join(sorted(n.removeprefix("stablehlo_py.") for n in names))


def test_no_new_import_cycle() -> None:
    known = [frozenset(f"stablehlo_py.{m}" for m in k) for k in KNOWN]
    new = [c for c in cycles(import_graph()) if not any(c <= k for k in known)]
    assert not new, "import cycles not in KNOWN (break them; DESIGN.md: layers import one way):\n" + "\n".join(
        _short(c) for c in new
    )


def test_known_cycles_still_hold() -> None:
    """The list only shrinks: an entry none of whose modules is in a cycle any more is deleted, and
    so is a module of an entry that left its cycle."""
    current = cycles(import_graph())
    in_cycle = set().union(*current) if current else set()
    stale = sorted(m for k in KNOWN for m in k if f"stablehlo_py.{m}" not in in_cycle)
    assert not stale, "no longer in an import cycle, delete from KNOWN: " + ", ".join(stale)


def test_the_graph_sees_what_runs() -> None:
    """The cases the scan must count: an import inside a function, a relative import, a module
    loaded by name; and a TYPE_CHECKING import must not count."""
    graph = import_graph()
    src = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import stablehlo_py.vhlo\n"
        "def f():\n    from . import errors\n    import importlib\n"
        "    importlib.import_module('stablehlo_py.version')\n"
    )
    paths = _modules()
    skip = _skipped(src)
    seen = {n for node in ast.walk(src) if id(node) not in skip
            for n in _imported(node, "stablehlo_py.api", "stablehlo_py", paths, {})}
    assert {"stablehlo_py.errors", "stablehlo_py.version"} <= seen
    assert "stablehlo_py.vhlo" not in seen
    # and on the package: ir/infer/__init__ loads its families by name
    assert "stablehlo_py.ir.infer.shapes" in graph["stablehlo_py.ir.infer"]
