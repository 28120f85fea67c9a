"""Verification: `verify(top)` checks every op of `top` as upstream's verifier does and raises the
first failure as one `VerifyError`, worded as upstream emits it, at the location the op was parsed
from.

The package:

- `driver`: the one verification driver -- the walk, each op's order (ODS structure, traits, the
  op's own checks composed from its declarations: `ODS_CHECK`, `verify_`, `INFER_CHECK`,
  `verify_after_inference_`; checks made after its regions), the compiled per-class plans, the
  memos (`CACHE`), and where xDSL's own verifier is used instead (and why);
- `diagnostics`: upstream's words for a failure (`'stablehlo.xxx' op ...`, bare rule messages, the
  `following` second error of a failed result-type refinement);
- the ODS machinery that ops' verifiers use: `ods_types` (type and attribute constraints with
  MLIR's summaries), `ods_containers` (token, buffer and tuple constraints), `ods_traits` (ODS
  trait checks), `constraints` (shape and type helpers, `fail`), `region_utils` (region helpers).
"""

from __future__ import annotations

from stablehlo_py.ir.verify.diagnostics import op_location, op_text, rule_error
from stablehlo_py.ir.verify.driver import verify

__all__ = ["op_location", "op_text", "rule_error", "verify"]
