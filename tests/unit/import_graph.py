"""The package's import graph as it runs: every module of the stablehlo_py packages (pyproject's
package-dir table) and the modules it imports anywhere -- inside functions, relatively, or by name
(`importlib.import_module("...")` with a literal or an f-string over a package's own submodules,
`f"{__name__}.{name}"` / `f"{pkg.__name__}.{name}"`, and string constants that name a package module).
`if TYPE_CHECKING:` blocks never run and are skipped.  Used by test_import_cycles.py and
test_import_direction.py."""

from __future__ import annotations

import ast
import functools
import sys
import tomllib

from tests.conftest import REPO

PACKAGE_DIRS: dict[str, str] = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"][
    "setuptools"
]["package-dir"]


def modules() -> dict[str, object]:
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


def skipped(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def aliases_of(tree: ast.AST, base: str) -> dict[str, str]:
    """Names bound to modules by the module's imports (``from a import b`` binds b to a.b)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            name = absolute(node, base)
            out.update({a.asname or a.name: f"{name}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            out.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                        for a in node.names})
    return out


def absolute(node: ast.ImportFrom, base: str) -> str:
    name = node.module or ""
    if node.level:
        up = base
        for _ in range(node.level - 1):
            up = up.rsplit(".", 1)[0]
        name = f"{up}.{name}" if name else up
    return name


def imported(node: ast.AST, module: str, base: str, paths: dict, aliases: dict) -> list[str]:
    """The dotted names an AST node imports (or loads by name)."""
    if isinstance(node, ast.ImportFrom):
        name = absolute(node, base)
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
    paths = modules()

    def owner(name: str) -> str | None:
        while name not in paths:
            if "." not in name:
                return None
            name = name.rsplit(".", 1)[0]
        return name

    graph: dict[str, set[str]] = {m: set() for m in paths}
    for module, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        skip = skipped(tree)
        base = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        aliases = aliases_of(tree, base)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            for name in imported(node, module, base, paths, aliases):
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
