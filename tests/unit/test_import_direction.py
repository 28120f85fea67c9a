"""DESIGN.md §1: stablehlo_py.ir <- vhlo <- passes <- serialization; the interpreter sees only the
stablehlo IR; the op math (stablehlo_py.semantics) sits below the interpreter and the passes; cli,
api and the builder sit on top.  `test_import_direction` scans every absolute import statement;
`test_no_upward_edge_counting_every_import` also counts relative imports and modules loaded by name
(tests/unit/import_graph.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.import_graph import PACKAGE_DIRS, import_graph, modules

REPO = Path(__file__).resolve().parents[2]

# folder -> the stablehlo_py subpackages it must not import
FORBIDDEN = {
    "stablehlo_py/ir": (
        "semantics", "vhlo", "passes", "serialization", "interpreter", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    "vhlo": (
        "passes", "serialization", "interpreter", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    "passes": (
        "serialization", "interpreter", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    "serialization": (
        "interpreter", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    "interpreter": (
        "vhlo", "passes", "serialization", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    # the op math (numpy), shared by the interpreter and the passes: on errors and the IR's types only
    "stablehlo_py/semantics": (
        "interpreter", "passes", "serialization", "vhlo", "cli", "api", "builder",
        "io", "backends", "trace", "reduce", "viz", "testing"),
    # the builder sits beside the API: on the IR (and the interpreter/serialization on demand)
    "stablehlo_py/builder": ("cli", "io", "backends", "trace", "reduce", "viz", "testing"),
    # issue 27's tools, each on the layers below it (docs/plans/issue-27-tools.md §2):
    # files <-> arrays, on the IR's types
    "stablehlo_py/io": ("vhlo", "passes", "serialization", "cli", "api", "builder",
                        "backends", "trace", "reduce", "viz", "testing"),
    # XLA and IREE as runners: on the IR, the passes (shape refinement) and our artifacts
    "stablehlo_py/backends": ("interpreter", "cli", "api", "builder", "trace", "reduce", "viz",
                              "testing"),
    # per-op traces and divergence: on the interpreter, the backends and io
    "stablehlo_py/trace": ("cli", "api", "builder", "reduce", "viz", "testing"),
    # the reducer: on traces, backends, passes and the builder's type inference
    "stablehlo_py/reduce": ("cli", "api", "viz", "testing"),
    # Model Explorer's adapter and graph views
    "stablehlo_py/viz": ("cli", "api", "builder", "reduce", "testing"),
    # the pytest plugin: on traces, backends and the builder
    "stablehlo_py/testing": ("cli", "reduce", "viz"),
}

# Narrow, reasoned exceptions: (file, imported module prefix).  None today: the op math the passes
# run (chlo-legalize's decompositions, the aggressive folder's folds) is the neutral
# stablehlo_py.semantics, below both the passes and the interpreter.
ALLOWED: set[tuple[str, str]] = set()


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


# mpi4py initializes MPI when `mpi4py.MPI` is imported: only the MPI engine imports it
# (interpreter/mpi/, docs/plans/issue-29-mpi.md §2), never at the import of the toolkit
# (tests/unit/interpreter/mpi/test_require_mpi.py checks that at run time).
MPI4PY_HOME = "interpreter/mpi/"


def _mpi4py_imports(path: Path) -> list[int]:
    """Lines of `path` importing mpi4py: import statements, and import_module("mpi4py...")."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
            names = [a.value for a in node.args[:1] if isinstance(a, ast.Constant)
                     and isinstance(a.value, str)]
        if any(n == "mpi4py" or n.startswith("mpi4py.") for n in names):
            lines.append(node.lineno)
    return lines


def test_only_the_mpi_engine_imports_mpi4py() -> None:
    problems, home = [], []
    for folder in sorted(set(PACKAGE_DIRS.values())):
        for path in sorted((REPO / folder).rglob("*.py")):
            rel = str(path.relative_to(REPO))
            for line in _mpi4py_imports(path):
                (home if rel.startswith(MPI4PY_HOME) else problems).append(f"{rel}:{line}")
    assert not problems, "mpi4py imported outside " + MPI4PY_HOME + ": " + ", ".join(problems)
    assert home, "the scan no longer sees require_mpi's import of mpi4py.MPI"


# Upward edges found only by counting imports by name, left to issue 24 (the list only shrinks):
# (importing module, imported module).
KNOWN_UPWARD: set[tuple[str, str]] = set()


def _layer_rules() -> list[tuple[str, tuple[str, ...]]]:
    """(module prefix, the stablehlo_py subpackages it must not import), longest prefix first."""
    rules = []
    for folder, banned in FORBIDDEN.items():
        package = "stablehlo_py." + folder.removeprefix("stablehlo_py/").replace("/", ".")
        rules.append((package, banned))
    return sorted(rules, key=lambda r: -len(r[0]))


def _module_file(module: str) -> str:
    return str(modules()[module].relative_to(REPO))


def test_no_upward_edge_counting_every_import() -> None:
    graph = import_graph()
    problems, used = [], set()
    for module, targets in sorted(graph.items()):
        rule = next((r for r in _layer_rules() if module == r[0] or module.startswith(r[0] + ".")), None)
        if rule is None:
            continue
        for target in sorted(targets):
            parts = target.split(".")
            if len(parts) < 2 or parts[1] not in rule[1] or _allowed(_module_file(module), target):
                continue
            if (module, target) in KNOWN_UPWARD:
                used.add((module, target))
                continue
            problems.append(f"{module} imports {target}")
    assert not problems, "\n".join(problems)
    assert used == KNOWN_UPWARD, f"no longer imported, delete from KNOWN_UPWARD: {KNOWN_UPWARD - used}"


# Packages whose modules import one another one way only (no cycle, not even through an import
# inside a function; `if TYPE_CHECKING:` imports do not count): folder -> (its dotted package name,
# subpackages left out of the check).
ACYCLIC = {
    "stablehlo_py/semantics": ("stablehlo_py.semantics", ()),
    # the text layer: types and attributes, their spelling, the formats, directives, registry, the
    # parser and printer (the ops and the inference rules sit on top of it)
    "stablehlo_py/ir": ("stablehlo_py.ir", ("ops", "infer")),
}


def _module_graph(package: str, exclude: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """The whole package's import graph (tests/unit/import_graph.py) restricted to `package`'s
    modules, less its subpackages `exclude`."""
    skip = tuple(f"{package}.{e}" for e in exclude)

    def inside(m: str) -> bool:
        return (m == package or m.startswith(package + ".")) and not any(
            m == x or m.startswith(x + ".") for x in skip)

    graph = import_graph()
    return {m: {t for t in ts if inside(t)} for m, ts in graph.items() if inside(m)}


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
    for folder, (package, exclude) in ACYCLIC.items():
        cycle = _cycle(_module_graph(package, exclude))
        assert cycle is None, f"{folder}: import cycle " + " -> ".join(cycle or [])


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
