"""DESIGN.md §1: stablehlo_py.ir <- vhlo <- passes <- serialization; the interpreter sees only the
stablehlo IR; cli, api and the builder sit on top.  Scans every static import."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# folder -> the stablehlo_py subpackages it must not import
FORBIDDEN = {
    "stablehlo_py/ir": ("vhlo", "passes", "serialization", "interpreter", "cli", "api", "builder"),
    "vhlo": ("passes", "serialization", "interpreter", "cli", "api", "builder"),
    "passes": ("serialization", "interpreter", "cli", "api", "builder"),
    "serialization": ("interpreter", "cli", "api", "builder"),
    "interpreter": ("vhlo", "passes", "serialization", "cli", "api", "builder"),
    # the builder sits beside the API: on the IR (and the interpreter/serialization on demand)
    "stablehlo_py/builder": ("cli",),
}

# Narrow, reasoned exceptions: (file, imported module prefix).
# - chlo-legalize-to-stablehlo emits the CHLO decompositions by replaying the interpreter's own
#   decomposition functions on traced values (one source of truth for the math); it needs those
#   functions and the element-type table they use, nothing of the evaluator.
ALLOWED = {
    ("passes/chlo_legalize_to_stablehlo.py", "stablehlo_py.interpreter.semantics"),
    ("passes/chlo_legalize_to_stablehlo.py", "stablehlo_py.interpreter.dtypes"),
    ("passes/chlo_legalize_to_stablehlo.py", "stablehlo_py.interpreter.values"),
}


def _allowed(path: str, name: str) -> bool:
    return any(path == p and (name == m or name.startswith(m + ".")) for p, m in ALLOWED)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_import_direction() -> None:
    problems = []
    for folder, banned in FORBIDDEN.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            for name in _imports(path):
                parts = name.split(".")
                rel = str(path.relative_to(REPO))
                if _allowed(rel, name):
                    continue
                if parts[0] == "stablehlo_py" and len(parts) > 1 and parts[1] in banned:
                    problems.append(f"{path.relative_to(REPO)} imports {name}")
    assert not problems, "\n".join(problems)


# Packages whose modules import one another one way only (no cycle, not even through an import
# inside a function): folder -> its dotted package name.
ACYCLIC = {
    "interpreter/semantics": "stablehlo_py.interpreter.semantics",
}


def _module_graph(folder: Path, package: str) -> dict[str, set[str]]:
    modules = {p.stem for p in folder.glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for m in modules:
        tree = ast.parse((folder / f"{m}.py").read_text())
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                if node.level == 1:
                    base = node.module or ""
                    targets = [base.split(".")[0]] if base else [a.name for a in node.names]
                elif node.module and node.module.startswith(package + "."):
                    targets = [node.module[len(package) + 1 :].split(".")[0]]
                elif node.module == package:
                    targets = [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [
                    a.name[len(package) + 1 :].split(".")[0]
                    for a in node.names
                    if a.name.startswith(package + ".")
                ]
            graph[m].update(t for t in targets if t in modules and t != m)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n) :] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_layered_packages_have_no_import_cycle() -> None:
    for folder, package in ACYCLIC.items():
        cycle = _cycle(_module_graph(REPO / folder, package))
        assert cycle is None, f"{folder}: import cycle " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
