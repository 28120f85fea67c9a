"""Several diagnostics from one pass run: MLIR passes emit an error per offending op and go on; our
diagnostics are exceptions, so a pass collects them and raises the last one carrying the earlier ones
in its `preceding` list (stablehlo-opt --verify-diagnostics matches each) and in its text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from stablehlo_py.errors import StableHLOError


def raise_collected(diagnostics: Sequence[StableHLOError]) -> NoReturn:
    """Raise the last of `diagnostics` (non-empty) with the others, in order, before it."""
    final, preceding = diagnostics[-1], list(diagnostics[:-1])
    final.preceding = preceding  # type: ignore[attr-defined]
    final.args = ("\n".join([*(str(d) for d in preceding), str(final)]),)
    raise final
