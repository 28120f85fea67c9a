"""Op classes are findable by name (issue 24): `grep "class AddOp\\|AddOp ="` finds the line that
defines or generates every registered op class of the toolkit, and every VHLO class leads to its row
of specs/ops.toml (`grep -rn "AddOpV1\\|add_v1"`).  The scan reads the sources as text, as grep does."""

from __future__ import annotations

import inspect
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from stablehlo_py.ir.dialects import default_registry
from stablehlo_py.ir.ops.base import op_class_name

ROOT = Path(__file__).resolve().parents[3]


@cache
def _source(module: str) -> str:
    path = inspect.getsourcefile(sys.modules[module])
    assert path is not None, module
    return Path(path).read_text(encoding="utf-8")


def _ops(vhlo: bool) -> list[tuple[str, type]]:
    """(op name, class) of the registered ops the toolkit defines (not xDSL's own classes)."""
    return [
        (name, cls)
        for name, cls in sorted(default_registry().ops.items())
        if name.startswith("vhlo.") == vhlo
        and (vhlo or cls.__module__.startswith("stablehlo_py."))
    ]


def _defining_line(cls: type) -> bool:
    """A line of the class's module that defines it (`class AddOp`) or assigns it (`AddOp = ...`)."""
    n = re.escape(cls.__name__)
    return re.search(rf"^(class {n}\b|{n}( = |: ))", _source(cls.__module__), re.M) is not None


def test_every_op_class_has_a_defining_or_generating_line() -> None:
    ops = _ops(vhlo=False)
    assert len(ops) > 200  # stablehlo, chlo, shape, sdy, ... (an empty registry must not pass)
    missing = [f"{name} ({cls.__module__}.{cls.__name__})" for name, cls in ops if not _defining_line(cls)]
    assert missing == []


@pytest.mark.parametrize("name", ["stablehlo.add", "chlo.broadcast_add", "chlo.acos", "shape.add"])
def test_a_generated_class_is_the_module_global_of_its_name(name: str) -> None:
    cls = default_registry().ops[name]
    assert getattr(sys.modules[cls.__module__], cls.__name__) is cls


def test_vhlo_classes_lead_to_their_specs_rows() -> None:
    ops = _ops(vhlo=True)
    assert len(ops) > 100
    rows = set(re.findall(r'^name = "([\w-]+)"$', (ROOT / "specs" / "ops.toml").read_text(), re.M))
    import stablehlo_py.vhlo.ops as generator

    doc = generator.__doc__ or ""
    assert "one class per row of ``specs/ops.toml``" in doc and "``AddOpV1``" in doc
    for name, cls in ops:
        short = name.split(".", 1)[1]
        assert short in rows, name
        base, _, version = short.rpartition("_v")
        assert cls.__name__ == f"{op_class_name(base.replace('-', '_'))}V{version}", name
