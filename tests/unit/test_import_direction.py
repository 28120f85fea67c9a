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
