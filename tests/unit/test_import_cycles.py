"""Import cycles across the whole package, counting what runs (tests/unit/import_graph.py: imports
inside functions, relative imports, modules loaded by name; not `if TYPE_CHECKING:` blocks).

Issue 24 asks for zero cycles.  Until then this is a ratchet: every cycle (strongly connected
component of the import graph) must lie inside one of KNOWN's, so no new cycle can appear; and a
KNOWN entry that no longer holds a cycle must be deleted (the list only shrinks).  The end state is
KNOWN = [].
"""

from __future__ import annotations

import ast

from tests.unit.import_graph import imported, modules, skipped, cycles, import_graph

# The cycles of 2026-11-29 (9, as docs/plans/issue-24-restructuring.md §1.2 counts them with imports
# by name), without the "stablehlo_py." prefix.  Delete a module (or a whole entry) when a change breaks its cycle.
KNOWN: list[frozenset[str]] = [
    frozenset(s.split()) for s in (
    )
]


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
    paths = modules()
    skip = skipped(src)
    seen = {n for node in ast.walk(src) if id(node) not in skip
            for n in imported(node, "stablehlo_py.api", "stablehlo_py", paths, {})}
    assert {"stablehlo_py.errors", "stablehlo_py.version"} <= seen
    assert "stablehlo_py.vhlo" not in seen
    # and on the package: ir/infer/__init__ imports shapes inside a function (verify_inferred), and
    # vhlo/forks/__init__ loads the fork modules by name (f"{__name__}.{name}")
    assert "stablehlo_py.ir.infer.shapes" in graph["stablehlo_py.ir.infer"]
    assert "stablehlo_py.vhlo.forks.gather" in graph["stablehlo_py.vhlo.forks"]
