"""Passes over the IR, one module per pass (`passes/<pass>.py` declares its name, summary and
options beside its `run`); `PASSES` maps upstream's pass names to them (`registry.py`).  The
machinery that runs passes is in `drivers/`, the patterns and helpers they share in `patterns/`."""

from __future__ import annotations

from stablehlo_py.passes.drivers.options import parse_pass_options
from stablehlo_py.passes.drivers.pipeline import run_pipeline
from stablehlo_py.passes.registry import PASSES, PassInfo

__all__ = ["PASSES", "PassInfo", "parse_pass_options", "run_pipeline"]
