"""The pass registry: every pass `stablehlo-opt` knows, found where it is declared.

A pass is a module `passes/<pass>.py` (the pass `a-b-c` in `a_b_c.py`) that declares, beside its
code, as xDSL's `ModulePass` declares its name and fields:

    PASS_NAME = "a-b-c"           # upstream's name
    SUMMARY = "..."               # its one line in `stablehlo-opt --help`
    OPTIONS = (PassOption(...),)  # upstream's options, with types and defaults (drivers/options.py);
                                  # a pass without options leaves it out

    def run(module, options) -> module   # options typed, defaults filled in

The registry lists the modules of the folder (no table to keep in step) and imports a pass's module
only when the pass is used, so naming one pass does not load them all.  `_DECLARED_HERE` holds the
passes declared here rather than in a module of their own: upstream's passes that stablehlo-py
declares but does not implement (their `run` is the "not supported" error) and upstream's pipelines
that run another module's pass.  `stablehlo-opt --help` lists them all, and the option parser checks
against the declarations."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from xdsl.ir import Operation

from stablehlo_py.errors import NotSupportedError, StableHLOError
from stablehlo_py.passes.drivers.options import KINDS, PassOption


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    module: str  # module defining `run(module, options) -> module`
    options: tuple[PassOption, ...] = ()

    def typed_options(self, options: dict[str, str]) -> dict[str, object]:
        """`options` as written (name -> text) checked against the declaration: every declared
        option present, typed, defaults filled in; an undeclared one is an error."""
        declared = {o.name: o for o in self.options}
        unknown = sorted(set(options) - set(declared))
        if unknown:
            takes = ", ".join(sorted(declared)) or "no options"
            raise StableHLOError(
                f"unknown option{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(u) for u in unknown)} for pass '{self.name}'; it takes: {takes}"
            )
        return {
            name: (o.convert(self.name, options[name]) if name in options else o.default)
            for name, o in declared.items()
        }

    def run(self, op: Operation, options: dict[str, str]) -> Operation:
        typed = self.typed_options(options)
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as e:
            if e.name != self.module:
                raise
            raise NotSupportedError(
                f"pass '{self.name}' is not supported by stablehlo-py yet (declared as upstream's, "
                "not implemented)"
            ) from None
        fn: Callable[[Operation, dict[str, object]], Operation] = module.run
        return fn(op, typed)

    def help_lines(self, width: int = 48) -> list[str]:
        """The pass and its options as `stablehlo-opt --help` lists them (as MLIR's)."""
        lines = [f"      --{self.name:<{width - 8}} -   {self.summary}"]
        for o in self.options:
            flag = f"--{o.name}{KINDS[o.kind]}"
            lines.append(f"        {flag:<{width - 10}} - {o.description}")
        return lines


_PACKAGE = __name__.rpartition(".")[0]  # stablehlo_py.passes
# The modules of passes/ that are not passes (drivers/ and patterns/ are packages, never listed)
_NOT_PASSES = frozenset({"registry"})

# Passes declared here, not in a module of their own (their `module` is another pass's, or one not
# written yet: running such a pass is the "not supported" error)
_DECLARED_HERE: tuple[PassInfo, ...] = (
    # upstream's pipeline (transforms/PassPipelines.cpp) is, for the static shapes read here,
    # chlo-legalize-to-stablehlo alone
    PassInfo(
        "chlo-pre-serialization-pipeline",
        "Lower as much as possible to StableHLO before serialization: CHLO (static shapes)",
        f"{_PACKAGE}.chlo_legalize_to_stablehlo",
    ),
)


def _pass_modules() -> dict[str, str]:
    """pass name -> its module: the modules of passes/ (`a_b_c.py` declares `a-b-c`)."""
    folder = str(Path(__file__).parent)
    return {
        m.name.replace("_", "-"): f"{_PACKAGE}.{m.name}"
        for m in pkgutil.iter_modules([folder])
        if not m.ispkg and m.name not in _NOT_PASSES
    }


class _Passes(Mapping[str, PassInfo]):
    """pass name -> PassInfo; a module's declaration is read (the module imported) on lookup."""

    def __init__(self) -> None:
        self._modules = _pass_modules()
        self._here = {p.name: p for p in _DECLARED_HERE}
        clash = self._modules.keys() & self._here.keys()
        assert not clash, f"passes declared twice: {sorted(clash)}"
        self._names = sorted([*self._modules, *self._here])

    def __getitem__(self, name: str) -> PassInfo:
        info = self._here.get(name)
        if info is not None:
            return info
        module = importlib.import_module(self._modules[name])
        if module.PASS_NAME != name:
            raise AssertionError(f"{module.__name__} declares '{module.PASS_NAME}', not '{name}'")
        return PassInfo(name, module.SUMMARY, module.__name__, getattr(module, "OPTIONS", ()))

    def __contains__(self, name: object) -> bool:
        return name in self._modules or name in self._here

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


PASSES: Mapping[str, PassInfo] = _Passes()


def help_text() -> str:
    """`stablehlo-opt --help`'s list of passes with their options."""
    lines = ["  Passes:"]
    for name in sorted(PASSES):
        lines.extend(PASSES[name].help_lines())
    return "\n".join(lines) + "\n"


# Upstream's registered pass pipelines (transforms/PassPipelines.cpp), usable as `--<name>` or inside
# `--pass-pipeline=...`, each the passes it adds, in order.  (`chlo-pre-serialization-pipeline` is a
# pass of its own here: PASSES.)
PIPELINES: dict[str, tuple[tuple[str, dict[str, str]], ...]] = {
    # VHLO at any version -> VHLO at the current version -> StableHLO
    "stablehlo-deserialize": (
        ("vhlo-to-version", {"target": "current"}),
        ("vhlo-legalize-to-stablehlo", {}),
    ),
}
