"""The pass table: upstream's pass name -> function(module, options) -> module."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import Operation

from stablehlo_py.errors import StableHLOError


@dataclass(frozen=True)
class PassInfo:
    name: str
    summary: str
    module: str  # module defining `run(module, options) -> module`

    def run(self, op: Operation, options: dict[str, str]) -> Operation:
        fn: Callable[[Operation, dict[str, str]], Operation] = importlib.import_module(self.module).run
        return fn(op, options)


PASSES: dict[str, PassInfo] = {
    p.name: p
    for p in (
        PassInfo("inline", "Inline calls to private functions and drop the dead ones", "stablehlo_py.passes.inline"),
        PassInfo(
            "chlo-legalize-to-stablehlo",
            "Decompose CHLO ops into StableHLO ops (static shapes)",
            "stablehlo_py.passes.chlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "chlo-pre-serialization-pipeline",
            "Lower as much as possible to StableHLO before serialization: CHLO (static shapes)",
            "stablehlo_py.passes.chlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "stablehlo-legalize-to-vhlo",
            "Legalize StableHLO to VHLO at the current version (defaults written out)",
            "stablehlo_py.passes.stablehlo_legalize_to_vhlo",
        ),
        PassInfo(
            "vhlo-legalize-to-stablehlo",
            "Legalize VHLO (at the current version) to StableHLO (defaults erased)",
            "stablehlo_py.passes.vhlo_legalize_to_stablehlo",
        ),
        PassInfo(
            "hlo-test-infer",
            "Test pass: attach the result types inference gives to `hlo_test_infer.get_return_types` ops",
            "stablehlo_py.passes.hlo_test_infer",
        ),
        PassInfo(
            "vhlo-to-version",
            "Upgrade or downgrade VHLO to target=X.Y.Z (also current, minimum)",
            "stablehlo_py.passes.vhlo_to_version",
        ),
    )
}


def parse_pass_options(text: str) -> dict[str, str]:
    """`target=1.0.0 allow-other-dialects=true` (also quoted, or wrapped in braces) -> dict."""
    text = text.strip().strip("'\"").strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    out: dict[str, str] = {}
    for item in text.replace(",", " ").split():
        if "=" in item:
            k, v = item.split("=", 1)
            out[k.strip()] = v.strip().strip("'\"")
        else:
            out[item] = "true"
    return out


def run_pipeline(op: Operation, pipeline: list[tuple[str, dict[str, str]]]) -> Operation:
    """Run the passes in order; like MLIR's pass manager, verify the IR after each one."""
    from stablehlo_py.ir.verify import verify

    for name, options in pipeline:
        info = PASSES.get(name)
        if info is None:
            raise StableHLOError(f"unknown pass '{name}'; available: {', '.join(sorted(PASSES))}")
        op = info.run(op, options)
        verify(op)
    return op
