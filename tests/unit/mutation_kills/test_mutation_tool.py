"""tools/mutation.py (docs/MUTATION.md) must not rot: every group names files that exist, each
maps to the module the tests import, and the equivalent-mutant table parses.  mutmut itself is not
needed here."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
_spec = importlib.util.spec_from_file_location("mutation_tool", REPO / "tools" / "mutation.py")
tool = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutation_tool", tool)
_spec.loader.exec_module(tool)  # type: ignore[union-attr]

CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text())
GROUPS = CONFIG["tool"]["mutmut"]["groups"]
PACKAGE_DIR = CONFIG["tool"]["setuptools"]["package-dir"]


def test_dev_extra_pins_mutmut() -> None:
    dev = CONFIG["project"]["optional-dependencies"]["dev"]
    assert any(d.startswith("mutmut==") for d in dev)


@pytest.mark.parametrize(
    "path,staged",
    [
        ("serialization/mlirbc/encoding.py", "src/stablehlo_py/serialization/mlirbc/encoding.py"),
        ("interpreter/impls/", "src/stablehlo_py/interpreter/impls/"),
        ("vhlo/forks/", "src/stablehlo_py/vhlo/forks/"),
        ("stablehlo_py/ir/infer/", "src/stablehlo_py/ir/infer/"),
    ],
)
def test_staged_path_is_the_installed_module_path(path: str, staged: str) -> None:
    assert tool.staged_path(path, PACKAGE_DIR) == staged


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_group_paths_exist_and_map_to_imported_modules(name: str) -> None:
    group = GROUPS[name]
    assert group["paths"] and group["tests"]
    for p in group["paths"]:
        assert (REPO / p).exists(), p
        staged = tool.staged_path(p, PACKAGE_DIR)
        module = staged[len("src/"):].rstrip("/").removesuffix(".py").replace("/", ".")
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        # the module the tests import is the file the group mutates (the repository's in an
        # editable install, its copy in site-packages otherwise)
        tail = p if p.endswith(".py") else p + "__init__.py"
        assert spec.origin.replace("\\", "/").endswith("/" + tail), (spec.origin, tail)
    for t in group.get("deselect", []):
        assert (REPO / t.split("::")[0]).exists(), t


def test_every_group_has_a_test_that_exists() -> None:
    for name, group in GROUPS.items():
        assert any((REPO / t).exists() for t in group["tests"]), name


def test_equivalent_table_parses_and_names_grouped_modules() -> None:
    eq = tool.equivalents()
    assert eq, "docs/MUTATION.md lists no equivalent mutant"
    modules = set()
    for group in GROUPS.values():
        for p in group["paths"]:
            staged = tool.staged_path(p, PACKAGE_DIR)[len("src/"):]
            module = staged.rstrip("/").removesuffix(".py").replace("/", ".")
            modules.add(module.removesuffix(".__init__"))  # a package's own mutants: pkg.x_f__mutmut_1
    for name, reason in eq.items():
        assert "__mutmut_" in name and reason
        assert any(name.startswith(m + ".") for m in modules), name


def test_each_mutants_run_starts_with_empty_verification_memos(monkeypatch: pytest.MonkeyPatch) -> None:
    """mutmut forks each mutant's run from a process that already verified the programs with the
    unmutated rules; the verifier's memos must not answer for the mutated ones."""
    from stablehlo_py.ir.context import CONTEXT
    from stablehlo_py.ir.verify import driver as verify_plan
    from tests import conftest

    memos = [CONTEXT["verify.driver"]]
    assert len(memos) == 1 and memos[0] is verify_plan.CACHE  # one object holds every memo
    sentinel = ("sentinel",)
    for memo in memos:
        memo.verdicts.put_seq(sentinel, ("kept alive",))
    monkeypatch.delenv("MUTANT_UNDER_TEST", raising=False)
    conftest.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert all(memo.verdicts.get_seq(sentinel) is not None for memo in memos)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "stablehlo_py.ir.infer.shapes.x_f__mutmut_1")
    conftest.pytest_sessionstart(None)  # type: ignore[arg-type]
    assert not any(memo.verdicts for memo in memos)
