"""The pass table: options declared once, checked and typed; `stablehlo-opt --help` lists them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from stablehlo_py.passes.registry import PASSES, help_text

from stablehlo_py.errors import StableHLOError

UPSTREAM_PASSES = {
    "stablehlo-compatibility-expander": {"target"},
    "stablehlo-aggressive-folder": {
        "assume-no-undeclared-side-effects",
        "fold-op-element-limit",
        "optimize-float",
    },
    "stablehlo-aggressive-simplification": {"fold-op-element-limit"},
    "stablehlo-wrap-in-composite": {"op-names", "version"},
    "stablehlo-legalize-deprecated-ops": {"fail-on-unused"},
    "interpreter-instrument-with-probe": {"useDebugInfo"},
}


@pytest.mark.parametrize("name,options", sorted(UPSTREAM_PASSES.items()))
def test_declared_as_upstream(name: str, options: set[str]) -> None:
    assert {o.name for o in PASSES[name].options} == options


def test_options_typed_with_defaults() -> None:
    info = PASSES["stablehlo-aggressive-folder"]
    typed = info.typed_options(
        {"fold-op-element-limit": "100", "assume-no-undeclared-side-effects": ""}
    )
    assert typed == {
        "assume-no-undeclared-side-effects": True,
        "fold-op-element-limit": 100,
        "optimize-float": True,
    }
    wrap = PASSES["stablehlo-wrap-in-composite"].typed_options(
        {"op-names": "stablehlo.add,stablehlo.reduce"}
    )
    assert wrap == {"op-names": ["stablehlo.add", "stablehlo.reduce"], "version": 0}


@pytest.mark.parametrize(
    "name,options,words",
    [
        (
            "vhlo-to-version",
            {"trget": "1.0.0"},
            "unknown option 'trget' for pass 'vhlo-to-version'",
        ),
        ("stablehlo-aggressive-folder", {"optimize-float": "maybe"}, "expects true or false"),
        ("stablehlo-aggressive-folder", {"fold-op-element-limit": "x"}, "expects an integer"),
        ("stablehlo-wrap-in-composite", {"version": str(1 << 40)}, "expects an integer (32-bit)"),
    ],
)
def test_bad_options_are_one_error(name: str, options: dict[str, str], words: str) -> None:
    with pytest.raises(StableHLOError, match=words.replace("(", r"\(").replace(")", r"\)")):
        PASSES[name].typed_options(options)


def test_every_declared_module_name_is_a_pass_module_or_not_yet_written() -> None:
    for info in PASSES.values():
        assert info.module.startswith("stablehlo_py.passes."), info
        spec = importlib.util.find_spec(info.module)
        if spec is not None:
            assert callable(importlib.import_module(info.module).run), info.module


def test_help_lists_every_pass_and_option() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.opt", "--help"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    for info in PASSES.values():
        assert f"--{info.name} " in out.stdout
        for o in info.options:
            assert f"--{o.name}" in out.stdout
    assert "--fold-op-element-limit=<long>" in help_text()


def test_a_declared_pass_without_its_module_is_not_supported() -> None:
    """A pass declared as upstream's whose module is not written yet (the registry's
    `_DECLARED_HERE`) runs as one clear error."""
    from stablehlo_py.errors import NotSupportedError
    from stablehlo_py.ir import parse
    from stablehlo_py.passes.registry import PassInfo

    info = PassInfo("stablehlo-not-written", "Upstream's.", "stablehlo_py.passes.not_written_yet")
    with pytest.raises(NotSupportedError, match="pass 'stablehlo-not-written' is not supported"):
        info.run(parse("func.func @f() { func.return }"), {})


def test_every_pass_module_declares_the_pass_its_file_names() -> None:
    """passes/<pass>.py declares PASS_NAME <pass> (dashes for underscores), SUMMARY and OPTIONS (none
    when it leaves OPTIONS out)."""
    for name, info in PASSES.items():
        module = importlib.import_module(info.module)
        if module.__name__.rpartition(".")[2] == name.replace("-", "_"):
            assert module.PASS_NAME == name
            assert (info.summary, info.options) == (module.SUMMARY, getattr(module, "OPTIONS", ()))
