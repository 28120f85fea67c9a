"""Every subpackage is listed in pyproject.toml, so a wheel (not only the editable install the
tests use) carries it: `[tool.setuptools] packages` with the `package-dir` mapping."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for package, directory in mapping.items():
        base = ROOT / directory
        for init in base.rglob("__init__.py"):
            if "__pycache__" in init.parts:
                continue
            rel = init.parent.relative_to(base).parts
            found.add(".".join((package, *rel)))
    missing = sorted(found - listed)
    assert not missing, f"subpackages missing from pyproject.toml's packages: {missing}"
