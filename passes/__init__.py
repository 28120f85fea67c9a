"""Passes over the IR, one module per pass; `PASSES` maps upstream's pass names to them."""

from __future__ import annotations

from stablehlo_py.passes.registry import PASSES, PassInfo, parse_pass_options, run_pipeline

__all__ = ["PASSES", "PassInfo", "parse_pass_options", "run_pipeline"]
